//! Validation: every rule of FORMAT.md section 4 as errors, the canonical-form
//! checks as warnings. One pass that reports everything it finds; nothing here
//! reads out of range or allocates more than the input's size justifies.
//!
//! The animation's rules (Res8 keys, the Res19 map, canonical tracks) are in
//! `anim.rs`; this file has the container, the nodes, slots, batches,
//! streams and triangle links.

mod anim;

pub use anim::{canonical_map_value, canonical_tracks};

use crate::raw::NONE;
use crate::report::{Code, Finding, Report};
use crate::resource::{self as res, describe};
use crate::view::{ModelKind, ModelRef};
use nres::{Archive, Name};

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
    anim::check_animation(view, report);
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
}
