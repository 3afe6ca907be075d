//! Tier 3: glTF files made by real tools (Blender 4.2, the three.js
//! GLTFExporter, assimp; `fixtures/foreign/gltf`, made by `tools/foreign/`)
//! import into valid MSH whose geometry and animation match what the authoring
//! tool itself computes (the `*.ref.json` beside each file), and what the glTF
//! content means by the spec; plus side-car buffers, refused URIs, strips and
//! fans (skins and morph targets: `tests/import_skins.rs`).
//!
//! Tolerances (docs/GLTF.md, "Foreign glTF"): see the constants below.

mod common;

use common::gltf_sampler::{
    engine_world, normalize4, quat_diff, rotation_of, Evaluator, Quat, M34, V3,
};
use mshconv_convert::axes::Axes;
use mshconv_convert::{Axis, Report, Rotation};
use mshconv_gltf::gltf_to_msh;
use mshconv_gltf::ImportOptions;
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Vertex positions: `|a - b| <= tol * max(1, |b|)` per coordinate.
const POSITION_TOLERANCE: f64 = 1e-4;
/// World translation of animated nodes (model units, absolute).
const TRANSLATION_TOLERANCE: f64 = 2e-4;
/// World rotation: largest quaternion component difference, up to sign.
const ROTATION_TOLERANCE: f64 = 1e-4;

type Tri = [V3; 3];

fn dir() -> PathBuf {
    common::root().join("fixtures/foreign/gltf")
}

