//! Zero-copy, typed views of every resource of a model (FORMAT.md section 2).
//!
//! [`ModelRef`] borrows its tables straight from the file bytes (or from an
//! owned [`crate::Model`]). Building one from a container never fails: a table
//! that is not a whole number of records is cut to its whole records and
//! reported, a missing table is empty, so tolerant callers can go on and strict
//! callers reject on the report.

use crate::raw::{
    AnimKey24, Batch20, ModelHeader, Node38, PackedNormal, PackedUv, Position, Raw4, Raw8, Slot68,
    TriDesc16,
};
use crate::report::{Code, Finding, Report};
use crate::resource::{self as res, describe, expected_attr3, record_size};
use nres::Archive;
use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, Immutable, KnownLayout};

/// What sort of model a container holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ModelKind {
    /// The ordinary layout this library decodes.
    Standard,
    /// Res1 with the legacy 24-byte stride (`MTCHECK.MSH`): carried through, nodes not decoded.
    LegacyNodes,
    /// A terrain model (Res21 triangles, no Res6/Res13): carried through, not decoded.
    Terrain,
}

/// Where a resource sits in the file, for findings that point at bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Resource type.
    pub type_id: u32,
    /// Directory entry index.
    pub entry: usize,
    /// Absolute offset of the payload.
    pub data_offset: u64,
}

/// Borrowed, typed tables of one model.
#[derive(Debug, Clone, Default)]
pub struct ModelRef<'a> {
    /// What sort of model this is.
    pub kind: Option<ModelKind>,
    /// Res1 (empty for a legacy table).
    pub nodes: &'a [Node38],
    /// Res2 header, if Res2 has at least 0x8C bytes.
    pub header: Option<&'a ModelHeader>,
    /// Res2 slot table.
    pub slots: &'a [Slot68],
    /// Res3.
    pub positions: &'a [Position],
    /// Res4, if present.
    pub normals: Option<&'a [PackedNormal]>,
    /// Res5, if present.
    pub uv0: Option<&'a [PackedUv]>,
    /// Res6.
    pub indices: &'a [U16],
    /// Res7, if present.
    pub tri_descs: Option<&'a [TriDesc16]>,
    /// Res8, if present.
    pub anim_keys: Option<&'a [AnimKey24]>,
    /// Res19, if present.
    pub anim_map: Option<&'a [U16]>,
    /// Res19 `attr2`: the number of frames on the timeline (0 without Res19).
    pub frame_count: u32,
    /// Res10 records, one per node (`None` for an unnamed node), if present.
    pub names: Option<Vec<Option<&'a [u8]>>>,
    /// Res13.
    pub batches: &'a [Batch20],
    /// Res15, if present.
    pub stream15: Option<&'a [Raw8]>,
    /// Res16, if present.
    pub stream16: Option<&'a [Raw8]>,
    /// Res18, if present.
    pub stream18: Option<&'a [Raw4]>,
    /// Where each decoded resource sits in the file (empty for views of an owned model).
    pub locations: Vec<Location>,
}

