//! `nres put` and `nres remove`: the application layer edits the archive in
//! place ([`mshconv_app::archive::edit_file`]: locked, edited by its
//! [`Editor`], replaced as one transaction); this module translates the
//! arguments and prints what was done.

use crate::codes::CliNote;
use crate::input::read_file;
use crate::out;
pub use mshconv_app::archive::{target, Target};
use mshconv_app::archive::{Editor, Placed};
use mshconv_app::Error;
use std::path::Path;

/// Edits the archive at `path` in place (the application layer's
/// [`mshconv_app::archive::edit_file`]), its waits and recoveries printed
/// as they happen.
fn edit<T>(path: &Path, change: impl FnOnce(&mut Editor) -> Result<T, Error>) -> anyhow::Result<T> {
    Ok(mshconv_app::archive::edit_file(
        path,
        &mut crate::fs::tell,
        change,
    )?)
}

/// `note[archive.replaced]: units.rlb:TANK.MSH replaced` (or `added`) on stderr.
pub fn placed_line(archive: &Path, name: &str, placed: Placed) {
    let (code, what) = match placed {
        Placed::Replaced => (mshconv_app::NoteCode::ArchiveReplaced.code(), "replaced"),
        Placed::Added => (
            mshconv_app::NoteCode::ArchiveAdded.code(),
            "added (a new entry)",
        ),
    };
    out::note_line(code, &format!("{}:{name} {what}", archive.display()));
}

/// A `--type` value: a number, or up to four characters (`MSH`, `Texm`) read
/// as a little-endian u32 padded with NULs, as the game's type ids are.
pub fn parse_type(text: &str) -> Result<u32, Error> {
    if let Ok(n) = text.parse::<u32>() {
        return Ok(n);
    }
    if !text.is_empty() && text.len() <= 4 && text.bytes().all(|b| b.is_ascii_graphic()) {
        let mut bytes = [0u8; 4];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        return Ok(u32::from_le_bytes(bytes));
    }
    Err(Error::bad_option(format!(
        "type must be a number or up to four characters (MSH, Texm), not {text:?}"
    )))
}

/// `nres put ARCHIVE FILE [--name NAME] [--type TYPE] [--add]`: by the put
/// rule, a name the archive lacks is added only with `add`.
pub fn put_file(
    archive: &Path,
    file: &Path,
    name: Option<&str>,
    type_id: Option<&str>,
    add: bool,
) -> anyhow::Result<std::process::ExitCode> {
    let type_id = type_id.map(parse_type).transpose()?;
    let name = match name {
        Some(n) => n.to_string(),
        None => file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| Error::bad_option("give the entry's name with --name"))?,
    };
    let data = read_file(file)?;
    let placed = edit(archive, |editor| {
        editor.put_by_rule(&name, type_id, data, add, crate::input::HOW_TO_ADD)
    })?;
    placed_line(archive, &name, placed);
    Ok(std::process::ExitCode::SUCCESS)
}

/// `nres remove ARCHIVE NAME`.
pub fn remove(archive: &Path, name: &str) -> anyhow::Result<std::process::ExitCode> {
    edit(archive, |editor| editor.remove(name))?;
    out::note_line(
        CliNote::ArchiveRemoved.code(),
        &format!("{}:{name} removed", archive.display()),
    );
    Ok(std::process::ExitCode::SUCCESS)
}
