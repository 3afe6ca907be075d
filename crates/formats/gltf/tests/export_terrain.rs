//! Terrain models (FORMAT.md section 5) in glTF: the geometry is shown (each
//! used slot a mesh of its Res21 triangles over Res3, one primitive per primary
//! material), the way back stays exact, an edited terrain is refused with a
//! code, and a damaged one exports without a panic.

mod common;

use mshconv_convert::Axis;
use mshconv_gltf::ImportOptions;
use mshconv_gltf::{gltf_to_msh, msh_to_gltf};
use mshconv_gltf::{ExportOptions, GltfFormat};
use std::collections::BTreeMap;

const RES1: u32 = 1;
const RES2: u32 = 2;
const RES3: u32 = 3;
const RES21: u32 = 21;
const HEADER: usize = 0x8C;

fn fixture() -> Vec<u8> {
    std::fs::read(common::root().join("fixtures/small/edge/terrain_land.msh")).unwrap()
}

fn no_files(_: &str) -> Option<Vec<u8>> {
    None
}

fn raw(bytes: &[u8], type_id: u32) -> Vec<u8> {
    let m = msh::Model::from_bytes(bytes).unwrap();
    m.raw(type_id).unwrap().to_vec()
}

/// The terrain with one raw table changed.
fn with_raw(bytes: &[u8], type_id: u32, edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut m = msh::Model::from_bytes(bytes).unwrap();
    let e = m.entries.iter_mut().find(|e| e.type_id == type_id).unwrap();
    edit(e.raw.as_mut().unwrap());
    m.to_bytes().unwrap()
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

/// `(tri_start, tri_count)` of every slot.
fn slots(bytes: &[u8]) -> Vec<(usize, usize)> {
    raw(bytes, RES2)[HEADER..]
        .chunks_exact(68)
        .map(|s| (u16_at(s, 0) as usize, u16_at(s, 2) as usize))
        .collect()
}

/// Per mesh (by its slot number): per material name, the triangles as position triples.
type Shown = BTreeMap<usize, BTreeMap<String, Vec<[[f32; 3]; 3]>>>;

fn shown(glb: &[u8]) -> Shown {
    let g = gltf::Gltf::from_slice(glb).unwrap();
    let blob = g.blob.as_deref().unwrap();
    let data = |a: &gltf::Accessor<'_>| -> Vec<u8> {
        let v = a.view().unwrap();
        let start = v.offset() + a.offset();
        assert!(v.stride().is_none_or(|s| s == a.size()));
        blob[start..start + a.count() * a.size()].to_vec()
    };
    let mut out = Shown::new();
    for mesh in g.document.meshes() {
        let slot: usize = mesh
            .name()
            .unwrap()
            .strip_prefix("slot")
            .unwrap()
            .parse()
            .unwrap();
        let by_material = out.entry(slot).or_default();
        for p in mesh.primitives() {
            let pos: Vec<[f32; 3]> = data(&p.get(&gltf::Semantic::Positions).unwrap())
                .chunks_exact(12)
                .map(|c| {
                    [0, 4, 8].map(|o| f32::from_le_bytes([c[o], c[o + 1], c[o + 2], c[o + 3]]))
                })
                .collect();
            let ia = p.indices().unwrap();
            let idx: Vec<usize> = match ia.data_type() {
                gltf::accessor::DataType::U16 => data(&ia)
                    .chunks_exact(2)
                    .map(|c| u16_at(c, 0) as usize)
                    .collect(),
                _ => data(&ia)
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
                    .collect(),
            };
            let name = p.material().name().unwrap().to_string();
            by_material.entry(name).or_default().extend(
                idx.chunks_exact(3)
                    .map(|t| [pos[t[0]], pos[t[1]], pos[t[2]]]),
            );
        }
    }
    out
}

