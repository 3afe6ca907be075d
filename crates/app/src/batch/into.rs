//! `batch --into ARCHIVE`: the converted models put into an existing archive.

use super::files::{check_replaceable, read_directory, read_file};
use super::report::{Record, Status};
use super::{tell_note, Event, Plan, Tell};
use crate::archive::{Editor, Placed};
use crate::codes::NoteCode;
use crate::names::model_name;
use crate::{Error, Format};
use mshconv_convert::Note;
use std::path::{Path, PathBuf};

/// How the put rule's refusal of a missing entry says to add it (the CLI's
/// flag; the other front ends' `add` is spelt alike).
pub const HOW_TO_ADD: &str = "give --add";

/// `--into` takes an existing, readable archive that may be replaced (not
/// read-only, not hard-linked) and `--to msh`.
pub(super) fn check_into(archive: &Path, to: Format, tell: Tell<'_>) -> Result<(), Error> {
    if to != Format::Msh {
        return Err(Error::usage(
            mshconv_convert::codes::Code::OptionInvalid,
            format!("--into puts MSH models into an archive: use --to msh, not --to {to}"),
        ));
    }
    crate::archive::check_not_folder(archive, None)?;
    let bytes = read_file(archive, tell)?;
    Editor::open(&bytes).map_err(|e| e.context(format!("archive {}", archive.display())))?;
    // A read-only or hard-linked archive is refused before any conversion
    // (a refusal made under the folder's lock, as the write's check is).
    check_replaceable(archive, tell)?;
    Ok(())
}

/// With `--into`: each task's output is the entry `STEM.MSH` of the archive
/// (the input's file stem, upper case, as the game names its models; an
/// entry of that name in any case is replaced). A name the archive does not
/// have is added only with `add` (`--add`); without it the task fails with
/// `archive.no_such_entry` and the closest names (the application layer's put
/// rule), before any conversion. A task whose name cannot be an entry's
/// (`archive.bad_name`) fails too.
pub(super) fn into_entries(
    plan: &mut Plan,
    archive: &Path,
    add: bool,
    tell: Tell<'_>,
) -> Result<(), Error> {
    let directory = read_directory(archive, tell)?;
    let what = format!("archive {}", archive.display());
    let tasks = std::mem::take(&mut plan.tasks);
    for mut task in tasks {
        let stem = model_name(&task.input).to_ascii_uppercase();
        let entry = format!("{stem}.MSH");
        let rule = crate::archive::check_model_entry_name(&entry)
            .and_then(|()| crate::archive::placement(&directory, &entry, add, &what, HOW_TO_ADD));
        if let Err(e) = rule {
            plan.decided
                .push(Record::failed(&task.input, e.code(), e.message()));
            continue;
        }
        task.output = PathBuf::from(format!("{}:{entry}", archive.display()));
        task.entry = Some(entry);
        plan.tasks.push(task);
    }
    Ok(())
}

/// With `--into`: the entry a task's model replaces (none for an entry
/// added), the original its glTF import recognises another tool's rewrite
/// against (docs/GLTF.md, "The original"); read from the archive's
/// directory and the entry's range alone.
pub(super) fn replaced_entry(task: &super::Task) -> Option<mshconv_convert::Original> {
    let entry = task.entry.as_deref()?;
    let output = task.output.to_str()?;
    let archive = Path::new(output.strip_suffix(entry)?.strip_suffix(':')?);
    // The plan read this directory after finishing any interrupted write.
    let directory = super::files::read_directory(archive, &|_| {}).ok()?;
    let model = crate::archive::models(&directory)
        .into_iter()
        .find(|m| Some(m.index) == crate::archive::find(&directory, entry))?;
    super::files::read_range(archive, model.range)
        .ok()
        .map(Into::into)
}

/// With `--into`: `archive.entry_loses` for each converted model that would
/// replace an entry having more than it (nodes, slots, LODs, groups, frames),
/// said before anything is written.
pub(super) fn note_losses(archive: &Path, records: &mut [Record], tell: Tell<'_>) {
    let Ok(bytes) = std::fs::read(archive) else {
        return;
    };
    let Ok(parsed) = nres::Archive::parse(&bytes) else {
        return;
    };
    for record in records.iter_mut() {
        let (Some(output), Some(payload)) = (&record.output, &record.payload) else {
            continue;
        };
        let Some((_, name)) = output.rsplit_once(':') else {
            continue;
        };
        let shown = archive.display().to_string();
        let Some(note) = crate::archive::entry_loses_in(&parsed, &shown, name, payload) else {
            continue;
        };
        tell_note(&record.input, &note, tell);
        record.notes.push(note);
    }
}

