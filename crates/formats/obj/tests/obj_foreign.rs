//! OBJ written by other tools (committed under fixtures/foreign/obj/, made by
//! tools/blender/obj_fixtures.py and tools/assimp/obj_fixtures.sh; neither tool
//! is needed here) and the import's naming and material rules.

#[path = "../../gltf/tests/common/mod.rs"]
mod common;

use common::obj::{compare, posed_triangles, Names};
use mshconv_convert::{Axis, Rotation};
use mshconv_obj::to_scene;
use mshconv_obj::{obj_to_msh, ObjImportOptions};
use std::collections::BTreeMap;

fn foreign(name: &str) -> Vec<u8> {
    let path = common::root().join("fixtures/foreign/obj").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Triangles a polygon file should give, counted from its text alone:
/// `(object or group name, usemtl name) -> sum of (corners - 2)`. Objects are
/// `o` when the file has any, else `g`; the material state carries across objects.
fn polygon_counts(text: &str) -> BTreeMap<(String, String), usize> {
    let by_o = text.lines().any(|l| l.starts_with("o "));
    let (mut node, mut material) = (String::new(), String::new());
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("o") if by_o => node = line[2..].trim().to_string(),
            Some("g") if !by_o => node = words.collect::<Vec<_>>().join(" "),
            Some("usemtl") => material = line[7..].trim().to_string(),
            Some("f") => {
                *out.entry((node.clone(), material.clone())).or_insert(0) += words.count() - 2
            }
            _ => {}
        }
    }
    out
}

/// `(Res10 name, material) -> triangles` of an imported model (all at LOD 0 group 0).
fn triangle_counts(msh: &[u8]) -> BTreeMap<(String, u16), usize> {
    posed_triangles(msh, 0, 0, Rotation::Conjugate, Names::Raw)
        .into_iter()
        .map(|((name, m), t)| ((String::from_utf8(name).unwrap(), m), t.len()))
        .collect()
}

/// The polygon counts with names and materials mapped as the importer must.
fn expected_counts(text: &str, materials: &[(&str, u16)]) -> BTreeMap<(String, u16), usize> {
    let mut out = BTreeMap::new();
    for ((node, material), n) in polygon_counts(text) {
        let name = mshconv_convert::names::node_name_from_gltf(&node).to_string();
        let index = materials
            .iter()
            .find(|(m, _)| *m == material)
            .unwrap_or_else(|| panic!("material {material:?} not in the test's table"))
            .1;
        *out.entry((name, index)).or_insert(0) += n;
    }
    out
}

fn area(msh: &[u8], node: &str, material: u16) -> f64 {
    posed_triangles(msh, 0, 0, Rotation::Conjugate, Names::Raw)
        [&(node.as_bytes().to_vec(), material)]
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|c| c.0.map(f64::from));
            let (u, v) = (
                [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
            );
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()
        })
        .sum()
}

#[test]
fn blender_scene_imports_with_names_materials_and_triangle_counts() {
    let obj = foreign("blender_scene.obj");
    let mtl = foreign("blender_scene.mtl");
    let (msh, report) = obj_to_msh(&obj, Some(&mtl), &ObjImportOptions::default()).unwrap();
    msh::open(&msh, msh::Mode::Strict).expect("a valid MSH");
    // mat3 -> 3 and mat0 -> 0 by name; Steel gets the lowest free index, 1, with a note.
    let notes: Vec<&str> = report
        .notes
        .iter()
        .filter(|n| n.code == "obj.material_assigned")
        .map(|n| n.message.as_str())
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("\"Steel\"") && notes[0].ends_with("MSH material 1"),
        "{}",
        notes[0]
    );
    assert!(
        !report.has("obj.material_undefined"),
        "every material is in the MTL"
    );
    let text = String::from_utf8(obj).unwrap();
    let expected = expected_counts(&text, &[("mat3", 3), ("mat0", 0), ("Steel", 1)]);
    assert_eq!(triangle_counts(&msh), expected);
    // Names: `Antenna#4` maps back to `Antenna`, Blender's `Hull.001` to `Hull`.
    let names: Vec<String> = expected.keys().map(|k| k.0.clone()).collect();
    assert!(
        names.contains(&"Antenna".to_string())
            && !names.iter().any(|n| n.contains('#') || n.contains('.'))
    );
    let opened = msh::open(&msh, msh::Mode::Strict).unwrap();
    let hulls = (0..opened.view.nodes.len())
        .filter(|&i| opened.view.node_name(i) == Some(b"Hull"))
        .count();
    assert_eq!(hulls, 2, "Hull and Hull.001 are two nodes named Hull");
    // The concave L-shaped 6-gon (area 3) is cut without overlap.
    assert!((area(&msh, "Antenna", 0) - 3.0).abs() < 1e-5);
    // Blender's Z up is the game's Z up: the turret stands at Blender z 2..2.6.
    let turret =
        &posed_triangles(&msh, 0, 0, Rotation::Conjugate, Names::Raw)[&(b"Turret".to_vec(), 1)];
    for p in turret.iter().flatten().map(|c| c.0) {
        assert!((1.99999..=2.60001).contains(&p[2]), "{p:?}");
    }
}

