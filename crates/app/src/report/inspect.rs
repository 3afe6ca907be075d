//! What a model holds, as data: the content of `mshconv inspect`, `pose` and
//! `validate --json`, shared by the command-line tool and the HTTP service.
//!
//! [`check`] validates a file into a [`FileResult`] (never failing: damage
//! becomes findings). [`inspect`] builds one [`Inspection`] of an opened model (the CLI prints it
//! as stable text or as JSON; the service as JSON). [`PoseDoc`] is every
//! node's local pose at one time, in the shape of `mshconv pose --json`. With
//! the `serde` feature every type here serialises; [`F32`] writes the f32
//! values that JSON cannot hold (NaN, infinities) as strings, so nothing is
//! lost.
//!
//! Every table access is bounds-checked: in tolerant mode a damaged model is
//! shown as far as it can be read.
//!
//! ```
//! # fn demo(bytes: &[u8]) -> msh::Result<()> {
//! let opened = msh::open(bytes, msh::Mode::Strict)?;
//! let inspection = msh::inspect::inspect("tank.msh", &opened);
//! println!("{} nodes, {} slots", inspection.nodes.len(), inspection.slots.len());
//! let poses = msh::pose::local_poses(&opened.view, 2.5)?;
//! let doc = msh::inspect::PoseDoc::new(&opened.view, 2.5, &poses);
//! assert_eq!(doc.nodes.len(), opened.view.nodes.len());
//! # Ok(()) }
//! ```

use crate::anim::Pose;
use crate::raw::{GROUPS, LODS};
use crate::resource::{self as res, describe};
use crate::{Finding, Mode, ModelKind, ModelRef, Opened, Severity};

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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
    /// Why each slot's `batches` is empty and `vertices` 0: the slots' ranges
    /// overlap past the bound of [`crate::repeats`] (listing them would repeat
    /// the same batches and indices without bound); `None` as a rule.
    pub slot_batches_left_out: Option<String>,
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SlotRef {
    /// LOD, 0..3.
    pub lod: usize,
    /// Group, 0..5.
    pub group: usize,
    /// Slot index.
    pub slot: u16,
}

/// One node.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LegacyInfo {
    /// `Res1.attr1`.
    pub node_count: u32,
    /// Res1 size in bytes.
    pub node_table_bytes: usize,
    /// Res10 names as far as they parse (null for unnamed).
    pub names: Vec<Option<String>>,
}

/// A terrain model.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TerrainInfo {
    /// Res3 records.
    pub vertices: usize,
    /// Res21 records (28 bytes each).
    pub triangles: usize,
    /// Res11 records (4 bytes each).
    pub material_records: usize,
}

/// Finding counts.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FindingCounts {
    /// Errors (only in tolerant mode: strict mode rejects the file).
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Infos.
    pub info: usize,
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
    let overlap = crate::repeats::excess(view, None);
    let slots = slots(view, overlap.is_none());
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
        slot_batches_left_out: overlap,
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

