//! Skins become rigid nodes, morph targets are dropped (docs/GLTF.md, "Skins"):
//! armature rigs made with Blender 4.2 (`fixtures/foreign/gltf/skins`, made by
//! `tools/foreign/blender_skins.py`) import into models whose world-space
//! triangle corners, at every sampled frame, are where Blender's evaluated
//! (armature-deformed) mesh puts them; the blended rig's reported error is
//! the one measured against Blender; the three.js files of
//! `fixtures/foreign/gltf` import with their notes.

mod common;

use common::notes;

use mshconv_convert::axes::Axes;
use mshconv_convert::{Axis, Report, Rotation};
use mshconv_gltf::gltf_to_msh;
use mshconv_gltf::ImportOptions;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Rigid weights: every corner coordinate within this of Blender's (model
/// units, absolute; the models are about 2 units across).
const RIGID_TOLERANCE: f64 = 1e-4;
/// Parts parented to bones, one node deeper than the skinned parts: the same
/// 1e-4 (their static rotations are stored as the i16 quaternions nearest
/// as the engine uses them, `msh::derive::quantize_quat_nearest`; plain
/// per-component rounding gave 1.06e-4 here).
const HIERARCHY_TOLERANCE: f64 = 1e-4;
/// The reported error of the blended rig against the measured one: the MSH
/// rotations are 16-bit, Blender's reference is rounded to 6 decimals.
const REPORTED_TOLERANCE: f64 = 1e-3;

type V3 = [f64; 3];
type Tri = [V3; 3];

const AXES: Axes = Axes {
    axis: Axis::YUp,
    rotation: Rotation::Conjugate,
};

fn read(name: &str) -> Vec<u8> {
    let p = common::root().join("fixtures/foreign/gltf").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn no_files(name: &str) -> Option<Vec<u8>> {
    panic!("the resolver must not be asked for {name:?}")
}

fn import(name: &str) -> (Vec<u8>, Report) {
    gltf_to_msh(&read(name), &ImportOptions::default(), &no_files)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[derive(Deserialize)]
struct Reference {
    files: BTreeMap<String, RefFile>,
}

#[derive(Deserialize)]
struct RefFile {
    frames: Vec<u32>,
    /// Per object, per frame, its world triangles (9 numbers each, glTF frame).
    objects: BTreeMap<String, Vec<Vec<Vec<f64>>>>,
}

impl RefFile {
    /// Every object's triangles at the `k`th sampled frame.
    fn triangles(&self, k: usize) -> Vec<Tri> {
        self.objects
            .values()
            .flat_map(|frames| frames[k].iter())
            .map(|t| std::array::from_fn(|c| std::array::from_fn(|x| t[3 * c + x])))
            .collect()
    }
}

fn reference(glb: &str) -> RefFile {
    let mut r: Reference = serde_json::from_slice(&read("skins/skins.ref.json")).unwrap();
    let name = glb.trim_start_matches("skins/");
    r.files.remove(name).expect("the file has a reference")
}

/// Every triangle of LOD 0 of the imported model, world corners in glTF's
/// frame at MSH frame `frame`, in a fixed order.
fn msh_triangles(msh: &[u8], frame: u32) -> Vec<Tri> {
    let opened = msh::open(msh, msh::Mode::Strict).expect("the import passes strict validation");
    let view = &opened.view;
    assert!(
        frame <= view.frame_count.max(1),
        "frame {frame} is in the model"
    );
    let world =
        msh::pose::world_transforms(view, frame as f32, msh::pose::Rotation::Conjugate).unwrap();
    let mut out = Vec::new();
    for (i, node) in view.nodes.iter().enumerate() {
        let Some(slot) = node.slot(0, 0) else {
            continue;
        };
        for (_, t) in common::slot_triangles(view, slot) {
            out.push(
                t.map(|v| AXES.vec(world[i].point(view.positions[v].map(|c| f64::from(c.get()))))),
            );
        }
    }
    out
}

fn distance(a: V3, b: V3) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

/// The largest coordinate difference.
fn coordinate_difference(a: V3, b: V3) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
}

/// The largest coordinate difference, relative above 1 (as `import_foreign.rs`
/// compares positions).
fn relative_difference(a: V3, b: V3) -> f64 {
    (0..3)
        .map(|k| (a[k] - b[k]).abs() / b[k].abs().max(1.0))
        .fold(0.0, f64::max)
}

/// The largest corner distance of two triangles, corners compared under the
/// best cyclic rotation (same winding); which rotation it was.
fn tri_distance(a: &Tri, b: &Tri) -> (f64, usize) {
    (0..3)
        .map(|r| {
            let d = (0..3)
                .map(|c| distance(a[(c + r) % 3], b[c]))
                .fold(0.0, f64::max);
            (d, r)
        })
        .fold((f64::INFINITY, 0), |x, y| if y.0 < x.0 { y } else { x })
}

/// For each reference triangle, the imported triangle and rotation matching it
/// at the first sampled frame (the rest pose: every corner within the rigid
/// tolerance, also for blended weights).
fn correspondence(reference: &[Tri], imported: &[Tri]) -> Vec<(usize, usize)> {
    assert_eq!(
        reference.len(),
        imported.len(),
        "the import has as many triangles as Blender's evaluated mesh"
    );
    let mut taken = vec![false; imported.len()];
    reference
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let (best, (d, rot)) = imported
                .iter()
                .enumerate()
                .filter(|(i, _)| !taken[*i])
                .map(|(i, t)| (i, tri_distance(t, r)))
                .fold((usize::MAX, (f64::INFINITY, 0)), |x, y| {
                    if y.1 .0 < x.1 .0 {
                        y
                    } else {
                        x
                    }
                });
            assert!(
                d <= RIGID_TOLERANCE,
                "reference triangle {k} {r:?} has no imported triangle at rest (nearest {d})"
            );
            taken[best] = true;
            (best, rot)
        })
        .collect()
}

