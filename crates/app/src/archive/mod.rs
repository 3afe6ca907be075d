//! The archive policy, once: how an entry is found by name, which entries are
//! models, when an archive's models are refused for sharing their bytes, and
//! what to say when an archive is given where a model was expected, and when
//! a put may add an entry (`put_rule`), and whether an output names a file or
//! an archive's entry (`target`).
//!
//! It works on the directory alone ([`Listing`]: an [`nres::Archive`] in memory
//! or an [`nres::Directory`] read from a file without its payloads), so the CLI
//! can plan a batch without reading the payloads and the service can check an
//! upload before converting it.

mod edit;
mod losses;
mod put_rule;
mod target;

pub use edit::{
    check_is_archive, check_model_entry_name, contains, names, Editor, Placed, MSH_TYPE,
};
pub use losses::entry_losses;
pub use put_rule::{closest, decide, placement, MAX_SUGGESTIONS};
pub use target::{check_not_folder, target, Target};

use crate::codes::ErrorCode;
use crate::error::Error;
use nres::raw::RawEntry;
use std::ops::Range;

/// An archive's directory: what the policy needs of it.
pub trait Listing {
    /// The raw directory records.
    fn raw_entries(&self) -> &[RawEntry];
    /// The game's own lookup: a binary search over `sort_index`.
    fn game_lookup(&self, name: &str) -> Option<usize>;
}

impl Listing for nres::Archive<'_> {
    fn raw_entries(&self) -> &[RawEntry] {
        nres::Archive::raw_entries(self)
    }
    fn game_lookup(&self, name: &str) -> Option<usize> {
        self.find_by_name(name).map(|e| e.index())
    }
}

impl Listing for nres::Directory {
    fn raw_entries(&self) -> &[RawEntry] {
        nres::Directory::raw_entries(self)
    }
    fn game_lookup(&self, name: &str) -> Option<usize> {
        self.find_by_name(name)
    }
}

/// The index of the entry named `name` (ASCII case-insensitively, as the
/// game compares): the game's lookup first; when the archive's `sort_index`
/// table is not sorted and that misses, a linear scan finds it too.
pub fn find(listing: &impl Listing, name: &str) -> Option<usize> {
    listing.game_lookup(name).or_else(|| {
        listing
            .raw_entries()
            .iter()
            .position(|e| nres::cmp_names(entry_name(e), name.as_bytes()).is_eq())
    })
}

/// An entry's name bytes (up to the first NUL).
pub fn entry_name(entry: &RawEntry) -> &[u8] {
    nres::Name::text_of(&entry.name)
}

/// A model entry of an archive: its index, name and payload range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelEntry {
    /// Position in the directory.
    pub index: usize,
    /// The entry's name as text (lossy for bytes that are not UTF-8).
    pub name: String,
    /// The payload's byte range in the archive.
    pub range: Range<u64>,
}

/// The archive's model entries (names ending in `.msh`), in directory order.
pub fn models(listing: &impl Listing) -> Vec<ModelEntry> {
    listing
        .raw_entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| nres::is_model_name(entry_name(e)))
        .map(|(index, e)| {
            let start = u64::from(e.data_offset.get());
            ModelEntry {
                index,
                name: String::from_utf8_lossy(entry_name(e)).into_owned(),
                range: start..start + u64::from(e.size.get()),
            }
        })
        .collect()
}

/// Refuses model entries whose payloads add up to more than the archive
/// (`archive.entries_overlap`): they share bytes (valid NRes), and each shared
/// model would be converted, and written, once per entry.
pub fn check_models_fit(models: &[ModelEntry], archive_len: u64) -> Result<(), Error> {
    let total: u64 = models.iter().map(|m| m.range.end - m.range.start).sum();
    if total > archive_len {
        return Err(Error::invalid(
            ErrorCode::ArchiveEntriesOverlap,
            format!(
                "the archive's model entries share their bytes: together they are {total} bytes of a {archive_len}-byte archive, so each shared model would be converted once per entry; repack it with one entry per model"
            ),
        ));
    }
    Ok(())
}