impl<'a> ModelRef<'a> {
    /// Views the resources of a model container, reporting what does not fit.
    pub fn parse(archive: &Archive<'a>, report: &mut Report) -> ModelRef<'a> {
        let mut view = ModelRef::default();
        let is_terrain = archive.find_by_type(res::TERRAIN_TRIS).is_some()
            && archive.find_by_type(res::INDICES).is_none()
            && archive.find_by_type(res::BATCHES).is_none();
        if is_terrain {
            view.kind = Some(ModelKind::Terrain);
            report.push(Finding::new(
                Code::TerrainModel,
                Some(res::TERRAIN_TRIS),
                "Res21",
                "terrain model (Res21 triangles, no Res6/Res13): recognised, carried through, not decoded",
            ));
            return view;
        }
        let mut seen: Vec<u32> = Vec::new();
        for entry in archive.entries() {
            let type_id = entry.type_id();
            if !res::is_typed(type_id) {
                continue;
            }
            if seen.contains(&type_id) {
                report.push(
                    Finding::new(
                        Code::DuplicateResource,
                        Some(type_id),
                        format!("Res{type_id}"),
                        format!(
                            "a second {} (directory entry {}); the game uses the first",
                            describe(type_id),
                            entry.index()
                        ),
                    )
                    .offset(archive.directory_offset() as u64 + entry.index() as u64 * 64),
                );
                continue;
            }
            seen.push(type_id);
            view.locations.push(Location {
                type_id,
                entry: entry.index(),
                data_offset: entry.data_offset() as u64,
            });
            if let Some(expected) = expected_attr3(type_id) {
                let legacy = type_id == res::NODES && entry.attr3() == res::LEGACY_NODE_STRIDE;
                if entry.attr3() != expected && !legacy {
                    report.push(
                        Finding::new(
                            Code::BadAttr3,
                            Some(type_id),
                            format!("Res{type_id}.attr3"),
                            format!(
                                "attr3 is {}, the {} needs {expected}",
                                entry.attr3(),
                                describe(type_id)
                            ),
                        )
                        .offset(archive.directory_offset() as u64 + entry.index() as u64 * 64 + 16),
                    );
                }
            }
            let data = entry.data();
            let base = entry.data_offset() as u64;
            check_attrs(archive, &entry, report);
            match type_id {
                res::NODES if entry.attr3() == res::LEGACY_NODE_STRIDE => {
                    view.kind = Some(ModelKind::LegacyNodes);
                    report.push(Finding::new(
                        Code::LegacyNodeTable,
                        Some(type_id),
                        "Res1",
                        "legacy node table (attr3 = 24): carried through byte for byte, nodes not decoded",
                    ));
                }
                res::NODES => view.nodes = table(data, type_id, base, report),
                res::SLOTS => {
                    if data.len() < res::MODEL_HEADER_SIZE {
                        report.push(
                            Finding::new(
                                Code::ShortHeader,
                                Some(type_id),
                                "Res2",
                                format!(
                                    "Res2 is {} bytes, its header alone is {}",
                                    data.len(),
                                    res::MODEL_HEADER_SIZE
                                ),
                            )
                            .offset(base),
                        );
                    } else {
                        let (head, rest) = data.split_at(res::MODEL_HEADER_SIZE);
                        view.header = ModelHeader::ref_from_bytes(head).ok();
                        view.slots =
                            table(rest, type_id, base + res::MODEL_HEADER_SIZE as u64, report);
                        if entry.attr1() as usize != view.slots.len() {
                            report.push(
                                Finding::new(
                                    Code::SlotCountMismatch,
                                    Some(type_id),
                                    "Res2.attr1",
                                    format!(
                                        "attr1 says {} slots, the table holds {}",
                                        entry.attr1(),
                                        view.slots.len()
                                    ),
                                )
                                .offset(
                                    archive.directory_offset() as u64
                                        + entry.index() as u64 * 64
                                        + 4,
                                ),
                            );
                        }
                    }
                }
                res::POSITIONS => view.positions = table(data, type_id, base, report),
                res::NORMALS => view.normals = Some(table(data, type_id, base, report)),
                res::UV0 => view.uv0 = Some(table(data, type_id, base, report)),
                res::INDICES => view.indices = table(data, type_id, base, report),
                res::TRI_DESCS => view.tri_descs = Some(table(data, type_id, base, report)),
                res::ANIM_KEYS => view.anim_keys = Some(table(data, type_id, base, report)),
                res::ANIM_MAP => {
                    view.anim_map = Some(table(data, type_id, base, report));
                    view.frame_count = entry.attr2();
                }
                res::BATCHES => view.batches = table(data, type_id, base, report),
                res::STREAM15 => view.stream15 = Some(table(data, type_id, base, report)),
                res::STREAM16 => view.stream16 = Some(table(data, type_id, base, report)),
                res::STREAM18 => view.stream18 = Some(table(data, type_id, base, report)),
                res::NAMES => {} // needs the node count; parsed below
                _ => {}
            }
        }
        if view.kind.is_none() {
            view.kind = Some(ModelKind::Standard);
        }
        for required in [
            res::NODES,
            res::SLOTS,
            res::POSITIONS,
            res::INDICES,
            res::BATCHES,
        ] {
            if !seen.contains(&required) {
                report.push(Finding::new(
                    Code::MissingResource,
                    Some(required),
                    format!("Res{required}"),
                    format!(
                        "the {} (Res{required}) is required and missing",
                        describe(required)
                    ),
                ));
            }
        }
        if let Some(entry) = archive.find_by_type(res::NAMES) {
            let count = if view.kind == Some(ModelKind::LegacyNodes) {
                // Every record takes at least 4 bytes: never trust attr1 beyond that.
                archive
                    .find_by_type(res::NODES)
                    .map_or(0, |e| e.attr1() as usize)
                    .min(entry.data().len() / 4)
            } else {
                view.nodes.len()
            };
            view.names = Some(parse_names(
                entry.data(),
                count,
                entry.data_offset() as u64,
                report,
            ));
        }
        view
    }

    /// Where resource `type_id` sits in the file, if this view came from one.
    pub fn location(&self, type_id: u32) -> Option<Location> {
        self.locations
            .iter()
            .copied()
            .find(|l| l.type_id == type_id)
    }

    /// Absolute offset of `record` of resource `type_id` plus `field`, if known.
    pub fn offset_of(&self, type_id: u32, record: usize, field: usize) -> Option<u64> {
        let loc = self.location(type_id)?;
        let stride = record_size(type_id)? as u64;
        let header = if type_id == res::SLOTS {
            res::MODEL_HEADER_SIZE as u64
        } else {
            0
        };
        Some(loc.data_offset + header + record as u64 * stride + field as u64)
    }

    /// The name of node `index` (Res10), if it has one.
    pub fn node_name(&self, index: usize) -> Option<&'a [u8]> {
        self.names.as_ref()?.get(index).copied().flatten()
    }

