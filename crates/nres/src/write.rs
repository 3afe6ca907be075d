//! Owned, editable archives and the writer.
//!
//! The writer first lays out every payload offset, then emits header, payloads
//! and directory in one pass. Two modes:
//! - [`WriteMode::Canonical`]: payloads in directory order, each padded with
//!   zeros to 8 bytes, `sort_index` recomputed (FORMAT.md section 1).
//! - [`WriteMode::Lossless`]: the physical payload order, the bytes no entry
//!   points at and the stored `sort_index` values are kept as read, so an
//!   unedited archive comes back byte for byte.

use crate::error::{Error, ErrorKind, Result};
use crate::name::{sort_table, Name};
use crate::raw::{RawEntry, RawHeader, ALIGNMENT, ENTRY_SIZE, HEADER_SIZE, MAGIC, VERSION};
use crate::read::{Archive, Entry, Layout};
use zerocopy::IntoBytes;

/// How [`OwnedArchive::write`] lays the file out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Keep what was read: physical order, gaps and padding, stored `sort_index`.
    #[default]
    Lossless,
    /// Directory order, zero padding to 8 bytes, recomputed `sort_index`.
    Canonical,
}

/// Bytes that followed a payload in the file it was read from.
///
/// They are written back only while the payload still has the length it had
/// when read, so an edited payload gets canonical padding instead of stale bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filler {
    /// Length of the payload these bytes followed.
    pub payload_len: usize,
    /// The bytes themselves.
    pub bytes: Vec<u8>,
}

/// One entry of an [`OwnedArchive`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedEntry {
    /// Resource type.
    pub type_id: u32,
    /// First attribute.
    pub attr1: u32,
    /// Second attribute.
    pub attr2: u32,
    /// Third attribute.
    pub attr3: u32,
    /// The 36-byte name field.
    pub name: Name,
    /// `sort_index` as read (used by [`WriteMode::Lossless`]).
    pub sort_index: u32,
    /// The payload.
    pub data: Vec<u8>,
    /// What followed the payload in the source file, if it was read from one.
    pub filler: Option<Filler>,
    /// For an empty payload read from a file, the `data_offset` it had (an empty
    /// payload may point anywhere, even inside another one). Lossless mode writes
    /// it back while it still lies before the directory.
    pub offset_hint: Option<u32>,
}

impl OwnedEntry {
    /// Entry `e` of an archive whose layout is `layout`, everything as read
    /// but its payload, which is `data` (a copy of `e.data()`, or nothing for a
    /// reader that keeps the payload elsewhere).
    pub fn read(e: &Entry<'_>, layout: &Layout, data: Vec<u8>) -> Self {
        OwnedEntry {
            type_id: e.type_id(),
            attr1: e.attr1(),
            attr2: e.attr2(),
            attr3: e.attr3(),
            name: e.name_field(),
            sort_index: e.sort_index(),
            data,
            filler: layout.physical_order.as_ref().map(|_| Filler {
                payload_len: e.data().len(),
                bytes: layout.fillers[e.index()].clone(),
            }),
            offset_hint: e.data().is_empty().then(|| e.data_offset()),
        }
    }

    /// A new entry with a clean name, no filler and `sort_index` 0 (recomputed on write).
    pub fn new(type_id: u32, name: &str, data: Vec<u8>) -> Result<Self> {
        Ok(OwnedEntry {
            type_id,
            attr1: 0,
            attr2: 0,
            attr3: 0,
            name: Name::new(name)?,
            sort_index: 0,
            data,
            filler: None,
            offset_hint: None,
        })
    }
}

/// An archive held in memory, editable, that knows how it was laid out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OwnedArchive {
    /// Entries in directory order.
    pub entries: Vec<OwnedEntry>,
    /// Bytes between the header and the first payload, as read.
    pub leading: Vec<u8>,
    /// Entry indices in physical payload order, as read; ignored unless it is a
    /// permutation of the current entries.
    pub physical_order: Option<Vec<usize>>,
    /// Whether the stored `sort_index` values are kept in lossless mode. Cleared by
    /// [`OwnedArchive::recompute_sort_index`].
    pub keep_sort_index: bool,
}

impl OwnedArchive {
    /// An empty archive.
    pub fn new() -> Self {
        Self::default()
    }

    /// Copies a parsed archive, keeping everything needed to write it back byte for byte.
    pub fn from_archive(archive: &Archive<'_>) -> Self {
        let layout = archive.layout();
        let entries = archive
            .entries()
            .map(|e| OwnedEntry::read(&e, &layout, e.data().to_vec()))
            .collect();
        OwnedArchive {
            entries,
            leading: layout.leading,
            physical_order: layout.physical_order,
            keep_sort_index: true,
        }
    }

