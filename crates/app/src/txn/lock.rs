//! The folders a writer writes in, locked against other mshconv processes:
//! an advisory lock (`File::lock`, `flock` on Unix) on `.mshconv.lock` in
//! each folder, taken in one order (the folders' real paths, sorted) so two
//! writers never wait for each other, and held from before the files are read
//! until they are replaced, and removed by the holder when it releases it.
//! Taking the locks finishes the transactions of
//! runs that died there ([`super::journal::recover`]).

use super::file::{check_replaceable, folder_of, real_path};
use super::journal::{self, Found, JOURNAL};
use crate::codes::NoteCode;
use crate::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// The lock file's name in each locked folder.
pub const LOCK_FILE: &str = ".mshconv.lock";

/// Something a writer tells the user while taking its locks.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// Another process holds the lock of this folder: waiting for it.
    Waiting(&'a Path),
    /// An interrupted transaction was finished: a note's code and message.
    Recovered(&'a str, &'a str),
}

/// The locks of some folders, released when dropped.
#[derive(Debug)]
pub struct Lock {
    folders: Vec<PathBuf>,
    files: Vec<File>,
}

impl Lock {
    /// Locks the folders of `paths` (the files about to be read and
    /// replaced, existing or not; a symbolic link's target's folder), waiting
    /// for other mshconv processes that hold them (`on` hears of it), finishes
    /// the interrupted transactions found there, and checks that every
    /// existing file may be replaced (`io.read_only`, `io.hard_linked`).
    pub fn acquire(paths: &[PathBuf], on: &mut dyn FnMut(Event<'_>)) -> Result<Lock, Error> {
        let mut folders = BTreeSet::new();
        let mut real = Vec::with_capacity(paths.len());
        for path in paths {
            let r = real_path(path)?;
            folders.insert(folder_of(&r).to_path_buf());
            real.push((r, path));
        }
        let lock = Lock::folders(folders, on)?;
        for (r, shown) in real {
            check_replaceable(&r, shown)?;
        }
        Ok(lock)
    }

    /// Locks `folders` (real paths) and finishes what dead runs left there.
    fn folders(
        mut folders: BTreeSet<PathBuf>,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<Lock, Error> {
        loop {
            let lock = lock_all(&folders, on)?;
            // A journal may name folders not locked yet: lock them all, in order.
            let mut found = BTreeMap::new();
            for folder in &folders {
                if let Some(f) = journal::read(folder)? {
                    found.insert(folder.clone(), f);
                }
            }
            let more: Vec<PathBuf> = found
                .values()
                .filter_map(|f| match f {
                    Found::Journal(j) => Some(j.folder_paths()),
                    Found::Incomplete => None,
                })
                .flatten()
                .filter(|f| !folders.contains(f))
                .collect();
            if !more.is_empty() {
                drop(lock);
                folders.extend(more);
                continue;
            }
            recover_all(found, on)?;
            return Ok(lock);
        }
    }

    /// The folders locked (real paths, sorted).
    pub fn locked(&self) -> &[PathBuf] {
        &self.folders
    }

    /// A transaction over files in the locked folders.
    pub fn transaction(&self) -> super::Transaction<'_> {
        super::Transaction::new(self)
    }
}

/// Finishes every transaction whose journal was found (by folder): each
/// once, in the furthest state any of its folders' journals reached.
fn recover_all(
    found: BTreeMap<PathBuf, Found>,
    on: &mut dyn FnMut(Event<'_>),
) -> Result<(), Error> {
    let mut by_id: BTreeMap<String, (journal::Journal, journal::State)> = BTreeMap::new();
    for (folder, f) in found {
        match f {
            Found::Journal(j) => {
                let state = j.state;
                let entry = by_id.entry(j.id.clone()).or_insert((j, state));
                entry.1 = entry.1.max(state);
            }
            Found::Incomplete => {
                // Cut short while first written: nothing of its run was written yet.
                super::file::remove_if_there(&folder.join(JOURNAL))
                    .map_err(|e| Error::io(folder.join(JOURNAL).display(), &e))?;
                on(Event::Recovered(
                    NoteCode::TxnRolledBack.code(),
                    &format!(
                        "an mshconv run interrupted before it wrote anything left an incomplete journal in {}; removed",
                        folder.display()
                    ),
                ));
            }
        }
    }
    for (journal, state) in by_id.values() {
        let (code, message) = journal::recover(journal, *state)?;
        on(Event::Recovered(code, &message));
    }
    Ok(())
}

/// Takes the lock of each folder, in the set's (sorted) order.
fn lock_all(folders: &BTreeSet<PathBuf>, on: &mut dyn FnMut(Event<'_>)) -> Result<Lock, Error> {
    let mut files = Vec::with_capacity(folders.len());
    for folder in folders {
        files.push(lock_one(folder, on)?);
    }
    Ok(Lock {
        folders: folders.iter().cloned().collect(),
        files,
    })
}

/// Takes the lock of one folder: `.mshconv.lock` made if need be and
/// locked; then, since the holder before removed it on release, checked to be
/// the file the name holds now (else taken again).
fn lock_one(folder: &Path, on: &mut dyn FnMut(Event<'_>)) -> Result<File, Error> {
    let path = folder.join(LOCK_FILE);
    let cannot = |e: &std::io::Error| {
        Error::io_message(
            e,
            format!(
                "cannot lock {} against other mshconv processes ({}): {e}",
                folder.display(),
                path.display()
            ),
        )
    };
    let mut told = false;
    loop {
        let file = match open_lock_file(&path) {
            Ok(f) => f,
            Err(e) if is_link_error(&e) => {
                // A symbolic link placed at the lock's name is removed, never followed.
                std::fs::remove_file(&path).map_err(|e| cannot(&e))?;
                continue;
            }
            Err(e) => return Err(cannot(&e)),
        };
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                if !told {
                    on(Event::Waiting(folder));
                    told = true;
                }
                file.lock().map_err(|e| cannot(&e))?;
            }
            Err(TryLockError::Error(e)) => return Err(cannot(&e)),
        }
        if still_named(&file, &path) {
            return Ok(file);
        }
    }
}

/// Opens (or makes) the lock file; a symbolic link at its name is an error
/// (`O_NOFOLLOW`), not followed.
fn open_lock_file(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// Whether opening failed because the name is a symbolic link.
fn is_link_error(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn still_named(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_named(_: &File, _: &Path) -> bool {
    true
}

impl Drop for Lock {
    /// Removes each lock file while it is still held (Unix; a waiting
    /// process then finds the name gone and takes it again), then releases it.
    fn drop(&mut self) {
        if cfg!(unix) {
            for folder in &self.folders {
                let _ = std::fs::remove_file(folder.join(LOCK_FILE));
            }
        }
        self.files.clear();
    }
}

/// Finishes an interrupted transaction whose journal lies in `folder`, if
/// there is one (taking and releasing the folder's lock): for writers and
/// readers that do not lock, before they touch the folder. A lock file a
/// killed writer left without a journal is removed.
pub fn recover_pending(folder: &Path, on: &mut dyn FnMut(Event<'_>)) -> Result<(), Error> {
    if std::fs::symlink_metadata(folder.join(JOURNAL)).is_err() {
        remove_dead_lock(folder);
        return Ok(());
    }
    let real = std::fs::canonicalize(folder).map_err(|e| Error::io(folder.display(), &e))?;
    Lock::folders(BTreeSet::from([real]), on).map(drop)
}

/// Removes the lock file a killed writer left in `folder` (one no process
/// holds; a held one is left alone, never waited for).
fn remove_dead_lock(folder: &Path) {
    let path = folder.join(LOCK_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        return;
    }
    if let Ok(file) = open_lock_file(&path) {
        if file.try_lock().is_ok() && still_named(&file, &path) && cfg!(unix) {
            let _ = std::fs::remove_file(&path);
        }
    }
}
