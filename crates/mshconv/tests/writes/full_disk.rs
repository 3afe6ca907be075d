//! A full disk is `error[io.no_space]` and exit 2 from every command that
//! writes (issue 38): injected at every point of each command's transaction
//! (`fail:N`), and on a real tmpfs too small for the write, byte by page.

use super::*;
use std::collections::BTreeSet;
use std::ffi::OsString;

/// The folder every command of these tests reads from: an archive, two
/// models, a copy of the game folder with a model bringing a new look, the
/// game's textures and materials exported, each with one new item.
fn sources(root: &Path) {
    std::fs::create_dir_all(root.join("in")).unwrap();
    std::fs::copy(fixture("archives/small.rlb"), root.join("units.rlb")).unwrap();
    let glb = robot_glb(root);
    std::fs::copy(&glb, root.join("in/newa.glb")).unwrap();
    let game = root.join("game");
    copy_game(&game);
    let look = root.join("look");
    tank_with_new_look(&game, &look, "A");
    std::fs::rename(look.join("tank.gltf"), look.join("newa.gltf")).unwrap();
    let tex = root.join("tex");
    ok(&[
        os("textures"),
        os("export"),
        game.join("Textures.lib").as_os_str(),
        tex.as_os_str(),
    ]);
    let first_png = std::fs::read_dir(&tex)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "png"))
        .unwrap();
    std::fs::copy(first_png, tex.join("new rock.png")).unwrap();
    let materials = root.join("m.json");
    ok(&[
        os("materials"),
        os("export"),
        game.join("Material.lib").as_os_str(),
        materials.as_os_str(),
    ]);
    let mut file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&materials).unwrap()).unwrap();
    let records = file["materials"].as_array_mut().unwrap();
    let mut new = records[0].clone();
    new["entry"] = "shiny steel".into();
    records.push(new);
    std::fs::write(&materials, serde_json::to_vec_pretty(&file).unwrap()).unwrap();
}

/// One command writing into the folder `at`, reading from `src`.
struct Writer {
    what: &'static str,
    /// The files of `src` copied into `at` first (`at` then holds them by name).
    into_at: &'static [&'static str],
    args: fn(src: &Path, at: &Path) -> Vec<OsString>,
}

fn writers() -> Vec<Writer> {
    vec![
        Writer {
            what: "nres put",
            into_at: &["units.rlb"],
            args: |src, at| {
                vec![
                    "nres".into(),
                    "put".into(),
                    at.join("units.rlb").into(),
                    src.join("robot.glb").into(),
                    "--name".into(),
                    "NEWC.MSH".into(),
                    "--add".into(),
                ]
            },
        },
        Writer {
            what: "convert into an archive",
            into_at: &["units.rlb"],
            args: |src, at| {
                vec![
                    "convert".into(),
                    src.join("robot.glb").into(),
                    format!("{}:NEWA.MSH", at.join("units.rlb").display()).into(),
                ]
            },
        },
        Writer {
            what: "batch --into",
            into_at: &["units.rlb"],
            args: |src, at| {
                vec![
                    "batch".into(),
                    src.join("in/newa.glb").into(),
                    "--to".into(),
                    "msh".into(),
                    "--into".into(),
                    at.join("units.rlb").into(),
                ]
            },
        },
        Writer {
            what: "batch --into --game-dir",
            into_at: &["game/units.rlb", "game/Textures.lib", "game/Material.lib"],
            args: |src, at| {
                vec![
                    "batch".into(),
                    src.join("look/newa.gltf").into(),
                    "--to".into(),
                    "msh".into(),
                    "--into".into(),
                    at.join("units.rlb").into(),
                    "--game-dir".into(),
                    at.into(),
                ]
            },
        },
        Writer {
            what: "convert --game-dir to a model file",
            into_at: &["game/units.rlb", "game/Textures.lib", "game/Material.lib"],
            args: |src, at| {
                vec![
                    "convert".into(),
                    src.join("look/newa.gltf").into(),
                    at.join("newa.msh").into(),
                    "--game-dir".into(),
                    at.into(),
                ]
            },
        },
        Writer {
            what: "textures import",
            into_at: &["game/Textures.lib"],
            args: |src, at| {
                vec![
                    "textures".into(),
                    "import".into(),
                    src.join("tex").into(),
                    at.join("Textures.lib").into(),
                ]
            },
        },
        Writer {
            what: "materials import",
            into_at: &["game/Textures.lib", "game/Material.lib"],
            args: |src, at| {
                vec![
                    "materials".into(),
                    "import".into(),
                    src.join("m.json").into(),
                    at.join("Material.lib").into(),
                ]
            },
        },
    ]
}

