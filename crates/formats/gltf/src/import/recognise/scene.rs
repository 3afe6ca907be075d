//! Two scenes read the same way (the generic import) compared as a viewer
//! shows them: for a terrain model, whose tables travel whole in the extras
//! but whose glTF another tool rebuilt, the file is unedited when its scene
//! is the original's own export's. Nodes are matched by name and parent
//! name (Blender reorders them), geometry corner by corner.

use super::geometry::{blender_faces, corner_of, same_corner};
use crate::scene::{SceneBatch, SceneModel, SceneNode};

/// Translation tolerance of node rest poses, and quaternion component tolerance.
const TRANSLATION: f32 = 1e-4;
const ROTATION: f32 = 2.0 / 32767.0;

fn key(scene: &SceneModel, node: &SceneNode) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    let parent = node.parent.and_then(|p| scene.nodes.get(p)?.name.clone());
    (node.name.clone(), parent)
}

fn same_pose(a: &SceneNode, b: &SceneNode) -> bool {
    let dot: f32 = (0..4).map(|k| a.rotation[k] * b.rotation[k]).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    (0..3).all(|k| {
        (a.translation[k] - b.translation[k]).abs() <= TRANSLATION * a.translation[k].abs().max(1.0)
    }) && (0..4).all(|k| (a.rotation[k] - sign * b.rotation[k]).abs() <= ROTATION)
        && a.track.is_none() == b.track.is_none()
}

fn same_batch(a: &SceneBatch, b: &SceneBatch) -> bool {
    if a.material != b.material {
        return false;
    }
    let kept;
    let triangles = if a.triangles.len() == b.triangles.len() {
        &a.triangles
    } else {
        kept = blender_faces(&a.triangles);
        &kept
    };
    triangles.len() == b.triangles.len()
        && triangles.iter().zip(&b.triangles).all(|(ta, tb)| {
            (0..3).all(|k| match (corner_of(a, ta[k]), corner_of(b, tb[k])) {
                (Some(ca), Some(mut cb)) => {
                    cb.normal = cb.normal.filter(|_| ca.normal.is_some());
                    cb.uv = cb.uv.filter(|_| ca.uv.is_some());
                    same_corner(&ca, &cb)
                }
                _ => false,
            })
        })
}

/// The batches that have triangles (another tool drops the others).
fn drawn(batches: &[SceneBatch]) -> impl Iterator<Item = &SceneBatch> {
    batches.iter().filter(|b| !b.triangles.is_empty())
}

/// Whether `back` shows what `original` shows: the same named nodes under the
/// same parents with the same rest poses, and the same triangles in each slot.
pub(super) fn same(original: &SceneModel, back: &SceneModel) -> bool {
    if original.nodes.len() != back.nodes.len() {
        return false;
    }
    let mut a: Vec<_> = original
        .nodes
        .iter()
        .map(|n| (key(original, n), n))
        .collect();
    let mut b: Vec<_> = back.nodes.iter().map(|n| (key(back, n), n)).collect();
    a.sort_by(|x, y| x.0.cmp(&y.0));
    b.sort_by(|x, y| x.0.cmp(&y.0));
    a.iter().zip(&b).all(|((ka, na), (kb, nb))| {
        ka == kb
            && same_pose(na, nb)
            && na.slots.len() == nb.slots.len()
            && na.slots.iter().all(|sa| {
                nb.slots.iter().any(|sb| {
                    sa.lod == sb.lod
                        && sa.group == sb.group
                        && drawn(&sa.batches).count() == drawn(&sb.batches).count()
                        && drawn(&sa.batches)
                            .zip(drawn(&sb.batches))
                            .all(|(x, y)| same_batch(x, y))
                })
            })
    })
}
