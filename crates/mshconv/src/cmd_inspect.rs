//! `mshconv inspect`: what a model holds, as stable text or JSON.
//!
//! One [`Inspection`] is built from the model and then printed either way, so
//! the text and the JSON always agree. Every table access is bounds-checked:
//! in tolerant mode a damaged model is shown as far as it can be read.

use crate::cli::InspectArgs;
use crate::input;
use crate::out::Out;
use crate::table::Table;
use anyhow::Context;
use msh::raw::{GROUPS, LODS};
use msh::resource::{self as res, describe};
use msh::{Mode, ModelKind, ModelRef, Opened, Severity};
use serde::Serialize;
use std::fmt::Write as _;
use std::process::ExitCode;

/// Resources every model needs.
const REQUIRED: [u32; 5] = [
    res::NODES,
    res::SLOTS,
    res::POSITIONS,
    res::INDICES,
    res::BATCHES,
];
/// Resources a standard model may have.
const OPTIONAL: [u32; 12] = [
    res::NORMALS,
    res::UV0,
    res::TRI_DESCS,
    res::ANIM_KEYS,
    res::SERVICE,
    res::NAMES,
    res::STREAM15,
    res::STREAM16,
    res::AUX17,
    res::STREAM18,
    res::ANIM_MAP,
    res::AUX20,
];
/// Codes of the canonical-form warnings about animation.
const ANIM_CANON: [&str; 6] = [
    "canon.fallback_order",
    "canon.track_start",
    "canon.frame_count",
    "canon.map_layout",
    "canon.map_value",
    "canon.key_time",
];

/// Everything `inspect` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The file as named on the command line.
    pub file: String,
    /// Size of the model's container in bytes.
    pub bytes: usize,
    /// `standard`, `legacy_nodes` or `terrain`.
    pub kind: Option<ModelKind>,
    /// The container's directory.
    pub entries: Vec<EntryInfo>,
    /// Which resources exist.
    pub resources: Resources,
    /// Model totals (absent for terrain models, which are not decoded).
    pub totals: Option<Totals>,
    /// Nodes in order (empty for legacy and terrain models).
    pub nodes: Vec<NodeInfo>,
    /// Slots in order.
    pub slots: Vec<SlotInfo>,
    /// Animation summary.
    pub animation: AnimationInfo,
    /// What can be listed of a legacy node table.
    pub legacy: Option<LegacyInfo>,
    /// What can be listed of a terrain model.
    pub terrain: Option<TerrainInfo>,
    /// How many findings validation made, by severity.
    pub findings: FindingCounts,
}

/// One directory entry.
#[derive(Debug, Clone, Serialize)]
pub struct EntryInfo {
    /// Directory index.
    pub index: usize,
    /// Resource type.
    pub type_id: u32,
    /// What the type is, in words.
    pub resource: &'static str,
    /// Entry name.
    pub name: String,
    /// Payload size in bytes.
    pub size: u32,
    /// First attribute.
    pub attr1: u32,
    /// Second attribute.
    pub attr2: u32,
    /// Third attribute.
    pub attr3: u32,
    /// Payload offset.
    pub offset: u32,
    /// `sort_index` as stored.
    pub sort_index: u32,
}

/// Which resources exist.
#[derive(Debug, Clone, Serialize)]
pub struct Resources {
    /// Required resources present (of 1, 2, 3, 6, 13).
    pub required_present: Vec<u32>,
    /// Required resources missing.
    pub required_missing: Vec<u32>,
    /// Optional resources present (of 4, 5, 7, 8, 9, 10, 15, 16, 17, 18, 19, 20).
    pub optional_present: Vec<u32>,
    /// Optional resources absent.
    pub optional_absent: Vec<u32>,
    /// Other resource types present (terrain tables, unknown types).
    pub other: Vec<u32>,
}

/// Model totals.
#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    /// Nodes (Res1); null when the node table is not decoded (legacy layout).
    pub nodes: Option<usize>,
    /// Slots (Res2).
    pub slots: usize,
    /// Batches (Res13).
    pub batches: usize,
    /// Vertices (Res3).
    pub vertices: usize,
    /// Indices (Res6).
    pub indices: usize,
    /// Triangles drawn: the sum of every batch's `index_count / 3`.
    pub triangles: usize,
    /// Triangle descriptors (Res7).
    pub tri_descriptors: usize,
    /// Distinct material indices over all batches, ascending.
    pub materials_used: Vec<u16>,
}

