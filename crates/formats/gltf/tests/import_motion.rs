//! Foreign animation at every frame (issue 30): every animated glTF of the
//! test corpus that is not mshconv's own (`fixtures/foreign/gltf`,
//! `crates/formats/gltf/tests/data`: Blender, three.js, assimp and hand-written
//! files) imports into a model whose engine pose (`msh`'s sampler) is the
//! glTF's, sampled by an evaluator written from the specification
//! (`common/gltf_sampler.rs`: LINEAR/STEP/CUBICSPLINE, slerp on the short
//! arc as viewers take it, world matrices), at every game frame; and nodes
//! spinning at constant speed with keys up to 179 degrees apart keep
//! turning after the key reduction, and again after an export; and the same
//! files after glTF-Transform's `resample`.

mod common;
mod common_gltf;

use common::gltf_build::Doc;
use common::gltf_sampler::{Evaluator, Motion};
use mshconv_gltf::ExportOptions;
use mshconv_gltf::{gltf_to_msh, msh_to_gltf};
use mshconv_gltf::{AnimationChoice, ImportOptions};
use std::path::Path;

/// World translation (relative above 1) and rotation (per quaternion
/// component, up to sign): docs/GLTF.md, "Tolerances".
const TOLERANCES: (f64, f64) = (2e-4, 1e-4);

fn no_files(_: &str) -> Option<Vec<u8>> {
    None
}

/// Every `.glb` and `.gltf` under `dir`, sorted, as (path, bytes).
fn files_under(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "glb" || e == "gltf") {
            let name = p
                .strip_prefix(common::root())
                .unwrap_or(&p)
                .display()
                .to_string();
            out.push((name, std::fs::read(&p).unwrap()));
        }
    }
}

/// The scene extras mshconv writes: its own files take the exact path.
fn written_by_mshconv(bytes: &[u8]) -> bool {
    let json = if bytes.starts_with(b"glTF") {
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        &bytes[20..20 + len]
    } else {
        bytes
    };
    serde_json::from_slice::<serde_json::Value>(json)
        .is_ok_and(|v| v["scenes"][0]["extras"]["msh"].is_object())
}

/// Imports `bytes` with `choice` and compares it with the glTF playing
/// `playing`; `None` when the import is refused (its code is returned).
fn compare(
    what: &str,
    bytes: &[u8],
    eval: &Evaluator,
    choice: AnimationChoice,
    playing: &[usize],
    failures: &mut Vec<String>,
) -> Result<Motion, String> {
    let options = ImportOptions {
        animation: choice,
        ..Default::default()
    };
    let (msh, report) = gltf_to_msh(bytes, &options, &no_files).map_err(|e| e.to_string())?;
    if report.has("import.clip_list") && playing.len() > 1 {
        return Err("recorded clips lie apart on the timeline".to_string());
    }
    Ok(Motion::compare(
        what, eval, playing, &msh, 24.0, TOLERANCES, failures,
    ))
}

#[test]
fn every_animated_foreign_import_of_the_corpus_plays_as_the_gltf_at_every_frame() {
    let mut corpus = Vec::new();
    files_under(&common::root().join("fixtures/foreign/gltf"), &mut corpus);
    files_under(
        &common::root().join("crates/formats/gltf/tests/data"),
        &mut corpus,
    );
    let mut failures = Vec::new();
    let mut compared = Vec::new();
    for (name, bytes) in &corpus {
        if written_by_mshconv(bytes) {
            continue;
        }
        let eval = match Evaluator::new(bytes) {
            Ok(e) => e,
            Err(e) => {
                // The spec's reader refuses it: the import must not make a model of it.
                if gltf_to_msh(bytes, &ImportOptions::default(), &no_files).is_ok() {
                    failures.push(format!(
                        "{name}: imports, but the evaluator cannot read it: {e}"
                    ));
                }
                continue;
            }
        };
        let count = eval.animations.len();
        let mut runs: Vec<(AnimationChoice, Vec<usize>)> = (0..count)
            .map(|i| (AnimationChoice::Index(i), vec![i]))
            .collect();
        let all: Vec<usize> = (0..count).collect();
        if count > 1 && eval.disjoint(&all) {
            runs.push((AnimationChoice::All, all));
        }
        for (choice, playing) in runs {
            let what = format!("{name} {choice:?}");
            match compare(&what, bytes, &eval, choice, &playing, &mut failures) {
                Ok(m) => {
                    eprintln!("{what}: {m:?}");
                    compared.push(what);
                }
                Err(e) => eprintln!("{what}: not compared: {e}"),
            }
        }
    }
    common::fail_if_any("foreign animation at every frame", failures);
    // Blender's scene (two animations, and both together), its CUBICSPLINE
    // variant, the four Blender rigs, three.js's scene, and the hand-written
    // files of data/clips that import.
    for must in [
        "blender_scene.glb All",
        "blender_scene_extras.glb All",
        "threejs_scene.glb Index(0)",
        "skins/rigid.glb Index(0)",
        "skins/blended.glb Index(0)",
        "skins/bone_parented.glb Index(0)",
        "clips/past_timeline.gltf Index(0)",
    ] {
        assert!(
            compared.iter().any(|c| c.ends_with(must)),
            "{must} was not compared: {compared:?}"
        );
    }
}

