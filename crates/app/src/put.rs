//! A model put into a `.msh` file or an archive's entry, its look
//! (textures, materials, WEAR) into the game folder when one is given: what
//! `mshconv convert IN OUT[:ENTRY] [--game-dir DIR]` writes, as one
//! operation for the CLI, the Python package's `write_model` and the Blender
//! add-on ([`put_model_telling`] tells the notes, a lock's wait and an
//! interrupted run finished as they happen, for a front end that prints them).
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
use crate::look_import::write::{backup_path, stage, would_write_library, Place};
use crate::look_import::{self, change_line, Action, Libraries, LookPlan};
use crate::names::model_name;
use crate::options::Options;
use crate::resources::{NoResources, Resources};
use crate::txn::{recovered_note, Change, FileChange, Lock, Preview, Stage};
use crate::{Names, Output, OutputFile};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::{Note, Report};
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
    /// Every note, in order: an interrupted run finished, the conversion's,
    /// the look's, what a replaced entry loses, the edits other models show
    /// (or the look not written), the backups made, the library entries
    /// added or replaced.
    pub report: Report,
    /// Each file written (or that would be), in the order written, with what
    /// it became: new, changed, unchanged, or a library's backup.
    pub files: Vec<FileChange>,
    /// Into an archive: whether the entry was (or would be) replaced or added.
    pub placed: Option<Placed>,
    /// A dry run: what it would write, for a front end to list.
    pub listing: Option<Listing>,
}

/// What a dry run would write, as data a front end formats.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// One line per library that would change (`would write Textures.lib
    /// (N bytes), after a backup to ...`).
    pub libraries: Vec<String>,
    /// The size of the WEAR written with the look (none without a look).
    pub wear_bytes: Option<usize>,
    /// The size of the model.
    pub model_bytes: usize,
    /// One line per library entry the look adds, replaces or reuses.
    pub changes: Vec<String>,
}

/// What a put tells as it happens, in order (a front end prints it as it
/// comes; every note is in the outcome's report too).
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A lock's wait, or an interrupted run finished.
    Lock(crate::txn::Event<'a>),
    /// A note.
    Note(&'a Note),
}

/// How the model of a put is converted: a front end's options, names and
/// the files a glTF or OBJ names beside it.
#[derive(Clone, Copy)]
pub struct Source<'a> {
    /// The conversion's options.
    pub options: &'a Options,
    /// The model's and files' names (none: the place's name for both).
    pub names: Option<&'a Names>,
    /// The files a glTF's buffers and images or an OBJ's `.mtl` name.
    pub resources: &'a dyn Resources,
    /// Makes empty `Textures.lib` and `Material.lib` when the game folder has none.
    pub new_libraries: bool,
}

/// Puts the model of `request` where it goes (module docs), with the
/// default options and no files beside the model; the outcome holds every note.
pub fn put_model(request: &PutModel<'_>) -> Result<Outcome, Error> {
    let options = Options::default();
    let source = Source {
        options: &options,
        names: None,
        resources: &NoResources,
        new_libraries: false,
    };
    put_model_telling(request, &source, &mut |_| {})
}

/// Whether the put rule lets the model go into `place`: for an archive's
/// entry, replace or add (only with `add`; else `archive.no_such_entry` with
/// the closest names), from the archive's directory read after an
/// interrupted run there is finished (told through `events`).
pub fn check_place(
    place: &Place,
    add: bool,
    how_to_add: &str,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<Option<Placed>, Error> {
    let Place::Entry { archive, name } = place else {
        return Ok(None);
    };
    crate::archive::check_model_entry_name(name)?;
    crate::archive::check_not_folder(archive, None)?;
    crate::txn::recover_pending(crate::txn::folder_of(archive), &mut |e| {
        events(Event::Lock(e))
    })?;
    let directory = crate::batch::files::read_archive_directory(archive, &|_| {})?;
    let what = format!("archive {}", archive.display());
    crate::archive::placement(&directory, name, add, &what, how_to_add).map(Some)
}

/// The notes of a put, kept and told as they come.
struct Told<'e> {
    report: Report,
    events: &'e mut dyn FnMut(Event<'_>),
}

impl Told<'_> {
    fn notes(&mut self, notes: impl IntoIterator<Item = Note>) {
        for note in notes {
            (self.events)(Event::Note(&note));
            self.report.notes.push(note);
        }
    }

    fn lock(&mut self, event: crate::txn::Event<'_>) {
        (self.events)(Event::Lock(event));
        self.report.notes.extend(recovered_note(event));
    }
}