/// Whether NRes bytes are an archive of models rather than a model: no node
/// table of its own (type 1) and at least one model entry.
pub fn is_model_archive(archive: &nres::Archive<'_>) -> bool {
    archive.find_by_type(msh::resource::NODES).is_none() && archive.nested_models().next().is_some()
}

/// The refusal of an archive given where one model was expected
/// (`request.entry_required`): `what` (the upload, a path) is an archive of so
/// many models, the first few, and `how` to name one.
pub fn entry_required(archive: &nres::Archive<'_>, what: &str, how: &str) -> Error {
    let models: Vec<String> = archive.nested_models().map(|e| e.name()).collect();
    let shown: Vec<&str> = models.iter().take(5).map(String::as_str).collect();
    Error::usage(
        ErrorCode::RequestEntryRequired,
        format!(
            "{what} is an archive of {} models ({}{}): {how}",
            models.len(),
            shown.join(", "),
            if models.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        ),
    )
}

/// The refusal of a name an archive does not have (`input.no_such_entry`):
/// `what` (`the archive`, `archive units.rlb`) has no such entry; `how` says
/// how to list the entries.
pub fn no_such_entry(what: &str, name: &str, entries: usize, how: &str) -> Error {
    Error::usage(
        ErrorCode::InputNoSuchEntry,
        format!("{what} has no entry named {name:?} ({entries} entries; {how})"),
    )
}

/// The model `name` of an archive in memory: the archive parsed (for the
/// caller's further look-ups, so it is parsed once), the entry's name as the
/// archive spells it and its payload, found by [`find`]; `tolerant` reads a
/// damaged archive as far as it can.
pub fn entry_in<'a>(
    bytes: &'a [u8],
    name: &str,
    tolerant: bool,
    how_to_list: &str,
) -> Result<(nres::Archive<'a>, String, &'a [u8]), Error> {
    let archive = if tolerant {
        nres::Archive::parse_tolerant(bytes)?.0
    } else {
        nres::Archive::parse(bytes)?
    };
    let entry = find(&archive, name)
        .and_then(|i| archive.entry(i))
        .ok_or_else(|| no_such_entry("the archive", name, archive.len(), how_to_list))?;
    let (name, data) = (entry.name(), entry.data());
    Ok((archive, name, data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nres::{OwnedArchive, OwnedEntry, WriteMode};

    fn archive(names: &[&str]) -> Vec<u8> {
        let mut a = OwnedArchive::new();
        for (i, name) in names.iter().enumerate() {
            a.push(OwnedEntry::new(0x4D5348, name, vec![i as u8; 8]).unwrap());
        }
        a.write(WriteMode::Canonical).unwrap()
    }

    #[test]
    fn lookup_and_models() {
        let bytes = archive(&["B.MSH", "a.msh", "c.txt"]);
        let a = nres::Archive::parse(&bytes).unwrap();
        assert_eq!(find(&a, "b.msh"), Some(0));
        assert_eq!(find(&a, "A.MSH"), Some(1));
        assert_eq!(find(&a, "d.msh"), None);
        let m = models(&a);
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].name, "a.msh");
        check_models_fit(&m, bytes.len() as u64).unwrap();
        assert_eq!(
            check_models_fit(&m, 8).unwrap_err().code(),
            "archive.entries_overlap"
        );
        assert!(is_model_archive(&a));
        let e = entry_required(&a, "the upload", "name one");
        assert!(
            e.message().contains("2 models (B.MSH, a.msh)"),
            "{}",
            e.message()
        );
        let (_, name, data) = entry_in(&bytes, "a.MSH", false, "").unwrap();
        assert_eq!((name.as_str(), data), ("a.msh", &[1u8; 8][..]));
        assert_eq!(
            entry_in(&bytes, "zz", false, "").unwrap_err().code(),
            "input.no_such_entry"
        );
    }
}
