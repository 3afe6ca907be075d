//! Putting models back into archives: `convert IN ARCHIVE:ENTRY`, `nres put`,
//! `nres remove`, through the real binary in temp folders; and killing a write
//! into an archive at random points never leaves a damaged archive.

mod common;

use common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/small")
        .join(rel)
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_entry_goes_out_to_glb_and_back_into_the_archive_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read(fixture("archives/small.rlb")).unwrap();
    std::fs::write(dir.path().join("small.rlb"), &original).unwrap();
    run(
        dir.path(),
        &["convert", "small.rlb:M123_DOME.MSH", "dome.glb", "-q"],
    )
    .expect(0);
    let r = run(
        dir.path(),
        &["convert", "dome.glb", "small.rlb:m123_dome.msh"],
    )
    .expect(0);
    assert!(r.stderr.contains("note[archive.replaced]"), "{}", r.stderr);
    assert_eq!(
        std::fs::read(dir.path().join("small.rlb")).unwrap(),
        original
    );
    // Nothing else was written: no file named ARCHIVE:ENTRY, no temporary file.
    assert_eq!(files(dir.path()), ["dome.glb", "small.rlb"]);
}

#[test]
fn an_edited_model_replaces_its_entry_and_a_new_name_adds_one() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read(fixture("archives/small.rlb")).unwrap();
    std::fs::write(dir.path().join("small.rlb"), &original).unwrap();
    let before = entry_rows(&original);
    // An "edited" model: another model of the archive, through glTF.
    run(
        dir.path(),
        &["convert", "small.rlb:M143_ROBOT.MSH", "robot.glb", "-q"],
    )
    .expect(0);
    run(
        dir.path(),
        &["convert", "robot.glb", "small.rlb:M123_DOME.MSH", "-q"],
    )
    .expect(0);
    let after = entry_rows(&std::fs::read(dir.path().join("small.rlb")).unwrap());
    assert_eq!(after.len(), before.len());
    let robot = before.iter().find(|e| e.0 == "M143_ROBOT.MSH").unwrap();
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(
            (&a.0, a.1, a.2),
            (&b.0, b.1, b.2),
            "name, type, attributes kept"
        );
        if a.0 == "M123_DOME.MSH" {
            assert_eq!(a.3, robot.3, "the edited model is in its entry");
        } else {
            assert_eq!(a.3, b.3, "{} unchanged", a.0);
        }
    }
    // A name the archive lacks (a typo) is refused, with the closest names,
    // and the archive is left as it was.
    let kept = std::fs::read(dir.path().join("small.rlb")).unwrap();
    let r = run(
        dir.path(),
        &["convert", "robot.glb", "small.rlb:M123_DOM.MSH"],
    )
    .expect(2);
    assert!(
        r.stderr.contains("error[archive.no_such_entry]")
            && r.stderr.contains("did you mean M123_DOME.MSH?")
            && r.stderr.contains("give --add"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(dir.path().join("small.rlb")).unwrap(), kept);
    // --dry-run says which it would do.
    let r = run(
        dir.path(),
        &[
            "convert",
            "robot.glb",
            "small.rlb:m123_dome.msh",
            "--dry-run",
        ],
    )
    .expect(0);
    assert!(
        r.stdout.starts_with("would put small.rlb:m123_dome.msh (")
            && r.stdout.ends_with(" bytes): replace\n"),
        "{}",
        r.stdout
    );
    let r = run(
        dir.path(),
        &[
            "convert",
            "robot.glb",
            "small.rlb:NEW_ROBOT.MSH",
            "--add",
            "--dry-run",
        ],
    )
    .expect(0);
    assert!(
        r.stdout.starts_with("would put small.rlb:NEW_ROBOT.MSH (")
            && r.stdout.ends_with(" bytes): add (a new entry)\n"),
        "{}",
        r.stdout
    );
    assert_eq!(std::fs::read(dir.path().join("small.rlb")).unwrap(), kept);
    // With --add, a new name adds an entry the game's lookup finds.
    let r = run(
        dir.path(),
        &["convert", "robot.glb", "small.rlb:NEW_ROBOT.MSH", "--add"],
    )
    .expect(0);
    assert!(r.stderr.contains("note[archive.added]"), "{}", r.stderr);
    let bytes = std::fs::read(dir.path().join("small.rlb")).unwrap();
    let archive = nres::Archive::parse(&bytes).unwrap();
    let added = archive
        .find_by_name("new_robot.msh")
        .expect("found by the game's lookup");
    assert_eq!(added.data(), &robot.3[..]);
    assert_eq!(added.type_id(), u32::from_le_bytes(*b"MSH\0"));
    // The result validates entry by entry.
    for e in archive.nested_models() {
        run(
            dir.path(),
            &["validate", &format!("small.rlb:{}", e.name())],
        )
        .expect(0);
    }
    assert_eq!(files(dir.path()), ["robot.glb", "small.rlb"]);
}

