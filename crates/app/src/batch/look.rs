//! `batch --to msh --game-dir DIR`: each model's look goes back into the
//! game's data, as `convert` does it (docs/MATERIALS.md, "The way back").
//!
//! The looks are read by the workers (images decoded in parallel); planning
//! is one model after another on the main thread, in the report's order,
//! each against the libraries as the models before it left them, so two
//! models that bring the same new texture add it once; whether a model edits
//! an entry is decided against the libraries before the run
//! (`look_import::plan_in_run`), so an unedited model never undoes another's
//! edit, and two different edits of one entry refuse the run. An edit other
//! models show is noted (`look.shared_edit`). `batch::write` then writes
//! each changed library once (after its first backup; textures before
//! materials), then the WEARs: a `.wea` beside each `.msh`, or with `--into`
//! the `.WEA` entries, put into the archive in the same replacement as the
//! models; all of it one transaction.

use super::report::{Record, Status};
use super::{tell_note, Event, Tell};
use crate::codes::{ErrorCode, NoteCode};
use crate::game::{wear_name, wear_sibling};
use crate::look_import::advice;
use crate::look_import::users::WearPlace;
use crate::look_import::write::{wear_file, would_write_library};
use crate::look_import::{self, change_line, Action, Libraries, Library, LookPlan};
use crate::GameDir;
use std::path::{Path, PathBuf};

/// One model's planned look.
struct Planned {
    /// The record's index.
    index: usize,
    plan: LookPlan,
    /// The `.wea` file beside the model (without `--into`).
    path: PathBuf,
    /// The WEAR entry's name (with `--into`).
    name: String,
    /// Where the model's WEAR goes.
    place: WearPlace,
    /// `look.shared_edit` notes.
    shared: Vec<mshconv_convert::Note>,
}

/// Fails a record whose look could not be brought back.
fn fail(record: &mut Record, code: &str, message: String, tell: Tell<'_>) {
    record.status = Status::Failed;
    record.code = Some(code.to_string());
    record.message = Some(message);
    record.payload = None;
    record.notes.clear();
    tell(Event::Failed {
        input: &record.input,
        code,
        message: record.message.as_deref().unwrap_or(""),
    });
}

/// The entry a record's model goes to with `--into` (`ARCHIVE:ENTRY`).
fn entry_of(record: &Record) -> Option<String> {
    record
        .output
        .as_deref()
        .and_then(|o| o.rsplit_once(':'))
        .map(|(_, e)| e.to_string())
}

