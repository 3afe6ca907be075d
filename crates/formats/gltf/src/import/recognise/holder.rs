//! A slot holder's translation that Blender's world matrices made. The
//! export puts a slot's mesh on a child node of its MSH node, at the
//! identity; Blender writes that child's local matrix back as
//! `inverse(parent world) * child world` in single precision, at the frame
//! it exports on (the timeline's first). Under a far node the product is the
//! identity but for the rounding of the far translation, and read as the
//! mesh's offset that rounding moved the whole slot (measured with bpy 4.2
//! on the soak's models: 5.8e17 under a node at 1.5e25, 0.41 under one at
//! 9.5e6; 0.32 to 1.07 single-precision steps of the reach below).

use msh::anim::Pose;
use msh::Model;

/// How many single-precision steps (`f32::EPSILON` of the reach) Blender's
/// rounding may take: a row of the product is three products and three sums,
/// each rounded by at most half a step (3), on the inverse's translation,
/// itself rounded by at most a step (1).
const STEPS: f64 = 4.0;

/// Every node's local pose at frame 0, sampled once for all of a model's
/// [`is_rounding`] calls (`None` where the model's animation cannot be
/// sampled: then no holder translation is rounding).
pub(super) fn poses_at_start(m: &Model) -> Option<Vec<Pose>> {
    msh::pose::local_poses(&m.view(), 0.0).ok()
}

/// The reach of node `owner` of `m` at frame 0 (`poses`: its nodes' local
/// poses then): the sum of the largest coordinates of its translation and
/// its ancestors' (a bound of the largest coordinate of its world
/// translation).
fn reach(m: &Model, poses: &[Pose], owner: usize) -> Option<f64> {
    let mut sum = 0.0;
    let mut node = Some(owner);
    // A parent chain visits each node once (the model checks it); the count
    // guards a malformed one.
    for _ in 0..poses.len() {
        let Some(i) = node else { break };
        let pose = poses.get(i)?;
        sum += pose
            .translation
            .iter()
            .map(|c| f64::from(c.abs()))
            .fold(0.0, f64::max);
        node = m.nodes.get(i)?.parent().map(usize::from);
    }
    Some(sum)
}

/// Whether a translation of largest coordinate `far` on a slot holder of
/// node `owner` is Blender's rounding: within [`STEPS`] single-precision
/// steps of the owner's reach (`poses`: [`poses_at_start`]).
pub(super) fn is_rounding(m: &Model, poses: Option<&[Pose]>, owner: usize, far: f64) -> bool {
    poses
        .and_then(|poses| reach(m, poses, owner))
        .is_some_and(|reach| far <= STEPS * f64::from(f32::EPSILON) * reach)
}

#[cfg(test)]
mod tests {
    use super::*;
    use msh::derive::{Key, Track};

    /// The walker with node 1 at 1.5e25 (measured: a holder under it came
    /// back at 5.8e17) and every other node at (1, 2, 3).
    fn far() -> Model {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../fixtures/small/models/m012_walker.msh"
        );
        let mut m = Model::from_bytes(&std::fs::read(path).unwrap()).unwrap();
        let at = |pos: [f32; 3]| Track {
            keys: vec![Key {
                time: 0.0,
                pos,
                quat: [0, 0, 0, 32767],
            }],
        };
        let mut tracks: Vec<Track> = (0..m.nodes.len()).map(|_| at([1.0, 2.0, 3.0])).collect();
        tracks[1] = at([1.5e25, 2.0, 3.0]);
        msh::derive::write_animation(&mut m, &tracks).unwrap();
        m
    }

    #[test]
    fn a_holder_off_by_a_far_ancestors_rounding_is_not_an_offset() {
        let m = far();
        let poses = poses_at_start(&m);
        let rounding = |owner, far| is_rounding(&m, poses.as_deref(), owner, far);
        assert_eq!(m.nodes[1].parent(), Some(0));
        let child = (0..m.nodes.len())
            .find(|&i| m.nodes[i].parent() == Some(1))
            .unwrap();
        // Measured: 0.32 steps; the bound: 4 steps of 1.5e25 + 3 (7.2e18).
        assert!(rounding(1, 5.8e17));
        assert!(rounding(child, 5.8e17));
        assert!(!rounding(child, 1e19));
        // Under no far node a hundredth of a unit is an offset.
        assert!(!rounding(0, 0.01));
        assert!(rounding(0, 1e-7));
    }
}