/// The largest corner difference between the import and Blender at every
/// sampled frame, as (frame, difference), by `metric`.
fn measured(glb: &str, msh: &[u8], metric: fn(V3, V3) -> f64) -> Vec<(u32, f64)> {
    let r = reference(glb);
    let pairs = correspondence(&r.triangles(0), &msh_triangles(msh, r.frames[0]));
    r.frames
        .iter()
        .enumerate()
        .map(|(k, &f)| {
            let (want, got) = (r.triangles(k), msh_triangles(msh, f));
            let d = want
                .iter()
                .zip(&pairs)
                .map(|(w, &(i, rot))| {
                    (0..3)
                        .map(|c| metric(got[i][(c + rot) % 3], w[c]))
                        .fold(0.0, f64::max)
                })
                .fold(0.0, f64::max);
            (f, d)
        })
        .collect()
}

/// Every corner of every sampled frame within `tolerance` of Blender's, by `metric`.
fn assert_rigid(glb: &str, msh: &[u8], metric: fn(V3, V3) -> f64, tolerance: f64) {
    let per_frame = measured(glb, msh, metric);
    assert!(per_frame.len() >= 5, "{glb}: several frames are checked");
    for (f, d) in per_frame {
        assert!(
            d <= tolerance,
            "{glb} frame {f}: a corner is {d} from Blender's"
        );
    }
}

#[test]
fn a_rig_weighted_100_percent_per_part_imports_exactly_at_every_frame() {
    let (msh, report) = import("skins/rigid.glb");
    let rigid = notes(&report, "import.skin_rigid");
    assert_eq!(rigid.len(), 1, "{:?}", report.notes);
    assert!(rigid[0].contains("\"MechMesh\""), "{}", rigid[0]);
    assert!(notes(&report, "import.skin_blended").is_empty());
    assert!(notes(&report, "import.skin_unused").is_empty());
    assert_rigid(
        "skins/rigid.glb",
        &msh,
        coordinate_difference,
        RIGID_TOLERANCE,
    );
    // Each bone is a node holding its part; the armature object is their root.
    let opened = msh::open(&msh, msh::Mode::Strict).unwrap();
    let view = &opened.view;
    let name = |i: usize| String::from_utf8_lossy(view.node_name(i).unwrap_or(b"")).into_owned();
    for bone in ["Hull", "Turret", "Gun", "Leg"] {
        let i = (0..view.nodes.len())
            .find(|&i| name(i) == bone)
            .unwrap_or_else(|| panic!("no node {bone}"));
        assert!(view.nodes[i].slot(0, 0).is_some(), "{bone} holds its part");
    }
    let mech = (0..view.nodes.len()).find(|&i| name(i) == "Mech").unwrap();
    assert!(
        view.nodes[mech].slot(0, 0).is_none(),
        "the skinned mesh's own node keeps no geometry"
    );
}

#[test]
fn parts_parented_to_bones_import_and_the_unused_skin_is_noted() {
    let (msh, report) = import("skins/bone_parented.glb");
    let unused = notes(&report, "import.skin_unused");
    assert_eq!(unused.len(), 1, "{:?}", report.notes);
    assert!(unused[0].contains("used by no mesh"), "{}", unused[0]);
    assert!(notes(&report, "import.skin_rigid").is_empty());
    assert_rigid(
        "skins/bone_parented.glb",
        &msh,
        relative_difference,
        HIERARCHY_TOLERANCE,
    );
}

/// The two numbers of the `import.skin_blended` note: at rest, over the animation.
fn reported(message: &str) -> (f64, f64) {
    let number = |after: &str| -> f64 {
        let at = message
            .find(after)
            .unwrap_or_else(|| panic!("{after:?} in {message}"));
        let head = &message[..at];
        head.rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap_or_else(|e| panic!("{message}: {e}"))
    };
    (number(" at rest"), number(" over the animation"))
}

