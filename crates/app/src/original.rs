//! The original a glTF import recognises another tool's rewrite against
//! (docs/GLTF.md, "The original"): a glTF export records only the
//! fingerprint of the model it was made from, and a write over a model (an
//! archive's entry, a `.msh` file) gives the model it replaces, which is the
//! one the file came from when a modder writes it back. The import checks
//! the fingerprint; another model (or one changed since the export) is said
//! (`import.original_changed`) and the model rebuilt from its content.

use crate::archive::find;
use mshconv_convert::Original;
use std::path::Path;

/// The model file at `path`, when there is one (a write over it gives it
/// as the original).
pub fn replaced_file(path: &Path) -> Option<Original> {
    std::fs::read(path).ok().map(Into::into)
}

/// The entry `name` of the archive file at `path`, when the archive reads
/// and has it.
pub fn replaced_entry(path: &Path, name: &str) -> Option<Original> {
    let bytes = std::fs::read(path).ok()?;
    let archive = nres::Archive::parse(&bytes).ok()?;
    entry_of(&archive, name)
}

/// The model a write of format `to` to `output` (told apart as `target`)
/// replaces, when there is one: the archive's entry, else the `.msh` file
/// at `output` (none for stdout, `-`, or another format).
pub fn replaced_by(
    target: &crate::archive::Target,
    output: &Path,
    to: crate::Format,
) -> Option<Original> {
    match target {
        crate::archive::Target::Entry { archive, name } => replaced_entry(archive, name),
        crate::archive::Target::File if to == crate::Format::Msh && output.as_os_str() != "-" => {
            replaced_file(output)
        }
        crate::archive::Target::File => None,
    }
}

/// The entry `name` of an archive in memory, when it has one.
pub fn entry_of(archive: &nres::Archive<'_>, name: &str) -> Option<Original> {
    let entry = find(archive, name).and_then(|i| archive.entry(i))?;
    Some(entry.data().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nres::{OwnedArchive, OwnedEntry, WriteMode};

    #[test]
    fn the_replaced_model_is_the_file_or_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.msh");
        assert_eq!(replaced_file(&file), None);
        std::fs::write(&file, b"model").unwrap();
        assert_eq!(replaced_file(&file).as_deref(), Some(&b"model"[..]));
        let mut a = OwnedArchive::new();
        a.push(OwnedEntry::new(0x4D5348, "TANK.MSH", b"tank".to_vec()).unwrap());
        let path = dir.path().join("units.rlb");
        std::fs::write(&path, a.write(WriteMode::Canonical).unwrap()).unwrap();
        assert_eq!(
            replaced_entry(&path, "tank.msh").as_deref(),
            Some(&b"tank"[..])
        );
        assert_eq!(replaced_entry(&path, "other.msh"), None);
        assert_eq!(replaced_entry(&file, "tank.msh"), None);
    }
}