#[test]
fn an_archive_that_does_not_exist_is_refused_and_no_stray_file_is_made() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("models/m127_tank.msh"), dir.path().join("tank.msh")).unwrap();
    let r = run(dir.path(), &["convert", "tank.msh", "units.rlb:TANK.MSH"]).expect(2);
    assert!(r.stderr.contains("error[io.not_found]"), "{}", r.stderr);
    let r = run(
        dir.path(),
        &["convert", "tank.msh", "units.rlb:TANK.MSH", "--to", "glb"],
    );
    assert_ne!(r.code, 0);
    assert_eq!(files(dir.path()), ["tank.msh"]);
    // Into an existing archive, --to can only be msh.
    std::fs::copy(fixture("archives/small.rlb"), dir.path().join("small.rlb")).unwrap();
    let r = run(
        dir.path(),
        &["convert", "tank.msh", "small.rlb:TANK.MSH", "--to", "glb"],
    )
    .expect(2);
    assert!(
        r.stderr.contains("convert.unsupported_direction"),
        "{}",
        r.stderr
    );
    assert_eq!(files(dir.path()), ["small.rlb", "tank.msh"]);
}

#[test]
fn with_the_game_dir_too_a_new_entry_needs_add_and_the_dry_run_says_which() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["units.rlb", "Material.lib", "Textures.lib"] {
        std::fs::copy(fixture(&format!("game/{name}")), dir.path().join(name)).unwrap();
    }
    let before = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    let originals = [
        before("units.rlb"),
        before("Material.lib"),
        before("Textures.lib"),
    ];
    let game = ["--game-dir", "."];
    run(
        dir.path(),
        &[&["convert", "units.rlb:TANK.MSH", "tank.glb"][..], &game].concat(),
    )
    .expect(0);
    let r = run(
        dir.path(),
        &[
            &["convert", "tank.glb", "units.rlb:TANK.MSH", "--dry-run"][..],
            &game,
        ]
        .concat(),
    )
    .expect(0);
    assert!(
        r.stdout.ends_with("would replace units.rlb:TANK.MSH\n"),
        "{}",
        r.stdout
    );
    let r = run(
        dir.path(),
        &[
            &["convert", "tank.glb", "units.rlb:TANK2.MSH", "--dry-run"][..],
            &game,
        ]
        .concat(),
    )
    .expect(2);
    assert!(
        r.stderr.contains("error[archive.no_such_entry]")
            && r.stderr.contains("did you mean TANK.MSH?"),
        "{}",
        r.stderr
    );
    let r = run(
        dir.path(),
        &[
            &[
                "convert",
                "tank.glb",
                "units.rlb:TANK2.MSH",
                "--add",
                "--dry-run",
            ][..],
            &game,
        ]
        .concat(),
    )
    .expect(0);
    assert!(
        r.stdout
            .ends_with("would add units.rlb:TANK2.MSH (a new entry)\n"),
        "{}",
        r.stdout
    );
    let after = [
        before("units.rlb"),
        before("Material.lib"),
        before("Textures.lib"),
    ];
    assert!(after == originals, "nothing was written");
}

#[test]
fn entry_names_with_a_path_are_refused_as_the_service_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("models/m127_tank.msh"), dir.path().join("tank.msh")).unwrap();
    std::fs::copy(fixture("archives/small.rlb"), dir.path().join("small.rlb")).unwrap();
    let original = std::fs::read(dir.path().join("small.rlb")).unwrap();
    for name in [
        "sub/TANK.MSH",
        "../TANK.MSH",
        "..TANK.MSH",
        ".TANK.MSH",
        "A..B.MSH",
    ] {
        let out = format!("small.rlb:{name}");
        let r = run(dir.path(), &["convert", "tank.msh", &out, "--add"]).expect(2);
        assert!(
            r.stderr.contains("error[archive.bad_name]"),
            "{name}: {}",
            r.stderr
        );
    }
    assert_eq!(
        std::fs::read(dir.path().join("small.rlb")).unwrap(),
        original
    );
    assert_eq!(files(dir.path()), ["small.rlb", "tank.msh"]);
}

