//! The end of a batch that writes the user's files: with `--game-dir` and
//! `--to msh`, the libraries and the WEARs; with `--into`, the archive. All
//! of it is one transaction ([`crate::txn`]) under the lock of every
//! folder it writes in, taken before the libraries and the archive are read:
//! the libraries that change (textures, then materials, each after its first
//! backup), the `.wea` files beside the models and the `.msh` files whose look
//! came back (each after its WEAR), or the archive with the models and their
//! `.WEA` entries. If any of it fails, nothing is written
//! and every record involved fails with the reason.

use super::into::{fail_records, stage_into, tell_placed};
use super::look::{self, LookWrites};
use super::report::{Record, Status};
use super::{Event, Tell};
use crate::codes::NoteCode;
use crate::look_import::write::{backup_path, library_paths, stage_libraries, wear_file};
use crate::look_import::Library;
use crate::txn::Written;
use crate::{Error, GameDir};
use mshconv_convert::Note;
use std::path::{Path, PathBuf};

/// Brings the looks back (with `game`) and puts the models into `into`.
pub(super) fn write(
    game: Option<&GameDir>,
    records: &mut [Record],
    into: Option<&Path>,
    tell: Tell<'_>,
) {
    let with_look: Vec<usize> = match game {
        Some(_) => (0..records.len())
            .filter(|&i| records[i].look.is_some() && records[i].status == Status::Converted)
            .collect(),
        None => Vec::new(),
    };
    let with_payload: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].payload.is_some())
        .collect();
    let involved: Vec<usize> = {
        let mut v = [with_look.as_slice(), with_payload.as_slice()].concat();
        v.sort_unstable();
        v.dedup();
        v
    };
    if involved.is_empty() {
        return;
    }
    let mut paths: Vec<PathBuf> = Vec::new();
    if let Some(game) = game.filter(|_| !with_look.is_empty()) {
        paths.extend(library_paths(game));
    }
    if let Some(archive) = into {
        paths.push(archive.to_path_buf());
    } else {
        for &i in &with_look {
            if let Some(o) = records[i].output.as_deref() {
                paths.push(wear_file(Path::new(o)));
                paths.push(PathBuf::from(o));
            }
        }
    }
    let lock = match super::files::lock(&paths, tell) {
        Ok(l) => l,
        Err(e) => return fail_records(records, &involved, &e, into.is_some(), tell),
    };
    let look = match game {
        Some(game) => look::bring_back(game, records, into, None, tell),
        None => LookWrites::default(),
    };
    let mut txn = lock.transaction();
    stage_libraries(
        &mut txn,
        look.libraries.iter().map(|(lib, bytes)| (lib, bytes)),
    );
    let mut entries = Vec::new();
    let mut wrote_look = Vec::new();
    for (i, path, name, wear) in look.wears {
        wrote_look.push(i);
        if into.is_some() {
            entries.push((name, wear));
        } else {
            txn.replace_side(path, wear);
        }
    }
    // Without --into, each model whose look came back goes after its WEAR.
    let mut models = Vec::new();
    if into.is_none() {
        for &i in &with_payload {
            if records[i].status != Status::Converted {
                continue;
            }
            if let (Some(output), Some(msh)) = (&records[i].output, records[i].payload.take()) {
                if let Some(parent) = Path::new(output).parent() {
                    if let Err(e) = std::fs::create_dir_all(parent) {
                        let e = Error::io(format!("cannot create {}", parent.display()), &e);
                        let all = [wrote_look.as_slice(), with_payload.as_slice()].concat();
                        return fail_records(records, &all, &e, false, tell);
                    }
                }
                txn.replace(Path::new(output), msh);
                models.push(i);
            }
        }
    }
    let staged = match into {
        Some(archive) => match stage_into(archive, records, entries, tell) {
            Ok(Some(staged)) => {
                txn.replace(archive, staged.bytes.clone());
                Some(staged)
            }
            Ok(None) => None,
            Err(e) => {
                let all = [wrote_look.as_slice(), with_payload.as_slice()].concat();
                return fail_records(records, &all, &e, true, tell);
            }
        },
        None => None,
    };
    match txn.commit() {
        Ok(written) => {
            backup_notes(&written, look.libraries.iter().map(|(lib, _)| lib), tell);
            if let Some(staged) = staged {
                tell_placed(records, staged, tell);
            }
        }
        Err(e) => {
            let mut all = wrote_look;
            all.extend(&models);
            if let Some(staged) = &staged {
                all.extend(&staged.converted);
            }
            all.sort_unstable();
            all.dedup();
            fail_records(records, &all, &e, into.is_some(), tell);
        }
    }
}

/// `look.backup` for each library whose backup `written` made.
pub fn backup_notes<'a>(
    written: &Written,
    libs: impl IntoIterator<Item = &'a Library>,
    tell: Tell<'_>,
) {
    for lib in libs {
        let backup = backup_path(&lib.path);
        if written.wrote(&backup) {
            let note = Note {
                code: NoteCode::LookBackup.code(),
                message: format!("{} saved as {}", lib.path.display(), backup.display()),
            };
            tell(Event::Note {
                about: None,
                note: &note,
            });
        }
    }
}
