//! The normal Blender writes at a corner whose custom normal it cannot keep
//! as given.
//!
//! Blender keeps a custom normal as two angles in a frame of its corner's
//! fan (the faces around the vertex joined by shared edges), in single
//! precision: the fan's own normal `lnor` (the sum of its faces' normals,
//! each weighted by its angle at the vertex), the angle from it, and the
//! angle about it from the fan's first edge. Its glTF export then rounds
//! each component of the corner normal to 4 decimals and normalises it.
//! Measured with bpy 4.2 on the generated population (docs/BLENDER.md,
//! "What comes back"), four ways that frame loses the custom normal, and
//! what the export's rounding adds:
//!
//! - **An edge of no length.** At a vertex joined to another at the same
//!   point by a face (the poles of a grid-built sphere, a fan around
//!   coincident centres), or with an edge whose squared length is 1e-35 or
//!   less or overflows (far or tiny coordinates), the frame has no
//!   direction: Blender writes `lnor` scaled by its cosine to the custom
//!   normal (or the opposite, on the custom normal's side). A face whose
//!   normal Blender cannot make counts as +Z when it has no area (its
//!   squared Newell normal 1e-35 or less) and as zero when that overflows;
//!   an angle with an edge of no length as a right angle.
//! - **A face whose normal overflows.** A corner alone in its fan (its two
//!   edges shared with no other face) of a face whose squared normal
//!   overflows (sides near 1e19 and beyond) has `lnor` zero: Blender writes
//!   the direction of the corner's next edge, scaled by its cosine to the
//!   custom normal (or the opposite); where that edge has no length
//!   either, the vector is zero and the export writes +Z.
//! - **An edge along `lnor`.** Where an edge of the fan is within 0.81
//!   degrees of `lnor` (cosine 1 - 1e-4: a face too small for Blender to
//!   make its normal counts as +Z, and its edges may run along Z), the frame
//!   is void and Blender writes `lnor` itself.
//! - **The first edge.** The angle about `lnor` is snapped to 0 when the
//!   custom normal's direction about it is within 0.81 degrees (cosine
//!   1 - 1e-4) of the fan's first edge: at a corner alone in its fan the
//!   normal comes back turned onto the plane of the face's normal and the
//!   edge to the corner's next vertex (up to 0.81 degrees: more than a
//!   packed step).
//! - **Rounding.** The first two scale the normal down before the export rounds it:
//!   where the scale is `L`, each component comes back up to 5e-5 / `L` off
//!   (measured: at most 4.6e-5 / `L` past one packed step); where it is
//!   near zero, the direction is noise.
//!
//! Blender makes these frames from its own positions, which its rounding
//! under a far node may move within the comparison's tolerance: the frames
//! are made from the original's positions and from those that came back
//! (`geometry.rs`).
//!
//! Such a normal came back from Blender, not from an edit: the comparison
//! leaves it out, as it leaves out what the original has no table for.

use crate::geometry::dot;
use msh::Model;
use std::collections::HashMap;

/// One way Blender writes a corner's normal from the custom normal given.
#[derive(Debug, Clone, Copy)]
enum Written {
    /// `±axis` scaled by its cosine to the custom normal, then rounded.
    Scaled([f64; 3]),
    /// `lnor` itself: an edge of the fan is within 0.81 degrees of it, and
    /// Blender's frame is void.
    Own([f64; 3]),
    /// +Z: Blender's vector is zero (no face normal, no edge), and the
    /// export writes zero normals as +Z.
    Up,
    /// The custom normal with its angle about `lnor` snapped to the plane
    /// of `lnor` and `edge` (unit, perpendicular), where it is that near.
    Snapped { lnor: [f64; 3], edge: [f64; 3] },
}

/// What one vertex's faces give Blender's own normal there.
#[derive(Default)]
struct Fan {
    /// The faces' normals, each weighted by its angle at the vertex.
    sum: [f64; 3],
    /// Whether an edge of the vertex has no length.
    short: bool,
    /// The directions of its edges.
    edges: Vec<[f64; 3]>,
}

