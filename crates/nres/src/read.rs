//! Zero-copy reading of an NRes file: the header and directory are viewed in place.

use crate::error::{Error, ErrorKind, Result};
use crate::name::{cmp_names, Name};
use crate::raw::{
    entry_field, RawEntry, RawHeader, ENTRY_SIZE, HEADER_SIZE, MAGIC, NAME_SIZE, VERSION,
};
use zerocopy::FromBytes;

/// A parsed NRes file borrowing the input bytes.
///
/// Building one checks every rule of FORMAT.md section 1 that a reader relies on;
/// afterwards every entry's payload is a valid sub-slice of the input.
#[derive(Debug, Clone, Copy)]
pub struct Archive<'a> {
    data: &'a [u8],
    entries: &'a [RawEntry],
    directory_offset: usize,
}

/// One directory entry together with its payload.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    index: usize,
    raw: &'a RawEntry,
    data: &'a [u8],
}

impl<'a> Archive<'a> {
    /// Parses and checks an NRes file (strict: the first problem is an error).
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = parse_header(data)?;
        check_total(header, data.len())?;
        let archive = Self::with_directory(data, header)?;
        for entry in archive.entries.iter().enumerate() {
            check_entry(entry.0, entry.1, archive.directory_offset)?;
        }
        Ok(archive)
    }

    /// Parses what can be parsed and reports the rest.
    ///
    /// The header must still be readable and the directory must fit the file; an
    /// entry whose payload range or name is damaged is kept, with an empty payload,
    /// and reported. A wrong `total_size` is reported and the real length used.
    pub fn parse_tolerant(data: &'a [u8]) -> Result<(Self, Vec<Error>)> {
        let header = parse_header(data)?;
        let mut problems = Vec::new();
        if let Err(e) = check_total(header, data.len()) {
            problems.push(e);
        }
        let archive = Self::with_directory(data, header)?;
        for (index, raw) in archive.entries.iter().enumerate() {
            if let Err(e) = check_entry(index, raw, archive.directory_offset) {
                problems.push(e);
            }
        }
        Ok((archive, problems))
    }

    fn with_directory(data: &'a [u8], header: &RawHeader) -> Result<Self> {
        let dir_len = directory_len(header, data.len())?;
        let directory_offset = data.len() - dir_len;
        let dir_bytes = &data[directory_offset..];
        let entries = <[RawEntry]>::ref_from_bytes(dir_bytes).map_err(|_| {
            Error::new(
                ErrorKind::DirectoryOutOfRange,
                "directory is not a whole number of entries",
            )
            .at(directory_offset)
        })?;
        Ok(Archive {
            data,
            entries,
            directory_offset,
        })
    }

    /// The bytes this archive was parsed from.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// Number of directory entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the directory is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Absolute offset of the directory (`total_size - 64 * entry_count`).
    pub fn directory_offset(&self) -> usize {
        self.directory_offset
    }

    /// The raw directory records.
    pub fn raw_entries(&self) -> &'a [RawEntry] {
        self.entries
    }

    /// Entry `index` in directory order.
    pub fn entry(&self, index: usize) -> Option<Entry<'a>> {
        let raw = self.entries.get(index)?;
        Some(Entry {
            index,
            raw,
            data: payload(self.data, raw, self.directory_offset),
        })
    }

    /// All entries in directory order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Entry<'a>> + 'a {
        let (data, dir) = (self.data, self.directory_offset);
        self.entries
            .iter()
            .enumerate()
            .map(move |(index, raw)| Entry {
                index,
                raw,
                data: payload(data, raw, dir),
            })
    }

    /// The first entry with this resource type, the way models look their resources up.
    pub fn find_by_type(&self, type_id: u32) -> Option<Entry<'a>> {
        self.entries().find(|e| e.type_id() == type_id)
    }

    /// Looks an entry up by name the way the game does: a binary search over the
    /// `sort_index` table, comparing names ASCII case-insensitively; if any
    /// `sort_index` is out of range, a linear scan instead.
    pub fn find_by_name(&self, name: &str) -> Option<Entry<'a>> {
        find_by_name(self.entries, name).and_then(|i| self.entry(i))
    }

    /// Entries that hold nested model archives: names ending in `.msh`
    /// (ASCII case-insensitively). Not parsed here: a caller that lists them
    /// has no use for it, and many entries may share one large payload.
    pub fn nested_models(&self) -> impl Iterator<Item = Entry<'a>> + 'a {
        self.entries().filter(|e| is_model_name(e.name_bytes()))
    }

    /// The payloads' total length: more than the file when entries overlap
    /// (valid, but each shared byte is then read once per entry).
    pub fn payload_total(&self) -> u64 {
        self.entries().map(|e| e.data().len() as u64).sum()
    }

    /// How the payloads are laid out; see [`Layout`].
    pub fn layout(&self) -> Layout {
        Layout::of(self)
    }
}

