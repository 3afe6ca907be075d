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

/// A quaternion as glTF shows it: unit length, identity for a zero one.
fn shown(q: [f32; 4]) -> [f32; 4] {
    let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if len > 1e-6 && len.is_finite() {
        q.map(|c| c / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

fn same_pose(a: &Pose, b: &Pose) -> bool {
    let t = (0..3).all(|k| (a.0[k] - b.0[k]).abs() <= TRANSLATION * a.0[k].abs().max(1.0));
    let (qa, qb) = (shown(a.1), shown(b.1));
    let dot: f32 = (0..4).map(|k| qa[k] * qb[k]).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    t && (0..4).all(|k| (qa[k] - sign * qb[k]).abs() <= ROTATION)
}

/// Per node of the original (the same order as `back`): whether its pose
/// differs at some frame. `None` when the original cannot be sampled.
pub(super) fn edited(m: &Model, back: &[SceneNode]) -> Option<Vec<bool>> {
    let view = m.view();
    let mut edited = vec![false; back.len()];
    let last = m.frame_count.max(1);
    for frame in 0..last {
        let poses = msh::pose::local_poses(&view, frame as f32).ok()?;
        for ((node, pose), flag) in back.iter().zip(&poses).zip(edited.iter_mut()) {
            if !*flag {
                let [w, x, y, z] = pose.rotation;
                *flag = !same_pose(&(pose.translation, [x, y, z, w]), &pose_at(node, frame));
            }
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
    for (node, flag) in back.iter().zip(edited.iter_mut()) {
        if let Some(samples) = node.track.as_deref() {
            let end = pose_at(node, last - 1);
            *flag |= samples
                .iter()
                .any(|s| s.frame >= past && !same_pose(&end, &(s.translation, s.rotation)));
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