#[test]
fn assimp_scene_imports_groups_as_nodes() {
    // assimp writes one `g` per mesh (and names a second mesh of an object after
    // its material), no `o`: each group becomes a node.
    let obj = foreign("assimp_scene.obj");
    let mtl = foreign("assimp_scene.mtl");
    let (msh, report) = obj_to_msh(&obj, Some(&mtl), &ObjImportOptions::default()).unwrap();
    msh::open(&msh, msh::Mode::Strict).expect("a valid MSH");
    let text = String::from_utf8(obj).unwrap();
    let expected = expected_counts(&text, &[("mat3", 3), ("mat0", 0), ("Steel", 1)]);
    assert_eq!(triangle_counts(&msh), expected);
    let names: std::collections::BTreeSet<String> = expected.keys().map(|k| k.0.clone()).collect();
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["Antenna", "Hull", "Steel", "Turret", "mat3"]
    );
    assert!(report.has("obj.material_assigned"));
    assert!((area(&msh, "Antenna", 0) - 3.0).abs() < 1e-5);
}

#[test]
fn our_obj_through_blender_comes_back_with_its_names_materials_and_triangles() {
    // tools/blender/obj_fixtures.py imported our export of m277_turret into
    // Blender and exported it again, all defaults.
    let source =
        std::fs::read(common::root().join("fixtures/small/models/m277_turret.msh")).unwrap();
    let obj = foreign("blender_round_trip.obj");
    let mtl = foreign("blender_round_trip.mtl");
    let (msh, report) = obj_to_msh(&obj, Some(&mtl), &ObjImportOptions::default()).unwrap();
    assert!(!report.has("obj.material_assigned"), "every name is mat<k>");
    msh::open(&msh, msh::Mode::Strict).expect("a valid MSH");
    let expected = posed_triangles(&source, 0, 0, Rotation::Conjugate, Names::AsExported);
    let actual = posed_triangles(&msh, 0, 0, Rotation::Conjugate, Names::Raw);
    // Blender writes 6 decimals (positions within 2e-6 relative) and 4 for normals.
    let problems = compare(&expected, &actual, 2e-6, 0.0, 2.0 / 127.0 + 2e-4);
    assert!(
        problems.is_empty(),
        "{}\n(if fixtures/small changed, regenerate: cargo run -p mshconv-obj --example obj_export -- fixtures/small/models/m277_turret.msh /tmp/m277_turret.obj && .venv-blender/bin/python tools/blender/obj_fixtures.py /tmp/m277_turret.obj)",
        problems.join("\n")
    );
}

fn scene(text: &str) -> (mshconv_convert::scene::SceneModel, mshconv_convert::Report) {
    to_scene(text.as_bytes(), None, &ObjImportOptions::default()).unwrap()
}

const QUAD: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

#[test]
fn objects_win_over_groups_and_groups_merge_by_name() {
    let (s, _) = scene(&format!(
        "{QUAD}o Hull\ng Hull_Steel\nf 1 2 3\no Turret\nf 1 3 4\n"
    ));
    let names: Vec<_> = s.nodes.iter().map(|n| n.name.clone().unwrap()).collect();
    assert_eq!(names, [b"Hull".to_vec(), b"Turret".to_vec()]);
    let (s, _) = scene(&format!("{QUAD}g a\nf 1 2 3\ng b\nf 1 3 4\ng a\nf 2 3 4\n"));
    let counts: Vec<_> = s
        .nodes
        .iter()
        .map(|n| {
            (
                n.name.clone().unwrap(),
                n.slots[0].batches[0].triangles.len(),
            )
        })
        .collect();
    assert_eq!(counts, [(b"a".to_vec(), 2), (b"b".to_vec(), 1)]);
    // Every node is a root with the identity rest pose, geometry at LOD 0 group 0.
    for n in &s.nodes {
        assert_eq!(
            (n.parent, n.translation, n.rotation),
            (None, [0.0; 3], [0.0, 0.0, 0.0, 1.0])
        );
        assert_eq!((n.slots.len(), n.slots[0].lod, n.slots[0].group), (1, 0, 0));
        assert!(n.track.is_none());
    }
}

#[test]
fn index_suffixes_are_removed_and_empty_names_are_unnamed() {
    let (s, _) = scene(&format!(
        "{QUAD}f 1 2 3\no wheel#12\nf 1 3 4\no #3\nf 2 3 4\no gun#2#5.001\nf 1 2 4\n"
    ));
    let names: Vec<_> = s.nodes.iter().map(|n| n.name.clone()).collect();
    assert_eq!(
        names,
        [None, Some(b"wheel".to_vec()), None, Some(b"gun#2".to_vec())]
    );
}

