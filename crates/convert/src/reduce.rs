//! Key reduction: a node's samples at whole frames -> the few keys the
//! engine's sampler plays back as the samples, at every frame.
//!
//! The engine interpolates rotations by slerp on the short arc (it negates
//! the second key when the two point apart, FORMAT.md section 3), as every
//! glTF viewer does. A span is only reduced to its two end keys when that
//! short-arc slerp meets every sample in between (up to the sign of a
//! quaternion, which names the same rotation), and when the stored (i16)
//! keys make the engine choose the same arc: a turn of 180 degrees or more
//! between two keys is never a span (it would play backwards, or not at all).

use crate::assemble::AssembleOptions;
use crate::codes::Code;
use crate::report::Report;
use crate::scene::{KeySample, SceneNode};
use msh::derive::{self, Key, Track};

/// What the reduction did over a model's tracks, for one note.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reduced {
    /// Tracks that lost samples.
    pub tracks: usize,
    /// Their samples.
    pub samples: usize,
    /// Their keys.
    pub keys: usize,
}

impl Reduced {
    /// One `import.keys_reduced` note for every reduced track.
    pub fn report(&self, options: &AssembleOptions, report: &mut Report) {
        if self.tracks == 0 {
            return;
        }
        let tracks = if self.tracks == 1 {
            "1 track".to_string()
        } else {
            format!("{} tracks", self.tracks)
        };
        report.note(
            Code::ImportKeysReduced.code(),
            format!(
                "{tracks} of {} samples in all were reduced to {} keys (linear interpolation and short-arc slerp within {} units and {} per quaternion component at every frame)",
                self.samples,
                self.keys,
                options.translation_tolerance,
                options.rotation_tolerance
            ),
        );
    }
}

/// The keys of one node: a static key from the rest pose, or its samples
/// reduced to what linear interpolation needs.
pub fn track(node: &SceneNode, options: &AssembleOptions, reduced: &mut Reduced) -> Track {
    let rest = Track::fixed(
        node.translation,
        derive::quantize_quat_nearest(node.rotation),
    );
    let Some(samples) = node.track.as_ref().filter(|s| !s.is_empty()) else {
        return rest;
    };
    let mut samples: Vec<KeySample> = samples.clone();
    samples.sort_by_key(|s| s.frame);
    samples.dedup_by_key(|s| s.frame);
    if samples[0].frame > 0 {
        // Canonical tracks start at frame 0: hold the first pose until then.
        let first = KeySample {
            frame: 0,
            ..samples[0]
        };
        samples.insert(0, first);
    }
    // One hemisphere: each quaternion on the side of its predecessor.
    for i in 1..samples.len() {
        let (prev, cur) = (samples[i - 1].rotation, samples[i].rotation);
        if (0..4).map(|k| prev[k] * cur[k]).sum::<f32>() < 0.0 {
            samples[i].rotation = cur.map(|c| -c);
        }
    }
    let kept = reduce(&samples, options);
    if samples.len() > 1 && kept.len() < samples.len() {
        reduced.tracks += 1;
        reduced.samples += samples.len();
        reduced.keys += kept.len();
    }
    if kept.len() < 2 {
        let s = samples[0];
        return Track::fixed(s.translation, derive::quantize_quat_nearest(s.rotation));
    }
    Track {
        keys: kept
            .iter()
            .map(|&i| Key {
                time: samples[i].frame as f32,
                pos: samples[i].translation,
                quat: derive::quantize_quat(samples[i].rotation),
            })
            .collect(),
    }
}

/// Samples a key may reach past its predecessor one at a time; a longer reach
/// is found by doubling and bisection (see [`reduce`]).
const STEPWISE_REACH: usize = 64;