#[test]
fn nres_put_and_remove() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read(fixture("archives/small.rlb")).unwrap();
    std::fs::write(dir.path().join("small.rlb"), &original).unwrap();
    std::fs::write(dir.path().join("wall.tex"), b"texture bytes").unwrap();
    let r = run(
        dir.path(),
        &[
            "nres",
            "put",
            "small.rlb",
            "wall.tex",
            "--name",
            "WALL",
            "--type",
            "Texm",
            "--add",
        ],
    )
    .expect(0);
    assert!(r.stderr.contains("note[archive.added]"), "{}", r.stderr);
    let bytes = std::fs::read(dir.path().join("small.rlb")).unwrap();
    let archive = nres::Archive::parse(&bytes).unwrap();
    let wall = archive.find_by_name("wall").unwrap();
    assert_eq!(wall.type_id(), u32::from_le_bytes(*b"Texm"));
    assert_eq!(wall.data(), b"texture bytes");
    // The name defaults to the file's; the type is kept on a replace.
    std::fs::write(dir.path().join("WALL"), b"new").unwrap();
    run(dir.path(), &["nres", "put", "small.rlb", "WALL"]).expect(0);
    let bytes = std::fs::read(dir.path().join("small.rlb")).unwrap();
    let wall = nres::Archive::parse(&bytes)
        .unwrap()
        .find_by_name("WALL")
        .map(|e| (e.type_id(), e.data().to_vec()));
    assert_eq!(wall, Some((u32::from_le_bytes(*b"Texm"), b"new".to_vec())));
    run(dir.path(), &["nres", "remove", "small.rlb", "wall"]).expect(0);
    assert_eq!(
        std::fs::read(dir.path().join("small.rlb")).unwrap(),
        original
    );
    let r = run(dir.path(), &["nres", "remove", "small.rlb", "wall"]).expect(2);
    assert!(r.stderr.contains("input.no_such_entry"), "{}", r.stderr);
    let r = run(
        dir.path(),
        &["nres", "put", "small.rlb", "WALL", "--type", "TOOLONG"],
    )
    .expect(2);
    assert!(r.stderr.contains("option.invalid"), "{}", r.stderr);
}

/// A folder where an archive is expected (`game:TANK.MSH`, `game` a folder)
/// is refused with the archives in it, and nothing is written: no file named
/// `game:TANK.MSH`, no `.wea`.
#[test]
fn a_folder_given_as_the_archive_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game");
    std::fs::create_dir(&game).unwrap();
    std::fs::copy(fixture("game/units.rlb"), game.join("units.rlb")).unwrap();
    std::fs::copy(fixture("models/m123_dome.msh"), dir.path().join("m.msh")).unwrap();
    run(dir.path(), &["convert", "m.msh", "edited.glb", "-q"]).expect(0);
    let before = files(dir.path());
    let r = run(dir.path(), &["convert", "edited.glb", "game:TANK.MSH"]).expect(2);
    assert!(
        r.stderr.contains("error[archive.is_folder]")
            && r.stderr.contains("game is a folder, not an archive")
            && r.stderr.contains("game/units.rlb:TANK.MSH"),
        "{}",
        r.stderr
    );
    for args in [
        &["nres", "put", "game", "m.msh"][..],
        &["batch", "edited.glb", "--to", "msh", "--into", "game"],
    ] {
        let r = run(dir.path(), args).expect(2);
        assert!(
            r.stderr.contains("error[archive.is_folder]"),
            "{}",
            r.stderr
        );
    }
    assert_eq!(files(dir.path()), before);
    assert_eq!(files(&game), ["units.rlb"]);
}

/// `nres put` follows the put rule of `convert IN ARCHIVE:ENTRY`: a name the
/// archive lacks (a typo) is refused with the closest names, the archive
/// unchanged, unless `--add` asks to add it.
#[test]
fn nres_put_refuses_a_name_the_archive_lacks_unless_add() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read(fixture("archives/small.rlb")).unwrap();
    std::fs::write(dir.path().join("small.rlb"), &original).unwrap();
    std::fs::copy(fixture("models/m123_dome.msh"), dir.path().join("m.msh")).unwrap();
    // A letter of M123_DOME.MSH, which the archive has, dropped.
    let args = [
        "nres",
        "put",
        "small.rlb",
        "m.msh",
        "--name",
        "M123_DOM.MSH",
    ];
    let r = run(dir.path(), &args).expect(2);
    assert!(
        r.stderr.contains("error[archive.no_such_entry]")
            && r.stderr.contains("did you mean M123_DOME.MSH?")
            && r.stderr.contains("--add"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read(dir.path().join("small.rlb")).unwrap(),
        original
    );
    let r = run(dir.path(), &[&args[..], &["--add"]].concat()).expect(0);
    assert!(r.stderr.contains("note[archive.added]"), "{}", r.stderr);
    let bytes = std::fs::read(dir.path().join("small.rlb")).unwrap();
    assert_eq!(entry_rows(&bytes).len(), entry_rows(&original).len() + 1);
}

