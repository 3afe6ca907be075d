//! `mshconv.write_model`: a model written to a `.msh` file or an archive
//! entry, its look (textures, materials, WEAR) into the game folder when one
//! is given: what `mshconv convert IN OUT[:ENTRY] --game-dir DIR` writes,
//! through the application layer's plan (`look_import::plan`) and
//! transaction (`look_import::write::stage`, backups of the libraries).

use crate::archive::HOW_TO_ADD;
use crate::convert::{input_format, Note};
use crate::error;
use mshconv_app::archive::check_model_entry_name;
use mshconv_app::look_import::write::{backup_path, stage, Place};
use mshconv_app::look_import::{self, brings_look, change_line, read_look, Action, Libraries};
use mshconv_app::txn::Lock;
use mshconv_app::{Error, GameDir, Names, NoResources, Options};
use mshconv_convert::Report;
use pyo3::prelude::*;
use std::path::PathBuf;

/// The notes of a report.
fn notes_of(report: &Report) -> Vec<Note> {
    report
        .notes
        .iter()
        .map(|n| Note {
            code: n.code.to_string(),
            message: n.message.clone(),
        })
        .collect()
}

/// A file or entry name's stem, the model's name.
fn stem_of(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.rsplit_once('.').map_or(base, |(s, _)| s).to_string()
}

/// Writes the model `data` (an `.msh`, kept byte for byte, or a glTF/GLB/OBJ,
/// converted) to `path`, or into its archive entry `entry` (replacing it;
/// adding it only with `add`). With `game_dir`, a glTF's or OBJ's look goes
/// into the game folder's libraries (each backed up the first time,
/// `Textures.lib.bak`) and the model's WEAR, all in one transaction with the
/// model. Returns the notes (the CLI's `note[...]` lines).
#[pyfunction]
#[pyo3(signature = (data, path, *, entry=None, add=false, game_dir=None))]
pub fn write_model(
    py: Python<'_>,
    data: &[u8],
    path: PathBuf,
    entry: Option<String>,
    add: bool,
    game_dir: Option<PathBuf>,
) -> PyResult<Vec<Note>> {
    error::run(py, || {
        let from = input_format(data, None)?;
        let (place, stem) = match entry {
            Some(name) => {
                check_model_entry_name(&name)?;
                mshconv_app::archive::check_not_folder(&path, None)?;
                let stem = stem_of(&name);
                (
                    Place::Entry {
                        archive: path,
                        name,
                    },
                    stem,
                )
            }
            None => {
                let stem = stem_of(&path.to_string_lossy());
                (Place::File(path), stem)
            }
        };
        let (msh, report) = mshconv_app::model_as_msh(
            data,
            from,
            &Options::default(),
            &Names::same(&stem),
            &NoResources,
        )?;
        let mut notes = notes_of(&report);
        let game = match game_dir {
            Some(dir) if brings_look(from) => Some(GameDir::open(&dir)?),
            _ => None,
        };
        let Some(game) = game else {
            write_alone(&place, msh, add)?;
            return Ok(notes);
        };
        look_import::check_libraries(game.dir(), false)?;
        let lock = Lock::acquire(&place.lock_paths(&game), &mut |_| {})?;
        let (look, read_notes) = read_look(data, from, &NoResources)?;
        let libs = Libraries::read(game.dir())?;
        let plan = look_import::plan(&look, &libs, place.existing_wear().as_deref())?;
        let mut txn = lock.transaction();
        stage(&mut txn, &plan, &libs, &place, msh, |editor, name, msh| {
            editor.put_model(name, msh, add, HOW_TO_ADD)
        })?;
        let written = txn.commit()?;
        notes.extend(notes_of(&read_notes));
        notes.extend(notes_of(&plan.report));
        for lib in [&libs.textures, &libs.materials] {
            let backup = backup_path(&lib.path);
            if written.wrote(&backup) {
                notes.push(Note {
                    code: mshconv_app::NoteCode::LookBackup.code().into(),
                    message: format!("{} saved as {}", lib.path.display(), backup.display()),
                });
            }
        }
        for c in plan.changes.iter().filter(|c| c.action != Action::Reused) {
            notes.push(Note {
                code: mshconv_app::NoteCode::LookEntry.code().into(),
                message: change_line(c),
            });
        }
        Ok(notes)
    })
}

/// The model alone at `place`, under the folder's lock, as one transaction.
fn write_alone(place: &Place, msh: Vec<u8>, add: bool) -> Result<(), Error> {
    match place {
        Place::File(output) => {
            let lock = Lock::acquire(std::slice::from_ref(output), &mut |_| {})?;
            let mut txn = lock.transaction();
            txn.replace(output, msh);
            txn.commit()?;
        }
        Place::Entry { archive, name } => {
            crate::archive::edit(archive, |editor| {
                editor.put_model(name, msh, add, HOW_TO_ADD)
            })?;
        }
    }
    Ok(())
}
