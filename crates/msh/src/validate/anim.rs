//! Validation of the animation: the keys (Res8), the frame map (Res19) and
//! the canonical track layout (FORMAT.md section 3).

use super::at;
use crate::raw::Node38;
use crate::report::{Code, Finding, Report, Severity};
use crate::resource as res;
use crate::view::ModelRef;
use zerocopy::little_endian::U16;

/// The canonical track of each node, `start..=fallback`, when fallbacks strictly increase.
pub fn canonical_tracks(nodes: &[Node38]) -> Option<Vec<(usize, usize)>> {
    let mut tracks = Vec::with_capacity(nodes.len());
    let mut start = 0usize;
    for node in nodes {
        let end = node.fallback_key.get() as usize;
        if end < start {
            return None;
        }
        tracks.push((start, end));
        start = end + 1;
    }
    Some(tracks)
}

/// The canonical map value for `frame` of a track `start..=end` (FORMAT.md section 3).
pub fn canonical_map_value(times: &[f32], start: usize, end: usize, frame: u32) -> u16 {
    let f = frame as f32;
    let (Some(&t_start), Some(&t_end)) = (times.get(start), times.get(end)) else {
        return end as u16;
    };
    if f < t_start || f >= t_end {
        return end as u16;
    }
    // The last key j in start..end with time(j) <= f (then f < time(j+1) as times increase).
    let track = &times[start..end];
    let j = track.partition_point(|&t| t <= f);
    (start + j.saturating_sub(1)) as u16
}

/// The map words that name a key pair which cannot be interpolated, for
/// finding the first one in a node's block under its fallback key in
/// O(log words): nodes may share or overlap their blocks (valid, not
/// canonical), and scanning each node's whole block took nodes x frames (a
/// 3.8 MB file: 8 s). A min tree over the words, those that interpolate
/// counted as `u16::MAX` (never under a fallback, which is at most that).
struct BadWords {
    /// Leaves from `leaves`; node `k` holds the minimum of `2k` and `2k + 1`.
    tree: Vec<u16>,
    leaves: usize,
}

impl BadWords {
    fn new(map: &[U16], bad: impl Fn(usize) -> bool) -> BadWords {
        let leaves = map.len().next_power_of_two().max(1);
        let mut tree = vec![u16::MAX; 2 * leaves];
        for (p, w) in map.iter().enumerate() {
            if bad(w.get() as usize) {
                tree[leaves + p] = w.get();
            }
        }
        for k in (1..leaves).rev() {
            tree[k] = tree[2 * k].min(tree[2 * k + 1]);
        }
        BadWords { tree, leaves }
    }

    /// The first position in `lo..hi` whose bad word is under `limit`.
    fn first_below(&self, lo: usize, hi: usize, limit: usize) -> Option<usize> {
        self.descend(1, 0, self.leaves, lo, hi, limit)
    }

    fn descend(
        &self,
        k: usize,
        from: usize,
        to: usize,
        lo: usize,
        hi: usize,
        limit: usize,
    ) -> Option<usize> {
        if to <= lo || hi <= from || self.tree[k] as usize >= limit {
            return None;
        }
        if to - from == 1 {
            return Some(from);
        }
        let mid = from + (to - from) / 2;
        self.descend(2 * k, from, mid, lo, hi, limit)
            .or_else(|| self.descend(2 * k + 1, mid, to, lo, hi, limit))
    }
}