/// Blender's normals at the vertices of one batch that may not keep their
/// custom normal as given.
pub(super) struct OwnNormals(HashMap<u32, Vec<Written>>);

/// Rounding of the export (half a unit of the 4th decimal), with a margin.
const ROUNDED: f64 = 1e-4;
/// Blender's threshold of two directions taken as one (`1 - 1e-4`), with a
/// margin for single precision.
const SNAP: f64 = 1.0 - 2e-4;

/// A face's normal as Blender 4.2 makes it (Newell's method in single
/// precision).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum FaceNormal {
    /// Unit length.
    Unit([f32; 3]),
    /// Its squared length is 1e-35 or less (or not a number): Blender takes +Z.
    NoArea,
    /// Its squared length overflows: Blender's is zero.
    Overflow,
}

impl FaceNormal {
    /// The normal of the triangle `p`.
    pub(super) fn of(p: [[f32; 3]; 3]) -> Self {
        let mut n = [0.0f32; 3];
        let mut prev = p[2];
        for cur in p {
            n[0] += (prev[1] - cur[1]) * (prev[2] + cur[2]);
            n[1] += (prev[2] - cur[2]) * (prev[0] + cur[0]);
            n[2] += (prev[0] - cur[0]) * (prev[1] + cur[1]);
            prev = cur;
        }
        let d = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        if d.is_infinite() && n.iter().all(|c| c.is_finite()) {
            FaceNormal::Overflow
        } else if d > 1e-35 && d.is_finite() {
            FaceNormal::Unit(n.map(|c| c / d.sqrt()))
        } else {
            FaceNormal::NoArea
        }
    }

    /// The vector Blender uses.
    fn vector(self) -> [f32; 3] {
        match self {
            FaceNormal::Unit(n) => n,
            FaceNormal::NoArea => [0.0, 0.0, 1.0],
            FaceNormal::Overflow => [0.0; 3],
        }
    }
}

impl OwnNormals {
    /// The vertices of `faces` (one batch's triangles, as Blender keeps
    /// them) whose custom normal Blender may not keep, with how it writes
    /// theirs.
    pub(super) fn of(m: &Model, faces: &[[u32; 3]]) -> Self {
        Self::at(
            |v: u32| m.positions.get(v as usize).map(|p| p.map(|c| c.get())),
            faces,
        )
    }

