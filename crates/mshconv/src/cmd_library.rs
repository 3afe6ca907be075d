//! `mshconv textures export/import` and `mshconv materials export/import`:
//! the game's libraries as files a modder edits (docs/LIBRARY_FILES.md).
//! The application layer ([`mshconv_app::library_files`]) exports and plans;
//! this module parses the arguments, takes the lock, writes and prints.

use crate::out::{self, Out};
use clap::{Args, Subcommand};
use mshconv_app::library_files::{self, materials, textures, ImportPlan};
use mshconv_app::look_import::{change_line, Action, Library};
use mshconv_app::{Error, ErrorCode, NoteCode};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Help of `mshconv textures`.
pub const TEXTURES_AFTER: &str = after!(
    "Examples:
  mshconv textures export game/Textures.lib textures/
  mshconv textures import textures/ game/Textures.lib --dry-run
  mshconv textures import textures/ game/Textures.lib

Edit the PNGs in an image editor (keep their size), add new ones; the import
re-encodes only the textures whose pixels changed (docs/LIBRARY_FILES.md)."
);

const TEXTURES_EXPORT_AFTER: &str = after!(
    "Examples:
  mshconv textures export game/Textures.lib textures/
  mshconv textures export game/Textures.lib textures/ --force

Writes DIR/NAME.png for each texture (mip 0, RGBA) and DIR/textures.json with
what a PNG cannot hold (pixel format, mip count, flags, palette, Page, entry
attributes). A folder that is not empty is refused (io.not_empty) unless
--force."
);

const TEXTURES_IMPORT_AFTER: &str = after!(
    "Examples:
  mshconv textures import textures/ game/Textures.lib --dry-run
  mshconv textures import textures/ game/Textures.lib

A texture whose PNG and record are unchanged keeps its bytes; an edited one is
re-encoded in its format (mips rebuilt); a PNG without a record becomes a new
texture (sides powers of two, 8888 with alpha else 565, a full mip chain).
The library is saved once as LIBRARY.bak, then replaced as one transaction;
nothing is written when nothing changed. A damaged textures.json is
textures.bad_index, naming the file, the texture and the field."
);

/// Help of `mshconv materials`.
pub const MATERIALS_AFTER: &str = after!(
    "Examples:
  mshconv materials export game/Material.lib materials.json
  mshconv materials import materials.json game/Material.lib --dry-run
  mshconv materials import materials.json game/Material.lib

Edit the JSON file in a text editor; the import rewrites only the materials
whose record changed (docs/LIBRARY_FILES.md)."
);

const MATERIALS_EXPORT_AFTER: &str = after!(
    "Examples:
  mshconv materials export game/Material.lib materials.json
  mshconv materials export game/Material.lib materials.json --force

One record per MAT0 entry: attributes, version, metadata, phases (texture,
18 parameters), animation blocks (mode, mask, keys). An existing FILE is
refused (io.already_exists) unless --force."
);

const MATERIALS_IMPORT_AFTER: &str = after!(
    "Examples:
  mshconv materials import materials.json game/Material.lib --dry-run
  mshconv materials import materials.json game/Material.lib

A record equal to its entry keeps it byte for byte, a changed one replaces
it, a new name adds a MAT0 entry. The library is saved once as LIBRARY.bak,
then replaced as one transaction. A damaged file is materials.bad_file,
naming the file, the material and the field."
);

/// `mshconv textures ...`.
#[derive(Debug, Subcommand)]
pub enum TexturesCommand {
    /// Write every texture as DIR/NAME.png (RGBA, mip 0) and DIR/textures.json.
    #[command(after_help = TEXTURES_EXPORT_AFTER)]
    Export {
        /// The texture library (Textures.lib).
        #[arg(value_name = "LIBRARY")]
        library: PathBuf,
        /// The folder to write (new or empty, unless --force).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Write into a folder that is not empty (its files of the same names are overwritten).
        #[arg(long)]
        force: bool,
    },
    /// Bring an exported folder back: re-encode edited PNGs, add new ones.
    #[command(after_help = TEXTURES_IMPORT_AFTER)]
    Import(ImportArgs),
}

/// `mshconv materials ...`.
#[derive(Debug, Subcommand)]
pub enum MaterialsCommand {
    /// Write every MAT0 material of the library as one JSON text file.
    #[command(after_help = MATERIALS_EXPORT_AFTER)]
    Export {
        /// The material library (Material.lib).
        #[arg(value_name = "LIBRARY")]
        library: PathBuf,
        /// The file to write (new, unless --force).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Overwrite FILE when it exists.
        #[arg(long)]
        force: bool,
    },
    /// Bring an edited material file back: only the changed materials are rewritten.
    #[command(after_help = MATERIALS_IMPORT_AFTER)]
    Import(ImportArgs),
}

