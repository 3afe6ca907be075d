//! Writing a model with its look, for every front end (the CLI's `convert
//! IN.glb OUT --game-dir`, the Python package): where the WEAR goes, which
//! files are locked, and the transaction's steps (each changed library
//! after its first backup, textures before materials, then the WEAR and the
//! model, beside each other or both in one replacement of the archive).

use super::{Libraries, Library, LookPlan};
use crate::archive::{Editor, Placed};
use crate::error::Error;
use crate::game::{find_in_folder, wear_name, wear_sibling, GameDir, MATERIAL_LIB, TEXTURES_LIB};
use crate::txn::Stage;
use mshconv_material::WEAR_TYPE_ID;
use std::path::{Path, PathBuf};

/// Where a model with its look is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A model file (its WEAR beside it).
    File(PathBuf),
    /// An entry of an existing archive (its WEAR the sibling entry).
    Entry {
        /// The archive file.
        archive: PathBuf,
        /// The model's entry name.
        name: String,
    },
}

/// The backup of a library: `Material.lib` -> `Material.lib.bak`.
pub fn backup_path(library: &Path) -> PathBuf {
    let mut name = library.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}

/// A dry run's line for a library that would be written with `bytes`:
/// `would write PATH (N bytes)`, and `, after a backup to PATH.bak` when its
/// first backup would be made then.
pub fn would_write_library(library: &super::Library, bytes: &[u8]) -> String {
    let backup = backup_path(&library.path);
    format!(
        "would write {} ({} bytes){}",
        library.path.display(),
        bytes.len(),
        if library.bytes.is_some() && !backup.exists() {
            format!(", after a backup to {}", backup.display())
        } else {
            String::new()
        }
    )
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
    find_in_folder(dir, &wear).unwrap_or_else(|| output.with_file_name(wear))
}

impl Place {
    /// The WEAR already where the model goes: the `.wea` beside a file, the
    /// sibling entry of an archive's entry.
    pub fn existing_wear(&self) -> Option<Vec<u8>> {
        match self {
            Place::File(output) => std::fs::read(wear_file(output)).ok(),
            Place::Entry { archive, name } => {
                let bytes = std::fs::read(archive).ok()?;
                let archive = nres::Archive::parse(&bytes).ok()?;
                // The sibling the export's resolver reads.
                wear_sibling(&archive, name).map(|(_, data)| data)
            }
        }
    }

    /// The files a look written here may replace, for the lock taken before
    /// the libraries and the WEAR are read: the libraries and their backups,
    /// and the WEAR and the model (or the archive).
    pub fn lock_paths(&self, game: &GameDir) -> Vec<PathBuf> {
        let mut paths = library_paths(game);
        match self {
            Place::File(output) => paths.extend([wear_file(output), output.clone()]),
            Place::Entry { archive, .. } => paths.push(archive.clone()),
        }
        paths
    }
}

/// Adds the libraries that change to `txn`, each after its first backup
/// (`Textures.lib.bak`); given textures first, so that materials never name
/// a texture that is not there yet (docs/MATERIALS.md).
pub fn stage_libraries<'a>(
    txn: &mut impl Stage,
    changed: impl IntoIterator<Item = (&'a Library, &'a Vec<u8>)>,
) {
    for (lib, bytes) in changed {
        if let Some(old) = &lib.bytes {
            txn.backup(backup_path(&lib.path), old.clone(), &lib.path);
        }
        txn.replace(lib.path.clone(), bytes.clone());
    }
}

/// Adds every file of `plan` and the model `msh` at `place` to `txn` (a
/// transaction, or a dry run's preview): the
/// changed libraries, then the WEAR and the model. Into an archive, `put`
/// places the model (the front end's put rule) and the WEAR is put beside it.
pub fn stage(
    txn: &mut impl Stage,
    plan: &LookPlan,
    libs: &Libraries,
    place: &Place,
    msh: Vec<u8>,
    put: impl FnOnce(&mut Editor, &str, Vec<u8>) -> Result<Placed, Error>,
) -> Result<Option<Placed>, Error> {
    let changed = [
        (&libs.textures, plan.textures_lib.as_ref()),
        (&libs.materials, plan.materials_lib.as_ref()),
    ];
    stage_libraries(txn, changed.into_iter().filter_map(|(l, b)| Some((l, b?))));
    match place {
        Place::File(output) => {
            txn.replace_side(wear_file(output), plan.wear.clone());
            txn.replace(output.clone(), msh);
            Ok(None)
        }
        Place::Entry { archive, name } => {
            let bytes = std::fs::read(archive).map_err(|e| Error::io(archive.display(), &e))?;
            let mut editor = Editor::open(&bytes)
                .map_err(|e| e.context(format!("archive {}", archive.display())))?;
            let placed = put(&mut editor, name, msh)?;
            editor.put(&wear_name(name), Some(WEAR_TYPE_ID), plan.wear.clone())?;
            txn.replace(archive.clone(), editor.write()?);
            Ok(Some(placed))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look_import::Library;

    #[test]
    fn a_dry_run_names_a_library_backup_only_when_it_would_be_made() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Material.lib");
        let lib = |bytes: Option<Vec<u8>>| Library {
            path: path.clone(),
            bytes,
        };
        let shown = path.display();
        assert_eq!(
            would_write_library(&lib(None), b"abc"),
            format!("would write {shown} (3 bytes)"),
            "a new library has nothing to back up"
        );
        assert_eq!(
            would_write_library(&lib(Some(vec![1])), b"abcd"),
            format!("would write {shown} (4 bytes), after a backup to {shown}.bak")
        );
        std::fs::write(dir.path().join("Material.lib.bak"), b"old").unwrap();
        assert_eq!(
            would_write_library(&lib(Some(vec![1])), b"abcd"),
            format!("would write {shown} (4 bytes)"),
            "the first backup is kept"
        );
    }
}
