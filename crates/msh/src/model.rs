//! The owned, editable model and its writer.
//!
//! Every decoded table is a `Vec` of the same raw records the view borrows, so
//! unknown fields travel inside their records. Container facts that are not
//! model data (entry order, names, attributes that are not derived from the
//! tables, padding, gaps, `sort_index`) live in [`EntryMeta`], so an unedited
//! model is written back byte for byte while an edited one gets correct
//! attributes. A payload the library does not decode exactly (an unknown type,
//! the legacy node table, a table with a partial record) is kept raw.

use crate::error::{Error, Result};
use crate::raw::{
    AnimKey24, Batch20, ModelHeader, Node38, PackedNormal, PackedUv, Position, Raw4, Raw8, Slot68,
    TriDesc16,
};
use crate::resource::{self as res, expected_attr3, is_typed, record_size};
use crate::view::{ModelKind, ModelRef};
use nres::{Archive, Filler, Name, OwnedArchive, OwnedEntry, WriteMode};
use std::borrow::Cow;
use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, FromZeros, IntoBytes};

/// An attribute of a directory entry: derived from the tables when written, or a fixed value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attr {
    /// Computed on write (record count, stride, frame count, or 0).
    Derived,
    /// Written as given (it differed from the derived value when read, or the resource is raw).
    Fixed(u32),
}

/// Container facts about one entry of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryMeta {
    /// Resource type.
    pub type_id: u32,
    /// The 36-byte name field.
    pub name: Name,
    /// `attr1`, `attr2`, `attr3`.
    pub attrs: [Attr; 3],
    /// `sort_index` as read.
    pub sort_index: u32,
    /// Bytes that followed the payload when read.
    pub filler: Option<Filler>,
    /// For an empty payload read from a file, its original `data_offset`.
    pub offset_hint: Option<u32>,
    /// The payload, for a resource kept raw; `None` when it is written from the typed tables.
    pub raw: Option<Vec<u8>>,
}

impl EntryMeta {
    /// Metadata for a typed resource with derived attributes and a default name (`res<NN>`).
    pub fn typed(type_id: u32) -> Self {
        EntryMeta {
            type_id,
            name: default_entry_name(type_id),
            attrs: [Attr::Derived; 3],
            sort_index: 0,
            filler: None,
            offset_hint: None,
            raw: None,
        }
    }

    /// Metadata for a raw resource with fixed attributes and a default name.
    pub fn raw(type_id: u32, attrs: [u32; 3], data: Vec<u8>) -> Self {
        EntryMeta {
            type_id,
            name: default_entry_name(type_id),
            attrs: attrs.map(Attr::Fixed),
            sort_index: 0,
            filler: None,
            offset_hint: None,
            raw: Some(data),
        }
    }
}

/// The entry name the writer gives a resource that has none: `res01`, `res13`, ...
pub fn default_entry_name(type_id: u32) -> Name {
    Name::new(&format!("res{type_id:02}")).unwrap_or_else(|_| Name::from_field([0; 36]))
}

