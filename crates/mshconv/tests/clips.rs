//! `--clips` on `convert` and `batch` (issue 25): the real binary in a temp
//! folder. The text and the JSON file forms, `NAME.clips.json` beside a model
//! (with its note), the clip list written beside an imported `.msh`, the
//! round trip to the identical model, and the refusals with their codes.

use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mshconv"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A temp folder with `walker.msh`: a fixture with a 29-frame timeline.
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small/models/m095_walker.msh");
    std::fs::copy(src, dir.path().join("walker.msh")).unwrap();
    dir
}

/// The animation names of a GLB (its JSON chunk read as the container says).
fn animation_names(glb: &Path) -> Vec<String> {
    let bytes = std::fs::read(glb).unwrap();
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + len]).unwrap();
    json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap_or("").to_string())
        .collect()
}

/// `walker.msh` exported as `w.glb` with two clips.
fn export_with_clips(d: &Path) {
    let clips = "idle=0..3,walk=4..8:pingpong";
    let o = run(d, &["convert", "walker.msh", "w.glb", "--clips", clips]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn convert_with_clips_and_back() {
    let dir = folder();
    let d = dir.path();
    export_with_clips(d);
    assert_eq!(animation_names(&d.join("w.glb")), ["idle", "walk"]);
    let o = run(d, &["convert", "w.glb", "back.msh"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("note[import.clip_list]"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(d.join("back.msh")).unwrap(),
        std::fs::read(d.join("walker.msh")).unwrap()
    );
    let json = std::fs::read_to_string(d.join("back.clips.json")).unwrap();
    let list = mshconv_convert::ClipList::from_json(json.as_bytes()).unwrap();
    assert_eq!(list.to_spec(), "idle=0..3:loop,walk=4..8:pingpong");

    // The JSON file as --clips, and the same file found beside the model.
    let o = run(
        d,
        &[
            "convert",
            "walker.msh",
            "f.glb",
            "--clips",
            "back.clips.json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::copy(d.join("back.clips.json"), d.join("walker.clips.json")).unwrap();
    let o = run(d, &["convert", "walker.msh", "s.glb"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("note[export.clips_beside]"),
        "{}",
        stderr(&o)
    );
    let w = std::fs::read(d.join("w.glb")).unwrap();
    assert_eq!(std::fs::read(d.join("f.glb")).unwrap(), w);
    assert_eq!(std::fs::read(d.join("s.glb")).unwrap(), w);

    // Into an archive: the model goes in, the clip list is only reported.
    let archive =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small/archives/small.rlb");
    std::fs::copy(archive, d.join("small.rlb")).unwrap();
    let o = run(d, &["convert", "w.glb", "small.rlb:WALKER.MSH", "--add"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("note[import.clips_not_written]"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_clips_are_refused_with_their_codes() {
    let dir = folder();
    let d = dir.path();
    for (clips, code) in [
        ("idle=0..99", "error[clips.past_timeline]"),
        ("idle=5..2", "error[clips.invalid]"),
        ("idle=0..2:bounce", "error[clips.invalid]"),
        ("no-such-file.json", "error[clips.unreadable]"),
    ] {
        let o = run(d, &["convert", "walker.msh", "x.glb", "--clips", clips]);
        assert!(!o.status.success(), "{clips}");
        assert!(stderr(&o).contains(code), "{clips}: {}", stderr(&o));
        assert!(!d.join("x.glb").exists(), "{clips}");
    }
    // A damaged clip list beside the model is refused too, naming the file.
    std::fs::write(d.join("walker.clips.json"), "{\"clips\": 1}").unwrap();
    let o = run(d, &["convert", "walker.msh", "x.glb"]);
    assert!(stderr(&o).contains("walker.clips.json"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("error[clips.invalid]"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn batch_takes_clips_and_writes_clip_lists_back() {
    let dir = folder();
    let d = dir.path();
    std::fs::create_dir(d.join("in")).unwrap();
    std::fs::rename(d.join("walker.msh"), d.join("in/walker.msh")).unwrap();
    let o = run(
        d,
        &[
            "batch",
            "in",
            "--to",
            "glb",
            "--out",
            "out",
            "--clips",
            "a=0..9,b=10..28:once",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(animation_names(&d.join("out/walker.glb")), ["a", "b"]);
    let o = run(d, &["batch", "out", "--to", "msh", "--out", "back"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json = std::fs::read_to_string(d.join("back/walker.clips.json")).unwrap();
    assert!(json.contains("\"mode\": \"once\""), "{json}");
    assert_eq!(
        std::fs::read(d.join("back/walker.msh")).unwrap(),
        std::fs::read(d.join("in/walker.msh")).unwrap()
    );
}

#[test]
fn clips_for_an_obj_are_said_to_be_ignored() {
    let dir = folder();
    let d = dir.path();
    let o = run(
        d,
        &[
            "convert",
            "walker.msh",
            "w.obj",
            "--clips",
            "idle=0..3:loop",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("note[export.clips_ignored]: the clips are not written: .obj"),
        "{}",
        stderr(&o)
    );
    // The same .obj as without them.
    let with_clips = std::fs::read(d.join("w.obj")).unwrap();
    let plain = run(d, &["convert", "walker.msh", "w.obj"]);
    assert!(plain.status.success());
    assert!(!stderr(&plain).contains("export.clips_ignored"));
    assert_eq!(std::fs::read(d.join("w.obj")).unwrap(), with_clips);
    // A clip list beside the model is for the formats that animate: no note.
    std::fs::write(
        d.join("walker.clips.json"),
        r#"{"clips": [{"name": "a", "first": 0, "last": 1}]}"#,
    )
    .unwrap();
    let beside = run(d, &["convert", "walker.msh", "b.obj"]);
    assert!(beside.status.success());
    assert!(
        !stderr(&beside).contains("export.clips_"),
        "{}",
        stderr(&beside)
    );
}

/// With `--game-dir` a model file gets its clip list beside it, as without
/// one (the look going back changes nothing of the model's files), and no
/// note says it went into an archive.
#[test]
fn the_clip_list_goes_beside_a_model_file_with_a_game_folder() {
    let dir = folder();
    let d = dir.path();
    let game = d.join("game");
    std::fs::create_dir(&game).unwrap();
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small/game");
    for lib in ["Material.lib", "Textures.lib"] {
        std::fs::copy(small.join(lib), game.join(lib)).unwrap();
    }
    export_with_clips(d);
    let o = run(
        d,
        &["convert", "w.glb", "game/back.msh", "--game-dir", "game"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("import.clips_not_written"),
        "{}",
        stderr(&o)
    );
    let json = std::fs::read_to_string(game.join("back.clips.json")).unwrap();
    let list = mshconv_convert::ClipList::from_json(json.as_bytes()).unwrap();
    assert_eq!(list.to_spec(), "idle=0..3:loop,walk=4..8:pingpong");
    assert!(game.join("back.wea").is_file());
}
