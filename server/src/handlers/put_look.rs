//! The look of a model put into an archive (`POST /v1/archive/put`), as
//! `mshconv convert edited.glb units.rlb:TANK.MSH --game-dir DIR` carries it
//! (docs/MATERIALS.md, "The way back"): a glTF's or OBJ's materials and
//! images become the model's WEAR (its `.WEA` sibling entry, put into the
//! archive with the model) and the entries of `Material.lib` and
//! `Textures.lib` it uses, reused, replaced or added. The application layer
//! reads and plans it (`mshconv_app::look_import::read_look`, `::plan`);
//! this module finds the libraries and names what changed.
//!
//! The libraries are the upload's fields `materials` and `textures`, else
//! the `--game-dir` folder's (read for the request; the service never writes
//! into its folder: the changed libraries go into the answer). Without
//! either, or for an `.msh` (it has no look to bring back), nothing of the
//! look is written and the answer is what it always was, but for
//! `look.not_written` when the look was edited since its export (the
//! export's own record says so: [`not_written`]). Before the folder's
//! libraries are read, an interrupted write there is finished (its notes go
//! into the answer's).

use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::game::LookFields;
use mshconv_app::game::{wear_sibling, MATERIAL_LIB, TEXTURES_LIB};
use mshconv_app::look_import::{self, Action, Libraries, Library, LookPlan};
use mshconv_app::txn::recover_before_reading;
use mshconv_app::{ErrorCode, Format, GameDir};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::{Note, Report};
use std::path::{Path, PathBuf};

/// The libraries the look of a model of format `from` goes into: each given
/// field, else the folder's file (none there: 400 `game_dir.no_libraries`,
/// as the CLI refuses it), or `None` when
/// there is no look to carry (an `.msh`, or neither a folder nor a field).
/// The fields on an `.msh` are refused (400 `request.multipart`). The notes
/// of an interrupted write in the folder, finished before it is read, come
/// with them.
pub fn libraries(
    from: Format,
    folder: Option<&GameDir>,
    fields: &LookFields,
) -> Result<(Option<Libraries>, Vec<Note>), ApiError> {
    let given = fields.materials.is_some() || fields.textures.is_some();
    if !look_import::brings_look(from) {
        if given {
            return Err(ApiError::bad_request(
                ServerCode::RequestMultipart,
                "the fields materials and textures take the look of a glb, gltf or obj back into the game's libraries; an .msh has no look to bring back",
            ));
        }
        return Ok((None, Vec::new()));
    }
    if !given && folder.is_none() {
        return Ok((None, Vec::new()));
    }
    let dir = folder.map(GameDir::dir);
    let recovered = match dir {
        Some(dir) if fields.materials.is_none() || fields.textures.is_none() => {
            recover_before_reading(dir)?
        }
        _ => Vec::new(),
    };
    let library = |field: &Option<bytes::Bytes>, name: &str| -> Result<Library, ApiError> {
        match (field, dir) {
            (Some(bytes), _) => Ok(Library {
                path: PathBuf::from(name),
                bytes: Some(bytes.to_vec()),
            }),
            (None, Some(dir)) => match Library::read(dir, name)? {
                // As the CLI refuses it: most likely the wrong folder.
                Library { bytes: None, .. } => Err(no_library(dir, name)),
                found => Ok(found),
            },
            (None, None) => Ok(Library {
                path: PathBuf::from(name),
                bytes: None,
            }),
        }
    };
    let libs = Libraries {
        materials: library(&fields.materials, MATERIAL_LIB)?,
        textures: library(&fields.textures, TEXTURES_LIB)?,
    };
    Ok((Some(libs), recovered))
}

/// 400 `game_dir.no_libraries`: the `--game-dir` folder lacks the library
/// `name` the look goes into (`mshconv convert ... --game-dir` refuses it too).
fn no_library(dir: &Path, name: &str) -> ApiError {
    mshconv_app::Error::usage(
        ErrorCode::GameDirNoLibraries,
        format!(
            "the game folder {} has no {name}: the look cannot go back into it; start the service with --game-dir naming the folder that holds the game's Material.lib and Textures.lib, or send the library as the field {}",
            dir.display(),
            if name == MATERIAL_LIB { "materials" } else { "textures" },
        ),
    )
    .into()
}

/// The plan of the `look` an upload brought back (read with its `notes`
/// from the same parse as the model) put into `archive` as `entry` (whose
/// `.WEA` sibling, if any, is the WEAR it starts from): its notes, and one
/// `look.entry` note per library entry added or replaced, appended to
/// `report` after the conversion's.
pub fn plan(
    look: &ImportedLook,
    mut notes: Report,
    libs: &Libraries,
    archive: &[u8],
    entry: &str,
    report: &mut Report,
) -> Result<LookPlan, ApiError> {
    let existing = nres::Archive::parse(archive)
        .ok()
        .and_then(|a| wear_sibling(&a, entry))
        .map(|(_, data)| data);
    let mut plan = look_import::plan(look, libs, existing.as_deref())?;
    report.notes.append(&mut notes.notes);
    report.notes.append(&mut plan.report.notes);
    for c in plan.changes.iter().filter(|c| c.action != Action::Reused) {
        report.note(
            mshconv_app::NoteCode::LookEntry.code(),
            look_import::change_line(c),
        );
    }
    Ok(plan)
}

/// `look.shared_edit` for each entry `plan` replaces that other models of
/// the game folder `dir` show (as the CLI says it), the model itself (the
/// folder's `archive_name`:`entry`, when it is there) left out. Only for
/// libraries read from the folder: `None` when a field gave one.
pub fn shared_edits(
    plan: &LookPlan,
    libs: &Libraries,
    dir: Option<&Path>,
    archive_name: &str,
    entry: &str,
) -> Vec<Note> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    let place = look_import::write::Place::Entry {
        archive: dir.join(archive_name),
        name: entry.to_string(),
    };
    look_import::advice::shared_edits(plan, libs, dir, &place)
}

/// The libraries that changed, as files of the answer (the file name the
/// folder spells, else the canonical one), `Textures.lib` first: the order
/// in which the game stays consistent when they are copied back.
pub fn changed_libraries(plan: &LookPlan, libs: &Libraries) -> Vec<(String, Vec<u8>)> {
    [
        (&libs.textures, &plan.textures_lib),
        (&libs.materials, &plan.materials_lib),
    ]
    .into_iter()
    .filter_map(|(lib, bytes)| Some((file_name(&lib.path), bytes.clone()?)))
    .collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `look.not_written` for a look brought back without libraries (no
/// `--game-dir`, no fields) that was edited since its export, by the export's
/// own record (`mshconv_app::look_import::advice::edited_since_export`).
pub fn not_written(look: &ImportedLook) -> Option<Note> {
    let what = look_import::advice::edited_since_export(look)?;
    Some(look_import::advice::not_written_since_export(
        &what,
        "send the game's Material.lib and Textures.lib with the upload (fields materials and textures), or start the service with --game-dir DIR",
    ))
}
