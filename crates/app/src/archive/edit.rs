//! Editing an archive: put an entry (replace the one of its name, or add it)
//! and remove one, keeping every other entry's bytes, name and order. An
//! archive in the canonical layout stays canonical; any other keeps its layout
//! (the lossless writer: physical order, gaps, stored `sort_index`).

use super::{entry_name, find};
use crate::codes::ErrorCode;
use crate::error::Error;
use nres::{OwnedArchive, OwnedEntry, WriteMode};

/// `type_id` of a model entry in the game's archives: `"MSH\0"` read as a
/// little-endian u32 (what `nres list` shows as `MSH`).
pub const MSH_TYPE: u32 = u32::from_le_bytes(*b"MSH\0");

/// What [`Editor::put`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placed {
    /// The entry of that name was there; its payload was replaced (its type,
    /// attributes, name and place kept).
    Replaced,
    /// There was none; a new entry was added at the end and the sort table updated.
    Added,
}

impl Placed {
    /// `replace` or `add`: what a put would do (`--dry-run`).
    pub fn verb(self) -> &'static str {
        match self {
            Placed::Replaced => "replace",
            Placed::Added => "add",
        }
    }
}

/// An archive opened for editing, with the layout it will be written in.
#[derive(Debug, Clone)]
pub struct Editor {
    owned: OwnedArchive,
    mode: WriteMode,
}

impl Editor {
    /// Opens archive bytes (strictly: a damaged archive is not edited, nor one
    /// whose entries share bytes: `archive.entries_overlap`, said before any
    /// payload is copied).
    pub fn open(bytes: &[u8]) -> Result<Editor, Error> {
        let archive = nres::Archive::parse(bytes)?;
        if archive.find_by_type(msh::resource::NODES).is_some() {
            return Err(is_model());
        }
        // Before any payload is copied: each entry gets its own copy.
        super::check_entries_disjoint(&archive)?;
        let owned = OwnedArchive::from_archive(&archive);
        // Canonical when the canonical writer gives the same bytes back.
        let canonical = owned
            .write(WriteMode::Canonical)
            .is_ok_and(|written| written == bytes);
        Ok(Editor {
            owned,
            mode: if canonical {
                WriteMode::Canonical
            } else {
                WriteMode::Lossless
            },
        })
    }

    /// A new, empty archive (written in the canonical layout): a library the
    /// game folder does not have yet.
    pub fn new_archive() -> Editor {
        Editor {
            owned: OwnedArchive::new(),
            mode: WriteMode::Canonical,
        }
    }

    /// Sets the attributes of the entry `name` (after a [`Editor::put`]); an
    /// error when there is none.
    pub fn set_attributes(
        &mut self,
        name: &str,
        [attr1, attr2, attr3]: [u32; 3],
    ) -> Result<(), Error> {
        let i = self.existing(name)?;
        let entry = &mut self.owned.entries[i];
        (entry.attr1, entry.attr2, entry.attr3) = (attr1, attr2, attr3);
        Ok(())
    }

    /// Whether the archive was in the canonical layout (and will be written so).
    pub fn is_canonical(&self) -> bool {
        self.mode == WriteMode::Canonical
    }

    /// How many entries the archive has now.
    pub fn len(&self) -> usize {
        self.owned.entries.len()
    }

    /// Whether the archive has no entries.
    pub fn is_empty(&self) -> bool {
        self.owned.entries.is_empty()
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        // The policy's lookup (the game's, then a scan) needs a parsed
        // directory; an edited archive is searched by a scan of the names.
        let entries = &self.owned.entries;
        entries
            .iter()
            .position(|e| nres::cmp_names(e.name.as_bytes(), name.as_bytes()).is_eq())
    }

    /// The index of the entry `name`; an error naming it when there is none.
    fn existing(&self, name: &str) -> Result<usize, Error> {
        self.index_of(name).ok_or_else(|| {
            super::no_such_entry(
                "the archive",
                name,
                self.len(),
                "`mshconv nres list` lists them",
            )
        })
    }

