//! The original's animation against what came back: each node's pose at every
//! frame of the timeline, as the engine samples the original and as the other
//! tool's animation (sampled at whole frames by the generic import) shows it.
//! Quaternions are compared as the export shows them (normalised; a zero one
//! as identity), and samples past what the original's keys reach are edits
//! when they leave the last pose. Nodes whose poses all agree keep their
//! original keys; the others get keys reduced from what came back.

use crate::assemble::AssembleOptions;
use crate::reduce::{track, Reduced};
use crate::report::Report;
use crate::scene::SceneNode;
use msh::derive::{Key, Track};
use msh::Model;

/// Translation tolerance: absolute, and relative to the largest coordinate.
const TRANSLATION: f32 = 1e-4;
/// Quaternion component tolerance: two steps of the stored i16.
const ROTATION: f32 = 2.0 / 32767.0;

/// A pose: translation and rotation as stored, `[x, y, z, w]`.
type Pose = ([f32; 3], [f32; 4]);

/// The pose `node` shows at `frame`: its sample at that frame, the last one
/// before it (or the first one) when there is none, its rest pose without samples.
fn pose_at(node: &SceneNode, frame: u32) -> Pose {
    match node.track.as_deref() {
        Some(samples) if !samples.is_empty() => {
            let s = samples
                .iter()
                .rev()
                .find(|s| s.frame <= frame)
                .unwrap_or(&samples[0]);
            (s.translation, s.rotation)
        }
        _ => (node.translation, node.rotation),
    }
}

