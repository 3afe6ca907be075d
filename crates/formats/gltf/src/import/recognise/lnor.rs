//! The normal Blender writes where a custom normal lies, around its fan's
//! normal, within Blender's threshold of an edge's direction.
//!
//! Blender keeps a custom normal as two angles in the frame of its fan (the
//! corners of a vertex its smooth edges join): alpha, from the fan's own
//! normal (the sum of the fan's face normals, each weighted by its angle at
//! the vertex), and beta, around that normal from the fan's first edge.
//! Where the custom normal's direction around the fan's normal is within
//! acos(1 - 1e-4) (0.81 degrees) of that edge's, Blender stores beta as 0:
//! the normal comes back turned about the fan's normal into the edge's
//! plane, up to 0.81 degrees times sin(alpha) away (more than a packed
//! step). Measured with bpy 4.2 on the generated population (issue 40: seed
//! 1, g0005, `Objects.RLB:W5_1.MSH`: a custom normal 0.68 degrees around
//! from an edge came back 0.0016 degrees from it, 0.51 degrees from where
//! it was; docs/BLENDER.md, "What Blender changes").
//!
//! Such a normal came back from Blender, not from an edit: the comparison
//! leaves it out, as it leaves out the normals of `fan.rs`.

use super::geometry::corner_of;
use crate::geometry::{cross, dot, sub};
use crate::scene::SceneBatch;
#[cfg(test)]
use crate::scene::SceneSlot;
use msh::Model;
use std::collections::HashMap;

/// How near (the cosine) a custom normal's direction around its fan's
/// normal must be to an edge's for Blender to store beta as 0: Blender's
/// `LNOR_SPACE_TRIGO_THRESHOLD` (1 - 1e-4), with a margin for the single
/// precision Blender computes it in.
const SNAP: f64 = 1.0 - 1.2e-4;

/// An original triangle at a vertex, with the normal that came back at the
/// vertex's corner of it.
type Corner = ([u32; 3], [f32; 3]);

/// The faces at each vertex of one batch, with the normal that came back at
/// the vertex's corner of each.
pub(super) struct Fans(HashMap<u32, Vec<Corner>>);

impl Fans {
    /// The faces of `pairs` (original triangle, triangle that came back in
    /// `batch`) at each original vertex, with the normal `batch` holds there.
    pub(super) fn of(batch: &SceneBatch, pairs: &[([u32; 3], [u32; 3])]) -> Self {
        let mut at: HashMap<u32, Vec<Corner>> = HashMap::new();
        for (ta, tb) in pairs {
            for k in 0..3 {
                if let Some(n) = corner_of(batch, tb[k]).and_then(|c| c.normal) {
                    at.entry(ta[k]).or_default().push((*ta, n));
                }
            }
        }
        Fans(at)
    }

    /// Whether `back`, at a corner of vertex `v` of `m`, is the custom
    /// normal `original` with Blender's beta set to 0 (within `tolerance`
    /// per component): turned about the normal of the fan (the faces at `v`
    /// that came back with `back`) into the plane of one of its edges, from
    /// within Blender's threshold of it.
    pub(super) fn is_snapped(
        &self,
        m: &Model,
        v: u32,
        original: [f32; 3],
        back: [f32; 3],
        tolerance: f64,
    ) -> bool {
        let position = |w: u32| {
            m.positions
                .get(w as usize)
                .map(|p| p.map(|c| f64::from(c.get())))
        };
        let Some(fan) = self.0.get(&v) else {
            return false;
        };
        let faces: Vec<[u32; 3]> = fan
            .iter()
            .filter(|(_, n)| n.map(f32::to_bits) == back.map(f32::to_bits))
            .map(|(t, _)| *t)
            .collect();
        let Some(centre) = position(v) else {
            return false;
        };
        // The fan's normal: its face normals, each weighted by its angle at `v`.
        let mut sum = [0.0; 3];
        let mut edges = Vec::new();
        for t in &faces {
            let Some(k) = t.iter().position(|&w| w == v) else {
                continue;
            };
            let (Some(next), Some(prev)) = (position(t[(k + 1) % 3]), position(t[(k + 2) % 3]))
            else {
                continue;
            };
            let (e1, e2) = (sub(next, centre), sub(prev, centre));
            let (Some(face), Some(u1), Some(u2)) = (unit(cross(e1, e2)), unit(e1), unit(e2)) else {
                continue;
            };
            let angle = dot(u1, u2).clamp(-1.0, 1.0).acos();
            for (s, f) in sum.iter_mut().zip(face) {
                *s += f * angle;
            }
            edges.extend([u1, u2]);
        }
        let (Some(lnor), Some(n)) = (unit(sum), unit(original.map(f64::from))) else {
            return false;
        };
        // The custom normal: alpha from the fan's normal, its direction around it.
        let cos_alpha = dot(n, lnor);
        let Some(around) = unit(sub(n, lnor.map(|c| c * cos_alpha))) else {
            return false;
        };
        let sin_alpha = (1.0 - cos_alpha * cos_alpha).max(0.0).sqrt();
        let b = back.map(f64::from);
        edges.iter().any(|e| {
            let Some(edge) = unit(sub(*e, lnor.map(|c| c * dot(*e, lnor)))) else {
                return false;
            };
            dot(around, edge) >= SNAP
                && (0..3)
                    .all(|i| (lnor[i] * cos_alpha + edge[i] * sin_alpha - b[i]).abs() <= tolerance)
        })
    }
}