#[test]
fn a_blended_rig_imports_and_reports_the_error_blender_measures() {
    let (msh, report) = import("skins/blended.glb");
    let blended = notes(&report, "import.skin_blended");
    assert_eq!(blended.len(), 1, "{:?}", report.notes);
    assert!(
        blended[0].contains("every frame of 0..=24"),
        "{}",
        blended[0]
    );
    let (at_rest, over) = reported(blended[0]);
    // The note gives distances.
    let per_frame = measured("skins/blended.glb", &msh, distance);
    let largest = per_frame.iter().map(|p| p.1).fold(0.0, f64::max);
    assert_eq!(per_frame.len(), 25, "every frame is compared");
    // The rig bends: the split is visibly off, and the note says by how much.
    assert!(largest > 0.05, "the blend matters: {largest}");
    assert!(
        (over - largest).abs() <= REPORTED_TOLERANCE,
        "reported {over}, measured against Blender {largest}"
    );
    assert!(
        at_rest <= REPORTED_TOLERANCE && per_frame[0].1 <= RIGID_TOLERANCE,
        "the rest pose is the bind pose: {at_rest}, {}",
        per_frame[0].1
    );
}

#[test]
fn morph_targets_are_dropped_with_a_note_and_the_base_shape_imports() {
    let (msh, report) = import("skins/morph.glb");
    let dropped = notes(&report, "import.morph_targets_dropped");
    assert_eq!(dropped.len(), 1, "{:?}", report.notes);
    assert!(dropped[0].contains("\"BlobMesh\""), "{}", dropped[0]);
    // The base shape is Blender's mesh with the shape keys at 0 (frame 0).
    let r = reference("skins/morph.glb");
    correspondence(&r.triangles(0), &msh_triangles(&msh, 0));
}

/// The world triangles of every skinned mesh of a GLB at its rest pose by the
/// glTF skinning equation (`sum_i w_i * world(joint_i) * ibm_i * v`),
/// computed here with the `gltf` crate's readers, independently of the importer.
fn skinned_by_the_spec(bytes: &[u8]) -> Vec<Tri> {
    let g = gltf::Gltf::from_slice(bytes).unwrap();
    let blob = g.blob.as_deref();
    let doc = &g.document;
    let mut parent = vec![None; doc.nodes().len()];
    for n in doc.nodes() {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    let local: Vec<[[f64; 4]; 4]> = doc
        .nodes()
        .map(|n| n.transform().matrix().map(|c| c.map(f64::from)))
        .collect();
    // Column-major 4x4 products.
    let mul = |a: &[[f64; 4]; 4], b: &[[f64; 4]; 4]| -> [[f64; 4]; 4] {
        std::array::from_fn(|c| std::array::from_fn(|r| (0..4).map(|k| a[k][r] * b[c][k]).sum()))
    };
    let world = |mut i: usize| {
        let mut m = local[i];
        while let Some(p) = parent[i] {
            m = mul(&local[p], &m);
            i = p;
        }
        m
    };
    let point = |m: &[[f64; 4]; 4], v: V3| -> V3 {
        std::array::from_fn(|r| (0..3).map(|k| m[k][r] * v[k]).sum::<f64>() + m[3][r])
    };
    let mut out = Vec::new();
    for node in doc.nodes() {
        let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) else {
            continue;
        };
        let skin_reader = skin.reader(|_| blob);
        let ibm: Vec<[[f64; 4]; 4]> = skin_reader
            .read_inverse_bind_matrices()
            .unwrap()
            .map(|m| m.map(|c| c.map(f64::from)))
            .collect();
        let joint: Vec<[[f64; 4]; 4]> = skin
            .joints()
            .zip(&ibm)
            .map(|(j, b)| mul(&world(j.index()), b))
            .collect();
        for prim in mesh.primitives() {
            let r = prim.reader(|_| blob);
            let positions: Vec<V3> = r
                .read_positions()
                .unwrap()
                .map(|p| p.map(f64::from))
                .collect();
            let joints: Vec<[u16; 4]> = r.read_joints(0).unwrap().into_u16().collect();
            let weights: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
            let skinned: Vec<V3> = (0..positions.len())
                .map(|v| {
                    let mut p = [0.0; 3];
                    for k in 0..4 {
                        let q = point(&joint[joints[v][k] as usize], positions[v]);
                        (0..3).for_each(|x| p[x] += f64::from(weights[v][k]) * q[x]);
                    }
                    p
                })
                .collect();
            let idx: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
            out.extend(
                idx.chunks_exact(3)
                    .map(|t| std::array::from_fn(|k| skinned[t[k] as usize])),
            );
        }
    }
    out
}