/// What the export should show (Z up, the game's frame): per used slot, per
/// primary material, the Res21 triangles over Res3 that are in range.
fn expected(bytes: &[u8]) -> Shown {
    let res3 = raw(bytes, RES3);
    let pos: Vec<[f32; 3]> = res3
        .chunks_exact(12)
        .map(|c| [0, 4, 8].map(|o| f32::from_le_bytes([c[o], c[o + 1], c[o + 2], c[o + 3]])))
        .collect();
    let tris = raw(bytes, RES21);
    let tris: Vec<&[u8]> = tris.chunks_exact(28).collect();
    let used: std::collections::BTreeSet<usize> = raw(bytes, RES1)
        .chunks_exact(38)
        .flat_map(|n| (0..15).map(move |k| u16_at(n, 8 + 2 * k) as usize))
        .collect();
    let mut out = Shown::new();
    for (slot, (start, count)) in slots(bytes).into_iter().enumerate() {
        if !used.contains(&slot) {
            continue;
        }
        for t in tris.iter().skip(start).take(count) {
            let v = [8, 10, 12].map(|o| u16_at(t, o) as usize);
            if v.iter().any(|&v| v >= pos.len()) {
                continue;
            }
            out.entry(slot)
                .or_default()
                .entry(format!("mat{}", t[4]))
                .or_default()
                .push(v.map(|v| pos[v]));
        }
    }
    out
}

fn z_up(format: GltfFormat) -> ExportOptions {
    ExportOptions {
        axis: Axis::ZUp,
        format,
        ..Default::default()
    }
}

#[test]
fn terrain_geometry_is_every_slot_range_of_res21_over_res3() {
    let bytes = fixture();
    let (glb, report) = msh_to_gltf(&bytes, &z_up(GltfFormat::Glb)).unwrap();
    assert!(report.has("export.terrain"));
    assert!(!report.has("export.terrain_skipped"), "{:?}", report.notes);
    let shown = shown(&glb);
    // 256 tiles, two LODs each: 512 slots, every one a mesh.
    assert_eq!(shown.len(), 512);
    for (slot, (_, count)) in slots(&bytes).into_iter().enumerate() {
        let n: usize = shown[&slot].values().map(Vec::len).sum();
        assert_eq!(n, count, "slot {slot}: triangles shown vs its Res21 range");
    }
    assert_eq!(shown, expected(&bytes));

    // The chosen LOD is shown, the other hidden; tiles carry their names.
    let g = gltf::Gltf::from_slice(&glb).unwrap();
    let nodes: Vec<_> = g.document.nodes().collect();
    assert_eq!(nodes.len(), 256 * 3);
    assert_eq!(nodes[0].name(), Some("tile_00_00"));
    let kids: Vec<_> = nodes[0].children().collect();
    assert_eq!(kids.len(), 2);
    assert_eq!(kids[0].name(), Some("tile_00_00|L0G0"));
    assert_eq!(kids[0].transform().decomposed().2, [1.0; 3]);
    assert_eq!(kids[1].name(), Some("tile_00_00|L1G0"));
    assert_eq!(kids[1].transform().decomposed().2, [0.0; 3]);
    let (glb1, _) = msh_to_gltf(
        &bytes,
        &ExportOptions {
            lod: 1,
            ..z_up(GltfFormat::Glb)
        },
    )
    .unwrap();
    let g1 = gltf::Gltf::from_slice(&glb1).unwrap();
    let kids: Vec<_> = g1.document.nodes().next().unwrap().children().collect();
    assert_eq!(kids[0].transform().decomposed().2, [0.0; 3]);
    assert_eq!(kids[1].transform().decomposed().2, [1.0; 3]);
    let materials: Vec<_> = g.document.materials().map(|m| m.name().unwrap()).collect();
    assert_eq!(materials, ["mat0", "mat1", "mat2", "mat3", "mat4"]);
}

#[test]
fn terrain_round_trips_exactly_whatever_the_options() {
    let bytes = fixture();
    for format in [GltfFormat::Glb, GltfFormat::Gltf] {
        for options in [
            ExportOptions {
                format,
                ..Default::default()
            },
            ExportOptions {
                lod: 1,
                group: 2,
                ..z_up(format)
            },
        ] {
            let (gltf, _) = msh_to_gltf(&bytes, &options).unwrap();
            for import in [
                ImportOptions::default(),
                ImportOptions {
                    axis: Some(Axis::ZUp),
                    fps: Some(30.0),
                    ..Default::default()
                },
            ] {
                let (back, _) = gltf_to_msh(&gltf, &import, &no_files).unwrap();
                assert!(
                    back == bytes,
                    "{options:?} / {import:?}: not the same bytes"
                );
            }
        }
    }
}

