//! The files a user owns: modes, groups and links kept, read-only and
//! hard-linked files refused, temporary and lock files never made through a
//! planted link. Root ignores modes, so where it matters the binary also runs
//! as `nobody` (setpriv) when the tests run as root.

use super::*;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::Stdio;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

const NOBODY: u32 = 65534;

/// Runs mshconv as `nobody` (uid and gid 65534, no other groups), when the
/// tests run as root and setpriv is there.
fn as_nobody(args: &[&OsStr]) -> Option<Output> {
    if !is_root() {
        return None;
    }
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(BIN)
        .args(adding(args))
        .env_remove("MSHCONV_GAME_DIR")
        .env_remove(HOOK)
        .output()
        .ok()
}

/// A folder `nobody` owns and may enter, with a copy of the fixture archive.
fn nobodys_folder(tmp: &Path) -> PathBuf {
    set_mode(tmp, 0o755);
    let dir = tmp.join("nobody");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(fixture("archives/small.rlb"), dir.join("units.rlb")).unwrap();
    if is_root() {
        for p in [dir.clone(), dir.join("units.rlb")] {
            std::os::unix::fs::chown(&p, Some(NOBODY), Some(NOBODY)).unwrap();
        }
    }
    dir
}

#[test]
fn a_replaced_archive_keeps_its_mode_and_group() {
    let dir = tempfile::tempdir().unwrap();
    let glb = robot_glb(dir.path());
    let archive = dir.path().join("units.rlb");
    std::fs::copy(fixture("archives/small.rlb"), &archive).unwrap();
    let target = format!("{}:NEW.MSH", archive.display());
    for m in [0o600, 0o755, 0o640] {
        set_mode(&archive, m);
        if is_root() {
            std::os::unix::fs::chown(&archive, None, Some(NOBODY)).unwrap();
        }
        ok(&[os("convert"), glb.as_os_str(), os(&target), os("-q")]);
        assert_eq!(mode(&archive), m, "mode {m:o}");
        if is_root() {
            assert_eq!(std::fs::metadata(&archive).unwrap().gid(), NOBODY);
        }
    }
    // A plain output replaced keeps its mode too.
    let out = dir.path().join("robot.obj");
    std::fs::write(&out, b"old").unwrap();
    set_mode(&out, 0o600);
    ok(&[
        os("convert"),
        archive.as_os_str(),
        os("--entry"),
        os("NEW.MSH"),
        out.as_os_str(),
    ]);
    assert_eq!(mode(&out), 0o600);
}

#[test]
fn a_read_only_archive_or_library_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let glb = robot_glb(tmp.path());
    let dir = nobodys_folder(tmp.path());
    let archive = dir.join("units.rlb");
    set_mode(&archive, 0o444);
    let before = files(&dir);
    let target = format!("{}:NEW.MSH", archive.display());
    let convert = [os("convert"), glb.as_os_str(), os(&target)];
    let put = [
        os("nres"),
        os("put"),
        archive.as_os_str(),
        glb.as_os_str(),
        os("--add"),
    ];
    let remove = [
        os("nres"),
        os("remove"),
        archive.as_os_str(),
        os("M143_ROBOT.MSH"),
    ];
    let batch = [
        os("batch"),
        glb.as_os_str(),
        os("--to"),
        os("msh"),
        os("--into"),
        archive.as_os_str(),
    ];
    for args in [&convert[..], &put[..], &remove[..], &batch[..]] {
        let mut runs = vec![mshconv(args)];
        runs.extend(as_nobody(args));
        for out in runs {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("error[io.read_only]"), "{args:?}: {stderr}");
            assert!(stderr.contains("mode 0444"), "{stderr}");
            assert_same(&files(&dir), &before, &format!("{args:?} wrote"));
        }
    }
    // Writable, nobody writes it (a sanity check of the nobody runs).
    set_mode(&archive, 0o644);
    if let Some(out) = as_nobody(&convert) {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::metadata(&archive).unwrap().uid(), NOBODY);
    }
    // A read-only library: the import writes nothing at all (no backup, no model).
    let game = tmp.path().join("game");
    copy_game(&game);
    let gltf = tank_with_new_look(&game, &tmp.path().join("in"), "A");
    set_mode(&game.join("Material.lib"), 0o444);
    let before = files(&game);
    let target = format!("{}:NEWA.MSH", game.join("units.rlb").display());
    let out = mshconv(&[
        os("convert"),
        gltf.as_os_str(),
        os(&target),
        os("--game-dir"),
        game.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error[io.read_only]") && stderr.contains("Material.lib"),
        "{stderr}"
    );
    assert_same(&files(&game), &before, "");
}