    /// As [`OwnNormals::of`], with the vertices at `position` (the
    /// positions Blender wrote back: under a far node its rounding moves
    /// them within the comparison's tolerance, yet enough to make a face's
    /// normal overflow where the original's does not, or the reverse).
    pub(super) fn at(position: impl Fn(u32) -> Option<[f32; 3]>, faces: &[[u32; 3]]) -> Self {
        // Each edge's faces, to find the corners alone in their fan.
        let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
        for t in faces {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
        let shared = |a: u32, b: u32| edges.get(&(a.min(b), a.max(b))).copied().unwrap_or(0) > 1;
        let mut sums: HashMap<u32, Fan> = HashMap::new();
        let mut own: HashMap<u32, Vec<Written>> = HashMap::new();
        for t in faces {
            let (Some(a), Some(b), Some(c)) = (position(t[0]), position(t[1]), position(t[2]))
            else {
                continue;
            };
            let p = [a, b, c];
            let normal = FaceNormal::of(p);
            let face = normal.vector();
            for k in 0..3 {
                let (next, prev) = (
                    unit32(sub32(p[(k + 1) % 3], p[k])),
                    unit32(sub32(p[(k + 2) % 3], p[k])),
                );
                let (angle, short) = match (next, prev) {
                    (Some(e1), Some(e2)) => {
                        let cos = dot(e1.map(f64::from), e2.map(f64::from));
                        (cos.clamp(-1.0, 1.0).acos(), false)
                    }
                    _ => (std::f64::consts::FRAC_PI_2, true),
                };
                let entry = sums.entry(t[k]).or_default();
                for (s, f) in entry.sum.iter_mut().zip(face) {
                    *s += f64::from(f) * angle;
                }
                entry.short |= short;
                entry
                    .edges
                    .extend([next, prev].into_iter().flatten().map(|e| e.map(f64::from)));
                if !shared(t[k], t[(k + 1) % 3]) && !shared(t[k], t[(k + 2) % 3]) {
                    // A corner alone in its fan: its frame is the face's
                    // normal and its next edge.
                    let written = match (normal, next.map(|e| e.map(f64::from))) {
                        (FaceNormal::Overflow, Some(edge)) => Some(Written::Scaled(edge)),
                        (FaceNormal::Overflow, None) => Some(Written::Up),
                        (FaceNormal::Unit(n), Some(edge)) => snapped_frame(n.map(f64::from), edge),
                        _ => None,
                    };
                    own.entry(t[k]).or_default().extend(written);
                }
            }
        }
        for (v, Fan { sum, short, edges }) in sums {
            let Some(axis) = unit(sum) else {
                continue;
            };
            if short {
                own.entry(v).or_default().push(Written::Scaled(axis));
            } else if edges.iter().any(|e| dot(*e, axis).abs() >= SNAP) {
                own.entry(v).or_default().push(Written::Own(axis));
            }
        }
        OwnNormals(own)
    }

    /// Whether `normal` at vertex `v` is one Blender writes there for the
    /// custom normal `custom` (the original's, unit length), within
    /// `tolerance` per component (and the export's rounding).
    pub(super) fn is_blenders(
        &self,
        v: u32,
        normal: [f32; 3],
        custom: [f32; 3],
        tolerance: f64,
    ) -> bool {
        let Some(ways) = self.0.get(&v) else {
            return false;
        };
        let n = normal.map(f64::from);
        let c = custom.map(f64::from);
        let near = |w: [f64; 3], tolerance: f64| (0..3).all(|k| (n[k] - w[k]).abs() <= tolerance);
        ways.iter().any(|way| match *way {
            Written::Scaled(axis) => {
                let scale = dot(axis, c).abs();
                let tolerance = tolerance + ROUNDED / scale;
                near(axis, tolerance) || near(axis.map(|x| -x), tolerance)
            }
            Written::Own(axis) => near(axis, tolerance),
            Written::Up => near([0.0, 0.0, 1.0], tolerance),
            Written::Snapped { lnor, edge } => {
                let cos_a = dot(lnor, c);
                let about = unit(std::array::from_fn(|k| c[k] - lnor[k] * cos_a));
                let sin_a = (1.0 - cos_a * cos_a).max(0.0).sqrt();
                about.is_some_and(|about| dot(about, edge) >= SNAP)
                    && near(
                        std::array::from_fn(|k| lnor[k] * cos_a + edge[k] * sin_a),
                        tolerance,
                    )
            }
        })
    }
}

/// The frame of a corner alone in its fan, for [`Written::Snapped`]: the
/// face's normal and the corner's next edge made perpendicular to it.
fn snapped_frame(lnor: [f64; 3], edge: [f64; 3]) -> Option<Written> {
    let along = dot(edge, lnor);
    let edge = unit(std::array::from_fn(|k| edge[k] - lnor[k] * along))?;
    Some(Written::Snapped { lnor, edge })
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

#[cfg(test)]
mod tests {
    use super::super::geometry::{compare, original_batches, position_moved, SlotState};
    use super::FaceNormal;
    use crate::export::shown_normal;
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

    /// A model of one batch: `points` with their stored normals (`packed`),
    /// `triangles`.
    fn measured(points: &[[f32; 3]], packed: &[[i8; 4]], triangles: &[[u16; 3]]) -> Model {
        let mut m = Model {
            positions: points.iter().map(|p| p.map(F32::new)).collect(),
            normals: packed.iter().map(|&n| PackedNormal(n)).collect(),
            uv0: vec![PackedUv::encode([0.0, 0.0]); points.len()],
            indices: triangles.iter().flatten().map(|&i| U16::new(i)).collect(),
            ..Model::default()
        };
        let mut b = Batch20::new_zeroed();
        b.index_count = U16::new(m.indices.len() as u16);
        m.batches.push(b);
        let mut s = Slot68::new_zeroed();
        s.batch_count = U16::new(1);
        m.slots.push(s);
        m
    }

    /// Whether `normals` (one per vertex, at `points`) come back as the original.
    fn state(m: &Model, points: &[[f32; 3]], normals: &[[f32; 3]]) -> SlotState {
        let original = original_batches(m, 0);
        let back = SceneSlot {
            batches: vec![SceneBatch {
                positions: points.to_vec(),
                normals: Some(normals.to_vec()),
                uv0: Some(vec![[0.0, 0.0]; points.len()]),
                triangles: original[0].triangles.clone(),
                ..SceneBatch::default()
            }],
            ..SceneSlot::default()
        };
        compare(m, &original, &back)
    }

    /// The vertices an edit of `normals[v]` to `edit` moves.
    fn edited(
        m: &Model,
        points: &[[f32; 3]],
        normals: &[[f32; 3]],
        v: usize,
        edit: [f32; 3],
    ) -> Vec<u32> {
        let mut normals = normals.to_vec();
        normals[v] = edit;
        match state(m, points, &normals) {
            SlotState::Moved(moved) => moved.keys().copied().collect(),
            other => panic!("vertex {v}: {other:?}"),
        }
    }

    /// Whether two unit normals are more than a packed step apart.
    fn apart(a: [f32; 3], b: [f32; 3]) -> bool {
        (0..3).any(|k| (a[k] - b[k]).abs() > 1.0 / 127.0)
    }

    #[test]
    fn blenders_normals_at_a_face_whose_normal_overflows_are_no_edit() {
        // Two triangles of the soak (seed 1, g0003, units.rlb:W3_1.MSH):
        // their Newell normals overflow single precision. bpy 4.2 wrote
        // each corner's next edge (or its opposite) at 0-2 and 5, and +Z at
        // 3 and 4, whose next edges overflow too.
        let points: [[f32; 3]; 6] = [
            [-252_444.64, 8.572_007e-30, -5.787_643_6e-13],
            [-739_862_900_000.0, -6_367.907_7, 1.758_843e-30],
            [2.330_917e-26, -8.988_774e-30, 812_201_100_000_000.0],
            [-2.765_717_3e-38, 0.0, 4.457_661e-39],
            [8.404_928e-27, 3.239_249e21, -0.0],
            [-4.489_913_5e-27, -0.0, 328.382_97],
        ];
        let packed = [
            [113, 58, 8, -83],
            [-42, 113, 40, -83],
            [-4, 64, 109, -83],
            [-17, -103, -73, -83],
            [30, 108, -59, -83],
            [-99, -36, 71, -83],
        ];
        let m = measured(&points, &packed, &[[0, 1, 2], [3, 4, 5]]);
        let back = [
            [1.0, -0.0, 0.0],
            [0.000_953_288_4, -0.0, 0.999_999_5],
            [0.0, -0.0, 1.0],
            [0.0, -0.0, 1.0],
            [0.0, -0.0, 1.0],
            [0.0, -0.0, 1.0],
        ];
        for (v, n) in back.iter().enumerate() {
            assert!(apart(shown_normal(&m.normals[v]).0, *n), "vertex {v}");
        }
        assert_eq!(state(&m, &points, &back), SlotState::Same);
        // Any other normal there is an edit.
        assert_eq!(edited(&m, &points, &back, 0, [0.6, 0.8, 0.0]), vec![0]);
        assert_eq!(edited(&m, &points, &back, 3, [0.6, 0.0, 0.8]), vec![3]);
        assert_eq!(edited(&m, &points, &back, 5, [0.0, 0.6, 0.8]), vec![5]);
    }

    #[test]
    fn a_normal_turned_onto_the_first_edge_is_no_edit() {
        // A triangle of the soak (seed 1, g0025, models/w25_1.msh), its
        // corner at vertex 0 alone in its fan: the custom normal's direction
        // about the face's normal is 0.69 degrees from the edge to vertex 1,
        // and bpy 4.2 turned it onto that edge's plane.
        let points: [[f32; 3]; 3] = [
            [-6.759_474, -7.198_113_4, 5.722_849_4],
            [-4.648_479, -6.401_343_3, 14.841_575],
            [-9.301_363, -7.810_550_7, 14.745_378],
        ];
        let packed = [[2, 76, 101, -45], [37, -122, 2, -45], [37, -122, 2, -45]];
        let m = measured(&points, &packed, &[[0, 1, 2]]);
        let side = [0.290_210_34, -0.956_834_1, 0.015_700_558];
        let back = [[0.025_199_717, 0.603_993_2, 0.796_591], side, side];
        assert!(apart(shown_normal(&m.normals[0]).0, back[0]));
        assert_eq!(state(&m, &points, &back), SlotState::Same);
        // Turned further, or elsewhere: an edit.
        let tilted = [0.044_9, 0.598_8, 0.798_4];
        assert!(apart(tilted, back[0]) && apart(tilted, shown_normal(&m.normals[0]).0));
        assert_eq!(edited(&m, &points, &back, 0, tilted), vec![0]);
    }

    #[test]
    fn blenders_normal_at_a_pole_is_rounded_by_the_export() {
        // A pole of the soak (seed 1, g0018, models/w18_1.msh): vertices
        // 0-2 at one point, 3 and 4 on the ring; the custom normal at 1 is
        // nearly perpendicular to Blender's own there (cosine 0.005), so
        // Blender's corner normal is that short and the export's rounding
        // to 4 decimals turns it by more than a packed step.
        let pole = [12.848_074, 5.647_79, -3.451_063_4];
        let points: [[f32; 3]; 5] = [
            pole,
            pole,
            pole,
            [14.539_763, 8.808_878, -7.174_937_2],
            [16.07022, 9.313_652, -5.154_223],
        ];
        let packed = [
            [62, -109, -19, -28],
            [62, -109, -19, -28],
            [62, -109, -19, -28],
            [83, -69, -67, -28],
            [103, -63, -41, -28],
        ];
        let m = measured(&points, &packed, &[[1, 3, 4], [0, 3, 1], [1, 4, 2]]);
        let z = [0.0, 0.0, 1.0];
        let back = [
            z,
            [0.109_764_27, -0.109_764_27, 0.987_878_4],
            z,
            [0.653_329_6, -0.543_124_6, -0.527_423_9],
            [0.807_784_8, -0.494_090_7, -0.321_493_95],
        ];
        assert_eq!(state(&m, &points, &back), SlotState::Same);
        assert_eq!(edited(&m, &points, &back, 1, [0.3, -0.1, 0.95]), vec![1]);
    }

    #[test]
    fn blender_makes_a_faces_normal_by_newells_method() {
        // A triangle of the soak (seed 2, g0046, models/w46_0.msh): its
        // cross product is along -Y, but the sums of Newell's method cancel
        // in single precision (no area: +Z), and its edges have no length
        // in single precision: bpy 4.2 wrote +Z at every corner.
        let points: [[f32; 3]; 3] = [
            [1.119_555_9e-38, 0.0, -3.590_296_2e-38],
            [7.093_217e-26, -1.561_034e-37, -0.0],
            [0.005_729_302_3, 754_217.75, 7.630_016e27],
        ];
        let packed = [[88, 71, 59, -14], [-45, -68, 97, -14], [108, -25, 63, -14]];
        let m = measured(&points, &packed, &[[0, 1, 2]]);
        assert_eq!(FaceNormal::of(points), FaceNormal::NoArea);
        let back = [[0.0, -0.0, 1.0]; 3];
        assert_eq!(state(&m, &points, &back), SlotState::Same);
        // The cross product's normal is an edit.
        assert_eq!(edited(&m, &points, &back, 2, [0.0, -1.0, 0.0]), vec![2]);
    }

    #[test]
    fn blenders_normal_where_an_edge_runs_along_its_own_is_no_edit() {
        // Two faces of the soak (seed 1, g0050, units.rlb:W50_1.MSH) too
        // small for Blender to make their normals (+Z); the edge from 2 to
        // 3 runs along Z, so the frame at 2 is void and bpy 4.2 wrote +Z
        // there (0 and 1 kept theirs; [1, 2, 3] has zero area as stored,
        // its corners are not compared).
        let points: [[f32; 3]; 4] = [
            [7.524_771e-6, 9.335_892e-6, 4.777_074e-7],
            [7.524_771e-6, 9.335_892e-6, 4.777_063_5e-7],
            [8.264_788e-6, 1.000_614_7e-5, 4.217_326_6e-7],
            [8.264_788e-6, 1.000_614_7e-5, 4.217_317e-7],
        ];
        let packed = [[-83, 94, 21, -113]; 4];
        let m = measured(&points, &packed, &[[0, 2, 1], [1, 2, 3]]);
        let z = [0.0, -0.0, 1.0];
        let back = [
            [-0.652_799, 0.739_298_76, 0.165_199_71],
            [-0.652_809_7, 0.739_310_9, 0.165_102_44],
            z,
            z,
        ];
        assert_eq!(state(&m, &points, &back), SlotState::Same);
        assert_eq!(edited(&m, &points, &back, 2, [0.0, 1.0, 0.0]), vec![2]);
    }

    #[test]
    fn blenders_normals_from_the_positions_it_wrote_back_are_no_edit() {
        // A triangle of the soak (seed 4, g0014, Objects.RLB:W14_0.MSH),
        // drawn by two slots, under a node at 7e29. From the original's
        // positions its Newell normal is (0, 1, 0); Blender's rounding of
        // the far node moved vertex 1 by 4e11 and 2e12 (within the tolerance at
        // 6.5e27), and from those positions the normal overflows (+Z).
        // bpy 4.2 wrote +Z at 0 and 2 (the second frame) and (0, 1, 0) at
        // 1 (the first), in both slots.
        let points: [[f32; 3]; 3] = [
            [-0.0, 5.296_715e-39, 7.743_380_5e-28],
            [-0.0, -6_051_735.0, -6.520_693e27],
            [-9.207_550_4e-23, 9.685_387e-11, -0.0],
        ];
        let packed = [[72, 87, 58, 0], [71, 18, 104, 0], [1, -103, -75, 0]];
        let m = measured(&points, &packed, &[[0, 1, 2]]);
        // Per slot: the positions and the normals that came back.
        type Back = [[f32; 3]; 3];
        let slots: [(Back, Back); 2] = [
            (
                [
                    [2.1e-44, 5.296_671e-39, 7.743_380_5e-28],
                    [-180_985_600_000.0, 361_965_130_000.0, -6.520_693e27],
                    [-9.208_088e-23, 9.685_387e-11, -5.376_47e-27],
                ],
                [
                    [-2.775_557_6e-17, 5.551_115e-17, 1.0],
                    [5.551_115e-17, 1.0, 5.551_115e-17],
                    [-2.775_557_6e-17, 5.551_115e-17, 1.0],
                ],
            ),
            (
                [
                    [2.24e-43, 5.296_779e-39, 7.743_380_5e-28],
                    [-1_883_381_300_000.0, -542_962_840_000.0, -6.520_693e27],
                    [-9.206_628_4e-23, 9.685_387e-11, 8.064_704_5e-27],
                ],
                [
                    [-2.914_335_4e-16, -8.326_673e-17, 1.0],
                    [-8.391_725e-17, 1.0, -8.326_673e-17],
                    [-2.914_335_4e-16, -8.326_673e-17, 1.0],
                ],
            ),
        ];
        for (back, normals) in &slots {
            for (v, n) in normals.iter().enumerate() {
                assert!(apart(shown_normal(&m.normals[v]).0, *n), "vertex {v}");
            }
            // Before the rule, vertices 0 and 2 moved (the model was rebuilt).
            assert_eq!(state(&m, back, normals), SlotState::Same);
            // Any other normal there is an edit.
            assert_eq!(edited(&m, back, normals, 0, [0.6, 0.8, 0.0]), vec![0]);
            assert_eq!(edited(&m, back, normals, 1, [0.6, 0.0, 0.8]), vec![1]);
            assert_eq!(edited(&m, back, normals, 2, [0.0, 0.6, 0.8]), vec![2]);
        }
    }
}
