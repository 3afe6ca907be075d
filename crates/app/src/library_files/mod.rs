//! The game's libraries as files a modder edits with ordinary tools
//! (docs/LIBRARY_FILES.md): `Textures.lib` as a folder of PNGs and a
//! `textures.json` ([`textures`]), `Material.lib` as one JSON text
//! ([`materials`]).
//!
//! An export writes what the library holds; an import compares the files
//! with the library and plans only what changed ([`ImportPlan`]): an entry
//! whose file is unchanged keeps its bytes, and a library nothing changed in
//! is not written at all. [`write`] replaces the library through a
//! transaction ([`crate::txn`]) after its first backup (`Textures.lib.bak`),
//! as the look import does.

mod fields;
pub mod materials;
pub mod textures;

use crate::error::Error;
use crate::look_import::{Action, Change, Edits, Library};
use crate::txn::{Lock, Transaction, Written};
use mshconv_convert::Report;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

pub use crate::look_import::write::backup_path;

/// The files an import of `library` may replace (the library and its
/// backup), for the lock taken before the library is read.
pub fn lock_paths(library: &Path) -> Vec<PathBuf> {
    vec![backup_path(library), library.to_path_buf()]
}

/// Reads the library file `path` (it must exist).
pub fn read_library(path: &Path) -> Result<Library, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.display(), &e))?;
    Ok(Library {
        path: path.to_path_buf(),
        bytes: Some(bytes),
    })
}

