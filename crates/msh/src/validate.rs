//! Validation: every rule of FORMAT.md section 4 as errors, the canonical-form
//! checks as warnings. One pass that reports everything it finds; nothing here
//! reads out of range or allocates more than the input's size justifies.

use crate::raw::{Node38, NONE};
use crate::report::{Code, Finding, Report, Severity};
use crate::resource::{self as res, describe};
use crate::view::{ModelKind, ModelRef};
use nres::{Archive, Name};
use zerocopy::little_endian::U16;

/// How damage is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Any error rejects the file.
    #[default]
    Strict,
    /// Errors are reported; what is damaged is skipped, the rest is used.
    Tolerant,
}

impl Mode {
    /// `Tolerant` when `tolerant`, else `Strict`.
    pub fn from_tolerant(tolerant: bool) -> Self {
        if tolerant {
            Mode::Tolerant
        } else {
            Mode::Strict
        }
    }
}

/// A model file opened for reading: the container, the typed view and what validation found.
#[derive(Debug, Clone)]
pub struct Opened<'a> {
    /// The container.
    pub archive: Archive<'a>,
    /// The typed tables.
    pub view: ModelRef<'a>,
    /// Everything validation found (warnings, and in tolerant mode errors too).
    pub report: Report,
}

/// Opens and validates a model file.
///
/// Strict mode returns [`crate::Error::Invalid`] when any finding is an error;
/// tolerant mode returns the view with the report. A container too damaged to
/// find its directory is an error in both modes.
pub fn open(bytes: &[u8], mode: Mode) -> crate::Result<Opened<'_>> {
    let mut report = Report::default();
    let archive = match mode {
        Mode::Strict => Archive::parse(bytes)?,
        Mode::Tolerant => {
            let (archive, problems) = Archive::parse_tolerant(bytes)?;
            for p in problems {
                let mut f =
                    Finding::new(Code::Container(p.kind()), None, "container", p.to_string());
                f.offset = p.offset();
                report.push(f);
            }
            archive
        }
    };
    check_container(&archive, &mut report);
    let view = ModelRef::parse(&archive, &mut report);
    validate_into(&view, &mut report);
    if mode == Mode::Strict && !report.is_valid() {
        return Err(crate::Error::Invalid(report));
    }
    Ok(Opened {
        archive,
        view,
        report,
    })
}

/// Validates a file and returns every finding (never fails: a container that
/// cannot be read at all becomes a single finding).
pub fn validate_bytes(bytes: &[u8]) -> Report {
    match open(bytes, Mode::Tolerant) {
        Ok(opened) => opened.report,
        Err(crate::Error::Invalid(report)) => report,
        Err(crate::Error::Container(e)) => Report {
            findings: vec![Finding::container(&e)],
        },
        Err(e) => {
            // Tolerant opening fails only on the container; keep the message regardless.
            let mut report = Report::default();
            report.push(Finding::new(
                Code::Unreadable,
                None,
                "container",
                e.to_string(),
            ));
            report
        }
    }
}

/// Runs the model rules over a view (for example of an owned model about to be written).
pub fn validate(view: &ModelRef<'_>) -> Report {
    let mut report = Report::default();
    validate_into(view, &mut report);
    report
}

/// Container-level canonical-form checks and the overlap rule.
fn check_container(archive: &Archive<'_>, report: &mut Report) {
    let layout = archive.layout();
    for &(a, b) in &layout.overlaps {
        report.push(Finding::new(
            Code::PayloadOverlap,
            None,
            format!("directory[{b}]"),
            format!("the payload of entry {b} overlaps the payload of entry {a}"),
        ));
    }
    let dir = archive.directory_offset() as u64;
    let padded = layout.leading.is_empty()
        && archive.entries().all(|e| {
            let aligned = (e.data_offset() as usize).is_multiple_of(8);
            let filler = &layout.fillers[e.index()];
            let canonical_len = (8 - e.size() as usize % 8) % 8;
            aligned && filler.len() == canonical_len && filler.iter().all(|&b| b == 0)
        });
    if layout.physical_order.is_some() && !padded {
        report.push(Finding::new(
            Code::NonCanonicalPadding,
            None,
            "container",
            "payloads are not each 8-byte aligned and followed only by zero padding (kept as read)",
        ));
    }
    let names: Vec<&[u8]> = archive.entries().map(|e| e.name_bytes()).collect();
    let table = nres::sort_table(names.iter().copied());
    if archive
        .entries()
        .zip(&table)
        .any(|(e, &t)| e.sort_index() != t)
    {
        report.push(Finding::new(
            Code::NonCanonicalSortIndex,
            None,
            "directory.sort_index",
            "the sort_index table is not the canonical one (kept as read)",
        ));
    }
    for e in archive.entries() {
        if !Name::is_clean(&e.name_field()) {
            report.push(
                Finding::new(
                    Code::NonCanonicalNameField,
                    Some(e.type_id()),
                    format!("directory[{}].name", e.index()),
                    "bytes after the name's NUL are not zero (kept as read)",
                )
                .offset(dir + e.index() as u64 * 64 + 20),
            );
        }
    }
}

