//! An older export never reverts a library edit (issue 39, part 5): the way
//! back compares each texture and material three ways, the export's own
//! (its fingerprints in the material's `extras.msh.exported`), the library's
//! now and the returned file's. Sequences through the real binary over
//! copies of the fixture game folder (`fixtures/small/game`): TANK (in
//! `units.rlb`) shows TANK_BODY.0, PAL_CAMO, GLASS_4444 and FIRE_8888;
//! `models/pipe.msh` shows TANK_BODY.0 too.

mod common;

use common::{copy_game, paint, tree, BIN};
use mshconv_material::texm::Rgba8Image;
use mshconv_material::Texm;
use std::path::Path;
use std::process::Command;

/// The binary's exit code and stderr for `args`, run in `dir` without
/// `MSHCONV_GAME_DIR`.
fn mshconv(dir: &Path, args: &str) -> (i32, String) {
    let out = Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .current_dir(dir)
        .args(args.split_whitespace())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap(), stderr)
}

/// Runs `args` and expects exit 0; returns stderr.
fn ok(dir: &Path, args: &str) -> String {
    let (code, stderr) = mshconv(dir, args);
    assert_eq!(code, 0, "mshconv {args}: {stderr}");
    stderr
}

/// Puts `file` back into `units.rlb:TANK.MSH` with its look; expects exit 0
/// and returns stderr.
fn put_tank(root: &Path, file: &str) -> String {
    ok(
        root,
        &format!("convert {file} game/units.rlb:TANK.MSH --game-dir game"),
    )
}

/// As [`put_tank`], expecting a refusal (exit 1) that leaves the game folder
/// as it was; returns stderr.
fn refused(root: &Path, file: &str) -> String {
    let before = tree(&root.join("game"));
    let (code, stderr) = mshconv(
        root,
        &format!("convert {file} game/units.rlb:TANK.MSH --game-dir game"),
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        tree(&root.join("game")) == before,
        "the game folder changed"
    );
    stderr
}

/// A temporary folder with a copy of the fixture game folder in `game/`.
fn game() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_game(&tmp.path().join("game"));
    tmp
}

/// The payload of `lib`'s entry `name`.
fn entry(lib: &Path, name: &str) -> Vec<u8> {
    let bytes = std::fs::read(lib).unwrap();
    let archive = nres::Archive::parse(&bytes).unwrap();
    let e = archive.entries().find(|e| e.name() == name).unwrap();
    e.data().to_vec()
}

/// Mip 0 of the `Textures.lib` entry `name`, decoded.
fn texture(root: &Path, name: &str) -> Rgba8Image {
    Texm::parse(&entry(&root.join("game/Textures.lib"), name))
        .unwrap()
        .decode_rgba8()
        .unwrap()
}

// Colours every format of these textures holds exactly (565, 4444, 8888).
const MAGENTA: [u8; 4] = [0xFF, 0x00, 0x88, 0xFF];
const GREEN: [u8; 4] = [0x00, 0xFF, 0x00, 0xFF];
const BLUE: [u8; 4] = [0x00, 0x00, 0xFF, 0xFF];

/// Another model's repaint of the shared TANK_BODY.0: pipe exported, its
/// picture painted `rgba`, put back.
fn pipe_repaints_tank_body(root: &Path, rgba: [u8; 4]) -> Rgba8Image {
    ok(
        root,
        "convert game/models/pipe.msh pipe.gltf --game-dir game",
    );
    let image = paint(&root.join("pipe_TANK_BODY_0.png"), rgba);
    ok(
        root,
        "convert pipe.gltf game/models/pipe.msh --game-dir game",
    );
    assert_eq!(texture(root, "TANK_BODY.0"), image);
    image
}

/// A `textures import` of FIRE_8888 painted `rgba`.
fn textures_import_repaints_fire(root: &Path, rgba: [u8; 4]) -> Rgba8Image {
    ok(root, "textures export game/Textures.lib tex");
    let image = paint(&root.join("tex/FIRE_8888.png"), rgba);
    ok(root, "textures import tex game/Textures.lib");
    assert_eq!(texture(root, "FIRE_8888"), image);
    image
}