#[test]
fn threejs_skinned_and_morphed_files_import_with_their_notes() {
    let (msh, report) = import("threejs_skinned.glb");
    assert_eq!(
        notes(&report, "import.skin_rigid").len(),
        1,
        "{:?}",
        report.notes
    );
    // At rest the split is where the skinning equation puts every corner.
    let want = skinned_by_the_spec(&read("threejs_skinned.glb"));
    assert!(!want.is_empty());
    correspondence(&want, &msh_triangles(&msh, 0));
    let (msh, report) = import("threejs_morph.glb");
    assert_eq!(
        notes(&report, "import.morph_targets_dropped").len(),
        1,
        "{:?}",
        report.notes
    );
    // The shape at the mesh's default weight (0.5), as three.js shows it.
    let want = morphed_by_the_spec(&read("threejs_morph.glb"));
    assert!(!want.is_empty());
    correspondence(&want, &msh_triangles(&msh, 0));
}

/// The world triangles of every mesh of a GLB at its default morph weights
/// (the node's, else the mesh's: `base + sum_k w_k * target_k`), computed
/// with the `gltf` crate's readers, independently of the importer.
fn morphed_by_the_spec(bytes: &[u8]) -> Vec<Tri> {
    let g = gltf::Gltf::from_slice(bytes).unwrap();
    let blob = g.blob.clone().unwrap();
    let world = common::gltf_sampler::Evaluator::new(bytes)
        .unwrap()
        .world(&[], 0.0);
    let mut out = Vec::new();
    for node in g.document.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        let weights = node.weights().or(mesh.weights()).unwrap_or(&[]);
        let w = &world[node.index()];
        for prim in mesh.primitives() {
            let reader = prim.reader(|_| Some(&blob[..]));
            let mut p: Vec<V3> = reader
                .read_positions()
                .unwrap()
                .map(|v| v.map(f64::from))
                .collect();
            for (k, (targets, _, _)) in reader.read_morph_targets().enumerate() {
                let wk = f64::from(weights.get(k).copied().unwrap_or(0.0));
                for (v, d) in p.iter_mut().zip(targets.into_iter().flatten()) {
                    (0..3).for_each(|c| v[c] += wk * f64::from(d[c]));
                }
            }
            let index: Vec<usize> = match reader.read_indices() {
                Some(i) => i.into_u32().map(|i| i as usize).collect(),
                None => (0..p.len()).collect(),
            };
            for t in index.chunks_exact(3) {
                out.push(std::array::from_fn(|c| {
                    let v = p[t[c]];
                    std::array::from_fn(|r| (0..3).map(|k| w[r][k] * v[k]).sum::<f64>() + w[r][3])
                }));
            }
        }
    }
    out
}

/// A GLB's JSON and binary chunk.
fn split_glb(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let n = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + n]).unwrap();
    (json, glb[20 + n + 8..].to_vec())
}

/// A GLB of this JSON and binary chunk.
fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}

#[test]
fn broken_skins_are_typed_errors_that_say_what_is_wrong() {
    let (json, bin) = split_glb(&read("skins/rigid.glb"));
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut j = json.clone();
        f(&mut j);
        glb(&j, &bin)
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "joints past the skin",
            edit(&|j| j["skins"][0]["joints"] = serde_json::json!([3])),
            "names joint",
        ),
        (
            "a joint outside the scene",
            edit(&|j| {
                j["nodes"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!({"name": "Loose"}));
                let loose = j["nodes"].as_array().unwrap().len() - 1;
                j["skins"][0]["joints"][0] = loose.into();
            }),
            "not part of the scene",
        ),
        (
            "no JOINTS_0",
            edit(&|j| {
                let attributes = j["meshes"][0]["primitives"][0]["attributes"]
                    .as_object_mut()
                    .unwrap();
                attributes.remove("JOINTS_0");
            }),
            "no JOINTS_0/WEIGHTS_0",
        ),
        (
            "fewer inverse bind matrices than joints",
            edit(&|j| {
                j["skins"][0]["joints"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!(0));
            }),
            "4 inverse bind matrices for 5 joints",
        ),
        (
            "no joints",
            edit(&|j| j["skins"][0]["joints"] = serde_json::json!([])),
            "no joints",
        ),
    ];
    for (what, bytes, hint) in cases {
        match gltf_to_msh(&bytes, &ImportOptions::default(), &no_files) {
            Ok((_, report)) => panic!("{what}: imported ({:?})", report.notes),
            Err(e) => {
                assert_eq!(e.code(), "gltf.skin_invalid", "{what}: {e}");
                assert_eq!(e.kind(), mshconv_convert::ErrorKind::InvalidInput, "{what}");
                assert!(e.message().contains(hint), "{what}: {e}");
            }
        }
    }
}