/// The WEAR already where a record's model goes: the sibling entry in the
/// `--into` archive (parsed), else the `.wea` beside its output.
pub(super) fn existing_wear(record: &Record, archive: Option<&nres::Archive>) -> Option<Vec<u8>> {
    match (archive, entry_of(record)) {
        (Some(a), Some(e)) => wear_sibling(a, &e).map(|(_, data)| data),
        _ => record
            .output
            .as_deref()
            .and_then(|o| std::fs::read(wear_file(Path::new(o))).ok()),
    }
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
/// their lock); returns what to write. With `dry_run`, the files that would
/// be written are listed in it and nothing is returned for the libraries.
///
/// Two models of the run that edit one entry differently refuse the whole
/// run (`look.edit_conflict` for both, `look.run_refused` for every other
/// model): no library, WEAR or archive entry is written.
pub(super) fn bring_back(
    game: &GameDir,
    records: &mut [Record],
    into: Option<&Path>,
    dry_run: Option<&mut Vec<String>>,
    tell: Tell<'_>,
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
                fail(&mut records[i], e.code(), e.message().to_string(), tell);
            }
            return LookWrites::default();
        }
    };
    let archive_bytes = into.and_then(|a| std::fs::read(a).ok());
    let archive = archive_bytes
        .as_deref()
        .and_then(|b| nres::Archive::parse(b).ok());
    let mut libs = original.clone();
    let mut planned: Vec<Planned> = Vec::new();
    for &i in &with_look {
        let record = &mut records[i];
        let Some(look) = record.look.take() else {
            continue;
        };
        let entry = entry_of(record);
        let existing = existing_wear(record, archive.as_ref());
        // Each model against the libraries as the models before it left
        // them, edits decided against the libraries before the run.
        match look_import::plan_in_run(&look, &libs, &original, existing.as_deref()) {
            Ok(mut plan) => {
                if let Some(b) = plan.materials_lib.take() {
                    libs.materials.bytes = Some(b);
                }
                if let Some(b) = plan.textures_lib.take() {
                    libs.textures.bytes = Some(b);
                }
                let path = record
                    .output
                    .as_deref()
                    .map(|o| wear_file(Path::new(o)))
                    .unwrap_or_default();
                let place = match (into, &entry) {
                    (Some(archive), Some(e)) => WearPlace::of_entry(archive, e),
                    _ => WearPlace::of_file(&path),
                };
                let name = entry.map(|e| wear_name(&e)).unwrap_or_default();
                planned.push(Planned {
                    index: i,
                    plan,
                    path,
                    name,
                    place,
                    shared: Vec::new(),
                });
            }
            // Its model waits for the look (batch::write): neither is written.
            Err(e) => fail(record, e.code(), e.message().to_string(), tell),
        }
    }
    // The models wait for their looks (batch::write): none is written yet.
    if refuse_conflicts(records, &planned, false, tell) {
        return LookWrites::default();
    }
    note_shared_edits(game.dir(), &original, records, &mut planned);
    let mut wears: Vec<(usize, PathBuf, String, Vec<u8>)> = Vec::new();
    let mut change_lines: Vec<String> = Vec::new();
    for p in planned {
        let record = &mut records[p.index];
        let mut notes = p.plan.report.notes;
        for c in p.plan.changes.iter().filter(|c| c.action != Action::Reused) {
            let line = change_line(c);
            if !change_lines.contains(&line) {
                change_lines.push(line.clone());
            }
            notes.push(mshconv_convert::Note {
                code: NoteCode::LookEntry.code(),
                message: line,
            });
        }
        notes.extend(p.shared);
        for note in &notes {
            tell_note(&record.input, note, tell);
        }
        record.notes.extend(notes);
        wears.push((p.index, p.path, p.name, p.plan.wear));
    }
    if let Some(listing) = dry_run {
        list(listing, &original, &libs, &wears, into);
        listing.extend(change_lines);
        return LookWrites {
            libraries: Vec::new(),
            wears,
        };
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

/// Two models that edit one entry differently: both fail
/// (`look.edit_conflict`, naming both) and so does every other converted
/// model (`look.run_refused`), so nothing of the run is written. Whether it
/// refused.
fn refuse_conflicts(
    records: &mut [Record],
    planned: &[Planned],
    models_written: bool,
    tell: Tell<'_>,
) -> bool {
    // The first model that changed each entry.
    let mut owners: Vec<(&str, &str, usize)> = Vec::new();
    let mut conflicts: Vec<(usize, usize, String)> = Vec::new();
    for p in planned {
        for c in &p.plan.conflicts {
            // (An entry changed before this model is always some earlier
            // model's; were it not, the model alone is named.)
            let owner = owners
                .iter()
                .find(|(l, e, _)| *l == c.library && e.eq_ignore_ascii_case(&c.entry))
                .map_or(p.index, |&(.., owner)| owner);
            conflicts.push((owner, p.index, format!("{} entry {}", c.library, c.entry)));
        }
        for c in p.plan.changes.iter().filter(|c| c.action != Action::Reused) {
            if !p.plan.conflicts.contains(c) {
                owners.push((c.library, &c.entry, p.index));
            }
        }
    }
    if conflicts.is_empty() {
        return false;
    }
    let written = if models_written {
        " (the models' .msh files were written already; their looks were not)"
    } else {
        ""
    };
    let mut why = Vec::new();
    for (a, b, what) in &conflicts {
        let (first, second) = (records[*a].input.clone(), records[*b].input.clone());
        let conflict = if a == b {
            format!("{first} edits {what} twice, differently (two of its images or materials)")
        } else {
            format!("{first} and {second} edit {what} differently")
        };
        let message = format!(
            "{conflict}: nothing of this run is written{written}; bring one of them back alone, or make their edits the same"
        );
        why.push(conflict);
        for i in [*a, *b] {
            if records[i].status == Status::Converted {
                fail(
                    &mut records[i],
                    ErrorCode::LookEditConflict.code(),
                    message.clone(),
                    tell,
                );
            }
        }
    }
    let why = why.join("; ");
    for record in records.iter_mut() {
        if record.status == Status::Converted {
            fail(
                record,
                ErrorCode::LookRunRefused.code(),
                format!("not written: {why}{written}"),
                tell,
            );
        }
        if !models_written
            && record
                .code
                .as_deref()
                .is_some_and(|c| c.starts_with("look."))
        {
            record.output = None;
            record.bytes_out = 0;
        }
    }
    true
}

/// `look.shared_edit` for each entry a model replaces that other models
/// show (the application layer's [`advice::shared_edits_of_run`]).
fn note_shared_edits(
    dir: &Path,
    original: &Libraries,
    records: &[Record],
    planned: &mut [Planned],
) {
    let models: Vec<_> = planned
        .iter()
        .map(|p| (&p.plan, p.place.clone(), records[p.index].input.clone()))
        .collect();
    let notes = advice::shared_edits_of_run(dir, original, &models);
    for (p, notes) in planned.iter_mut().zip(notes) {
        p.shared = notes;
    }
}

/// The dry run's lines: each library that would be written, then each WEAR
/// (a file, or with `--into` the entries returned to be listed with the
/// models), then each library entry added or replaced.
fn list(
    listing: &mut Vec<String>,
    original: &Libraries,
    libs: &Libraries,
    wears: &[(usize, PathBuf, String, Vec<u8>)],
    into: Option<&Path>,
) {
    for (lib, now) in [
        (&original.textures, &libs.textures.bytes),
        (&original.materials, &libs.materials.bytes),
    ] {
        let Some(now) = now else { continue };
        if lib.bytes.as_ref() == Some(now) {
            continue;
        }
        listing.push(would_write_library(lib, now));
    }
    if into.is_none() {
        for (_, path, _, wear) in wears {
            listing.push(format!(
                "would write {} ({} bytes)",
                path.display(),
                wear.len()
            ));
        }
    }
}
