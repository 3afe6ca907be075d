//! Everything `mshconv inspect` prints: one [`Inspection`], built by [`inspect()`].

use super::lossy;
use msh::raw::{GROUPS, LODS};
use msh::resource::{self as res, describe};
use msh::{ModelKind, ModelRef, Opened, Severity};
use serde::Serialize;

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
const ANIM_CANON: [msh::Code; 6] = [
    msh::Code::NonCanonicalFallbackOrder,
    msh::Code::NonCanonicalTrackStart,
    msh::Code::NonCanonicalFrameCount,
    msh::Code::NonCanonicalMapLayout,
    msh::Code::NonCanonicalMapValue,
    msh::Code::NonCanonicalKeyTime,
];

/// Everything `inspect` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// overlap past the bound of [`msh::repeats`] (listing them would repeat
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlotRef {
    /// LOD, 0..3.
    pub lod: usize,
    /// Group, 0..5.
    pub group: usize,
    /// Slot index.
    pub slot: u16,
}

/// One node.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegacyInfo {
    /// `Res1.attr1`.
    pub node_count: u32,
    /// Res1 size in bytes.
    pub node_table_bytes: usize,
    /// Res10 names as far as they parse (null for unnamed).
    pub names: Vec<Option<String>>,
}

/// A terrain model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TerrainInfo {
    /// Res3 records.
    pub vertices: usize,
    /// Res21 records (28 bytes each).
    pub triangles: usize,
    /// Res11 records (4 bytes each).
    pub material_records: usize,
}

/// Finding counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    let overlap = msh::repeats::excess(view, None);
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
        .filter(|code| opened.report.findings.iter().any(|f| f.code == **code))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;
    use msh::Mode;

    /// Slots over one batch of 65,535 indices: listing each slot's batches
    /// and vertices repeated the same rows (S x B; 178 KB made 618 MB of
    /// JSON). Past `repeats`' bound they are left out, said why; the
    /// triangles and the nodes that draw each slot are still there.
    #[test]
    fn slots_sharing_their_batches_are_summed_up_not_listed() {
        use zerocopy::little_endian::{U16, U32};
        let mut m = msh::Model::from_bytes(&fixture("edge/required_only.msh")).unwrap();
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
            n.slots = [U16::new(msh::raw::NONE); 15];
            n.slots[0] = U16::new(i as u16);
        }
        let bytes = m.to_bytes().unwrap();
        let opened = msh::open(&bytes, Mode::Strict).unwrap();
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
        let opened = msh::open(&plain, Mode::Strict).unwrap();
        let i = inspect("plain.msh", &opened);
        assert!(i.slot_batches_left_out.is_none());
        assert!(i.slots.iter().any(|s| !s.batches.is_empty()));
    }

    #[test]
    fn inspection_of_a_model() {
        let bytes = fixture("models/m095_walker.msh");
        let opened = msh::open(&bytes, Mode::Strict).unwrap();
        let i = inspect("w.msh", &opened);
        assert_eq!(i.bytes, bytes.len());
        assert_eq!(i.nodes.len(), opened.view.nodes.len());
        assert_eq!(i.entries.len(), opened.archive.len());
        assert!(i.resources.required_missing.is_empty());
        assert_eq!(i.animation.canonical, Some(true));
    }

    #[test]
    fn legacy_and_terrain_models_are_listed_as_far_as_they_are_known() {
        let legacy = fixture("models/m211_mtcheck.msh");
        let opened = msh::open(&legacy, Mode::Strict).unwrap();
        assert!(inspect("m", &opened).legacy.is_some());
        let terrain = fixture("edge/terrain_land.msh");
        let opened = msh::open(&terrain, Mode::Strict).unwrap();
        let i = inspect("t", &opened);
        assert!(i.terrain.is_some() && i.totals.is_none());
    }
}
