use super::*;
use std::fs;

fn lock(paths: &[PathBuf]) -> Lock {
    Lock::acquire(paths, &mut |_| {}).unwrap()
}

fn leftovers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n != LOCK_FILE)
        .collect();
    names.sort();
    names
}

#[test]
fn a_transaction_writes_every_file_and_leaves_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let (lib, bak, model) = (
        dir.path().join("Material.lib"),
        dir.path().join("Material.lib.bak"),
        dir.path().join("m.msh"),
    );
    fs::write(&lib, b"old lib").unwrap();
    let l = lock(&[lib.clone(), bak.clone(), model.clone()]);
    let mut t = l.transaction();
    t.backup(&bak, b"old lib".to_vec(), &lib);
    t.replace(&lib, b"new lib".to_vec());
    t.replace(&model, b"model".to_vec());
    let written = t.commit().unwrap();
    assert!(written.wrote(&bak));
    assert_eq!(fs::read(&lib).unwrap(), b"new lib");
    assert_eq!(fs::read(&bak).unwrap(), b"old lib");
    assert_eq!(fs::read(&model).unwrap(), b"model");
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    // A backup there already is kept (the original).
    let mut t = l.transaction();
    t.backup(&bak, b"new lib".to_vec(), &lib);
    t.replace(&lib, b"newer".to_vec());
    assert!(!t.commit().unwrap().wrote(&bak));
    assert_eq!(fs::read(&bak).unwrap(), b"old lib");
}

#[test]
fn a_file_outside_the_locked_folders_is_refused() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let l = lock(&[a.path().join("x.rlb")]);
    let mut t = l.transaction();
    t.replace(b.path().join("y.rlb"), b"y".to_vec());
    assert_eq!(t.commit().unwrap_err().code(), "internal");
    assert!(!b.path().join("y.rlb").exists());
}

#[cfg(unix)]
#[test]
fn modes_and_links_are_kept_and_a_read_only_file_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("game");
    fs::create_dir(&real).unwrap();
    let target = real.join("units.rlb");
    fs::write(&target, b"old").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("units.rlb");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let l = lock(std::slice::from_ref(&link));
    let mut t = l.transaction();
    t.replace(&link, b"new".to_vec());
    t.commit().unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(&target).unwrap(), b"new");
    assert_eq!(
        fs::metadata(&target).unwrap().permissions().mode() & 0o7777,
        0o600
    );
    drop(l);
    fs::set_permissions(&target, fs::Permissions::from_mode(0o444)).unwrap();
    let e = Lock::acquire(std::slice::from_ref(&link), &mut |_| {}).unwrap_err();
    assert_eq!(e.code(), "io.read_only");
    assert_eq!(fs::read(&target).unwrap(), b"new");
}

#[test]
fn an_interrupted_transaction_is_rolled_back_or_forward_by_the_next_lock() {
    let dir = tempfile::tempdir().unwrap();
    let real = fs::canonicalize(dir.path()).unwrap();
    let (a, b) = (real.join("a.lib"), real.join("b.rlb"));
    fs::write(&a, b"old a").unwrap();
    fs::write(&b, b"old b").unwrap();
    for state in [State::Prepared, State::Committed] {
        fs::write(&a, b"old a").unwrap();
        fs::write(&b, b"old b").unwrap();
        // What a run that died after writing its temporary files and
        // replacing a.lib leaves (for Prepared: before replacing anything).
        let step = |t: &Path, new: &[u8]| {
            let temp = real.join(format!(
                ".{}.x.tmp",
                t.file_name().unwrap().to_string_lossy()
            ));
            let old = real.join(format!(
                ".{}.x.old",
                t.file_name().unwrap().to_string_lossy()
            ));
            fs::write(&temp, new).unwrap();
            fs::hard_link(t, &old).unwrap();
            journal::Step {
                target: journal::encode(t),
                temp: journal::encode(&temp),
                old: Some(journal::encode(&old)),
            }
        };
        let steps = vec![step(&a, b"new a"), step(&b, b"new b")];
        let mut j = Journal::new("x".into(), std::slice::from_ref(&real), steps.clone());
        j.state = state;
        fs::write(real.join(JOURNAL), serde_json::to_vec(&j).unwrap()).unwrap();
        if state == State::Committed {
            fs::rename(journal::decode(&steps[0].temp), &a).unwrap();
        }
        let mut notes = Vec::new();
        recover_pending(&real, &mut |e| {
            if let Event::Recovered(code, _) = e {
                notes.push(code.to_string())
            }
        })
        .unwrap();
        let expect: (&[u8], &[u8], &str) = match state {
            State::Committed => (b"new a", b"new b", "txn.rolled_forward"),
            _ => (b"old a", b"old b", "txn.rolled_back"),
        };
        assert_eq!(
            (fs::read(&a).unwrap(), fs::read(&b).unwrap()),
            (expect.0.to_vec(), expect.1.to_vec())
        );
        assert_eq!(notes, [expect.2]);
        assert_eq!(leftovers(&real), Vec::<String>::new(), "{state:?}");
    }
}

/// A journal that names a file outside its folders (planted, or damaged) is
/// never acted on: recovery would remove or rename what it names.
#[test]
fn a_journal_naming_files_outside_its_folders_is_refused_and_nothing_is_touched() {
    let game = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let victim = elsewhere.path().join("victim.txt");
    fs::write(&victim, b"keep me").unwrap();
    let folder = fs::canonicalize(game.path()).unwrap();
    let text = serde_json::json!({
        "format": journal::FORMAT,
        "version": 1,
        "id": "0123abcd",
        "state": "prepared",
        "folders": [folder.to_string_lossy()],
        "steps": [{
            "target": folder.join("units.rlb").to_string_lossy(),
            "temp": victim.to_string_lossy(),
            "old": null
        }]
    });
    fs::write(folder.join(journal::JOURNAL), text.to_string()).unwrap();
    let Err(e) = Lock::acquire(&[folder.join("units.rlb")], &mut |_| {}) else {
        panic!("a planted journal was acted on");
    };
    assert_eq!(e.code(), "txn.journal_unknown", "{}", e.message());
    assert_eq!(fs::read(&victim).unwrap(), b"keep me");
}
