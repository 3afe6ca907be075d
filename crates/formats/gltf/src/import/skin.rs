//! Skins -> rigid MSH nodes (docs/GLTF.md, "Skins").
//!
//! The joints are nodes of the glTF tree and become MSH nodes like any other
//! (their non-joint ancestors too, e.g. Blender's armature object). A skinned
//! mesh is split by joint: each triangle goes to its dominant joint (the joint
//! with the largest weight summed over its three corners; on a tie the one
//! listed first in the skin; a triangle without any weight goes to the skin's
//! first joint), and its corners are moved into that joint's frame through the
//! joint's inverse bind matrix. By the glTF skinning equation a vertex is at
//! `sum_i w_i * world(joint_i) * ibm_i * v` (the mesh node's own transform does
//! not count), so a vertex weighted 100% to its triangle's joint is at
//! `world(joint) * (ibm * v)` exactly: rigid rigs import exactly. For blended
//! weights the split moves corners; [`Blends::report`] measures by how much.

use super::linear::{affine_of, apply_affine, compose, normalize, quat_matrix, Affine, M3};
use super::mesh::{place, MeshNotes, MeshReader};
use super::read::Source;
use crate::axes::Axes;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::report::Report;
use crate::scene::{SceneBatch, SceneNode};
use std::collections::BTreeMap;

/// The note of a skin no mesh uses.
pub const UNUSED: &str = Code::ImportSkinUnused.code();
/// The note of a skin made into rigid nodes.
pub const RIGID: &str = Code::ImportSkinRigid.code();
/// The note giving the largest position error of blended weights.
pub const BLENDED: &str = Code::ImportSkinBlended.code();
/// The note of morph targets left out.
pub const MORPH_DROPPED: &str = Code::ImportMorphTargetsDropped.code();

/// At most this many (corner, joint, frame) evaluations for the error note;
/// above it the animation frames are sampled with a stride (said in the note).
const ERROR_WORK: u64 = 1 << 24;

fn invalid(message: String) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        Code::GltfSkinInvalid.code(),
        message,
    )
}

/// Notes the skins no mesh node uses (they are left out: the joints are
/// ordinary nodes) and the morph targets (left out: the base mesh imports).
pub(super) fn note_unused(doc: &gltf::Document, report: &mut Report) {
    let mut used = vec![false; doc.skins().len()];
    for n in doc.nodes() {
        if let (Some(skin), Some(_)) = (n.skin(), n.mesh()) {
            used[skin.index()] = true;
        }
    }
    let unused: Vec<String> = doc
        .skins()
        .filter(|s| !used[s.index()])
        .map(|s| format!("{} ({:?})", s.index(), s.name().unwrap_or("")))
        .collect();
    if !unused.is_empty() {
        report.note(
            UNUSED,
            format!(
                "{} used by no mesh and were left out: skin {}; their joints import as ordinary nodes (Blender writes an armature's skin even when parts are only parented to bones)",
                crate::report::counted(unused.len(), "skin is", "skins are"),
                crate::report::few(&unused)
            ),
        );
    }
    let morphed: Vec<String> = doc
        .meshes()
        .filter(|m| m.primitives().any(|p| p.morph_targets().next().is_some()))
        .map(|m| label(&m))
        .collect();
    if !morphed.is_empty() {
        report.note(
            MORPH_DROPPED,
            format!(
                "morph targets (shape keys) of {} were left out (MSH cannot hold them): {}; the shape at the default weights imported, without the weight animation",
                crate::report::counted(morphed.len(), "mesh", "meshes"),
                crate::report::few(&morphed)
            ),
        );
    }
}

/// A mesh as the notes name it: its name quoted, else its index.
fn label(mesh: &gltf::Mesh<'_>) -> String {
    match mesh.name() {
        Some(name) => format!("{:?}", name.chars().take(64).collect::<String>()),
        None => mesh.index().to_string(),
    }
}