/// An owned, editable model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Res1 (empty when the node table is kept raw, e.g. the legacy layout).
    pub nodes: Vec<Node38>,
    /// Res2 header.
    pub header: ModelHeader,
    /// Res2 slot table.
    pub slots: Vec<Slot68>,
    /// Res3.
    pub positions: Vec<Position>,
    /// Res4.
    pub normals: Vec<PackedNormal>,
    /// Res5.
    pub uv0: Vec<PackedUv>,
    /// Res6.
    pub indices: Vec<U16>,
    /// Res7.
    pub tri_descs: Vec<TriDesc16>,
    /// Res8.
    pub anim_keys: Vec<AnimKey24>,
    /// Res19.
    pub anim_map: Vec<U16>,
    /// Res19 `attr2`: frames on the timeline.
    pub frame_count: u32,
    /// Res10: one name per node, `None` for none (text without the terminating NUL).
    pub names: Vec<Option<Vec<u8>>>,
    /// Res13.
    pub batches: Vec<Batch20>,
    /// Res15.
    pub stream15: Vec<Raw8>,
    /// Res16.
    pub stream16: Vec<Raw8>,
    /// Res18.
    pub stream18: Vec<Raw4>,
    /// Directory entries in order; a typed resource is present when it has an entry here.
    pub entries: Vec<EntryMeta>,
    /// Bytes between the container header and the first payload, as read.
    pub leading: Vec<u8>,
    /// Physical payload order, as read.
    pub physical_order: Option<Vec<usize>>,
    /// Keep the stored `sort_index` values (cleared when entries are renamed or added).
    pub keep_sort_index: bool,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            nodes: Vec::new(),
            header: ModelHeader::new_zeroed(),
            slots: Vec::new(),
            positions: Vec::new(),
            normals: Vec::new(),
            uv0: Vec::new(),
            indices: Vec::new(),
            tri_descs: Vec::new(),
            anim_keys: Vec::new(),
            anim_map: Vec::new(),
            frame_count: 1,
            names: Vec::new(),
            batches: Vec::new(),
            stream15: Vec::new(),
            stream16: Vec::new(),
            stream18: Vec::new(),
            entries: Vec::new(),
            leading: Vec::new(),
            physical_order: None,
            keep_sort_index: false,
        }
    }
}

/// A model's container without its tables: the directory's entries (which of
/// them decode as tables, the payloads of those that do not), the layout, the
/// Res2 header and the frame count. For a reader that takes the tables from a
/// [`ModelRef`] of the same archive (the glTF exporter): nothing is copied but
/// the raw payloads. The fields mean what [`Model`]'s of the same names mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    /// Res2 header.
    pub header: ModelHeader,
    /// Res19 `attr2`: frames on the timeline.
    pub frame_count: u32,
    /// Directory entries in order.
    pub entries: Vec<EntryMeta>,
    /// Bytes between the container header and the first payload, as read.
    pub leading: Vec<u8>,
    /// Physical payload order, as read.
    pub physical_order: Option<Vec<usize>>,
    /// Whether the stored `sort_index` values are kept (always, as read).
    pub keep_sort_index: bool,
}

impl Container {
    /// Reads the container facts of a model.
    pub fn of(archive: &Archive<'_>) -> Container {
        let Model {
            header,
            frame_count,
            entries,
            leading,
            physical_order,
            keep_sort_index,
            ..
        } = Model::read(archive, false);
        Container {
            header,
            frame_count,
            entries,
            leading,
            physical_order,
            keep_sort_index,
        }
    }

    /// True when resource `type_id` has an entry.
    pub fn has(&self, type_id: u32) -> bool {
        has(&self.entries, type_id)
    }

    /// True when resource `type_id` has an entry that decodes as its table.
    pub fn has_typed(&self, type_id: u32) -> bool {
        has_typed(&self.entries, type_id)
    }

    /// What kind of model this is.
    pub fn kind(&self) -> ModelKind {
        kind(&self.entries)
    }
}

fn has(entries: &[EntryMeta], type_id: u32) -> bool {
    entries.iter().any(|e| e.type_id == type_id)
}

fn has_typed(entries: &[EntryMeta], type_id: u32) -> bool {
    entries
        .iter()
        .any(|e| e.type_id == type_id && e.raw.is_none())
}

fn kind(entries: &[EntryMeta]) -> ModelKind {
    if has(entries, res::TERRAIN_TRIS) && !has(entries, res::INDICES) && !has(entries, res::BATCHES)
    {
        ModelKind::Terrain
    } else if entries.iter().any(|e| {
        e.type_id == res::NODES
            && e.raw.is_some()
            && e.attrs[2] == Attr::Fixed(res::LEGACY_NODE_STRIDE)
    }) {
        ModelKind::LegacyNodes
    } else {
        ModelKind::Standard
    }
}