    /// What putting the model `name` would do, by the put rule
    /// ([`super::decide`]): replace the entry of that name, or add one when
    /// `add` allows; else `archive.no_such_entry` with the closest names and
    /// `how_to_add`.
    pub fn placement(&self, name: &str, add: bool, how_to_add: &str) -> Result<Placed, Error> {
        let names = self.owned.entries.iter().map(|e| e.name.as_bytes());
        super::decide(names, name, add, "the archive", how_to_add)
    }

    /// Puts the model `data` under `name` by the put rule: [`Editor::placement`],
    /// then [`Editor::put`] (an MSH entry when added).
    pub fn put_model(
        &mut self,
        name: &str,
        data: Vec<u8>,
        add: bool,
        how_to_add: &str,
    ) -> Result<Placed, Error> {
        self.put_by_rule(name, None, data, add, how_to_add)
    }

    /// Puts `data` under `name` by the put rule (`mshconv nres put`, any
    /// entry): [`Editor::placement`], then [`Editor::put`] with `type_id`.
    pub fn put_by_rule(
        &mut self,
        name: &str,
        type_id: Option<u32>,
        data: Vec<u8>,
        add: bool,
        how_to_add: &str,
    ) -> Result<Placed, Error> {
        self.placement(name, add, how_to_add)?;
        self.put(name, type_id, data)
    }

    /// Puts `data` under `name`: replaces the payload of the entry of that name
    /// (compared as the game compares: ASCII case-insensitively), or adds an
    /// entry of `type_id` at the end. `type_id` is also set on a replaced entry
    /// when given; otherwise the entry keeps its own.
    pub fn put(
        &mut self,
        name: &str,
        type_id: Option<u32>,
        data: Vec<u8>,
    ) -> Result<Placed, Error> {
        if let Some(i) = self.index_of(name) {
            let entry = &mut self.owned.entries[i];
            entry.data = data;
            if let Some(t) = type_id {
                entry.type_id = t;
            }
            return Ok(Placed::Replaced);
        }
        let entry = OwnedEntry::new(type_id.unwrap_or(MSH_TYPE), name, data).map_err(|e| {
            Error::usage(
                ErrorCode::ArchiveBadName,
                format!("{name:?} cannot be an entry name: {}", e.message()),
            )
        })?;
        self.owned.push(entry);
        // The game finds entries by a binary search over the sort table: it
        // must list the new name too.
        self.owned.recompute_sort_index();
        // A physical order that no longer lists every entry is ignored by the
        // writer; the new payload goes after the others.
        if let Some(order) = &mut self.owned.physical_order {
            order.push(self.owned.entries.len() - 1);
        }
        Ok(Placed::Added)
    }

    /// Removes the entry `name`; an error when there is none.
    pub fn remove(&mut self, name: &str) -> Result<(), Error> {
        let i = self.existing(name)?;
        self.owned.entries.remove(i);
        self.owned.recompute_sort_index();
        if let Some(order) = &mut self.owned.physical_order {
            order.retain(|&j| j != i);
            for j in order.iter_mut() {
                if *j > i {
                    *j -= 1;
                }
            }
        }
        Ok(())
    }

    /// The archive's bytes, in its layout.
    pub fn write(&self) -> Result<Vec<u8>, Error> {
        Ok(self.owned.write(self.mode)?)
    }
}