/// A node's reference to a slot.
#[derive(Debug, Clone, Serialize)]
pub struct SlotRef {
    /// LOD, 0..3.
    pub lod: usize,
    /// Group, 0..5.
    pub group: usize,
    /// Slot index.
    pub slot: u16,
}

/// One node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeInfo {
    /// Node index.
    pub index: usize,
    /// Res10 name, null for none.
    pub name: Option<String>,
    /// Parent index, null for a root.
    pub parent: Option<u16>,
    /// `hdr0`.
    pub flags: u16,
    /// First word of the node's Res19 block, null when not animated.
    pub anim_map_start: Option<u16>,
    /// Index of the node's fallback key in Res8.
    pub fallback_key: u16,
    /// The slots the node draws, by LOD and group.
    pub slots: Vec<SlotRef>,
}

/// One batch of a slot.
#[derive(Debug, Clone, Serialize)]
pub struct BatchInfo {
    /// Batch index in Res13.
    pub index: usize,
    /// Material index.
    pub material: u16,
    /// Number of indices.
    pub index_count: u16,
    /// First index in Res6.
    pub index_start: u32,
    /// Added to every index.
    pub base_vertex: u32,
}

/// One slot.
#[derive(Debug, Clone, Serialize)]
pub struct SlotInfo {
    /// Slot index.
    pub index: usize,
    /// First triangle descriptor.
    pub tri_start: u16,
    /// Number of triangle descriptors.
    pub tri_count: u16,
    /// First batch.
    pub batch_start: u16,
    /// Number of batches.
    pub batch_count: u16,
    /// The batches that exist in Res13.
    pub batches: Vec<BatchInfo>,
    /// Distinct vertices the batches reference.
    pub vertices: usize,
    /// Triangles the batches draw.
    pub triangles: usize,
    /// Nodes that draw this slot (null when nodes are not decoded).
    pub used_by: Option<Vec<usize>>,
}

/// Animation summary.
#[derive(Debug, Clone, Serialize)]
pub struct AnimationInfo {
    /// Nodes with a map block (null when nodes are not decoded).
    pub animated_nodes: Option<usize>,
    /// Keys in Res8 (null without Res8).
    pub keys: Option<usize>,
    /// Words in Res19 (null without Res19).
    pub map_words: Option<usize>,
    /// `Res19.attr2` (null without Res19).
    pub frame_count: Option<u32>,
    /// Whether tracks and map are laid out canonically (null when nodes are not decoded).
    pub canonical: Option<bool>,
    /// Codes of the canonical-form warnings about animation.
    pub non_canonical: Vec<String>,
}

/// A legacy node table (Res1 with 24-byte records).
#[derive(Debug, Clone, Serialize)]
pub struct LegacyInfo {
    /// `Res1.attr1`.
    pub node_count: u32,
    /// Res1 size in bytes.
    pub node_table_bytes: usize,
    /// Res10 names as far as they parse (null for unnamed).
    pub names: Vec<Option<String>>,
}

/// A terrain model.
#[derive(Debug, Clone, Serialize)]
pub struct TerrainInfo {
    /// Res3 records.
    pub vertices: usize,
    /// Res21 records (28 bytes each).
    pub triangles: usize,
    /// Res11 records (4 bytes each).
    pub material_records: usize,
}

