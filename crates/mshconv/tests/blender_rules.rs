//! Blender's measured rules (docs/BLENDER.md, "What Blender changes"), applied
//! to the glTF between `mshconv convert MODEL X.glb --game-dir G` and
//! `mshconv convert X.glb MODEL --game-dir G`, without Blender: a material
//! name used twice becomes `NAME.001`, an `extras` holding an integer of
//! 2^31 or more becomes one string, and a node rotation with w < 0 comes
//! back negated. The unedited trip must leave the game folder (or the model)
//! byte for byte (issue 40: classes 1 and 2, and `keys_negated`; the
//! real-Blender side is crates/python/tests_blender/test_wild.py and
//! scripts/soak-blender.sh).

mod common;

use common::{copy_tree, edit_glb, tree, BIN};
use mshconv_material::mat0::Mat0;
use mshconv_material::wear::{Wear, WearRow};
use nres::{OwnedArchive, WriteMode};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mshconv(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "mshconv {args:?}: {stderr}");
    stderr
}

/// Rewrites the payload of one entry of an NRes file in place.
fn rewrite_entry(file: &Path, entry: &str, edit: impl FnOnce(&[u8], u32) -> (Vec<u8>, u32)) {
    let bytes = std::fs::read(file).unwrap();
    let mut archive = OwnedArchive::parse(&bytes).unwrap();
    let e = archive
        .entries
        .iter_mut()
        .find(|e| e.name.as_bytes().eq_ignore_ascii_case(entry.as_bytes()))
        .unwrap_or_else(|| panic!("no {entry} in {}", file.display()));
    let (data, attr1) = edit(&e.data, e.attr1);
    e.data = data;
    e.attr1 = attr1;
    std::fs::write(file, archive.write(WriteMode::Canonical).unwrap()).unwrap();
}

/// Whether a JSON value holds an integer Blender cannot store as a property.
fn has_large_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) if n.is_f64() => false,
        Value::Number(n) => n
            .as_i64()
            .is_none_or(|i| !(-(1 << 31)..1 << 31).contains(&i)),
        Value::Array(a) => a.iter().any(has_large_integer),
        Value::Object(o) => o.values().any(has_large_integer),
        _ => false,
    }
}