/// Checks the name a model is put under: printable ASCII (the game's names
/// are Windows-1251 bytes; text typed on a command line or in a query is
/// UTF-8, so another character would not be stored as the game reads it:
/// `archive.bad_name`) ending in `.msh`, as the game's model entries do and as
/// the tools find models (`request.entry_not_model`; the message suggests
/// `STEM.MSH`). It holds no `/`, `\` or `:` and no `..`, and does not start
/// with `.` (`archive.bad_name`): the CLI names an entry as `ARCHIVE:ENTRY`,
/// where such a name would be a path, and an extracted entry becomes a file
/// of its name; so the service and the CLI accept the same names. It fits
/// the name field (35 bytes), checked here too so that a name too long is
/// said before the put rule looks it up.
pub fn check_model_entry_name(name: &str) -> Result<(), Error> {
    if name.is_empty() || !name.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err(Error::usage(
            ErrorCode::ArchiveBadName,
            format!(
                "{name:?}: a model's entry name is printable ASCII (the game's names are Windows-1251 bytes, so another character would not be stored as the game reads it)"
            ),
        ));
    }
    if name.len() > nres::raw::MAX_NAME_LEN {
        return Err(Error::usage(
            ErrorCode::ArchiveBadName,
            format!(
                "{name:?} cannot be an entry name: it is {} bytes, and an entry's name holds at most {}",
                name.len(),
                nres::raw::MAX_NAME_LEN
            ),
        ));
    }
    if name.contains(['/', '\\', ':']) || name.contains("..") || name.starts_with('.') {
        return Err(Error::usage(
            ErrorCode::ArchiveBadName,
            format!(
                "{name:?}: a model's entry name holds no /, \\, : or \"..\" and does not start with \".\" (on the command line ARCHIVE:ENTRY would read it as a path, and an extracted entry becomes a file of its name)"
            ),
        ));
    }
    if !nres::is_model_name(name.as_bytes()) {
        let stem = crate::names::stem(name).unwrap_or_else(|| "MODEL".to_string());
        return Err(Error::usage(
            ErrorCode::RequestEntryNotModel,
            format!(
                "{name:?} is not a model's name: the model goes in as MSH, and a model entry's name ends in .msh (as the game's do), e.g. \"{stem}.MSH\""
            ),
        ));
    }
    Ok(())
}

/// Refuses archive bytes that are a model (a node table of its own) where an
/// archive of models is expected (`archive.is_model`): the two were most
/// likely given the wrong way round.
pub fn check_is_archive(bytes: &[u8]) -> Result<(), Error> {
    let parsed = nres::Archive::parse(bytes)?;
    if parsed.find_by_type(msh::resource::NODES).is_some() {
        return Err(is_model());
    }
    Ok(())
}

/// The refusal of a model where an archive of models is expected
/// (`archive.is_model`).
pub(super) fn is_model() -> Error {
    Error::invalid(
        ErrorCode::ArchiveIsModel,
        "this is a model (it has a node table), not an archive of models: put the model into the .rlb that holds it",
    )
}

/// The names of an archive's entries, for messages.
pub fn names(archive: &nres::Archive<'_>) -> Vec<String> {
    archive
        .raw_entries()
        .iter()
        .map(|e| String::from_utf8_lossy(entry_name(e)).into_owned())
        .collect()
}

