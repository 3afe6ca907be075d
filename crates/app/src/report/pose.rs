//! What `mshconv pose` prints: every node's local pose at one time, as a [`PoseDoc`].

use super::{lossy, F32};
use msh::anim::Pose;
use msh::{ModelKind, ModelRef};
use serde::Serialize;

/// Every node's local pose at one time, and where that time falls on the
/// timeline: `{"time": T, "frame": F, "frame_count": N, "timeline": "within",
/// "nodes": [...]}` (the CLI's `pose --json` and the service's `/v1/pose`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoseDoc {
    /// The time sampled.
    pub time: F32,
    /// Where the time falls on the timeline (`frame`, `frame_count`, `timeline`).
    #[serde(flatten)]
    pub at: FrameInfo,
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
            at: FrameInfo::new(t, view.frame_count),
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

/// Where a time falls on a model's timeline, as the engine computes it
/// (FORMAT.md section 3, step 1): `mshconv pose` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FrameInfo {
    /// The frame as a signed number: `round_half_even(t - 0.5)` in single
    /// precision (`-1` for `t = -0.5`). For NaN and times beyond the 64-bit
    /// range (the x87 "integer indefinite") it is the frame used, 0.
    pub frame: i64,
    /// The frame the engine uses: the low 32 bits of that number, unsigned
    /// (a negative frame wraps to a large value, past every `frame_count`).
    #[serde(skip)]
    pub used: u32,
    /// `Res19.attr2`.
    pub frame_count: u32,
    /// `before`, `within` or `past`: outside the timeline (`used >= frame_count`)
    /// every node shows its fallback key.
    pub timeline: Timeline,
}

/// Where a frame falls on the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Timeline {
    /// A negative frame (it wraps past `frame_count`): the fallback keys.
    Before,
    /// `used < frame_count`: the map decides per node.
    Within,
    /// `used >= frame_count` from a frame at or past the end: the fallback keys.
    Past,
}

impl FrameInfo {
    /// Where time `t` falls on a timeline of `frame_count` frames.
    pub fn new(t: f32, frame_count: u32) -> FrameInfo {
        let used = msh::anim::frame_index(t);
        // The 64-bit integer the engine's FISTP stores; `frame_index` keeps its
        // low 32 bits. NaN and out-of-range values store the indefinite value,
        // whose low bits (0) are what the engine uses.
        let r = (t - 0.5f32).round_ties_even();
        let frame = if r.is_nan() || !(-9.223_372e18..9.223_372e18).contains(&r) {
            i64::from(used)
        } else {
            r as i64
        };
        let timeline = if used < frame_count {
            Timeline::Within
        } else if frame < 0 {
            Timeline::Before
        } else {
            Timeline::Past
        };
        FrameInfo {
            frame,
            used,
            frame_count,
            timeline,
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
    fn frames_as_the_engine_computes_them() {
        let f = FrameInfo::new(-0.5, 11);
        assert_eq!(
            (f.frame, f.used, f.timeline),
            (-1, u32::MAX, Timeline::Before)
        );
        let f = FrameInfo::new(3.0, 11);
        assert_eq!((f.frame, f.used, f.timeline), (2, 2, Timeline::Within));
        let f = FrameInfo::new(20.0, 11);
        assert_eq!((f.frame, f.used, f.timeline), (20, 20, Timeline::Past));
        let f = FrameInfo::new(0.2, 11);
        assert_eq!((f.frame, f.timeline), (0, Timeline::Within));
        let f = FrameInfo::new(f32::NAN, 11);
        assert_eq!((f.frame, f.used, f.timeline), (0, 0, Timeline::Within));
        // -2^32 wraps to frame 0: within the timeline, as the engine reads it.
        let f = FrameInfo::new(-4_294_967_296.0, 11);
        assert_eq!(
            (f.frame, f.used, f.timeline),
            (-4_294_967_296, 0, Timeline::Within)
        );
        assert_eq!(
            serde_json::to_string(&FrameInfo::new(-0.5, 11)).unwrap(),
            r#"{"frame":-1,"frame_count":11,"timeline":"before"}"#
        );
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
