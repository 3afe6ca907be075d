//! Back into the archive through real Blender (bpy 4.2, scripts/setup-blender.sh):
//! every model of an archive out to `.glb`, imported and exported by Blender
//! with "Custom Properties" on (its other export options at their defaults),
//! and put back with `mshconv convert X.glb ARCHIVE:ENTRY`: the archive, and
//! with `--game-dir` the whole game folder, byte for byte as they were.

mod common;

use common::{copy_tree, tree, BIN};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mshconv(args: &[&OsStr]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "mshconv {args:?}: {stderr}");
    stderr
}

/// The model entries of an archive.
fn models(archive: &Path) -> Vec<String> {
    let bytes = std::fs::read(archive).unwrap();
    nres::Archive::parse(&bytes)
        .unwrap()
        .entries()
        .map(|e| e.name().to_string())
        .filter(|n| n.to_ascii_uppercase().ends_with(".MSH"))
        .collect()
}

/// Exports every model of `archive` (with `game`'s look when given), takes the
/// files through Blender, and puts them back into `work_archive`.
fn through_blender(archive: &Path, work_archive: &Path, game: Option<&Path>, tmp: &Path) {
    let exported = tmp.join("in");
    let blended = tmp.join("out");
    std::fs::create_dir_all(&exported).unwrap();
    let entries = models(archive);
    assert!(entries.len() >= 3, "{entries:?}");
    let look: Vec<&OsStr> = match game {
        Some(dir) => vec!["--game-dir".as_ref(), dir.as_os_str()],
        None => Vec::new(),
    };
    for entry in &entries {
        let from = format!("{}:{entry}", archive.display());
        let glb = exported.join(format!("{entry}.glb"));
        let mut args: Vec<&OsStr> = vec!["convert".as_ref(), from.as_ref(), glb.as_os_str()];
        args.extend(&look);
        mshconv(&args);
    }
    common::blender_round_trip(&exported, &blended, "custom-sampled");
    for entry in &entries {
        let into = format!("{}:{entry}", work_archive.display());
        let glb = blended.join(format!("{entry}.glb"));
        let mut args: Vec<&OsStr> = vec!["convert".as_ref(), glb.as_os_str(), into.as_ref()];
        args.extend(&look);
        let notes = mshconv(&args);
        assert!(notes.contains("import.original_kept"), "{entry}: {notes}");
    }
}

#[test]
fn every_model_of_an_archive_goes_back_through_blender_leaving_it_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let original = root().join("fixtures/small/archives/small.rlb");
    let work = tmp.path().join("small.rlb");
    std::fs::copy(&original, &work).unwrap();
    through_blender(&original, &work, None, tmp.path());
    assert!(
        std::fs::read(&work).unwrap() == std::fs::read(&original).unwrap(),
        "small.rlb changed"
    );
}

#[test]
fn the_game_folder_stays_byte_for_byte_when_its_models_go_through_blender_with_their_look() {
    let tmp = tempfile::tempdir().unwrap();
    let game = root().join("fixtures/small/game");
    let work = tmp.path().join("game");
    copy_tree(&game, &work);
    through_blender(
        &game.join("units.rlb"),
        &work.join("units.rlb"),
        Some(&work),
        tmp.path(),
    );
    let (before, after) = (tree(&game), tree(&work));
    for (path, bytes) in &after {
        assert!(
            before.get(path) == Some(bytes),
            "{}: changed or new",
            path.display()
        );
    }
    assert_eq!(before.len(), after.len());
}
