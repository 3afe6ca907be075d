//! The engine's animation sampler, exactly as FORMAT.md section 3 states it.
//!
//! Everything is single precision, as the engine runs the x87 with 24-bit
//! precision control. A sample that is a stored key is bit-exact; an
//! interpolated one can differ from the engine by a few ULP where `acos`,
//! `sin` and `cos` are involved.
//!
//! The engine does no bounds checks; this sampler does, and returns a
//! [`SampleError`] instead of reading out of range.

use crate::raw::{AnimKey24, Node38, NONE};
use crate::report::Code;
use std::fmt;
use zerocopy::little_endian::U16;

/// A quaternion as the engine holds it: `[w, x, y, z]`.
pub type Quat = [f32; 4];

/// One node's local pose at one time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation `[w, x, y, z]`, not normalised (the engine does not normalise).
    pub rotation: Quat,
    /// True when the fallback key was used (no interpolation, no map lookup).
    pub fallback: bool,
    /// Index of the key that was returned or interpolated from.
    pub key: u16,
}

/// Why a sample could not be taken without reading out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleError {
    /// `fallback_key` is past the key table.
    FallbackOutOfRange {
        /// Node index.
        node: usize,
        /// The fallback key.
        key: u16,
        /// Number of keys.
        keys: usize,
    },
    /// `anim_map_start + frame` is past the map.
    MapOutOfRange {
        /// Node index.
        node: usize,
        /// The word that would be read.
        word: u64,
        /// Number of map words.
        words: usize,
    },
    /// The map points at a key whose successor is past the key table.
    KeyOutOfRange {
        /// Node index.
        node: usize,
        /// The key that would be read.
        key: u64,
        /// Number of keys.
        keys: usize,
    },
    /// The node index is past the node table.
    NoSuchNode {
        /// Node index.
        node: usize,
    },
}

impl SampleError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        let code = match self {
            SampleError::FallbackOutOfRange { .. } => Code::FallbackOutOfRange,
            SampleError::MapOutOfRange { .. } => Code::MapOutOfRange,
            SampleError::KeyOutOfRange { .. } => Code::MapValueOutOfRange,
            SampleError::NoSuchNode { .. } => Code::NoSuchNode,
        };
        code.as_str()
    }
}

impl fmt::Display for SampleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.code())?;
        match *self {
            SampleError::FallbackOutOfRange { node, key, keys } => {
                write!(
                    f,
                    "node {node}: fallback key {key} is past the {keys} keys of Res8"
                )
            }
            SampleError::MapOutOfRange { node, word, words } => {
                write!(
                    f,
                    "node {node}: map word {word} is past the {words} words of Res19"
                )
            }
            SampleError::KeyOutOfRange { node, key, keys } => {
                write!(f, "node {node}: key {key} is past the {keys} keys of Res8")
            }
            SampleError::NoSuchNode { node } => write!(f, "node {node} does not exist"),
        }
    }
}

impl std::error::Error for SampleError {}

/// The animation tables a sample reads.
#[derive(Debug, Clone, Copy)]
pub struct Tracks<'a> {
    /// Res8.
    pub keys: &'a [AnimKey24],
    /// Res19.
    pub map: &'a [U16],
    /// Res19 `attr2`.
    pub frame_count: u32,
}

/// The frame index the engine computes for time `t`: `t - 0.5` in single
/// precision, then the x87 `FISTP` conversion (round half to even) into a
/// 64-bit integer whose low 32 bits are used as unsigned. `t = 3.0` gives 2,
/// `t = 4.0` gives 4; negative results wrap to large unsigned values. A NaN or
/// a value beyond the 64-bit range stores the x87 "integer indefinite"
/// (`i64::MIN`), whose low 32 bits are 0.
pub fn frame_index(t: f32) -> u32 {
    let x = t - 0.5f32;
    let r = x.round_ties_even();
    let as_i64 = if r.is_nan() || !(-9.223_372e18..9.223_372e18).contains(&r) {
        i64::MIN
    } else {
        r as i64
    };
    as_i64 as u32
}

/// Samples one node at time `t` (FORMAT.md section 3, steps 1 to 3).
pub fn sample(
    tracks: &Tracks<'_>,
    node_index: usize,
    node: &Node38,
    t: f32,
) -> Result<Pose, SampleError> {
    let map_start = node.anim_map_start.get();
    let fallback = node.fallback_key.get();
    let keys = tracks.keys;
    let fallback_pose = || -> Result<Pose, SampleError> {
        let key = keys
            .get(fallback as usize)
            .ok_or(SampleError::FallbackOutOfRange {
                node: node_index,
                key: fallback,
                keys: keys.len(),
            })?;
        Ok(Pose {
            translation: key.position(),
            rotation: key.quat_wxyz(),
            fallback: true,
            key: fallback,
        })
    };
    let frame = frame_index(t);
    if frame >= tracks.frame_count || map_start == NONE {
        return fallback_pose();
    }
    let word = map_start as u64 + frame as u64;
    let value =
        tracks
            .map
            .get(word as usize)
            .map(|w| w.get())
            .ok_or(SampleError::MapOutOfRange {
                node: node_index,
                word,
                words: tracks.map.len(),
            })?;
    if value >= fallback {
        return fallback_pose();
    }
    let out_of_range = |key: u64| SampleError::KeyOutOfRange {
        node: node_index,
        key,
        keys: keys.len(),
    };
    let k0 = keys.get(value as usize).ok_or(out_of_range(value as u64))?;
    if t == k0.time() {
        return Ok(Pose {
            translation: k0.position(),
            rotation: k0.quat_wxyz(),
            fallback: false,
            key: value,
        });
    }
    let k1 = keys
        .get(value as usize + 1)
        .ok_or(out_of_range(value as u64 + 1))?;
    if t == k1.time() {
        return Ok(Pose {
            translation: k1.position(),
            rotation: k1.quat_wxyz(),
            fallback: false,
            key: value + 1,
        });
    }
    let a = (t - k0.time()) / (k1.time() - k0.time());
    let (p0, p1) = (k0.position(), k1.position());
    let translation = std::array::from_fn(|i| p0[i] + (p1[i] - p0[i]) * a);
    let rotation = slerp(k0.quat_wxyz(), k1.quat_wxyz(), a);
    Ok(Pose {
        translation,
        rotation,
        fallback: false,
        key: value,
    })
}