/// The slots; with `listed`, each with its batches and distinct vertices.
fn slots(view: &ModelRef<'_>, listed: bool) -> Vec<SlotInfo> {
    // Triangles per batch range by prefix sums, the nodes of each slot in one
    // pass: slots may share batches, and nodes slots.
    let mut triangles_before = Vec::with_capacity(view.batches.len() + 1);
    triangles_before.push(0usize);
    for b in view.batches {
        let last = *triangles_before.last().unwrap_or(&0);
        triangles_before.push(last + b.index_count.get() as usize / 3);
    }
    let mut used_by: Vec<Vec<usize>> = vec![Vec::new(); view.slots.len()];
    if view.kind == Some(ModelKind::Standard) {
        for (i, n) in view.nodes.iter().enumerate() {
            let mut mine: Vec<usize> = n
                .slots
                .iter()
                .map(|s| s.get() as usize)
                .filter(|&s| s < view.slots.len())
                .collect();
            mine.sort_unstable();
            mine.dedup();
            for s in mine {
                used_by[s].push(i);
            }
        }
    }
    view.slots
        .iter()
        .enumerate()
        .map(|(index, slot)| {
            let (start, count) = (slot.batch_start.get(), slot.batch_count.get());
            let range = (start as usize).min(view.batches.len())
                ..(start as usize + count as usize).min(view.batches.len());
            let batches: Vec<BatchInfo> = if listed {
                range
                    .clone()
                    .map(|i| {
                        let b = &view.batches[i];
                        BatchInfo {
                            index: i,
                            material: b.material_index.get(),
                            index_count: b.index_count.get(),
                            index_start: b.index_start.get(),
                            base_vertex: b.base_vertex.get(),
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            };
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
            SlotInfo {
                index,
                tri_start: slot.tri_start.get(),
                tri_count: slot.tri_count.get(),
                batch_start: start,
                batch_count: count,
                triangles: triangles_before[range.end] - triangles_before[range.start],
                batches,
                vertices: vertices.len(),
                used_by: (view.kind == Some(ModelKind::Standard))
                    .then(|| std::mem::take(&mut used_by[index])),
            }
        })
        .collect()
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// An `f32` that serialises finite values as numbers (the shortest decimal
/// that parses back to the same `f32`) and the others as the strings `"NaN"`,
/// `"Infinity"` and `"-Infinity"` (JSON has no such numbers; `null` would lose
/// the fact). A NaN's payload bits are not kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32(pub f32);

#[cfg(feature = "serde")]
impl serde::Serialize for F32 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.is_nan() {
            s.serialize_str("NaN")
        } else if v == f32::INFINITY {
            s.serialize_str("Infinity")
        } else if v == f32::NEG_INFINITY {
            s.serialize_str("-Infinity")
        } else {
            s.serialize_f32(v)
        }
    }
}

/// Every node's local pose at one time: `{"time": T, "nodes": [...]}`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PoseDoc {
    /// The time sampled.
    pub time: F32,
    /// Every node, in node order.
    pub nodes: Vec<NodePose>,
}

/// One node's local pose.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
    /// The document of `poses`, the result of [`crate::pose::local_poses`] on
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

/// The result of validating one file: the content of `mshconv validate --json`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FileResult {
    /// The file as named on the command line (`ARCHIVE:ENTRY` for an entry).
    pub file: String,
    /// `strict` or `tolerant`.
    pub mode: &'static str,
    /// Whether the file is accepted in this mode.
    pub valid: bool,
    /// `standard`, `legacy_nodes`, `terrain`, or null when the container could not be opened.
    pub kind: Option<ModelKind>,
    /// Every finding, in the order validation found them.
    pub findings: Vec<Finding>,
}