#[test]
fn a_hard_linked_archive_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let glb = robot_glb(dir.path());
    let archive = dir.path().join("units.rlb");
    std::fs::copy(fixture("archives/small.rlb"), &archive).unwrap();
    std::fs::hard_link(&archive, dir.path().join("other.rlb")).unwrap();
    let before = files(dir.path());
    let target = format!("{}:NEW.MSH", archive.display());
    let out = mshconv(&[os("convert"), glb.as_os_str(), os(&target)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("error[io.hard_linked]"), "{stderr}");
    assert!(stderr.contains("has 2 names"), "{stderr}");
    assert_same(&files(dir.path()), &before, "");
}

#[test]
fn symbolic_links_are_written_through_and_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let glb = robot_glb(tmp.path());
    // The game's real folder, and a mod folder linking its files.
    let real = tmp.path().join("real");
    copy_game(&real);
    let gltf = tank_with_new_look(&real, &tmp.path().join("in"), "A");
    let modding = tmp.path().join("mod");
    std::fs::create_dir(&modding).unwrap();
    for f in ["Material.lib", "Textures.lib", "units.rlb"] {
        std::os::unix::fs::symlink(real.join(f), modding.join(f)).unwrap();
    }
    let old_materials = std::fs::read(real.join("Material.lib")).unwrap();
    let target = format!("{}:NEWA.MSH", modding.join("units.rlb").display());
    ok(&[
        os("convert"),
        gltf.as_os_str(),
        os(&target),
        os("--game-dir"),
        modding.as_os_str(),
    ]);
    for f in ["Material.lib", "Textures.lib", "units.rlb"] {
        let link = modding.join(f);
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{f}"
        );
        assert_eq!(std::fs::read_link(&link).unwrap(), real.join(f));
    }
    assert!(entry_names(&real.join("units.rlb")).contains(&"NEWA.MSH".to_string()));
    assert!(entry_names(&real.join("Material.lib")).contains(&"HULLA".to_string()));
    // The backup is made beside the link the user named.
    assert_eq!(
        std::fs::read(modding.join("Material.lib.bak")).unwrap(),
        old_materials
    );
    assert_eq!(hidden(&modding), Vec::<String>::new());
    assert_eq!(hidden(&real), Vec::<String>::new());
    // A relative link, for nres put.
    let rel = tmp.path().join("rel.rlb");
    std::os::unix::fs::symlink("real/units.rlb", &rel).unwrap();
    ok(&[
        os("nres"),
        os("put"),
        rel.as_os_str(),
        glb.as_os_str(),
        os("--name"),
        os("R.MSH"),
        os("--add"),
    ]);
    assert!(std::fs::symlink_metadata(&rel)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(entry_names(&real.join("units.rlb")).contains(&"R.MSH".to_string()));
    // nres repack in place, through the link (a canonical archive comes back as it was).
    let before = std::fs::read(real.join("units.rlb")).unwrap();
    ok(&[
        os("nres"),
        os("repack"),
        rel.as_os_str(),
        os("--out"),
        rel.as_os_str(),
    ]);
    assert!(std::fs::symlink_metadata(&rel)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(real.join("units.rlb")).unwrap(), before);
}

#[test]
fn planted_links_at_the_temporary_journal_and_lock_names_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let glb = robot_glb(dir.path());
    let archive = dir.path().join("units.rlb");
    std::fs::copy(fixture("archives/small.rlb"), &archive).unwrap();
    let old = std::fs::read(&archive).unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, b"mine").unwrap();
    let target = format!("{}:NEW.MSH", archive.display());
    // The temporary file's name is known only once the journal is written:
    // stop there, plant a link at that name, go on.
    let mut child = Command::new(BIN)
        .env(HOOK, "pause:1")
        .args(adding(&[os("convert"), glb.as_os_str(), os(&target)]))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains("stopped at point 1 (journal"), "{line}");
    let journal: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(".mshconv.journal")).unwrap())
            .unwrap();
    let temp = PathBuf::from(journal["steps"][0]["temp"].as_str().unwrap());
    assert!(temp
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with(".units.rlb."));
    std::os::unix::fs::symlink(&victim, &temp).unwrap();
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(2), "{rest}");
    assert!(rest.contains("error[io.already_exists]"), "{rest}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"mine");
    assert_eq!(std::fs::read(&archive).unwrap(), old);
    assert!(!std::fs::symlink_metadata(&archive)
        .unwrap()
        .file_type()
        .is_symlink());
    // Links at the journal's and the lock's names (to the victim, and to a
    // file that does not exist) are removed, never followed.
    let absent = dir.path().join("absent.txt");
    std::os::unix::fs::symlink(&victim, dir.path().join(".mshconv.journal")).unwrap();
    std::os::unix::fs::symlink(&absent, dir.path().join(".mshconv.lock")).unwrap();
    ok(&[os("convert"), glb.as_os_str(), os(&target), os("-q")]);
    assert!(entry_names(&archive).contains(&"NEW.MSH".to_string()));
    assert_eq!(std::fs::read(&victim).unwrap(), b"mine");
    assert!(!absent.exists());
    assert_eq!(hidden(dir.path()), Vec::<String>::new());
}
