use super::*;
use std::fs;

/// A transaction id as [`new_id`] makes them.
const ID: &str = "0123456789abcdef";

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
                ".{}.{ID}.tmp",
                t.file_name().unwrap().to_string_lossy()
            ));
            let old = real.join(format!(
                ".{}.{ID}.old",
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
        let mut j = Journal::new(ID.into(), std::slice::from_ref(&real), steps.clone());
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
        "id": ID,
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

/// A journal of transaction [`ID`] in `state` over `folders`, with one step
/// per target (its `.NAME.ID.old` named when `old`), written into `into`.
fn plant(into: &Path, state: &str, folders: &[&Path], steps: &[(&Path, bool)]) {
    let beside = |t: &Path, suffix: &str| {
        let name = t.file_name().unwrap().to_string_lossy();
        t.with_file_name(format!(".{name}.{ID}.{suffix}"))
            .to_string_lossy()
            .into_owned()
    };
    let steps: Vec<_> = steps
        .iter()
        .map(|(t, old)| {
            serde_json::json!({
                "target": t.to_string_lossy(),
                "temp": beside(t, "tmp"),
                "old": old.then(|| beside(t, "old")),
            })
        })
        .collect();
    let text = serde_json::json!({
        "format": journal::FORMAT,
        "version": 1,
        "id": ID,
        "state": state,
        "folders": folders.iter().map(|f| f.to_string_lossy()).collect::<Vec<_>>(),
        "steps": steps,
    });
    fs::write(into.join(JOURNAL), text.to_string()).unwrap();
}

/// Two real folders, `game` and `victim`, each with `keep.txt`.
fn two_folders() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let (game, victim) = (root.join("game"), root.join("victim"));
    for f in [&game, &victim] {
        fs::create_dir(f).unwrap();
        fs::write(f.join("keep.txt"), b"keep me").unwrap();
    }
    (tmp, game, victim)
}

/// What a reader's recovery of `folder` tells: the notes' codes.
fn read_notes(folder: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    recover_pending(folder, &mut |e| match e {
        Event::Recovered(code, _) | Event::Untrusted(code, _) => notes.push(code.to_string()),
        Event::Waiting(_) => {}
    })
    .unwrap();
    notes
}

/// The attack of issue 38: a journal in `game` naming `victim` too, rolling
/// back a step that would remove `victim/keep.txt`. `victim` holds no copy,
/// so the journal is alone: only it goes; with its temporary file planted
/// beside the victim too, nothing at all is done.
#[test]
fn a_journal_naming_a_folder_that_lacks_it_never_acts_there() {
    let (_tmp, game, victim) = two_folders();
    let target = victim.join("keep.txt");
    plant(
        &game,
        "rolling_back",
        &[&game, &victim],
        &[(&target, false)],
    );
    assert_eq!(read_notes(&game), ["txn.rolled_back"]);
    assert_eq!(fs::read(&target).unwrap(), b"keep me");
    assert!(!game.join(JOURNAL).exists());
    // A step in `game` whose files are there: not trusted, left alone.
    let mine = game.join("keep.txt");
    fs::write(game.join(format!(".keep.txt.{ID}.tmp")), b"x").unwrap();
    plant(
        &game,
        "committed",
        &[&game, &victim],
        &[(&mine, false), (&target, false)],
    );
    assert_eq!(read_notes(&game), ["txn.journal_unknown"]);
    assert_eq!(fs::read(&mine).unwrap(), b"keep me");
    assert_eq!(fs::read(&target).unwrap(), b"keep me");
    assert!(game.join(JOURNAL).exists());
    // A writer there is refused, and still touches nothing.
    let e = Lock::acquire(&[game.join("units.rlb")], &mut |_| {}).unwrap_err();
    assert_eq!(e.code(), "txn.journal_unknown");
    assert_eq!(fs::read(&mine).unwrap(), b"keep me");
}

/// A journal of this folder alone that would remove or replace a file
/// without proof (no `.NAME.ID.new` that is the file, no `.NAME.ID.old`
/// that is the old one) is not acted on; with the proof, it is.
#[test]
fn a_target_is_removed_or_replaced_only_with_its_proof_beside_it() {
    let (_tmp, game, _victim) = two_folders();
    let keep = game.join("keep.txt");
    let new = game.join(format!(".keep.txt.{ID}.new"));
    let temp = game.join(format!(".keep.txt.{ID}.tmp"));
    plant(&game, "rolling_back", &[&game], &[(&keep, false)]);
    assert_eq!(read_notes(&game), ["txn.journal_unknown"]);
    assert_eq!(fs::read(&keep).unwrap(), b"keep me");
    fs::write(&new, b"keep me").unwrap();
    assert_eq!(
        read_notes(&game),
        ["txn.journal_unknown"],
        "a copy is no proof"
    );
    fs::remove_file(&new).unwrap();
    fs::hard_link(&keep, &new).unwrap();
    assert_eq!(read_notes(&game), ["txn.rolled_back"]);
    assert!(!keep.exists() && !new.exists() && !game.join(JOURNAL).exists());
    // Rolling forward over a file that is not the old one kept: refused.
    fs::write(&keep, b"keep me").unwrap();
    fs::write(&temp, b"planted").unwrap();
    fs::write(game.join(format!(".keep.txt.{ID}.old")), b"other").unwrap();
    plant(&game, "committed", &[&game], &[(&keep, true)]);
    assert_eq!(read_notes(&game), ["txn.journal_unknown"]);
    assert_eq!(fs::read(&keep).unwrap(), b"keep me");
}

/// Journals a transaction cannot have written: a bad id, relative or `..`
/// folders, a folder not the one it lies in, other formats. Each is
/// `txn.journal_unknown` for a reader (a note, the read goes on) and
/// nothing is touched.
#[test]
fn journals_of_other_shapes_are_never_acted_on() {
    let (_tmp, game, victim) = two_folders();
    let keep = game.join("keep.txt");
    fs::hard_link(&keep, game.join(format!(".keep.txt.{ID}.new"))).unwrap();
    let good = |id: &str, folders: serde_json::Value, target: String| {
        let temp = Path::new(&target).with_file_name(format!(".keep.txt.{id}.tmp"));
        serde_json::json!({
            "format": journal::FORMAT, "version": 1, "id": id, "state": "rolling_back",
            "folders": folders,
            "steps": [{"target": target, "temp": temp.to_string_lossy(), "old": null}],
        })
    };
    let g = game.to_string_lossy().into_owned();
    let dotted = format!("{g}/../game");
    let shapes = [
        good("0123abcd", serde_json::json!([g]), format!("{g}/keep.txt")),
        good("../../x", serde_json::json!([g]), format!("{g}/keep.txt")),
        good(
            ID,
            serde_json::json!([dotted]),
            format!("{dotted}/keep.txt"),
        ),
        good(ID, serde_json::json!(["game"]), "game/keep.txt".into()),
        good(
            ID,
            serde_json::json!([victim.to_string_lossy()]),
            format!("{}/keep.txt", victim.display()),
        ),
        good(ID, serde_json::json!([g, g]), format!("{g}/keep.txt")),
        good(ID, serde_json::json!([g]), format!("{g}/.mshconv.lock")),
        serde_json::json!({"format": "other", "version": 1, "id": ID, "state": "committed", "folders": [g], "steps": []}),
        serde_json::json!({"format": journal::FORMAT, "version": 2, "id": ID, "state": "committed", "folders": [], "steps": []}),
    ];
    for shape in shapes {
        fs::write(game.join(JOURNAL), shape.to_string()).unwrap();
        assert_eq!(read_notes(&game), ["txn.journal_unknown"], "{shape}");
        assert_eq!(fs::read(&keep).unwrap(), b"keep me", "{shape}");
        assert_eq!(fs::read(victim.join("keep.txt")).unwrap(), b"keep me");
    }
}

/// What is at the journal's name is read only when it is a regular file of
/// at most `MAX_LEN` bytes, never through a link, never blocking: a link
/// (to a file, to `/dev/zero`, to nothing) is removed; a FIFO, a folder and a
/// longer file are `txn.journal_unknown`, and a reader goes on.
#[cfg(unix)]
#[test]
fn only_a_regular_file_of_bounded_size_is_read_as_a_journal() {
    let (_tmp, game, victim) = two_folders();
    let name = game.join(JOURNAL);
    for to in [
        victim.join("keep.txt"),
        "/dev/zero".into(),
        game.join("absent"),
    ] {
        std::os::unix::fs::symlink(&to, &name).unwrap();
        assert_eq!(read_notes(&game), Vec::<String>::new(), "{to:?}");
        assert!(
            fs::symlink_metadata(&name).is_err(),
            "{to:?}: the link stays"
        );
        // A writer is not stopped by it either.
        std::os::unix::fs::symlink(&to, &name).unwrap();
        let l = lock(&[game.join("units.rlb")]);
        let mut t = l.transaction();
        t.replace(game.join("units.rlb"), b"new".to_vec());
        t.commit().unwrap();
    }
    assert_eq!(fs::read(victim.join("keep.txt")).unwrap(), b"keep me");
    let fifo = std::process::Command::new("mkfifo").arg(&name).status();
    if fifo.is_ok_and(|s| s.success()) {
        assert_eq!(read_notes(&game), ["txn.journal_unknown"]);
        fs::remove_file(&name).unwrap();
    }
    fs::create_dir(&name).unwrap();
    assert_eq!(read_notes(&game), ["txn.journal_unknown"]);
    fs::remove_dir(&name).unwrap();
    let big = fs::File::create(&name).unwrap();
    big.set_len(journal::MAX_LEN + 1).unwrap();
    assert_eq!(read_notes(&game), ["txn.journal_unknown"]);
    assert_eq!(fs::metadata(&name).unwrap().len(), journal::MAX_LEN + 1);
}

/// A transaction over two folders killed while it wrote its journals (the
/// first folder's written, the second's not): the journal is alone, and only
/// it goes; killed after its cleanup removed the first folder's journal:
/// the second's is alone, and only it goes.
#[test]
fn a_journal_left_alone_by_a_killed_run_is_removed_and_nothing_else() {
    let (_tmp, game, out) = two_folders();
    let (lib, model) = (game.join("keep.txt"), out.join("keep.txt"));
    plant(
        &game,
        "prepared",
        &[&game, &out],
        &[(&lib, true), (&model, true)],
    );
    assert_eq!(read_notes(&game), ["txn.rolled_back"]);
    assert!(!game.join(JOURNAL).exists());
    plant(
        &out,
        "committed",
        &[&game, &out],
        &[(&lib, true), (&model, true)],
    );
    assert_eq!(read_notes(&out), ["txn.rolled_forward"]);
    assert!(!out.join(JOURNAL).exists());
    for f in [&lib, &model] {
        assert_eq!(fs::read(f).unwrap(), b"keep me");
    }
    // Both folders holding it: finished in both, from either.
    fs::write(out.join(format!(".keep.txt.{ID}.tmp")), b"new").unwrap();
    fs::hard_link(&model, out.join(format!(".keep.txt.{ID}.old"))).unwrap();
    fs::hard_link(&lib, game.join(format!(".keep.txt.{ID}.old"))).unwrap();
    plant(
        &game,
        "committed",
        &[&game, &out],
        &[(&lib, true), (&model, true)],
    );
    plant(
        &out,
        "committed",
        &[&game, &out],
        &[(&lib, true), (&model, true)],
    );
    assert_eq!(read_notes(&game), ["txn.rolled_forward"]);
    assert_eq!(fs::read(&model).unwrap(), b"new");
    assert_eq!(fs::read(&lib).unwrap(), b"keep me");
    assert_eq!(leftovers(&game), Vec::<String>::new());
    assert_eq!(leftovers(&out), Vec::<String>::new());
}