    /// Number of vertices (records in Res3).
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// True when some node has an animation map.
    pub fn is_animated(&self) -> bool {
        self.nodes.iter().any(|n| n.map_start().is_some())
    }
}

/// Warns when `attr1`/`attr2` of a decoded resource differ from what the writer derives.
fn check_attrs(archive: &Archive<'_>, entry: &nres::Entry<'_>, report: &mut Report) {
    let type_id = entry.type_id();
    let dir_offset = archive.directory_offset() as u64 + entry.index() as u64 * 64;
    let len = entry.data().len();
    let count = match type_id {
        res::SLOTS => None,              // checked as an error (slots.count_mismatch)
        res::NAMES | res::NODES => None, // the node count; Res1.attr2 is kept as read
        _ => record_size(type_id).map(|s| (len / s) as u32),
    };
    if let Some(count) = count {
        if entry.attr1() != count {
            report.push(
                Finding::new(
                    Code::NonCanonicalAttr,
                    Some(type_id),
                    format!("Res{type_id}.attr1"),
                    format!(
                        "attr1 is {}, the record count is {count} (kept as read)",
                        entry.attr1()
                    ),
                )
                .offset(dir_offset + 4),
            );
        }
    }
    let attr2_free = matches!(type_id, res::NODES | res::ANIM_MAP);
    if !attr2_free && entry.attr2() != 0 {
        report.push(
            Finding::new(
                Code::NonCanonicalAttr,
                Some(type_id),
                format!("Res{type_id}.attr2"),
                format!("attr2 is {}, expected 0 (kept as read)", entry.attr2()),
            )
            .offset(dir_offset + 8),
        );
    }
}

/// Views `data` as records, cutting a trailing partial record and reporting it.
fn table<'a, T: FromBytes + KnownLayout + Immutable>(
    data: &'a [u8],
    type_id: u32,
    base: u64,
    report: &mut Report,
) -> &'a [T] {
    let size = core::mem::size_of::<T>();
    let whole = data.len() / size;
    if !data.len().is_multiple_of(size) {
        report.push(
            Finding::new(
                Code::PartialRecord,
                Some(type_id),
                format!("Res{type_id}"),
                format!(
                    "{} bytes is not a whole number of {size}-byte records ({} left over)",
                    data.len(),
                    data.len() % size
                ),
            )
            .record(whole)
            .offset(base + (whole * size) as u64),
        );
    }
    // Cannot fail: the prefix length is a whole number of records of an alignment-1 type.
    <[T]>::ref_from_prefix_with_elems(data, whole)
        .map(|(t, _)| t)
        .unwrap_or(&[])
}

/// Parses Res10: `count` records of `u32 len` then `len + 1` bytes when `len > 0`.
fn parse_names<'a>(
    data: &'a [u8],
    count: usize,
    base: u64,
    report: &mut Report,
) -> Vec<Option<&'a [u8]>> {
    // Each record takes at least 4 bytes, so the claim is checked before sizing anything.
    let mut names = Vec::with_capacity(count.min(data.len() / 4));
    let mut pos = 0usize;
    for i in 0..count {
        let Some(len) = data
            .get(pos..pos + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        else {
            report.push(
                Finding::new(
                    Code::BadNames,
                    Some(res::NAMES),
                    format!("Res10[{i}]"),
                    format!("Res10 ends after {i} of {count} records"),
                )
                .record(i)
                .offset(base + pos as u64),
            );
            break;
        };
        if len == 0 {
            names.push(None);
            pos += 4;
            continue;
        }
        let text = pos
            .checked_add(4)
            .and_then(|s| Some((s, s.checked_add(len)?)));
        match text.and_then(|(s, e)| Some((data.get(s..e)?, data.get(e)?))) {
            Some((text, &terminator)) => {
                if terminator != 0 {
                    report.push(
                        Finding::new(
                            Code::NonCanonicalNameTerminator,
                            Some(res::NAMES),
                            format!("Res10[{i}]"),
                            format!("name ends in byte 0x{terminator:02x} rather than NUL (kept as read)"),
                        )
                        .record(i)
                        .offset(base + (pos + 4 + len) as u64),
                    );
                }
                names.push(Some(text));
                pos += 4 + len + 1;
            }
            None => {
                report.push(
                    Finding::new(
                        Code::BadNames,
                        Some(res::NAMES),
                        format!("Res10[{i}].len"),
                        format!(
                            "name length {len} runs past the end of Res10 ({} bytes)",
                            data.len()
                        ),
                    )
                    .record(i)
                    .offset(base + pos as u64),
                );
                break;
            }
        }
    }
    if names.len() == count && pos != data.len() {
        report.push(
            Finding::new(
                Code::BadNames,
                Some(res::NAMES),
                "Res10",
                format!(
                    "{} bytes left after the {count} node names",
                    data.len() - pos
                ),
            )
            .offset(base + pos as u64),
        );
    }
    // `count` is bounded by the input (node table or payload size), so this is too.
    names.resize(count, None);
    names
}