fn read(name: &str) -> Vec<u8> {
    let p = dir().join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn no_files(name: &str) -> Option<Vec<u8>> {
    panic!("the resolver must not be asked for {name:?}")
}

fn import(bytes: &[u8]) -> (Vec<u8>, Report) {
    gltf_to_msh(bytes, &ImportOptions::default(), &no_files).unwrap_or_else(|e| panic!("{e}"))
}

const AXES: Axes = Axes {
    axis: Axis::YUp,
    rotation: Rotation::Conjugate,
};

// ---------------------------------------------------------------- reference

#[derive(Deserialize)]
struct Reference {
    tool: String,
    fps: f64,
    nodes: BTreeMap<String, RefNode>,
    animated: BTreeMap<String, RefAnim>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RefNode {
    parent: Option<String>,
    /// World triangles at frame 0, 9 numbers each (glTF frame).
    triangles: Vec<Vec<f64>>,
    /// World polygons as authored (OBJ), 3 numbers per corner.
    polygons: Vec<Vec<f64>>,
    /// Material name per triangle (or polygon).
    materials: Vec<String>,
}

#[derive(Deserialize)]
struct RefAnim {
    frames: Vec<u32>,
    /// Key frames (Blender), where a non-sampled export is exact.
    #[serde(default)]
    keys: Vec<u32>,
    translation: Vec<V3>,
    rotation: Vec<Quat>,
}

fn reference(name: &str) -> Reference {
    serde_json::from_slice(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

// ---------------------------------------------------------------- the imported MSH

/// What the test reads back from an imported MSH, in glTF's frame.
struct Imported {
    names: Vec<String>,
    parents: Vec<Option<usize>>,
    /// Per node, its triangles (material, world corners) at frame 0.
    triangles: Vec<Vec<(u16, Tri)>>,
    /// World transforms (glTF frame) per frame, per node.
    world: Vec<Vec<M34>>,
    frame_count: u32,
}

fn open(bytes: &[u8]) -> Imported {
    let opened =
        msh::open(bytes, msh::Mode::Strict).expect("the imported model passes strict validation");
    let view = &opened.view;
    assert_eq!(view.kind, Some(msh::ModelKind::Standard));
    let n = view.nodes.len();
    let names = (0..n)
        .map(|i| String::from_utf8_lossy(view.node_name(i).unwrap_or(b"")).into_owned())
        .collect();
    let parents = view
        .nodes
        .iter()
        .map(|n| n.parent().map(usize::from))
        .collect();
    let world: Vec<Vec<M34>> = (0..=view.frame_count)
        .map(|f| engine_world(view, f))
        .collect();
    let at0 = msh::pose::world_transforms(view, 0.0, msh::pose::Rotation::Conjugate).unwrap();
    let mut triangles = vec![Vec::new(); n];
    for (i, node) in view.nodes.iter().enumerate() {
        for lod in 0..3 {
            for group in 0..5 {
                let Some(slot) = node.slot(lod, group) else {
                    continue;
                };
                assert_eq!(
                    (lod, group),
                    (0, 0),
                    "a foreign node's geometry goes to LOD 0 group 0"
                );
                for (material, t) in common::slot_triangles(view, slot) {
                    let corner = |v: usize| {
                        AXES.vec(at0[i].point(view.positions[v].map(|c| f64::from(c.get()))))
                    };
                    triangles[i].push((material, t.map(corner)));
                }
            }
        }
    }
    Imported {
        names,
        parents,
        triangles,
        world,
        frame_count: view.frame_count,
    }
}

impl Imported {
    fn node(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

// ---------------------------------------------------------------- math

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// Largest coordinate difference, relative above 1.
fn rel_diff(a: V3, b: V3) -> f64 {
    (0..3)
        .map(|k| (a[k] - b[k]).abs() / b[k].abs().max(1.0))
        .fold(0.0, f64::max)
}

fn abs_diff(a: V3, b: V3) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
}

fn translation_of(m: &M34) -> V3 {
    [m[0][3], m[1][3], m[2][3]]
}

// ---------------------------------------------------------------- glTF by the spec

/// World transforms of every named glTF node at each time, every animation
/// playing (the evaluator of `common/gltf_sampler.rs`, independent of the importer).
fn gltf_world(bytes: &[u8], times: &[f64]) -> Vec<BTreeMap<String, M34>> {
    let eval = Evaluator::new(bytes).unwrap();
    let all: Vec<usize> = (0..eval.animations.len()).collect();
    assert!(
        eval.disjoint(&all),
        "the test's sampler plays animations on disjoint nodes only"
    );
    times
        .iter()
        .map(|&t| {
            eval.world(&all, t)
                .into_iter()
                .zip(&eval.nodes)
                .filter_map(|(m, n)| n.name.clone().map(|name| (name, m)))
                .collect()
        })
        .collect()
}

// ---------------------------------------------------------------- checks

/// The MSH index each material name got: `mat<k>` is k, every other name the
/// index its `import.material_assigned` note gives.
fn material_map(report: &Report) -> BTreeMap<String, u16> {
    let mut map = BTreeMap::new();
    for n in report
        .notes
        .iter()
        .filter(|n| n.code == "import.material_assigned")
    {
        let name = n
            .message
            .split('"')
            .nth(1)
            .expect("the note quotes the material")
            .to_string();
        let index: u16 = n
            .message
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .expect("the note ends with the index");
        assert!(map.insert(name, index).is_none(), "{}", n.message);
    }
    map
}

fn expected_material(map: &BTreeMap<String, u16>, name: &str) -> u16 {
    if let Some(k) = name.strip_prefix("mat").and_then(|k| k.parse().ok()) {
        assert!(
            !map.contains_key(name),
            "{name} is an MSH index name, it needs no note"
        );
        return k;
    }
    *map.get(name)
        .unwrap_or_else(|| panic!("material {name:?} got no import.material_assigned note"))
}

/// Greedy order-independent matching of reference triangles to MSH triangles
/// (same material, same winding: corners compared under cyclic rotation).
fn match_triangles(
    what: &str,
    expected: &[(u16, Tri)],
    actual: &[(u16, Tri)],
    failures: &mut Vec<String>,
) -> f64 {
    if expected.len() != actual.len() {
        failures.push(format!(
            "{what}: {} triangles expected, {} imported",
            expected.len(),
            actual.len()
        ));
        return f64::INFINITY;
    }
    let mut used = vec![false; actual.len()];
    let mut worst = 0.0f64;
    for (m, e) in expected {
        let best = actual
            .iter()
            .enumerate()
            .filter(|(k, (am, _))| !used[*k] && am == m)
            .map(|(k, (_, a))| {
                let d = (0..3)
                    .map(|rot| {
                        (0..3)
                            .map(|c| rel_diff(a[(c + rot) % 3], e[c]))
                            .fold(0.0, f64::max)
                    })
                    .fold(f64::INFINITY, f64::min);
                (k, d)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match best {
            Some((k, d)) if d <= POSITION_TOLERANCE => {
                used[k] = true;
                worst = worst.max(d);
            }
            Some((_, d)) => failures.push(format!(
                "{what}: triangle {e:?} (material {m}) has no match; nearest is {d:e} away"
            )),
            None => failures.push(format!(
                "{what}: no imported triangle of material {m} is left for {e:?}"
            )),
        }
    }
    worst
}

/// Checks that the imported triangles tile each reference polygon: each uses
/// three corners of one polygon in its cyclic order (same winding), a polygon of
/// n corners gets n - 2 of them, and their areas add up to the polygon's (planar ones).
fn tile_polygons(
    what: &str,
    polygons: &[(u16, Vec<V3>)],
    actual: &[(u16, Tri)],
    failures: &mut Vec<String>,
) -> f64 {
    let mut count = vec![0usize; polygons.len()];
    let mut area = vec![0.0f64; polygons.len()];
    let mut worst = 0.0f64;
    for (m, t) in actual {
        let found = polygons.iter().enumerate().find_map(|(p, (pm, corners))| {
            if pm != m {
                return None;
            }
            let at: Vec<(usize, f64)> = t
                .iter()
                .filter_map(|c| {
                    corners
                        .iter()
                        .enumerate()
                        .map(|(k, pc)| (k, rel_diff(*c, *pc)))
                        .filter(|(_, d)| *d <= POSITION_TOLERANCE)
                        .min_by(|a, b| a.1.total_cmp(&b.1))
                })
                .collect();
            if at.len() != 3 {
                return None;
            }
            let n = corners.len();
            let (a, b, c) = (at[0].0, at[1].0, at[2].0);
            // Cyclic order a -> b -> c around the polygon.
            let ordered = (b + n - a) % n < (c + n - a) % n && a != b && b != c && a != c;
            ordered.then(|| (p, at.iter().map(|x| x.1).fold(0.0, f64::max)))
        });
        match found {
            Some((p, d)) => {
                count[p] += 1;
                area[p] += norm(cross(sub(t[1], t[0]), sub(t[2], t[0]))) / 2.0;
                worst = worst.max(d);
            }
            None => failures.push(format!(
                "{what}: triangle {t:?} (material {m}) is not part of any polygon"
            )),
        }
    }
    for (p, (_, corners)) in polygons.iter().enumerate() {
        let n = corners.len();
        if count[p] != n - 2 {
            failures.push(format!(
                "{what}: polygon {p} ({n} corners) got {} triangles",
                count[p]
            ));
        }
        // Newell's normal: twice the area vector of a planar polygon.
        let newell = (0..n).fold([0.0; 3], |acc, k| {
            let c = cross(corners[k], corners[(k + 1) % n]);
            [acc[0] + c[0], acc[1] + c[1], acc[2] + c[2]]
        });
        let unit = newell.map(|c| c / norm(newell));
        let planar = corners
            .iter()
            .all(|c| (dot(sub(*c, corners[0]), unit)).abs() < 1e-5);
        if planar && (area[p] - norm(newell) / 2.0).abs() > 1e-4 * area[p].max(1.0) {
            failures.push(format!(
                "{what}: polygon {p}'s triangles cover {} but it has area {}",
                area[p],
                norm(newell) / 2.0
            ));
        }
    }
    worst
}

/// Largest errors seen on one file.
#[derive(Default, Debug)]
struct Measured {
    position: f64,
    translation: f64,
    rotation: f64,
    spec_translation: f64,
    spec_rotation: f64,
    poses: usize,
}

struct Case {
    glb: &'static str,
    reference: &'static str,
    /// Parents as the tool wrote them (OBJ has no hierarchy).
    hierarchy: bool,
    /// Compare with the tool's poses only at key frames (a non-sampled export
    /// whose CUBICSPLINE tangents only approximate Blender's Bezier handles).
    keys_only: bool,
}

const CASES: [Case; 4] = [
    Case {
        glb: "blender_scene.glb",
        reference: "blender_scene.ref.json",
        hierarchy: true,
        keys_only: false,
    },
    Case {
        glb: "blender_scene_extras.glb",
        reference: "blender_scene.ref.json",
        hierarchy: true,
        keys_only: true,
    },
    Case {
        glb: "threejs_scene.glb",
        reference: "threejs_scene.ref.json",
        hierarchy: true,
        keys_only: false,
    },
    Case {
        glb: "assimp_scene.glb",
        reference: "assimp_scene.ref.json",
        hierarchy: false,
        keys_only: false,
    },
];

fn check(case: &Case, failures: &mut Vec<String>) -> (Measured, Report) {
    let glb = read(case.glb);
    let r = reference(case.reference);
    let (bytes, report) = import(&glb);
    let m = open(&bytes);
    let what = |s: &str| format!("{} ({}): {s}", case.glb, r.tool);
    let mut measured = Measured::default();
    let materials = material_map(&report);

    // Names and hierarchy.
    for (name, node) in &r.nodes {
        let Some(i) = m.node(name) else {
            failures.push(what(&format!(
                "node {name:?} is missing; MSH nodes are {:?}",
                m.names
            )));
            continue;
        };
        if case.hierarchy {
            let parent = m.parents[i].map(|p| m.names[p].clone());
            if parent != node.parent {
                failures.push(what(&format!(
                    "{name}: parent {parent:?}, expected {:?}",
                    node.parent
                )));
            }
        }
    }

    // Geometry at frame 0.
    let mut covered = BTreeSet::new();
    for (name, node) in &r.nodes {
        let Some(i) = m.node(name) else { continue };
        covered.insert(i);
        let actual = &m.triangles[i];
        if !node.triangles.is_empty() {
            let expected: Vec<(u16, Tri)> = node
                .triangles
                .iter()
                .zip(&node.materials)
                .map(|(t, mat)| {
                    (
                        expected_material(&materials, mat),
                        std::array::from_fn(|c| [t[3 * c], t[3 * c + 1], t[3 * c + 2]]),
                    )
                })
                .collect();
            let d = match_triangles(&what(name), &expected, actual, failures);
            measured.position = measured.position.max(d);
        } else if !node.polygons.is_empty() {
            let polygons: Vec<(u16, Vec<V3>)> = node
                .polygons
                .iter()
                .zip(&node.materials)
                .map(|(p, mat)| {
                    (
                        expected_material(&materials, mat),
                        p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
                    )
                })
                .collect();
            let d = tile_polygons(&what(name), &polygons, actual, failures);
            measured.position = measured.position.max(d);
        } else if !actual.is_empty() {
            failures.push(what(&format!(
                "{name} has no geometry in the reference but {} triangles",
                actual.len()
            )));
        }
    }
    for (i, t) in m.triangles.iter().enumerate() {
        if !covered.contains(&i) && !t.is_empty() {
            failures.push(what(&format!(
                "node {:?} has geometry the reference does not know",
                m.names[i]
            )));
        }
    }

    // Animation against the tool's own poses.
    for (name, a) in &r.animated {
        let Some(i) = m.node(name) else { continue };
        // A world pose is a key pose where the node and every animated ancestor are on a key.
        let mut on_keys: BTreeSet<u32> = a.keys.iter().copied().collect();
        let mut up = r.nodes.get(name).and_then(|n| n.parent.clone());
        while let Some(p) = up {
            if let Some(pa) = r.animated.get(&p) {
                on_keys.retain(|f| pa.keys.contains(f));
            }
            up = r.nodes.get(&p).and_then(|n| n.parent.clone());
        }
        for (k, &f) in a.frames.iter().enumerate() {
            if case.keys_only && !on_keys.contains(&f) {
                continue;
            }
            let Some(w) = m.world.get(f as usize).map(|w| w[i]) else {
                failures.push(what(&format!(
                    "frame {f} is past the timeline ({} frames)",
                    m.frame_count
                )));
                continue;
            };
            let dt = abs_diff(translation_of(&w), a.translation[k]);
            let dr = quat_diff(
                rotation_of(&w).expect("a rigid MSH node"),
                normalize4(a.rotation[k]),
            );
            measured.translation = measured.translation.max(dt);
            measured.rotation = measured.rotation.max(dr);
            measured.poses += 1;
            if dt > TRANSLATION_TOLERANCE || dr > ROTATION_TOLERANCE {
                failures.push(what(&format!(
                    "{name} at frame {f}: translation off by {dt:e}, rotation by {dr:e}"
                )));
            }
        }
    }

    // Every node at every integer frame against the glTF content sampled by the spec.
    let times: Vec<f64> = (0..=m.frame_count).map(|f| f64::from(f) / r.fps).collect();
    for (f, g) in gltf_world(&glb, &times).iter().enumerate() {
        for (i, name) in m.names.iter().enumerate() {
            let Some(gw) = g.get(name) else { continue };
            let w = &m.world[f][i];
            let dt = abs_diff(translation_of(w), translation_of(gw));
            measured.spec_translation = measured.spec_translation.max(dt);
            if dt > TRANSLATION_TOLERANCE {
                failures.push(what(&format!(
                    "{name} at frame {f}: translation off the glTF's by {dt:e}"
                )));
            }
            if let Some(gq) = rotation_of(gw) {
                let dr = quat_diff(rotation_of(w).unwrap(), gq);
                measured.spec_rotation = measured.spec_rotation.max(dr);
                if dr > ROTATION_TOLERANCE {
                    failures.push(what(&format!(
                        "{name} at frame {f}: rotation off the glTF's by {dr:e}"
                    )));
                }
            }
        }
    }
    (measured, report)
}

#[test]
fn foreign_files_import_with_geometry_and_animation_as_their_tools_compute_them() {
    let mut failures = Vec::new();
    for case in &CASES {
        let (measured, report) = check(case, &mut failures);
        eprintln!("{}: {measured:?}", case.glb);
        let mut expect = |ok: bool, what: &str| {
            if !ok {
                failures.push(format!("{}: {what}; notes {:?}", case.glb, report.notes));
            }
        };
        // Blender and three.js scenes scale nodes; the assimp file has no scale.
        let scaled = case.glb != "assimp_scene.glb";
        expect(
            report.has("import.scale_baked") == scaled,
            "import.scale_baked",
        );
        if case.reference != "assimp_scene.ref.json" {
            expect(measured.poses >= 6, "too few poses compared");
        }
        if case.glb.starts_with("blender") {
            // Blender writes one animation per object; they play together.
            expect(
                report.has("import.animations_merged"),
                "import.animations_merged",
            );
            expect(!report.has("import.clips"), "no import.clips");
        }
    }
    common::fail_if_any("foreign import", failures);
}

#[test]
fn materials_keep_msh_index_names_and_others_get_free_indices() {
    for (glb, names) in [
        ("blender_scene.glb", &["Steel", "Paint"][..]),
        ("threejs_scene.glb", &["Steel", "Paint"][..]),
        (
            "assimp_scene.glb",
            &["DefaultMaterial", "Paint", "Steel"][..],
        ),
    ] {
        let (_, report) = import(&read(glb));
        let map = material_map(&report);
        let got: BTreeSet<&str> = map.keys().map(String::as_str).collect();
        assert_eq!(
            got,
            names.iter().copied().collect(),
            "{glb}: {:?}",
            report.notes
        );
        let indices: BTreeSet<u16> = map.values().copied().collect();
        assert_eq!(
            indices.len(),
            map.len(),
            "{glb}: indices are distinct: {map:?}"
        );
        assert!(
            !indices.contains(&3),
            "{glb}: index 3 belongs to mat3: {map:?}"
        );
        // The lowest free indices, in the file's material order.
        assert_eq!(
            indices,
            (0..4).filter(|&k| k != 3).take(map.len()).collect(),
            "{glb}: {map:?}"
        );
    }
}

#[test]
fn quads_and_ngons_are_triangulated() {
    // Blender's Hull: 8 polygons (two concave hexagons, six quads) -> 20 triangles;
    // the antenna is one heptagon -> 5 triangles.
    let r = reference("blender_scene.ref.json");
    let m = open(&import(&read("blender_scene.glb")).0);
    for (name, tris) in [("Hull", 20), ("Antenna", 5), ("Turret", 28)] {
        assert_eq!(
            r.nodes[name].triangles.len(),
            tris,
            "{name} in the reference"
        );
        assert_eq!(
            m.triangles[m.node(name).unwrap()].len(),
            tris,
            "{name} imported"
        );
    }
}

// ---------------------------------------------------------------- .gltf with side-car buffers

/// Splits a GLB into its JSON (as a value) and BIN chunk.
fn split_glb(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let u32_at = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    assert_eq!(&glb[bin_at + 4..bin_at + 8], b"BIN\0");
    let bin = glb[bin_at + 8..bin_at + 8 + u32_at(bin_at)].to_vec();
    (json, bin)
}

fn with_uri(json: &serde_json::Value, uri: &str) -> Vec<u8> {
    let mut json = json.clone();
    json["buffers"][0]["uri"] = serde_json::Value::String(uri.to_string());
    serde_json::to_vec_pretty(&json).unwrap()
}

#[test]
fn gltf_with_a_side_car_buffer_imports_like_the_glb() {
    for glb_name in ["blender_scene.glb", "threejs_scene.glb"] {
        let glb = read(glb_name);
        let (json, bin) = split_glb(&glb);
        let folder = tempfile::tempdir().unwrap();
        let bin_name = glb_name.replace(".glb", ".bin");
        let gltf = with_uri(&json, &bin_name);
        std::fs::write(folder.path().join(&bin_name), &bin).unwrap();
        std::fs::write(folder.path().join("scene.gltf"), &gltf).unwrap();
        let asked = RefCell::new(Vec::new());
        let resolver = |name: &str| {
            asked.borrow_mut().push(name.to_string());
            std::fs::read(folder.path().join(name)).ok()
        };
        let text = std::fs::read(folder.path().join("scene.gltf")).unwrap();
        let (from_gltf, _) = gltf_to_msh(&text, &ImportOptions::default(), &resolver).unwrap();
        let (from_glb, _) = import(&glb);
        assert_eq!(
            from_gltf, from_glb,
            "{glb_name}: .gltf + .bin gives the GLB's model"
        );
        assert_eq!(
            asked.borrow().as_slice(),
            std::slice::from_ref(&bin_name),
            "{glb_name}: asked once, by plain name"
        );

        // A missing side-car file is a typed error, after one question.
        asked.borrow_mut().clear();
        let none = |name: &str| {
            asked.borrow_mut().push(name.to_string());
            None
        };
        let e = gltf_to_msh(&gltf, &ImportOptions::default(), &none).unwrap_err();
        assert_eq!(e.code(), "gltf.missing_buffer", "{e}");
        assert_eq!(asked.borrow().len(), 1);
    }
}

#[test]
fn buffer_uris_outside_the_folder_are_refused_without_asking_the_resolver() {
    let (json, _) = split_glb(&read("threejs_scene.glb"));
    for uri in [
        "../x.bin",
        "/etc/passwd",
        "http://example.com/x.bin",
        "https://example.com/x.bin",
        "file:///etc/passwd",
        "sub/x.bin",
        "..%2Fx.bin",
        "%2Fetc%2Fpasswd",
        "C:\\x.bin",
        "\\\\server\\share\\x.bin",
        "..",
        ".hidden.bin",
    ] {
        let calls = RefCell::new(0usize);
        let resolver = |_: &str| {
            *calls.borrow_mut() += 1;
            Some(Vec::new())
        };
        let e = gltf_to_msh(&with_uri(&json, uri), &ImportOptions::default(), &resolver)
            .expect_err(uri);
        assert_eq!(e.code(), "gltf.uri_refused", "{uri}: {e}");
        assert_eq!(*calls.borrow(), 0, "{uri}: the resolver was called");
    }
}

// ---------------------------------------------------------------- strips and fans

/// A tiny .gltf with one mesh whose primitives use `modes`, over 6 vertices on a
/// zig-zag in the XY plane (all facing +Z when wound as glTF says).
fn strip_fan_gltf(modes: &[u32], indexed: bool) -> Vec<u8> {
    use base64::Engine as _;
    let positions: [[f32; 3]; 6] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 2.0, 0.0],
        [1.0, 2.0, 0.0],
    ];
    let mut bin: Vec<u8> = positions
        .iter()
        .flatten()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let indices: [u16; 6] = [0, 1, 2, 3, 4, 5];
    bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let primitives: Vec<serde_json::Value> = modes
        .iter()
        .map(|&mode| {
            let mut p = serde_json::json!({"attributes": {"POSITION": 0}, "mode": mode});
            if indexed {
                p["indices"] = serde_json::json!(1);
            }
            p
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Strip", "mesh": 0}],
        "meshes": [{"primitives": primitives}],
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 72},
            {"buffer": 0, "byteOffset": 72, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 6, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 2.0, 0.0]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ]
    }))
    .unwrap()
}

#[test]
fn strips_and_fans_become_triangles_with_their_winding() {
    // glTF: strip triangle i is (i, i+1, i+2) for even i and (i+1, i, i+2) for
    // odd i; fan triangle i is (0, i+1, i+2). Compared as world triangles with
    // their winding (cyclic rotations only).
    let p = |k: u32| [f64::from(k % 2), f64::from(k / 2), 0.0];
    let strip: Vec<[u32; 3]> = (0..4)
        .map(|i| {
            if i % 2 == 0 {
                [i, i + 1, i + 2]
            } else {
                [i + 1, i, i + 2]
            }
        })
        .collect();
    let fan: Vec<[u32; 3]> = (0..4).map(|i| [0, i + 1, i + 2]).collect();
    for (t, _) in strip.iter().map(|t| (t.map(p), ())) {
        let n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
        assert!(n[2] > 0.0, "the zig-zag strip faces +Z throughout: {t:?}");
    }
    for indexed in [true, false] {
        for (mode, tris) in [(5u32, &strip), (6, &fan)] {
            let m = open(&import(&strip_fan_gltf(&[mode], indexed)).0);
            let got = &m.triangles[m.node("Strip").unwrap()];
            let want: Vec<(u16, Tri)> = tris.iter().map(|t| (0, t.map(p))).collect();
            let mut failures = Vec::new();
            match_triangles(
                &format!("mode {mode}, indexed {indexed}"),
                &want,
                got,
                &mut failures,
            );
            common::fail_if_any("strips and fans", failures);
        }
    }
}

// ---------------------------------------------------------------- several animations

/// Two empty nodes A and B and three LINEAR translation animations:
/// `a1` moves A along +X over 1 s, `b1` moves B along +Y over 0.5 s, `a2` moves A along +Z over 1 s.
fn three_animations() -> Vec<u8> {
    use base64::Engine as _;
    // Accessor data, 8 or 24 bytes each, back to back.
    let sections: [&[f32]; 5] = [
        &[0.0, 1.0],
        &[0.0, 0.5],
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        &[0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
        &[0.0, 0.0, 0.0, 0.0, 0.0, 3.0],
    ];
    let bin: Vec<u8> = sections
        .iter()
        .flat_map(|s| s.iter())
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut at = 0;
    for (k, s) in sections.iter().enumerate() {
        views.push(serde_json::json!({"buffer": 0, "byteOffset": at, "byteLength": 4 * s.len()}));
        accessors.push(if k < 2 {
            serde_json::json!({"bufferView": k, "componentType": 5126, "count": 2, "type": "SCALAR",
                               "min": [s[0]], "max": [s[1]]})
        } else {
            serde_json::json!({"bufferView": k, "componentType": 5126, "count": 2, "type": "VEC3"})
        });
        at += 4 * s.len();
    }
    let anim = |name: &str, node: usize, input: usize, output: usize| {
        serde_json::json!({
            "name": name,
            "channels": [{"sampler": 0, "target": {"node": node, "path": "translation"}}],
            "samplers": [{"input": input, "output": output, "interpolation": "LINEAR"}]
        })
    };
    serde_json::to_vec(&serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "A"}, {"name": "B"}],
        "buffers": [{"byteLength": bin.len(), "uri": format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bin)
        )}],
        "bufferViews": views,
        "accessors": accessors,
        "animations": [anim("a1", 0, 0, 2), anim("b1", 1, 1, 3), anim("a2", 0, 0, 4)]
    }))
    .unwrap()
}