/// A `.gltf` export's JSON and its buffer (a data URI).
fn gltf_parts(bytes: &[u8]) -> (serde_json::Value, Vec<u8>) {
    use base64::Engine as _;
    let (text, _) = msh_to_gltf(bytes, &z_up(GltfFormat::Gltf)).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let uri = json["buffers"][0]["uri"].as_str().unwrap();
    let data = uri.split_once(',').unwrap().1;
    let bin = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    (json, bin)
}

fn with_bin(mut json: serde_json::Value, bin: &[u8]) -> Vec<u8> {
    use base64::Engine as _;
    json["buffers"][0]["uri"] = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bin)
    )
    .into();
    serde_json::to_vec(&json).unwrap()
}

#[test]
fn an_edited_terrain_is_refused_with_a_code() {
    let bytes = fixture();
    let (json, bin) = gltf_parts(&bytes);
    // Written back over the model it came from: that model is the original.
    let over = ImportOptions {
        original: Some(bytes.as_slice().into()),
        ..ImportOptions::default()
    };
    let refused = |gltf: Vec<u8>, what: &str| {
        let e = gltf_to_msh(&gltf, &over, &no_files)
            .err()
            .unwrap_or_else(|| panic!("{what}: imported"));
        assert_eq!(e.code(), "import.terrain_edited", "{what}: {e}");
        assert_eq!(e.kind(), mshconv_convert::ErrorKind::Unsupported, "{what}");
    };
    // Unedited, through the same JSON path: accepted.
    let (back, _) = gltf_to_msh(
        &with_bin(json.clone(), &bin),
        &Default::default(),
        &no_files,
    )
    .unwrap();
    assert!(back == bytes);

    // A vertex moved (the first position of the first primitive).
    let a = json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize;
    let view = json["accessors"][a]["bufferView"].as_u64().unwrap() as usize;
    let offset = json["bufferViews"][view]["byteOffset"]
        .as_u64()
        .unwrap_or(0) as usize;
    let mut moved = bin.clone();
    let z = f32::from_le_bytes(moved[offset + 8..offset + 12].try_into().unwrap()) + 1.0;
    moved[offset + 8..offset + 12].copy_from_slice(&z.to_le_bytes());
    refused(with_bin(json.clone(), &moved), "vertex moved");

    // A tile moved.
    let mut placed = json.clone();
    placed["nodes"][3]["translation"] = serde_json::json!([1.0, 2.0, 3.0]);
    refused(with_bin(placed, &bin), "tile moved");

    // A primitive deleted (the buffers stay as they were).
    let mut fewer = json.clone();
    fewer["meshes"][0]["primitives"] = serde_json::json!([]);
    fewer["meshes"].as_array_mut().unwrap()[0] = json["meshes"][1].clone();
    refused(with_bin(fewer, &bin), "mesh replaced");

    // Buffers rebuilt by another tool, the content unedited: the original
    // given (recognise/scene.rs); the content edited: refused.
    let mut grown = bin.clone();
    grown.extend_from_slice(&[0; 4]);
    let mut json2 = json.clone();
    json2["buffers"][0]["byteLength"] = grown.len().into();
    let (back, _) = gltf_to_msh(&with_bin(json2.clone(), &grown), &over, &no_files).unwrap();
    assert!(back == bytes, "buffer rebuilt, unedited");
    // Without the original: refused, saying so.
    let e = gltf_to_msh(
        &with_bin(json2.clone(), &grown),
        &Default::default(),
        &no_files,
    )
    .unwrap_err();
    assert_eq!(e.code(), "import.terrain_edited");
    assert!(e.to_string().contains("import.original_missing"), "{e}");
    let mut moved = grown.clone();
    let z = f32::from_le_bytes(moved[offset + 8..offset + 12].try_into().unwrap()) + 1.0;
    moved[offset + 8..offset + 12].copy_from_slice(&z.to_le_bytes());
    refused(with_bin(json2, &moved), "buffer rebuilt and a vertex moved");
}

