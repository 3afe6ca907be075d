//! A model put into a `.msh` file or an archive's entry, its look
//! (textures, materials, WEAR) into the game folder when one is given: what
//! `mshconv convert IN OUT[:ENTRY] [--game-dir DIR]` writes, as one
//! operation for the Python package's `write_model` and the Blender add-on.
//! It locks the files' folders (finishing an interrupted run found there),
//! plans, and writes everything as one transaction ([`crate::txn`]); a dry
//! run plans the same files into a [`Preview`] and writes nothing. The
//! outcome holds every note and what each file became (or would become):
//! the CLI's warnings too (`archive.entry_loses` for an entry replaced by a
//! model with less, `look.shared_edit` for an edited entry other models
//! show, `look.not_written` for a look left out without a game folder).

use crate::archive::{entry_loses_at, Editor, Placed};
use crate::codes::NoteCode;
use crate::convert::{convert, convert_bringing_look, model_as_msh, model_as_msh_bringing_look};
use crate::error::Error;
use crate::format::Format;
use crate::game::GameDir;
use crate::look_import::advice::{look_not_written, shared_edits, GameDirAdvice};
use crate::look_import::write::{backup_path, stage, Place};
use crate::look_import::{self, change_line, Action, Libraries, LookPlan};
use crate::names::model_name;
use crate::options::Options;
use crate::resources::NoResources;
use crate::txn::{recovered_note, Change, FileChange, Lock, Preview, Stage};
use crate::{Names, Output, OutputFile};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::Report;
use std::path::{Path, PathBuf};

/// One model to put somewhere.
#[derive(Debug, Clone)]
pub struct PutModel<'a> {
    /// The model: an `.msh` (opened strictly, kept byte for byte) or a glTF,
    /// GLB or OBJ (converted).
    pub data: &'a [u8],
    /// The model's format (the front end tells it from the bytes).
    pub from: Format,
    /// Where it goes: a file (its WEAR and clip list beside it), or an
    /// archive's entry (replaced; added only with `add`).
    pub place: Place,
    /// Adds the entry when the archive has none of that name.
    pub add: bool,
    /// The game folder a glTF's or OBJ's look goes into (its libraries, each
    /// backed up the first time, and the model's WEAR).
    pub game_dir: Option<&'a Path>,
    /// How a refusal of a missing entry tells this front end's user to add it.
    pub how_to_add: &'a str,
    /// How `look.not_written` tells this front end's user to give the game
    /// folder.
    pub advice: &'a dyn GameDirAdvice,
    /// Plans only: every file said, none written, nothing locked.
    pub dry_run: bool,
    /// A glTF's original (the model it was exported from), when given; else
    /// the model it replaces (the file, or the archive's entry) is taken
    /// ([`crate::original`]).
    pub original: Option<mshconv_convert::Original>,
}

/// What a put did (or, for a dry run, would do).
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Every note, in order: the conversion's, an interrupted run finished,
    /// the look's, what a replaced entry loses, the edits other models show
    /// (or the look not written), the backups made, the library entries
    /// added or replaced.
    pub report: Report,
    /// Each file written (or that would be), in the order written, with what
    /// it became: new, changed, unchanged, or a library's backup.
    pub files: Vec<FileChange>,
    /// Into an archive: whether the entry was (or would be) replaced or added.
    pub placed: Option<Placed>,
}

/// Puts the model of `request` where it goes (module docs).
pub fn put_model(request: &PutModel<'_>) -> Result<Outcome, Error> {
    let stem = match &request.place {
        Place::Entry { archive, name } => {
            crate::archive::check_model_entry_name(name)?;
            crate::archive::check_not_folder(archive, None)?;
            model_name(name)
        }
        Place::File(path) => model_name(&path.to_string_lossy()),
    };
    let game = match request.game_dir {
        Some(dir) if look_import::brings_look(request.from) => Some(GameDir::open(dir)?),
        _ => None,
    };
    if let Some(game) = &game {
        look_import::check_libraries(game.dir(), false)?;
    }
    // Without a game folder the look is read only to say what it would change.
    let look_unwritten = game.is_none()
        && look_import::brings_look(request.from)
        && look_import::find_game_dir(request.place.path()).is_some();
    let model = Model::of(request, &stem, game.is_some() || look_unwritten)?;
    let mut report = model.report.clone();
    // The libraries and the WEAR are read under the lock they are written under.
    let lock = match request.dry_run {
        true => None,
        false => {
            let paths = match &game {
                Some(game) => {
                    let mut paths = request.place.lock_paths(game);
                    paths.extend(model.side_paths(&request.place));
                    paths
                }
                None => model.paths(&request.place),
            };
            Some(Lock::acquire(&paths, &mut |e| {
                report.notes.extend(recovered_note(e))
            })?)
        }
    };
    let look = match (&game, &model.look) {
        (Some(game), Some((look, notes))) => {
            let libs = Libraries::read(game.dir())?;
            let existing = request.place.existing_wear();
            let plan = look_import::plan(look, &libs, existing.as_deref())?;
            report.notes.extend(notes.notes.iter().cloned());
            report.notes.extend(plan.report.notes.iter().cloned());
            Some((libs, plan))
        }
        _ => None,
    };
    let look = look.as_ref().map(|(libs, plan)| (libs, plan));
    if let Place::Entry { archive, name } = &request.place {
        report
            .notes
            .extend(entry_loses_at(archive, name, &model.msh));
    }
    match (&game, look) {
        (Some(game), Some((libs, plan))) => {
            report
                .notes
                .extend(shared_edits(plan, libs, game.dir(), &request.place));
        }
        _ => report
            .notes
            .extend(look_not_written(&request.place, request.advice, || {
                model.look.as_ref().map(|(look, _)| look)
            })),
    }
    let (files, placed) = match &lock {
        None => {
            let mut preview = Preview::new();
            let placed = model.stage(&mut preview, request, look)?;
            (preview.into_files(), placed)
        }
        Some(lock) => {
            let mut txn = lock.transaction();
            let placed = model.stage(&mut txn, request, look)?;
            let files = txn.changes();
            let written = txn.commit()?;
            let files = files
                .into_iter()
                .filter(|f| written.wrote(&f.path))
                .collect();
            (files, placed)
        }
    };
    if let Some((libs, plan)) = look {
        for lib in [&libs.textures, &libs.materials] {
            let backup = backup_path(&lib.path);
            let made = files
                .iter()
                .any(|f| f.change == Change::Backup && f.path == backup);
            if made && !request.dry_run {
                report.note(
                    NoteCode::LookBackup.code(),
                    format!("{} saved as {}", lib.path.display(), backup.display()),
                );
            }
        }
        for c in plan.changes.iter().filter(|c| c.action != Action::Reused) {
            report.note(NoteCode::LookEntry.code(), change_line(c));
        }
    }
    Ok(Outcome {
        report,
        files,
        placed,
    })
}

