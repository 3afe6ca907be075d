//! Poses through the hierarchy: local samples composed parent to child.
//!
//! FORMAT.md ("Which way the stored rotation turns"): the engine's matrix keeps
//! the translation in its 4th column and acts on column vectors, and its
//! rotation block is the transpose of the textbook matrix of the stored
//! quaternion, so a node's local-to-parent transform is
//! `p_parent = R(conj(q)) p_local + t`. That reading is [`Rotation::Conjugate`],
//! the default; [`Rotation::Stored`] is the other reading, `R(q)`.

use crate::anim::{sample, to_matrix, Pose, Quat, SampleError, Tracks};
use crate::raw::NONE;
use crate::view::ModelRef;

/// Which way a stored rotation turns a node relative to its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Rotation {
    /// The engine's matrix as it is: the node turns by the conjugate of the stored quaternion.
    #[default]
    Conjugate,
    /// The stored quaternion taken as the node's rotation.
    Stored,
}

impl Rotation {
    /// The quaternion `[w, x, y, z]` that turns the node under this reading.
    pub fn effective(self, q: Quat) -> Quat {
        match self {
            Rotation::Conjugate => [q[0], -q[1], -q[2], -q[3]],
            Rotation::Stored => q,
        }
    }
}

/// An affine transform, row-major 3x4, acting on column vectors (`p' = M p`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affine(pub [[f64; 4]; 3]);

impl Affine {
    /// The identity.
    pub const IDENTITY: Affine = Affine([
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ]);

    /// A node's local transform from a sampled pose, under a rotation reading.
    ///
    /// Uses the engine's quaternion-to-matrix formula, so a non-unit stored
    /// quaternion scales exactly as it would in the game.
    pub fn from_pose(pose: &Pose, rotation: Rotation) -> Affine {
        // to_matrix(q) is R(conj q) in textbook terms; feeding it conj(q_eff) gives R(q_eff).
        let q = rotation.effective(pose.rotation);
        let m = to_matrix([q[0], -q[1], -q[2], -q[3]], pose.translation);
        let r = |i: usize| {
            [
                m[i * 4] as f64,
                m[i * 4 + 1] as f64,
                m[i * 4 + 2] as f64,
                m[i * 4 + 3] as f64,
            ]
        };
        Affine([r(0), r(1), r(2)])
    }

    /// `self * other` (apply `other` first).
    pub fn then_child(&self, child: &Affine) -> Affine {
        let (a, b) = (&self.0, &child.0);
        let mut out = [[0.0; 4]; 3];
        for (i, row) in out.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell = (0..3).map(|k| a[i][k] * b[k][j]).sum::<f64>()
                    + if j == 3 { a[i][3] } else { 0.0 };
            }
        }
        Affine(out)
    }

    /// Transforms a point.
    pub fn point(&self, p: [f64; 3]) -> [f64; 3] {
        let m = &self.0;
        std::array::from_fn(|i| m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3])
    }

    /// Transforms a direction (no translation).
    pub fn vector(&self, v: [f64; 3]) -> [f64; 3] {
        let m = &self.0;
        std::array::from_fn(|i| m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2])
    }

    /// The translation column.
    pub fn translation(&self) -> [f64; 3] {
        [self.0[0][3], self.0[1][3], self.0[2][3]]
    }
}

/// Every node's local pose at time `t` as the engine samples it, in node order.
pub fn local_poses(view: &ModelRef<'_>, t: f32) -> Result<Vec<Pose>, SampleError> {
    let tracks = tracks(view);
    view.nodes
        .iter()
        .enumerate()
        .map(|(i, node)| sample(&tracks, i, node, t))
        .collect()
}

/// Every node's world transform at time `t`: local poses composed parent to child.
///
/// A parent index that is not smaller than the node's own (invalid; strict
/// validation rejects it) is treated as no parent.
pub fn world_transforms(
    view: &ModelRef<'_>,
    t: f32,
    rotation: Rotation,
) -> Result<Vec<Affine>, SampleError> {
    let local = local_poses(view, t)?;
    Ok(compose(view, &local, rotation))
}

/// Composes local poses through the hierarchy.
pub fn compose(view: &ModelRef<'_>, local: &[Pose], rotation: Rotation) -> Vec<Affine> {
    let mut world: Vec<Affine> = Vec::with_capacity(local.len());
    for (i, pose) in local.iter().enumerate() {
        let own = Affine::from_pose(pose, rotation);
        let parent = view.nodes.get(i).map_or(NONE, |n| n.parent.get());
        let w = match world.get(parent as usize) {
            Some(p) if parent != NONE && (parent as usize) < i => p.then_child(&own),
            _ => own,
        };
        world.push(w);
    }
    world
}

/// The rest pose of every node: its fallback key (what the game shows when not animating).
pub fn rest_poses(view: &ModelRef<'_>) -> Result<Vec<Pose>, SampleError> {
    let keys = view.anim_keys.unwrap_or(&[]);
    view.nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let k = node.fallback_key.get();
            let key = keys
                .get(k as usize)
                .ok_or(SampleError::FallbackOutOfRange {
                    node: i,
                    key: k,
                    keys: keys.len(),
                })?;
            Ok(Pose {
                translation: key.position(),
                rotation: key.quat_wxyz(),
                fallback: true,
                key: k,
            })
        })
        .collect()
}

/// The animation tables of a view.
pub fn tracks<'a>(view: &ModelRef<'a>) -> Tracks<'a> {
    Tracks {
        keys: view.anim_keys.unwrap_or(&[]),
        map: view.anim_map.unwrap_or(&[]),
        frame_count: view.frame_count,
    }
}
