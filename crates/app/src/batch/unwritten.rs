//! `batch --to msh` without `--game-dir` whose outputs lie in a game folder
//! (`look_import::find_game_dir`): each model whose look differs from the
//! folder's gets `look.not_written` with the command that writes it (this
//! one with `--game-dir DIR`).

use super::look::existing_wear;
use super::report::{Record, Status};
use super::{tell_note, Tell};
use crate::look_import::advice::{not_written_in, GameDirAdvice};
use crate::look_import::Libraries;
use std::path::Path;

/// Notes every converted record whose look differs from the game folder
/// `dir`'s (each planned alone against the libraries as they are); the
/// note's command is worded by the front end's `advice`.
pub(super) fn note(
    dir: &Path,
    records: &mut [Record],
    into: Option<&Path>,
    advice: &dyn GameDirAdvice,
    tell: Tell<'_>,
) {
    let Ok(libs) = Libraries::read(dir) else {
        return;
    };
    let archive_bytes = into.and_then(|a| std::fs::read(a).ok());
    let archive = archive_bytes
        .as_deref()
        .and_then(|b| nres::Archive::parse(b).ok());
    for record in records.iter_mut() {
        let Some(look) = record.look.take() else {
            continue;
        };
        if record.status != Status::Converted {
            continue;
        }
        let existing = existing_wear(record, archive.as_ref());
        let Some(note) = not_written_in(dir, &libs, &look, existing.as_deref(), advice) else {
            continue;
        };
        tell_note(&record.input, &note, tell);
        record.notes.push(note);
    }
}