/// Whether `name` is in the archive (the policy's lookup).
pub fn contains(archive: &nres::Archive<'_>, name: &str) -> bool {
    find(archive, name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(names: &[&str]) -> Vec<u8> {
        let mut a = OwnedArchive::new();
        for (i, name) in names.iter().enumerate() {
            a.push(OwnedEntry::new(MSH_TYPE, name, vec![i as u8; 5 + i]).unwrap());
        }
        a.recompute_sort_index();
        a.write(WriteMode::Canonical).unwrap()
    }

    #[test]
    fn replace_keeps_the_others_and_canonical_stays_canonical() {
        let bytes = canonical(&["B.MSH", "A.MSH", "C.TXT"]);
        let mut e = Editor::open(&bytes).unwrap();
        assert!(e.is_canonical());
        // Unchanged: the same bytes.
        assert_eq!(e.write().unwrap(), bytes);
        assert_eq!(e.put("a.msh", None, vec![9; 20]).unwrap(), Placed::Replaced);
        let out = e.write().unwrap();
        let a = nres::Archive::parse(&out).unwrap();
        let before = nres::Archive::parse(&bytes).unwrap();
        assert_eq!(names(&a), ["B.MSH", "A.MSH", "C.TXT"]);
        assert_eq!(a.entry(1).unwrap().data(), &[9; 20][..]);
        for i in [0, 2] {
            assert_eq!(a.entry(i).unwrap().data(), before.entry(i).unwrap().data());
            assert_eq!(
                a.entry(i).unwrap().raw().name,
                before.entry(i).unwrap().raw().name
            );
        }
        assert_eq!(Editor::open(&out).unwrap().write().unwrap(), out);
        assert!(Editor::open(&out).unwrap().is_canonical());
    }

    #[test]
    fn add_updates_the_sort_table_so_the_game_finds_it() {
        let bytes = canonical(&["M1.MSH", "M3.MSH"]);
        let mut e = Editor::open(&bytes).unwrap();
        assert_eq!(e.put("M2.MSH", None, vec![7; 3]).unwrap(), Placed::Added);
        let out = e.write().unwrap();
        let a = nres::Archive::parse(&out).unwrap();
        assert_eq!(names(&a), ["M1.MSH", "M3.MSH", "M2.MSH"]);
        // The game's own lookup (a binary search over sort_index) finds every name.
        for name in ["m1.msh", "M2.MSH", "m3.MSH"] {
            assert!(a.find_by_name(name).is_some(), "{name}");
        }
        assert_eq!(a.entry(2).unwrap().type_id(), MSH_TYPE);
        assert!(contains(&a, "m2.msh"));
        e.remove("M1.MSH").unwrap();
        let a2 = e.write().unwrap();
        let a2 = nres::Archive::parse(&a2).unwrap();
        assert_eq!(names(&a2), ["M3.MSH", "M2.MSH"]);
        assert!(a2.find_by_name("M2.MSH").is_some());
        assert_eq!(e.remove("nope").unwrap_err().code(), "input.no_such_entry");
    }

    #[test]
    fn a_model_is_added_only_when_asked() {
        let bytes = canonical(&["M1.MSH", "M3.MSH"]);
        let mut e = Editor::open(&bytes).unwrap();
        let refused = e.put_model("M2.MSH", vec![7; 3], false, "give --add");
        let refused = refused.unwrap_err();
        assert_eq!(refused.code(), "archive.no_such_entry");
        assert!(
            refused.message().contains("did you mean M1.MSH or M3.MSH?"),
            "{}",
            refused.message()
        );
        assert_eq!(e.write().unwrap(), bytes, "nothing changed");
        assert_eq!(e.placement("m1.msh", false, "").unwrap(), Placed::Replaced);
        assert_eq!(
            e.put_model("m3.msh", vec![1], false, "").unwrap(),
            Placed::Replaced
        );
        assert_eq!(
            e.put_model("M2.MSH", vec![7; 3], true, "").unwrap(),
            Placed::Added
        );
        assert_eq!(Placed::Added.verb(), "add");
        assert_eq!(Placed::Replaced.verb(), "replace");
    }

    #[test]
    fn entry_names_the_command_line_cannot_name_are_refused() {
        for ok in ["TANK.MSH", "a b.msh", "x.y.msh", "M-1_2.MSH"] {
            check_model_entry_name(ok).unwrap();
        }
        for bad in [
            "sub/TANK.MSH",
            "..\\TANK.MSH",
            "../TANK.MSH",
            "a..b.msh",
            ".TANK.MSH",
            "C:TANK.MSH",
            "",
            "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX.MSH",
        ] {
            let e = check_model_entry_name(bad).unwrap_err();
            assert_eq!(e.code(), "archive.bad_name", "{bad:?}");
        }
        assert_eq!(
            check_model_entry_name("TANK.GLB").unwrap_err().code(),
            "request.entry_not_model"
        );
    }

    #[test]
    fn a_non_canonical_archive_keeps_its_layout() {
        // A gap of non-zero bytes after the first payload: lossless layout.
        let mut a = OwnedArchive::parse(&canonical(&["A.MSH", "B.MSH"])).unwrap();
        a.entries[0].filler = Some(nres::Filler {
            payload_len: a.entries[0].data.len(),
            bytes: vec![0xEE; 11],
        });
        let bytes = a.write(WriteMode::Lossless).unwrap();
        let mut e = Editor::open(&bytes).unwrap();
        assert!(!e.is_canonical());
        assert_eq!(e.write().unwrap(), bytes);
        e.put("B.MSH", None, vec![1; 40]).unwrap();
        let out = e.write().unwrap();
        // The first payload and its odd gap are where they were (the header's
        // total size changed).
        assert_eq!(out[16..16 + 5 + 11], bytes[16..16 + 5 + 11]);
        assert_eq!(
            nres::Archive::parse(&out).unwrap().entry(1).unwrap().data(),
            &[1; 40][..]
        );
    }
}