/// One corner whose weights a rigid joint does not follow exactly.
struct Blend {
    /// The MSH node (item) the corner went to.
    node: usize,
    /// Where it is in that node's frame (glTF axes).
    at: [f64; 3],
    /// Its influences: MSH node, normalised weight, position in that node's frame.
    mix: Vec<(usize, f64, [f64; 3])>,
}

/// The blended corners of every skinned mesh, for the error note.
#[derive(Default)]
pub(super) struct Blends {
    corners: Vec<Blend>,
    meshes: Vec<String>,
}

/// Where one joint of a skin puts its geometry: its MSH node (item) and the
/// map from mesh space to that node's frame (residual scale times inverse bind).
struct JointPlace {
    item: usize,
    m: Affine,
}

/// The places of a skin's joints. `joint` gives, for a glTF node index, the
/// item it became and the residual linear map baked into its geometry.
fn joint_places(
    src: &Source<'_>,
    skin: &gltf::Skin<'_>,
    joint: &dyn Fn(usize) -> Option<(usize, M3)>,
) -> Result<Vec<JointPlace>> {
    let joints: Vec<gltf::Node<'_>> = skin.joints().collect();
    if joints.is_empty() {
        return Err(invalid(format!("skin {} has no joints", skin.index())));
    }
    let ibms: Option<Vec<[f32; 16]>> = match skin.inverse_bind_matrices() {
        Some(a) => Some(src.floats::<16>(&a)?),
        None => None,
    };
    if let Some(m) = ibms.as_ref().filter(|m| m.len() < joints.len()) {
        return Err(invalid(format!(
            "skin {}: {} inverse bind matrices for {} joints",
            skin.index(),
            m.len(),
            joints.len()
        )));
    }
    joints
        .iter()
        .enumerate()
        .map(|(s, node)| {
            let (item, k) = joint(node.index()).ok_or_else(|| {
                invalid(format!(
                    "skin {}: joint node {} is not part of the scene's node tree",
                    skin.index(),
                    node.index()
                ))
            })?;
            // Column-major 4x4 (the last row is 0 0 0 1 for an affine map).
            let ibm: Affine = match &ibms {
                Some(list) => {
                    let c = list[s].map(f64::from);
                    std::array::from_fn(|r| std::array::from_fn(|col| c[col * 4 + r]))
                }
                None => super::linear::IDENTITY_AFFINE,
            };
            Ok(JointPlace {
                item,
                m: compose(&affine_of(&k, [0.0; 3]), &ibm),
            })
        })
        .collect()
}

/// One `JOINTS_n`/`WEIGHTS_n` pair: per vertex, four joint slots and their weights.
type InfluenceSet = (Vec<[f32; 4]>, Vec<[f32; 4]>);

/// Per vertex, its weighted joints (skin joint slot, weight > 0), from every
/// `JOINTS_n`/`WEIGHTS_n` pair.
struct Influences {
    sets: Vec<InfluenceSet>,
}

impl Influences {
    fn read(
        src: &Source<'_>,
        prim: &gltf::Primitive<'_>,
        vertices: usize,
        joints: usize,
        what: &str,
    ) -> Result<Self> {
        let mut sets = Vec::new();
        for n in 0.. {
            let (Some(j), Some(w)) = (
                prim.get(&gltf::Semantic::Joints(n)),
                prim.get(&gltf::Semantic::Weights(n)),
            ) else {
                break;
            };
            let (j, w) = (src.floats::<4>(&j)?, src.floats::<4>(&w)?);
            if j.len() != vertices || w.len() != vertices {
                return Err(invalid(format!(
                    "{what}: JOINTS_{n}/WEIGHTS_{n} have {}/{} elements for {vertices} vertices",
                    j.len(),
                    w.len()
                )));
            }
            for (v, (js, ws)) in j.iter().zip(&w).enumerate() {
                if let Some(k) = (0..4).find(|&k| {
                    ws[k] > 0.0
                        && !(js[k] >= 0.0 && js[k].fract() == 0.0 && (js[k] as usize) < joints)
                }) {
                    return Err(invalid(format!(
                        "{what}: vertex {v} names joint {} (JOINTS_{n}), the skin has {joints}",
                        js[k]
                    )));
                }
            }
            sets.push((j, w));
        }
        if sets.is_empty() {
            return Err(invalid(format!(
                "{what} is skinned but has no JOINTS_0/WEIGHTS_0"
            )));
        }
        Ok(Influences { sets })
    }