/// Finding counts.
#[derive(Debug, Clone, Serialize)]
pub struct FindingCounts {
    /// Errors (only in tolerant mode: strict mode rejects the file).
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Infos.
    pub info: usize,
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Builds the inspection of an opened model.
pub fn inspect(label: &str, opened: &Opened<'_>) -> Inspection {
    let archive = &opened.archive;
    let view = &opened.view;
    let entries: Vec<EntryInfo> = archive
        .entries()
        .map(|e| EntryInfo {
            index: e.index(),
            type_id: e.type_id(),
            resource: describe(e.type_id()),
            name: e.name(),
            size: e.size(),
            attr1: e.attr1(),
            attr2: e.attr2(),
            attr3: e.attr3(),
            offset: e.data_offset(),
            sort_index: e.sort_index(),
        })
        .collect();
    let has = |t: u32| archive.find_by_type(t).is_some();
    let mut other: Vec<u32> = archive
        .entries()
        .map(|e| e.type_id())
        .filter(|t| !REQUIRED.contains(t) && !OPTIONAL.contains(t))
        .collect();
    other.sort_unstable();
    other.dedup();
    let resources = Resources {
        required_present: REQUIRED.iter().copied().filter(|&t| has(t)).collect(),
        required_missing: REQUIRED.iter().copied().filter(|&t| !has(t)).collect(),
        optional_present: OPTIONAL.iter().copied().filter(|&t| has(t)).collect(),
        optional_absent: OPTIONAL.iter().copied().filter(|&t| !has(t)).collect(),
        other,
    };
    let records = |t: u32, size: usize| archive.find_by_type(t).map(|e| e.data().len() / size);
    let kind = view.kind;
    let terrain = (kind == Some(ModelKind::Terrain)).then(|| TerrainInfo {
        vertices: records(res::POSITIONS, 12).unwrap_or(0),
        triangles: records(res::TERRAIN_TRIS, 28).unwrap_or(0),
        material_records: records(res::TERRAIN_MATERIALS, 4).unwrap_or(0),
    });
    let legacy = (kind == Some(ModelKind::LegacyNodes)).then(|| LegacyInfo {
        node_count: archive.find_by_type(res::NODES).map_or(0, |e| e.attr1()),
        node_table_bytes: archive
            .find_by_type(res::NODES)
            .map_or(0, |e| e.data().len()),
        names: view
            .names
            .as_ref()
            .map(|names| names.iter().map(|n| n.map(lossy)).collect())
            .unwrap_or_default(),
    });
    let totals = (kind != Some(ModelKind::Terrain)).then(|| totals(view));
    let nodes = nodes(view);
    let slots = slots(view);
    let count = |s: Severity| {
        opened
            .report
            .findings
            .iter()
            .filter(|f| f.severity == s)
            .count()
    };
    let decoded = kind == Some(ModelKind::Standard);
    let non_canonical: Vec<String> = ANIM_CANON
        .iter()
        .filter(|code| {
            opened
                .report
                .findings
                .iter()
                .any(|f| f.code.as_str() == **code)
        })
        .map(|code| code.to_string())
        .collect();
    let animation = AnimationInfo {
        animated_nodes: decoded.then(|| {
            view.nodes
                .iter()
                .filter(|n| n.map_start().is_some())
                .count()
        }),
        keys: records(res::ANIM_KEYS, 24),
        map_words: records(res::ANIM_MAP, 2),
        frame_count: archive.find_by_type(res::ANIM_MAP).map(|e| e.attr2()),
        canonical: decoded.then_some(non_canonical.is_empty()),
        non_canonical,
    };
    Inspection {
        file: label.to_string(),
        bytes: archive.bytes().len(),
        kind,
        entries,
        resources,
        totals,
        nodes,
        slots,
        animation,
        legacy,
        terrain,
        findings: FindingCounts {
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            info: count(Severity::Info),
        },
    }
}

fn totals(view: &ModelRef<'_>) -> Totals {
    let mut materials: Vec<u16> = view
        .batches
        .iter()
        .map(|b| b.material_index.get())
        .collect();
    materials.sort_unstable();
    materials.dedup();
    Totals {
        nodes: (view.kind == Some(ModelKind::Standard)).then_some(view.nodes.len()),
        slots: view.slots.len(),
        batches: view.batches.len(),
        vertices: view.positions.len(),
        indices: view.indices.len(),
        triangles: view
            .batches
            .iter()
            .map(|b| b.index_count.get() as usize / 3)
            .sum(),
        tri_descriptors: view.tri_descs.map_or(0, <[_]>::len),
        materials_used: materials,
    }
}

fn nodes(view: &ModelRef<'_>) -> Vec<NodeInfo> {
    view.nodes
        .iter()
        .enumerate()
        .map(|(index, node)| {
            let mut slots = Vec::new();
            for lod in 0..LODS {
                for group in 0..GROUPS {
                    if let Some(slot) = node.slot(lod, group) {
                        slots.push(SlotRef { lod, group, slot });
                    }
                }
            }
            NodeInfo {
                index,
                name: view.node_name(index).map(lossy),
                parent: node.parent(),
                flags: node.hdr0.get(),
                anim_map_start: node.map_start(),
                fallback_key: node.fallback_key.get(),
                slots,
            }
        })
        .collect()
}

fn slots(view: &ModelRef<'_>) -> Vec<SlotInfo> {
    view.slots
        .iter()
        .enumerate()
        .map(|(index, slot)| {
            let (start, count) = (slot.batch_start.get(), slot.batch_count.get());
            let batches: Vec<BatchInfo> = (start as usize..start as usize + count as usize)
                .filter_map(|i| {
                    view.batches.get(i).map(|b| BatchInfo {
                        index: i,
                        material: b.material_index.get(),
                        index_count: b.index_count.get(),
                        index_start: b.index_start.get(),
                        base_vertex: b.base_vertex.get(),
                    })
                })
                .collect();
            let mut vertices: Vec<u64> = Vec::new();
            for b in &batches {
                let first = b.index_start as usize;
                let range = first
                    .checked_add(b.index_count as usize)
                    .and_then(|end| view.indices.get(first..end));
                if let Some(indices) = range {
                    vertices.extend(
                        indices
                            .iter()
                            .map(|i| b.base_vertex as u64 + i.get() as u64),
                    );
                }
            }
            vertices.sort_unstable();
            vertices.dedup();
            let used_by = (view.kind == Some(ModelKind::Standard)).then(|| {
                view.nodes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| n.slots.iter().any(|s| s.get() as usize == index))
                    .map(|(i, _)| i)
                    .collect()
            });
            SlotInfo {
                index,
                tri_start: slot.tri_start.get(),
                tri_count: slot.tri_count.get(),
                batch_start: start,
                batch_count: count,
                triangles: batches.iter().map(|b| b.index_count as usize / 3).sum(),
                batches,
                vertices: vertices.len(),
                used_by,
            }
        })
        .collect()
}

