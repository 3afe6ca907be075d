//! What the way back says beyond the model itself (docs/MATERIALS.md, "The
//! way back"), the same through every front end:
//! - `look.shared_edit`: an edited texture or material that other models
//!   show too (the game folder's models whose WEAR names it, the other
//!   models of a batch);
//! - `look.not_written`: without a game folder, a model whose look differs
//!   from the game folder it is written into, with what writes it (the front
//!   end says how: [`GameDirAdvice`]).
//!
//! What an archive's entry loses to the model replacing it
//! (`archive.entry_loses`) is [`crate::archive::entry_loses_at`].

use super::users::{Users, WearPlace};
use super::write::{wear_file, Place};
use super::{find_game_dir, plan, unwritten, Action, Change, Libraries, LookPlan};
use crate::codes::NoteCode;
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::look::{entry_fingerprint, fingerprint};
use mshconv_convert::Note;
use std::borrow::Borrow;
use std::path::Path;

/// At most this many models are named in a note; the others are counted.
const NAMED: usize = 8;

/// How a front end tells its user to give the game folder, for
/// `look.not_written`: the CLI's `--game-dir` and this command line with it,
/// Python's `game_dir` keyword and the call with it.
pub trait GameDirAdvice: std::fmt::Debug + Send + Sync {
    /// The option that gives the game folder (`--game-dir`, `game_dir`).
    fn option(&self) -> String;
    /// What writes the look into the game folder `dir` (as the user types
    /// it: [`as_typed`]).
    fn command(&self, dir: &str) -> String;
}