    /// The joints of vertex `v` with their weights, normalised to sum 1
    /// (empty when it has no weight).
    fn of(&self, v: usize) -> Vec<(usize, f64)> {
        let mut out: Vec<(usize, f64)> = Vec::new();
        for (j, w) in &self.sets {
            for k in 0..4 {
                if w[v][k] > 0.0 {
                    let slot = j[v][k] as usize;
                    match out.iter_mut().find(|(s, _)| *s == slot) {
                        Some(e) => e.1 += f64::from(w[v][k]),
                        None => out.push((slot, f64::from(w[v][k]))),
                    }
                }
            }
        }
        let total: f64 = out.iter().map(|e| e.1).sum();
        if total > 0.0 && total.is_finite() {
            out.iter_mut().for_each(|e| e.1 /= total);
        } else {
            out.clear();
        }
        out
    }
}

/// The dominant joint of a triangle: the largest weight summed over its
/// corners; on a tie the lowest slot; slot 0 when no corner has weight.
fn dominant(corners: [&[(usize, f64)]; 3]) -> usize {
    let mut sums: Vec<(usize, f64)> = Vec::new();
    for &(slot, w) in corners.iter().flat_map(|c| c.iter()) {
        match sums.iter_mut().find(|(s, _)| *s == slot) {
            Some(e) => e.1 += w,
            None => sums.push((slot, w)),
        }
    }
    sums.into_iter()
        .fold(None, |best: Option<(usize, f64)>, (s, w)| match best {
            Some((bs, bw)) if bw > w || (bw == w && bs < s) => Some((bs, bw)),
            _ => Some((s, w)),
        })
        .map_or(0, |(s, _)| s)
}

/// The vertices of `batch` that `triangles` use, as a batch of their own.
fn subset(batch: &SceneBatch, triangles: &[[u32; 3]], map: &mut [u32]) -> (SceneBatch, Vec<u32>) {
    let mut used: Vec<u32> = Vec::new();
    let tris: Vec<[u32; 3]> = triangles
        .iter()
        .map(|t| {
            t.map(|v| {
                let slot = &mut map[v as usize];
                if *slot == u32::MAX {
                    *slot = used.len() as u32;
                    used.push(v);
                }
                *slot
            })
        })
        .collect();
    for &v in &used {
        map[v as usize] = u32::MAX;
    }
    fn pick<T: Copy>(attr: &Option<Vec<T>>, used: &[u32]) -> Option<Vec<T>> {
        // A shorter attribute stays shorter: the assembler refuses it by name.
        attr.as_ref().map(|a| {
            used.iter()
                .filter_map(|&v| a.get(v as usize).copied())
                .collect()
        })
    }
    let part = SceneBatch {
        material: batch.material,
        positions: used.iter().map(|&v| batch.positions[v as usize]).collect(),
        normals: pick(&batch.normals, &used),
        uv0: pick(&batch.uv0, &used),
        uv1: pick(&batch.uv1, &used),
        colors: pick(&batch.colors, &used),
        triangles: tris,
        fields: batch.fields,
    };
    (part, used)
}