/// Appends the model rules' findings for `view` to `report`.
pub fn validate_into(view: &ModelRef<'_>, report: &mut Report) {
    match view.kind {
        Some(ModelKind::Standard) => {}
        // The legacy node table is not decoded, but the geometry tables are (and are
        // converted): every rule that does not involve nodes still applies.
        Some(ModelKind::LegacyNodes) => {
            check_slots(view, report);
            check_batches(view, report);
            check_streams(view, report);
            check_links(view, report);
            return;
        }
        _ => return,
    }
    check_nodes(view, report);
    check_slots(view, report);
    check_batches(view, report);
    check_streams(view, report);
    check_links(view, report);
    check_animation(view, report);
}

fn at(view: &ModelRef<'_>, f: Finding, type_id: u32, record: usize, field: usize) -> Finding {
    let f = f.record(record);
    match view.offset_of(type_id, record, field) {
        Some(o) => f.offset(o),
        None => f,
    }
}

fn check_nodes(view: &ModelRef<'_>, report: &mut Report) {
    let slots = view.slots.len();
    for (i, node) in view.nodes.iter().enumerate() {
        let parent = node.parent.get();
        if parent != NONE && parent as usize >= i {
            report.push(at(
                view,
                Finding::new(
                    Code::BadParent,
                    Some(res::NODES),
                    format!("Res1[{i}].parent"),
                    format!("parent {parent} is not smaller than the node's own index {i}"),
                ),
                res::NODES,
                i,
                2,
            ));
        }
        for (k, slot) in node.slots.iter().enumerate() {
            let s = slot.get();
            if s != NONE && s as usize >= slots {
                report.push(at(
                    view,
                    Finding::new(
                        Code::SlotOutOfRange,
                        Some(res::NODES),
                        format!("Res1[{i}].slot[{k}]"),
                        format!(
                            "slot {s} (lod {}, group {}) is past the {slots} slots of Res2",
                            k / 5,
                            k % 5
                        ),
                    ),
                    res::NODES,
                    i,
                    8 + 2 * k,
                ));
            }
        }
    }
    if let Some(names) = &view.names {
        let _ = names; // Res10 structure was checked while viewing.
    }
}

fn check_slots(view: &ModelRef<'_>, report: &mut Report) {
    let batches = view.batches.len();
    let tris = view.tri_descs.map_or(0, <[_]>::len);
    for (i, slot) in view.slots.iter().enumerate() {
        let (bs, bc) = (
            slot.batch_start.get() as usize,
            slot.batch_count.get() as usize,
        );
        if bs + bc > batches {
            report.push(at(
                view,
                Finding::new(
                    Code::BatchRangeOutOfRange,
                    Some(res::SLOTS),
                    format!("Res2.slot[{i}].batch_start"),
                    format!(
                        "batches {bs}..{} are past the {batches} batches of Res13",
                        bs + bc
                    ),
                ),
                res::SLOTS,
                i,
                4,
            ));
        }
        let (ts, tc) = (slot.tri_start.get() as usize, slot.tri_count.get() as usize);
        if ts + tc > tris {
            report.push(at(
                view,
                Finding::new(
                    Code::TriRangeOutOfRange,
                    Some(res::SLOTS),
                    format!("Res2.slot[{i}].tri_start"),
                    format!(
                        "triangle descriptors {ts}..{} are past the {tris} of Res7",
                        ts + tc
                    ),
                ),
                res::SLOTS,
                i,
                0,
            ));
        }
    }
}

fn check_batches(view: &ModelRef<'_>, report: &mut Report) {
    let indices = view.indices;
    let vertices = view.positions.len() as u64;
    let max = RangeMax::new(indices.iter().map(|i| i.get()));
    for (i, batch) in view.batches.iter().enumerate() {
        let start = batch.index_start.get() as usize;
        let count = batch.index_count.get() as usize;
        if !count.is_multiple_of(3) {
            report.push(at(
                view,
                Finding::new(
                    Code::IndexCountNotTriangles,
                    Some(res::BATCHES),
                    format!("Res13[{i}].index_count"),
                    format!("index_count {count} is not a multiple of 3 (triangle lists only)"),
                ),
                res::BATCHES,
                i,
                8,
            ));
        }
        let Some(end) = start.checked_add(count).filter(|&e| e <= indices.len()) else {
            report.push(at(
                view,
                Finding::new(
                    Code::IndexRangeOutOfRange,
                    Some(res::BATCHES),
                    format!("Res13[{i}].index_start"),
                    format!(
                        "indices {start}..{} are past the {} of Res6",
                        start as u64 + count as u64,
                        indices.len()
                    ),
                ),
                res::BATCHES,
                i,
                10,
            ));
            continue;
        };
        if let Some(m) = max.query(start, end) {
            let top = batch.base_vertex.get() as u64 + m as u64;
            if top >= vertices {
                report.push(at(
                    view,
                    Finding::new(
                        Code::VertexOutOfRange,
                        Some(res::BATCHES),
                        format!("Res13[{i}].base_vertex"),
                        format!(
                            "base_vertex {} + index {m} = vertex {top}, past the {vertices} vertices of Res3",
                            batch.base_vertex.get()
                        ),
                    ),
                    res::BATCHES,
                    i,
                    16,
                ));
            }
        }
    }
}