impl Model {
    /// Reads a model from its container bytes, keeping everything needed to write it back.
    ///
    /// This checks the container and the model's structure (what a view needs),
    /// not the cross-table rules: run [`crate::validate()`] for those.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model> {
        let archive = Archive::parse(bytes)?;
        Model::from_archive(&archive)
    }

    /// Reads a model from a parsed container.
    pub fn from_archive(archive: &Archive<'_>) -> Result<Model> {
        Ok(Model::read(archive, true))
    }

    /// [`Model::from_archive`], or (not copying the typed tables) the model
    /// [`Container::of`] takes its facts from.
    fn read(archive: &Archive<'_>, copy_tables: bool) -> Model {
        let layout = archive.layout();
        let mut model = Model {
            leading: layout.leading.clone(),
            physical_order: layout.physical_order.clone(),
            keep_sort_index: true,
            frame_count: archive.find_by_type(res::ANIM_MAP).map_or(1, |e| e.attr2()),
            ..Model::default()
        };
        let node_count = archive
            .find_by_type(res::NODES)
            .filter(|e| e.attr3() != res::LEGACY_NODE_STRIDE)
            .and_then(|e| {
                (e.data().len() % Node38::SIZE == 0).then_some(e.data().len() / Node38::SIZE)
            });
        let is_terrain = archive.find_by_type(res::TERRAIN_TRIS).is_some()
            && archive.find_by_type(res::INDICES).is_none()
            && archive.find_by_type(res::BATCHES).is_none();
        let mut decoded: Vec<u32> = Vec::new();
        for e in archive.entries() {
            let first = !decoded.contains(&e.type_id());
            let count = (!is_terrain && first && is_typed(e.type_id()))
                .then(|| model.decode(e.type_id(), e.attr3(), e.data(), node_count, copy_tables))
                .flatten();
            let typed = count.is_some();
            let entry = OwnedEntry::read(
                &e,
                &layout,
                if typed { Vec::new() } else { e.data().to_vec() },
            );
            if typed {
                decoded.push(entry.type_id);
            }
            let attrs = if let Some(count) = count {
                let derived = derived_attrs(entry.type_id, count, model.frame_count);
                let actual = [entry.attr1, entry.attr2, entry.attr3];
                std::array::from_fn(|i| {
                    if actual[i] == derived[i] {
                        Attr::Derived
                    } else {
                        Attr::Fixed(actual[i])
                    }
                })
            } else {
                [entry.attr1, entry.attr2, entry.attr3].map(Attr::Fixed)
            };
            model.entries.push(EntryMeta {
                type_id: entry.type_id,
                name: entry.name,
                attrs,
                sort_index: entry.sort_index,
                filler: entry.filler,
                offset_hint: entry.offset_hint,
                raw: (!typed).then_some(entry.data),
            });
        }
        model
    }

    /// Decodes a typed payload into its table (when `copy`; the Res2 header
    /// and the names always); its record count, `None` when it does not decode
    /// exactly.
    fn decode(
        &mut self,
        type_id: u32,
        attr3: u32,
        data: &[u8],
        node_count: Option<usize>,
        copy: bool,
    ) -> Option<usize> {
        match type_id {
            res::NODES if attr3 != res::LEGACY_NODE_STRIDE => exact(data, &mut self.nodes, copy),
            res::SLOTS => {
                if data.len() < res::MODEL_HEADER_SIZE {
                    return None;
                }
                let (head, rest) = data.split_at(res::MODEL_HEADER_SIZE);
                let header = ModelHeader::read_from_bytes(head).ok()?;
                let count = exact(rest, &mut self.slots, copy)?;
                self.header = header;
                Some(count)
            }
            res::POSITIONS => exact(data, &mut self.positions, copy),
            res::NORMALS => exact(data, &mut self.normals, copy),
            res::UV0 => exact(data, &mut self.uv0, copy),
            res::INDICES => exact(data, &mut self.indices, copy),
            res::TRI_DESCS => exact(data, &mut self.tri_descs, copy),
            res::ANIM_KEYS => exact(data, &mut self.anim_keys, copy),
            res::ANIM_MAP => exact(data, &mut self.anim_map, copy),
            res::BATCHES => exact(data, &mut self.batches, copy),
            res::STREAM15 => exact(data, &mut self.stream15, copy),
            res::STREAM16 => exact(data, &mut self.stream16, copy),
            res::STREAM18 => exact(data, &mut self.stream18, copy),
            res::NAMES => {
                self.names = node_count.and_then(|n| decode_names(data, n))?;
                Some(self.names.len())
            }
            _ => None,
        }
    }

    /// The attribute values the writer derives for a typed resource.
    pub fn derived_attrs(&self, type_id: u32) -> [u32; 3] {
        let count = match type_id {
            res::NODES => self.nodes.len(),
            res::SLOTS => self.slots.len(),
            res::POSITIONS => self.positions.len(),
            res::NORMALS => self.normals.len(),
            res::UV0 => self.uv0.len(),
            res::INDICES => self.indices.len(),
            res::TRI_DESCS => self.tri_descs.len(),
            res::ANIM_KEYS => self.anim_keys.len(),
            res::ANIM_MAP => self.anim_map.len(),
            res::NAMES => self.names.len(),
            res::BATCHES => self.batches.len(),
            res::STREAM15 => self.stream15.len(),
            res::STREAM16 => self.stream16.len(),
            res::STREAM18 => self.stream18.len(),
            _ => 0,
        };
        derived_attrs(type_id, count, self.frame_count)
    }

    /// The payload of a typed resource, serialised from its table.
    pub fn typed_payload(&self, type_id: u32) -> Vec<u8> {
        self.typed_bytes(type_id).into_owned()
    }

    /// [`Model::typed_payload`], borrowed where the table's bytes are the
    /// payload (all but Res2, header and slots, and Res10, the names).
    fn typed_bytes(&self, type_id: u32) -> Cow<'_, [u8]> {
        match type_id {
            res::NODES => self.nodes.as_bytes().into(),
            res::SLOTS => [self.header.as_bytes(), self.slots.as_bytes()]
                .concat()
                .into(),
            res::POSITIONS => self.positions.as_bytes().into(),
            res::NORMALS => self.normals.as_bytes().into(),
            res::UV0 => self.uv0.as_bytes().into(),
            res::INDICES => self.indices.as_bytes().into(),
            res::TRI_DESCS => self.tri_descs.as_bytes().into(),
            res::ANIM_KEYS => self.anim_keys.as_bytes().into(),
            res::ANIM_MAP => self.anim_map.as_bytes().into(),
            res::NAMES => encode_names(&self.names).into(),
            res::BATCHES => self.batches.as_bytes().into(),
            res::STREAM15 => self.stream15.as_bytes().into(),
            res::STREAM16 => self.stream16.as_bytes().into(),
            res::STREAM18 => self.stream18.as_bytes().into(),
            _ => Cow::Borrowed(&[]),
        }
    }

    /// True when resource `type_id` has an entry (typed or raw).
    pub fn has(&self, type_id: u32) -> bool {
        has(&self.entries, type_id)
    }

    /// True when resource `type_id` has an entry written from the typed tables.
    pub fn has_typed(&self, type_id: u32) -> bool {
        has_typed(&self.entries, type_id)
    }

    /// The raw payload of the first raw entry with this type.
    pub fn raw(&self, type_id: u32) -> Option<&[u8]> {
        self.entries
            .iter()
            .find(|e| e.type_id == type_id)
            .and_then(|e| e.raw.as_deref())
    }

    /// What kind of model this is.
    pub fn kind(&self) -> ModelKind {
        kind(&self.entries)
    }

    /// Borrows the typed tables as a view (the same type a file is viewed as).
    pub fn view(&self) -> ModelRef<'_> {
        let present = |t: u32| self.has_typed(t);
        ModelRef {
            kind: Some(self.kind()),
            nodes: &self.nodes,
            header: present(res::SLOTS).then_some(&self.header),
            slots: &self.slots,
            positions: &self.positions,
            normals: present(res::NORMALS).then_some(&self.normals[..]),
            uv0: present(res::UV0).then_some(&self.uv0[..]),
            indices: &self.indices,
            tri_descs: present(res::TRI_DESCS).then_some(&self.tri_descs[..]),
            anim_keys: present(res::ANIM_KEYS).then_some(&self.anim_keys[..]),
            anim_map: present(res::ANIM_MAP).then_some(&self.anim_map[..]),
            frame_count: if self.has(res::ANIM_MAP) {
                self.frame_count
            } else {
                0
            },
            names: present(res::NAMES).then(|| self.names.iter().map(|n| n.as_deref()).collect()),
            batches: &self.batches,
            stream15: present(res::STREAM15).then_some(&self.stream15[..]),
            stream16: present(res::STREAM16).then_some(&self.stream16[..]),
            stream18: present(res::STREAM18).then_some(&self.stream18[..]),
            locations: Vec::new(),
        }
    }

    /// Builds the container: entries in order with their payloads and attributes.
    pub fn to_archive(&self) -> Result<OwnedArchive> {
        let payloads = self.payloads();
        let mut archive = self.container();
        for (entry, data) in archive.entries.iter_mut().zip(payloads) {
            entry.data = data.into_owned();
        }
        Ok(archive)
    }

    /// Every entry's payload in entry order: a raw entry's bytes, or the
    /// typed table's (borrowed where they are the payload as they lie).
    fn payloads(&self) -> Vec<Cow<'_, [u8]>> {
        self.entries
            .iter()
            .map(|meta| match &meta.raw {
                Some(raw) => Cow::Borrowed(&raw[..]),
                None => self.typed_bytes(meta.type_id),
            })
            .collect()
    }

    /// The container without its payloads (every entry's `data` empty):
    /// entries in order with their attributes and layout.
    fn container(&self) -> OwnedArchive {
        let mut archive = OwnedArchive {
            entries: Vec::with_capacity(self.entries.len()),
            leading: self.leading.clone(),
            physical_order: self.physical_order.clone(),
            keep_sort_index: self.keep_sort_index,
        };
        for meta in &self.entries {
            let derived = self.derived_attrs(meta.type_id);
            let attr = |i: usize| match meta.attrs[i] {
                Attr::Derived => derived[i],
                Attr::Fixed(v) => v,
            };
            archive.entries.push(OwnedEntry {
                type_id: meta.type_id,
                attr1: attr(0),
                attr2: attr(1),
                attr3: attr(2),
                name: meta.name,
                sort_index: meta.sort_index,
                data: Vec::new(),
                filler: meta.filler.clone(),
                offset_hint: meta.offset_hint,
            });
        }
        archive
    }

    /// Writes the model: [`WriteMode::Lossless`] gives back the input byte for byte
    /// when nothing was edited; [`WriteMode::Canonical`] lays the container out canonically.
    pub fn write(&self, mode: WriteMode) -> Result<Vec<u8>> {
        // The payloads go from the tables into the file (no copy of them all
        // into the entries first: that copy was a third of an import's peak).
        let payloads = self.payloads();
        self.container()
            .write_payloads(mode, |i| payloads[i].as_ref())
            .map_err(Error::from)
    }

    /// Writes the model losslessly (see [`Model::write`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.write(WriteMode::Lossless)
    }

    /// Sets the entry list to the canonical order for the typed tables that are
    /// not empty (FORMAT.md's observed orders), keeping existing entries' metadata
    /// and raw entries of types 9, 17 and 20 in their canonical places; other raw
    /// entries go last. Required tables always get an entry.
    pub fn canonicalize_entries(&mut self) {
        let mut old = std::mem::take(&mut self.entries);
        let wanted = |m: &Model, t: u32| -> bool {
            match t {
                res::NODES
                | res::SLOTS
                | res::POSITIONS
                | res::INDICES
                | res::BATCHES
                | res::NAMES => true,
                res::ANIM_KEYS | res::ANIM_MAP => true,
                res::NORMALS => !m.normals.is_empty(),
                res::UV0 => !m.uv0.is_empty(),
                res::TRI_DESCS => !m.tri_descs.is_empty(),
                res::STREAM15 => !m.stream15.is_empty(),
                res::STREAM16 => !m.stream16.is_empty(),
                res::STREAM18 => !m.stream18.is_empty(),
                _ => false,
            }
        };
        let with_18_20 = !self.stream18.is_empty() || old.iter().any(|e| e.type_id == res::AUX20);
        let order: &[u32] = if with_18_20 {
            &res::ORDER_WITH_18_20
        } else {
            &res::ORDER_COMMON
        };
        let mut order = order.to_vec();
        if !self.stream16.is_empty() {
            let at = order
                .iter()
                .position(|&t| t == res::STREAM15)
                .unwrap_or(order.len());
            order.insert(at + 1, res::STREAM16);
        }
        for t in order {
            if let Some(pos) = old.iter().position(|e| e.type_id == t) {
                self.entries.push(old.remove(pos));
            } else if is_typed(t) && wanted(self, t) {
                self.entries.push(EntryMeta::typed(t));
            }
        }
        self.entries.append(&mut old);
        self.physical_order = None;
        self.keep_sort_index = false;
    }
}