/// [`put_model`] converting with `source`, telling each lock's wait, each
/// interrupted run finished and each note through `events` as it happens.
pub fn put_model_telling(
    request: &PutModel<'_>,
    source: &Source<'_>,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<Outcome, Error> {
    let mut told = Told {
        report: Report::default(),
        events,
    };
    let stem = match &request.place {
        Place::Entry { name, .. } => {
            check_place(&request.place, request.add, request.how_to_add, &mut |e| {
                if let Event::Lock(e) = e {
                    told.lock(e)
                }
            })?;
            model_name(name)
        }
        Place::File(path) => model_name(&path.to_string_lossy()),
    };
    let game = match request.game_dir {
        Some(dir) if look_import::brings_look(request.from) => Some(GameDir::open(dir)?),
        _ => None,
    };
    if let Some(game) = &game {
        look_import::check_libraries(game.dir(), source.new_libraries)?;
    }
    // Without a game folder the look is read only to say what it would change.
    let look_unwritten = game.is_none()
        && look_import::brings_look(request.from)
        && look_import::find_game_dir(request.place.path()).is_some();
    let model = Model::of(request, source, &stem, game.is_some() || look_unwritten)?;
    let entry_loses = |model: &Model| match &request.place {
        Place::Entry { archive, name } => entry_loses_at(archive, name, &model.msh),
        Place::File(_) => None,
    };
    // The libraries and the WEAR are read under the lock they are written
    // under; the model alone is locked once its notes are told.
    let mut lock = None;
    let look = match (&game, &model.look) {
        (Some(game), Some((look, notes))) => {
            if !request.dry_run {
                let mut paths = request.place.lock_paths(game);
                paths.extend(model.side_paths(&request.place));
                lock = Some(Lock::acquire(&paths, &mut |e| told.lock(e))?);
            }
            let libs = Libraries::read(game.dir())?;
            let existing = request.place.existing_wear();
            let plan = look_import::plan(look, &libs, existing.as_deref())?;
            told.notes(model.report.notes.iter().cloned());
            told.notes(notes.notes.iter().cloned());
            told.notes(plan.report.notes.iter().cloned());
            told.notes(entry_loses(&model));
            told.notes(shared_edits(&plan, &libs, game.dir(), &request.place));
            Some((libs, plan))
        }
        _ => {
            told.notes(model.report.notes.iter().cloned());
            told.notes(entry_loses(&model));
            told.notes(look_not_written(&request.place, request.advice, || {
                model.look.as_ref().map(|(look, _)| look)
            }));
            if !request.dry_run {
                let paths = model.paths(&request.place);
                lock = Some(Lock::acquire(&paths, &mut |e| told.lock(e))?);
            }
            None
        }
    };
    let look = look.as_ref().map(|(libs, plan)| (libs, plan));
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
    drop(lock);
    if let Some((libs, plan)) = look {
        for lib in [&libs.textures, &libs.materials] {
            let backup = backup_path(&lib.path);
            let made = files
                .iter()
                .any(|f| f.change == Change::Backup && f.path == backup);
            if made && !request.dry_run {
                told.notes([Note {
                    code: NoteCode::LookBackup.code(),
                    message: format!("{} saved as {}", lib.path.display(), backup.display()),
                }]);
            }
        }
        told.notes(
            plan.changes
                .iter()
                .filter(|c| c.action != Action::Reused)
                .map(|c| Note {
                    code: NoteCode::LookEntry.code(),
                    message: change_line(c),
                }),
        );
    }
    let listing = request.dry_run.then(|| Listing {
        libraries: look
            .iter()
            .flat_map(|(libs, plan)| {
                [
                    (&libs.textures, &plan.textures_lib),
                    (&libs.materials, &plan.materials_lib),
                ]
            })
            .filter_map(|(lib, bytes)| bytes.as_ref().map(|b| would_write_library(lib, b)))
            .collect(),
        wear_bytes: look.map(|(_, plan)| plan.wear.len()),
        model_bytes: model.msh.len(),
        changes: look
            .iter()
            .flat_map(|(_, plan)| plan.changes.iter().map(change_line))
            .collect(),
    });
    Ok(Outcome {
        report: told.report,
        files,
        placed,
        listing,
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
    fn of(
        request: &PutModel<'_>,
        source: &Source<'_>,
        stem: &str,
        look: bool,
    ) -> Result<Model, Error> {
        let (data, from) = (request.data, request.from);
        let same = Names::same(stem);
        let names = source.names.unwrap_or(&same);
        let resources = source.resources;
        let mut options = source.options.clone();
        if request.original.is_some() {
            options.original = request.original.clone();
        }
        let options = &options.or_original(|| match &request.place {
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
            return Ok(model(model_as_msh(data, from, options, names, resources)?));
        }
        match (into_file, look) {
            (false, false) => Ok(model(model_as_msh(data, from, options, names, resources)?)),
            (false, true) => {
                let (msh, report, look, notes) =
                    model_as_msh_bringing_look(data, from, options, names, resources)?;
                Ok(Model {
                    look: Some((look, notes)),
                    ..model((msh, report))
                })
            }
            (true, false) => Ok(Model::of_file(convert(
                data,
                (from, Format::Msh),
                options,
                names,
                resources,
            )?)),
            (true, true) => {
                let (output, look, notes) =
                    convert_bringing_look(data, from, options, names, resources)?;
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
