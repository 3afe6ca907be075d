//! Where a model comes from: a file, or an entry of an archive (`ARCHIVE:ENTRY`
//! or `FILE --entry ENTRY`).

use anyhow::Context;
use mshconv_app::archive;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
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

/// Reads a file with the path in the error.
pub fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    // A file an interrupted mshconv run was writing is read once that run is finished.
    crate::fs::recover_pending(path)?;
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Reads the checked directory of an archive without its payloads (the header,
/// then the directory at the end): a damaged archive is an `nres::Error` itself
/// (no context around it), a file that cannot be read an I/O error in context.
pub fn read_directory(path: &Path) -> anyhow::Result<nres::Directory> {
    // As `read_file`: an archive an interrupted run was writing is read once
    // that run is finished (a model read as `ARCHIVE:ENTRY` too).
    crate::fs::recover_pending(path)?;
    let cannot = || format!("cannot read {}", path.display());
    let mut file = File::open(path).with_context(cannot)?;
    let len = file.metadata().with_context(cannot)?.len();
    let mut head = Vec::with_capacity(nres::raw::HEADER_SIZE);
    (&mut file)
        .take(nres::raw::HEADER_SIZE as u64)
        .read_to_end(&mut head)
        .with_context(cannot)?;
    let at = nres::Directory::locate(&head, len)?;
    // The located range lies within the file's length: reading it is bounded.
    let directory = read_at(&mut file, at.clone()).with_context(cannot)?;
    Ok(nres::Directory::parse(&head, &directory, len)?)
}

/// How the CLI's refusal of a put into a missing entry says to add it.
pub const HOW_TO_ADD: &str = "give --add";

/// What putting the model `name` into the archive at `path` would do, by the
/// application layer's put rule ([`archive::placement`]), from the archive's
/// directory alone: replace, add (only with `add`), or `archive.no_such_entry`
/// with the closest names. Checked before any conversion, so a typo fails at once.
pub fn placement(path: &Path, name: &str, add: bool) -> anyhow::Result<archive::Placed> {
    let directory = match read_directory(path) {
        Ok(d) => d,
        Err(e) if e.is::<nres::Error>() => {
            return Err(e.context(format!("archive {}", path.display())))
        }
        Err(e) => return Err(e),
    };
    let what = format!("archive {}", path.display());
    Ok(archive::placement(
        &directory, name, add, &what, HOW_TO_ADD,
    )?)
}

/// Bytes `range` of a file (an archive entry's payload).
pub fn read_range(path: &Path, range: Range<u64>) -> anyhow::Result<Vec<u8>> {
    let mut file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    read_at(&mut file, range).with_context(|| format!("cannot read {}", path.display()))
}

fn read_at(file: &mut File, range: Range<u64>) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(range.start))?;
    let len = range.end.saturating_sub(range.start);
    // Callers pass a range checked to lie within the file's length, so the
    // room is bounded by the file; reserved once, the payload is read in one
    // call rather than through a probe and a growing buffer.
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(std::io::Error::other)?;
    file.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the file became shorter while it was read",
        ));
    }
    Ok(bytes)
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
        let directory = match read_directory(archive_path) {
            Ok(d) => d,
            Err(e) if e.is::<nres::Error>() => return Err(e.context(context())),
            Err(e) => return Err(e),
        };
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