/// A small deterministic sequence of delays (no randomness in tests).
fn delays(n: usize, max_ms: u64) -> Vec<Duration> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Duration::from_millis(x % max_ms)
        })
        .collect()
}

#[test]
fn killing_a_write_into_an_archive_never_leaves_a_damaged_one() {
    let dir = tempfile::tempdir().unwrap();
    // A large archive, so that writing it takes long enough to be killed midway.
    let small = std::fs::read(fixture("archives/small.rlb")).unwrap();
    let mut owned = nres::OwnedArchive::parse(&small).unwrap();
    owned.push(
        nres::OwnedEntry::new(
            u32::from_le_bytes(*b"TXT\0"),
            "BIG.TXT",
            vec![0x5A; 48 << 20],
        )
        .unwrap(),
    );
    let old = owned.write(nres::WriteMode::Canonical).unwrap();
    let path = dir.path().join("big.rlb");
    std::fs::write(&path, &old).unwrap();
    run(
        dir.path(),
        &["convert", "big.rlb:M143_ROBOT.MSH", "robot.glb", "-q"],
    )
    .expect(0);
    let args = ["convert", "robot.glb", "big.rlb:M123_DOME.MSH", "-q"];
    // The new archive, from a run that is not killed.
    run(dir.path(), &args).expect(0);
    let new = std::fs::read(&path).unwrap();
    assert_ne!(new, old);
    let (mut olds, mut news) = (0, 0);
    for delay in delays(16, 900) {
        std::fs::write(&path, &old).unwrap();
        let mut child = Command::new(BIN)
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(&path).unwrap();
        if now == old {
            olds += 1;
        } else if now == new {
            news += 1;
        } else {
            panic!("killed after {delay:?}: the archive is neither the old nor the new one");
        }
        // A kill may leave a journal, a temporary file and a lock file: the
        // next command (a read) finishes the run and removes them.
        for name in files(dir.path()) {
            assert!(
                ["big.rlb", "robot.glb"].contains(&name.as_str()) || name.starts_with('.'),
                "{name}"
            );
        }
        run(dir.path(), &["nres", "list", "big.rlb"]).expect(0);
        assert_eq!(files(dir.path()), ["big.rlb", "robot.glb"]);
        // A run killed after its commit is rolled forward: old or new still.
        let after = std::fs::read(&path).unwrap();
        assert!(
            after == old || after == new,
            "killed after {delay:?}: finished as neither"
        );
    }
    eprintln!("killed writes: {olds} left the old archive, {news} the new one");
    assert_eq!(olds + news, 16);
}

#[test]
fn an_msh_goes_in_as_it_is_and_names_and_archives_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("archives/small.rlb"), dir.path().join("small.rlb")).unwrap();
    std::fs::copy(fixture("models/m127_tank.msh"), dir.path().join("tank.msh")).unwrap();
    run(
        dir.path(),
        &["convert", "tank.msh", "small.rlb:TANK.MSH", "--add"],
    )
    .expect(0);
    let bytes = std::fs::read(dir.path().join("small.rlb")).unwrap();
    let archive = nres::Archive::parse(&bytes).unwrap();
    assert_eq!(
        archive.find_by_name("tank.msh").unwrap().data(),
        &std::fs::read(fixture("models/m127_tank.msh")).unwrap()[..]
    );
    // A damaged model is not put into an archive.
    std::fs::copy(
        fixture("damaged/anim4__batch0_index_count_4.msh"),
        dir.path().join("bad.msh"),
    )
    .unwrap();
    let r = run(
        dir.path(),
        &["convert", "bad.msh", "small.rlb:BAD.MSH", "--add"],
    )
    .expect(1);
    assert!(
        r.stderr.contains("error[batch.index_count]"),
        "{}",
        r.stderr
    );
    // A model entry's name ends in .msh; the archive must be an archive.
    let r = run(dir.path(), &["convert", "tank.msh", "small.rlb:TANK.GLB"]).expect(2);
    assert!(r.stderr.contains("request.entry_not_model"), "{}", r.stderr);
    let r = run(dir.path(), &["convert", "tank.msh", "tank.msh:X.MSH"]).expect(1);
    assert!(r.stderr.contains("archive.is_model"), "{}", r.stderr);
    assert_eq!(
        std::fs::read(dir.path().join("small.rlb")).unwrap(),
        bytes,
        "refusals leave the archive as it was"
    );
}