/// Indices of the samples to keep: first and last, and every sample that the
/// line (and slerp) between its kept neighbours would miss by more than the tolerance.
///
/// From each kept sample, the next is the farthest one the samples in between
/// fit (greedy). Checking a candidate costs the samples it spans, so trying
/// every candidate in turn is quadratic in a long straight run: a track of
/// 65,535 samples on one line (the most a frame map holds) took 29 s. The
/// first [`STEPWISE_REACH`] candidates are tried in turn, the rest by doubling
/// the reach and then bisecting between the last that fits and the first that
/// does not: O(n log n) per run. Every dropped sample is still within the
/// tolerance of its keys; only where a sample fits a longer line but not a
/// shorter one (rare, and past the stepwise reach) may it keep a different key.
fn reduce(s: &[KeySample], options: &AssembleOptions) -> Vec<usize> {
    if s.len() <= 2 {
        // A track whose two samples are equal is static.
        return if s.len() == 2 && same(&s[0], &s[1]) {
            vec![0]
        } else {
            (0..s.len()).collect()
        };
    }
    let last = s.len() - 1;
    let fits = |anchor: usize, end: usize| {
        same_arc(&s[anchor], &s[end])
            && (anchor + 1..end).all(|k| close(&s[anchor], &s[end], &s[k], options))
    };
    let mut kept = vec![0usize];
    let mut anchor = 0usize;
    while anchor < last {
        anchor = farthest(anchor, last, fits);
        kept.push(anchor);
    }
    if kept.len() == 2 && (1..s.len()).all(|k| same(&s[0], &s[k])) {
        return vec![0];
    }
    kept
}

