//! The way back of a model's look: an imported glTF's materials and images
//! (`mshconv_gltf::import::look`) made into the game's data: the
//! model's WEAR, and the MAT0 and Texm entries of the game folder's
//! `Material.lib` and `Textures.lib` (docs/MATERIALS.md, "The way back").
//!
//! [`plan`] decides everything in memory and writes nothing: the WEAR's
//! bytes, each library's new bytes when it changes, and one [`Change`] per
//! entry (reused, added, replaced) for `--dry-run` and the report. The front
//! end writes the files (atomically, a backup of each library the first
//! time it is changed).
//!
//! An unedited export comes back as it was: every entry already identical is
//! reused (its library is not rewritten at all), the WEAR text is the
//! recorded one byte for byte.

pub mod advice;
mod loss;
mod material;
mod naming;
mod read;
mod texture;
pub mod users;
mod wear;
pub mod write;

use crate::archive::Editor;
use crate::codes::ErrorCode;
use crate::error::Error;
use crate::game::{find_in_folder, MATERIAL_LIB, TEXTURES_LIB};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::Report;
use std::path::{Path, PathBuf};

pub(crate) use loss::note_reduced;
pub use naming::{fit_name, ENTRY_NAME_MAX, TEXTURE_NAME_MAX};
pub(crate) use read::notes_apart;
pub use read::{brings_look, change_line, read_look};
pub(crate) use texture::{describe as describe_texture, new_texm, rebuild as rebuild_texture};
pub use texture::{new_texture_format, new_texture_size, MAX_NEW_TEXTURE_SIDE};

/// A library file of the game folder: where it is (or would be) and its bytes.
#[derive(Debug, Clone)]
pub struct Library {
    /// The file (an existing file's own spelling, else the canonical name in the folder).
    pub path: PathBuf,
    /// Its bytes; `None` when the folder has no such file yet.
    pub bytes: Option<Vec<u8>>,
}

impl Library {
    /// The library `name` of `dir`, found case-insensitively.
    pub fn read(dir: &Path, name: &str) -> Result<Library, Error> {
        match find_in_folder(dir, name) {
            Some(path) => {
                let bytes = std::fs::read(&path).map_err(|e| Error::io(path.display(), &e))?;
                Ok(Library {
                    path,
                    bytes: Some(bytes),
                })
            }
            None => Ok(Library {
                path: dir.join(name),
                bytes: None,
            }),
        }
    }

    /// The library's entries as `map` makes them (none when there is no file).
    fn entries<'l, T>(
        &'l self,
        map: impl Fn(nres::Entry<'l>) -> Option<T>,
    ) -> Result<Vec<T>, Error> {
        let Some(bytes) = &self.bytes else {
            return Ok(Vec::new());
        };
        let archive = nres::Archive::parse(bytes).map_err(|e| {
            Error::invalid(
                ErrorCode::LookBadLibrary,
                format!("{}: {}", self.path.display(), e.message()),
            )
        })?;
        Ok(archive.entries().filter_map(map).collect())
    }

    /// The library opened for editing: strictly (a damaged library is not
    /// written into: `look.bad_library`; one whose entries share bytes:
    /// `archive.entries_overlap`), or a new empty one.
    fn editor(&self) -> Result<Editor, Error> {
        match &self.bytes {
            Some(bytes) => Editor::open(bytes).map_err(|e| {
                let message = format!(
                    "{} cannot be updated: {} (repair or restore it first)",
                    self.path.display(),
                    e.message()
                );
                // Entries sharing bytes keep their code, as in any archive.
                if e.code() == ErrorCode::ArchiveEntriesOverlap.code() {
                    e.with_message(message)
                } else {
                    Error::invalid(ErrorCode::LookBadLibrary, message)
                }
            }),
            None => Ok(Editor::new_archive()),
        }
    }
}

/// A library's edits: opened for editing ([`Library::editor`]) on the first
/// change only, so a plan that reuses every entry copies nothing (a batch
/// plans every model against the same, possibly large, libraries).
pub(crate) struct Edits<'l> {
    lib: &'l Library,
    editor: Option<Editor>,
}