pub(super) fn check_animation(view: &ModelRef<'_>, report: &mut Report) {
    if view.nodes.is_empty() {
        return;
    }
    let Some(keys) = view.anim_keys else {
        report.push(Finding::new(
            Code::MissingKeys,
            Some(res::ANIM_KEYS),
            "Res8",
            "the model has nodes but no animation keys (Res8): every node needs its fallback key",
        ));
        return;
    };
    let map = view.anim_map.unwrap_or(&[]);
    let frames = view.frame_count as u64;
    let animated = view.nodes.iter().any(|n| n.map_start().is_some());
    if view.anim_map.is_some() && frames == 0 {
        report.push(Finding::new(
            Code::ZeroFrameCount,
            Some(res::ANIM_MAP),
            "Res19.attr2",
            "frame_count is 0",
        ));
    }
    let time = |k: usize| keys.get(k).map(|k| k.time());
    // Built when the first animated node is checked.
    let mut bad_words: Option<BadWords> = None;
    for (i, node) in view.nodes.iter().enumerate() {
        let fallback = node.fallback_key.get() as usize;
        if fallback >= keys.len() {
            report.push(at(
                view,
                Finding::new(
                    Code::FallbackOutOfRange,
                    Some(res::NODES),
                    format!("Res1[{i}].fallback_key"),
                    format!(
                        "fallback key {fallback} is past the {} keys of Res8",
                        keys.len()
                    ),
                ),
                res::NODES,
                i,
                6,
            ));
            continue;
        }
        let Some(start) = node.map_start() else {
            continue;
        };
        let start = start as u64;
        if start + frames > map.len() as u64 {
            report.push(at(
                view,
                Finding::new(
                    Code::MapOutOfRange,
                    Some(res::NODES),
                    format!("Res1[{i}].anim_map_start"),
                    format!(
                        "map words {start}..{} are past the {} words of Res19",
                        start + frames,
                        map.len()
                    ),
                ),
                res::NODES,
                i,
                4,
            ));
            continue;
        }
        // The first frame whose word names a key pair that cannot be
        // interpolated, among the words under the node's fallback.
        if let Some(p) = bad_words
            .get_or_insert_with(|| {
                BadWords::new(
                    map,
                    |v| !matches!((time(v), time(v + 1)), (Some(t0), Some(t1)) if t0 < t1),
                )
            })
            .first_below(start as usize, (start + frames) as usize, fallback)
        {
            let f = p - start as usize;
            let v = map[p].get() as usize;
            match (time(v), time(v + 1)) {
                (Some(t0), Some(t1)) => {
                    report.push(at(
                        view,
                        Finding::new(
                            Code::KeyTimesNotIncreasing,
                            Some(res::ANIM_KEYS),
                            format!("Res8[{}].time", v + 1),
                            format!(
                                "node {i} frame {f} interpolates keys {v} (t={t0}) and {} (t={t1}), times must increase",
                                v + 1
                            ),
                        ),
                        res::ANIM_KEYS,
                        v + 1,
                        12,
                    ));
                }
                _ => {
                    report.push(at(
                        view,
                        Finding::new(
                            Code::MapValueOutOfRange,
                            Some(res::ANIM_MAP),
                            format!("Res19[{}]", start as usize + f),
                            format!("node {i} frame {f}: key {v} needs key {} which is past the {} keys", v + 1, keys.len()),
                        ),
                        res::ANIM_MAP,
                        start as usize + f,
                        0,
                    ));
                }
            }
        }
    }
    // Track rules and canonical form, where tracks are laid out canonically.
    let Some(tracks) = canonical_tracks(view.nodes) else {
        report.push(Finding::new(
            Code::NonCanonicalFallbackOrder,
            Some(res::NODES),
            "Res1.fallback_key",
            "fallback keys do not strictly increase over nodes (tracks are not laid out node by node)",
        ));
        return;
    };
    let times: Vec<f32> = keys.iter().map(|k| k.time()).collect();
    let mut max_end = 0f32;
    let mut expected_start = 0u64;
    let mut map_canonical = true;
    for (i, (node, &(start, end))) in view.nodes.iter().zip(&tracks).enumerate() {
        if end >= keys.len() {
            continue;
        }
        let track = &times[start..=end];
        if let Some(k) = track
            .windows(2)
            .position(|w| w[0].partial_cmp(&w[1]) != Some(std::cmp::Ordering::Less))
        {
            report.push(at(
                view,
                Finding::new(
                    Code::KeyTimesNotIncreasing,
                    Some(res::ANIM_KEYS),
                    format!("Res8[{}].time", start + k + 1),
                    format!("node {i}: key times must strictly increase within its track {start}..={end}"),
                ),
                res::ANIM_KEYS,
                start + k + 1,
                12,
            ));
        }
        if node.map_start().is_some() && end == start {
            report.push(at(
                view,
                Finding::new(
                    Code::TrackTooShort,
                    Some(res::NODES),
                    format!("Res1[{i}]"),
                    "an animated node's track needs at least two keys",
                ),
                res::NODES,
                i,
                6,
            ));
        }
        if track[0] != 0.0 {
            report.push(Finding::new(
                Code::NonCanonicalTrackStart,
                Some(res::ANIM_KEYS),
                format!("Res8[{start}].time"),
                format!("node {i}'s track starts at time {} rather than 0", track[0]),
            ));
        }
        if let Some(k) = track.iter().position(|t| t.fract() != 0.0) {
            report.push(Finding::new(
                Code::NonCanonicalKeyTime,
                Some(res::ANIM_KEYS),
                format!("Res8[{}].time", start + k),
                format!("key time {} is not a whole number of frames", track[k]),
            ));
        }
        max_end = max_end.max(track[track.len() - 1]);
        if let Some(ms) = node.map_start() {
            if ms as u64 != expected_start {
                map_canonical = false;
            }
            expected_start += frames;
            if ms as u64 + frames <= map.len() as u64 {
                let block = &map[ms as usize..(ms as u64 + frames) as usize];
                if let Some(f) = (0..frames as u32).find(|&f| {
                    block[f as usize].get() != canonical_map_value(&times, start, end, f)
                }) {
                    report.push(Finding::new(
                        Code::NonCanonicalMapValue,
                        Some(res::ANIM_MAP),
                        format!("Res19[{}]", ms as u64 + f as u64),
                        format!(
                            "node {i} frame {f}: map value {} differs from the canonical {}",
                            block[f as usize].get(),
                            canonical_map_value(&times, start, end, f)
                        ),
                    ));
                }
            }
        }
    }
    if map_canonical && expected_start != map.len() as u64 {
        map_canonical = false;
    }
    if !map_canonical {
        report.push(Finding::new(
            Code::NonCanonicalMapLayout,
            Some(res::ANIM_MAP),
            "Res19",
            "map blocks are not frame_count words per animated node, back to back in node order",
        ));
    }
    // Saturating: a key time may be any float (a huge one saturates the cast).
    let expected_frames = if animated {
        (max_end as u64).saturating_add(1)
    } else {
        1
    };
    if view.anim_map.is_some() && frames != expected_frames {
        report.push(Finding::new(
            Code::NonCanonicalFrameCount,
            Some(res::ANIM_MAP),
            "Res19.attr2",
            format!("frame_count is {frames}, the canonical value is {expected_frames}"),
        ));
    }
    let _ = Severity::Warning;
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The tree finds what a scan of the block finds: the first word
        /// under the limit among the bad ones.
        #[test]
        fn bad_words_find_what_a_scan_finds(
            words in proptest::collection::vec(0u16..40, 0..300),
            bad_mod in 1u16..5,
            queries in proptest::collection::vec((0usize..320, 0usize..320, 0usize..45), 1..20),
        ) {
            let map: Vec<U16> = words.iter().map(|&w| U16::new(w)).collect();
            let bad = |v: usize| v.is_multiple_of(bad_mod as usize);
            let tree = BadWords::new(&map, bad);
            for (a, b, limit) in queries {
                let (lo, hi) = (a.min(b).min(map.len()), a.max(b).min(map.len()));
                let scan = (lo..hi).find(|&p| {
                    let v = map[p].get() as usize;
                    v < limit && bad(v)
                });
                proptest::prop_assert_eq!(tree.first_below(lo, hi, limit), scan);
            }
        }
    }

    #[test]
    fn canonical_map_values() {
        let times = [0.0, 3.0, 7.0];
        let v: Vec<u16> = (0..9)
            .map(|f| canonical_map_value(&times, 0, 2, f))
            .collect();
        assert_eq!(v, [0, 0, 0, 1, 1, 1, 1, 2, 2]);
    }
}
