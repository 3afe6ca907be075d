//! The header and directory of an NRes file without its payloads: for a large
//! archive read entry by entry (each payload fetched when it is needed), with
//! exactly the checks [`Archive::parse`](crate::Archive::parse) makes.

use crate::error::{Error, ErrorKind, Result};
use crate::name::Name;
use crate::raw::RawEntry;
use crate::read::{check_entry, check_total, directory_len, find_by_name, parse_header};
use std::ops::Range;
use zerocopy::FromBytes;

/// A checked directory: every entry's payload lies between the header and the
/// directory, every name is terminated.
///
/// ```
/// use nres::{Archive, Directory, OwnedArchive, OwnedEntry, WriteMode};
///
/// let mut archive = OwnedArchive::new();
/// archive.push(OwnedEntry::new(3, "tank.msh", vec![7; 10]).unwrap());
/// let file = archive.write(WriteMode::Canonical).unwrap();
///
/// // What a reader fetches: the first 16 bytes, then the range they point at.
/// let at = Directory::locate(&file[..16], file.len() as u64).unwrap();
/// let dir = Directory::parse(&file[..16], &file[at.start as usize..], file.len() as u64).unwrap();
/// assert_eq!(dir.name_bytes(0), Some(&b"tank.msh"[..]));
/// let payload = dir.payload(0).unwrap();
/// assert_eq!(&file[payload.start as usize..payload.end as usize], &[7; 10]);
/// assert_eq!(Archive::parse(&file).unwrap().raw_entries(), dir.raw_entries());
/// ```
#[derive(Debug, Clone)]
pub struct Directory {
    entries: Vec<RawEntry>,
    directory_offset: u64,
}

impl Directory {
    /// Where the directory lies in a file of `file_len` bytes whose first bytes
    /// are `head` (at least the 16-byte header): the byte range to read and
    /// give to [`Directory::parse`]. The header is checked as by `Archive::parse`.
    pub fn locate(head: &[u8], file_len: u64) -> Result<Range<u64>> {
        let header = parse_header(head)?;
        let len = usize::try_from(file_len).map_err(|_| {
            Error::new(
                ErrorKind::SizeMismatch,
                format!("a file of {file_len} bytes is too large to address"),
            )
            .at(12)
        })?;
        check_total(header, len)?;
        let dir_len = directory_len(header, len)?;
        Ok(file_len - dir_len as u64..file_len)
    }

    /// Checks the directory bytes read from the range [`Directory::locate`]
    /// gives for the same `head` and `file_len`.
    pub fn parse(head: &[u8], directory: &[u8], file_len: u64) -> Result<Directory> {
        let range = Self::locate(head, file_len)?;
        // The length read must be the length located (so it is bounded by the file).
        if directory.len() as u64 != range.end - range.start {
            return Err(Error::new(
                ErrorKind::DirectoryOutOfRange,
                format!(
                    "the directory is {} bytes, {} were given",
                    range.end - range.start,
                    directory.len()
                ),
            )
            .at(range.start as usize));
        }
        let entries = <[RawEntry]>::ref_from_bytes(directory).map_err(|_| {
            Error::new(
                ErrorKind::DirectoryOutOfRange,
                "directory is not a whole number of entries",
            )
            .at(range.start as usize)
        })?;
        for (index, raw) in entries.iter().enumerate() {
            check_entry(index, raw, range.start as usize)?;
        }
        Ok(Directory {
            entries: entries.to_vec(),
            directory_offset: range.start,
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Absolute offset of the directory.
    pub fn directory_offset(&self) -> u64 {
        self.directory_offset
    }

    /// The raw directory records.
    pub fn raw_entries(&self) -> &[RawEntry] {
        &self.entries
    }

    /// Entry `index`'s name bytes up to the first NUL.
    pub fn name_bytes(&self, index: usize) -> Option<&[u8]> {
        self.entries.get(index).map(|e| Name::text_of(&e.name))
    }

    /// The index of the entry named `name`, looked up as
    /// [`Archive::find_by_name`](crate::Archive::find_by_name) does.
    pub fn find_by_name(&self, name: &str) -> Option<usize> {
        find_by_name(&self.entries, name)
    }

    /// Entry `index`'s payload as an absolute byte range of the file.
    pub fn payload(&self, index: usize) -> Option<Range<u64>> {
        self.entries.get(index).map(|e| {
            let start = u64::from(e.data_offset.get());
            start..start + u64::from(e.size.get())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Archive, OwnedArchive, OwnedEntry, WriteMode};

    fn file() -> Vec<u8> {
        let mut archive = OwnedArchive::new();
        for (i, name) in ["a.msh", "b.msh", "c.txt"].iter().enumerate() {
            archive.push(OwnedEntry::new(i as u32, name, vec![i as u8; 3 + i]).unwrap());
        }
        archive.write(WriteMode::Canonical).unwrap()
    }

    fn parse(bytes: &[u8]) -> Result<Directory> {
        let len = bytes.len() as u64;
        let at = Directory::locate(bytes, len)?;
        Directory::parse(bytes, &bytes[at.start as usize..], len)
    }

    #[test]
    fn agrees_with_the_archive_on_good_and_damaged_files() {
        let good = file();
        let dir = parse(&good).unwrap();
        let archive = Archive::parse(&good).unwrap();
        assert_eq!(dir.raw_entries(), archive.raw_entries());
        for name in ["a.msh", "B.MSH", "c.txt", "d.msh", ""] {
            let found = archive.find_by_name(name).map(|e| e.index());
            assert_eq!(dir.find_by_name(name), found, "{name}");
        }
        assert_eq!(dir.find_by_name("B.MSH"), Some(1));
        assert_eq!(dir.directory_offset() as usize, archive.directory_offset());
        for entry in archive.entries() {
            let r = dir.payload(entry.index()).unwrap();
            assert_eq!(&good[r.start as usize..r.end as usize], entry.data());
        }
        // Every one-byte change to the header and directory: the same verdict and code.
        let dir_start = archive.directory_offset();
        for at in (0..16).chain(dir_start..good.len()) {
            for value in [0u8, 0x7F, 0xFF] {
                let mut bad = good.clone();
                bad[at] = value;
                let expected = Archive::parse(&bad).map(|_| ()).map_err(|e| e.code());
                let got = parse(&bad).map(|_| ()).map_err(|e| e.code());
                assert_eq!(got, expected, "byte {at} = {value}");
            }
        }
        // Truncated files and a directory of the wrong length.
        for cut in [0, 10, 16, good.len() - 1] {
            let expected = Archive::parse(&good[..cut])
                .map(|_| ())
                .map_err(|e| e.code());
            assert!(expected.is_err());
            let got = Directory::locate(&good[..cut.min(16)], cut as u64).map_err(|e| e.code());
            assert_eq!(got.map(|_| ()), expected, "cut {cut}");
        }
        let at = Directory::locate(&good, good.len() as u64).unwrap();
        let short = &good[at.start as usize + 1..];
        assert_eq!(
            Directory::parse(&good, short, good.len() as u64)
                .unwrap_err()
                .code(),
            "nres.directory_out_of_range"
        );
    }
}
