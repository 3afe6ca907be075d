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
mod file_edit;
mod losses;
mod put_rule;
mod target;

pub use edit::{
    check_is_archive, check_model_entry_name, contains, names, Editor, Placed, MSH_TYPE,
};
pub use file_edit::edit_file;
pub use losses::{entry_loses_at, entry_loses_in, entry_loses_note, entry_losses};
pub use put_rule::{closest, decide, placement, MAX_SUGGESTIONS};
pub use target::{check_not_folder, output_format, target, Target};

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

/// Refuses an archive whose entries' payloads share bytes
/// (`archive.entries_overlap`), from its directory alone: NRes allows it, but
/// an edit writes every entry's own copy, so 1,000 entries on one 4 MB payload
/// would become 4 GB. Every edit checks this before it copies a payload
/// ([`Editor::open`]), and so does `nres repack`.
pub fn check_entries_disjoint(listing: &impl Listing) -> Result<(), Error> {
    let entries = listing.raw_entries();
    match nres::first_overlap_of(entries) {
        None => Ok(()),
        Some(o) => Err(overlap_error(&o, |i| {
            String::from_utf8_lossy(entry_name(&entries[i])).into_owned()
        })),
    }
}

/// Refuses model entries whose payloads share bytes (`archive.entries_overlap`):
/// each shared model would be converted, and written, once per entry. Only
/// the models count: a conversion reads nothing else.
pub fn check_models_disjoint(models: &[ModelEntry]) -> Result<(), Error> {
    let ranges = models.iter().enumerate().map(|(k, m)| (k, m.range.clone()));
    match nres::first_overlap(ranges) {
        None => Ok(()),
        Some(o) => {
            let (first, second) = (&models[o.first.0], &models[o.second.0]);
            let o = nres::Overlap {
                first: (first.index, o.first.1),
                second: (second.index, o.second.1),
            };
            Err(overlap_error(&o, |i| {
                if i == first.index {
                    &first.name
                } else {
                    &second.name
                }
                .clone()
            }))
        }
    }
}

/// `archive.entries_overlap` for `o`, naming both entries (`name` gives an
/// entry's name by its index), their byte ranges and the offset where the
/// shared bytes start.
fn overlap_error(o: &nres::Overlap, name: impl Fn(usize) -> String) -> Error {
    let entry = |(i, r): &(usize, Range<u64>)| format!("entry {i} ({:?}, bytes {r:?})", name(*i));
    let what = if o.first.1 == o.second.1 {
        "share one payload"
    } else {
        "overlap"
    };
    Error::invalid(
        ErrorCode::ArchiveEntriesOverlap,
        format!(
            "{} and {} {what}: the archive's entries share bytes, and each would be copied or converted once per entry; extract the entries and pack them again with one payload each",
            entry(&o.first),
            entry(&o.second)
        ),
    )
    .at_offset(o.shared().start)
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
        check_models_disjoint(&m).unwrap();
        check_entries_disjoint(&a).unwrap();
        assert!(is_model_archive(&a));
        let e = entry_required(&a, "the upload", "name one");
        // Only the model entries count for a conversion.
        let mut raw = bytes.clone();
        let dir = raw.len() - 3 * 64;
        // c.txt points at a.msh's payload: an edit is refused, a conversion not.
        let a_msh = raw[dir + 64 + 56..dir + 64 + 60].to_vec();
        raw[dir + 128 + 56..dir + 128 + 60].copy_from_slice(&a_msh);
        let parsed = nres::Archive::parse(&raw).unwrap();
        check_models_disjoint(&models(&parsed)).unwrap();
        let refused = check_entries_disjoint(&parsed).unwrap_err();
        assert_eq!(refused.code(), "archive.entries_overlap");
        assert!(
            refused.message().starts_with("entry 1 (\"a.msh\", bytes 24..32) and entry 2 (\"c.txt\", bytes 24..32) share one payload"),
            "{}",
            refused.message()
        );
        assert_eq!(refused.location().offset, Some(24));
        assert_eq!(
            Editor::open(&raw).unwrap_err().code(),
            "archive.entries_overlap"
        );
        // b.msh points into a.msh's payload: both refusals.
        let b_msh = u32::from_le_bytes(a_msh.try_into().unwrap()) + 4;
        raw[dir + 56..dir + 60].copy_from_slice(&b_msh.to_le_bytes());
        let parsed = nres::Archive::parse(&raw).unwrap();
        let refused = check_models_disjoint(&models(&parsed)).unwrap_err();
        assert!(
            refused.message().starts_with(
                "entry 1 (\"a.msh\", bytes 24..32) and entry 0 (\"B.MSH\", bytes 28..36) overlap"
            ),
            "{}",
            refused.message()
        );
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
