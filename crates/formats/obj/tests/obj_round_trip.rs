//! msh -> obj -> msh on every valid fixture: the result is a valid MSH with,
//! per node name and material, the triangles of the posed geometry at the chosen
//! LOD/group (failures collected per file). Plus options, determinism, the UV
//! convention and the unsupported kinds.

#[path = "../../gltf/tests/common/mod.rs"]
mod common;

use common::obj::{compare, posed_triangles, reversed, Names};
use mshconv_convert::{Axis, ErrorKind, Rotation};
use mshconv_obj::{msh_to_obj, obj_to_msh, ObjExportOptions, ObjImportOptions};

/// Positions: within 1e-6 (relative above 1). UVs: exact (c / 1024 is exact in
/// f32 and printed to round-trip). Normals: two i8 quantisations, 1/127 each.
const POSITION: f32 = 1e-6;
const UV: f32 = 0.0;
const NORMAL: f32 = 2.0 / 127.0 + 1e-6;

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(common::root().join("fixtures/small").join(rel)).unwrap()
}

/// One round trip; `Err` lists what differs.
fn round_trip(bytes: &[u8], options: &ObjExportOptions) -> Result<usize, Vec<String>> {
    let (files, report) = msh_to_obj(bytes, options).map_err(|e| vec![format!("export: {e}")])?;
    let mut expected = posed_triangles(
        bytes,
        options.lod as usize,
        options.group as usize,
        options.rotation,
        Names::AsExported,
    );
    if report.has("obj.winding_flipped") {
        expected = reversed(&expected);
    }
    let import = ObjImportOptions { axis: options.axis };
    let back = match obj_to_msh(&files.obj, Some(&files.mtl), &import) {
        Ok((back, _)) => back,
        Err(e) if expected.is_empty() && e.code() == "obj.no_faces" => return Ok(0),
        Err(e) => return Err(vec![format!("import: {e}")]),
    };
    let opened = msh::open(&back, msh::Mode::Strict)
        .map_err(|e| vec![format!("result is not a valid MSH: {e}")])?;
    let mut problems = Vec::new();
    // Every node comes back as a root with the identity rest pose.
    let keys = opened.view.anim_keys.unwrap_or(&[]);
    for (i, node) in opened.view.nodes.iter().enumerate() {
        let key = keys[node.fallback_key.get() as usize];
        if node.parent().is_some()
            || key.position() != [0.0; 3]
            || key.quat_raw() != [0, 0, 0, 32767]
        {
            problems.push(format!(
                "node {i} is not a root with the identity rest pose"
            ));
        }
        if (0..15).any(|k| k != 0 && node.slots[k].get() != 0xFFFF) {
            problems.push(format!("node {i} has geometry beyond LOD 0 group 0"));
        }
    }
    let actual = posed_triangles(&back, 0, 0, Rotation::Conjugate, Names::Raw);
    problems.extend(compare(&expected, &actual, POSITION, UV, NORMAL));
    if problems.is_empty() {
        Ok(expected.values().map(Vec::len).sum())
    } else {
        Err(problems)
    }
}

fn unsupported_code(name: &str) -> Option<&'static str> {
    match name {
        "models/m211_mtcheck.msh" => Some("obj.legacy_nodes"),
        "edge/terrain_land.msh" => Some("obj.terrain"),
        _ => None,
    }
}

#[test]
fn every_fixture_round_trips_its_posed_triangles() {
    let mut failures = Vec::new();
    let mut triangles = 0;
    for (name, bytes) in common::valid_fixtures() {
        let options = ObjExportOptions::default();
        if let Some(code) = unsupported_code(&name) {
            match msh_to_obj(&bytes, &options) {
                Err(e) if e.kind() == ErrorKind::Unsupported && e.code() == code => {}
                other => failures.push(format!(
                    "{name}: expected Unsupported {code}, got {other:?}"
                )),
            }
            continue;
        }
        match round_trip(&bytes, &options) {
            Ok(n) => triangles += n,
            Err(p) => failures.push(format!("{name}: {}", p.join("; "))),
        }
    }
    common::fail_if_any("msh -> obj -> msh", failures);
    assert!(
        triangles > 10_000,
        "only {triangles} triangles were compared"
    );
}