/// glTF-Transform's `resample` (its lossless keyframe reduction: other keys,
/// STEP and LINEAR) of the animated foreign files: each output plays as
/// its own content at every frame.
#[test]
fn gltf_transform_resampled_foreign_files_play_as_the_gltf_at_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for name in [
        "blender_scene.glb",
        "threejs_scene.glb",
        "skins/rigid.glb",
        "skins/blended.glb",
    ] {
        let input = common::root().join("fixtures/foreign/gltf").join(name);
        let output = dir.path().join(name.replace('/', "_"));
        common_gltf::gltf_transform::transform(&["resample"], &input, &output);
        let bytes = std::fs::read(&output).unwrap();
        let eval = Evaluator::new(&bytes).unwrap();
        let all: Vec<usize> = (0..eval.animations.len()).collect();
        assert!(!all.is_empty() && eval.disjoint(&all), "{name}");
        let what = format!("{name} resampled");
        let m = compare(
            &what,
            &bytes,
            &eval,
            AnimationChoice::All,
            &all,
            &mut failures,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        eprintln!("{what}: {m:?}");
        assert!(m.poses > 50, "{what}: {m:?}");
    }
    common::fail_if_any("glTF-Transform resample", failures);
}

// ---------------------------------------------------------------- spinning nodes

/// Cubes turning about Y at constant speed, one per key spacing (degrees):
/// LINEAR rotation keys every second (24 frames), five keys.
fn spinning_cubes(spacings: &[f64]) -> Vec<u8> {
    let mut doc = Doc::default();
    let corners: Vec<f32> = (0..8)
        .flat_map(|i| [i & 1, (i >> 1) & 1, (i >> 2) & 1].map(|b| b as f32 - 0.5))
        .collect();
    let positions = doc.floats(&corners, 3, "VEC3", true);
    let faces: [[u16; 4]; 6] = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let indices: Vec<u16> = faces
        .iter()
        .flat_map(|f| [f[0], f[1], f[2], f[0], f[2], f[3]])
        .collect();
    let index_accessor = doc.indices(&indices);
    let mut nodes = Vec::new();
    let mut channels = Vec::new();
    let mut samplers = Vec::new();
    for (k, &spacing) in spacings.iter().enumerate() {
        let keys = 4;
        let times: Vec<f32> = (0..=keys).map(|i| i as f32).collect();
        let quats: Vec<f32> = (0..=keys)
            .flat_map(|i| {
                let half = (i as f64 * spacing).to_radians() / 2.0;
                [0.0, half.sin() as f32, 0.0, half.cos() as f32]
            })
            .collect();
        let input = doc.floats(&times, 1, "SCALAR", true);
        let output = doc.floats(&quats, 4, "VEC4", false);
        samplers
            .push(serde_json::json!({"input": input, "output": output, "interpolation": "LINEAR"}));
        channels.push(serde_json::json!({"sampler": k, "target": {"node": k, "path": "rotation"}}));
        nodes.push(serde_json::json!({
            "name": format!("Spin{spacing}"), "mesh": 0, "translation": [2.0 * k as f64, 0.0, 0.0]
        }));
    }
    doc.finish(serde_json::json!({
        "scene": 0,
        "scenes": [{"nodes": (0..spacings.len()).collect::<Vec<_>>()}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": positions}, "indices": index_accessor}]}],
        "animations": [{"name": "spin", "channels": channels, "samplers": samplers}]
    }))
}

#[test]
fn nodes_turning_at_constant_speed_keep_turning_through_import_and_export() {
    let spacings = [45.0, 90.0, 120.0, 150.0, 179.0];
    let gltf = spinning_cubes(&spacings);
    let eval = Evaluator::new(&gltf).unwrap();
    let (msh, report) = gltf_to_msh(&gltf, &ImportOptions::default(), &no_files).unwrap();
    let mut failures = Vec::new();
    let m = Motion::compare(
        "imported",
        &eval,
        &[0],
        &msh,
        24.0,
        TOLERANCES,
        &mut failures,
    );
    common::fail_if_any("spinning cubes, imported", failures);
    assert!(m.poses >= spacings.len() * (24 * 4 + 1), "{m:?}");
    // The reduction still drops samples: one key per 179 degrees at most.
    let keys = report
        .notes
        .iter()
        .filter(|n| n.code == "import.keys_reduced")
        .collect::<Vec<_>>();
    assert_eq!(keys.len(), 1, "one note for every track: {keys:?}");
    assert!(
        keys[0].message.starts_with("5 tracks of 485 samples"),
        "{}",
        keys[0].message
    );

    // The 120-degree cube is at 180 degrees half way between its second and
    // third key (frame 36), where the long arc left it at 2.5 degrees.
    let opened = msh::open(&msh, msh::Mode::Strict).unwrap();
    let world = common::gltf_sampler::engine_world(&opened.view, 36);
    let i = (0..opened.view.nodes.len())
        .find(|&i| opened.view.node_name(i) == Some(&b"Spin120"[..]))
        .unwrap();
    let q = common::gltf_sampler::rotation_of(&world[i]).unwrap();
    assert!(q[1].abs() > 0.9999, "turned 180 degrees about Y: {q:?}");

    // Exported again, a viewer shows the same poses.
    let (glb, _) = msh_to_gltf(&msh, &ExportOptions::default()).unwrap();
    let again = Evaluator::new(&glb).unwrap();
    let mut failures = Vec::new();
    for f in 0..=24 * 4 {
        let t = f64::from(f) / 24.0;
        let (want, got) = (eval.world(&[0], t), again.world(&[0], t));
        for (g, node) in eval.nodes.iter().enumerate() {
            let e = again
                .nodes
                .iter()
                .position(|n| n.name == node.name)
                .expect("the export keeps the node names");
            let (a, b) = (
                common::gltf_sampler::rotation_of(&got[e]).unwrap(),
                common::gltf_sampler::rotation_of(&want[g]).unwrap(),
            );
            let d = common::gltf_sampler::quat_diff(a, b);
            if d > TOLERANCES.1 {
                failures.push(format!(
                    "{:?} at frame {f}: rotation off by {d:e}",
                    node.name
                ));
            }
        }
    }
    common::fail_if_any("spinning cubes, exported again", failures);
}
