//! `pose`: the engine's local poses, JSON that round-trips every f32, negative times.

mod common;

use common::*;
use msh::raw::AnimKey24;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::path::Path;

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(borrow)]
    time: &'a RawValue,
    #[serde(borrow)]
    nodes: Vec<NodeDoc<'a>>,
}

#[derive(Deserialize)]
struct NodeDoc<'a> {
    index: usize,
    name: Option<String>,
    #[serde(borrow)]
    translation: [&'a RawValue; 3],
    #[serde(borrow)]
    rotation: [&'a RawValue; 4],
    fallback: bool,
}

/// The f32 a JSON number token denotes, parsed directly (correctly rounded) as f32.
fn f32_of(raw: &RawValue) -> f32 {
    let text = raw.get();
    match text {
        "\"NaN\"" => f32::NAN,
        "\"Infinity\"" => f32::INFINITY,
        "\"-Infinity\"" => f32::NEG_INFINITY,
        _ => text
            .parse::<f32>()
            .unwrap_or_else(|e| panic!("{text}: {e}")),
    }
}

fn setup(dir: &Path) -> Vec<u8> {
    let bytes = sample_bytes();
    std::fs::write(dir.join("sample.msh"), &bytes).unwrap();
    bytes
}

#[test]
fn pose_json_round_trips_every_f32_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = setup(dir.path());
    let opened = msh::open(&bytes, msh::Mode::Strict).unwrap();
    let mut failures = Vec::new();
    for t in [
        0.0f32, 2.5, 3.0, 3.3, 4.0, 7.25, 9.999, 10.0, 12.0, -0.5, 1.0e9,
    ] {
        let expected = msh::pose::local_poses(&opened.view, t).unwrap();
        let arg = format!("--time={t}");
        let r = run(dir.path(), &["pose", "sample.msh", &arg, "--json"]).expect(0);
        let doc: Doc = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(f32_of(doc.time).to_bits(), t.to_bits());
        assert_eq!(doc.nodes.len(), expected.len());
        for (node, pose) in doc.nodes.iter().zip(&expected) {
            let got_t = node.translation.map(f32_of).map(f32::to_bits);
            let got_r = node.rotation.map(f32_of).map(f32::to_bits);
            if got_t != pose.translation.map(f32::to_bits)
                || got_r != pose.rotation.map(f32::to_bits)
                || node.fallback != pose.fallback
            {
                failures.push(format!("t={t} node {}: {}", node.index, r.stdout));
            }
        }
        assert_eq!(doc.nodes[1].name.as_deref(), Some("turret"));
        assert_eq!(doc.nodes[2].name, None);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pose_interpolates_between_keys_as_the_engine_does() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let r = run(
        dir.path(),
        &["pose", "sample.msh", "--time", "2.5", "--json"],
    )
    .expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let turret = &v["nodes"][1];
    assert_eq!(turret["fallback"], false);
    // Halfway between x = 0 and x = 0.25.
    assert_eq!(turret["translation"], serde_json::json!([0.125, 0.0, 1.5]));
    // Halfway between identity and 90 degrees about z: 45 degrees, w = z ~ cos(22.5deg).
    let rot: Vec<f64> = turret["rotation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_f64().unwrap())
        .collect();
    assert!(
        (rot[0] - 0.92388).abs() < 1e-4 && (rot[3] - 0.38268).abs() < 1e-4,
        "{rot:?}"
    );
    // Whole key times return the stored key exactly.
    let r = run(dir.path(), &["pose", "sample.msh", "--time", "5", "--json"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["nodes"][1]["translation"],
        serde_json::json!([0.25, 0.0, 1.5])
    );
}

#[test]
fn negative_times_are_accepted_in_both_spellings() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let a = run(dir.path(), &["pose", "sample.msh", "--time=-0.5", "--json"]).expect(0);
    let b = run(
        dir.path(),
        &["pose", "sample.msh", "--time", "-0.5", "--json"],
    )
    .expect(0);
    assert_eq!(a.stdout, b.stdout);
    let v: Value = serde_json::from_str(&a.stdout).unwrap();
    assert_eq!(v["time"], -0.5);
    // -0.5 - 0.5 = -1 wraps to a huge unsigned frame: every node shows its fallback key.
    for node in v["nodes"].as_array().unwrap() {
        assert_eq!(node["fallback"], true, "{node}");
    }
    assert_eq!(
        v["nodes"][1]["translation"],
        serde_json::json!([0.5, -0.125, 1.5])
    );
}

#[test]
fn non_finite_values_are_json_strings() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = sample_model();
    model.anim_keys[4] = AnimKey24::new([f32::NAN, f32::INFINITY, -0.0], 0.0, [0, 0, 0, 32767]);
    std::fs::write(dir.path().join("nan.msh"), model.to_bytes().unwrap()).unwrap();
    let r = run(dir.path(), &["pose", "nan.msh", "--time", "NaN", "--json"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["time"], "NaN");
    assert_eq!(
        v["nodes"][2]["translation"],
        serde_json::json!(["NaN", "Infinity", -0.0])
    );
    let doc: Doc = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        f32_of(doc.nodes[2].translation[2]).to_bits(),
        (-0.0f32).to_bits()
    );
    let r = run(dir.path(), &["pose", "nan.msh", "--time=-inf", "--json"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["time"], "-Infinity");
}

#[test]
fn pose_text_is_a_table() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let r = run(dir.path(), &["pose", "sample.msh", "--time", "5"]).expect(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "time 5: frame 4 of frame_count 11");
    assert!(
        lines[1].starts_with("node  name       key  fallback  translation (x y z)"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("   0  \"central\"    0  yes       0 0 0"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with("   1  \"turret\"     2  no        0.25 0 1.5"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].starts_with("   2  -            4  yes       0 1 0"),
        "{}",
        lines[4]
    );
    let r = run(dir.path(), &["pose", "sample.msh", "--time", "20"]).expect(0);
    assert!(r.stdout.starts_with(
        "time 20: frame 20 of frame_count 11 (past the timeline: every node shows its fallback key)\n"
    ));
}

#[test]
fn pose_failures_are_typed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("legacy.msh"), legacy_bytes()).unwrap();
    let r = run(dir.path(), &["pose", "legacy.msh", "--time", "0"]).expect(1);
    assert!(
        r.stderr
            .starts_with("error[msh.unsupported]: legacy.msh is a model with a legacy node table"),
        "{}",
        r.stderr
    );
    std::fs::write(dir.path().join("terrain.msh"), terrain_bytes()).unwrap();
    let r = run(dir.path(), &["pose", "terrain.msh", "--time", "0"]).expect(1);
    assert!(r.stderr.starts_with("error[msh.unsupported]"));
    // Node 1's fallback key points past Res8: strict rejects, tolerant fails at sampling.
    let bad = patch(&sample_bytes(), 1, 38 + 6, &200u16.to_le_bytes());
    std::fs::write(dir.path().join("bad.msh"), bad).unwrap();
    let r = run(dir.path(), &["pose", "bad.msh", "--time", "20"]).expect(1);
    assert!(
        r.stderr
            .starts_with("error[anim.fallback_range]: cannot open bad.msh"),
        "{}",
        r.stderr
    );
    let r = run(
        dir.path(),
        &["pose", "--tolerant", "bad.msh", "--time", "20"],
    )
    .expect(1);
    assert!(
        r.stderr.starts_with("error[anim.fallback_range]: cannot sample bad.msh at time 20: node 1: fallback key 200 is past the 5 keys of Res8"),
        "{}",
        r.stderr
    );
}