/// Whether an entry name names a nested model: it ends in `.msh`, ASCII
/// case-insensitively (as the game compares names).
pub fn is_model_name(name: &[u8]) -> bool {
    name.len() >= 4 && name[name.len() - 4..].eq_ignore_ascii_case(b".msh")
}

impl<'a> Entry<'a> {
    /// Position in the directory.
    pub fn index(&self) -> usize {
        self.index
    }
    /// Resource type.
    pub fn type_id(&self) -> u32 {
        self.raw.type_id.get()
    }
    /// First attribute.
    pub fn attr1(&self) -> u32 {
        self.raw.attr1.get()
    }
    /// Second attribute.
    pub fn attr2(&self) -> u32 {
        self.raw.attr2.get()
    }
    /// Third attribute.
    pub fn attr3(&self) -> u32 {
        self.raw.attr3.get()
    }
    /// Absolute offset of the payload.
    pub fn data_offset(&self) -> u32 {
        self.raw.data_offset.get()
    }
    /// Payload size in bytes as the directory says.
    pub fn size(&self) -> u32 {
        self.raw.size.get()
    }
    /// The `sort_index` field as stored.
    pub fn sort_index(&self) -> u32 {
        self.raw.sort_index.get()
    }
    /// The name field, all 36 bytes as stored.
    pub fn name_field(&self) -> Name {
        Name::from_field(self.raw.name)
    }
    /// Name bytes up to the first NUL.
    pub fn name_bytes(&self) -> &'a [u8] {
        Name::text_of(&self.raw.name)
    }
    /// Name as text (bytes that are not UTF-8 are replaced).
    pub fn name(&self) -> String {
        String::from_utf8_lossy(self.name_bytes()).into_owned()
    }
    /// The payload (empty if the entry was reported as damaged by a tolerant parse).
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
    /// The raw directory record.
    pub fn raw(&self) -> &'a RawEntry {
        self.raw
    }
}

/// The index of the entry named `name`, looked up the way the game does: a
/// binary search over the `sort_index` table, comparing names ASCII
/// case-insensitively; if any `sort_index` is out of range, a linear scan.
pub(crate) fn find_by_name(entries: &[RawEntry], name: &str) -> Option<usize> {
    let n = entries.len();
    let target = name.as_bytes();
    if entries.iter().any(|e| e.sort_index.get() as usize >= n) {
        return entries
            .iter()
            .position(|e| cmp_names(Name::text_of(&e.name), target).is_eq());
    }
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let pointed = entries[mid].sort_index.get() as usize;
        let candidate = Name::text_of(&entries[pointed].name);
        match cmp_names(candidate, target) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(pointed),
        }
    }
    None
}

/// The header's `total_size` against the real length of the file.
pub(crate) fn check_total(header: &RawHeader, file_len: usize) -> Result<()> {
    let total = header.total_size.get() as usize;
    if total != file_len {
        return Err(Error::new(
            ErrorKind::SizeMismatch,
            format!("header says the file is {total} bytes, it is {file_len} bytes"),
        )
        .at(12));
    }
    Ok(())
}