/// A damaged terrain: a vertex index past Res3, a slot range past Res21's end,
/// a node slot past Res2, a fallback key past Res8, and Res10 cut short.
fn damaged() -> Vec<u8> {
    let bytes = fixture();
    let bytes = with_raw(&bytes, RES21, |t| {
        t[28 * 3 + 10..28 * 3 + 12].copy_from_slice(&0xFFF0u16.to_le_bytes());
    });
    let bytes = with_raw(&bytes, RES2, |s| {
        // The last slot runs 5 triangles past the end.
        let last = s.len() - 68;
        let count = u16_at(s, last + 2) + 5;
        s[last + 2..last + 4].copy_from_slice(&count.to_le_bytes());
    });
    let bytes = with_raw(&bytes, RES1, |n| {
        n[38 + 8 + 2 * 14..38 + 8 + 2 * 15].copy_from_slice(&0xFFF0u16.to_le_bytes());
        n[2 * 38 + 6..2 * 38 + 8].copy_from_slice(&0xFFF0u16.to_le_bytes());
    });
    with_raw(&bytes, 10, |names| names.truncate(names.len() / 2))
}

#[test]
fn a_damaged_terrain_exports_what_is_in_range_and_still_round_trips() {
    let bytes = damaged();
    let dir = tempfile::tempdir().unwrap();
    for format in [GltfFormat::Glb, GltfFormat::Gltf] {
        let (out, report) = msh_to_gltf(&bytes, &z_up(format)).unwrap();
        let note = report
            .notes
            .iter()
            .find(|n| n.code == "export.terrain_skipped")
            .unwrap_or_else(|| panic!("no export.terrain_skipped in {:?}", report.notes));
        for part in [
            "1 triangles with a vertex index past Res3",
            "5 triangles past the end of Res21",
            "1 node slot references past Res2",
            "1 nodes whose fallback key is past Res8",
        ] {
            assert!(note.message.contains(part), "{part}: {}", note.message);
        }
        if format == GltfFormat::Glb {
            let shown = shown(&out);
            assert_eq!(shown, expected(&bytes));
            let n: usize = shown[&0].values().map(Vec::len).sum();
            assert_eq!(n, slots(&bytes)[0].1 - 1, "the bad triangle is left out");
        }
        let (back, _) = gltf_to_msh(&out, &ImportOptions::default(), &no_files).unwrap();
        assert!(
            back == bytes,
            "{format:?}: the damaged tables come back as they were"
        );
        let ext = if format == GltfFormat::Glb {
            "glb"
        } else {
            "gltf"
        };
        std::fs::write(dir.path().join(format!("damaged_terrain.{ext}")), out).unwrap();
    }
    for r in common::validate_dir(dir.path()) {
        assert!(
            r.errors == 0 && r.warnings == 0,
            "{}: {:?}",
            r.file,
            r.messages
        );
    }
}

#[test]
fn corrupted_terrain_tables_never_panic() {
    let bytes = fixture();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut exported = 0;
    for round in 0..300 {
        let type_id = [RES1, RES2, RES3, RES21, 4, 5, 8, 10][round % 8];
        let r = next();
        let damaged = with_raw(&bytes, type_id, |t| {
            if t.is_empty() {
                return;
            }
            match r % 4 {
                // Cut at a random length (a partial record or fewer records).
                0 => t.truncate((r >> 8) as usize % t.len()),
                // Random bytes in a run.
                _ => {
                    let at = (r >> 8) as usize % t.len();
                    for k in 0..(1 + (r >> 40) as usize % 16).min(t.len() - at) {
                        t[at + k] = (next() >> 24) as u8;
                    }
                }
            }
        });
        // A typed error is fine; a panic fails the test.
        if let Ok((glb, _)) = msh_to_gltf(&damaged, &ExportOptions::default()) {
            exported += 1;
            let (back, _) = gltf_to_msh(&glb, &ImportOptions::default(), &no_files).unwrap();
            assert!(back == damaged, "round {round}: Res{type_id} damaged");
        }
    }
    assert!(exported > 200, "only {exported} exported");
}

#[test]
fn slots_sharing_all_of_res21_are_refused_as_for_standard_models() {
    let bytes = fixture();
    let tris = raw(&bytes, RES21).len() / 28;
    let shared = with_raw(&bytes, RES2, |s| {
        for slot in s[HEADER..].chunks_exact_mut(68) {
            slot[0..2].copy_from_slice(&0u16.to_le_bytes());
            slot[2..4].copy_from_slice(&(tris as u16).to_le_bytes());
        }
    });
    let e = msh_to_gltf(&shared, &ExportOptions::default()).unwrap_err();
    assert_eq!(e.code(), "export.ranges_overlap", "{e}");
}