/// Blender's rules on a glTF document: every `extras` with a large integer
/// becomes its text; a node rotation with w < 0 is negated (the same
/// rotation); a material name used before gets `.001`, `.002`...
fn as_blender_keeps(doc: &mut Value) {
    fn extras(v: &mut Value) {
        match v {
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    if k == "extras" && has_large_integer(x) {
                        *x = Value::String(x.to_string());
                    } else {
                        extras(x);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(extras),
            _ => {}
        }
    }
    extras(doc);
    for node in doc["nodes"].as_array_mut().into_iter().flatten() {
        if let Some(q) = node["rotation"].as_array_mut() {
            if q[3].as_f64().is_some_and(|w| w < 0.0) {
                for c in q.iter_mut() {
                    *c = Value::from(-c.as_f64().unwrap());
                }
            }
        }
    }
    let mut seen = std::collections::BTreeMap::<String, u32>::new();
    for m in doc["materials"].as_array_mut().into_iter().flatten() {
        let Some(name) = m["name"].as_str().map(str::to_string) else {
            continue;
        };
        let n = seen.entry(name.clone()).or_insert(0);
        if *n > 0 {
            m["name"] = Value::from(format!("{name}.{n:03}"));
        }
        *n += 1;
    }
}

/// The fixture game folder, edited by `prepare`, then TANK.MSH out to GLB
/// with its look, through Blender's rules, and back over its entry: the
/// folder must be as it was.
fn unedited_trip_keeps_the_folder(prepare: impl FnOnce(&Path)) {
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("game");
    copy_tree(&root().join("fixtures/small/game"), &game);
    prepare(&game);
    let before = tree(&game);
    let units = format!("{}:TANK.MSH", game.join("units.rlb").display());
    let g = game.display().to_string();
    let glb = tmp.path().join("tank.glb");
    mshconv(&["convert", &units, glb.to_str().unwrap(), "--game-dir", &g]);
    let blended = tmp.path().join("blender.glb");
    let mut lost = Vec::new();
    let kept = edit_glb(&std::fs::read(&glb).unwrap(), |doc| {
        as_blender_keeps(doc);
        for kind in ["materials", "images"] {
            for (i, x) in doc[kind].as_array().into_iter().flatten().enumerate() {
                if x["extras"].is_string() {
                    lost.push(format!("{kind}[{i}]"));
                }
            }
        }
    });
    assert!(
        lost.is_empty(),
        "extras Blender would keep as text: {lost:?}"
    );
    std::fs::write(&blended, kept).unwrap();
    let notes = mshconv(&[
        "convert",
        blended.to_str().unwrap(),
        &units,
        "--game-dir",
        &g,
    ]);
    let after = tree(&game);
    let changed: Vec<_> = after
        .iter()
        .filter(|(p, b)| before.get(*p) != Some(b))
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(
        changed.is_empty() && before.len() == after.len(),
        "changed or new: {changed:?}; notes: {notes}"
    );
}

#[test]
fn two_wear_rows_resolving_to_one_material_come_back_unchanged() {
    unedited_trip_keeps_the_folder(|game| {
        // Rows 0 and 1 name one material, rows 2 and 3 two missing ones
        // that both fall back to DEFAULT.
        rewrite_entry(&game.join("units.rlb"), "TANK.WEA", |_, a| {
            let rows = ["TANK_BODY", "tank_body", "MISSING1", "MISSING2"]
                .iter()
                .enumerate()
                .map(|(i, n)| WearRow::new(i.to_string(), *n))
                .collect();
            (Wear::new(rows).write().unwrap(), a)
        });
    });
}

#[test]
fn material_and_texture_fields_of_2p31_and_more_come_back_unchanged() {
    unedited_trip_keeps_the_folder(|game| {
        // TANK_BODY (version 4, row 0 of TANK.WEA): attr1 and metadata_d
        // past 2^31; its texture's unknown6 u32::MAX.
        rewrite_entry(&game.join("Material.lib"), "TANK_BODY", |data, _| {
            let mut m = Mat0::parse(data, 4).unwrap();
            m.metadata.d = Some(3_682_108_880);
            (m.write().unwrap(), 0x8000_0001)
        });
        rewrite_entry(&game.join("Textures.lib"), "TANK_BODY.0", |data, a| {
            let mut t = mshconv_material::Texm::parse(data).unwrap();
            t.unknown6 = u32::MAX;
            (t.write().unwrap(), a)
        });
    });
}

#[test]
fn a_static_node_stored_with_w_below_zero_comes_back_unchanged() {
    // m143_robot: one static node; its key's quaternion negated (the same
    // rotation, w < 0, which no fixture has).
    let tmp = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(root().join("fixtures/small/models/m143_robot.msh")).unwrap();
    let mut archive = OwnedArchive::parse(&bytes).unwrap();
    let keys = archive.entries.iter_mut().find(|e| e.type_id == 8).unwrap();
    for k in 0..4 {
        let at = 16 + 2 * k;
        let c = i16::from_le_bytes([keys.data[at], keys.data[at + 1]]);
        keys.data[at..at + 2].copy_from_slice(&(-c).to_le_bytes());
    }
    let w = i16::from_le_bytes([keys.data[22], keys.data[23]]);
    assert!(w < 0, "w {w}");
    let model = tmp.path().join("robot.msh");
    let original = archive.write(WriteMode::Canonical).unwrap();
    std::fs::write(&model, &original).unwrap();
    let glb = tmp.path().join("robot.glb");
    mshconv(&["convert", model.to_str().unwrap(), glb.to_str().unwrap()]);
    let blended = tmp.path().join("blender.glb");
    std::fs::write(
        &blended,
        edit_glb(&std::fs::read(&glb).unwrap(), as_blender_keeps),
    )
    .unwrap();
    mshconv(&[
        "convert",
        blended.to_str().unwrap(),
        model.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read(&model).unwrap() == original,
        "the model changed"
    );
}

/// The JSON and the BIN chunk of a GLB.
fn glb_parts(glb: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let doc = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    (doc, glb[20 + json_len + 8..].to_vec())
}

/// A GLB of `doc` and `bin`.
fn glb_of(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut json = serde_json::to_vec(doc).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + json.len() + 8 + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

/// Where vertex `v` of float accessor `accessor` starts in the BIN chunk.
fn element_at(doc: &Value, accessor: u64, v: usize) -> usize {
    let a = &doc["accessors"][accessor as usize];
    let view = &doc["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let stride = view["byteStride"].as_u64().unwrap_or(12) as usize;
    view["byteOffset"].as_u64().unwrap_or(0) as usize
        + a["byteOffset"].as_u64().unwrap_or(0) as usize
        + v * stride
}

#[test]
fn normals_blender_writes_as_nan_come_back_unchanged() {
    // Blender writes NaN normals where coordinates near 1e19 and beyond
    // overflow its face normals (the soak's `nan_normals`): the original's
    // normals are kept, and nothing else changes.
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read(root().join("fixtures/small/models/m242_robot.msh")).unwrap();
    let model = tmp.path().join("robot.msh");
    std::fs::write(&model, &original).unwrap();
    let glb = tmp.path().join("robot.glb");
    mshconv(&["convert", model.to_str().unwrap(), glb.to_str().unwrap()]);
    let (doc, mut bin) = glb_parts(&std::fs::read(&glb).unwrap());
    let normals = doc["meshes"][0]["primitives"][0]["attributes"]["NORMAL"]
        .as_u64()
        .unwrap();
    for v in 0..3 {
        let at = element_at(&doc, normals, v);
        for k in 0..3 {
            bin[at + 4 * k..at + 4 * k + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        }
    }
    let blended = tmp.path().join("blender.glb");
    std::fs::write(&blended, glb_of(&doc, &bin)).unwrap();
    let notes = mshconv(&[
        "convert",
        blended.to_str().unwrap(),
        model.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read(&model).unwrap() == original,
        "the model changed: {notes}"
    );
    assert!(notes.contains("import.original_kept"), "{notes}");
}

#[test]
fn a_foreign_gltf_with_nan_normals_gets_its_faces_normal_with_a_note() {
    // Two triangles in the glTF's XY plane (facing +Z), vertex 1's normal
    // NaN, vertex 3's infinite; the others lean to +X. No mshconv extras.
    let tmp = tempfile::tempdir().unwrap();
    let positions: [[f32; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
    ];
    let lean = [0.6f32, 0.0, 0.8];
    let normals = [lean, [f32::NAN; 3], lean, [0.0, f32::INFINITY, 0.0]];
    let mut bin = Vec::new();
    for p in positions.iter().chain(&normals) {
        for c in p {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 1, 3, 2] {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": "plate"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2}]}],
        "buffers": [{"byteLength": 108}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 48},
            {"buffer": 0, "byteOffset": 96, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ]
    });
    let glb = tmp.path().join("plate.glb");
    std::fs::write(&glb, glb_of(&doc, &bin)).unwrap();
    let out = tmp.path().join("plate.msh");
    let notes = mshconv(&["convert", glb.to_str().unwrap(), out.to_str().unwrap()]);
    assert!(
        notes.contains("note[import.normals_not_finite]: 2 vertex normals"),
        "{notes}"
    );
    let m = msh::Model::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    // The game's frame (Y up in glTF): glTF (x, y, z) is the game's (x, -z, y).
    let packed: Vec<[i8; 3]> = m.normals.iter().map(|n| [n.0[0], n.0[1], n.0[2]]).collect();
    let by_position = |p: [f32; 3]| {
        let v = m
            .positions
            .iter()
            .position(|q| q.map(|c| c.get()) == p)
            .unwrap();
        packed[v]
    };
    assert_eq!(
        by_position([1.0, -0.0, 0.0]),
        [0, -127, 0],
        "vertex 1: the face's normal"
    );
    assert_eq!(
        by_position([1.0, 0.0, 1.0]),
        [0, -127, 0],
        "vertex 3: the face's normal"
    );
    let leaning = [
        (0.6f32 * 127.0).round() as i8,
        (0.8f32 * -127.0).round() as i8,
        0,
    ];
    assert_eq!(
        by_position([0.0, 0.0, 0.0]),
        leaning,
        "vertex 0 keeps its own"
    );
}
