//! A multi-file write (textures, materials, WEAR, model) killed at each point
//! of its transaction, or failing there, leaves the files all old or all new
//! once the next command has run.

use super::*;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

/// How a run with the hook ended.
enum Ended {
    /// It stopped at the point (and was killed there); what the point follows.
    Killed(String),
    /// It never reached the point: the hook's N is past its last one.
    Finished,
}

/// Runs `args` with `MSHCONV_TEST_TXN=stop:N` and kills it (SIGKILL) once it
/// says it stopped.
fn kill_at(n: usize, args: &[&OsStr]) -> Ended {
    let mut child = Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .env(HOOK, format!("stop:{n}"))
        .args(adding(args))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let prefix = format!("mshconv test hook: stopped at point {n} (");
    let stopped = BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| Some(l.strip_prefix(&prefix)?.trim_end_matches(')').to_string()));
    if let Some(what) = stopped {
        child.kill().unwrap();
        child.wait().unwrap();
        Ended::Killed(what)
    } else {
        assert!(
            child.wait().unwrap().success(),
            "the run without a stop failed"
        );
        Ended::Finished
    }
}

/// One kind of write: how to set the folder `root` up, the command, and a
/// next command that touches the folders.
struct Case {
    /// The names of the files replaced, in order.
    order: &'static [&'static str],
    setup: Box<dyn Fn(&Path)>,
    write: CommandLine,
    next: CommandLine,
}

fn args(v: &[std::ffi::OsString]) -> Vec<&OsStr> {
    v.iter().map(|s| s.as_os_str()).collect()
}

/// A folder set up for `case` (`root` in a new temporary folder), and the
/// files before and after a whole write.
fn before_and_after(case: &Case) -> (tempfile::TempDir, PathBuf, Snapshot, Snapshot) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    (case.setup)(&root);
    let old = files(&root);
    ok(&args(&(case.write)(&root)));
    let new = files(&root);
    assert_ne!(old, new);
    (tmp, root, old, new)
}

/// `root` set up for `case` again.
fn afresh(case: &Case, root: &Path) {
    std::fs::remove_dir_all(root).unwrap();
    (case.setup)(root);
}

/// What [`files`] gives.
type Snapshot = std::collections::BTreeMap<PathBuf, Vec<u8>>;