/// The arguments of an import.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The exported folder (textures) or file (materials).
    #[arg(value_name = "FROM")]
    from: PathBuf,
    /// The library to update (after a backup to LIBRARY.bak, made once).
    #[arg(value_name = "LIBRARY")]
    library: PathBuf,
    /// Print what would change and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// Runs `mshconv textures ...`.
pub fn run_textures(command: &TexturesCommand, out: &mut Out) -> anyhow::Result<ExitCode> {
    match command {
        TexturesCommand::Export {
            library,
            dir,
            force,
        } => {
            if !force {
                crate::cmd_nres::refuse_non_empty(dir)?;
            }
            let lib = library_files::read_library_recovered(library, &mut crate::fs::tell)?;
            let exported = textures::export(&lib)?;
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display(), &e))?;
            for (name, bytes) in &exported.files {
                crate::fs::write_side(&dir.join(name), bytes)?;
            }
            for (entry, why) in &exported.skipped {
                out::note_line(NoteCode::TexturesSkipped.code(), &format!("{entry}: {why}"));
            }
            for other in textures::other_pngs(dir, &exported)? {
                out::note_line(
                    NoteCode::TexturesOtherPng.code(),
                    &format!(
                        "{} is not one of the library's textures: an import adds it as a new texture (remove it if it is not meant to be one)",
                        dir.join(other).display()
                    ),
                );
            }
            out.text(&format!(
                "{}: {} textures written to {} (and {})\n",
                library.display(),
                exported.files.len() - 1,
                dir.display(),
                dir.join(textures::INDEX).display()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        TexturesCommand::Import(args) => {
            import(args, out, |lib| textures::plan_import(&args.from, lib))
        }
    }
}

/// Runs `mshconv materials ...`.
pub fn run_materials(command: &MaterialsCommand, out: &mut Out) -> anyhow::Result<ExitCode> {
    match command {
        MaterialsCommand::Export {
            library,
            file,
            force,
        } => {
            if !force && file.exists() {
                return Err(Error::usage(
                    ErrorCode::IoAlreadyExists,
                    format!(
                        "{} exists: exporting would overwrite it (edits included); name a new file, or pass --force",
                        file.display()
                    ),
                )
                .into());
            }
            let lib = library_files::read_library_recovered(library, &mut crate::fs::tell)?;
            let text = materials::export(&lib)?;
            crate::fs::write_atomically(file, &text)?;
            out.text(&format!(
                "{}: materials written to {}\n",
                library.display(),
                file.display()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        MaterialsCommand::Import(args) => import(args, out, |lib| {
            let text = std::fs::read(&args.from).map_err(|e| Error::io(args.from.display(), &e))?;
            let textures = materials::texture_names_beside(&args.library)?;
            materials::plan_import(&args.from, &text, lib, textures.as_deref())
        }),
    }
}

/// An import (the application layer's [`library_files::import`], planned
/// by `plan`): its notes, its change lines, and what was (or would be) written.
fn import(
    args: &ImportArgs,
    out: &mut Out,
    plan: impl FnOnce(&Library) -> Result<ImportPlan, Error>,
) -> anyhow::Result<ExitCode> {
    let done = library_files::import(&args.library, args.dry_run, &mut crate::fs::tell, plan)?;
    let plan = &done.plan;
    for note in &plan.report.notes {
        out::note_line(note.code, &note.message);
    }
    if let Some(backup) = &done.backup_made {
        out::note_line(
            mshconv_app::NoteCode::LookBackup.code(),
            &format!("{} saved as {}", args.library.display(), backup.display()),
        );
    }
    let mut text = String::new();
    for c in plan.changes.iter().filter(|c| c.action != Action::Reused) {
        text += &change_line(c);
        text.push('\n');
    }
    let summary = summary(&args.library, plan);
    match (&plan.bytes, done.written) {
        (None, _) => text += &format!("{summary}: nothing to write\n"),
        (Some(bytes), false) => {
            let backup = match &done.backup_would_be_made {
                Some(b) => format!(", after a backup to {}", b.display()),
                None => String::new(),
            };
            text += &format!(
                "would write {} ({} bytes){backup}\n{summary} (dry run, nothing written)\n",
                args.library.display(),
                bytes.len(),
            );
        }
        (Some(_), true) => text += &format!("{summary}\n"),
    }
    out.text(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `Textures.lib: 1 replaced, 2 added, 8 unchanged`.
fn summary(library: &Path, plan: &ImportPlan) -> String {
    format!(
        "{}: {} replaced, {} added, {} unchanged",
        library.display(),
        plan.count(Action::Replaced),
        plan.count(Action::Added),
        plan.count(Action::Reused)
    )
}