/// The engine's quaternion interpolation (`g_FastProc[17]` and `[22]`): closed-form
/// slerp weights, shortest path by the sign of the dot product, no normalisation.
pub fn slerp(q0: Quat, q1: Quat, a: f32) -> Quat {
    Slerp::new(q0, q1).at(a)
}

/// [`slerp`] between one pair of quaternions at many weights: what depends only
/// on the pair (the dot product, the angle and its sine) is computed once. Each
/// [`Slerp::at`] gives the same bits as [`slerp`] with the same arguments.
#[derive(Debug, Clone, Copy)]
pub struct Slerp {
    q0: Quat,
    q1: Quat,
    dot: f32,
    sign: f32,
    /// The angle and `1 / sin(angle)`; `None` where the engine blends linearly.
    angle: Option<(f32, f32)>,
}

impl Slerp {
    /// The pair's terms.
    pub fn new(q0: Quat, q1: Quat) -> Slerp {
        let mut dot = dot4(q0, q1);
        let mut sign = 1.0f32;
        if dot < 0.0 {
            dot = -dot;
            sign = -1.0;
        }
        // The engine's constant as FORMAT.md prints it (the same f32 as 1e-5).
        #[allow(clippy::excessive_precision)]
        let threshold = 9.999_999_7e-6_f32;
        let angle = if 1.0f32 - dot <= threshold {
            None
        } else {
            let theta = dot.acos();
            Some((theta, 1.0f32 / theta.sin()))
        };
        Slerp {
            q0,
            q1,
            dot,
            sign,
            angle,
        }
    }

    /// The interpolated quaternion at weight `a`.
    pub fn at(&self, a: f32) -> Quat {
        let (w0, w1) = match self.angle {
            None => (1.0f32 - a, a),
            Some((theta, inv_sin)) => {
                let w1 = (a * theta).sin() * inv_sin;
                ((a * theta).cos() - w1 * self.dot, w1)
            }
        };
        let w1 = w1 * self.sign;
        std::array::from_fn(|i| w0 * self.q0[i] + w1 * self.q1[i])
    }
}

/// Blends two samples the way the engine does between two animation times
/// (`sub_10012560`): `tA`/`tB` negative or the weight at an end means that side
/// is not used; with both, the shortest-path flip of `qB`, then [`slerp`] with
/// weight `b` and `(1 - b) * pA + b * pB`. `None` when neither side is used
/// (the engine leaves that case undefined).
pub fn blend(
    a: Option<Pose>,
    b: Option<Pose>,
    time_a: f32,
    time_b: f32,
    weight: f32,
) -> Option<([f32; 3], Quat)> {
    let has_a = weight < 1.0 && time_a >= 0.0;
    let has_b = weight > 0.0 && time_b >= 0.0;
    match (has_a.then_some(a).flatten(), has_b.then_some(b).flatten()) {
        (Some(a), None) => Some((a.translation, a.rotation)),
        (None, Some(b)) => Some((b.translation, b.rotation)),
        (None, None) => None,
        (Some(a), Some(b)) => {
            let qa = a.rotation;
            let mut qb = b.rotation;
            let plus: Quat = std::array::from_fn(|i| qa[i] + qb[i]);
            let minus: Quat = std::array::from_fn(|i| qa[i] - qb[i]);
            if dot4(plus, plus) < dot4(minus, minus) {
                qb = qb.map(|c| -c);
            }
            let q = slerp(qa, qb, weight);
            let p = std::array::from_fn(|i| {
                (1.0 - weight) * a.translation[i] + weight * b.translation[i]
            });
            Some((p, q))
        }
    }
}

/// The engine's quaternion-to-matrix (`g_FastProc[14]`) with the translation in
/// `m3, m7, m11`; row-major, acting on column vectors (`p' = M p`).
pub fn to_matrix(q: Quat, t: [f32; 3]) -> [f32; 16] {
    let [w, x, y, z] = q;
    [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y + w * z),
        2.0 * (x * z - w * y),
        t[0],
        2.0 * (x * y - w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + w * x),
        t[1],
        2.0 * (x * z + w * y),
        2.0 * (y * z - w * x),
        1.0 - 2.0 * (x * x + y * y),
        t[2],
        0.0,
        0.0,
        0.0,
        1.0,
    ]
}

fn dot4(a: Quat, b: Quat) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_index_follows_fistp() {
        assert_eq!(frame_index(3.0), 2);
        assert_eq!(frame_index(4.0), 4);
        assert_eq!(frame_index(0.0), 0);
        assert_eq!(frame_index(-0.5), u32::MAX);
        assert_eq!(frame_index(f32::NAN), 0);
    }
}
