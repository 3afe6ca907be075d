//! The normal Blender writes at a vertex whose custom normal it cannot keep.
//!
//! Blender keeps a custom normal as an offset in a frame built from the
//! edges at its vertex, in single precision. At a vertex joined to another
//! at the same point by a face (the poles of a grid-built sphere, a fan
//! around coincident centres) one of those edges has no length (nor has one
//! whose squared length is 1e-35 or less, or overflows: far or tiny
//! coordinates), the frame has no direction, and Blender writes its own
//! normal there, or its opposite (whichever side the custom normal was on):
//! the sum of the normals of the vertex's faces, each weighted by its angle
//! at the vertex, where a face whose normal Blender cannot make (no area, or
//! overflow) counts as +Z and an angle with such an edge as a right angle.
//! Measured with bpy 4.2 on the poles of generated spheres and their far
//! coordinates (docs/BLENDER.md, "What Blender changes"): within 0.02 degrees.
//!
//! Such a normal came back from Blender, not from an edit: the comparison
//! leaves it out, as it leaves out what the original has no table for.

use crate::geometry::dot;
use msh::Model;
use std::collections::HashMap;

/// Blender's own normals at the vertices of one batch that cannot keep a
/// custom normal (unit length, or zero where the faces cancel out).
pub(super) struct OwnNormals(HashMap<u32, [f64; 3]>);

impl OwnNormals {
    /// The vertices of `faces` (one batch's triangles, as Blender keeps
    /// them) that share a face with another vertex at their point, with
    /// Blender's normal for each.
    pub(super) fn of(m: &Model, faces: &[[u32; 3]]) -> Self {
        let position = |v: u32| m.positions.get(v as usize).map(|p| p.map(|c| c.get()));
        // Per vertex: the weighted sum, and whether an edge of it has no length.
        let mut sums: HashMap<u32, ([f64; 3], bool)> = HashMap::new();
        for t in faces {
            let (Some(a), Some(b), Some(c)) = (position(t[0]), position(t[1]), position(t[2]))
            else {
                continue;
            };
            let p = [a, b, c];
            let face = unit32(cross32(sub32(a, b), sub32(b, c))).unwrap_or([0.0, 0.0, 1.0]);
            for k in 0..3 {
                let (e1, e2) = (
                    unit32(sub32(p[(k + 1) % 3], p[k])),
                    unit32(sub32(p[(k + 2) % 3], p[k])),
                );
                let (angle, short) = match (e1, e2) {
                    (Some(e1), Some(e2)) => {
                        let cos = dot(e1.map(f64::from), e2.map(f64::from));
                        (cos.clamp(-1.0, 1.0).acos(), false)
                    }
                    _ => (std::f64::consts::FRAC_PI_2, true),
                };
                let entry = sums.entry(t[k]).or_insert(([0.0; 3], false));
                for (s, f) in entry.0.iter_mut().zip(face) {
                    *s += f64::from(f) * angle;
                }
                entry.1 |= short;
            }
        }
        OwnNormals(
            sums.into_iter()
                .filter(|(_, (_, short))| *short)
                .map(|(v, (sum, _))| (v, unit(sum).unwrap_or([0.0; 3])))
                .collect(),
        )
    }

    /// Whether `normal` at vertex `v` is Blender's own (or its opposite),
    /// within `tolerance` per component, at a vertex that cannot keep a
    /// custom normal.
    pub(super) fn is_blenders(&self, v: u32, normal: [f32; 3], tolerance: f64) -> bool {
        let Some(own) = self.0.get(&v).filter(|n| **n != [0.0; 3]) else {
            return false;
        };
        let n = normal.map(f64::from);
        [1.0, -1.0]
            .iter()
            .any(|s| (0..3).all(|k| (n[k] - s * own[k]).abs() <= tolerance))
    }
}

/// `v` at unit length, `None` for a zero (or not finite) length.
fn unit(v: [f64; 3]) -> Option<[f64; 3]> {
    let len = dot(v, v).sqrt();
    (len > 0.0 && len.is_finite()).then(|| v.map(|c| c / len))
}

