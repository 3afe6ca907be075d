//! `batch --to msh --game-dir DIR`: each model's look goes back into the
//! game's data, as `convert` does it (docs/MATERIALS.md, "The way back").
//!
//! The looks are read by the workers (images decoded in parallel); planning
//! is one model after another on the main thread, in the report's order,
//! each against the libraries as the models before it left them, so two
//! models that bring the same new texture add it once. Each changed library
//! is written once at the end (after its first backup), then the WEARs: a
//! `.wea` beside each `.msh`, or with `--into` the `.WEA` entries, put into
//! the archive in the same replacement as the models.

use super::report::{Record, Status};
use crate::look_out::{self, wear_file, write_library};
use crate::out;
use mshconv_app::game::{wear_name, wear_sibling};
use mshconv_app::look_import::{self, Action, Libraries};
use mshconv_app::GameDir;
use std::path::{Path, PathBuf};

/// Fails a record whose look could not be brought back.
fn fail(record: &mut Record, code: &str, message: String) {
    record.status = Status::Failed;
    record.code = Some(code.to_string());
    record.message = Some(message);
    record.payload = None;
    record.notes.clear();
    out::error_line(
        code,
        &format!(
            "{}: {}",
            record.input,
            record.message.as_deref().unwrap_or("")
        ),
    );
}

/// The entry a record's model goes to with `--into` (`ARCHIVE:ENTRY`).
fn entry_of(record: &Record) -> Option<String> {
    record
        .output
        .as_deref()
        .and_then(|o| o.rsplit_once(':'))
        .map(|(_, e)| e.to_string())
}

/// Brings back the look of every converted record that read one; returns the
/// WEAR entries to put with the models when `into` is given (else the WEARs
/// are written beside the `.msh` files).
pub(super) fn bring_back(
    game: &GameDir,
    records: &mut [Record],
    into: Option<&Path>,
    quiet: bool,
) -> Vec<(String, Vec<u8>)> {
    let with_look: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].look.is_some() && records[i].status == Status::Converted)
        .collect();
    if with_look.is_empty() {
        return Vec::new();
    }
    let original = match Libraries::read(game.dir()) {
        Ok(l) => l,
        Err(e) => {
            for &i in &with_look {
                fail(&mut records[i], e.code(), e.message().to_string());
            }
            return Vec::new();
        }
    };
    let archive_bytes = into.and_then(|a| std::fs::read(a).ok());
    let archive = archive_bytes
        .as_deref()
        .and_then(|b| nres::Archive::parse(b).ok());
    let mut libs = original.clone();
    let mut wears: Vec<(usize, PathBuf, String, Vec<u8>)> = Vec::new();
    for &i in &with_look {
        let record = &mut records[i];
        let Some(look) = record.look.take() else {
            continue;
        };
        let entry = entry_of(record);
        let existing = match (&archive, &entry) {
            (Some(a), Some(e)) => wear_sibling(a, e).map(|(_, data)| data),
            _ => record
                .output
                .as_deref()
                .and_then(|o| std::fs::read(wear_file(Path::new(o))).ok()),
        };
        match look_import::plan(&look, &libs, existing.as_deref()) {
            Ok(plan) => {
                if let Some(b) = plan.materials_lib {
                    libs.materials.bytes = Some(b);
                }
                if let Some(b) = plan.textures_lib {
                    libs.textures.bytes = Some(b);
                }
                let mut notes = plan.report.notes;
                for c in plan.changes.iter().filter(|c| c.action != Action::Reused) {
                    notes.push(mshconv_convert::Note {
                        code: "look.entry",
                        message: look_out::change_line(c),
                    });
                }
                if !quiet {
                    for note in &notes {
                        out::note_line(note.code, &format!("{}: {}", record.input, note.message));
                    }
                }
                record.notes.extend(notes);
                let path = record
                    .output
                    .as_deref()
                    .map(|o| wear_file(Path::new(o)))
                    .unwrap_or_default();
                let name = entry.map(|e| wear_name(&e)).unwrap_or_default();
                wears.push((i, path, name, plan.wear));
            }
            Err(e) => fail(
                record,
                e.code(),
                format!(
                    "{}{}",
                    if into.is_none() {
                        "the model was written, its look was not: "
                    } else {
                        ""
                    },
                    e.message()
                ),
            ),
        }
    }
    // The libraries, each once; then the WEARs.
    for (lib, now) in [
        (&original.materials, &libs.materials.bytes),
        (&original.textures, &libs.textures.bytes),
    ] {
        let Some(now) = now else { continue };
        if lib.bytes.as_ref() == Some(now) {
            continue;
        }
        if let Err(e) = write_library(lib, now, quiet) {
            let message = format!("{}: {e:#}", lib.path.display());
            for &(i, ..) in &wears {
                fail(&mut records[i], "io.write", message.clone());
            }
            return Vec::new();
        }
    }
    let mut entries = Vec::new();
    for (i, path, name, wear) in wears {
        if into.is_some() {
            entries.push((name, wear));
        } else if let Err(e) = crate::fs::write_atomically(&path, &wear) {
            fail(
                &mut records[i],
                "io.write",
                format!("{}: {e:#}", path.display()),
            );
        }
    }
    entries
}