/// `v` at unit length, `None` for a zero (or not finite) length.
fn unit(v: [f64; 3]) -> Option<[f64; 3]> {
    let len = dot(v, v).sqrt();
    (len > 1e-12 && len.is_finite()).then(|| v.map(|c| c / len))
}

#[cfg(test)]
mod tests {
    use super::super::geometry::{compare, original_batches, SlotState};
    use super::*;
    use msh::raw::{Batch20, PackedNormal, PackedUv, Slot68};
    use zerocopy::little_endian::{F32, U16};
    use zerocopy::FromZeros;

    /// Four vertices of seed 1, g0005, `Objects.RLB:W5_1.MSH` (its 265, 259,
    /// 264 and 249), their packed normals, and two of its faces at vertex 0
    /// (one fan: they share the edge 0-1).
    const POINTS: [[f32; 3]; 4] = [
        [11.979_197, 4.899_325, 16.432_205],
        [19.589_958, -0.601_033_8, 11.253_15],
        [7.334_344_4, 1.156_286_6, 17.533_741],
        [9.015_054, 0.458_944_35, 2.423_851],
    ];
    const NORMALS: [[i8; 3]; 4] = [
        [16, -37, -120],
        [46, -77, 90],
        [36, 85, -87],
        [61, -63, -91],
    ];
    const FACES: [[u32; 3]; 2] = [[0, 1, 2], [3, 1, 0]];
    /// What bpy 4.2 wrote at vertex 0 (both corners): 0.51 degrees from its
    /// custom normal, turned into the plane of the edge to vertex 3.
    const TURNED: [f32; 3] = [0.125_996_29, -0.283_791_66, -0.950_572_1];
    /// What bpy 4.2 wrote at vertices 1-3 (their custom normals).
    const KEPT: [[f32; 3]; 3] = [
        [0.362_009_35, -0.606_115_64, 0.708_218_3],
        [0.283_814_46, 0.670_134_1, -0.685_834_94],
        [0.482_699_66, -0.498_599_68, -0.719_999_55],
    ];

    fn model() -> Model {
        let mut m = Model {
            positions: POINTS.iter().map(|p| p.map(F32::new)).collect(),
            normals: NORMALS
                .iter()
                .map(|n| PackedNormal([n[0], n[1], n[2], 0]))
                .collect(),
            uv0: vec![PackedUv::encode([0.0, 0.0]); 4],
            indices: FACES
                .iter()
                .flatten()
                .map(|&i| U16::new(i as u16))
                .collect(),
            ..Model::default()
        };
        let mut b = Batch20::new_zeroed();
        b.index_count = U16::new(6);
        m.batches.push(b);
        let mut s = Slot68::new_zeroed();
        s.batch_count = U16::new(1);
        m.slots.push(s);
        m
    }

    /// What came back: every corner its own vertex, vertex 0 with `at_0`.
    fn back(at_0: [f32; 3]) -> SceneSlot {
        let corners: Vec<u32> = FACES.iter().flatten().copied().collect();
        let normal = |v: u32| if v == 0 { at_0 } else { KEPT[v as usize - 1] };
        SceneSlot {
            batches: vec![SceneBatch {
                positions: corners.iter().map(|&v| POINTS[v as usize]).collect(),
                normals: Some(corners.iter().map(|&v| normal(v)).collect()),
                uv0: Some(vec![[0.0, 0.0]; 6]),
                triangles: vec![[0, 1, 2], [3, 4, 5]],
                ..SceneBatch::default()
            }],
            ..SceneSlot::default()
        }
    }