/// The directory's length in a file of `file_len` bytes: the entry count is
/// checked against the bytes there are before anything is sized by it.
pub(crate) fn directory_len(header: &RawHeader, file_len: usize) -> Result<usize> {
    let count = header.entry_count.get();
    let count = usize::try_from(count).map_err(|_| {
        Error::new(ErrorKind::NegativeCount, format!("entry_count is {count}")).at(8)
    })?;
    count
        .checked_mul(ENTRY_SIZE)
        .filter(|&len| len <= file_len.saturating_sub(HEADER_SIZE))
        .ok_or_else(|| {
            Error::new(
                ErrorKind::DirectoryOutOfRange,
                format!(
                    "entry_count {count} needs a {}-byte directory, the file has {} bytes after the header",
                    count as u128 * ENTRY_SIZE as u128,
                    file_len.saturating_sub(HEADER_SIZE)
                ),
            )
            .at(8)
        })
}

pub(crate) fn parse_header(data: &[u8]) -> Result<&RawHeader> {
    let (header, _) = RawHeader::ref_from_prefix(data).map_err(|_| {
        Error::new(
            ErrorKind::Truncated,
            format!(
                "file is {} bytes, the header alone is {HEADER_SIZE}",
                data.len()
            ),
        )
        .at(0)
    })?;
    if header.magic != MAGIC {
        return Err(Error::new(
            ErrorKind::BadMagic,
            format!("magic is {:02x?}, expected \"NRes\"", header.magic),
        )
        .at(0));
    }
    if header.version.get() != VERSION {
        return Err(Error::new(
            ErrorKind::BadVersion,
            format!(
                "version is 0x{:x}, expected 0x{VERSION:x}",
                header.version.get()
            ),
        )
        .at(4));
    }
    Ok(header)
}

fn entry_offset(directory_offset: usize, index: usize) -> usize {
    directory_offset + index * ENTRY_SIZE
}

pub(crate) fn check_entry(index: usize, raw: &RawEntry, directory_offset: usize) -> Result<()> {
    let base = entry_offset(directory_offset, index);
    let start = raw.data_offset.get() as usize;
    let size = raw.size.get() as usize;
    let end = start.checked_add(size);
    if start < HEADER_SIZE || end.is_none_or(|end| end > directory_offset) {
        return Err(Error::new(
            ErrorKind::PayloadOutOfRange,
            format!(
                "payload at {start} with {size} bytes does not fit between the header (16) and the directory ({directory_offset})"
            ),
        )
        .entry(index)
        .at(base + entry_field::DATA_OFFSET));
    }
    if !raw.name.contains(&0) {
        return Err(Error::new(
            ErrorKind::BadName,
            format!("name has no NUL terminator in its {NAME_SIZE} bytes"),
        )
        .entry(index)
        .at(base + entry_field::NAME));
    }
    Ok(())
}

fn payload<'a>(data: &'a [u8], raw: &RawEntry, directory_offset: usize) -> &'a [u8] {
    let start = raw.data_offset.get() as usize;
    let end = start.checked_add(raw.size.get() as usize);
    match end {
        Some(end) if start >= HEADER_SIZE && end <= directory_offset => {
            data.get(start..end).unwrap_or(&[])
        }
        _ => &[],
    }
}

/// The physical arrangement of payloads, as needed to write a file back byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Entry indices in the order their payloads appear in the file, if the
    /// payloads are disjoint; `None` when ranges overlap (such a file can only be
    /// written canonically).
    pub physical_order: Option<Vec<usize>>,
    /// Bytes between the header and the first payload.
    pub leading: Vec<u8>,
    /// For each entry (directory order), the bytes between the end of its payload
    /// and the start of the next payload in physical order (or the directory).
    pub fillers: Vec<Vec<u8>>,
    /// Pairs of entries whose payload ranges overlap.
    pub overlaps: Vec<(usize, usize)>,
}

