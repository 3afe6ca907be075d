//! `mshconv convert tank.msh tank.usda` and `batch --to usda`: the real
//! binary writes the library's USD text; a `.usda` input is refused with the
//! direction error; with `--game-dir` the materials are textured from PNG
//! files beside it, which usd-core resolves. (usd-core reads every fixture's
//! output back in crates/formats/usd/tests/usd_export.rs.)

mod common;
#[path = "../../formats/usd/tests/data/usd/read_back.rs"]
mod usd_read;

use common::run;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small")
}

#[test]
fn convert_writes_the_library_usda_with_the_options() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("models/m095_walker.msh");
    let bytes = std::fs::read(&input).unwrap();
    let args = [
        "convert",
        input.to_str().unwrap(),
        "walker.usda",
        "--lod",
        "1",
        "--fps",
        "30",
        "--axis",
        "z-up",
        "--clips",
        "walk=0..5:loop,die=6..9:once",
    ];
    run(dir.path(), &args).expect(0);
    let options = mshconv_gltf::ExportOptions {
        lod: 1,
        fps: 30.0,
        axis: mshconv_convert::Axis::ZUp,
        name: "m095_walker".into(),
        clips: Some("walk=0..5:loop,die=6..9:once".parse().unwrap()),
        ..Default::default()
    };
    let (expected, _) = mshconv_usd::export(&bytes, &(&options).into()).unwrap();
    let written = std::fs::read(dir.path().join("walker.usda")).unwrap();
    assert_eq!(written, expected, "the file is the library's output");
    let text = String::from_utf8(written).unwrap();
    assert!(text.starts_with("#usda 1.0\n"));
    assert!(text.contains("upAxis = \"Z\"") && text.contains("timeCodesPerSecond = 30"));
    assert!(text.contains("dictionary \"walk\" = {"));
}

#[test]
fn batch_to_usda_writes_one_file_per_model() {
    let dir = tempfile::tempdir().unwrap();
    let models = fixtures().join("models");
    run(
        dir.path(),
        &[
            "batch",
            models.to_str().unwrap(),
            "--to",
            "usda",
            "--out",
            "out",
            "--quiet",
        ],
    )
    .expect(0);
    let count = std::fs::read_dir(&models)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "msh")
        })
        .count();
    let written: Vec<PathBuf> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(written.len(), count, "{written:?}");
    for p in written {
        assert_eq!(p.extension().unwrap(), "usda");
        assert!(
            std::fs::read(&p).unwrap().starts_with(b"#usda 1.0\n"),
            "{}",
            p.display()
        );
    }
}

#[test]
fn a_usda_input_is_refused_as_a_direction() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("models/m127_tank.msh");
    run(
        dir.path(),
        &["convert", input.to_str().unwrap(), "tank.usda"],
    )
    .expect(0);
    let r = run(dir.path(), &["convert", "tank.usda", "tank.msh"]).expect(2);
    assert!(
        r.stderr.contains("convert.unsupported_direction") && r.stderr.contains("usda"),
        "{}",
        r.stderr
    );
    assert!(!dir.path().join("tank.msh").exists());
}

#[test]
fn a_terrain_model_is_refused_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("edge/terrain_land.msh");
    let r = run(
        dir.path(),
        &["convert", input.to_str().unwrap(), "land.usda"],
    );
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("usd.terrain"), "{}", r.stderr);
    assert!(!dir.path().join("land.usda").exists());
}

#[test]
fn game_dir_textures_resolve_in_usd_core_and_are_the_gltf_files() {
    let dir = tempfile::tempdir().unwrap();
    let game = fixtures().join("game");
    let input = format!("{}:ROBOT.MSH", game.join("units.rlb").display());
    for out in ["robot.usda", "robot.gltf"] {
        let r = run(
            dir.path(),
            &["convert", &input, out, "--game-dir", game.to_str().unwrap()],
        )
        .expect(0);
        assert!(
            r.stderr.contains("note[game.material_default]"),
            "{}",
            r.stderr
        );
    }
    let text = std::fs::read_to_string(dir.path().join("robot.usda")).unwrap();
    let pngs: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".png"))
        .collect();
    assert!(pngs.len() >= 2, "{pngs:?}");
    // Every PNG is named by the .usda (and the .gltf wrote the same names: one set of files).
    for png in &pngs {
        assert!(text.contains(&format!("@{png}@")), "{png} is not used");
    }
    assert!(text.contains("displayName = \"HULL\""));
    assert!(text.contains("UsdUVTexture") && text.contains("inputs:opacity.connect"));
    // usd-core: no finding, every texture resolves (its MissingReferenceValidator).
    let docs = usd_read::read_back(dir.path());
    let doc = &docs["robot.usda"];
    let findings = usd_read::findings("robot.usda", doc);
    assert!(findings.is_empty(), "{findings:?}");
    // Without --game-dir: no PNG, no texture.
    let plain = tempfile::tempdir().unwrap();
    run(plain.path(), &["convert", &input, "robot.usda"]).expect(0);
    let text = std::fs::read_to_string(plain.path().join("robot.usda")).unwrap();
    assert!(!text.contains("UsdUVTexture"));
    assert_eq!(std::fs::read_dir(plain.path()).unwrap().count(), 1);
}