    /// `n` turned about `axis` (unit) by `degrees`.
    fn turn(n: [f32; 3], axis: [f64; 3], degrees: f64) -> [f32; 3] {
        let n = n.map(f64::from);
        let (s, c) = degrees.to_radians().sin_cos();
        let x = cross(axis, n);
        let d = dot(axis, n);
        std::array::from_fn(|i| (n[i] * c + x[i] * s + axis[i] * d * (1.0 - c)) as f32)
    }

    /// The fan's normal at vertex 0 (its two faces weighted by their angles).
    fn fan_normal() -> [f64; 3] {
        let p = POINTS.map(|p| p.map(f64::from));
        let mut sum = [0.0; 3];
        for t in FACES {
            let k = t.iter().position(|&v| v == 0).unwrap();
            let (a, b) = (
                sub(p[t[(k + 1) % 3] as usize], p[0]),
                sub(p[t[(k + 2) % 3] as usize], p[0]),
            );
            let face = unit(cross(a, b)).unwrap();
            let angle = dot(unit(a).unwrap(), unit(b).unwrap()).acos();
            for i in 0..3 {
                sum[i] += face[i] * angle;
            }
        }
        unit(sum).unwrap()
    }

    #[test]
    fn a_normal_blender_turned_into_an_edge_plane_is_no_edit() {
        let m = model();
        let original = original_batches(&m, 0);
        assert_eq!(compare(&m, &original, &back(TURNED)), SlotState::Same);
        // Without the rule it was an edit: more than a packed step away.
        let shown = crate::export::shown_normal(&m.normals[0]).0;
        assert!((0..3).any(|i| (shown[i] - TURNED[i]).abs() > 1.0 / 127.0));
    }

    #[test]
    fn a_normal_turned_past_the_edge_plane_is_an_edit() {
        let m = model();
        let original = original_batches(&m, 0);
        // One degree around the fan's normal from Blender's, away from the
        // custom normal (0.68 degrees the other way): in no edge's plane.
        let shown = crate::export::shown_normal(&m.normals[0]).0;
        let off = |n: [f32; 3]| (0..3).map(|i| (n[i] - shown[i]).abs()).fold(0.0, f32::max);
        let toward = if off(turn(TURNED, fan_normal(), 0.68)) < 1e-3 {
            1.0
        } else {
            -1.0
        };
        assert!(off(turn(TURNED, fan_normal(), 0.68 * toward)) < 1e-3);
        let edited = turn(TURNED, fan_normal(), -toward);
        let SlotState::Moved(moved) = compare(&m, &original, &back(edited)) else {
            panic!("a normal a degree past Blender's is an edit");
        };
        assert_eq!(moved.keys().copied().collect::<Vec<_>>(), vec![0]);
        assert_eq!(moved[&0].normal, Some(edited));
    }

    #[test]
    fn only_a_normal_within_the_threshold_of_an_edge_is_turned() {
        let m = model();
        let fans = Fans::of(
            &back(TURNED).batches[0],
            &[([0, 1, 2], [0, 1, 2]), ([3, 1, 0], [3, 4, 5])],
        );
        let axis = fan_normal();
        let tolerance = 1.0 / 127.0;
        // TURNED is in the plane of the edge to vertex 3; a custom normal
        // 0.7 degrees around from it turns into it, one 0.9 degrees (past
        // acos(1 - 1e-4) = 0.81) does not.
        for (degrees, turned) in [(0.7, true), (-0.7, true), (0.9, false), (-0.9, false)] {
            let custom = turn(TURNED, axis, degrees);
            assert_eq!(
                fans.is_snapped(&m, 0, custom, TURNED, tolerance),
                turned,
                "{degrees} degrees"
            );
        }
        // Another vertex, another normal: not this fan's.
        let custom = turn(TURNED, axis, 0.7);
        assert!(!fans.is_snapped(&m, 1, custom, TURNED, tolerance));
        assert!(!fans.is_snapped(&m, 0, custom, KEPT[0], tolerance));
    }
}
