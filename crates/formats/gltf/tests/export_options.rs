//! Options and the report: the chosen LOD/group is what a viewer shows, the
//! others are present but hidden; every approximation is reported.

mod common;

use mshconv_gltf::msh_to_gltf;
use mshconv_gltf::{ExportOptions, GltfFormat};

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(common::root().join("fixtures/small").join(rel)).unwrap()
}

fn json_of(bytes: &[u8], options: &ExportOptions) -> serde_json::Value {
    let (out, _) = msh_to_gltf(
        bytes,
        &ExportOptions {
            format: GltfFormat::Gltf,
            ..options.clone()
        },
    )
    .unwrap();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn every_lod_and_group_can_be_the_one_shown() {
    // m012_walker's node 0 uses all 15 LOD/group slots.
    let bytes = fixture("models/m012_walker.msh");
    let opened = msh::open(&bytes, msh::Mode::Strict).unwrap();
    let n = opened.view.nodes.len();
    for lod in 0..3u8 {
        for group in 0..5u8 {
            let doc = json_of(
                &bytes,
                &ExportOptions {
                    lod,
                    group,
                    ..Default::default()
                },
            );
            let nodes = doc["nodes"].as_array().unwrap();
            // MSH nodes first, in order.
            for (i, node) in nodes.iter().take(n).enumerate() {
                assert_eq!(node["extras"]["msh"]["node"], i);
            }
            let mut shown = 0;
            for node in &nodes[n..] {
                let e = &node["extras"]["msh"];
                let name = node["name"].as_str().unwrap();
                let (l, g) = mshconv_convert::names::slot_suffix(name)
                    .expect("slot node names end in |L<l>G<g>");
                assert_eq!(
                    (
                        e["lod"].as_u64().unwrap() as u8,
                        e["group"].as_u64().unwrap() as u8
                    ),
                    (l, g)
                );
                let is_shown = l == lod && g == group;
                assert_eq!(e["shown"], is_shown, "{name}");
                assert_eq!(
                    node.get("scale").is_none(),
                    is_shown,
                    "{name}: shown slots have no scale, hidden ones scale 0"
                );
                shown += is_shown as usize;
            }
            let expected = opened
                .view
                .nodes
                .iter()
                .filter(|nd| nd.slot(lod as usize, group as usize).is_some())
                .count();
            assert_eq!(shown, expected, "lod {lod} group {group}");
            assert!(expected > 0, "node 0 uses every slot");
        }
    }
}

#[test]
fn the_report_lists_what_was_approximated() {
    let cases = [
        (
            "edge/quat_zero_and_nonunit.msh",
            "export.degenerate_quaternion",
        ),
        (
            "edge/anim_map_values_noncanonical.msh",
            "export.animation_baked",
        ),
        ("edge/anim_tracks_late_start.msh", "export.animation_baked"),
        ("edge/terrain_land.msh", "export.terrain"),
        ("models/m211_mtcheck.msh", "export.legacy_nodes"),
    ];
    let mut failures = Vec::new();
    for (file, code) in cases {
        let (_, report) = msh_to_gltf(&fixture(file), &ExportOptions::default()).unwrap();
        if !report.has(code) {
            failures.push(format!("{file}: no {code} note in {:?}", report.notes));
        }
    }
    // A canonical model converts with nothing to report.
    let (_, report) =
        msh_to_gltf(&fixture("models/m127_tank.msh"), &ExportOptions::default()).unwrap();
    if !report.notes.is_empty() {
        failures.push(format!("m127_tank: unexpected notes {:?}", report.notes));
    }
    common::fail_if_any("report", failures);
}

#[test]
fn bad_options_and_invalid_input_are_typed_errors() {
    let bytes = fixture("models/m127_tank.msh");
    for options in [
        ExportOptions {
            lod: 3,
            ..Default::default()
        },
        ExportOptions {
            group: 5,
            ..Default::default()
        },
        ExportOptions {
            fps: 0.0,
            ..Default::default()
        },
        ExportOptions {
            fps: f32::NAN,
            ..Default::default()
        },
    ] {
        let e = msh_to_gltf(&bytes, &options).unwrap_err();
        assert_eq!(
            e.kind(),
            mshconv_convert::ErrorKind::BadOption,
            "{options:?}"
        );
    }
    let e = msh_to_gltf(
        &fixture("damaged/anim4__anim_fallback_ffff.msh"),
        &ExportOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.kind(), mshconv_convert::ErrorKind::InvalidInput);
    assert_eq!(e.code(), "anim.fallback_range");
    let e = msh_to_gltf(b"not a model", &ExportOptions::default()).unwrap_err();
    assert_eq!(e.code(), "nres.truncated");
}

#[test]
fn non_default_options_stay_validator_clean() {
    let dir = tempfile::tempdir().unwrap();
    let mut written = 0;
    for (name, bytes) in common::valid_fixtures().into_iter().step_by(3) {
        for (k, options) in [
            ExportOptions {
                lod: 1,
                group: 2,
                axis: mshconv_convert::Axis::ZUp,
                ..Default::default()
            },
            ExportOptions {
                rotation: mshconv_convert::Rotation::Stored,
                fps: 30.0,
                format: GltfFormat::Gltf,
                ..Default::default()
            },
        ]
        .into_iter()
        .enumerate()
        {
            let (out, _) = msh_to_gltf(&bytes, &options).unwrap();
            let ext = if options.format == GltfFormat::Glb {
                "glb"
            } else {
                "gltf"
            };
            std::fs::write(
                dir.path()
                    .join(format!("{}_{k}.{ext}", name.replace('/', "_"))),
                out,
            )
            .unwrap();
            written += 1;
        }
    }
    let results = common::validate_dir(dir.path());
    assert_eq!(results.len(), written);
    let failures: Vec<String> = results
        .iter()
        .filter(|r| r.errors > 0 || r.warnings > 0)
        .map(|r| format!("{}: {:?}", r.file, &r.messages[..r.messages.len().min(3)]))
        .collect();
    common::fail_if_any("validator with options", failures);
}