#[test]
fn other_lods_groups_axes_and_rotation_readings_round_trip() {
    let cases = [
        (
            "models/m012_walker.msh",
            1,
            2,
            Axis::YUp,
            Rotation::Conjugate,
        ),
        ("models/m012_walker.msh", 2, 4, Axis::ZUp, Rotation::Stored),
        ("models/m037_gate.msh", 0, 0, Axis::ZUp, Rotation::Conjugate),
        ("models/m037_gate.msh", 0, 0, Axis::YUp, Rotation::Stored),
        (
            "edge/quat_zero_and_nonunit.msh",
            0,
            0,
            Axis::YUp,
            Rotation::Stored,
        ),
        (
            "edge/empty_and_shared_slots.msh",
            0,
            1,
            Axis::YUp,
            Rotation::Conjugate,
        ),
    ];
    let mut failures = Vec::new();
    for (name, lod, group, axis, rotation) in cases {
        let options = ObjExportOptions {
            lod,
            group,
            axis,
            rotation,
            ..Default::default()
        };
        if let Err(p) = round_trip(&fixture(name), &options) {
            failures.push(format!(
                "{name} L{lod}G{group} {axis} {rotation:?}: {}",
                p.join("; ")
            ));
        }
    }
    common::fail_if_any("options", failures);
}

#[test]
fn the_chosen_lod_and_group_is_what_is_written() {
    // m012_walker's node 0 uses all 15 LOD/group slots, each with its own geometry.
    let bytes = fixture("models/m012_walker.msh");
    let mut seen = std::collections::HashSet::new();
    for lod in 0..3u8 {
        for group in 0..5u8 {
            let options = ObjExportOptions {
                lod,
                group,
                ..Default::default()
            };
            let (files, report) = msh_to_obj(&bytes, &options).unwrap();
            assert!(report.has("obj.slots_dropped"), "other slots are reported");
            let faces = files
                .obj
                .split(|&b| b == b'\n')
                .filter(|l| l.starts_with(b"f "))
                .count();
            let expected: usize = posed_triangles(
                &bytes,
                lod as usize,
                group as usize,
                Rotation::Conjugate,
                Names::AsExported,
            )
            .values()
            .map(Vec::len)
            .sum();
            assert_eq!(faces, expected, "L{lod}G{group}");
            seen.insert(files.obj);
        }
    }
    assert_eq!(seen.len(), 15, "each LOD/group gives a different OBJ");
}

#[test]
fn export_is_deterministic() {
    for (name, bytes) in common::valid_fixtures() {
        if unsupported_code(&name).is_some() {
            continue;
        }
        let options = ObjExportOptions::default();
        let (a, ra) = msh_to_obj(&bytes, &options).unwrap();
        let (b, rb) = msh_to_obj(&bytes, &options).unwrap();
        assert_eq!(a, b, "{name}: same input, same bytes");
        assert_eq!(ra, rb, "{name}: same report");
    }
}

#[test]
fn uv_v_is_written_as_stored_and_comes_back_exactly() {
    // The MSH's UVs are written unchanged (v not flipped to 1 - v): Res5 values
    // c / 1024 appear as they are in `vt`, and the import reads them as they are.
    let bytes = fixture("edge/uv_i16_limits.msh");
    let opened = msh::open(&bytes, msh::Mode::Strict).unwrap();
    let stored: std::collections::BTreeSet<[u32; 2]> = opened
        .view
        .uv0
        .unwrap()
        .iter()
        .map(|uv| uv.decode().map(f32::to_bits))
        .collect();
    let (files, _) = msh_to_obj(&bytes, &ObjExportOptions::default()).unwrap();
    let text = String::from_utf8(files.obj.clone()).unwrap();
    let written: std::collections::BTreeSet<[u32; 2]> = text
        .lines()
        .filter_map(|l| l.strip_prefix("vt "))
        .map(|l| {
            let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0].to_bits(), v[1].to_bits()]
        })
        .collect();
    assert!(!written.is_empty());
    assert!(
        written.is_subset(&stored),
        "every vt is a stored UV as it is"
    );
    let extremes = [-32768.0f32 / 1024.0, 32767.0 / 1024.0];
    assert!(
        written
            .iter()
            .any(|uv| extremes.contains(&f32::from_bits(uv[1]))),
        "the i16 limits appear unflipped in v"
    );
    round_trip(&bytes, &ObjExportOptions::default()).unwrap();
}