fn list(values: &[u32]) -> String {
    if values.is_empty() {
        return "none".to_string();
    }
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn opt<T: ToString>(value: Option<T>) -> String {
    value.map_or("none".to_string(), |v| v.to_string())
}

fn quoted(name: &Option<String>) -> String {
    name.as_ref()
        .map_or("(unnamed)".to_string(), |n| format!("{n:?}"))
}

/// The stable text form of an inspection.
pub fn render(i: &Inspection) -> String {
    let mut s = String::new();
    let kind = match i.kind {
        Some(ModelKind::Standard) | None => "standard",
        Some(ModelKind::LegacyNodes) => {
            "legacy node table (Res1 with 24-byte records: nodes are not decoded)"
        }
        Some(ModelKind::Terrain) => {
            "terrain (Res21 triangles, no Res6/Res13: only partially understood, not decoded)"
        }
    };
    let _ = writeln!(s, "file: {}", i.file);
    let _ = writeln!(s, "size: {} bytes", i.bytes);
    let _ = writeln!(s, "kind: {kind}");
    let _ = writeln!(s, "entries: {}", i.entries.len());
    let mut table = Table::new(&[
        "index",
        "type",
        "resource",
        "name",
        "size",
        "attr1",
        "attr2",
        "attr3",
        "offset",
        "sort_index",
    ]);
    table.left_align(&[2, 3]);
    for e in &i.entries {
        table.row(vec![
            e.index.to_string(),
            e.type_id.to_string(),
            e.resource.to_string(),
            format!("{:?}", e.name),
            e.size.to_string(),
            e.attr1.to_string(),
            e.attr2.to_string(),
            e.attr3.to_string(),
            e.offset.to_string(),
            e.sort_index.to_string(),
        ]);
    }
    s.push_str(&table.render("  "));
    let r = &i.resources;
    let _ = write!(
        s,
        "resources: required present {}; required missing {}; optional present {}; optional absent {}",
        list(&r.required_present),
        list(&r.required_missing),
        list(&r.optional_present),
        list(&r.optional_absent),
    );
    if !r.other.is_empty() {
        let _ = write!(s, "; other {}", list(&r.other));
    }
    s.push('\n');
    if let Some(t) = &i.totals {
        let materials: Vec<String> = t.materials_used.iter().map(u16::to_string).collect();
        let _ = writeln!(
            s,
            "totals: {}, {}, {}, {}, {}, {}, {}, {}{}",
            t.nodes.map_or("nodes not decoded".to_string(), |n| plural(
                n, "node", "nodes"
            )),
            plural(t.slots, "slot", "slots"),
            plural(t.batches, "batch", "batches"),
            plural(t.vertices, "vertex", "vertices"),
            plural(t.indices, "index", "indices"),
            plural(t.triangles, "triangle", "triangles"),
            plural(
                t.tri_descriptors,
                "triangle descriptor",
                "triangle descriptors"
            ),
            plural(t.materials_used.len(), "material used", "materials used"),
            if materials.is_empty() {
                String::new()
            } else {
                format!(" [{}]", materials.join(" "))
            },
        );
    }
    if let Some(t) = &i.terrain {
        let _ = writeln!(
            s,
            "terrain: {}, {} (Res21), {} (Res11)",
            plural(t.vertices, "vertex", "vertices"),
            plural(t.triangles, "triangle", "triangles"),
            plural(t.material_records, "material record", "material records"),
        );
    }
    if let Some(l) = &i.legacy {
        let _ = writeln!(
            s,
            "legacy nodes: Res1.attr1 says {}, {} bytes kept as read; names:",
            plural(l.node_count as usize, "node", "nodes"),
            l.node_table_bytes
        );
        for (index, name) in l.names.iter().enumerate() {
            let _ = writeln!(s, "  node {index} {}", quoted(name));
        }
    }
    if i.kind == Some(ModelKind::Standard) {
        let _ = writeln!(s, "nodes: {}", i.nodes.len());
        for n in &i.nodes {
            let slots: Vec<String> = n
                .slots
                .iter()
                .map(|r| format!("L{}G{}={}", r.lod, r.group, r.slot))
                .collect();
            let _ = writeln!(
                s,
                "  node {} {}: parent {}, flags 0x{:04x}, anim_map_start {}, fallback_key {}, slots {}",
                n.index,
                quoted(&n.name),
                opt(n.parent),
                n.flags,
                opt(n.anim_map_start),
                n.fallback_key,
                if slots.is_empty() { "none".to_string() } else { slots.join(" ") },
            );
        }
    }
    if i.kind != Some(ModelKind::Terrain) {
        let _ = writeln!(s, "slots: {}", i.slots.len());
        for slot in &i.slots {
            let used = match &slot.used_by {
                None => String::new(),
                Some(nodes) if nodes.is_empty() => ", used by no node".to_string(),
                Some(nodes) => {
                    let list: Vec<String> = nodes.iter().map(usize::to_string).collect();
                    format!(", used by node {}", list.join(" "))
                }
            };
            let _ = writeln!(
                s,
                "  slot {}: {}, {}, descriptors {}+{}, batches {}+{}{used}",
                slot.index,
                plural(slot.vertices, "vertex", "vertices"),
                plural(slot.triangles, "triangle", "triangles"),
                slot.tri_start,
                slot.tri_count,
                slot.batch_start,
                slot.batch_count,
            );
            for b in &slot.batches {
                let _ = writeln!(
                    s,
                    "    batch {}: material {}, {} at {}, base vertex {}",
                    b.index,
                    b.material,
                    plural(b.index_count as usize, "index", "indices"),
                    b.index_start,
                    b.base_vertex
                );
            }
        }
    }
    let a = &i.animation;
    let mut parts = Vec::new();
    if let Some(n) = a.animated_nodes {
        parts.push(plural(n, "animated node", "animated nodes"));
    }
    parts.push(
        a.keys
            .map_or("no Res8".to_string(), |k| plural(k, "key", "keys")),
    );
    parts.push(a.map_words.map_or("no Res19".to_string(), |w| {
        plural(w, "map word", "map words")
    }));
    parts.push(format!("frame_count {}", opt(a.frame_count)));
    match a.canonical {
        Some(true) => parts.push("canonical".to_string()),
        Some(false) => parts.push(format!("not canonical ({})", a.non_canonical.join(" "))),
        None => {}
    }
    let _ = writeln!(s, "animation: {}", parts.join(", "));
    let f = &i.findings;
    let _ = writeln!(
        s,
        "findings: {}, {}, {} (`mshconv validate` lists them)",
        plural(f.errors, "error", "errors"),
        plural(f.warnings, "warning", "warnings"),
        plural(f.info, "info", "info"),
    );
    s
}

/// Opens a model for reading in a mode, with the file in the error.
pub fn open<'a>(label: &str, bytes: &'a [u8], tolerant: bool) -> anyhow::Result<Opened<'a>> {
    let mode = if tolerant {
        Mode::Tolerant
    } else {
        Mode::Strict
    };
    msh::open(bytes, mode).with_context(|| format!("cannot open {label}"))
}

/// Runs `inspect`.
pub fn run(args: &InspectArgs, out: &mut Out) -> anyhow::Result<ExitCode> {
    let input = input::load(&args.file, args.entry.as_deref(), args.tolerant)?;
    let opened = open(&input.label, &input.bytes, args.tolerant)?;
    let inspection = inspect(&input.label, &opened);
    let text = if args.json {
        let mut text = serde_json::to_string_pretty(&inspection)?;
        text.push('\n');
        text
    } else {
        render(&inspection)
    };
    out.text(&text)?;
    Ok(ExitCode::SUCCESS)
}