/// A quaternion as glTF shows it: unit length, identity for a zero one.
fn shown(q: [f32; 4]) -> [f32; 4] {
    let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if len > 1e-6 && len.is_finite() {
        q.map(|c| c / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// The largest coordinate of two translations (at least 1).
fn reach(a: &[f32; 3], b: &[f32; 3]) -> f32 {
    (0..3)
        .map(|k| a[k].abs().max(b[k].abs()))
        .fold(1.0f32, f32::max)
}

/// Whether two poses are one. Translations are compared relative to `scale`,
/// the largest coordinate of the node's and its ancestors' translations
/// ([`reaches`]): Blender works on world matrices in single precision, so a
/// small coordinate beside a far one, or under a far ancestor, comes back
/// off by the far one's rounding (measured: 1e22 under a parent at 2e30),
/// as positions are compared (geometry::near3).
fn same_pose(a: &Pose, b: &Pose, scale: f32) -> bool {
    let scale = scale.max(reach(&a.0, &b.0));
    let t = (0..3).all(|k| (a.0[k] - b.0[k]).abs() <= TRANSLATION * scale);
    let (qa, qb) = (shown(a.1), shown(b.1));
    let dot: f32 = (0..4).map(|k| qa[k] * qb[k]).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    t && (0..4).all(|k| (qa[k] - sign * qb[k]).abs() <= ROTATION)
}

/// Per node: the largest coordinate of its translation and its ancestors'
/// at `frame`, in the original (`poses`) and in what came back.
fn reaches(m: &Model, poses: &[msh::anim::Pose], back: &[SceneNode], frame: u32) -> Vec<f32> {
    let mut out: Vec<f32> = Vec::with_capacity(back.len());
    for (i, (pose, node)) in poses.iter().zip(back).enumerate() {
        let own = reach(&pose.translation, &pose_at(node, frame).0);
        let parent = m.nodes.get(i).and_then(|n| n.parent()).map(usize::from);
        out.push(parent.and_then(|p| out.get(p)).map_or(own, |&p| own.max(p)));
    }
    out
}

/// Whether Blender wrote `node` without animation: no samples, or all one pose.
fn is_static(node: &SceneNode) -> bool {
    node.track.as_deref().is_none_or(|samples| {
        samples
            .windows(2)
            .all(|w| w[0].translation == w[1].translation && w[0].rotation == w[1].rotation)
    })
}

/// Per node of the original (the same order as `back`): whether its pose
/// differs at some frame. `None` when the original cannot be sampled.
pub(super) fn edited(m: &Model, back: &[SceneNode]) -> Option<Vec<bool>> {
    let view = m.view();
    let mut edited = vec![false; back.len()];
    let last = m.frame_count.max(1);
    let mut scales: Vec<f32> = Vec::new();
    // Translations are compared relative to the reach at the frame Blender
    // computed the pose it shows (measured with bpy 4.2): a node it writes
    // without animation has the local pose of the frame it exported on, the
    // timeline's first; a pose held from an earlier frame (past the end of
    // its channel) was computed there.
    let mut first: Option<Vec<f32>> = None;
    let mut held = vec![1.0f32; back.len()];
    for frame in 0..last {
        let poses = msh::pose::local_poses(&view, frame as f32).ok()?;
        scales = reaches(m, &poses, back, frame);
        let first = first.get_or_insert_with(|| scales.clone());
        for (i, (node, pose)) in back.iter().zip(&poses).enumerate() {
            let shown = pose_at(node, frame);
            let same_as_before = frame > 0
                && pose_at(node, frame - 1).0.map(f32::to_bits) == shown.0.map(f32::to_bits);
            if !same_as_before {
                held[i] = scales[i];
            }
            let from = if is_static(node) { first[i] } else { held[i] };
            let [w, x, y, z] = pose.rotation;
            edited[i] |= !same_pose(
                &(pose.translation, [x, y, z, w]),
                &shown,
                from.max(scales[i]),
            );
        }
    }
    // Keys the original has past its timeline were exported as they are (the
    // engine never plays them); samples past what they reach are edits when
    // they leave the last frame's pose.
    let reach = m
        .anim_keys
        .iter()
        .map(|k| k.time())
        .filter(|t| t.is_finite() && *t >= 0.0)
        .fold(0f32, f32::max)
        .min(u32::MAX as f32)
        .ceil() as u32;
    let past = last.max(reach.saturating_add(1));
    for ((node, flag), scale) in back.iter().zip(edited.iter_mut()).zip(&scales) {
        if let Some(samples) = node.track.as_deref() {
            let end = pose_at(node, last - 1);
            *flag |= samples
                .iter()
                .any(|s| s.frame >= past && !same_pose(&end, &(s.translation, s.rotation), *scale));
        }
    }
    Some(edited)
}

/// Each node's keys as the original stores them, when its tables are laid out
/// canonically (tracks back to back in node order, each ending at its
/// fallback key: then writing these tracks gives the same tables back).
fn original_tracks(m: &Model) -> Option<Vec<Track>> {
    let mut tracks = Vec::with_capacity(m.nodes.len());
    let mut next = 0usize;
    for node in &m.nodes {
        let last = node.fallback_key.get() as usize;
        let keys = m.anim_keys.get(next..=last)?;
        tracks.push(Track {
            keys: keys
                .iter()
                .map(|k| Key {
                    time: k.time(),
                    pos: k.position(),
                    quat: k.quat.map(|q| q.get()),
                })
                .collect(),
        });
        next = last + 1;
    }
    let mut again = m.clone();
    msh::derive::write_animation(&mut again, &tracks).ok()?;
    (again.anim_keys == m.anim_keys
        && again.anim_map == m.anim_map
        && again.frame_count == m.frame_count
        && again.nodes == m.nodes)
        .then_some(tracks)
}

/// Writes the animation again: unedited nodes keep their original keys (when
/// the original's layout lets them be told apart), edited ones get the keys
/// reduced from what came back. Geometry and every other table stay.
pub(super) fn rewrite(
    m: &mut Model,
    back: &[SceneNode],
    edited: &[bool],
    options: &AssembleOptions,
    report: &mut Report,
) -> Result<(), msh::derive::AnimError> {
    let original = original_tracks(m);
    let mut reduced = Reduced::default();
    let tracks: Vec<Track> = back
        .iter()
        .enumerate()
        .map(|(i, node)| match &original {
            Some(tracks) if !edited[i] => tracks[i].clone(),
            _ => track(node, options, &mut reduced),
        })
        .collect();
    reduced.report(options, report);
    msh::derive::write_animation(m, &tracks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::KeySample;

    /// A translation key far out (measured through Blender 4.2, issue 40:
    /// seed 1, g0006, `models/w6_0.msh`) and what came back for it.
    const FAR: [f32; 3] = [4.315_380_2e27, 2_424_762_600.0, 0.856_542];
    const FAR_BACK: [f32; 3] = [4.315_380_5e27, 1.060_687_8e20, 1.106_804_6e20];

    /// Three keys at `pos`, turning about z.
    fn track_at(pos: [f32; 3]) -> Track {
        let key = |time: f32, quat: [i16; 4]| Key { time, pos, quat };
        Track {
            keys: vec![
                key(0.0, [0, 0, 0, 32767]),
                key(3.0, [0, 0, 23170, 23170]),
                key(6.0, [0, 0, 32767, 0]),
            ],
        }
    }

    /// A fixture with keys at `FAR` for a node `far` with a parent and a
    /// child `child`, keys at (1, 2, 3) for that child and the root (node 0):
    /// the model and `(far, child)`.
    fn far_model() -> (Model, usize, usize) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../fixtures/small/models/m012_walker.msh"
        );
        let mut m = Model::from_bytes(&std::fs::read(path).unwrap()).unwrap();
        let parent = |i: usize| m.nodes[i].parent().map(usize::from);
        let (far, child) = (1..m.nodes.len())
            .filter(|&i| parent(i).is_some())
            .find_map(|i| {
                (0..m.nodes.len())
                    .find(|&j| parent(j) == Some(i))
                    .map(|j| (i, j))
            })
            .expect("a node with a parent and a child");
        let mut tracks = original_tracks(&m).expect("a canonical layout");
        tracks[far] = track_at(FAR);
        tracks[child] = track_at([1.0, 2.0, 3.0]);
        tracks[0] = track_at([1.0, 2.0, 3.0]);
        msh::derive::write_animation(&mut m, &tracks).unwrap();
        (m, far, child)
    }

    /// Every node's pose at every frame as the engine samples `m`, with
    /// `blender` applied to each node's translations (`blender(node, t)`).
    fn sampled(m: &Model, blender: impl Fn(usize, [f32; 3]) -> [f32; 3]) -> Vec<SceneNode> {
        let view = m.view();
        let mut back: Vec<SceneNode> = m
            .nodes
            .iter()
            .map(|n| SceneNode {
                parent: n.parent().map(usize::from),
                track: Some(Vec::new()),
                ..SceneNode::default()
            })
            .collect();
        for frame in 0..m.frame_count.max(1) {
            let poses = msh::pose::local_poses(&view, frame as f32).unwrap();
            for (i, (b, pose)) in back.iter_mut().zip(&poses).enumerate() {
                let [w, x, y, z] = pose.rotation;
                b.track.as_mut().unwrap().push(KeySample {
                    frame,
                    translation: blender(i, pose.translation),
                    rotation: [x, y, z, w],
                });
            }
        }
        back
    }

    /// Which nodes `edited` finds when `blender` changes translations.
    fn edited_nodes(m: &Model, blender: impl Fn(usize, [f32; 3]) -> [f32; 3]) -> Vec<usize> {
        let flags = edited(m, &sampled(m, blender)).unwrap();
        (0..flags.len()).filter(|&i| flags[i]).collect()
    }

    #[test]
    fn a_far_translation_within_blenders_rounding_is_not_an_edit() {
        let (m, far, child) = far_model();
        // The far node as measured; its child off by the far coordinate's
        // single-precision step (f32::EPSILON of 4.3e27: 5.1e20), as Blender
        // gives a local translation back from world matrices.
        let as_blender = |i: usize, t: [f32; 3]| match i {
            _ if i == far => FAR_BACK,
            _ if i == child => [t[0] + 5.1e20, t[1] - 5.1e20, t[2] + 2.5e20],
            _ => t,
        };
        assert_eq!(edited_nodes(&m, as_blender), Vec::<usize>::new());
    }

    #[test]
    fn a_moved_far_key_or_a_moved_small_coordinate_is_an_edit() {
        let (m, far, child) = far_model();
        // The far coordinate moved by a thousandth.
        let moved = |node: usize, by: fn([f32; 3]) -> [f32; 3]| {
            move |i: usize, t: [f32; 3]| if i == node { by(t) } else { t }
        };
        assert_eq!(
            edited_nodes(&m, moved(far, |t| [t[0] * 1.001, t[1], t[2]])),
            vec![far]
        );
        // The child moved by a thousandth of its far parent's coordinate.
        assert_eq!(
            edited_nodes(&m, moved(child, |t| [t[0] + 4.3e24, t[1], t[2]])),
            vec![child]
        );
        // The root, under no far node, moved by a thousandth of a unit.
        assert_eq!(
            edited_nodes(&m, moved(0, |t| [t[0], t[1], t[2] + 1e-3])),
            vec![0]
        );
    }

    #[test]
    fn a_still_node_is_compared_at_the_first_frame_blender_exported_on() {
        let (mut m, far, child) = far_model();
        // The far node far at frame 0 only; its child still.
        let mut tracks = original_tracks(&m).unwrap();
        let mut near = track_at([1.0, 2.0, 3.0]);
        near.keys[0].pos = FAR;
        tracks[far] = near;
        tracks[child] = Track {
            keys: vec![Key {
                time: 0.0,
                pos: [1.0, 2.0, 3.0],
                quat: [0, 0, 0, 32767],
            }],
        };
        msh::derive::write_animation(&mut m, &tracks).unwrap();
        // Blender writes the child without animation, computed at frame 0:
        // off by the far coordinate's rounding at every frame.
        let still = |by: f32| {
            move |i: usize, t: [f32; 3]| if i == child { [1.0 + by, 2.0, 3.0] } else { t }
        };
        assert_eq!(edited_nodes(&m, still(5.1e20)), Vec::<usize>::new());
        // Moved by a thousandth of the far coordinate: an edit.
        assert_eq!(edited_nodes(&m, still(4.3e24)), vec![child]);
        // The same rounding from frame 3 on, where nothing is far: an edit.
        let mut back = sampled(&m, |_, t| t);
        for s in back[child].track.as_mut().unwrap() {
            if s.frame >= 3 {
                s.translation[0] += 5.1e20;
            }
        }
        assert!(edited(&m, &back).unwrap()[child]);
    }
}