/// Validates one model's bytes in a mode; never fails (damage becomes findings).
pub fn check(label: &str, bytes: &[u8], mode: Mode) -> FileResult {
    let mode_name = match mode {
        Mode::Strict => "strict",
        Mode::Tolerant => "tolerant",
    };
    let result = |valid, kind, findings| FileResult {
        file: label.to_string(),
        mode: mode_name,
        valid,
        kind,
        findings,
    };
    match crate::open(bytes, mode) {
        Ok(opened) => result(true, opened.view.kind, opened.report.findings),
        Err(crate::Error::Invalid(report)) => {
            // The kind is still known: the container opens, the model breaks rules.
            let kind = crate::open(bytes, Mode::Tolerant)
                .ok()
                .and_then(|o| o.view.kind);
            result(false, kind, report.findings)
        }
        Err(crate::Error::Container(e)) => result(false, None, vec![Finding::container(&e)]),
        Err(other) => result(
            false,
            None,
            vec![Finding::new(
                crate::Code::Unreadable,
                None,
                "model",
                other.to_string(),
            )],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(path: &str) -> Vec<u8> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/small/");
        std::fs::read(format!("{root}{path}")).unwrap()
    }

    /// Slots over one batch of 65,535 indices: listing each slot's batches
    /// and vertices repeated the same rows (S x B; 178 KB made 618 MB of
    /// JSON). Past `repeats`' bound they are left out, said why; the
    /// triangles and the nodes that draw each slot are still there.
    #[test]
    fn slots_sharing_their_batches_are_summed_up_not_listed() {
        use zerocopy::little_endian::{U16, U32};
        let mut m = crate::Model::from_bytes(&fixture("edge/required_only.msh")).unwrap();
        m.indices = vec![U16::new(0); 65535];
        m.batches.truncate(1);
        m.batches[0].index_start = U32::new(0);
        m.batches[0].index_count = U16::new(65535);
        m.batches[0].base_vertex = U32::new(0);
        m.slots[0].batch_start = U16::new(0);
        m.slots[0].batch_count = U16::new(1);
        let s0 = m.slots[0];
        m.slots = vec![s0; 12];
        for (i, n) in m.nodes.iter_mut().enumerate() {
            n.slots = [U16::new(crate::raw::NONE); 15];
            n.slots[0] = U16::new(i as u16);
        }
        let bytes = m.to_bytes().unwrap();
        let opened = crate::open(&bytes, Mode::Strict).unwrap();
        let i = inspect("shared.msh", &opened);
        let why = i.slot_batches_left_out.as_deref().expect("left out");
        assert!(why.contains("the slots' indices"), "{why}");
        for (k, slot) in i.slots.iter().enumerate() {
            assert!(slot.batches.is_empty());
            assert_eq!(slot.triangles, 21845);
            let drawn_by: Vec<usize> = (0..m.nodes.len()).filter(|&n| n == k).collect();
            assert_eq!(slot.used_by.as_deref(), Some(&drawn_by[..]));
        }
        // The fixture as it is lists every slot's batches.
        let plain = fixture("edge/required_only.msh");
        let opened = crate::open(&plain, Mode::Strict).unwrap();
        let i = inspect("plain.msh", &opened);
        assert!(i.slot_batches_left_out.is_none());
        assert!(i.slots.iter().any(|s| !s.batches.is_empty()));
    }

    #[test]
    fn check_reports_valid_invalid_and_unreadable_files() {
        let good = check("w.msh", &fixture("models/m095_walker.msh"), Mode::Strict);
        assert!(good.valid);
        assert_eq!((good.file.as_str(), good.mode), ("w.msh", "strict"));
        assert_eq!(good.kind, Some(ModelKind::Standard));

        let bad = fixture("damaged/anim4__batch0_index_count_4.msh");
        let strict = check("bad", &bad, Mode::Strict);
        assert!(!strict.valid);
        assert_eq!(
            strict.kind,
            Some(ModelKind::Standard),
            "the kind is still known"
        );
        assert_eq!(strict.findings[0].code.as_str(), "batch.index_count");
        let tolerant = check("bad", &bad, Mode::Tolerant);
        assert!(tolerant.valid);
        assert_eq!(tolerant.mode, "tolerant");

        let garbage = check("x", b"not a container", Mode::Strict);
        assert!(!garbage.valid);
        assert_eq!(garbage.kind, None);
        assert_eq!(garbage.findings[0].code.as_str(), "nres.truncated");
    }

    #[test]
    fn inspection_and_poses_of_a_model() {
        let bytes = fixture("models/m095_walker.msh");
        let opened = crate::open(&bytes, Mode::Strict).unwrap();
        let i = inspect("w.msh", &opened);
        assert_eq!(i.bytes, bytes.len());
        assert_eq!(i.nodes.len(), opened.view.nodes.len());
        assert_eq!(i.entries.len(), opened.archive.len());
        assert!(i.resources.required_missing.is_empty());
        assert_eq!(i.animation.canonical, Some(true));

        assert_eq!(not_poseable(opened.view.kind), None);
        let poses = crate::pose::local_poses(&opened.view, 2.5).unwrap();
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
        let opened = crate::open(&legacy, Mode::Strict).unwrap();
        assert_eq!(
            not_poseable(opened.view.kind),
            Some("a model with a legacy node table")
        );
        assert!(inspect("m", &opened).legacy.is_some());
        let terrain = fixture("edge/terrain_land.msh");
        let opened = crate::open(&terrain, Mode::Strict).unwrap();
        assert_eq!(not_poseable(opened.view.kind), Some("a terrain model"));
        let i = inspect("t", &opened);
        assert!(i.terrain.is_some() && i.totals.is_none());
    }
}

/// One directory entry of an NRes file, as `mshconv nres list --json` and the
/// service's `/v1/archive/list` show it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EntryRow {
    /// Position in the directory.
    pub index: usize,
    /// Resource type.
    pub type_id: u32,
    /// Name (text up to the NUL).
    pub name: String,
    /// Payload size in bytes.
    pub size: u32,
    /// First attribute.
    pub attr1: u32,
    /// Second attribute.
    pub attr2: u32,
    /// Third attribute.
    pub attr3: u32,
    /// Absolute payload offset.
    pub offset: u32,
    /// `sort_index` as stored.
    pub sort_index: u32,
}

/// Every directory entry of an archive, in directory order.
pub fn entry_rows(archive: &nres::Archive<'_>) -> Vec<EntryRow> {
    archive
        .entries()
        .map(|e| EntryRow {
            index: e.index(),
            type_id: e.type_id(),
            name: e.name(),
            size: e.size(),
            attr1: e.attr1(),
            attr2: e.attr2(),
            attr3: e.attr3(),
            offset: e.data_offset(),
            sort_index: e.sort_index(),
        })
        .collect()
}