/// `--dry-run`'s word on a put into `entry` of the archive whose directory
/// is `directory`: `: replace`, or `: add (a new entry)`.
pub(super) fn placement_suffix(directory: &nres::Directory, entry: &str) -> &'static str {
    if crate::archive::find(directory, entry).is_some() {
        ": replace"
    } else {
        ": add (a new entry)"
    }
}

/// The archive `--into` names with the converted models put in.
pub(super) struct Staged {
    /// The records whose models are put in, in input order.
    pub converted: Vec<usize>,
    /// How each was placed.
    pub placed: Vec<Placed>,
    /// The new archive.
    pub bytes: Vec<u8>,
}

/// With `--into`: the archive (whose folder the caller has locked) with
/// every converted model put in (in input order) and `wears` (the models'
/// `.WEA` entries of `--game-dir`); `None` when no model was converted.
pub(super) fn stage_into(
    archive: &Path,
    records: &mut [Record],
    wears: Vec<(String, Vec<u8>)>,
    tell: Tell<'_>,
) -> Result<Option<Staged>, Error> {
    let converted: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].payload.is_some())
        .collect();
    if converted.is_empty() {
        return Ok(None);
    }
    let (placed, bytes) = edited(archive, tell, |editor| {
        let mut placed = Vec::with_capacity(converted.len());
        for &i in &converted {
            let record = &mut records[i];
            let entry = record
                .output
                .as_deref()
                .and_then(|o| o.rsplit_once(':'))
                .map_or(String::new(), |(_, e)| e.to_string());
            let payload = record.payload.take().unwrap_or_default();
            placed.push(editor.put(&entry, None, payload)?);
        }
        for (name, wear) in wears {
            editor.put(&name, Some(mshconv_material::WEAR_TYPE_ID), wear)?;
        }
        Ok(placed)
    })?;
    Ok(Some(Staged {
        converted,
        placed,
        bytes,
    }))
}

/// Once the archive is written: each record's placement, and its note.
pub(super) fn tell_placed(records: &mut [Record], staged: Staged, tell: Tell<'_>) {
    for (&i, p) in staged.converted.iter().zip(staged.placed) {
        records[i].placed = Some(p);
        let record = &records[i];
        let note = Note {
            code: match p {
                Placed::Replaced => NoteCode::ArchiveReplaced.code(),
                Placed::Added => NoteCode::ArchiveAdded.code(),
            },
            message: record.output.clone().unwrap_or_default(),
        };
        tell_note(&record.input, &note, tell);
    }
}

/// Opens the archive at `path` (whose folder the caller has locked),
/// applies `change`, and gives the new archive's bytes.
pub fn edited<T>(
    path: &Path,
    tell: Tell<'_>,
    change: impl FnOnce(&mut Editor) -> Result<T, Error>,
) -> Result<(T, Vec<u8>), Error> {
    let bytes = read_file(path, tell)?;
    let mut editor =
        Editor::open(&bytes).map_err(|e| e.context(format!("archive {}", path.display())))?;
    let result = change(&mut editor)?;
    let written = editor
        .write()
        .map_err(|e| e.context(format!("cannot write the archive {}", path.display())))?;
    Ok((result, written))
}

/// Fails the records `which` with `e`; with `into`, nothing of theirs was
/// written.
pub(super) fn fail_records(
    records: &mut [Record],
    which: &[usize],
    e: &Error,
    into: bool,
    tell: Tell<'_>,
) {
    let code = e.code();
    let message = e.message().to_string();
    let message = if into {
        message
    } else {
        format!("neither the model nor its look was written: {message}")
    };
    for &i in which {
        let record = &mut records[i];
        record.status = Status::Failed;
        record.code = Some(code.to_string());
        record.message = Some(message.clone());
        record.payload = None;
        if into {
            record.output = None;
            record.bytes_out = 0;
        }
        record.notes.clear();
        tell(Event::Failed {
            input: &record.input,
            code,
            message: &message,
        });
    }
}