/// [`read_library`] once an interrupted run that was writing it is finished
/// ([`crate::txn::recover_pending`], told through `on` as it happens): an
/// export or a dry run reads the library without a lock.
pub fn read_library_recovered(
    path: &Path,
    on: &mut dyn FnMut(crate::txn::Event<'_>),
) -> Result<Library, Error> {
    crate::txn::recover_pending(crate::txn::folder_of(path), on)?;
    read_library(path)
}

/// Adds `library`'s new `bytes` to `txn`, after a backup of its old bytes
/// (written only when no backup is there yet).
pub fn stage(txn: &mut Transaction<'_>, library: &Library, bytes: Vec<u8>) {
    crate::look_import::write::stage_libraries(txn, [(library, &bytes)]);
}

/// Writes the new bytes of `library` under `lock`, after its first backup,
/// as one transaction.
pub fn write(lock: &Lock, library: &Library, bytes: Vec<u8>) -> Result<Written, Error> {
    let mut txn = lock.transaction();
    stage(&mut txn, library, bytes);
    txn.commit()
}

/// What [`import`] did to a library (or, for a dry run, would do).
#[derive(Debug, Clone)]
pub struct Imported {
    /// The plan: every entry, the notes, the new bytes when anything changed.
    pub plan: ImportPlan,
    /// Whether the library was written (never for a dry run).
    pub written: bool,
    /// The backup made now (`LIBRARY.bak`, the first time only).
    pub backup_made: Option<PathBuf>,
    /// For a dry run that would write: the backup a run would make (none
    /// when one is there already).
    pub backup_would_be_made: Option<PathBuf>,
}

/// An import of edited files into the library at `path`: `textures import`
/// and `materials import`. Without `dry_run` the library's folder is locked
/// (another writer waited for, a run that died there finished: `on` hears
/// of it as it happens) and the library read under that lock, planned by
/// `plan`, and written with its first backup as one transaction when
/// anything changed. A dry run reads it once an interrupted run is finished,
/// plans, and writes nothing.
pub fn import(
    path: &Path,
    dry_run: bool,
    on: &mut dyn FnMut(crate::txn::Event<'_>),
    plan: impl FnOnce(&Library) -> Result<ImportPlan, Error>,
) -> Result<Imported, Error> {
    let backup = backup_path(path);
    if dry_run {
        let library = read_library_recovered(path, on)?;
        let plan = plan(&library)?;
        let backup_would_be_made = (plan.bytes.is_some() && !backup.exists()).then_some(backup);
        return Ok(Imported {
            plan,
            written: false,
            backup_made: None,
            backup_would_be_made,
        });
    }
    let lock = Lock::acquire(&lock_paths(path), on)?;
    let library = read_library(path)?;
    let plan = plan(&library)?;
    let (written, backup_made) = match &plan.bytes {
        Some(bytes) => {
            let written = write(&lock, &library, bytes.clone())?;
            (true, written.wrote(&backup).then_some(backup))
        }
        None => (false, None),
    };
    Ok(Imported {
        plan,
        written,
        backup_made,
        backup_would_be_made: None,
    })
}

/// What an import would do to a library.
#[derive(Debug, Clone)]
pub struct ImportPlan {
    /// The library's new bytes, when an entry is added or replaced.
    pub bytes: Option<Vec<u8>>,
    /// Every entry the files speak of, in their order (new ones last).
    pub changes: Vec<Change>,
    /// Notes (`look.name_fitted`, `look.texture_resized`, `textures.png_missing`).
    pub report: Report,
}

impl ImportPlan {
    /// How many entries are `action`ed.
    pub fn count(&self, action: Action) -> usize {
        self.changes.iter().filter(|c| c.action == action).count()
    }
}

/// An import being planned: the library's entries as the plan leaves them,
/// its editor (opened on the first change), what was done and the notes.
struct Planning<'l> {
    entries: Entries<'l>,
    edit: Edits<'l>,
    changes: Vec<Change>,
    report: Report,
}

impl<'l> Planning<'l> {
    fn new(library: &'l Library, archive: &nres::Archive<'l>) -> Planning<'l> {
        Planning {
            entries: Entries::of(archive),
            edit: Edits::new(library),
            changes: Vec::new(),
            report: Report::default(),
        }
    }

    /// Puts `bytes` under `name` (a new entry of `type_id`, or the payload of
    /// the entry of that name, its type kept unless `type_id`), with
    /// `attributes` when given.
    fn put(
        &mut self,
        name: &str,
        type_id: Option<u32>,
        bytes: Vec<u8>,
        attributes: Option<[u32; 3]>,
    ) -> Result<(), Error> {
        let editor = self.edit.editor()?;
        editor.put(name, type_id, bytes.clone())?;
        if let Some(attributes) = attributes {
            editor.set_attributes(name, attributes)?;
        }
        self.entries.set(name, bytes);
        Ok(())
    }

    fn finish(self) -> Result<ImportPlan, Error> {
        Ok(ImportPlan {
            bytes: self.edit.finish()?,
            changes: self.changes,
            report: self.report,
        })
    }
}

/// The entries of a library, owned, with what the plan did to them, for the
/// name checks of new entries.
struct Entries<'l> {
    /// Borrowed from the library; added and replaced ones owned.
    list: Vec<(String, Cow<'l, [u8]>)>,
}

impl<'l> Entries<'l> {
    fn of(archive: &nres::Archive<'l>) -> Entries<'l> {
        Entries {
            list: archive
                .entries()
                .map(|e| (e.name(), Cow::Borrowed(e.data())))
                .collect(),
        }
    }

    fn get(&self, name: &str) -> Option<&[u8]> {
        self.list
            .iter()
            .find(|(n, _)| crate::game::same_name(n, name))
            .map(|(_, d)| d.as_ref())
    }

    fn set(&mut self, name: &str, bytes: Vec<u8>) {
        match self
            .list
            .iter_mut()
            .find(|(n, _)| crate::game::same_name(n, name))
        {
            Some(slot) => slot.1 = Cow::Owned(bytes),
            None => self.list.push((name.to_string(), Cow::Owned(bytes))),
        }
    }
}

/// The library's bytes parsed, strictly.
fn parse_library(library: &Library) -> Result<nres::Archive<'_>, Error> {
    let bytes = library.bytes.as_deref().unwrap_or_default();
    nres::Archive::parse(bytes)
        .map_err(|e| Error::from(e).context(format_args!("{}", library.path.display())))
}