/// Kills `case`'s write at every point; after each, the next command must
/// roll it back (before the commit point) or forward (after), leaving `root`
/// exactly as before the write or as after a whole one.
fn kill_at_every_point(case: &Case) -> (usize, usize, Vec<String>) {
    let (_tmp, root, old, new) = before_and_after(case);
    let (mut olds, mut news) = (0, 0);
    let mut replaced = Vec::new();
    let mut points = Vec::new();
    for n in 1.. {
        afresh(case, &root);
        // Killed once every journal was removed: nothing to finish, no note.
        let cleaned = match kill_at(n, &args(&(case.write)(&root))) {
            Ended::Killed(what) => {
                points.push(what.clone());
                if let Some(file) = what.strip_prefix("replace ") {
                    replaced.push(
                        Path::new(file)
                            .file_name()
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
                what.starts_with("cleaned ")
                    && !files(&root).keys().any(|k| k.ends_with(".mshconv.journal"))
            }
            Ended::Finished => {
                assert_same(
                    &files(&root),
                    &new,
                    &format!("finished without a stop at {n}"),
                );
                break;
            }
        };
        let next = mshconv(&args(&(case.next)(&root)));
        let stderr = String::from_utf8_lossy(&next.stderr);
        let now = files(&root);
        if now == old {
            assert_eq!(
                news, 0,
                "killed at {n}: rolled back after a roll forward at an earlier point"
            );
            assert!(stderr.contains("note[txn.rolled_back]"), "{stderr}");
            olds += 1;
        } else if now == new {
            assert!(
                cleaned || stderr.contains("note[txn.rolled_forward]"),
                "killed at {n}: {stderr}"
            );
            news += 1;
        } else {
            let differ: Vec<_> = now
                .keys()
                .chain(new.keys())
                .filter(|k| now.get(*k) != new.get(*k) && now.get(*k) != old.get(*k))
                .collect();
            panic!(
                "killed at point {n}: a mixed state after the next command: {differ:?}\n{stderr}"
            );
        }
        assert!(n < 64, "more points than expected");
    }
    assert!(olds > 0 && news > 0, "{olds} rolled back, {news} forward");
    // Textures before materials before the WEAR before the model.
    assert_eq!(replaced, case.order);
    (olds, news, points)
}

/// `nres list ROOT/REL`: a next command that reads the folder.
fn nres_list(rel: &'static str) -> CommandLine {
    Box::new(move |root: &Path| vec!["nres".into(), "list".into(), root.join(rel).into()])
}

/// The libraries, each after its backup, textures first.
const LIBRARIES: [&str; 4] = [
    "Textures.lib.bak",
    "Textures.lib",
    "Material.lib.bak",
    "Material.lib",
];

fn game_case(order: &'static [&'static str], target: fn(&Path) -> String) -> Case {
    Case {
        order,
        setup: Box::new(|root: &Path| {
            copy_game(&root.join("game"));
            tank_with_new_look(&root.join("game"), &root.join("in"), "A");
        }),
        write: Box::new(move |root: &Path| {
            vec![
                "convert".into(),
                root.join("in/tank.gltf").into(),
                target(root).into(),
                "--game-dir".into(),
                root.join("game").into(),
            ]
        }),
        next: nres_list("game/Textures.lib"),
    }
}

#[test]
fn an_import_into_an_archive_killed_at_any_point_is_finished_by_the_next_command() {
    let order = &[
        LIBRARIES[0],
        LIBRARIES[1],
        LIBRARIES[2],
        LIBRARIES[3],
        "units.rlb",
    ];
    let (olds, news, _) = kill_at_every_point(&game_case(order, |root| {
        format!("{}:NEWA.MSH", root.join("game/units.rlb").display())
    }));
    eprintln!("{olds} points rolled back, {news} rolled forward");
}

/// The files replaced by an import beside the model, in order.
const BESIDE: &[&str] = &[
    LIBRARIES[0],
    LIBRARIES[1],
    LIBRARIES[2],
    LIBRARIES[3],
    "tank.wea",
    "tank.msh",
];

/// An import whose files lie in two folders: the libraries in the game
/// folder, the WEAR and the model in `out`.
fn beside_case() -> Case {
    game_case(BESIDE, |root| {
        std::fs::create_dir_all(root.join("out")).unwrap();
        root.join("out/tank.msh").display().to_string()
    })
}

/// The folders (names) of the points `what FOLDER` among `points`.
fn point_folders(points: &[String], what: &str) -> Vec<String> {
    points
        .iter()
        .filter_map(|p| p.strip_prefix(what))
        .map(|f| {
            Path::new(f)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

#[test]
fn an_import_beside_the_model_killed_at_any_point_is_finished_by_the_next_command() {
    let (_, _, points) = kill_at_every_point(&beside_case());
    // Killed with the game folder's journal written and the other's not, and
    // with the game folder's removed and the other's not (issue 38): the next
    // command, which touches the game folder only, finished both folders
    // (their lock files too).
    assert_eq!(point_folders(&points, "journal "), ["game", "out"]);
    assert_eq!(point_folders(&points, "cleaned "), ["game", "out"]);
}

#[test]
fn an_import_beside_the_model_killed_at_any_point_is_finished_from_the_other_folder() {
    // The next command reads only `out` (the model, there or not yet).
    let case = Case {
        next: Box::new(|root: &Path| vec!["inspect".into(), root.join("out/tank.msh").into()]),
        ..beside_case()
    };
    let (_, _, points) = kill_at_every_point(&case);
    assert_eq!(point_folders(&points, "journal ").len(), 2);
}

#[test]
fn a_batch_into_an_archive_killed_at_any_point_is_finished_by_the_next_command() {
    kill_at_every_point(&Case {
        order: &[
            LIBRARIES[0],
            LIBRARIES[1],
            LIBRARIES[2],
            LIBRARIES[3],
            "units.rlb",
        ],
        setup: Box::new(|root: &Path| {
            copy_game(&root.join("game"));
            tank_with_new_look(&root.join("game"), &root.join("in"), "A");
            // Only the .gltf (and its images) is an input.
            std::fs::rename(root.join("in/tank.gltf"), root.join("in/newa.gltf")).unwrap();
        }),
        write: Box::new(|root: &Path| {
            vec![
                "batch".into(),
                root.join("in/newa.gltf").into(),
                "--to".into(),
                "msh".into(),
                "--into".into(),
                root.join("game/units.rlb").into(),
                "--game-dir".into(),
                root.join("game").into(),
            ]
        }),
        next: nres_list("game/units.rlb"),
    });
}

#[test]
fn a_failure_at_any_point_restores_every_file_and_names_the_file() {
    let case = game_case(&[], |root| {
        format!("{}:NEWA.MSH", root.join("game/units.rlb").display())
    });
    let (_tmp, root, old, new) = before_and_after(&case);
    let mut failed = 0;
    for n in 1.. {
        afresh(&case, &root);
        let out = Command::new(BIN)
            .env_remove("MSHCONV_GAME_DIR")
            .env(HOOK, format!("fail:{n}"))
            .args(adding(&args(&(case.write)(&root))))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            // Past the last point that can fail.
            assert_same(&files(&root), &new, &format!("point {n}"));
            break;
        }
        failed += 1;
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("error[io.no_space]: cannot "), "{stderr}");
        assert!(
            ["Textures.lib", "Material.lib", "units.rlb", "the journal"]
                .iter()
                .any(|f| stderr.contains(f)),
            "the message names no file: {stderr}"
        );
        assert_same(&files(&root), &old, &format!("point {n}: {stderr}"));
        assert!(n < 64);
    }
    assert!(failed >= 10, "only {failed} points");
}

#[test]
fn a_full_disk_restores_every_file() {
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("game");
    copy_game(&game);
    let gltf = tank_with_new_look(&game, &tmp.path().join("in"), "A");
    let at = tmp.path().join("small");
    if mount_tmpfs(&at, 64).is_none() {
        eprintln!("skipped: cannot mount a tmpfs here (not root?); the injected failures cover it");
        return;
    }
    let pages = |len: usize| len.div_ceil(4096) as u64 * 4;
    let used: u64 = ["Material.lib", "Textures.lib", "units.rlb"]
        .iter()
        .map(|f| pages(std::fs::metadata(game.join(f)).unwrap().len() as usize))
        .sum();
    let mut after_libraries = 0;
    for kib in (used..used + 512).step_by(8) {
        let _mount = mount_tmpfs(&at, kib).unwrap();
        for f in ["Material.lib", "Textures.lib", "units.rlb"] {
            std::fs::copy(game.join(f), at.join(f)).unwrap();
        }
        let old = files(&at);
        let target = format!("{}:NEWA.MSH", at.join("units.rlb").display());
        let out = mshconv(&[
            os("convert"),
            gltf.as_os_str(),
            os(&target),
            os("--game-dir"),
            at.as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            assert!(entry_names(&at.join("units.rlb")).contains(&"NEWA.MSH".to_string()));
            break;
        }
        assert!(stderr.contains("error[io.no_space]"), "{kib} KiB: {stderr}");
        assert_same(&files(&at), &old, &format!("{kib} KiB: {stderr}"));
        if stderr.contains(&format!("cannot write {}", at.join("units.rlb").display())) {
            after_libraries += 1;
        }
    }
    assert!(
        after_libraries > 0,
        "no size failed at the archive, after the libraries"
    );
}