/// `a, b, c and 4 more`.
fn listing(names: &[String]) -> String {
    let shown = names[..names.len().min(NAMED)].join(", ");
    match names.len().saturating_sub(NAMED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// The entries `plan` replaces (each once): an entry that was there before
/// and now has other content, which every model using it shows.
pub fn replaced(plan: &LookPlan) -> Vec<&Change> {
    let mut out: Vec<&Change> = Vec::new();
    for c in plan.changes.iter().filter(|c| c.action == Action::Replaced) {
        if !out
            .iter()
            .any(|o| o.library == c.library && o.entry.eq_ignore_ascii_case(&c.entry))
        {
            out.push(c);
        }
    }
    out
}

/// The `look.shared_edit` note of `change`, when `users` (other models
/// that show the entry) is not empty.
pub fn shared_edit(change: &Change, users: &[String]) -> Option<Note> {
    if users.is_empty() {
        return None;
    }
    Some(Note {
        code: NoteCode::LookSharedEdit.code(),
        message: format!(
            "{}: {} is edited, and {} other model{} show{} it too: {}",
            change.library,
            change.entry,
            users.len(),
            if users.len() == 1 { "" } else { "s" },
            if users.len() == 1 { "s" } else { "" },
            listing(users)
        ),
    })
}

/// The game folder's models: scanned once, on first use (only a run that
/// replaces an entry needs them).
#[derive(Debug)]
pub struct FolderUsers<'a> {
    dir: &'a Path,
    users: Option<Users>,
}

impl<'a> FolderUsers<'a> {
    /// The models of the game folder `dir`, not scanned yet.
    pub fn new(dir: &'a Path) -> FolderUsers<'a> {
        FolderUsers { dir, users: None }
    }

    /// The folder's models that show `change`'s entry (by the libraries
    /// `base` as they were before the run), but for those at `except`.
    pub fn of(&mut self, change: &Change, base: &Libraries, except: &[WearPlace]) -> Vec<String> {
        let dir = self.dir;
        self.users.get_or_insert_with(|| Users::scan(dir)).of(
            change.library,
            &change.entry,
            &base.materials,
            except,
        )
    }
}

/// `look.shared_edit` for each entry one model's `plan` replaces that other
/// models of the game folder `dir` show (by the libraries `base` before the
/// write), but for the model itself, written at `place`.
pub fn shared_edits(plan: &LookPlan, base: &Libraries, dir: &Path, place: &Place) -> Vec<Note> {
    let mut users = FolderUsers::new(dir);
    let except = [place.wear_place()];
    replaced(plan)
        .into_iter()
        .filter_map(|change| shared_edit(change, &users.of(change, base, &except)))
        .collect()
}

/// `look.shared_edit` for the models of one run (a batch): for each model
/// (its plan, the place of its WEAR and its label), each entry it replaces
/// that the game folder's other models show (but for the run's own, whose
/// WEARs are being replaced) and the run's other models that edit it too.
pub fn shared_edits_of_run(
    dir: &Path,
    base: &Libraries,
    models: &[(&LookPlan, WearPlace, String)],
) -> Vec<Vec<Note>> {
    let mut folder = FolderUsers::new(dir);
    let except: Vec<WearPlace> = models.iter().map(|(_, place, _)| place.clone()).collect();
    let mut all = Vec::with_capacity(models.len());
    for (k, (plan, _, _)) in models.iter().enumerate() {
        let mut notes = Vec::new();
        for change in replaced(plan) {
            let mut users = folder.of(change, base, &except);
            users.extend(
                models
                    .iter()
                    .enumerate()
                    .filter(|&(j, (other, _, _))| {
                        j != k
                            && other.changes.iter().any(|c| {
                                c.library == change.library
                                    && c.entry.eq_ignore_ascii_case(&change.entry)
                            })
                    })
                    .map(|(_, (_, _, label))| label.clone()),
            );
            notes.extend(shared_edit(change, &users));
        }
        all.push(notes);
    }
    all
}

/// `dir` as the user would type it: relative to the current folder when it
/// lies within it, else as it is.
pub fn as_typed(dir: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| std::fs::canonicalize(cwd).ok())
        .and_then(|cwd| dir.strip_prefix(cwd).ok().map(Path::to_path_buf));
    match relative {
        Some(r) if r.as_os_str().is_empty() => ".".to_string(),
        Some(r) => r.display().to_string(),
        None => dir.display().to_string(),
    }
}

/// The `look.not_written` note: the model's look differs from the game
/// folder `dir`'s by `what`, and `advice` says what writes it.
pub fn not_written(dir: &Path, what: &str, advice: &dyn GameDirAdvice) -> Note {
    let typed = as_typed(dir);
    Note {
        code: NoteCode::LookNotWritten.code(),
        message: format!(
            "its look differs from the game folder {typed}'s ({what}) and was not written (no {}); this writes it: {}",
            advice.option(),
            advice.command(&typed)
        ),
    }
}

/// Without any game folder or library to compare with (the service without
/// `--game-dir` or library fields): what of `look` differs from its export,
/// by the export's own record (`extras.msh.exported`): `texture NAME` for a
/// picture whose fingerprint is not the exported one, `material NAME` for a
/// recorded MAT0 entry that is not; `None` when all is as exported or
/// nothing was recorded (an older export, a foreign file).
pub fn edited_since_export(look: &ImportedLook) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for m in look.materials.values() {
        let Some(exported) = &m.exported else {
            continue;
        };
        if let (Some(base), Some(image)) = (&exported.texture, &m.image) {
            let part = format!("texture {}", base.name);
            if fingerprint(&image.pixels) != base.fingerprint && !parts.contains(&part) {
                parts.push(part);
            }
        }
        if let (Some(base), Some(rec)) = (&exported.mat0, &m.mat0) {
            let ours = rec
                .mat0
                .write()
                .map(|d| entry_fingerprint(rec.attr1, rec.mat0.version, &d));
            let part = format!("material {}", rec.name);
            if ours.as_ref().ok() != Some(base) && !parts.contains(&part) {
                parts.push(part);
            }
        }
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The `look.not_written` note of a front end with no game folder at all:
/// the look was edited since the export by `what`
/// ([`edited_since_export`]); `how` says what writes it.
pub fn not_written_since_export(what: &str, how: &str) -> Note {
    Note {
        code: NoteCode::LookNotWritten.code(),
        message: format!(
            "its look was edited since the export ({what}) and was not written (no game folder); {how}"
        ),
    }
}

/// `look.not_written` for one model of a run without a game folder whose
/// outputs lie in the game folder `dir` (its libraries `libs`, read once for
/// the run): when writing `look` (the WEAR at its place `existing_wear`)
/// would change anything.
pub fn not_written_in(
    dir: &Path,
    libs: &Libraries,
    look: &ImportedLook,
    existing_wear: Option<&[u8]>,
    advice: &dyn GameDirAdvice,
) -> Option<Note> {
    let plan = plan(look, libs, existing_wear).ok()?;
    let what = unwritten(&plan, existing_wear, !look.materials.is_empty())?;
    Some(not_written(dir, &what, advice))
}

/// Without a game folder: `look.not_written` when the look of a model
/// written at `place` (read by `look` only when that place lies in a game
/// folder, [`find_game_dir`]) differs from that folder's; nothing when there
/// is none, or the look or the libraries do not read (the note is advice,
/// never a failure).
pub fn look_not_written<L: Borrow<ImportedLook>>(
    place: &Place,
    advice: &dyn GameDirAdvice,
    look: impl FnOnce() -> Option<L>,
) -> Option<Note> {
    let dir = find_game_dir(place.path())?;
    let look = look()?;
    let libs = Libraries::read(&dir).ok()?;
    let existing = place.existing_wear();
    not_written_in(&dir, &libs, look.borrow(), existing.as_deref(), advice)
}

/// [`look_not_written`] of the look the model `input` (in `from`, its
/// files beside it in `resources`) brings: nothing for a format that brings
/// none, or when its look does not read.
pub fn look_not_written_by(
    input: &[u8],
    from: crate::Format,
    resources: &dyn crate::Resources,
    place: &Place,
    advice: &dyn GameDirAdvice,
) -> Option<Note> {
    if !super::brings_look(from) {
        return None;
    }
    look_not_written(place, advice, || {
        super::read_look(input, from, resources)
            .ok()
            .map(|(look, _)| look)
    })
}

impl Place {
    /// The file written: the model file, or the archive.
    pub fn path(&self) -> &Path {
        match self {
            Place::File(output) => output,
            Place::Entry { archive, .. } => archive,
        }
    }

    /// Where the model's WEAR goes: the `.wea` beside a file, the sibling
    /// entry of an archive's entry.
    pub fn wear_place(&self) -> WearPlace {
        match self {
            Place::Entry { archive, name } => WearPlace::of_entry(archive, name),
            Place::File(output) => WearPlace::of_file(&wear_file(output)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_names_eight_and_counts_the_rest() {
        let names: Vec<String> = (1..=10).map(|i| format!("m{i}")).collect();
        assert_eq!(listing(&names[..2]), "m1, m2");
        assert_eq!(listing(&names), "m1, m2, m3, m4, m5, m6, m7, m8 and 2 more");
    }

    #[test]
    fn a_picture_unlike_its_export_record_is_an_edit_and_a_foreign_one_is_not() {
        use mshconv_convert::imported_look::{
            Exported, ImportedImage, ImportedMaterial, TextureBase,
        };
        use mshconv_material::texm::Rgba8Image;
        let picture = |red: u8| Rgba8Image {
            width: 1,
            height: 1,
            pixels: vec![red, 0, 0, 255],
        };
        let material = |exported: Option<Exported>, red: u8| ImportedMaterial {
            name: Some("BODY".into()),
            wear_row: None,
            mat0: None,
            exported,
            image: Some(ImportedImage {
                name: None,
                pixels: picture(red),
                texm: None,
            }),
            base_color: [1.0; 4],
        };
        let record = Some(Exported {
            mat0: None,
            texture: Some(TextureBase {
                name: "TANK_BODY.0".into(),
                fingerprint: fingerprint(&picture(10)),
            }),
        });
        let look = |m: ImportedMaterial| ImportedLook {
            materials: [(0, m)].into_iter().collect(),
            ..ImportedLook::default()
        };
        assert_eq!(
            edited_since_export(&look(material(record.clone(), 10))),
            None
        );
        assert_eq!(
            edited_since_export(&look(material(record, 11))).as_deref(),
            Some("texture TANK_BODY.0")
        );
        // Without a record (an older export, a foreign file): nothing to say.
        assert_eq!(edited_since_export(&look(material(None, 11))), None);
    }
}
