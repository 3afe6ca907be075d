//! Skins become rigid nodes, morph targets are dropped (docs/GLTF.md, "Skins"):
//! armature rigs made with Blender 4.2 (`fixtures/foreign/gltf/skins`, made by
//! `tools/foreign/blender_skins.py`) import into models whose world-space
//! triangle corners, at every sampled frame, are where Blender's evaluated
//! (armature-deformed) mesh puts them; the blended rig's reported error is
//! the one measured against Blender; the three.js files of
//! `fixtures/foreign/gltf` import with their notes.

mod common;

use mshconv_convert::axes::Axes;
use mshconv_convert::gltf::ImportOptions;
use mshconv_convert::{gltf_to_msh, Axis, Report, Rotation};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Rigid weights: every corner coordinate within this of Blender's (model
/// units, absolute; the models are about 2 units across).
const RIGID_TOLERANCE: f64 = 1e-4;
/// Parts parented to bones, one node deeper than the skinned parts: the
/// tolerance `import_foreign.rs` gives animated world translations (each
/// 16-bit rotation on the way to the root and the key reduction add their
/// rounding, docs/GLTF.md "Tolerances").
const HIERARCHY_TOLERANCE: f64 = 2e-4;
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

fn notes<'r>(report: &'r Report, code: &str) -> Vec<&'r str> {
    report
        .notes
        .iter()
        .filter(|n| n.code == code)
        .map(|n| n.message.as_str())
        .collect()
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

#[test]
fn threejs_skinned_and_morphed_files_import_with_their_notes() {
    let (msh, report) = import("threejs_skinned.glb");
    assert_eq!(
        notes(&report, "import.skin_rigid").len(),
        1,
        "{:?}",
        report.notes
    );
    assert!(!msh_triangles(&msh, 0).is_empty());
    let (msh, report) = import("threejs_morph.glb");
    assert_eq!(
        notes(&report, "import.morph_targets_dropped").len(),
        1,
        "{:?}",
        report.notes
    );
    assert!(!msh_triangles(&msh, 0).is_empty());
}
