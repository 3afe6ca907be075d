//! What a write would change, file by file, without writing: a dry run
//! stages its files into a [`Preview`] as a real write stages them into a
//! [`super::Transaction`] ([`Stage`]), and a transaction tells the same of
//! itself before it commits ([`super::Transaction::changes`]).

use std::path::{Path, PathBuf};

/// Where the files of one write are staged: a [`super::Transaction`], which
/// writes them, or a [`Preview`], which only says what each would change.
pub trait Stage {
    /// Replaces (or creates) `path` with `bytes`, after the files added before.
    fn replace(&mut self, path: PathBuf, bytes: Vec<u8>);
    /// Like [`Stage::replace`], for a file the user did not name but that
    /// goes beside one they did (a WEAR): a transaction refuses a symbolic
    /// link there that leads out of its folder ([`super::check_side`]).
    fn replace_side(&mut self, path: PathBuf, bytes: Vec<u8>) {
        self.replace(path, bytes);
    }
    /// Writes the backup `path` of the file `of` (its old `bytes`), unless a
    /// file of that name is there already.
    fn backup(&mut self, path: PathBuf, bytes: Vec<u8>, of: &Path);
}

/// What writing one file does to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// No file of that name is there: it is made.
    New,
    /// The file gets other bytes.
    Changed,
    /// The file gets the bytes it has (written all the same).
    Unchanged,
    /// The backup of a file about to change, made the first time.
    Backup,
}

impl Change {
    /// `new`, `changed`, `unchanged`, `backup`.
    pub fn word(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Changed => "changed",
            Change::Unchanged => "unchanged",
            Change::Backup => "backup",
        }
    }
}

/// One file a write writes (or would write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The path as given.
    pub path: PathBuf,
    /// The size of the bytes written, in bytes.
    pub size: usize,
    /// What the write does to it.
    pub change: Change,
}

/// What writing `bytes` to `path` does, comparing with the file there now;
/// `None` for a backup that is not written (a file of that name is there).
pub(super) fn change_of(path: &Path, bytes: &[u8], only_if_absent: bool) -> Option<FileChange> {
    let change = if only_if_absent {
        if std::fs::symlink_metadata(path).is_ok() {
            return None;
        }
        Change::Backup
    } else {
        match std::fs::read(path) {
            Ok(old) if old == bytes => Change::Unchanged,
            Ok(_) => Change::Changed,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Change::New,
            // Unreadable now: the write would replace it (or fail saying why).
            Err(_) => Change::Changed,
        }
    };
    Some(FileChange {
        path: path.to_path_buf(),
        size: bytes.len(),
        change,
    })
}

/// The files a dry run would write, in the order a transaction writes them;
/// nothing is locked, read beyond the files compared, or written.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Preview {
    files: Vec<FileChange>,
}

impl Preview {
    /// An empty preview.
    pub fn new() -> Preview {
        Preview::default()
    }

    /// Every file the write would write (a backup already there left out).
    pub fn into_files(self) -> Vec<FileChange> {
        self.files
    }
}

impl Stage for Preview {
    fn replace(&mut self, path: PathBuf, bytes: Vec<u8>) {
        self.files.extend(change_of(&path, &bytes, false));
    }

    fn backup(&mut self, path: PathBuf, bytes: Vec<u8>, _of: &Path) {
        self.files.extend(change_of(&path, &bytes, true));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_compares_with_the_files_there_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let same = dir.path().join("same.bin");
        let other = dir.path().join("other.bin");
        let kept = dir.path().join("kept.bak");
        std::fs::write(&same, b"abc").unwrap();
        std::fs::write(&other, b"abc").unwrap();
        std::fs::write(&kept, b"old").unwrap();
        let mut preview = Preview::new();
        preview.backup(kept.clone(), b"abc".to_vec(), &other);
        preview.backup(dir.path().join("made.bak"), b"abc".to_vec(), &other);
        preview.replace(same.clone(), b"abc".to_vec());
        preview.replace(other.clone(), b"abcd".to_vec());
        preview.replace(dir.path().join("new.bin"), b"x".to_vec());
        let got: Vec<(String, usize, &str)> = preview
            .into_files()
            .into_iter()
            .map(|f| {
                let name = f.path.file_name().unwrap().to_string_lossy().into_owned();
                (name, f.size, f.change.word())
            })
            .collect();
        let want = [
            ("made.bak", 3, "backup"),
            ("same.bin", 3, "unchanged"),
            ("other.bin", 4, "changed"),
            ("new.bin", 1, "new"),
        ];
        let want: Vec<(String, usize, &str)> = want
            .iter()
            .map(|(n, s, w)| (n.to_string(), *s, *w))
            .collect();
        assert_eq!(got, want);
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["kept.bak", "other.bin", "same.bin"],
            "nothing written"
        );
        assert_eq!(std::fs::read(&other).unwrap(), b"abc");
    }
}