#[test]
fn materials_map_by_name_then_take_free_indices_in_order_of_appearance() {
    let text = format!(
        "{QUAD}f 1 2 3\nusemtl Steel\nf 1 3 4\nusemtl mat0\nf 2 3 4\nusemtl Glass\nf 1 2 4\nusemtl mat2.001\nf 1 2 3\nusemtl Unused\n"
    );
    let (s, report) = scene(&text);
    let materials: Vec<u16> = s.nodes[0].slots[0]
        .batches
        .iter()
        .map(|b| b.material)
        .collect();
    // mat0 -> 0 and mat2.001 -> 2 are taken; no material -> 1, Steel -> 3, Glass -> 4.
    assert_eq!(materials, [1, 3, 0, 4, 2]);
    let assigned: Vec<&str> = report
        .notes
        .iter()
        .filter(|n| n.code == "obj.material_assigned")
        .map(|n| n.message.as_str())
        .collect();
    assert_eq!(assigned.len(), 3, "{assigned:?}");
    assert!(
        assigned[0].starts_with("faces without `usemtl`") && assigned[0].ends_with("material 1")
    );
    assert!(assigned[1].contains("\"Steel\"") && assigned[1].ends_with("material 3"));
    assert!(assigned[2].contains("\"Glass\"") && assigned[2].ends_with("material 4"));
    // With an MTL, names it does not define are reported.
    let (_, report) = to_scene(
        text.as_bytes(),
        Some(b"newmtl Steel\nnewmtl mat0\n"),
        &ObjImportOptions::default(),
    )
    .unwrap();
    let undefined = report
        .notes
        .iter()
        .filter(|n| n.code == "obj.material_undefined")
        .count();
    assert_eq!(undefined, 2, "Glass and mat2.001");
}

#[test]
fn the_axis_option_is_undone_exactly() {
    let text = "v 1 2 3\nv 4 5 6\nv 7 8 9.5\nvn 0 1 0\nf 1//1 2//1 3//1\n";
    let (y, _) = to_scene(text.as_bytes(), None, &ObjImportOptions { axis: Axis::YUp }).unwrap();
    let (z, _) = to_scene(text.as_bytes(), None, &ObjImportOptions { axis: Axis::ZUp }).unwrap();
    let (by, bz) = (
        &y.nodes[0].slots[0].batches[0],
        &z.nodes[0].slots[0].batches[0],
    );
    assert_eq!(bz.positions[0], [1.0, 2.0, 3.0]);
    assert_eq!(
        by.positions[0],
        [1.0, -3.0, 2.0],
        "OBJ (x, y, z) Y-up is game (x, -z, y)"
    );
    assert_eq!(
        by.normals.as_ref().unwrap()[0],
        [0.0, 0.0, 1.0],
        "OBJ +Y is game up"
    );
}

#[test]
fn missing_uvs_and_normals_are_none_and_partial_ones_are_reported() {
    let (s, report) = scene(&format!("{QUAD}f 1 2 3 4\n"));
    let b = &s.nodes[0].slots[0].batches[0];
    assert!(b.uv0.is_none() && b.normals.is_none() && b.colors.is_none());
    assert_eq!(b.triangles.len(), 2);
    assert!(!report.has("obj.partial_uvs"));
    let (s, report) = scene(&format!(
        "{QUAD}vt 0.25 0.5\nvn 0 0 2\nf 1/1/1 2/1/1 3//1\n"
    ));
    let b = &s.nodes[0].slots[0].batches[0];
    assert_eq!(
        b.uv0.as_ref().unwrap(),
        &[[0.25, 0.5], [0.25, 0.5], [0.0, 0.0]]
    );
    assert_eq!(
        b.normals.as_ref().unwrap()[0],
        [0.0, -1.0, 0.0],
        "normalised, axis undone"
    );
    assert!(report.has("obj.partial_uvs"));
    let (s, report) = scene(&format!("{QUAD}vn 0 0 1\nf 1//1 2 3\n"));
    assert!(s.nodes[0].slots[0].batches[0].normals.is_none());
    assert!(report.has("obj.partial_normals"));
}

#[test]
fn vertex_colours_become_colours() {
    let (s, _) = scene("v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 0.5\nf 1 2 3\n");
    let b = &s.nodes[0].slots[0].batches[0];
    assert_eq!(
        b.colors.as_ref().unwrap(),
        &[[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 128, 255]]
    );
}

#[test]
fn corners_are_shared_only_when_all_their_indices_match() {
    let (s, _) = scene(&format!(
        "{QUAD}vt 0 0\nvt 1 1\nf 1/1 2/1 3/1\nf 1/1 3/1 4/2\nf 1/2 2/1 3/1\n"
    ));
    let b = &s.nodes[0].slots[0].batches[0];
    // Distinct (v, vt) pairs: 1/1 2/1 3/1 4/2 1/2.
    assert_eq!(b.positions.len(), 5);
    assert_eq!(b.triangles, [[0, 1, 2], [0, 2, 3], [4, 1, 2]]);
}