fn check_streams(view: &ModelRef<'_>, report: &mut Report) {
    let n = view.positions.len();
    let streams = [
        (res::NORMALS, view.normals.map(<[_]>::len)),
        (res::UV0, view.uv0.map(<[_]>::len)),
        (res::STREAM15, view.stream15.map(<[_]>::len)),
        (res::STREAM16, view.stream16.map(<[_]>::len)),
        (res::STREAM18, view.stream18.map(<[_]>::len)),
    ];
    for (type_id, len) in streams {
        if let Some(len) = len.filter(|&l| l != n) {
            report.push(Finding::new(
                Code::StreamLengthMismatch,
                Some(type_id),
                format!("Res{type_id}"),
                format!(
                    "the {} has {len} records, Res3 has {n} vertices",
                    describe(type_id)
                ),
            ));
        }
    }
}

fn check_links(view: &ModelRef<'_>, report: &mut Report) {
    let Some(tris) = view.tri_descs else { return };
    for (i, t) in tris.iter().enumerate() {
        for (k, link) in t.links.iter().enumerate() {
            let l = link.get();
            if l != NONE && l as usize >= tris.len() {
                report.push(at(
                    view,
                    Finding::new(
                        Code::LinkOutOfRange,
                        Some(res::TRI_DESCS),
                        format!("Res7[{i}].link[{k}]"),
                        format!("link {l} is past the {} triangle descriptors", tris.len()),
                    ),
                    res::TRI_DESCS,
                    i,
                    2 + 2 * k,
                ));
            }
        }
    }
}

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

fn check_animation(view: &ModelRef<'_>, report: &mut Report) {
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

/// Maximum over index ranges in O(block) per query, built in O(n) with
/// allocation proportional to the index buffer (blocks of 64, plus a sparse table over blocks).
struct RangeMax {
    values: Vec<u16>,
    levels: Vec<Vec<u16>>,
}

const BLOCK: usize = 64;

impl RangeMax {
    fn new(values: impl Iterator<Item = u16>) -> Self {
        let values: Vec<u16> = values.collect();
        let base: Vec<u16> = values
            .chunks(BLOCK)
            .map(|c| c.iter().copied().max().unwrap_or(0))
            .collect();
        let mut levels = vec![base];
        let mut width = 1;
        while width * 2 <= levels[0].len() {
            let prev = &levels[levels.len() - 1];
            let next: Vec<u16> = (0..prev.len() - width)
                .map(|i| prev[i].max(prev[i + width]))
                .collect();
            levels.push(next);
            width *= 2;
        }
        RangeMax { values, levels }
    }

    /// Maximum of `values[start..end]`, `None` for an empty range.
    fn query(&self, start: usize, end: usize) -> Option<u16> {
        if start >= end || end > self.values.len() {
            return None;
        }
        let (first_block, last_block) = (start.div_ceil(BLOCK), end / BLOCK);
        if first_block >= last_block {
            return self.values[start..end].iter().copied().max();
        }
        let mut m = self.values[start..first_block * BLOCK]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        m = m.max(
            self.values[last_block * BLOCK..end]
                .iter()
                .copied()
                .max()
                .unwrap_or(0),
        );
        let span = last_block - first_block;
        let level = usize::BITS as usize - 1 - span.leading_zeros() as usize;
        let table = &self.levels[level];
        m = m
            .max(table[first_block])
            .max(table[last_block - (1 << level)]);
        Some(m)
    }
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
    fn range_max_matches_a_scan() {
        let values: Vec<u16> = (0..1000u32).map(|i| ((i * 7919) % 1009) as u16).collect();
        let rm = RangeMax::new(values.iter().copied());
        for (s, e) in [
            (0, 1000),
            (3, 5),
            (60, 200),
            (64, 128),
            (127, 129),
            (500, 1000),
            (999, 1000),
            (10, 10),
        ] {
            assert_eq!(
                rm.query(s, e),
                values[s..e].iter().copied().max(),
                "{s}..{e}"
            );
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