/// Copies `writer`'s files from `src` into `at`.
fn fill(writer: &Writer, src: &Path, at: &Path) {
    for rel in writer.into_at {
        let name = Path::new(rel).file_name().unwrap();
        std::fs::copy(src.join(rel), at.join(name)).unwrap();
    }
}

/// Runs `args` with the test hook set to `hook` (none when empty).
fn run_with(args: &[OsString], hook: &str) -> Output {
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let mut command = Command::new(BIN);
    command.env_remove("MSHCONV_GAME_DIR").env_remove(HOOK);
    if !hook.is_empty() {
        command.env(HOOK, hook);
    }
    command.args(adding(&args)).output().unwrap()
}

/// Checks a run that failed on a full disk: `io.no_space`, and `at` as before.
#[track_caller]
fn no_space(out: &Output, at: &Path, before: &Snapshot, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[io.no_space]"), "{what}: {stderr}");
    assert!(!stderr.contains("error[io.error]"), "{what}: {stderr}");
    assert_same(&files(at), before, &format!("{what}: {stderr}"));
}

type Snapshot = std::collections::BTreeMap<PathBuf, Vec<u8>>;

#[test]
fn a_failure_at_any_point_of_any_command_is_io_no_space_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    sources(&src);
    let mut exits = BTreeSet::new();
    for writer in writers() {
        let at = tmp.path().join(writer.what.replace(' ', "_"));
        std::fs::create_dir_all(&at).unwrap();
        fill(&writer, &src, &at);
        let before = files(&at);
        let args = (writer.args)(&src, &at);
        let mut failed = 0;
        for n in 1.. {
            let out = run_with(&args, &format!("fail:{n}"));
            if out.status.success() {
                break;
            }
            failed += 1;
            exits.insert(out.status.code());
            no_space(&out, &at, &before, &format!("{} at point {n}", writer.what));
            assert!(n < 64);
        }
        // Journal, temp, keep, commit, replace, done: at least 4 can fail.
        assert!(failed >= 4, "{}: only {failed} points", writer.what);
        assert_ne!(files(&at), before, "{}: written at last", writer.what);
    }
    assert_eq!(exits, BTreeSet::from([Some(2)]));
}

#[test]
fn a_real_full_disk_is_io_no_space_and_exit_2_from_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let at = tmp.path().join("small");
    if mount_tmpfs(&at, 64).is_none() {
        eprintln!("skipped: cannot mount a tmpfs here (not root?); the injected failures cover it");
        return;
    }
    sources(&src);
    let mut outputs = writers();
    // Outputs, renamed into place without a transaction.
    outputs.push(Writer {
        what: "convert to a file",
        into_at: &[],
        args: |src, at| {
            vec![
                "convert".into(),
                format!("{}:M242_ROBOT.MSH", src.join("units.rlb").display()).into(),
                at.join("robot.glb").into(),
            ]
        },
    });
    outputs.push(Writer {
        what: "batch --out",
        into_at: &[],
        args: |src, at| {
            vec![
                "batch".into(),
                format!("{}:M242_ROBOT.MSH", src.join("units.rlb").display()).into(),
                "--to".into(),
                "glb".into(),
                "--out".into(),
                at.into(),
            ]
        },
    });
    let mut exits = BTreeSet::new();
    for writer in outputs {
        let pages: u64 = writer
            .into_at
            .iter()
            .map(|f| std::fs::metadata(src.join(f)).unwrap().len().div_ceil(4096) * 4)
            .sum();
        let mut failed = 0;
        // A page at a time, from what the files take to where the write fits.
        for kib in (pages.max(4)..pages + 1024).step_by(4) {
            let _mount = mount_tmpfs(&at, kib).unwrap();
            fill(&writer, &src, &at);
            let before = files(&at);
            let out = run_with(&(writer.args)(&src, &at), "");
            if out.status.success() {
                break;
            }
            failed += 1;
            exits.insert(out.status.code());
            no_space(&out, &at, &before, &format!("{} on {kib} KiB", writer.what));
        }
        assert!(failed > 0, "{}: no size was too small", writer.what);
        eprintln!("{}: {failed} sizes failed", writer.what);
    }
    assert_eq!(exits, BTreeSet::from([Some(2)]));
}
