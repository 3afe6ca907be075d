//! `--game-dir` (and `MSHCONV_GAME_DIR`) on `convert` and `batch`, over the
//! fixture game folder (`fixtures/small/game`, see its expected.json).

mod common;

use common::BIN;
use std::path::{Path, PathBuf};
use std::process::Command;

fn game() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small/game")
}

/// The JSON chunk of a GLB.
fn glb_json(glb: &[u8]) -> serde_json::Value {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + len]).unwrap()
}

fn material_names(json: &serde_json::Value) -> Vec<String> {
    json["materials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn convert_with_game_dir_names_materials_and_embeds_textures() {
    let out = tempfile::tempdir().unwrap();
    let input = format!("{}:ROBOT.MSH", game().join("units.rlb").display());
    let glb = out.path().join("robot.glb");
    let run = Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .args(["convert", &input])
        .arg(&glb)
        .arg("--game-dir")
        .arg(game())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("note[game.material_default]"), "{stderr}");
    let json = glb_json(&std::fs::read(&glb).unwrap());
    let names = material_names(&json);
    assert!(names.contains(&"DEFAULT".to_string()), "{names:?}");
    assert!(!json["images"].as_array().unwrap().is_empty());
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 1);

    // Without it: the plain export.
    let plain = out.path().join("plain.glb");
    let run = Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .args(["convert", &input])
        .arg(&plain)
        .output()
        .unwrap();
    assert!(run.status.success());
    let json = glb_json(&std::fs::read(&plain).unwrap());
    assert!(material_names(&json).iter().all(|n| n.starts_with("mat")));
    assert!(json.get("images").is_none());

    // A game folder that is not one is a usage error.
    let run = Command::new(BIN)
        .args(["convert", &input])
        .arg(out.path().join("x.glb"))
        .arg("--game-dir")
        .arg(out.path().join("nothing"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("game_dir.not_found"));
}

#[test]
fn batch_takes_the_game_folder_from_the_environment_and_writes_pngs_beside_gltf() {
    let out = tempfile::tempdir().unwrap();
    let run = Command::new(BIN)
        .env("MSHCONV_GAME_DIR", game())
        .arg("batch")
        .arg(game().join("models"))
        .args(["--to", "gltf", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("note[game.missing_wear_row]"), "{stderr}");
    assert!(stderr.contains("note[game.no_texture]"), "{stderr}");
    let pipe: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("pipe.gltf")).unwrap()).unwrap();
    for image in pipe["images"].as_array().unwrap() {
        let uri = image["uri"].as_str().unwrap();
        let png = std::fs::read(out.path().join(uri)).unwrap();
        assert_eq!(&png[1..4], b"PNG", "{uri}");
    }
    assert!(material_names(&pipe).contains(&"TANK_BODY".to_string()));
}

#[test]
fn a_model_on_stdout_says_its_pngs_are_not_written() {
    let input = format!("{}:TANK.MSH", game().join("units.rlb").display());
    let run = |to: &str, game_dir: bool| {
        let mut cmd = Command::new(BIN);
        cmd.args(["convert", &input, "-", "--to", to]);
        if game_dir {
            cmd.arg("--game-dir").arg(game());
        }
        let run = cmd.output().unwrap();
        assert!(run.status.success(), "{to}");
        let stderr = String::from_utf8_lossy(&run.stderr).to_string();
        (run.stdout, stderr)
    };
    let note = "note[convert.textures_not_written]";
    let (gltf, stderr) = run("gltf", true);
    assert!(stderr.contains(note), "{stderr}");
    assert!(stderr.contains("the .gltf names PNG files"), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&gltf).unwrap();
    assert!(json["images"][0]["uri"].as_str().unwrap().ends_with(".png"));
    // USD text and OBJ name their PNGs too (the OBJ through its .mtl).
    for to in ["usda", "obj"] {
        let (_, stderr) = run(to, true);
        assert!(
            stderr.contains(&format!("the .{to} names PNG files")),
            "{to}: {stderr}"
        );
    }
    // Without a game folder there are no PNGs, and no note.
    for to in ["gltf", "usda", "obj"] {
        let (_, stderr) = run(to, false);
        assert!(!stderr.contains(note), "{to}: {stderr}");
    }
    // An .obj's .mtl is not written to stdout either, and that is said.
    let mtl = "note[convert.mtl_not_written]: the .obj names";
    for game_dir in [false, true] {
        let (obj, stderr) = run("obj", game_dir);
        assert!(stderr.contains(mtl), "{stderr}");
        assert!(String::from_utf8_lossy(&obj).contains("\nmtllib "));
    }
    let (_, stderr) = run("gltf", false);
    assert!(!stderr.contains("convert.mtl_not_written"), "{stderr}");
}
