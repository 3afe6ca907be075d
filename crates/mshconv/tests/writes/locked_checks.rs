//! A check of a file to replace made before its folder is locked never
//! refuses what is only another writer's transaction under way: that writer
//! keeps the old file under a second name (`.NAME.ID.old`, a hard link)
//! while it holds the lock, and `batch --into` or an output written beside
//! it must wait for it, not fail `io.hard_linked` (issue 38).

use super::*;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ExitStatus};
use std::sync::mpsc::{channel, Receiver};

/// How long a paused scene may stay silent before it counts as stuck: far
/// above any step's time (a hang guard, not a measure of speed).
const HANG: std::time::Duration = std::time::Duration::from_secs(120);

/// A running mshconv whose stderr lines arrive as they are written.
struct Running {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    /// Starts mshconv with `args` and the test hook set to `hook`.
    fn start(args: &[std::ffi::OsString], hook: &str) -> Running {
        let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let mut child = Command::new(BIN)
            .env_remove("MSHCONV_GAME_DIR")
            .env(HOOK, hook)
            .args(adding(&args))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads stderr until a line holds `text` (that line, or `None` when the
    /// process ended first).
    /// A process silent for [`HANG`] is stuck (two processes waiting for
    /// each other): the test fails, naming what it saw, rather than hanging.
    fn until(&mut self, text: &str) -> Option<String> {
        loop {
            let line = match self.lines.recv_timeout(HANG) {
                Ok(line) => line,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return None,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!(
                        "no line with {text:?} and no end in {HANG:?}: stuck; stderr so far:\n{}",
                        self.seen.join("\n")
                    );
                }
            };
            self.seen.push(line.clone());
            if line.contains(text) {
                return Some(line);
            }
        }
    }

    /// Lets a paused process go on (stdin closed: it pauses no more).
    fn resume(&mut self) {
        if let Some(mut stdin) = self.child.stdin.take() {
            let _ = writeln!(stdin);
        }
    }

    /// Waits for the end: the exit status and the whole stderr.
    fn finish(mut self) -> (ExitStatus, String) {
        self.resume();
        let status = self.child.wait().unwrap();
        self.until("\0");
        (status, self.seen.join("\n"))
    }
}

/// One scene: the folder made afresh, the writer holding the lock and the
/// command whose check comes first, and what must hold once both are done.
struct Scene {
    setup: Box<dyn Fn(&Path)>,
    writer: CommandLine,
    checker: CommandLine,
    after: Box<dyn Fn(&Path)>,
}

/// For every point N of the writer's transaction: the checker is paused just
/// before its unlocked check (`pause:check`), the writer is paused at point N
/// (holding the lock), then the checker goes on: it must wait for the writer
/// or pass, never fail; both succeed. Returns the points at which the
/// writer kept an old file, and how many times the checker waited.
fn at_every_point(scene: &Scene) -> (Vec<String>, usize) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let mut kept = Vec::new();
    let mut waits = 0;
    for n in 1.. {
        if root.exists() {
            std::fs::remove_dir_all(&root).unwrap();
        }
        (scene.setup)(&root);
        let mut checker = Running::start(&(scene.checker)(&root), "pause:check");
        assert!(
            checker
                .until("mshconv test hook: stopped at the check of ")
                .is_some(),
            "point {n}: the checker never came to its check: {}",
            checker.finish().1
        );
        let mut writer = Running::start(&(scene.writer)(&root), &format!("pause:{n}"));
        let stopped = writer.until("mshconv test hook: stopped at point ");
        checker.resume();
        if stopped.is_some() {
            // Either the check passes and the checker goes on (it waits for
            // the lock later, to write), or it is made again under the lock.
            if checker
                .until("waiting for another mshconv writing ")
                .is_some()
            {
                waits += 1;
            }
            writer.resume();
        }
        let (writer_status, writer_err) = writer.finish();
        let (checker_status, checker_err) = checker.finish();
        assert!(writer_status.success(), "point {n}: writer: {writer_err}");
        assert!(
            checker_status.success(),
            "point {n}, the writer {stopped:?}: {checker_err}"
        );
        assert!(!checker_err.contains("io.hard_linked"), "{checker_err}");
        (scene.after)(&root);
        let Some(line) = stopped else { break };
        if line.contains("(keep ") {
            kept.push(line);
        }
        assert!(n < 32, "more points than expected");
    }
    (kept, waits)
}

