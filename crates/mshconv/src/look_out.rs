//! `convert IN.glb OUT.msh --game-dir DIR`: the model's look goes back into
//! the game's data (docs/MATERIALS.md, "The way back"). The application layer
//! plans it ([`mshconv_app::look_import::plan`]); this module reads what the
//! plan needs (the libraries, the WEAR already at the output's place) and
//! writes it as one transaction ([`mshconv_app::txn`]): each changed library
//! after a backup of it is made the first time (`Textures.lib.bak`), textures
//! before materials, then the WEAR and the model.
//! `--dry-run` prints the plan and writes nothing.

use crate::archive_out::{self, Target};
use crate::codes::CliNote;
use crate::out::{self, Out};
use mshconv_app::game::{find_in_folder, wear_name, wear_sibling, MATERIAL_LIB, TEXTURES_LIB};
use mshconv_app::look_import::{self, Action, Libraries, Library, LookPlan};
use mshconv_app::txn::{Lock, Transaction, Written};
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

/// The libraries of the game folder and their backups, for the lock taken
/// before they are read.
pub fn library_paths(game: &GameDir) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for name in [TEXTURES_LIB, MATERIAL_LIB] {
        let lib = find_in_folder(game.dir(), name).unwrap_or_else(|| game.dir().join(name));
        paths.push(backup_path(&lib));
        paths.push(lib);
    }
    paths
}

/// The files a look written to `target` may replace, for the lock taken
/// before the libraries and the WEAR are read: the libraries and their
/// backups, and the WEAR and the model (or the archive).
pub fn lock_paths(game: &GameDir, target: &Target, output: &Path) -> Vec<PathBuf> {
    let mut paths = library_paths(game);
    match target {
        Target::File => paths.extend([wear_file(output), output.to_path_buf()]),
        Target::Entry { archive, .. } => paths.push(archive.clone()),
    }
    paths
}

/// Adds the libraries that change to `txn`, each after its first backup
/// (`Textures.lib.bak`); given textures first, so that materials never name
/// a texture that is not there yet (docs/MATERIALS.md).
pub fn stage_libraries<'a>(
    txn: &mut Transaction<'_>,
    changed: impl IntoIterator<Item = (&'a Library, &'a Vec<u8>)>,
) {
    for (lib, bytes) in changed {
        if let Some(old) = &lib.bytes {
            txn.backup(backup_path(&lib.path), old.clone(), &lib.path);
        }
        txn.replace(&lib.path, bytes.clone());
    }
}

/// `note[look.backup]` for each library whose backup `written` made.
pub fn backup_notes<'a>(written: &Written, libs: impl IntoIterator<Item = &'a Library>) {
    for lib in libs {
        let backup = backup_path(&lib.path);
        if written.wrote(&backup) {
            out::note_line(
                CliNote::LookBackup.code(),
                &format!("{} saved as {}", lib.path.display(), backup.display()),
            );
        }
    }
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
    let changed = [
        (&libs.textures, plan.textures_lib.as_ref()),
        (&libs.materials, plan.materials_lib.as_ref()),
    ];
    stage_libraries(
        &mut txn,
        changed.into_iter().filter_map(|(l, b)| Some((l, b?))),
    );
    let placed = match target {
        Target::File => {
            txn.replace(wear_file(output), plan.wear.clone());
            txn.replace(output, msh);
            None
        }
        Target::Entry { archive, name } => {
            let wear = wear_name(name);
            let (placed, bytes) = archive_out::edited(archive, |editor| {
                let placed = editor.put(name, None, msh)?;
                editor.put(&wear, Some(WEAR_TYPE_ID), plan.wear.clone())?;
                Ok(placed)
            })?;
            txn.replace(archive, bytes);
            Some(placed)
        }
    };
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