/// A `materials import` that sets the first parameter of the material
/// `name`'s first phase to `value`.
fn materials_import_sets(root: &Path, name: &str, value: u8) {
    ok(root, "materials export game/Material.lib mats.json");
    let path = root.join("mats.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let m = json["materials"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["entry"] == name)
        .unwrap();
    m["phases"][0]["parameters"][0] = value.into();
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    ok(root, "materials import mats.json game/Material.lib");
}

/// The `.gltf`'s JSON.
fn gltf_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn an_older_unedited_export_keeps_every_library_edit_made_since() {
    let tmp = game();
    let root = tmp.path();
    ok(
        root,
        "convert game/units.rlb:TANK.MSH old.glb --game-dir game",
    );
    // The libraries change after the export, three ways.
    materials_import_sets(root, "GLASS", 77);
    textures_import_repaints_fire(root, MAGENTA);
    pipe_repaints_tank_body(root, GREEN);
    let materials = std::fs::read(root.join("game/Material.lib")).unwrap();
    let textures = std::fs::read(root.join("game/Textures.lib")).unwrap();
    let glass = entry(&root.join("game/Material.lib"), "GLASS");
    let fire = entry(&root.join("game/Textures.lib"), "FIRE_8888");
    let body = entry(&root.join("game/Textures.lib"), "TANK_BODY.0");

    // The older, unedited export put back: every edit stays.
    let stderr = put_tank(root, "old.glb");
    assert_eq!(entry(&root.join("game/Material.lib"), "GLASS"), glass);
    assert_eq!(entry(&root.join("game/Textures.lib"), "FIRE_8888"), fire);
    assert_eq!(entry(&root.join("game/Textures.lib"), "TANK_BODY.0"), body);
    // Nothing else was rewritten either.
    assert!(std::fs::read(root.join("game/Material.lib")).unwrap() == materials);
    assert!(std::fs::read(root.join("game/Textures.lib")).unwrap() == textures);
    for kept in [
        "note[look.library_kept]: material \"GLASS\" changed in Material.lib since the file was exported, and the file leaves it as exported: the library's entry is kept (when the file's material is the one wanted, as from another game folder, put it in with mshconv materials import)",
        "note[look.library_kept]: texture \"FIRE_8888\" changed in Textures.lib since the file was exported",
        "note[look.library_kept]: texture \"TANK_BODY.0\" changed in Textures.lib since the file was exported",
    ] {
        assert!(stderr.contains(kept), "{kept}\n{stderr}");
    }
    assert!(!stderr.contains("was edited"), "{stderr}");
    assert!(!stderr.contains("note[look.entry]"), "{stderr}");

    // A batch plans it the same way.
    std::fs::create_dir(root.join("batch")).unwrap();
    std::fs::copy(root.join("old.glb"), root.join("batch/TANK.glb")).unwrap();
    ok(
        root,
        "batch batch --to msh --into game/units.rlb --game-dir game",
    );
    assert!(std::fs::read(root.join("game/Material.lib")).unwrap() == materials);
    assert!(std::fs::read(root.join("game/Textures.lib")).unwrap() == textures);
}

#[test]
fn an_older_export_with_its_own_edit_keeps_both_edits() {
    let tmp = game();
    let root = tmp.path();
    ok(
        root,
        "convert game/units.rlb:TANK.MSH old.gltf --game-dir game",
    );
    let body = pipe_repaints_tank_body(root, GREEN);
    // The file edits another of TANK's textures, and a material's fields.
    let glass = paint(&root.join("old_GLASS_4444.png"), MAGENTA);
    let stderr = put_tank(root, "old.gltf");
    assert_eq!(
        texture(root, "TANK_BODY.0"),
        body,
        "the library's edit stays"
    );
    assert_eq!(
        texture(root, "GLASS_4444"),
        glass,
        "the file's edit goes in"
    );
    assert!(
        stderr.contains("note[look.texture_replaced]: texture \"GLASS_4444\" was edited"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note[look.library_kept]: texture \"TANK_BODY.0\""),
        "{stderr}"
    );
    assert!(!stderr.contains("note[look.no_base]"), "{stderr}");
}

#[test]
fn an_edit_of_a_texture_the_library_changed_since_is_a_conflict_naming_both_sides() {
    let tmp = game();
    let root = tmp.path();
    ok(
        root,
        "convert game/units.rlb:TANK.MSH old.gltf --game-dir game",
    );
    let exported = gltf_json(&root.join("old.gltf"))["materials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "TANK_BODY")
        .unwrap()["extras"]["msh"]["exported"]["texture"]["fingerprint"]
        .as_str()
        .unwrap()
        .to_string();
    pipe_repaints_tank_body(root, GREEN);
    paint(&root.join("old_TANK_BODY_0.png"), MAGENTA);
    let stderr = refused(root, "old.gltf");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("error[look.edit_conflict]: Textures.lib entry TANK_BODY.0 was edited on both sides since the file was exported: "))
        .unwrap_or_else(|| panic!("{stderr}"));
    // The three pictures, each by its fingerprint: the export's (as the
    // file records it), the library's now, the file's.
    let export_side = format!("the export had picture {}, ", &exported[..8]);
    assert!(line.contains(&export_side), "{line}");
    let library = line.split("Textures.lib has ").nth(1).unwrap();
    let file = line.split("the file has ").nth(1).unwrap();
    let (library, file) = (&library[..8], &file[..8]);
    assert!(
        library != file && library != &exported[..8] && file != &exported[..8],
        "{line}"
    );
    assert!(line.contains("nothing is written"), "{line}");

    // The same edit on both sides is no conflict: the entry is as both want.
    let green = paint(&root.join("old_TANK_BODY_0.png"), GREEN);
    put_tank(root, "old.gltf");
    assert_eq!(texture(root, "TANK_BODY.0"), green);
}

#[test]
fn an_edit_of_a_material_the_library_changed_since_is_a_conflict() {
    let tmp = game();
    let root = tmp.path();
    ok(
        root,
        "convert game/units.rlb:TANK.MSH old.gltf --game-dir game",
    );
    materials_import_sets(root, "TANK_BODY", 78);
    // The file edits the material's recorded fields otherwise.
    let path = root.join("old.gltf");
    let mut json = gltf_json(&path);
    let m = json["materials"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["name"] == "TANK_BODY")
        .unwrap();
    let exported_value = m["extras"]["msh"]["mat0"]["phases"][0]["parameters"][0].clone();
    m["extras"]["msh"]["mat0"]["phases"][0]["parameters"][0] = 9.into();
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    let stderr = refused(root, "old.gltf");
    assert!(
        stderr.contains("error[look.edit_conflict]: Material.lib entry TANK_BODY was edited on both sides since the file was exported: the export had MAT0 "),
        "{stderr}"
    );

    // The file's edit of a material the library left alone goes in, and
    // the library's edit of the one the file leaves as exported stays.
    let mut json = gltf_json(&path);
    for m in json["materials"].as_array_mut().unwrap() {
        let value = match m["name"].as_str().unwrap() {
            "TANK_BODY" => exported_value.clone(),
            "FIRE" => 5.into(),
            _ => continue,
        };
        m["extras"]["msh"]["mat0"]["phases"][0]["parameters"][0] = value;
    }
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    let stderr = put_tank(root, "old.gltf");
    assert!(
        stderr.contains("note[look.library_kept]: material \"TANK_BODY\""),
        "{stderr}"
    );
    assert!(
        stderr.contains("note[look.material_replaced]: material \"FIRE\" changed"),
        "{stderr}"
    );
    assert_eq!(parameter(root, "TANK_BODY"), 78);
    assert_eq!(parameter(root, "FIRE"), 5);
}

/// The first parameter of the first phase of `Material.lib`'s entry `name`.
fn parameter(root: &Path, name: &str) -> u8 {
    let bytes = std::fs::read(root.join("game/Material.lib")).unwrap();
    let archive = nres::Archive::parse(&bytes).unwrap();
    let e = archive.entries().find(|e| e.name() == name).unwrap();
    mshconv_material::Mat0::parse(e.data(), e.attr2())
        .unwrap()
        .phases[0]
        .parameters[0]
}

#[test]
fn an_export_without_the_record_stays_two_way_and_says_so() {
    let tmp = game();
    let root = tmp.path();
    ok(
        root,
        "convert game/units.rlb:TANK.MSH old.gltf --game-dir game",
    );
    // An export made before the record existed: no `exported` extras.
    let path = root.join("old.gltf");
    let mut json = gltf_json(&path);
    for m in json["materials"].as_array_mut().unwrap() {
        m["extras"]["msh"]
            .as_object_mut()
            .unwrap()
            .remove("exported")
            .unwrap();
    }
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    pipe_repaints_tank_body(root, GREEN);
    let blue = paint(&root.join("old_TANK_BODY_0.png"), BLUE);
    let stderr = put_tank(root, "old.gltf");
    // As before: the file's picture wins, and the note says what that may undo.
    assert_eq!(texture(root, "TANK_BODY.0"), blue);
    assert!(
        stderr.contains("note[look.no_base]: texture \"TANK_BODY.0\": the file does not record the picture it was exported with"),
        "{stderr}"
    );
}

/// Through real Blender (bpy 4.2): with **Custom Properties** on, the
/// material's extras (the record of what was exported) come back, so an
/// older export that went through Blender unedited keeps the library's
/// edits too. With Blender's defaults nothing is recorded: the way back is
/// two-way and says so.
#[test]
fn an_older_export_through_blender_keeps_the_library_edits_with_custom_properties() {
    let tmp = game();
    let root = tmp.path();
    std::fs::create_dir(root.join("old")).unwrap();
    ok(
        root,
        "convert game/units.rlb:TANK.MSH old/TANK.glb --game-dir game",
    );
    for profile in ["custom", "default"] {
        common::blender_round_trip(&root.join("old"), &root.join(profile), profile);
    }
    textures_import_repaints_fire(root, MAGENTA);
    let body = pipe_repaints_tank_body(root, GREEN);
    let textures = std::fs::read(root.join("game/Textures.lib")).unwrap();
    let stderr = put_tank(root, "custom/TANK.glb");
    assert!(
        std::fs::read(root.join("game/Textures.lib")).unwrap() == textures,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("note[look.library_kept]: texture").count(),
        2,
        "{stderr}"
    );
    // Blender's defaults drop every extra: the old pictures go back, and
    // the notes say that an edit made since is lost.
    let stderr = put_tank(root, "default/TANK.glb");
    assert_ne!(texture(root, "TANK_BODY.0"), body);
    assert!(
        stderr.contains("note[look.no_base]: texture \"TANK_BODY.0\""),
        "{stderr}"
    );
}

/// Two writers at once: pipe's repaint of TANK_BODY.0 and TANK's older,
/// unedited export. They take turns (the folder lock), in either order; the
/// repaint stays whichever comes first.
#[test]
fn two_writers_at_once_keep_both_edits_whichever_comes_first() {
    let tmp = game();
    let root = tmp.path();
    ok(
        root,
        "convert game/units.rlb:TANK.MSH old.glb --game-dir game",
    );
    ok(
        root,
        "convert game/models/pipe.msh pipe.gltf --game-dir game",
    );
    let green = paint(&root.join("pipe_TANK_BODY_0.png"), GREEN);
    let original = tree(&root.join("game"));
    for round in 0..8 {
        // The game folder as it was before either writer.
        let game = root.join("game");
        std::fs::remove_dir_all(&game).unwrap();
        copy_game(&game);
        assert!(tree(&game) == original);
        let spawn = |args: &str| {
            Command::new(BIN)
                .env_remove("MSHCONV_GAME_DIR")
                .current_dir(root)
                .args(args.split_whitespace())
                .output()
        };
        let (pipe, tank) = std::thread::scope(|s| {
            let pipe = s.spawn(|| spawn("convert pipe.gltf game/models/pipe.msh --game-dir game"));
            let tank = s.spawn(|| spawn("convert old.glb game/units.rlb:TANK.MSH --game-dir game"));
            (pipe.join().unwrap().unwrap(), tank.join().unwrap().unwrap())
        });
        for (what, out) in [("pipe", &pipe), ("tank", &tank)] {
            assert!(
                out.status.success(),
                "round {round}, {what}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(texture(root, "TANK_BODY.0"), green, "round {round}");
    }
}
