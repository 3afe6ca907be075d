//! `batch --to msh --game-dir DIR`: each model's look goes back into the
//! game's data, as `convert` does it (docs/MATERIALS.md, "The way back").
//!
//! The looks are read by the workers (images decoded in parallel); planning
//! is one model after another on the main thread, in the report's order,
//! each against the libraries as the models before it left them, so two
//! models that bring the same new texture add it once. `batch::write` then
//! writes each changed library once (after its first backup; textures before
//! materials), then the WEARs: a `.wea` beside each `.msh`, or with `--into`
//! the `.WEA` entries, put into the archive in the same replacement as the
//! models; all of it one transaction.

use super::report::{Record, Status};
use crate::look_out::{self, wear_file};
use crate::out;
use mshconv_app::game::{wear_name, wear_sibling};
use mshconv_app::look_import::{self, Action, Libraries, Library};
use mshconv_app::GameDir;
use std::path::{Path, PathBuf};

/// Fails a record whose look could not be brought back.
pub(super) fn fail(record: &mut Record, code: &str, message: String) {
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

/// What bringing the looks back writes (`batch::write` writes it).
#[derive(Debug, Default)]
pub(super) struct LookWrites {
    /// The libraries that change, textures first, with their new bytes.
    pub libraries: Vec<(Library, Vec<u8>)>,
    /// The WEARs: the record's index, the `.wea` beside its `.msh`, the
    /// `.WEA` entry's name with `--into`, the WEAR.
    pub wears: Vec<(usize, PathBuf, String, Vec<u8>)>,
}

/// Brings back the look of every converted record that read one (planned
/// against the libraries and the archive as they are now: the caller holds
/// their lock); returns what to write.
pub(super) fn bring_back(
    game: &GameDir,
    records: &mut [Record],
    into: Option<&Path>,
    quiet: bool,
) -> LookWrites {
    let with_look: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].look.is_some() && records[i].status == Status::Converted)
        .collect();
    if with_look.is_empty() {
        return LookWrites::default();
    }
    let original = match Libraries::read(game.dir()) {
        Ok(l) => l,
        Err(e) => {
            for &i in &with_look {
                fail(&mut records[i], e.code(), e.message().to_string());
            }
            return LookWrites::default();
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
    // The libraries that changed, each once, textures first: written with
    // the WEARs as one transaction by batch::write.
    let mut libraries = Vec::new();
    for (lib, now) in [
        (&original.textures, libs.textures.bytes),
        (&original.materials, libs.materials.bytes),
    ] {
        match now {
            Some(now) if lib.bytes.as_ref() != Some(&now) => libraries.push((lib.clone(), now)),
            _ => {}
        }
    }
    LookWrites { libraries, wears }
}