/// A skinned mesh, split into one batch per primitive and dominant joint,
/// each for the MSH node (item) of its joint, in that node's frame.
#[allow(clippy::too_many_arguments)]
pub(super) fn split(
    src: &Source<'_>,
    mesh: &gltf::Mesh<'_>,
    skin: &gltf::Skin<'_>,
    weights: Option<&[f32]>,
    joint: &dyn Fn(usize) -> Option<(usize, M3)>,
    axes: &Axes,
    materials: &[u16],
    winding_cw: bool,
    blends: &mut Blends,
    notes: &mut MeshNotes,
) -> Result<Vec<(usize, SceneBatch)>> {
    let places = joint_places(src, skin, joint)?;
    let mesh_name = label(mesh);
    let mut reader = MeshReader::new(mesh, weights, materials);
    let mut out = Vec::new();
    let mut blended = false;
    for prim in mesh.primitives() {
        let Some(batch) = reader.read(src, &prim, notes)? else {
            continue;
        };
        let n = batch.positions.len();
        let what = format!("mesh {mesh_name} primitive {}", prim.index());
        let influences = Influences::read(src, &prim, n, places.len(), &what)?;
        let weights: Vec<Vec<(usize, f64)>> = (0..n).map(|v| influences.of(v)).collect();
        let mut by_joint: BTreeMap<usize, Vec<[u32; 3]>> = BTreeMap::new();
        for t in &batch.triangles {
            let d = dominant(t.map(|v| weights[v as usize].as_slice()));
            by_joint.entry(d).or_default().push(*t);
        }
        let mut map = vec![u32::MAX; n];
        for (slot, triangles) in by_joint {
            let (mut part, used) = subset(&batch, &triangles, &mut map);
            let place_d = &places[slot];
            for &v in &used {
                let w = &weights[v as usize];
                if w.is_empty() || (w.len() == 1 && w[0].0 == slot) {
                    continue;
                }
                blended = true;
                let p = batch.positions[v as usize].map(f64::from);
                blends.corners.push(Blend {
                    node: place_d.item,
                    at: apply_affine(&place_d.m, p),
                    mix: w
                        .iter()
                        .map(|&(s, wt)| (places[s].item, wt, apply_affine(&places[s].m, p)))
                        .collect(),
                });
            }
            place(&mut part, &place_d.m, axes, winding_cw, notes);
            out.push((place_d.item, part));
        }
    }
    if blended && !blends.meshes.contains(&mesh_name) {
        blends.meshes.push(mesh_name.clone());
    }
    notes.rigid.push((mesh_name, skin.index(), places.len()));
    Ok(out)
}

impl Blends {
    /// Notes the largest distance between where the blended weights put a
    /// corner and where its rigid joint does, at the rest pose and over every
    /// frame of the imported animation (sampled with a stride above a work
    /// bound, which the note says). `nodes` are the imported nodes, in item
    /// order (parents before children), with their tracks.
    pub(super) fn report(&self, nodes: &[SceneNode], axes: &Axes, report: &mut Report) {
        if self.corners.is_empty() {
            return;
        }
        let rest: Vec<Pose> = nodes
            .iter()
            .map(|n| Pose::of(axes, n.translation, n.rotation))
            .collect();
        let at_rest = self.error(&world(nodes, &rest));
        let frames = nodes
            .iter()
            .filter_map(|n| n.track.as_ref().and_then(|t| t.last()).map(|k| k.frame + 1))
            .max()
            .unwrap_or(0);
        let work: u64 = self
            .corners
            .iter()
            .map(|c| c.mix.len() as u64 + 1)
            .sum::<u64>()
            + nodes.len() as u64;
        let stride =
            (work * u64::from(frames) / ERROR_WORK + 1).min(u64::from(frames.max(1))) as u32;
        let mut animated = 0f64;
        let mut f = 0;
        while f < frames {
            let local: Vec<Pose> = nodes
                .iter()
                .zip(&rest)
                .map(|(n, r)| {
                    n.track
                        .as_ref()
                        .and_then(|t| t.binary_search_by_key(&f, |k| k.frame).ok().map(|i| t[i]))
                        .map_or(*r, |k| Pose::of(axes, k.translation, k.rotation))
                })
                .collect();
            animated = animated.max(self.error(&world(nodes, &local)));
            f += stride;
        }
        let over = match (frames, stride) {
            (0, _) => "no animation".to_string(),
            (_, 1) => format!(
                "{animated:.6} over the animation (every frame of 0..={})",
                frames - 1
            ),
            _ => format!(
                "{animated:.6} over the animation (every {stride}th frame of 0..={})",
                frames - 1
            ),
        };
        report.note(
            BLENDED,
            format!(
                "mesh {} has blended weights: {} corners follow one joint where the skin blends several; largest position error {at_rest:.6} at rest, {over}",
                crate::report::few(&self.meshes),
                self.corners.len()
            ),
        );
    }