/// The next key after `anchor` (see [`reduce`]): at most `last`, and one whose
/// span `fits`.
fn farthest(anchor: usize, last: usize, fits: impl Fn(usize, usize) -> bool) -> usize {
    // The next sample always fits (nothing in between).
    let mut good = anchor + 1;
    while good < last && good - anchor < STEPWISE_REACH {
        if !fits(anchor, good + 1) {
            return good;
        }
        good += 1;
    }
    if good == last {
        return good;
    }
    let mut step = good - anchor;
    let mut bad = loop {
        let probe = good.saturating_add(step).min(last);
        if !fits(anchor, probe) {
            break probe;
        }
        good = probe;
        if good == last {
            return good;
        }
        step = step.saturating_mul(2);
    };
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if fits(anchor, mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    good
}

fn same(a: &KeySample, b: &KeySample) -> bool {
    a.translation == b.translation && a.rotation == b.rotation
}

/// Whether the engine, given the two keys as stored (i16), interpolates
/// on the arc [`close`] checks: the exact dot product of the stored keys has
/// the sign of the samples' own and is at least 1e-3 away from 0 (rotations
/// 180 degrees apart, where rounding could turn the engine the other way, are
/// never a span).
fn same_arc(a: &KeySample, b: &KeySample) -> bool {
    let (qa, qb) = (
        derive::quantize_quat(a.rotation),
        derive::quantize_quat(b.rotation),
    );
    let stored: i64 = (0..4).map(|k| i64::from(qa[k]) * i64::from(qb[k])).sum();
    let exact: f64 = (0..4)
        .map(|k| f64::from(a.rotation[k]) * f64::from(b.rotation[k]))
        .sum();
    let stored = stored as f64 / (32767.0 * 32767.0);
    stored.abs() >= 1e-3 && (stored > 0.0) == (exact > 0.0)
}

/// Whether sample `m` lies on the interpolation between `a` and `b` within
/// tolerance: the line for the translation, the short-arc slerp for the
/// rotation (compared up to sign: `q` and `-q` are one rotation).
fn close(a: &KeySample, b: &KeySample, m: &KeySample, options: &AssembleOptions) -> bool {
    let t = (m.frame - a.frame) as f64 / (b.frame - a.frame) as f64;
    let pos_ok = (0..3).all(|k| {
        let p = a.translation[k] as f64 + (b.translation[k] as f64 - a.translation[k] as f64) * t;
        (p - m.translation[k] as f64).abs()
            <= options.translation_tolerance as f64 * (1.0 + p.abs())
    });
    let q = slerp(a.rotation.map(f64::from), b.rotation.map(f64::from), t);
    let off = |sign: f64| {
        (0..4)
            .map(|k| (q[k] - sign * m.rotation[k] as f64).abs())
            .fold(0.0, f64::max)
    };
    let rot_ok = off(1.0).min(off(-1.0)) <= options.rotation_tolerance as f64;
    pos_ok && rot_ok
}

/// Slerp on the short arc, as the engine and glTF viewers take it: `q` is
/// negated when it points away from `p`.
fn slerp(p: [f64; 4], q: [f64; 4], t: f64) -> [f64; 4] {
    let mut d: f64 = (0..4).map(|k| p[k] * q[k]).sum();
    let q = if d < 0.0 {
        d = -d;
        q.map(|c| -c)
    } else {
        q
    };
    let (w0, w1) = if d > 1.0 - 1e-12 {
        (1.0 - t, t)
    } else {
        let th = d.min(1.0).acos();
        (((1.0 - t) * th).sin() / th.sin(), (t * th).sin() / th.sin())
    };
    std::array::from_fn(|k| w0 * p[k] + w1 * q[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(frame: u32, x: f32) -> KeySample {
        KeySample {
            frame,
            translation: [x, 0.0, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
        }
    }

    #[test]
    fn key_reduction_keeps_corners() {
        let mut s: Vec<KeySample> = (0..5).map(|f| sample(f, f as f32)).collect();
        s.extend((5..10).map(|f| sample(f, 4.0)));
        assert_eq!(reduce(&s, &AssembleOptions::default()), vec![0, 4, 9]);
        let flat: Vec<KeySample> = (0..6).map(|f| sample(f, 1.0)).collect();
        assert_eq!(reduce(&flat, &AssembleOptions::default()), vec![0]);
    }

    /// Each candidate in turn, the plain greedy: what `reduce` gives within
    /// [`STEPWISE_REACH`].
    fn reduce_stepwise(s: &[KeySample], options: &AssembleOptions) -> Vec<usize> {
        let mut kept = vec![0usize];
        let (mut anchor, mut end) = (0usize, 2usize);
        while end < s.len() {
            if (anchor + 1..end).all(|k| close(&s[anchor], &s[end], &s[k], options)) {
                end += 1;
            } else {
                kept.push(end - 1);
                anchor = end - 1;
                end = anchor + 2;
            }
        }
        kept.push(s.len() - 1);
        kept
    }

    /// The longest track a frame map holds, on one line but for two corners
    /// far apart: the corners are found past the stepwise reach, and the
    /// reduction takes O(n log n) checks, not O(n^2) (the debug test would
    /// take minutes).
    #[test]
    fn a_long_straight_track_keeps_only_its_corners() {
        let options = AssembleOptions::default();
        let x = |f: u32| match f {
            0..=30_000 => f as f32,
            30_001..=50_000 => 30_000.0 - (f - 30_000) as f32,
            _ => 10_000.0,
        };
        let s: Vec<KeySample> = (0..65_535).map(|f| sample(f, x(f))).collect();
        assert_eq!(reduce(&s, &options), vec![0, 30_000, 50_000, 65_534]);
    }

    fn runs() -> impl proptest::strategy::Strategy<Value = Vec<KeySample>> {
        use proptest::prelude::*;
        // Runs of samples on a line, with turns between them.
        proptest::collection::vec((1u32..150, -2i32..=2), 1..6).prop_map(|runs| {
            let mut out = Vec::new();
            let (mut frame, mut x, mut slope) = (0u32, 0.0f32, 0.0f32);
            for (len, turn) in runs {
                slope += turn as f32 * 0.5;
                for _ in 0..len {
                    out.push(sample(frame, x));
                    frame += 1;
                    x += slope;
                }
            }
            out
        })
    }

    proptest::proptest! {
        /// Every dropped sample lies within the tolerance of the line between
        /// the keys around it; within the stepwise reach the keys are the plain
        /// greedy's.
        #[test]
        fn reduced_tracks_stay_within_the_tolerance(s in runs()) {
            let options = AssembleOptions::default();
            let kept = reduce(&s, &options);
            proptest::prop_assert_eq!(kept[0], 0);
            if kept.len() > 1 {
                proptest::prop_assert_eq!(*kept.last().unwrap(), s.len() - 1);
                for w in kept.windows(2) {
                    proptest::prop_assert!(w[0] < w[1]);
                    for k in w[0] + 1..w[1] {
                        proptest::prop_assert!(close(&s[w[0]], &s[w[1]], &s[k], &options));
                    }
                }
            } else {
                proptest::prop_assert!(s.iter().all(|k| same(k, &s[0])));
            }
            let stepwise = reduce_stepwise(&s, &options);
            if kept.len() > 1 && stepwise.windows(2).all(|w| w[1] - w[0] < STEPWISE_REACH) {
                proptest::prop_assert_eq!(kept, stepwise);
            }
        }
    }

    /// A node turning about Y at `degrees` per frame for `frames` frames.
    fn spin(degrees: f64, frames: u32) -> SceneNode {
        let q = |f: u32| {
            let half = (f64::from(f) * degrees).to_radians() / 2.0;
            [0.0, half.sin() as f32, 0.0, half.cos() as f32]
        };
        SceneNode {
            rotation: q(0),
            track: Some(
                (0..=frames)
                    .map(|frame| KeySample {
                        frame,
                        translation: [0.0; 3],
                        rotation: q(frame),
                    })
                    .collect(),
            ),
            ..Default::default()
        }
    }

    /// The engine's rotation (`[x, y, z, w]`) of a track at whole frame `f`:
    /// the keys bracketing it, slerped by `msh::anim::slerp` as stored.
    fn engine_at(track: &Track, f: u32) -> [f64; 4] {
        let t = f as f32;
        let k = track.keys.partition_point(|k| k.time <= t).max(1) - 1;
        let wxyz = |q: [i16; 4]| [q[3], q[0], q[1], q[2]].map(|c| f32::from(c) / 32767.0);
        let q = match track.keys.get(k + 1) {
            Some(k1) => {
                let k0 = &track.keys[k];
                let a = (t - k0.time) / (k1.time - k0.time);
                msh::anim::slerp(wxyz(k0.quat), wxyz(k1.quat), a)
            }
            None => wxyz(track.keys[k].quat),
        };
        [q[1], q[2], q[3], q[0]].map(f64::from)
    }

    /// A turn at constant speed, whatever the angle between samples, plays
    /// back as the samples at every frame: no span of 180 degrees or more is
    /// reduced (the long arc it would need is not what the engine plays).
    #[test]
    fn constant_turns_keep_a_key_before_each_half_turn() {
        for degrees in [1.0, 2.5, 7.5, 15.0, 60.0, 90.0, 120.0, 179.0, 181.0, 270.0] {
            let node = spin(degrees, 48);
            let mut reduced = Reduced::default();
            let track = track(&node, &AssembleOptions::default(), &mut reduced);
            let samples = node.track.as_ref().unwrap();
            for s in samples {
                let got = engine_at(&track, s.frame);
                let want = s.rotation.map(f64::from);
                let off = |sign: f64| {
                    (0..4)
                        .map(|k| (got[k] - sign * want[k]).abs())
                        .fold(0.0, f64::max)
                };
                let d = off(1.0).min(off(-1.0));
                assert!(
                    d < 1e-4,
                    "{degrees} deg/frame, frame {}: off by {d}",
                    s.frame
                );
            }
            for w in track.keys.windows(2).filter(|_| degrees < 180.0) {
                let turn = f64::from(w[1].time - w[0].time) * degrees;
                assert!(
                    turn < 180.0,
                    "{degrees} deg/frame: a span turns {turn} degrees"
                );
            }
            if degrees <= 60.0 {
                assert!(track.keys.len() < samples.len(), "{degrees}: reduced");
            }
        }
    }
}