/// An archive `root/units.rlb`, a model `root/in/newa.glb` and another
/// `root/robot.glb`.
fn archive_and_models(root: &Path) {
    std::fs::create_dir_all(root.join("in")).unwrap();
    std::fs::copy(fixture("archives/small.rlb"), root.join("units.rlb")).unwrap();
    let glb = robot_glb(root);
    std::fs::copy(&glb, root.join("in/newa.glb")).unwrap();
}

fn put_newc(root: &Path) -> Vec<std::ffi::OsString> {
    vec![
        "nres".into(),
        "put".into(),
        root.join("units.rlb").into(),
        root.join("robot.glb").into(),
        "--name".into(),
        "NEWC.MSH".into(),
        "--add".into(),
    ]
}

fn batch_into(root: &Path) -> Vec<std::ffi::OsString> {
    vec![
        "batch".into(),
        root.join("in/newa.glb").into(),
        "--to".into(),
        "msh".into(),
        "--into".into(),
        root.join("units.rlb").into(),
    ]
}

#[test]
fn a_batch_into_an_archive_another_writer_holds_waits_and_both_land() {
    let (kept, waits) = at_every_point(&Scene {
        setup: Box::new(archive_and_models),
        writer: Box::new(put_newc),
        checker: Box::new(batch_into),
        after: Box::new(|root| {
            let names = entry_names(&root.join("units.rlb"));
            for name in ["NEWA.MSH", "NEWC.MSH"] {
                assert!(names.iter().any(|n| n == name), "{names:?}");
            }
            assert_eq!(hidden(root), Vec::<String>::new());
        }),
    });
    assert_eq!(kept.len(), 1, "the put keeps the archive once: {kept:?}");
    // The put has 7 points (issue 38 added `cleaned FOLDER`); at each the
    // batch waits for it (to check or to write).
    assert_eq!(waits, 7);
}

#[test]
fn an_output_another_writer_holds_waits_and_both_land() {
    // The writer imports a model with its look beside it (a transaction over
    // out/tank.msh, which it keeps as .tank.msh.ID.old); the checker
    // converts another model to that same file (an output, renamed into place).
    let (kept, waits) = at_every_point(&Scene {
        setup: Box::new(|root| {
            copy_game(&root.join("game"));
            tank_with_new_look(&root.join("game"), &root.join("in"), "A");
            std::fs::create_dir_all(root.join("out")).unwrap();
            std::fs::copy(fixture("models/m012_walker.msh"), root.join("out/tank.msh")).unwrap();
            robot_glb(root);
        }),
        writer: Box::new(|root| {
            vec![
                "convert".into(),
                root.join("in/tank.gltf").into(),
                root.join("out/tank.msh").into(),
                "--game-dir".into(),
                root.join("game").into(),
            ]
        }),
        checker: Box::new(|root| {
            vec![
                "convert".into(),
                root.join("robot.glb").into(),
                root.join("out/tank.msh").into(),
            ]
        }),
        after: Box::new(|root| {
            let model = std::fs::read(root.join("out/tank.msh")).unwrap();
            msh::Model::from_bytes(&model).unwrap();
            assert_eq!(
                hidden(&root.join("out")),
                Vec::<String>::new(),
                "no temporary or kept file left"
            );
        }),
    });
    assert!(
        kept.iter().any(|k| k.contains("tank.msh")),
        "the import keeps tank.msh: {kept:?}"
    );
    // From keeping tank.msh to replacing it, the file has two names: the
    // convert's check sees them, and waits for the lock to look again.
    assert!(waits >= 2, "{waits}");
}

/// Without hooks: `nres put` writing the archive again and again while
/// `batch --into` puts a model in, for a bounded number of rounds: every run
/// succeeds and the batch's model is in.
#[test]
fn a_batch_into_an_archive_beside_repeated_puts_always_lands() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    archive_and_models(&root);
    let original = std::fs::read(root.join("units.rlb")).unwrap();
    for round in 0..16 {
        std::fs::write(root.join("units.rlb"), &original).unwrap();
        let puts = {
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..6 {
                    let mut args = put_newc(&root);
                    args[5] = format!("NEW{i}.MSH").into();
                    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
                    ok(&args);
                }
            })
        };
        let args = batch_into(&root);
        let out = mshconv(&args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
        puts.join().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "round {round}: {stderr}");
        let names = entry_names(&root.join("units.rlb"));
        assert!(names.iter().any(|n| n == "NEWA.MSH"), "{names:?}");
        assert!(names.iter().any(|n| n == "NEW5.MSH"), "{names:?}");
    }
}