    /// Parses bytes strictly and copies them into an owned archive.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        Ok(Self::from_archive(&Archive::parse(bytes)?))
    }

    /// Replaces every stored `sort_index` with the canonical table.
    pub fn recompute_sort_index(&mut self) {
        let table = sort_table(self.entries.iter().map(|e| e.name.as_bytes()));
        for (entry, value) in self.entries.iter_mut().zip(table) {
            entry.sort_index = value;
        }
        self.keep_sort_index = true;
    }

    /// Appends an entry.
    pub fn push(&mut self, entry: OwnedEntry) {
        self.entries.push(entry);
    }

    /// Writes the archive in the given mode.
    pub fn write(&self, mode: WriteMode) -> Result<Vec<u8>> {
        self.write_payloads(mode, |i| &self.entries[i].data)
    }

    /// Writes the archive with entry `i`'s payload taken from `payload(i)`
    /// instead of its `data` (which is not read): a caller that holds the
    /// payloads elsewhere (a model's tables) writes them without first copying
    /// them into the entries.
    pub fn write_payloads<'p>(
        &self,
        mode: WriteMode,
        payload: impl Fn(usize) -> &'p [u8],
    ) -> Result<Vec<u8>> {
        let n = self.entries.len();
        let lossless = mode == WriteMode::Lossless;
        let order: Vec<usize> = match &self.physical_order {
            Some(order) if lossless && is_permutation(order, n) => order.clone(),
            _ => (0..n).collect(),
        };
        let leading: &[u8] = if lossless { &self.leading } else { &[] };

        // Lay out: offsets and filler for every payload, then the total size.
        let mut offsets = vec![0usize; n];
        let mut pos = HEADER_SIZE + leading.len();
        let mut fillers: Vec<&[u8]> = vec![&[]; n];
        let zeros = [0u8; ALIGNMENT];
        for &i in &order {
            let len = payload(i).len();
            offsets[i] = pos;
            pos = checked(pos.checked_add(len))?;
            fillers[i] = match &self.entries[i].filler {
                Some(f) if lossless && f.payload_len == len => &f.bytes,
                _ => &zeros[..(ALIGNMENT - pos % ALIGNMENT) % ALIGNMENT],
            };
            pos = checked(pos.checked_add(fillers[i].len()))?;
        }
        let directory = pos;
        if lossless {
            for (i, entry) in self.entries.iter().enumerate() {
                match entry.offset_hint {
                    Some(hint)
                        if payload(i).is_empty()
                            && (HEADER_SIZE..=directory).contains(&(hint as usize)) =>
                    {
                        offsets[i] = hint as usize;
                    }
                    _ => {}
                }
            }
        }
        let total = checked(pos.checked_add(checked(n.checked_mul(ENTRY_SIZE))?))?;
        let total_u32 = u32::try_from(total)
            .map_err(|_| too_large(format!("the archive would be {total} bytes")))?;
        let count = i32::try_from(n).map_err(|_| too_large(format!("{n} entries")))?;

        let sort_index: Vec<u32> = if lossless && self.keep_sort_index {
            self.entries.iter().map(|e| e.sort_index).collect()
        } else {
            sort_table(self.entries.iter().map(|e| e.name.as_bytes()))
        };

        let mut out = Vec::with_capacity(total);
        let header = RawHeader {
            magic: MAGIC,
            version: VERSION.into(),
            entry_count: count.into(),
            total_size: total_u32.into(),
        };
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(leading);
        for &i in &order {
            out.extend_from_slice(payload(i));
            out.extend_from_slice(fillers[i]);
        }
        for (i, entry) in self.entries.iter().enumerate() {
            let raw = RawEntry {
                type_id: entry.type_id.into(),
                attr1: entry.attr1.into(),
                attr2: entry.attr2.into(),
                size: (payload(i).len() as u32).into(),
                attr3: entry.attr3.into(),
                name: *entry.name.field(),
                data_offset: (offsets[i] as u32).into(),
                sort_index: sort_index[i].into(),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        debug_assert_eq!(out.len(), total);
        Ok(out)
    }
}

fn is_permutation(order: &[usize], n: usize) -> bool {
    if order.len() != n {
        return false;
    }
    let mut seen = vec![false; n];
    order
        .iter()
        .all(|&i| i < n && !std::mem::replace(&mut seen[i], true))
}

fn too_large(what: String) -> Error {
    Error::new(
        ErrorKind::TooLarge,
        format!("{what}: NRes offsets and sizes are 32-bit"),
    )
}

fn checked(value: Option<usize>) -> Result<usize> {
    value.ok_or_else(|| too_large("size overflow".to_string()))
}
