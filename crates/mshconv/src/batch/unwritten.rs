//! `batch --to msh` without `--game-dir` whose outputs lie in a game folder
//! (`look_import::find_game_dir`): each model whose look differs from the
//! folder's gets `look.not_written` with the command that writes it (this
//! one with `--game-dir DIR`).

use super::look::existing_wear;
use super::report::{Record, Status};
use crate::out;
use mshconv_app::look_import::advice::not_written_in;
use mshconv_app::look_import::Libraries;
use std::path::Path;

/// Notes every converted record whose look differs from the game folder
/// `dir`'s (each planned alone against the libraries as they are).
pub(super) fn note(dir: &Path, records: &mut [Record], into: Option<&Path>, quiet: bool) {
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
        let Some(note) =
            not_written_in(dir, &libs, &look, existing.as_deref(), &crate::advice::Cli)
        else {
            continue;
        };
        if !quiet {
            out::note_line(note.code, &format!("{}: {}", record.input, note.message));
        }
        record.notes.push(note);
    }
}