impl<'l> Edits<'l> {
    pub(crate) fn new(lib: &'l Library) -> Edits<'l> {
        Edits { lib, editor: None }
    }

    /// The editor, opened now if this is the first change.
    pub(crate) fn editor(&mut self) -> Result<&mut Editor, Error> {
        let editor = match self.editor.take() {
            Some(editor) => editor,
            None => self.lib.editor()?,
        };
        Ok(self.editor.insert(editor))
    }

    /// The library's new bytes, when anything was changed.
    pub(crate) fn finish(self) -> Result<Option<Vec<u8>>, Error> {
        self.editor.map(|e| e.write()).transpose()
    }
}

/// The two libraries the look import writes into.
#[derive(Debug, Clone)]
pub struct Libraries {
    /// `Material.lib`.
    pub materials: Library,
    /// `Textures.lib`.
    pub textures: Library,
}

impl Libraries {
    /// The libraries of the game folder `dir`.
    pub fn read(dir: &Path) -> Result<Libraries, Error> {
        Ok(Libraries {
            materials: Library::read(dir, MATERIAL_LIB)?,
            textures: Library::read(dir, TEXTURES_LIB)?,
        })
    }
}

/// The way back into the game folder `dir` needs its `Material.lib` and
/// `Textures.lib` (found case-insensitively): a folder lacking either is
/// refused (`game_dir.no_libraries`, a usage error: most likely the wrong
/// folder), unless `new_libraries` (`--new-libraries`), when the missing
/// ones are created.
pub fn check_libraries(dir: &Path, new_libraries: bool) -> Result<(), Error> {
    let missing: Vec<&str> = [MATERIAL_LIB, TEXTURES_LIB]
        .into_iter()
        .filter(|name| find_in_folder(dir, name).is_none())
        .collect();
    if missing.is_empty() || new_libraries {
        return Ok(());
    }
    Err(Error::usage(
        ErrorCode::GameDirNoLibraries,
        format!(
            "the game folder {} has no {}: the look cannot go back into it; give the folder that holds the game's Material.lib and Textures.lib (--game-dir or MSHCONV_GAME_DIR), or --new-libraries to create them there",
            dir.display(),
            missing.join(" and no ")
        ),
    ))
}

/// The game folder a model written to `place` (a file, or an archive for
/// its entry) belongs to, found without `--game-dir`: the nearest folder,
/// from `place`'s own up to [`GAME_DIR_LEVELS_UP`] levels above it, that
/// holds both `Material.lib` and `Textures.lib`.
pub fn find_game_dir(place: &Path) -> Option<PathBuf> {
    let start = match place.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let start = std::fs::canonicalize(&start).unwrap_or(start);
    start
        .ancestors()
        .take(GAME_DIR_LEVELS_UP + 1)
        .find(|d| {
            find_in_folder(d, MATERIAL_LIB).is_some() && find_in_folder(d, TEXTURES_LIB).is_some()
        })
        .map(Path::to_path_buf)
}

/// How far above a model's folder [`find_game_dir`] looks (**a choice**:
/// `GAME/units.rlb` and `GAME/models/x.msh` are 0 and 1 levels below; 2
/// allows one more folder without walking up to unrelated ones).
pub const GAME_DIR_LEVELS_UP: usize = 2;

/// What happens to one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// An identical entry is there: nothing written.
    Reused,
    /// A new entry.
    Added,
    /// The entry of that name gets new content (every model using it sees it).
    Replaced,
}

impl Action {
    /// `reuse`, `add`, `replace`.
    pub fn verb(self) -> &'static str {
        match self {
            Action::Reused => "reuse",
            Action::Added => "add",
            Action::Replaced => "replace",
        }
    }
}

/// One entry of a library and what happens to it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Change {
    /// `Material.lib` or `Textures.lib`.
    pub library: &'static str,
    /// The entry's name.
    pub entry: String,
    /// What happens.
    pub action: Action,
    /// For whom and how (`material 2`, `565 64 x 64, 7 mips`).
    pub detail: String,
}

/// Everything the look import would write.
#[derive(Debug, Clone)]
pub struct LookPlan {
    /// The model's WEAR.
    pub wear: Vec<u8>,
    /// `Material.lib`'s new bytes, when an entry is added or replaced.
    pub materials_lib: Option<Vec<u8>>,
    /// `Textures.lib`'s new bytes, when an entry is added or replaced.
    pub textures_lib: Option<Vec<u8>>,
    /// Every entry the model's materials use, in material order.
    pub changes: Vec<Change>,
    /// Notes (`look.*`).
    pub report: Report,
    /// Entries this model edits otherwise than an earlier model of the same
    /// run ([`plan_in_run`]) edited them: left as that model left them (the
    /// front end refuses the run). Always empty for [`plan`].
    pub conflicts: Vec<Change>,
}

