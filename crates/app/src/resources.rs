//! What a conversion may read besides its input: the seam through which the
//! front ends bring files that lie outside the input (a `.gltf`'s side-car
//! buffers, an `.obj`'s `.mtl`) and the game's look of a model (its WEAR
//! sibling resolved through the game folder's libraries: [`crate::game`]).

use std::path::{Path, PathBuf};

pub use mshconv_convert::plugin::Inputs;

/// What lies outside the input: the files an import reads besides it (the
/// core's [`Inputs`], which the format plug-ins take) and the game's look of
/// an exported model. Every method has a default that provides nothing, so a
/// front end implements only what it has.
pub trait Resources: Inputs {
    /// The game's look of the model being converted (its resolved materials
    /// and decoded textures, [`crate::game::GameLook`]), or `None` without a
    /// game folder. The MSH -> glTF/OBJ exports use it; `None` keeps their
    /// output byte for byte what it was without one.
    fn look(&self) -> Option<crate::game::GameLook> {
        None
    }
}

/// Nothing beside the input (stdin, an archive entry).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoResources;

impl Inputs for NoResources {}
impl Resources for NoResources {}

/// The files in the input's own folder, by plain file name only: a name with
/// a path separator, a `:` or a leading `.` is never read.
#[derive(Debug, Clone)]
pub struct Folder(PathBuf);

impl Folder {
    /// The folder `dir` (an empty path is the current folder).
    pub fn new(dir: &Path) -> Folder {
        Folder(if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir.to_path_buf()
        })
    }
}

/// Whether `name` is a plain file name: no path separator, no `:`, not hidden
/// and not empty.
pub fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', '\\', ':']) && !name.starts_with('.')
}

impl Resources for Folder {}

impl Inputs for Folder {
    fn side_file(&self, name: &str) -> Option<Vec<u8>> {
        if !is_plain_file_name(name) {
            return None;
        }
        std::fs::read(self.0.join(name)).ok()
    }
}

/// An upload's `.mtl`, given with the `.obj` whatever its `mtllib` line says;
/// nothing else.
#[derive(Debug, Clone, Default)]
pub struct GivenMtl(pub Option<Vec<u8>>);

impl Resources for GivenMtl {}

impl Inputs for GivenMtl {
    fn material_library(&self, _named: Option<&str>) -> Option<Vec<u8>> {
        self.0.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.mtl"), b"newmtl x\n").unwrap();
        let folder = Folder::new(dir.path());
        assert_eq!(
            folder.side_file("a.mtl").as_deref(),
            Some(&b"newmtl x\n"[..])
        );
        for bad in ["../a.mtl", "sub/a.mtl", "c:a.mtl", ".a.mtl", ""] {
            assert_eq!(folder.side_file(bad), None, "{bad}");
        }
        assert_eq!(
            folder.material_library(Some("a.mtl")).map(|b| b.len()),
            Some(9)
        );
        assert_eq!(NoResources.material_library(Some("a.mtl")), None);
        assert_eq!(
            GivenMtl(Some(b"m".to_vec())).material_library(None),
            Some(b"m".to_vec())
        );
    }
}
