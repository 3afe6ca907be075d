//! What the way back says beyond the model itself (docs/MATERIALS.md, "The
//! way back"):
//! - `look.shared_edit`: an edited texture or material that other models
//!   show too (the game folder's models whose WEAR names it, the other
//!   models of a batch);
//! - `look.not_written`: without `--game-dir`, a model whose look differs
//!   from the game folder it is written into, with the command that writes
//!   it;
//! - `archive.entry_loses`: what an entry loses to the model replacing it.

use crate::codes::CliNote;
use mshconv_app::look_import::users::{Users, WearPlace};
use mshconv_app::look_import::{self, Action, Change, Libraries, LookPlan};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::Note;
use std::path::{Path, PathBuf};

/// At most this many models are named in a note; the others are counted.
const NAMED: usize = 8;

/// `a, b, c and 4 more`.
fn listing(names: &[String]) -> String {
    let shown = names[..names.len().min(NAMED)].join(", ");
    match names.len().saturating_sub(NAMED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// The entries `plan` replaces (each once): an entry that was there before
/// and now has other content, which every model using it shows.
pub fn replaced(plan: &LookPlan) -> Vec<&Change> {
    let mut out: Vec<&Change> = Vec::new();
    for c in plan.changes.iter().filter(|c| c.action == Action::Replaced) {
        if !out
            .iter()
            .any(|o| o.library == c.library && o.entry.eq_ignore_ascii_case(&c.entry))
        {
            out.push(c);
        }
    }
    out
}

/// The `look.shared_edit` note of `change`, when `users` (other models
/// that show the entry) is not empty.
pub fn shared_edit(change: &Change, users: &[String]) -> Option<Note> {
    if users.is_empty() {
        return None;
    }
    Some(Note {
        code: CliNote::LookSharedEdit.code(),
        message: format!(
            "{}: {} is edited, and {} other model{} show{} it too: {}",
            change.library,
            change.entry,
            users.len(),
            if users.len() == 1 { "" } else { "s" },
            if users.len() == 1 { "s" } else { "" },
            listing(users)
        ),
    })
}

/// The game folder's models: scanned once, on first use (only a run that
/// replaces an entry needs them).
pub struct FolderUsers<'a> {
    dir: &'a Path,
    users: Option<Users>,
}

impl<'a> FolderUsers<'a> {
    /// The models of the game folder `dir`, not scanned yet.
    pub fn new(dir: &'a Path) -> FolderUsers<'a> {
        FolderUsers { dir, users: None }
    }

    /// The folder's models that show `change`'s entry (by the libraries
    /// `base` as they were before the run), but for those at `except`.
    pub fn of(&mut self, change: &Change, base: &Libraries, except: &[WearPlace]) -> Vec<String> {
        let dir = self.dir;
        self.users.get_or_insert_with(|| Users::scan(dir)).of(
            change.library,
            &change.entry,
            &base.materials,
            except,
        )
    }
}

/// The command line of this run without `--dry-run` and with `extra`
/// appended, quoted for a POSIX shell (the form a note shows a command in).
pub fn this_command_with(extra: &[&str]) -> String {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| a != "--dry-run")
        .chain(extra.iter().map(|s| s.to_string()))
        .collect();
    args.iter()
        .map(|a| shlex::try_quote(a).map_or_else(|_| a.clone(), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `dir` as the user would type it: relative to the current folder when it
/// lies within it, else as it is.
pub fn as_typed(dir: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| std::fs::canonicalize(cwd).ok())
        .and_then(|cwd| dir.strip_prefix(cwd).ok().map(Path::to_path_buf));
    match relative {
        Some(r) if r.as_os_str().is_empty() => ".".to_string(),
        Some(r) => r.display().to_string(),
        None => dir.display().to_string(),
    }
}

/// Without `--game-dir`: the game folder a model written to `place` lies in
/// ([`look_import::find_game_dir`]) and what writing `look` into it would
/// change (`existing_wear`: the WEAR at the model's place), when anything.
pub fn unwritten(
    look: &ImportedLook,
    place: &Path,
    existing_wear: Option<&[u8]>,
) -> Option<(PathBuf, String)> {
    let dir = look_import::find_game_dir(place)?;
    let libs = Libraries::read(&dir).ok()?;
    let plan = look_import::plan(look, &libs, existing_wear).ok()?;
    let what = look_import::unwritten(&plan, existing_wear, !look.materials.is_empty())?;
    Some((dir, what))
}

/// The `look.not_written` note: the model's look differs from the game
/// folder `dir`'s by `what`, and `command` writes it.
pub fn not_written(dir: &Path, what: &str, command: &str) -> Note {
    Note {
        code: CliNote::LookNotWritten.code(),
        message: format!(
            "its look differs from the game folder {}'s ({what}) and was not written (no --game-dir); this writes it: {command}",
            as_typed(dir)
        ),
    }
}

/// The `archive.entry_loses` note of the entry `entry` (its bytes `old`)
/// replaced by `new`, when it loses anything.
pub fn entry_loses(label: &str, old: &[u8], new: &[u8]) -> Option<Note> {
    let lost = mshconv_app::archive::entry_losses(old, new)?;
    Some(Note {
        code: CliNote::ArchiveEntryLoses.code(),
        message: format!("{label} loses {lost}"),
    })
}