/// `v` at unit length as Blender makes it, in single precision: `None`
/// where its squared length is 1e-35 or less or not finite (Blender gets a
/// zero or NaN vector there).
fn unit32(v: [f32; 3]) -> Option<[f32; 3]> {
    let d = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    (d > 1e-35 && d.is_finite()).then(|| v.map(|c| c / d.sqrt()))
}

fn sub32(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross32(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[cfg(test)]
mod tests {
    use super::super::geometry::{compare, original_batches, position_moved, SlotState};
    use crate::scene::{SceneBatch, SceneSlot};
    use msh::raw::{Batch20, PackedNormal, PackedUv, Slot68};
    use msh::Model;
    use zerocopy::little_endian::{F32, U16, U32};
    use zerocopy::FromZeros;

    /// A cap: vertices 0-3 at the pole (0, 0, 1), each with the normal
    /// (0, 0.3, 0.95); vertices 4-7 a ring at z = 0 (at 0, 80, 170 and 260
    /// degrees); faces `[i, 4 + i, 4 + (i + 1) % 4]`, and the zero-area
    /// `[i, 4 + i + 1, i + 1]` joining the pole's vertices.
    fn cap() -> (Model, Vec<[f32; 3]>) {
        let mut m = Model::default();
        let ring = [0.0f64, 80.0, 170.0, 260.0].map(|a: f64| {
            let r = a.to_radians();
            [r.cos() as f32, r.sin() as f32, 0.0]
        });
        let mut points = vec![[0.0, 0.0, 1.0]; 4];
        points.extend(ring);
        let len = (0.3f64 * 0.3 + 0.95 * 0.95).sqrt();
        let pole = [0.0, 0.3 / len, 0.95 / len].map(|c| c as f32);
        let mut normals = vec![pole; 4];
        normals.extend(ring.map(|r| {
            let l = (r[0] * r[0] + r[1] * r[1] + 0.25).sqrt();
            [r[0] / l, r[1] / l, 0.5 / l]
        }));
        m.positions = points.iter().map(|p| p.map(F32::new)).collect();
        m.normals = normals
            .iter()
            .map(|n| PackedNormal::encode(*n, 0))
            .collect();
        m.uv0 = vec![PackedUv::encode([0.0, 0.0]); 8];
        let mut indices = Vec::new();
        for i in 0..4u16 {
            indices.extend([i, 4 + i, 4 + (i + 1) % 4]);
        }
        for i in 0..3u16 {
            indices.extend([i, 4 + i + 1, i + 1]);
        }
        m.indices = indices.into_iter().map(U16::new).collect();
        let mut b = Batch20::new_zeroed();
        b.index_count = U16::new(m.indices.len() as u16);
        b.index_start = U32::new(0);
        m.batches.push(b);
        let mut s = Slot68::new_zeroed();
        s.batch_count = U16::new(1);
        m.slots.push(s);
        (m, points)
    }

    /// What came back: every vertex once, in order, with `normals`.
    fn back(points: &[[f32; 3]], normals: Vec<[f32; 3]>, m: &Model) -> SceneSlot {
        let triangles = original_batches(m, 0).remove(0).triangles;
        SceneSlot {
            batches: vec![SceneBatch {
                positions: points.to_vec(),
                normals: Some(normals),
                uv0: Some(vec![[0.0, 0.0]; 8]),
                triangles,
                ..SceneBatch::default()
            }],
            ..SceneSlot::default()
        }
    }

    /// The normals bpy 4.2 wrote for the cap (glTF import with its defaults,
    /// export; measured, in the game's frame): vertex 0 keeps its normal,
    /// 1-3 get Blender's own.
    const MEASURED: [[f32; 3]; 8] = [
        [0.000_1, 0.301_097_87, 0.953_593_25],
        [-0.127_666_6, 0.182_308_33, 0.974_917_9],
        [-0.182_326_2, -0.127_684_44, 0.974_912_2],
        [0.258_726_6, -0.308_343_6, 0.915_415_1],
        [0.894_427_2, 0.0, 0.447_213_6],
        [0.155_299_7, 0.880_798_3, 0.447_299_1],
        [-0.880_798_3, 0.155_299_7, 0.447_299_1],
        [-0.155_306_6, -0.880_837_7, 0.447_219_1],
    ];

    #[test]
    fn the_normals_blender_writes_at_a_pole_are_no_edit() {
        let (m, points) = cap();
        let original = original_batches(&m, 0);
        // Without the rule the three rewritten pole normals were edits.
        assert_eq!(
            compare(&m, &original, &back(&points, MEASURED.to_vec(), &m)),
            SlotState::Same
        );
        // The opposite of Blender's own normal (a custom normal on the other side).
        let mut flipped = MEASURED.to_vec();
        flipped[2] = flipped[2].map(|c| -c);
        assert_eq!(
            compare(&m, &original, &back(&points, flipped, &m)),
            SlotState::Same
        );
    }

    #[test]
    fn another_normal_at_a_pole_is_still_an_edit() {
        let (m, points) = cap();
        let original = original_batches(&m, 0);
        for v in [2usize, 5] {
            let mut edited = MEASURED.to_vec();
            edited[v] = [0.0, -0.6, 0.8];
            let SlotState::Moved(moved) = compare(&m, &original, &back(&points, edited, &m)) else {
                panic!("vertex {v}: an edited normal is a moved vertex");
            };
            assert_eq!(moved.keys().copied().collect::<Vec<_>>(), vec![v as u32]);
            assert_eq!(moved[&(v as u32)].normal, Some([0.0, -0.6, 0.8]));
            assert!(!position_moved(&m, v as u32, &moved[&(v as u32)]));
        }
    }

    #[test]
    fn blenders_normal_at_an_edge_too_short_for_single_precision_is_no_edit() {
        // A triangle of the soak (seed 1, g0002, models/w2_2.msh): the edge
        // from vertex 0 to 1 has a squared length of 4e-39 (Blender's vector
        // is zero there). bpy 4.2 gave vertex 0 the normal below, 1 and 2
        // theirs.
        let mut m = Model::default();
        let points: [[f32; 3]; 3] = [
            [0.0, -1.664_665_8e-26, 0.0],
            [5.325_049e-39, -6.598_82e-20, 2.085_71e-39],
            [3_941_158_400_000.0, 587_650_200_000_000.0, -0.0],
        ];
        m.positions = points.iter().map(|p| p.map(F32::new)).collect();
        let normals = [
            [-0.621_970_1, 0.204_699_04, 0.755_811_8],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
        ];
        m.normals = normals
            .iter()
            .map(|n| PackedNormal::encode(*n, 0))
            .collect();
        m.uv0 = vec![PackedUv::encode([0.0, 0.0]); 3];
        m.indices = [0u16, 1, 2].map(U16::new).to_vec();
        let mut b = Batch20::new_zeroed();
        b.index_count = U16::new(3);
        m.batches.push(b);
        let mut s = Slot68::new_zeroed();
        s.batch_count = U16::new(1);
        m.slots.push(s);
        let original = original_batches(&m, 0);
        let back = |first: [f32; 3]| SceneSlot {
            batches: vec![SceneBatch {
                positions: points.to_vec(),
                normals: Some(vec![first, normals[1], normals[2]]),
                uv0: Some(vec![[0.0, 0.0]; 3]),
                triangles: vec![[0, 1, 2]],
                ..SceneBatch::default()
            }],
            ..SceneSlot::default()
        };
        let measured = [1.387_778_8e-16, 5.551_115e-16, 1.0];
        assert_eq!(compare(&m, &original, &back(measured)), SlotState::Same);
        assert!(matches!(
            compare(&m, &original, &back([0.6, 0.0, 0.8])),
            SlotState::Moved(_)
        ));
    }

    #[test]
    fn a_normal_that_is_not_finite_is_not_compared() {
        let (m, points) = cap();
        let original = original_batches(&m, 0);
        let mut nan = MEASURED.to_vec();
        nan[5] = [f32::NAN; 3];
        nan[6] = [f32::INFINITY, 0.0, 0.0];
        assert_eq!(
            compare(&m, &original, &back(&points, nan, &m)),
            SlotState::Same
        );
    }
}
