//! What a file was when it was read, so a process-wide cache can tell that
//! the file has been replaced since: every write of mshconv (and of most
//! tools) renames a new file over the old one, which changes its length,
//! its modification time or (on Unix) its inode.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A file's identity and version: the path it was found at, its length,
/// its modification time and its inode (0 where there is none); `None` when
/// there was no such file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp(Option<(PathBuf, u64, Option<SystemTime>, u64)>);

impl FileStamp {
    /// The stamp of the file at `path` now (`None`: no file to stamp).
    pub fn of(path: Option<&Path>) -> FileStamp {
        FileStamp(path.and_then(|p| {
            let meta = std::fs::metadata(p).ok()?;
            Some((
                p.to_path_buf(),
                meta.len(),
                meta.modified().ok(),
                inode(&meta),
            ))
        }))
    }
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_file_has_another_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Textures.lib");
        assert_eq!(FileStamp::of(Some(&path)), FileStamp(None));
        assert_eq!(FileStamp::of(None), FileStamp(None));
        std::fs::write(&path, b"first").unwrap();
        let first = FileStamp::of(Some(&path));
        assert_eq!(
            first,
            FileStamp::of(Some(&path)),
            "unchanged: the same stamp"
        );
        // Replaced as a transaction replaces it: a new file renamed over it,
        // of the same length.
        let new = dir.path().join("new.tmp");
        std::fs::write(&new, b"other").unwrap();
        std::fs::rename(&new, &path).unwrap();
        assert_ne!(first, FileStamp::of(Some(&path)));
    }
}
