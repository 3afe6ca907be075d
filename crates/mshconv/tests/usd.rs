//! `mshconv convert tank.msh tank.usda` and `batch --to usda`: the real
//! binary writes the library's USD text; a `.usda` input is refused with the
//! direction error. (usd-core reads the output back in
//! crates/convert/tests/usd_export.rs.)

mod common;

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
    let options = mshconv_convert::ExportOptions {
        lod: 1,
        fps: 30.0,
        axis: mshconv_convert::Axis::ZUp,
        name: "m095_walker".into(),
        clips: Some("walk=0..5:loop,die=6..9:once".parse().unwrap()),
        ..Default::default()
    };
    let (expected, _) = mshconv_convert::usd::export(&bytes, &options).unwrap();
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
