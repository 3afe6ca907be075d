//! What `mshconv pose` prints: every node's local pose at one time, as a [`PoseDoc`].

use super::{lossy, F32};
use msh::anim::Pose;
use msh::{ModelKind, ModelRef};
use serde::Serialize;

/// Every node's local pose at one time: `{"time": T, "nodes": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoseDoc {
    /// The time sampled.
    pub time: F32,
    /// Every node, in node order.
    pub nodes: Vec<NodePose>,
}

/// One node's local pose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodePose {
    /// Node index.
    pub index: usize,
    /// Res10 name, null for unnamed.
    pub name: Option<String>,
    /// Translation relative to the parent.
    pub translation: [F32; 3],
    /// Rotation `[w, x, y, z]` as the engine holds it (not normalised).
    pub rotation: [F32; 4],
    /// True when the node's fallback key was used (no map lookup, no interpolation).
    pub fallback: bool,
}

impl PoseDoc {
    /// The document of `poses`, the result of [`msh::pose::local_poses`] on
    /// `view` at time `t` (names come from `view`).
    pub fn new(view: &ModelRef<'_>, t: f32, poses: &[Pose]) -> PoseDoc {
        PoseDoc {
            time: F32(t),
            nodes: poses
                .iter()
                .enumerate()
                .map(|(index, pose)| NodePose {
                    index,
                    name: view.node_name(index).map(lossy),
                    translation: pose.translation.map(F32),
                    rotation: pose.rotation.map(F32),
                    fallback: pose.fallback,
                })
                .collect(),
        }
    }
}

/// Why a model of this kind cannot be posed, in words (`"a terrain model"`),
/// or `None` for a standard model, whose nodes are decoded.
pub fn not_poseable(kind: Option<ModelKind>) -> Option<&'static str> {
    match kind {
        Some(ModelKind::Standard) => None,
        Some(ModelKind::Terrain) => Some("a terrain model"),
        _ => Some("a model with a legacy node table"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;
    use msh::Mode;

    #[test]
    fn poses_of_a_model() {
        let bytes = fixture("models/m095_walker.msh");
        let opened = msh::open(&bytes, Mode::Strict).unwrap();
        assert_eq!(not_poseable(opened.view.kind), None);
        let poses = msh::pose::local_poses(&opened.view, 2.5).unwrap();
        let doc = PoseDoc::new(&opened.view, 2.5, &poses);
        assert_eq!(doc.time, F32(2.5));
        for (node, pose) in doc.nodes.iter().zip(&poses) {
            assert_eq!(node.translation, pose.translation.map(F32));
            assert_eq!(node.rotation, pose.rotation.map(F32));
            assert_eq!(node.fallback, pose.fallback);
        }
        assert_eq!(doc.nodes[0].name.as_deref(), Some("base"));
    }

    #[test]
    fn legacy_and_terrain_models_cannot_be_posed() {
        let legacy = fixture("models/m211_mtcheck.msh");
        let opened = msh::open(&legacy, Mode::Strict).unwrap();
        assert_eq!(
            not_poseable(opened.view.kind),
            Some("a model with a legacy node table")
        );
        let terrain = fixture("edge/terrain_land.msh");
        let opened = msh::open(&terrain, Mode::Strict).unwrap();
        assert_eq!(not_poseable(opened.view.kind), Some("a terrain model"));
    }
}