#[test]
fn positions_are_printed_to_round_trip_f32() {
    // Shortest representation that reads back as the same f32, including -0,
    // a subnormal and +-1e30.
    let bytes = fixture("edge/float_special_positions.msh");
    let (files, _) = msh_to_obj(
        &bytes,
        &ObjExportOptions {
            axis: Axis::ZUp,
            ..Default::default()
        },
    )
    .unwrap();
    let text = String::from_utf8(files.obj).unwrap();
    let written: Vec<[f32; 3]> = text
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect();
    let expected = posed_triangles(&bytes, 0, 0, Rotation::Conjugate, Names::AsExported);
    for tris in expected.values() {
        for corner in tris.iter().flatten() {
            assert!(
                written
                    .iter()
                    .any(|w| w.map(f32::to_bits) == corner.0.map(f32::to_bits)),
                "{:?} is written bit for bit",
                corner.0
            );
        }
    }
}

#[test]
fn names_and_materials_follow_the_gltf_naming() {
    let bytes = fixture("edge/node_names_odd.msh");
    let (files, _) = msh_to_obj(&bytes, &ObjExportOptions::default()).unwrap();
    let text = String::from_utf8(files.obj).unwrap();
    let opened = msh::open(&bytes, msh::Mode::Strict).unwrap();
    let raw: Vec<Option<&[u8]>> = (0..opened.view.nodes.len())
        .map(|i| opened.view.node_name(i))
        .collect();
    let gltf_names = mshconv_convert::names::node_names(&raw);
    let objects: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("o ")).collect();
    assert!(!objects.is_empty());
    for o in &objects {
        assert!(
            gltf_names.iter().any(|(n, _)| n == o),
            "{o:?} is a glTF node name"
        );
    }
    for l in text.lines().filter_map(|l| l.strip_prefix("usemtl ")) {
        assert!(mshconv_convert::names::material_index(l).is_some(), "{l}");
    }
    let mtl = String::from_utf8(files.mtl).unwrap();
    let used: std::collections::BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("usemtl "))
        .collect();
    let defined: std::collections::BTreeSet<&str> = mtl
        .lines()
        .filter_map(|l| l.strip_prefix("newmtl "))
        .collect();
    assert_eq!(used, defined, "the MTL defines exactly the materials used");
    assert!(mtl.lines().filter(|l| l.starts_with("Kd ")).count() == defined.len());
    assert!(text.contains(&format!("mtllib {}\n", files.mtl_name)));
}

#[test]
fn the_report_says_what_obj_cannot_hold() {
    let (_, report) = msh_to_obj(
        &fixture("models/m037_gate.msh"),
        &ObjExportOptions::default(),
    )
    .unwrap();
    assert!(report.has("obj.pose_baked"));
    let animated = common::valid_fixtures()
        .into_iter()
        .find(|(n, b)| {
            unsupported_code(n).is_none()
                && msh::open(b, msh::Mode::Strict).unwrap().view.is_animated()
        })
        .expect("an animated fixture");
    let (_, report) = msh_to_obj(&animated.1, &ObjExportOptions::default()).unwrap();
    assert!(report.has("obj.animation_dropped"), "{}", animated.0);
}

#[test]
fn bad_options_and_invalid_models_are_typed_errors() {
    let bytes = fixture("models/m252_wreck.msh");
    for options in [
        ObjExportOptions {
            lod: 3,
            ..Default::default()
        },
        ObjExportOptions {
            group: 5,
            ..Default::default()
        },
        ObjExportOptions {
            mtl_name: String::new(),
            ..Default::default()
        },
        ObjExportOptions {
            mtl_name: "a\nb.mtl".into(),
            ..Default::default()
        },
        ObjExportOptions {
            mtl_name: "../b.mtl".into(),
            ..Default::default()
        },
    ] {
        let e = msh_to_obj(&bytes, &options).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BadOption, "{options:?}");
    }
    let dir = common::root().join("fixtures/small/damaged");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "msh") {
            let bytes = std::fs::read(&path).unwrap();
            let e = msh_to_obj(&bytes, &ObjExportOptions::default()).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{}: {e}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 50);
}
