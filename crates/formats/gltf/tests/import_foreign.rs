//! Tier 3: glTF files made by real tools (Blender 4.2, the three.js
//! GLTFExporter, assimp; `fixtures/foreign/gltf`, made by `tools/foreign/`)
//! import into valid MSH whose geometry and animation match what the authoring
//! tool itself computes (the `*.ref.json` beside each file), and what the glTF
//! content means by the spec; plus side-car buffers, refused URIs, strips and
//! fans (skins and morph targets: `tests/import_skins.rs`).
//!
//! Tolerances (docs/GLTF.md, "Foreign glTF"): see the constants below.
//!
//! The tests are in `import_foreign/`: [`tools`] (the files as their tools
//! made them) and [`hand_made`] (variants of them); the reference reading and
//! comparison they share are here.

mod common;

#[path = "import_foreign/hand_made.rs"]
mod hand_made;
#[path = "import_foreign/tools.rs"]
mod tools;

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
/// index the `import.material_assigned` note gives (one note, each material
/// as `"name" gets k`; the files here have at most three such materials, all
/// named).
fn material_map(report: &Report) -> BTreeMap<String, u16> {
    let mut map = BTreeMap::new();
    let notes: Vec<&str> = report
        .notes
        .iter()
        .filter(|n| n.code == "import.material_assigned")
        .map(|n| n.message.as_str())
        .collect();
    assert!(notes.len() <= 1, "one note for all materials: {notes:?}");
    for message in notes {
        assert!(!message.contains(" more"), "{message}");
        let list = message
            .split_once("index: ")
            .expect("the note lists them")
            .1;
        for entry in list.split(", ") {
            let (name, index) = entry.rsplit_once(" gets ").expect("\"name\" gets k");
            let name = name.trim_matches('"').to_string();
            let index: u16 = index.parse().expect("the entry ends with the index");
            assert!(map.insert(name, index).is_none(), "{message}");
        }
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
