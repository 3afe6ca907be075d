//! `convert IN.glb OUT.msh --game-dir DIR`: the model's look goes back into
//! the game's data (docs/MATERIALS.md, "The way back"). The application layer
//! plans it ([`mshconv_app::look_import::plan`]); this module reads what the
//! plan needs (the libraries, the WEAR already at the output's place) and
//! writes it as one transaction ([`mshconv_app::txn`]): each changed library
//! after a backup of it is made the first time (`Textures.lib.bak`), textures
//! before materials, then the WEAR and the model.
//! `--dry-run` prints the plan and writes nothing.

use crate::archive_out::{self, Target};
use crate::out::{self, Out};
use mshconv_app::game::wear_name;
use mshconv_app::look_import::{self, Action, Libraries, Library, LookPlan};
use mshconv_app::txn::{Lock, Written};
use mshconv_app::GameDir;
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::Report;
use std::path::{Path, PathBuf};

pub use mshconv_app::look_import::write::wear_file;
use mshconv_app::look_import::write::{self as look_write, Place};

/// Where the application layer writes a model with its look.
pub fn place(target: &Target, output: &Path) -> Place {
    match target {
        Target::File => Place::File(output.to_path_buf()),
        Target::Entry { archive, name } => Place::Entry {
            archive: archive.clone(),
            name: name.clone(),
        },
    }
}

pub use mshconv_app::look_import::{brings_look, change_line, read_look as read};

/// The look import's plan for the `look` a glTF or OBJ brought back (read
/// with its `notes` from the same parse as the model), written to `target`
/// (`output` when it is a file).
pub fn plan(
    look: &ImportedLook,
    mut notes: Report,
    game: &GameDir,
    target: &Target,
    output: &Path,
) -> anyhow::Result<(Libraries, LookPlan)> {
    let libs = Libraries::read(game.dir())?;
    let existing = existing_wear(target, output);
    let mut plan = look_import::plan(look, &libs, existing.as_deref())?;
    notes.notes.append(&mut plan.report.notes);
    plan.report = notes;
    Ok((libs, plan))
}

/// The WEAR already where the model goes: the `.wea` beside a file, the
/// sibling entry of an archive's entry.
pub fn existing_wear(target: &Target, output: &Path) -> Option<Vec<u8>> {
    place(target, output).existing_wear()
}

/// Prints the plan (`--dry-run`): one line per file and per library entry.
pub fn print_plan(
    out: &mut Out,
    plan: &LookPlan,
    libs: &Libraries,
    target: &Target,
    output: &Path,
    msh_len: usize,
) -> anyhow::Result<()> {
    let mut text = String::new();
    for (lib, bytes) in [
        (&libs.textures, &plan.textures_lib),
        (&libs.materials, &plan.materials_lib),
    ] {
        if let Some(bytes) = bytes {
            text += &look_write::would_write_library(lib, bytes);
            text.push('\n');
        }
    }
    match target {
        Target::File => {
            text += &format!(
                "would write {} ({} bytes)\n",
                wear_file(output).display(),
                plan.wear.len()
            );
            text += &format!("would write {} ({msh_len} bytes)\n", output.display());
        }
        Target::Entry { archive, name } => {
            text += &format!(
                "would put {}:{} ({} bytes) and {}:{name} ({msh_len} bytes)\n",
                archive.display(),
                wear_name(name),
                plan.wear.len(),
                archive.display()
            );
        }
    }
    for c in &plan.changes {
        text += &change_line(c);
        text.push('\n');
    }
    out.text(&text)
}

/// The files a look written to `target` may replace, for the lock taken
/// before the libraries and the WEAR are read: the libraries and their
/// backups, and the WEAR and the model (or the archive).
pub fn lock_paths(game: &GameDir, target: &Target, output: &Path) -> Vec<PathBuf> {
    place(target, output).lock_paths(game)
}

/// `note[look.backup]` for each library whose backup `written` made (the
/// application layer's [`mshconv_app::batch::backup_notes`]).
pub fn backup_notes<'a>(written: &Written, libs: impl IntoIterator<Item = &'a Library>) {
    mshconv_app::batch::backup_notes(written, libs, &|event| {
        if let mshconv_app::batch::Event::Note { note, .. } = event {
            out::note_line(note.code, &note.message);
        }
    });
}

/// Writes the look and the model as one transaction under `lock`: the
/// libraries that change (each after its first backup), then the WEAR and
/// the model, beside each other or both in one replacement of the archive.
pub fn write(
    lock: &Lock,
    plan: &LookPlan,
    libs: &Libraries,
    target: &Target,
    output: &Path,
    msh: Vec<u8>,
    quiet: bool,
) -> anyhow::Result<()> {
    let mut txn = lock.transaction();
    let placed = look_write::stage(
        &mut txn,
        plan,
        libs,
        &place(target, output),
        msh,
        |editor, name, msh| editor.put(name, None, msh),
    )?;
    let written = txn.commit()?;
    if !quiet {
        backup_notes(&written, [&libs.textures, &libs.materials]);
        for c in plan.changes.iter().filter(|c| c.action != Action::Reused) {
            out::note_line(mshconv_app::NoteCode::LookEntry.code(), &change_line(c));
        }
        if let (Target::Entry { archive, name }, Some(placed)) = (target, placed) {
            archive_out::placed_line(archive, name, placed);
        }
    }
    Ok(())
}
