//! `convert IN.glb OUT.msh --game-dir DIR`: the model's look goes back into
//! the game's data (docs/MATERIALS.md, "The way back"). The application layer
//! plans it ([`mshconv_app::look_import::plan`]); this module reads what the
//! plan needs (the libraries, the WEAR already at the output's place) and
//! writes it: each changed library replaced durably after a backup of it is
//! made the first time (`Material.lib.bak`), then the WEAR and the model.
//! `--dry-run` prints the plan and writes nothing.

use crate::archive_out::{self, Target};
use crate::fs::{replace_durably, write_atomically};
use crate::out::{self, Out};
use mshconv_app::game::{wear_name, wear_sibling};
use mshconv_app::look_import::{self, Action, Libraries, Library, LookPlan};
use mshconv_app::{Format, GameDir, Resources};
use mshconv_material::WEAR_TYPE_ID;
use std::path::{Path, PathBuf};

/// The backup of a library: `Material.lib` -> `Material.lib.bak`.
pub fn backup_path(library: &Path) -> PathBuf {
    let mut name = library.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}

pub use mshconv_app::look_import::{brings_look, change_line, read_look as read};

/// The look import's plan for the glTF or OBJ `input` (of format `from`)
/// written to `target` (`output` when it is a file).
pub fn plan(
    input: &[u8],
    from: Format,
    resources: &dyn Resources,
    game: &GameDir,
    target: &Target,
    output: &Path,
) -> anyhow::Result<(Libraries, LookPlan)> {
    let (look, mut notes) = read(input, from, resources)?;
    let libs = Libraries::read(game.dir())?;
    let existing = existing_wear(target, output);
    let mut plan = look_import::plan(&look, &libs, existing.as_deref())?;
    notes.notes.append(&mut plan.report.notes);
    plan.report = notes;
    Ok((libs, plan))
}

/// The WEAR already where the model goes: the `.wea` beside a file, the
/// sibling entry of an archive's entry.
pub fn existing_wear(target: &Target, output: &Path) -> Option<Vec<u8>> {
    match target {
        Target::File => std::fs::read(wear_file(output)).ok(),
        Target::Entry { archive, name } => {
            let bytes = std::fs::read(archive).ok()?;
            let archive = nres::Archive::parse(&bytes).ok()?;
            // The sibling the export's resolver reads.
            wear_sibling(&archive, name).map(|(_, data)| data)
        }
    }
}

/// The `.wea` file beside a model file: the one there is (names compared
/// as the game compares them: `DOME.WEA` is `Dome.msh`'s), else a new one.
pub fn wear_file(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let wear = wear_name(&name);
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    mshconv_app::game::find_in_folder(dir, &wear).unwrap_or_else(|| output.with_file_name(wear))
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
            text += &format!(
                "would write {} ({} bytes){}\n",
                lib.path.display(),
                bytes.len(),
                if lib.bytes.is_some() && !backup_path(&lib.path).exists() {
                    format!(", after a backup to {}", backup_path(&lib.path).display())
                } else {
                    String::new()
                }
            );
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

/// Writes the libraries that change (each after its first backup).
pub fn write_libraries(plan: &LookPlan, libs: &Libraries, quiet: bool) -> anyhow::Result<()> {
    for (lib, bytes) in [
        (&libs.textures, &plan.textures_lib),
        (&libs.materials, &plan.materials_lib),
    ] {
        let Some(bytes) = bytes else { continue };
        write_library(lib, bytes, quiet)?;
    }
    if !quiet {
        for c in plan.changes.iter().filter(|c| c.action != Action::Reused) {
            out::note_line("look.entry", &change_line(c));
        }
    }
    Ok(())
}

pub fn write_library(lib: &Library, bytes: &[u8], quiet: bool) -> anyhow::Result<()> {
    if let Some(old) = &lib.bytes {
        let backup = backup_path(&lib.path);
        if !backup.exists() {
            write_atomically(&backup, old)?;
            if !quiet {
                out::note_line(
                    "look.backup",
                    &format!("{} saved as {}", lib.path.display(), backup.display()),
                );
            }
        }
    }
    replace_durably(&lib.path, bytes)
}

/// Writes the WEAR and the model: beside each other, or both into the archive
/// in one replacement.
pub fn write_model(
    plan: &LookPlan,
    target: &Target,
    output: &Path,
    msh: Vec<u8>,
    quiet: bool,
) -> anyhow::Result<()> {
    match target {
        Target::File => {
            write_atomically(&wear_file(output), &plan.wear)?;
            write_atomically(output, &msh)
        }
        Target::Entry { archive, name } => {
            let wear = wear_name(name);
            let placed = archive_out::edit(archive, |editor| {
                let placed = editor.put(name, None, msh)?;
                editor.put(&wear, Some(WEAR_TYPE_ID), plan.wear.clone())?;
                Ok(placed)
            })?;
            if !quiet {
                archive_out::placed_line(archive, name, placed);
            }
            Ok(())
        }
    }
}