/// The model as MSH, the files beside it and the look it brings back.
#[derive(Debug)]
struct Model {
    msh: Vec<u8>,
    /// The files a conversion writes beside a model file (its clip list).
    side: Vec<OutputFile>,
    report: Report,
    /// With a game folder: the look and the notes of reading it.
    look: Option<(ImportedLook, Report)>,
}

impl Model {
    /// The model of `request` named `stem`; with `look`, its look too (from
    /// the same parse).
    fn of(request: &PutModel<'_>, stem: &str, look: bool) -> Result<Model, Error> {
        let (data, from) = (request.data, request.from);
        let names = Names::same(stem);
        let options = Options {
            original: request.original.clone(),
            ..Options::default()
        }
        .or_original(|| match &request.place {
            _ if from == Format::Msh => None,
            Place::File(path) => crate::original::replaced_file(path),
            Place::Entry { archive, name } => crate::original::replaced_entry(archive, name),
        });
        let model = |(msh, report): (Vec<u8>, Report)| Model {
            msh,
            side: Vec::new(),
            report,
            look: None,
        };
        let into_file = matches!(request.place, Place::File(_));
        if from == Format::Msh {
            return Ok(model(model_as_msh(
                data,
                from,
                &options,
                &names,
                &NoResources,
            )?));
        }
        match (into_file, look) {
            (false, false) => Ok(model(model_as_msh(
                data,
                from,
                &options,
                &names,
                &NoResources,
            )?)),
            (false, true) => {
                let (msh, report, look, notes) =
                    model_as_msh_bringing_look(data, from, &options, &names, &NoResources)?;
                Ok(Model {
                    look: Some((look, notes)),
                    ..model((msh, report))
                })
            }
            (true, false) => Ok(Model::of_file(convert(
                data,
                (from, Format::Msh),
                &options,
                &names,
                &NoResources,
            )?)),
            (true, true) => {
                let (output, look, notes) =
                    convert_bringing_look(data, from, &options, &names, &NoResources)?;
                Ok(Model {
                    look: Some((look, notes)),
                    ..Model::of_file(output)
                })
            }
        }
    }

    /// A conversion's files: the model first, then what goes beside it.
    fn of_file(output: Output) -> Model {
        let mut files = output.files.into_iter();
        let msh = files.next().map(|f| f.bytes).unwrap_or_default();
        Model {
            msh,
            side: files.collect(),
            report: output.report,
            look: None,
        }
    }

    /// Where the files beside a model file go.
    fn side_paths(&self, place: &Place) -> Vec<PathBuf> {
        match place {
            Place::File(output) => self
                .side
                .iter()
                .map(|f| output.with_file_name(&f.name))
                .collect(),
            Place::Entry { .. } => Vec::new(),
        }
    }

    /// Every file the model alone writes (for its lock).
    fn paths(&self, place: &Place) -> Vec<PathBuf> {
        let mut paths = self.side_paths(place);
        paths.push(match place {
            Place::File(output) => output.clone(),
            Place::Entry { archive, .. } => archive.clone(),
        });
        paths
    }

    /// Adds the model's files to `txn`: the files beside a model file, then
    /// with a look its libraries, WEAR and the model, else the model alone
    /// (into an archive, the archive with the entry put).
    fn stage(
        &self,
        txn: &mut impl Stage,
        request: &PutModel<'_>,
        look: Option<(&Libraries, &LookPlan)>,
    ) -> Result<Option<Placed>, Error> {
        for (path, file) in self.side_paths(&request.place).into_iter().zip(&self.side) {
            txn.replace(path, file.bytes.clone());
        }
        let put = |editor: &mut Editor, name: &str, msh: Vec<u8>| {
            editor.put_model(name, msh, request.add, request.how_to_add)
        };
        if let Some((libs, plan)) = look {
            return stage(txn, plan, libs, &request.place, self.msh.clone(), put);
        }
        match &request.place {
            Place::File(output) => {
                txn.replace(output.clone(), self.msh.clone());
                Ok(None)
            }
            Place::Entry { archive, name } => {
                let bytes = std::fs::read(archive).map_err(|e| Error::io(archive.display(), &e))?;
                let mut editor = Editor::open(&bytes)
                    .map_err(|e| e.context(format!("archive {}", archive.display())))?;
                let placed = put(&mut editor, name, self.msh.clone())?;
                txn.replace(archive.clone(), editor.write()?);
                Ok(Some(placed))
            }
        }
    }
}