impl Layout {
    fn of(archive: &Archive<'_>) -> Layout {
        let n = archive.len();
        let dir = archive.directory_offset;
        let ranges: Vec<(usize, usize)> = archive
            .entries
            .iter()
            .map(|e| {
                let start = (e.data_offset.get() as usize).clamp(HEADER_SIZE, dir);
                let end = start.saturating_add(e.size.get() as usize).min(dir);
                (start, end)
            })
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (ranges[i].0, ranges[i].1, i));
        // Only non-empty payloads occupy bytes: they must not overlap, and the
        // bytes between them are the fillers. An empty payload's offset is free
        // (it may even point inside another payload); the writer keeps it as a hint.
        let mut overlaps = Vec::new();
        let mut sequential = true;
        let mut furthest: Option<(usize, usize)> = None; // (end, entry)
        for &i in order.iter().filter(|&&i| ranges[i].0 < ranges[i].1) {
            let (start, end) = ranges[i];
            if let Some((reach, owner)) = furthest {
                if start < reach {
                    sequential = false;
                    overlaps.push((owner, i));
                }
            }
            if furthest.is_none_or(|(reach, _)| end > reach) {
                furthest = Some((end, i));
            }
        }
        if !sequential {
            return Layout {
                physical_order: None,
                leading: Vec::new(),
                fillers: vec![Vec::new(); n],
                overlaps,
            };
        }
        let data = archive.data;
        let filled: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&i| ranges[i].0 < ranges[i].1)
            .collect();
        let first = filled.first().map_or(dir, |&i| ranges[i].0);
        let leading = data[HEADER_SIZE..first].to_vec();
        let mut fillers = vec![Vec::new(); n];
        for (pos, &i) in filled.iter().enumerate() {
            let next = filled.get(pos + 1).map_or(dir, |&j| ranges[j].0);
            fillers[i] = data[ranges[i].1..next].to_vec();
        }
        Layout {
            physical_order: Some(order),
            leading,
            fillers,
            overlaps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Vec<u8> {
        let mut out = b"NRes".to_vec();
        out.extend_from_slice(&0x100u32.to_le_bytes());
        out.extend_from_slice(&1i32.to_le_bytes());
        out.extend_from_slice(&(16u32 + 8 + 64).to_le_bytes());
        out.extend_from_slice(b"abcdefgh");
        let mut e = vec![0u8; 64];
        e[0..4].copy_from_slice(&7u32.to_le_bytes());
        e[12..16].copy_from_slice(&8u32.to_le_bytes());
        e[20..25].copy_from_slice(b"x.bin");
        e[56..60].copy_from_slice(&16u32.to_le_bytes());
        out.extend_from_slice(&e);
        out
    }

    #[test]
    fn parses_a_minimal_file() {
        let bytes = tiny();
        let a = Archive::parse(&bytes).unwrap();
        assert_eq!(a.len(), 1);
        let e = a.entry(0).unwrap();
        assert_eq!(e.type_id(), 7);
        assert_eq!(e.data(), b"abcdefgh");
        assert_eq!(e.name(), "x.bin");
        assert_eq!(a.find_by_name("X.BIN").unwrap().index(), 0);
        assert!(a.find_by_name("y").is_none());
    }

    #[test]
    fn huge_count_is_an_error_not_an_allocation() {
        let mut bytes = tiny();
        bytes[8..12].copy_from_slice(&i32::MAX.to_le_bytes());
        let err = Archive::parse(&bytes).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DirectoryOutOfRange);
        assert_eq!(err.offset(), Some(8));
    }

    #[test]
    fn payload_past_directory_names_entry_and_offset() {
        let mut bytes = tiny();
        let dir = bytes.len() - 64;
        bytes[dir + 12..dir + 16].copy_from_slice(&9u32.to_le_bytes());
        let err = Archive::parse(&bytes).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::PayloadOutOfRange);
        assert_eq!(err.entry_index(), Some(0));
        assert_eq!(err.offset(), Some((dir + 56) as u64));
        let (a, problems) = Archive::parse_tolerant(&bytes).unwrap();
        assert_eq!(problems.len(), 1);
        assert!(a.entry(0).unwrap().data().is_empty());
    }
}
