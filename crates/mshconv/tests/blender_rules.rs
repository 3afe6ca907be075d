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