/// The attribute values the writer derives for a typed resource of `count` records.
fn derived_attrs(type_id: u32, count: usize, frame_count: u32) -> [u32; 3] {
    let attr2 = if type_id == res::ANIM_MAP {
        frame_count
    } else {
        0
    };
    [count as u32, attr2, expected_attr3(type_id).unwrap_or(0)]
}

/// The number of `T` records `data` holds exactly (copied into `out` when `copy`).
fn exact<T: FromBytes + IntoBytes + zerocopy::Immutable + Clone>(
    data: &[u8],
    out: &mut Vec<T>,
    copy: bool,
) -> Option<usize> {
    let records = <[T]>::ref_from_bytes(data).ok()?;
    if copy {
        *out = records.to_vec();
    }
    Some(records.len())
}

/// Decodes Res10 when it holds exactly `count` NUL-terminated records and nothing else.
fn decode_names(data: &[u8], count: usize) -> Option<Vec<Option<Vec<u8>>>> {
    let mut names = Vec::with_capacity(count.min(data.len() / 4));
    let mut pos = 0usize;
    for _ in 0..count {
        let len = u32::from_le_bytes(data.get(pos..pos.checked_add(4)?)?.try_into().ok()?) as usize;
        pos += 4;
        if len == 0 {
            names.push(None);
            continue;
        }
        let end = pos.checked_add(len)?;
        let text = data.get(pos..end)?;
        if *data.get(end)? != 0 {
            return None;
        }
        names.push(Some(text.to_vec()));
        pos = end + 1;
    }
    (pos == data.len()).then_some(names)
}

fn encode_names(names: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut out = Vec::new();
    for name in names {
        match name {
            Some(text) if !text.is_empty() => {
                out.extend_from_slice(&(text.len() as u32).to_le_bytes());
                out.extend_from_slice(text);
                out.push(0);
            }
            _ => out.extend_from_slice(&0u32.to_le_bytes()),
        }
    }
    out
}

/// Record size check used by tests and callers that build tables by hand.
pub fn is_whole(type_id: u32, len: usize) -> bool {
    record_size(type_id).is_none_or(|s| len.is_multiple_of(s))
}