impl LookPlan {
    /// Whether the plan changes `lib`'s entry `entry` (adds or replaces it).
    pub fn changes_entry(&self, lib: &str, entry: &str) -> bool {
        self.changes.iter().any(|c| {
            c.action != Action::Reused
                && c.library == lib
                && crate::game::same_name(&c.entry, entry)
        })
    }
}

/// Plans the look import of `look` into `libs`. `existing_wear` is the WEAR
/// already at the output's place (its rows and legacy ids are kept where the
/// glTF does not record them). Two edits of one entry that differ refuse the
/// plan (`look.edit_conflict`): the model's against the library's since the
/// export, or two of the model's own images or materials.
pub fn plan(
    look: &ImportedLook,
    libs: &Libraries,
    existing_wear: Option<&[u8]>,
) -> Result<LookPlan, Error> {
    let plan = plan_in_run(look, libs, libs, existing_wear)?;
    if let Some(c) = plan.conflicts.first() {
        // Two images (or materials) of the model claim one entry.
        return Err(Error::invalid(
            ErrorCode::LookEditConflict,
            format!(
                "the model edits {} entry {} twice, differently (two of its images or materials): nothing is written",
                c.library, c.entry
            ),
        ));
    }
    Ok(plan)
}

/// Plans the look import of one model of a run of several (`batch`): `libs`
/// are the libraries as the models planned before it left them, `base` as
/// they were before the run. Whether the model edits an entry is decided
/// against `base`: an image or material equal to `base`'s entry is reused
/// even when an earlier model of the run replaced it, so a model that did
/// not edit a shared texture never undoes another's edit of it, whatever
/// the order. An entry the model edits that an earlier model edited
/// differently is left as it is and listed in [`LookPlan::conflicts`].
pub fn plan_in_run(
    look: &ImportedLook,
    libs: &Libraries,
    base: &Libraries,
    existing_wear: Option<&[u8]>,
) -> Result<LookPlan, Error> {
    let mut report = Report::default();
    let mut changes = Vec::new();
    let mut conflicts = Vec::new();
    let mut textures = texture::Planner::new(&libs.textures, &base.textures)?;
    let mut materials = material::Planner::new(&libs.materials, &base.materials)?;
    let mut rows = Vec::new();
    for (&index, m) in &look.materials {
        let texture = match &m.image {
            Some(image) => {
                let hint = materials.still_texture(m);
                let mut log = Log {
                    changes: &mut changes,
                    conflicts: &mut conflicts,
                    report: &mut report,
                };
                Some(textures.plan(image, m, hint.as_deref(), index, &mut log)?)
            }
            None => None,
        };
        let mut log = Log {
            changes: &mut changes,
            conflicts: &mut conflicts,
            report: &mut report,
        };
        if let Some(row) = materials.plan(index, m, texture.as_deref(), &mut log)? {
            rows.push((index, row));
        }
    }
    let wear = wear::build(look, &rows, existing_wear, &mut report)?;
    Ok(LookPlan {
        wear,
        materials_lib: materials.finish()?,
        textures_lib: textures.finish()?,
        changes,
        report,
        conflicts,
    })
}

/// Where a planner puts what it decided: each entry's [`Change`], the
/// entries left because of a conflict, the notes.
struct Log<'a> {
    changes: &'a mut Vec<Change>,
    conflicts: &'a mut Vec<Change>,
    report: &'a mut Report,
}

/// What writing `plan` would change in the game's data, for the note of a
/// way back that does not write the look (`look.not_written`): each entry
/// added or replaced (`replace Textures.lib:TANK_BODY.0`), then `the WEAR`
/// when the planned one differs from `existing_wear` (a model with materials
/// and no WEAR yet counts); `None` when nothing would change.
pub fn unwritten(
    plan: &LookPlan,
    existing_wear: Option<&[u8]>,
    has_materials: bool,
) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for c in plan.changes.iter().filter(|c| c.action != Action::Reused) {
        let part = format!("{} {}:{}", c.action.verb(), c.library, c.entry);
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    let wear_differs = match existing_wear {
        Some(w) => w != plan.wear.as_slice(),
        None => has_materials,
    };
    if wear_differs {
        parts.push("the WEAR".to_string());
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}
