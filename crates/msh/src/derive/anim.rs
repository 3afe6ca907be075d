//! Animation: stored quaternions and the canonical track layout.

use crate::model::Model;
use crate::raw::{AnimKey24, NONE};
use crate::report::Code;
use crate::validate::canonical_map_value;
use std::fmt;
use zerocopy::little_endian::U16;

/// `round(q * 32767)` for each of `[x, y, z, w]`, clamped to `[-32767, 32767]` (FORMAT.md section 3).
pub fn quantize_quat(xyzw: [f32; 4]) -> [i16; 4] {
    xyzw.map(|c| {
        if c.is_nan() {
            0
        } else {
            (c as f64 * 32767.0).round().clamp(-32767.0, 32767.0) as i16
        }
    })
}

/// The stored quaternion nearest `[x, y, z, w]` as the engine uses it: of
/// the 16 combinations of each component rounded down or up (`q * 32767`,
/// clamped to `[-32767, 32767]`, FORMAT.md section 3), the one whose
/// rotation matrix (the engine's, which does not normalise) is closest to
/// the unit quaternion's; a tie keeps plain rounding ([`quantize_quat`]).
/// A value that is already a stored one (each component the f32 of
/// `s / 32767`, as an export writes it) comes back as it was. The importers
/// use it for static rotations (a node's one key), where a rounding error
/// is seen at every frame; animated keys keep [`quantize_quat`].
pub fn quantize_quat_nearest(xyzw: [f32; 4]) -> [i16; 4] {
    let scaled = xyzw.map(|c| if c.is_nan() { 0.0 } else { c as f64 * 32767.0 });
    let rounded = scaled.map(|v| v.round().clamp(-32767.0, 32767.0));
    let len = xyzw
        .iter()
        .map(|&c| f64::from(c) * f64::from(c))
        .sum::<f64>()
        .sqrt();
    // A stored value read back (each component exactly the f32 of s / 32767,
    // as the decoder makes it) keeps its s.
    let stored = xyzw
        .iter()
        .zip(&rounded)
        .all(|(&c, &r)| (r as f32) * (1.0f32 / 32767.0) == c || (r / 32767.0) as f32 == c);
    if len.is_nan() || len <= 0.5 || stored {
        return rounded.map(|v| v as i16);
    }
    let unit = xyzw.map(|c| f64::from(c) / len);
    let target = quat_matrix(unit);
    let error = |q: [f64; 4]| -> f64 {
        let m = quat_matrix(q.map(|c| c / 32767.0));
        m.iter().zip(&target).map(|(a, b)| (a - b) * (a - b)).sum()
    };
    let mut best = rounded;
    let mut best_error = error(rounded);
    for bits in 0..16u32 {
        let q: [f64; 4] = std::array::from_fn(|i| {
            let v = if bits >> i & 1 == 1 {
                scaled[i].ceil()
            } else {
                scaled[i].floor()
            };
            v.clamp(-32767.0, 32767.0)
        });
        let e = error(q);
        if e < best_error {
            best = q;
            best_error = e;
        }
    }
    best.map(|v| v as i16)
}

/// The engine's rotation matrix of `[x, y, z, w]` (anim::to_matrix's terms), in f64.
fn quat_matrix([x, y, z, w]: [f64; 4]) -> [f64; 9] {
    [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y + w * z),
        2.0 * (x * z - w * y),
        2.0 * (x * y - w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + w * x),
        2.0 * (x * z + w * y),
        2.0 * (y * z - w * x),
        1.0 - 2.0 * (x * x + y * y),
    ]
}

/// One animation key as a writer supplies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    /// Key time in frames (whole numbers in canonical files).
    pub time: f32,
    /// Translation.
    pub pos: [f32; 3],
    /// Rotation as stored, `[qx, qy, qz, qw]` (see [`quantize_quat`]).
    pub quat: [i16; 4],
}

/// The keys of one node, in time order. One key is a static node; two or more
/// an animated one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Track {
    /// Keys with strictly increasing times.
    pub keys: Vec<Key>,
}

impl Track {
    /// A static track: one key at time 0.
    pub fn fixed(pos: [f32; 3], quat: [i16; 4]) -> Track {
        Track {
            keys: vec![Key {
                time: 0.0,
                pos,
                quat,
            }],
        }
    }
}

/// Why [`write_animation`] could not lay tracks out.
#[derive(Debug, Clone, PartialEq)]
pub enum AnimError {
    /// The number of tracks differs from the number of nodes.
    TrackCount {
        /// Tracks given.
        tracks: usize,
        /// Nodes in the model.
        nodes: usize,
    },
    /// A track has no key (every node needs its fallback key).
    EmptyTrack {
        /// Node index.
        node: usize,
    },
    /// Key times do not strictly increase (or are not finite / negative).
    KeyTimes {
        /// Node index.
        node: usize,
        /// Key index within the track.
        key: usize,
    },
    /// More keys, frames or map words than the u16 fields can address.
    TooLarge(String),
}

