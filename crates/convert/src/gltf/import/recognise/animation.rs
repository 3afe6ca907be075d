//! The original's animation against what came back: each node's pose at every
//! frame, as the original's own export shows it and as the other tool's file
//! shows it (both sampled at whole frames by the generic import, so both are
//! read the same way: normalised quaternions, keys past the timeline, whatever
//! the engine's tables hold). Nodes whose poses all agree keep their original
//! keys; the others get keys reduced from what came back.

use crate::assemble::AssembleOptions;
use crate::reduce::{track, Reduced};
use crate::report::Report;
use crate::scene::SceneNode;
use msh::derive::{Key, Track};
use msh::Model;

/// Translation tolerance: absolute, and relative to the value.
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

fn same_pose(a: &Pose, b: &Pose) -> bool {
    let t = (0..3).all(|k| (a.0[k] - b.0[k]).abs() <= TRANSLATION * a.0[k].abs().max(1.0));
    let dot: f32 = (0..4).map(|k| a.1[k] * b.1[k]).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    t && (0..4).all(|k| (a.1[k] - sign * b.1[k]).abs() <= ROTATION)
}

/// The last frame a node has a sample at (0 without samples).
fn last_frame(node: &SceneNode) -> u32 {
    node.track
        .as_deref()
        .and_then(|s| s.iter().map(|s| s.frame).max())
        .unwrap_or(0)
}

/// Per node (the same order in both): whether what came back shows another
/// pose than the original's export at some frame.
pub(super) fn edited(original: &[SceneNode], back: &[SceneNode]) -> Vec<bool> {
    original
        .iter()
        .zip(back)
        .map(|(a, b)| {
            let end = last_frame(a).max(last_frame(b));
            (0..=end).any(|f| !same_pose(&pose_at(a, f), &pose_at(b, f)))
        })
        .collect()
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