    /// The largest corner error with these world transforms.
    fn error(&self, world: &[Affine]) -> f64 {
        self.corners
            .iter()
            .map(|c| {
                let ours = apply_affine(&world[c.node], c.at);
                let mut skinned = [0.0; 3];
                for &(node, w, p) in &c.mix {
                    let q = apply_affine(&world[node], p);
                    (0..3).for_each(|k| skinned[k] += w * q[k]);
                }
                (0..3)
                    .map(|k| (ours[k] - skinned[k]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .fold(0.0, f64::max)
    }
}

/// A node's local rigid transform in glTF's axes.
#[derive(Clone, Copy)]
struct Pose(Affine);

impl Pose {
    fn of(axes: &Axes, translation: [f32; 3], rotation: [f32; 4]) -> Pose {
        let t = axes.vec(translation).map(f64::from);
        let q = normalize(axes.quat(rotation).map(f64::from));
        Pose(affine_of(&quat_matrix(q), t))
    }
}

/// World transforms from local ones (parents come before their children).
fn world(nodes: &[SceneNode], local: &[Pose]) -> Vec<Affine> {
    let mut out: Vec<Affine> = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let w = match n.parent.filter(|&p| p < i) {
            Some(p) => compose(&out[p], &local[i].0),
            None => local[i].0,
        };
        out.push(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dominant_joint_has_the_largest_summed_weight_and_ties_go_to_the_first() {
        let a: &[(usize, f64)] = &[(2, 0.6), (1, 0.4)];
        let b: &[(usize, f64)] = &[(1, 1.0)];
        let c: &[(usize, f64)] = &[(2, 0.5), (1, 0.5)];
        assert_eq!(dominant([a, b, c]), 1); // 1: 1.9, 2: 1.1
        let d: &[(usize, f64)] = &[(3, 0.5), (2, 0.5)];
        assert_eq!(dominant([d, d, d]), 2);
        assert_eq!(dominant([&[], &[], &[]]), 0);
    }

    #[test]
    fn a_subset_keeps_only_the_used_vertices_in_first_use_order() {
        let batch = SceneBatch {
            material: 3,
            positions: (0..5).map(|i| [i as f32, 0.0, 0.0]).collect(),
            normals: None,
            uv0: Some((0..5).map(|i| [i as f32, 1.0]).collect()),
            uv1: None,
            colors: None,
            triangles: Vec::new(),
            fields: [1, 2, 3, 4],
        };
        let mut map = vec![u32::MAX; 5];
        let (part, used) = subset(&batch, &[[4, 2, 3]], &mut map);
        assert_eq!(used, [4, 2, 3]);
        assert_eq!(part.triangles, [[0, 1, 2]]);
        assert_eq!(part.positions[0], [4.0, 0.0, 0.0]);
        assert_eq!(
            part.uv0.as_deref(),
            Some(&[[4.0, 1.0], [2.0, 1.0], [3.0, 1.0]][..])
        );
        assert!(map.iter().all(|&m| m == u32::MAX), "the map is left clean");
    }
}