impl AnimError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        let code = match self {
            AnimError::TrackCount { .. } => Code::TrackCount,
            AnimError::EmptyTrack { .. } => Code::EmptyTrack,
            AnimError::KeyTimes { .. } => Code::KeyTimesNotIncreasing,
            AnimError::TooLarge(_) => Code::AnimTooLarge,
        };
        code.as_str()
    }
}

impl fmt::Display for AnimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.code())?;
        match self {
            AnimError::TrackCount { tracks, nodes } => {
                write!(f, "{tracks} tracks for {nodes} nodes (one track per node)")
            }
            AnimError::EmptyTrack { node } => write!(f, "node {node} has no key"),
            AnimError::KeyTimes { node, key } => write!(
                f,
                "node {node}: key {key} time must be finite, >= 0 and greater than the previous key's"
            ),
            AnimError::TooLarge(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for AnimError {}

/// Lays tracks out canonically (FORMAT.md section 3, "Track layout" and
/// "Writing animation"): one track per node in node order.
///
/// Sets `anim_keys` (tracks back to back), every node's `fallback_key` (its last
/// key) and `anim_map_start` (0xFFFF for a node with one key, else its block),
/// `anim_map` (`frame_count` words per animated node, back to back, with
/// [`canonical_map_value`]s) and `frame_count` (`max last key time + 1`,
/// `floor` for fractional times; 1 for a model without animated node, whose map
/// is empty). Nothing else changes. A single key at a time other than 0 is kept
/// as given (valid, but not canonical).
pub fn write_animation(model: &mut Model, tracks: &[Track]) -> Result<(), AnimError> {
    if tracks.len() != model.nodes.len() {
        return Err(AnimError::TrackCount {
            tracks: tracks.len(),
            nodes: model.nodes.len(),
        });
    }
    let mut max_end = 0f32;
    let mut total = 0usize;
    let mut animated = 0usize;
    for (node, track) in tracks.iter().enumerate() {
        let Some(last) = track.keys.last() else {
            return Err(AnimError::EmptyTrack { node });
        };
        for (k, key) in track.keys.iter().enumerate() {
            let ok = key.time.is_finite()
                && key.time >= 0.0
                && (k == 0 || key.time > track.keys[k - 1].time);
            if !ok {
                return Err(AnimError::KeyTimes { node, key: k });
            }
        }
        max_end = max_end.max(last.time);
        total += track.keys.len();
        if track.keys.len() > 1 {
            animated += 1;
        }
    }
    if total > NONE as usize + 1 {
        return Err(AnimError::TooLarge(format!(
            "{total} keys, fallback_key addresses at most 65536"
        )));
    }
    let frame_count: u32 = if animated > 0 {
        let end = max_end.floor();
        if end >= 65535.0 {
            return Err(AnimError::TooLarge(format!(
                "last key time {max_end} needs more frames than a map block can hold"
            )));
        }
        end as u32 + 1
    } else {
        1
    };
    let words = animated * frame_count as usize;
    if animated > 0 && (animated - 1) * frame_count as usize >= NONE as usize {
        return Err(AnimError::TooLarge(format!(
            "{animated} animated nodes x {frame_count} frames: a map start must stay below 0xFFFF"
        )));
    }
    let mut keys = Vec::with_capacity(total);
    let mut map = Vec::with_capacity(words);
    let mut times: Vec<f32> = Vec::with_capacity(total);
    for (node, track) in model.nodes.iter_mut().zip(tracks) {
        let start = keys.len();
        for key in &track.keys {
            keys.push(AnimKey24::new(key.pos, key.time, key.quat));
            times.push(key.time);
        }
        let end = keys.len() - 1;
        node.fallback_key = U16::new(end as u16);
        if track.keys.len() > 1 {
            node.anim_map_start = U16::new(map.len() as u16);
            map.extend(
                (0..frame_count).map(|f| U16::new(canonical_map_value(&times, start, end, f))),
            );
        } else {
            node.anim_map_start = U16::new(NONE);
        }
    }
    model.anim_keys = keys;
    model.anim_map = map;
    model.frame_count = frame_count;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::Node38;
    use zerocopy::FromZeros;

    #[test]
    fn quantize() {
        assert_eq!(quantize_quat([0.0, 0.0, 0.0, 1.0]), [0, 0, 0, 32767]);
        assert_eq!(
            quantize_quat([-1.5, 0.5, f32::NAN, 2.0]),
            [-32767, 16384, 0, 32767]
        );
    }

    fn model(nodes: usize) -> Model {
        let mut node = Node38::new_zeroed();
        node.parent = U16::new(NONE);
        node.slots = [U16::new(NONE); crate::raw::SLOTS_PER_NODE];
        let mut m = Model {
            nodes: vec![node; nodes],
            ..Model::default()
        };
        m.canonicalize_entries();
        m
    }

    fn key(time: f32) -> Key {
        Key {
            time,
            pos: [time, 0.0, 0.0],
            quat: [0, 0, 0, 32767],
        }
    }

    #[test]
    fn canonical_animation_layout() {
        let mut m = model(3);
        let tracks = [
            Track::fixed([1.0, 2.0, 3.0], [0, 0, 0, 32767]),
            Track {
                keys: vec![key(0.0), key(2.0), key(5.0)],
            },
            Track {
                keys: vec![key(0.0), key(3.0)],
            },
        ];
        write_animation(&mut m, &tracks).unwrap();
        assert_eq!(m.frame_count, 6);
        assert_eq!(m.anim_keys.len(), 6);
        let fallbacks: Vec<u16> = m.nodes.iter().map(|n| n.fallback_key.get()).collect();
        assert_eq!(fallbacks, [0, 3, 5]);
        let starts: Vec<u16> = m.nodes.iter().map(|n| n.anim_map_start.get()).collect();
        assert_eq!(starts, [NONE, 0, 6]);
        let map: Vec<u16> = m.anim_map.iter().map(|w| w.get()).collect();
        // Node 1 (keys 1..=3 at 0, 2, 5): frames 0-1 -> 1, 2-4 -> 2, 5 -> fallback 3.
        // Node 2 (keys 4..=5 at 0, 3): frames 0-2 -> 4, 3-5 -> fallback 5.
        assert_eq!(map, [1, 1, 2, 2, 2, 3, 4, 4, 4, 5, 5, 5]);
        let report = crate::validate(&m.view());
        assert!(report.is_valid(), "{report:?}");
    }

    #[test]
    fn static_model_and_errors() {
        let mut m = model(2);
        let fixed = Track::fixed([0.0; 3], [0, 0, 0, 32767]);
        write_animation(&mut m, &[fixed.clone(), fixed.clone()]).unwrap();
        assert_eq!(m.frame_count, 1);
        assert!(m.anim_map.is_empty());
        assert!(m.nodes.iter().all(|n| n.anim_map_start.get() == NONE));
        assert_eq!(m.nodes[1].fallback_key.get(), 1);

        let err = write_animation(&mut m, std::slice::from_ref(&fixed)).unwrap_err();
        assert_eq!(err.code(), "anim.track_count");
        let bad = Track {
            keys: vec![key(0.0), key(0.0)],
        };
        let err = write_animation(&mut m, &[fixed.clone(), bad]).unwrap_err();
        assert_eq!(err, AnimError::KeyTimes { node: 1, key: 1 });
        let err = write_animation(&mut m, &[fixed, Track::default()]).unwrap_err();
        assert_eq!(err.code(), "anim.empty_track");
    }

    #[test]
    fn the_nearest_stored_quaternion_keeps_stored_values_and_beats_rounding() {
        // A stored value read back keeps its bits.
        for q in [
            [12345i16, -2, 32767, -301],
            [0, 0, 0, 32767],
            [-23170, 0, 0, 23170],
        ] {
            let f = q.map(|s| s as f32 * (1.0f32 / 32767.0));
            assert_eq!(quantize_quat_nearest(f), q);
        }
        // Any unit quaternion: never farther (as a matrix) than plain rounding.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let matrix_error = |q: [i16; 4], unit: [f64; 4]| -> f64 {
            let m = quat_matrix(q.map(|s| f64::from(s) / 32767.0));
            quat_matrix(unit)
                .iter()
                .zip(&m)
                .map(|(a, b)| (a - b) * (a - b))
                .sum()
        };
        let mut better = 0;
        for _ in 0..2000 {
            let v = [next(), next(), next(), next()];
            let len = v.iter().map(|c| c * c).sum::<f64>().sqrt();
            let unit = v.map(|c| c / len);
            let f = unit.map(|c| c as f32);
            let (near, plain) = (quantize_quat_nearest(f), quantize_quat(f));
            let (a, b) = (matrix_error(near, unit), matrix_error(plain, unit));
            assert!(a <= b + 1e-18, "{near:?} {a} vs {plain:?} {b}");
            better += usize::from(a < b);
        }
        assert!(
            better > 500,
            "nearest beat rounding on only {better} of 2000"
        );
    }
}
