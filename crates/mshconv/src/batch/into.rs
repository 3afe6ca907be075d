//! `batch --into ARCHIVE`: the converted models put into an existing archive.

use super::report::{Record, Status};
use super::Plan;
use crate::codes::CliNote;
use crate::fail;
use crate::input::read_file;
use crate::out;
use mshconv_app::archive::{Editor, Placed};
use mshconv_app::names::model_name;
use mshconv_app::{Error, Format};
use std::path::{Path, PathBuf};

/// `--into` takes an existing, readable archive that may be replaced (not
/// read-only, not hard-linked) and `--to msh`.
pub(super) fn check_into(archive: &Path, to: Format) -> anyhow::Result<()> {
    if to != Format::Msh {
        return Err(Error::usage(
            mshconv_convert::codes::Code::OptionInvalid,
            format!("--into puts MSH models into an archive: use --to msh, not --to {to}"),
        )
        .into());
    }
    mshconv_app::archive::check_not_folder(archive, None)?;
    let bytes = read_file(archive)?;
    Editor::open(&bytes).map_err(|e| e.context(format!("archive {}", archive.display())))?;
    // A read-only or hard-linked archive is refused before any conversion
    // (a refusal made under the folder's lock, as the write's check is).
    crate::fs::check_replaceable(archive)?;
    Ok(())
}

/// With `--into`: each task's output is the entry `STEM.MSH` of the archive
/// (the input's file stem, upper case, as the game names its models; an
/// entry of that name in any case is replaced). A name the archive does not
/// have is added only with `add` (`--add`); without it the task fails with
/// `archive.no_such_entry` and the closest names (the application layer's put
/// rule), before any conversion. A task whose name cannot be an entry's
/// (`archive.bad_name`) fails too.
pub(super) fn into_entries(plan: &mut Plan, archive: &Path, add: bool) -> anyhow::Result<()> {
    let directory = crate::input::read_directory(archive)?;
    let what = format!("archive {}", archive.display());
    let tasks = std::mem::take(&mut plan.tasks);
    for mut task in tasks {
        let stem = model_name(&task.input).to_ascii_uppercase();
        let entry = format!("{stem}.MSH");
        let rule = mshconv_app::archive::check_model_entry_name(&entry).and_then(|()| {
            mshconv_app::archive::placement(
                &directory,
                &entry,
                add,
                &what,
                crate::input::HOW_TO_ADD,
            )
        });
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
    let directory = crate::input::read_directory(archive).ok()?;
    let model = mshconv_app::archive::models(&directory)
        .into_iter()
        .find(|m| Some(m.index) == mshconv_app::archive::find(&directory, entry))?;
    crate::input::read_range(archive, model.range)
        .ok()
        .map(Into::into)
}

/// With `--into`: `archive.entry_loses` for each converted model that would
/// replace an entry having more than it (nodes, slots, LODs, groups, frames),
/// said before anything is written.
pub(super) fn note_losses(archive: &Path, records: &mut [Record], quiet: bool) {
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
        let Some(note) = mshconv_app::archive::entry_loses_in(&parsed, &shown, name, payload)
        else {
            continue;
        };
        if !quiet {
            out::note_line(note.code, &format!("{}: {}", record.input, note.message));
        }
        record.notes.push(note);
    }
}

/// `--dry-run`'s word on a put into `entry` of the archive whose directory
/// is `directory`: `: replace`, or `: add (a new entry)`.
pub(super) fn placement_suffix(directory: &nres::Directory, entry: &str) -> &'static str {
    if mshconv_app::archive::find(directory, entry).is_some() {
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
) -> anyhow::Result<Option<Staged>> {
    let converted: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].payload.is_some())
        .collect();
    if converted.is_empty() {
        return Ok(None);
    }
    let (placed, bytes) = crate::archive_out::edited(archive, |editor| {
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
pub(super) fn tell_placed(records: &mut [Record], staged: Staged, quiet: bool) {
    for (&i, p) in staged.converted.iter().zip(staged.placed) {
        records[i].placed = Some(p);
        if !quiet {
            let record = &records[i];
            out::note_line(
                match p {
                    Placed::Replaced => CliNote::ArchiveReplaced.code(),
                    Placed::Added => CliNote::ArchiveAdded.code(),
                },
                &format!(
                    "{}: {}",
                    record.input,
                    record.output.as_deref().unwrap_or("")
                ),
            );
        }
    }
}

/// Fails the records `which` with `e`; with `into`, nothing of theirs was
/// written.
pub(super) fn fail_records(records: &mut [Record], which: &[usize], e: &anyhow::Error, into: bool) {
    let failure = fail::classify(e);
    let message = fail::message(e);
    let message = if into {
        message
    } else {
        format!("neither the model nor its look was written: {message}")
    };
    for &i in which {
        let record = &mut records[i];
        record.status = Status::Failed;
        record.code = Some(failure.code.clone());
        record.message = Some(message.clone());
        record.payload = None;
        if into {
            record.output = None;
            record.bytes_out = 0;
        }
        record.notes.clear();
        out::error_line(&failure.code, &format!("{}: {message}", record.input));
    }
}
