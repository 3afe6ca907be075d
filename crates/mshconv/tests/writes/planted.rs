//! Files planted in a folder (a downloaded mod) to make mshconv act outside
//! it (issue 38): journals of every shape at `.mshconv.journal`, and links at
//! the names of files written beside the one named. A read-only command still
//! reads (a note for a journal it does not trust), a writer refuses, and no
//! file of the victim folder ever changes.

use super::*;
use std::process::Stdio;

/// The id planted journals give (a transaction's: 16 hex digits).
const ID: &str = "0123456789abcdef";

/// A folder `game` with an archive, and `victim` with a file of its own;
/// both real paths.
struct Tree {
    _tmp: tempfile::TempDir,
    game: PathBuf,
    victim: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let (game, victim) = (root.join("game"), root.join("victim"));
        std::fs::create_dir(&game).unwrap();
        std::fs::create_dir(&victim).unwrap();
        std::fs::copy(fixture("archives/small.rlb"), game.join("units.rlb")).unwrap();
        std::fs::write(victim.join("keep.txt"), b"keep me").unwrap();
        Tree {
            _tmp: tmp,
            game,
            victim,
        }
    }

    fn journal(&self) -> PathBuf {
        self.game.join(".mshconv.journal")
    }

    /// A journal of `state` naming `folders`, one step per target, none kept old.
    fn plant(&self, state: &str, id: &str, folders: &[String], targets: &[String]) {
        let steps: Vec<_> = targets
            .iter()
            .map(|t| {
                let t = Path::new(t);
                let name = t.file_name().unwrap().to_string_lossy();
                let temp = t.with_file_name(format!(".{name}.{id}.tmp"));
                serde_json::json!({"target": t, "temp": temp, "old": null})
            })
            .collect();
        let journal = serde_json::json!({
            "format": "mshconv-journal", "version": 1, "id": id, "state": state,
            "folders": folders, "steps": steps,
        });
        std::fs::write(self.journal(), journal.to_string()).unwrap();
    }

    /// `nres list game/units.rlb`, a read-only command: it must succeed.
    fn list(&self) -> String {
        let out = run_bounded(&[
            os("nres"),
            os("list"),
            self.game.join("units.rlb").as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "nres list failed: {stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("M143_ROBOT.MSH"));
        stderr
    }

    /// `nres remove game/units.rlb M143_ROBOT.MSH`, a writer: its output.
    fn write(&self) -> Output {
        let archive = self.game.join("units.rlb");
        run_bounded(&[
            os("nres"),
            os("remove"),
            archive.as_os_str(),
            os("M143_ROBOT.MSH"),
        ])
    }

    /// Every file of `victim` as set up, and the archive as `archive`.
    #[track_caller]
    fn untouched(&self, archive: &[u8]) {
        let victim = files(&self.victim);
        assert_eq!(victim.len(), 1, "{victim:?}");
        assert_eq!(victim[Path::new("keep.txt")], b"keep me");
        assert_eq!(std::fs::read(self.game.join("units.rlb")).unwrap(), archive);
    }
}

/// Runs mshconv; a run that has not ended after a minute (a FIFO read
/// would block for ever) is killed and fails the test.
fn run_bounded(args: &[&OsStr]) -> Output {
    let mut child = Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .env_remove(HOOK)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("mshconv {args:?} hung");
}

fn text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The attack of issue 38, item 1: a journal in `game` naming `victim` too,
/// rolling back a step that removes `victim/keep.txt`. `victim` has no copy:
/// the journal is alone, only it is removed; `victim/keep.txt` stays.
#[test]
fn a_journal_naming_another_folder_never_acts_there() {
    let t = Tree::new();
    let archive = std::fs::read(t.game.join("units.rlb")).unwrap();
    let folders = [text(&t.game), text(&t.victim)];
    let target = [text(&t.victim.join("keep.txt"))];
    t.plant("rolling_back", ID, &folders, &target);
    let stderr = t.list();
    assert!(
        stderr.contains("note[txn.rolled_back]") && stderr.contains("alone"),
        "{stderr}"
    );
    assert!(!t.journal().exists());
    t.untouched(&archive);
    // With the step's temporary file planted beside the victim as well: the
    // same, the victim's own files are never read as proof.
    std::fs::write(t.victim.join(format!(".keep.txt.{ID}.tmp")), b"x").unwrap();
    t.plant("rolling_back", ID, &folders, &target);
    t.list();
    assert!(t.victim.join("keep.txt").exists());
    std::fs::remove_file(t.victim.join(format!(".keep.txt.{ID}.tmp"))).unwrap();
    // A step of its own folder with a planted file beside it: not trusted,
    // a note for the reader, an error for a writer; nothing touched.
    std::fs::write(t.game.join(format!(".units.rlb.{ID}.tmp")), b"planted").unwrap();
    let both = [text(&t.game.join("units.rlb")), target[0].clone()];
    t.plant("committed", ID, &folders, &both);
    let stderr = t.list();
    assert!(stderr.contains("note[txn.journal_unknown]"), "{stderr}");
    // `inspect` and `convert` of a model in the folder read on too, with the
    // note, a model read as an archive's entry too.
    let model = t.game.join("gate.msh");
    std::fs::copy(fixture("models/m037_gate.msh"), &model).unwrap();
    let glb = t.victim.parent().unwrap().join("gate.glb");
    let entry = std::ffi::OsString::from(format!(
        "{}:M143_ROBOT.MSH",
        t.game.join("units.rlb").display()
    ));
    let robot = t.victim.parent().unwrap().join("robot.glb");
    let reads = [
        vec![os("inspect"), model.as_os_str()],
        vec![os("convert"), model.as_os_str(), glb.as_os_str()],
        vec![os("inspect"), entry.as_os_str()],
        vec![os("convert"), entry.as_os_str(), robot.as_os_str()],
    ];
    for args in reads {
        let out = run_bounded(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        assert!(
            stderr.contains("note[txn.journal_unknown]"),
            "{args:?}: {stderr}"
        );
    }
    let out = t.write();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("error[txn.journal_unknown]"), "{stderr}");
    t.untouched(&archive);
    assert!(t.journal().exists());
}

/// Journals no transaction writes, naming the victim or their own folder in
/// ways a transaction never does: each a note for `nres list` (which reads
/// on), an error for a writer, and nothing touched.
#[test]
fn journals_of_every_other_shape_are_noted_and_never_acted_on() {
    let t = Tree::new();
    let archive = std::fs::read(t.game.join("units.rlb")).unwrap();
    let (g, v) = (text(&t.game), text(&t.victim));
    let unit = |dir: &str| vec![format!("{dir}/units.rlb")];
    let dotted = format!("{g}/../victim");
    // The archive's proof planted too, so a rule missing a check would act.
    std::fs::hard_link(
        t.game.join("units.rlb"),
        t.game.join(format!(".units.rlb.{ID}.new")),
    )
    .unwrap();
    let shapes: Vec<(&str, &str, Vec<String>, Vec<String>)> = vec![
        ("rolling_back", "0123abcd", vec![g.clone()], unit(&g)),
        ("rolling_back", "../../victim/x", vec![g.clone()], unit(&g)),
        (
            "rolling_back",
            ID,
            vec![dotted.clone()],
            vec![format!("{dotted}/keep.txt")],
        ),
        (
            "rolling_back",
            ID,
            vec!["game".into()],
            vec!["game/units.rlb".into()],
        ),
        (
            "rolling_back",
            ID,
            vec![v.clone()],
            vec![format!("{v}/keep.txt")],
        ),
        ("rolling_back", ID, vec![g.clone(), g.clone()], unit(&g)),
    ];
    for (state, id, folders, targets) in &shapes {
        t.plant(state, id, folders, targets);
        let stderr = t.list();
        assert!(
            stderr.contains("note[txn.journal_unknown]"),
            "{id} {folders:?}: {stderr}"
        );
        let out = t.write();
        assert_eq!(out.status.code(), Some(2), "{id} {folders:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("error[txn.journal_unknown]"));
        t.untouched(&archive);
    }
}

/// Item 2: what is at the journal's name is read only as a regular file of
/// bounded size, without following a link or blocking: a 2 GB (sparse)
/// file, a FIFO and a folder are noted and never read whole; links to
/// `/dev/zero`, to the victim and to nothing are removed, and a write goes on.
#[cfg(unix)]
#[test]
fn a_journal_name_holding_a_link_fifo_folder_or_huge_file_never_hangs_or_blocks() {
    let t = Tree::new();
    let archive = std::fs::read(t.game.join("units.rlb")).unwrap();
    let huge = std::fs::File::create(t.journal()).unwrap();
    huge.set_len(2 << 30).unwrap();
    drop(huge);
    assert!(t.list().contains("note[txn.journal_unknown]"));
    std::fs::remove_file(t.journal()).unwrap();
    assert!(Command::new("mkfifo")
        .arg(t.journal())
        .status()
        .unwrap()
        .success());
    assert!(t.list().contains("note[txn.journal_unknown]"));
    std::fs::remove_file(t.journal()).unwrap();
    std::fs::create_dir(t.journal()).unwrap();
    assert!(t.list().contains("note[txn.journal_unknown]"));
    assert_eq!(t.write().status.code(), Some(2));
    std::fs::remove_dir(t.journal()).unwrap();
    t.untouched(&archive);
    let absent = t.victim.join("absent");
    for to in [
        PathBuf::from("/dev/zero"),
        t.victim.join("keep.txt"),
        absent.clone(),
    ] {
        std::os::unix::fs::symlink(&to, t.journal()).unwrap();
        assert!(!t.list().contains("note["), "{to:?}");
        assert!(std::fs::symlink_metadata(t.journal()).is_err(), "{to:?}");
        std::os::unix::fs::symlink(&to, t.journal()).unwrap();
        let out = t.write();
        assert!(
            out.status.success(),
            "{to:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(t.game.join("units.rlb"), &archive).unwrap();
        assert!(!absent.exists());
        t.untouched(&archive);
        assert_eq!(hidden(&t.game), Vec::<String>::new());
    }
}

/// Item 2, siblings: a link planted at a file mshconv writes beside the one
/// named (the WEAR of `loose/newa.msh`, the `.mtl` of an `.obj`, a PNG of a
/// `.gltf`) that leads out of its folder is refused
/// (`io.link_leaves_folder`), never written through; a `.bak` there already
/// (a link too) is left as it is.
#[cfg(unix)]
#[test]
fn links_at_files_written_beside_the_named_one_are_never_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let game = root.join("game");
    copy_game(&game);
    let glb = robot_glb(root);
    let (loose, outside) = (root.join("loose"), root.join("outside"));
    std::fs::create_dir(&loose).unwrap();
    std::fs::create_dir(&outside).unwrap();
    let victim = outside.join("v.txt");
    std::fs::write(&victim, b"keep me").unwrap();
    let game_before = files(&game);
    let refused = |link: &str, args: &[&OsStr]| {
        let at = loose.join(link);
        std::os::unix::fs::symlink(&victim, &at).unwrap();
        let out = mshconv(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{link}: {stderr}");
        assert!(
            stderr.contains("error[io.link_leaves_folder]"),
            "{link}: {stderr}"
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me", "{link}");
        std::fs::remove_file(&at).unwrap();
    };
    let msh = loose.join("newa.msh");
    let with_game = [
        glb.as_os_str(),
        msh.as_os_str(),
        os("--game-dir"),
        game.as_os_str(),
    ];
    refused("newa.wea", &[&[os("convert")], &with_game[..]].concat());
    assert!(!msh.exists(), "the model was written without its WEAR");
    assert_same(&files(&game), &game_before, "the game folder");
    let obj = loose.join("robot.obj");
    let robot = format!("{}:M143_ROBOT.MSH", fixture("archives/small.rlb").display());
    refused("robot.mtl", &[os("convert"), os(&robot), obj.as_os_str()]);
    let tank = format!("{}:TANK.MSH", game.join("units.rlb").display());
    let gltf = loose.join("tank.gltf");
    let png = "tank_FIRE_8888.png";
    refused(
        png,
        &[
            os("convert"),
            os(&tank),
            gltf.as_os_str(),
            os("--game-dir"),
            game.as_os_str(),
        ],
    );
    // A link at the WEAR's name that stays in its folder is written through.
    std::fs::write(loose.join("mine.wea"), b"").unwrap();
    std::os::unix::fs::symlink("mine.wea", loose.join("newa.wea")).unwrap();
    ok(&[&[os("convert")], &with_game[..], &[os("-q")]].concat());
    assert!(!std::fs::read(loose.join("mine.wea")).unwrap().is_empty());
    // A backup's name holding a link (to the victim, to nothing): no backup
    // is written through it.
    let gltf = tank_with_new_look(&game, &root.join("in"), "A");
    let absent = outside.join("absent");
    std::os::unix::fs::symlink(&victim, game.join("Material.lib.bak")).unwrap();
    std::os::unix::fs::symlink(&absent, game.join("Textures.lib.bak")).unwrap();
    let target = format!("{}:NEWA.MSH", game.join("units.rlb").display());
    ok(&[
        os("convert"),
        gltf.as_os_str(),
        os(&target),
        os("--game-dir"),
        game.as_os_str(),
        os("-q"),
    ]);
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    assert!(!absent.exists());
}
