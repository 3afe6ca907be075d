//! Where a model comes from: a file, or an entry of an archive (`ARCHIVE:ENTRY`
//! or `FILE --entry ENTRY`).

use anyhow::Context;
use mshconv_app::archive;
use mshconv_app::batch::files;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The bytes of one model and the name to show for it.
#[derive(Debug, Clone)]
pub struct Input {
    /// `FILE`, or `ARCHIVE:ENTRY` for a model inside an archive.
    pub label: String,
    /// The model's container bytes (for an entry, its payload; offsets in
    /// findings are relative to these bytes).
    pub bytes: Vec<u8>,
    /// The entry's name, for a model inside an archive.
    pub entry: Option<String>,
}

/// Reads a file with the path in the error, once an interrupted mshconv run
/// that was writing it is finished (the application layer's [`files::read_file`]).
pub fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    Ok(files::read_file(path, &crate::fs::batch_tell)?)
}

/// Reads the checked directory of an archive without its payloads, once an
/// interrupted run that was writing it is finished (a model read as
/// `ARCHIVE:ENTRY` too): the application layer's [`files::read_directory`],
/// a damaged archive's error in the context `archive PATH`.
fn read_directory(path: &Path) -> anyhow::Result<nres::Directory> {
    Ok(files::read_archive_directory(path, &crate::fs::batch_tell)?)
}

/// How the CLI's refusal of a put into a missing entry says to add it.
pub use mshconv_app::batch::HOW_TO_ADD;

/// Bytes `range` of a file (an archive entry's payload).
fn read_range(path: &Path, range: Range<u64>) -> anyhow::Result<Vec<u8>> {
    Ok(files::read_range(path, range)?)
}

/// Reads a model: `spec` is a file, or `ARCHIVE:ENTRY`; with `entry`, `spec` is
/// the archive. A path that exists as a file always wins over the `:` syntax.
/// `tolerant` parses the outer archive tolerantly (a damaged other entry does
/// not prevent reading this one).
pub fn load(spec: &Path, entry: Option<&str>, tolerant: bool) -> anyhow::Result<Input> {
    if let Some(name) = entry {
        return load_entry(spec, name, tolerant);
    }
    if spec.is_file() {
        return Ok(Input {
            label: spec.display().to_string(),
            bytes: read_file(spec)?,
            entry: None,
        });
    }
    if let Some((archive, name)) = spec.to_str().and_then(|s| s.rsplit_once(':')) {
        let archive = PathBuf::from(archive);
        if !name.is_empty() && archive.is_file() {
            return load_entry(&archive, name, tolerant);
        }
    }
    Ok(Input {
        label: spec.display().to_string(),
        bytes: read_file(spec)?,
        entry: None,
    })
}

fn load_entry(archive_path: &Path, name: &str, tolerant: bool) -> anyhow::Result<Input> {
    let context = || format!("archive {}", archive_path.display());
    if !tolerant {
        // Strict: only the header, the directory and the entry are read.
        let directory = read_directory(archive_path)?;
        let found = archive::find(&directory, name);
        let (Some(index), Some(range)) = (found, found.and_then(|i| directory.payload(i))) else {
            return Err(no_such_entry(archive_path, name, directory.len()));
        };
        let entry_name = String::from_utf8_lossy(directory.name_bytes(index).unwrap_or_default());
        return Ok(Input {
            label: format!("{}:{entry_name}", archive_path.display()),
            bytes: read_range(archive_path, range)?,
            entry: Some(entry_name.into_owned()),
        });
    }
    let bytes = read_file(archive_path)?;
    let archive = nres::Archive::parse_tolerant(&bytes)
        .map(|(a, _)| a)
        .with_context(context)?;
    let Some(found) = archive::find(&archive, name).and_then(|i| archive.entry(i)) else {
        return Err(no_such_entry(archive_path, name, archive.len()));
    };
    Ok(Input {
        label: format!("{}:{}", archive_path.display(), found.name()),
        bytes: found.data().to_vec(),
        entry: Some(found.name()),
    })
}

fn no_such_entry(archive_path: &Path, name: &str, entries: usize) -> anyhow::Error {
    archive::no_such_entry(
        &format!("archive {}", archive_path.display()),
        name,
        entries,
        &format!("`mshconv nres list {}` lists them", archive_path.display()),
    )
    .into()
}

/// Refuses an archive of models given where one model was expected
/// (`request.entry_required`, exit 2), naming its models and how to pick one.
pub fn refuse_model_archive(bytes: &[u8], label: &str) -> anyhow::Result<()> {
    if let Ok(parsed) = nres::Archive::parse(bytes) {
        if archive::is_model_archive(&parsed) {
            return Err(archive::entry_required(
                &parsed,
                label,
                &format!("name one as {label}:ENTRY (or with --entry ENTRY); `mshconv nres list {label}` lists them, `mshconv batch {label}` converts them all"),
            )
            .into());
        }
    }
    Ok(())
}