#[test]
fn animations_on_different_nodes_play_together_and_the_others_follow() {
    let gltf = three_animations();
    let (bytes, report) = import(&gltf);
    let m = open(&bytes);
    let (a, b) = (m.node("A").unwrap(), m.node("B").unwrap());
    // a1 + b1 play together on frames 0..=24, then a2 on frames 25..=49.
    assert_eq!(m.frame_count, 50, "{:?}", report.notes);
    assert!(report.has("import.animations_merged"), "{:?}", report.notes);
    let clips = report
        .notes
        .iter()
        .find(|n| n.code == "import.clips")
        .expect("clip ranges are reported");
    assert!(
        clips.message.contains("\"a1\" + \"b1\" frames 0..=24")
            && clips.message.contains("\"a2\" frames 25..=49"),
        "{}",
        clips.message
    );
    let at = |node: usize, f: usize| translation_of(&m.world[f][node]);
    for (node, f, want) in [
        (a, 0, [0.0, 0.0, 0.0]),
        (a, 12, [0.5, 0.0, 0.0]),
        (a, 24, [1.0, 0.0, 0.0]),
        (b, 6, [0.0, 1.0, 0.0]),
        (b, 12, [0.0, 2.0, 0.0]),
        (b, 24, [0.0, 2.0, 0.0]),
        (a, 37, [0.0, 0.0, 1.5]),
        (a, 49, [0.0, 0.0, 3.0]),
        (b, 37, [0.0, 0.0, 0.0]),
    ] {
        let got = at(node, f);
        assert!(
            abs_diff(got, want) < 1e-5,
            "{} at frame {f}: {got:?}, want {want:?}",
            m.names[node]
        );
    }
    // One animation chosen by index or name: only it, from frame 0.
    for choice in [
        mshconv_gltf::AnimationChoice::Index(1),
        mshconv_gltf::AnimationChoice::Name("b1".into()),
    ] {
        let options = ImportOptions {
            animation: choice.clone(),
            ..Default::default()
        };
        let (bytes, report) = gltf_to_msh(&gltf, &options, &no_files).unwrap();
        let m = open(&bytes);
        assert_eq!(m.frame_count, 13, "{choice:?}: {:?}", report.notes);
        assert!(!report.has("import.clips") && !report.has("import.animations_merged"));
        let (a, b) = (m.node("A").unwrap(), m.node("B").unwrap());
        assert!(abs_diff(translation_of(&m.world[6][b]), [0.0, 1.0, 0.0]) < 1e-5);
        assert!(abs_diff(translation_of(&m.world[6][a]), [0.0, 0.0, 0.0]) < 1e-5);
    }
}
