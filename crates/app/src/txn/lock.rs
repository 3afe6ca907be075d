//! The folders a writer writes in, locked against other mshconv processes:
//! an advisory lock (`File::lock`, `flock` on Unix) on `.mshconv.lock` in
//! each folder, taken in one order (the folders' real paths, sorted) so two
//! writers never wait for each other, and held from before the files are read
//! until they are replaced, and removed by the holder when it releases it.
//! Taking the locks finishes the transactions of
//! runs that died there ([`super::recover::recover`]), when their journal is
//! trusted: every folder it names holds it.

use super::file::{check_replaceable, folder_of, real_path};
use super::journal::{self, Found, JOURNAL};
use super::lockset::{self, Record};
use super::trust::recover_all;
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
    /// A journal that is not trusted was left alone (`txn.journal_unknown`,
    /// a note for a reader): its code and message.
    Untrusted(&'a str, &'a str),
}

/// The locks of some folders, released when dropped.
#[derive(Debug)]
pub struct Lock {
    folders: Vec<PathBuf>,
    files: Vec<File>,
    /// The records dead holders left in the lock files taken.
    dead: Vec<Record>,
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
            let r = match real_path(path) {
                Ok(r) => r,
                // A link to nothing (a backup's name, say): its own folder is
                // locked; writing through it is refused when the file is placed.
                Err(_) if journal::is_link(path) => {
                    folders.insert(real_path(folder_of(path))?);
                    continue;
                }
                Err(e) => return Err(e),
            };
            folders.insert(folder_of(&r).to_path_buf());
            real.push((r, path));
        }
        let lock = Lock::folders(folders, on)?;
        for (r, shown) in real {
            check_replaceable(&r, shown)?;
        }
        Ok(lock)
    }

    /// Locks `folders` (real paths) and finishes what dead runs left there;
    /// a writer cannot write beside a journal it does not trust.
    fn folders(folders: BTreeSet<PathBuf>, on: &mut dyn FnMut(Event<'_>)) -> Result<Lock, Error> {
        let (lock, untrusted, _) = Lock::recovering(folders, on)?;
        match untrusted.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(lock),
        }
    }

    /// Locks `folders` (real paths) and finishes the transactions whose
    /// journals are found there and trusted; the journals not trusted
    /// (`txn.journal_unknown`) are returned, untouched, and the other
    /// folders of a dead holder of these locks that hold a journal
    /// ([`lockset::release_partners`]).
    fn recovering(
        mut folders: BTreeSet<PathBuf>,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<(Lock, Vec<Error>, Vec<PathBuf>), Error> {
        // Dead holders' records, from every round (a lock file taken again
        // is one this process made).
        let mut dead = Vec::new();
        loop {
            let mut lock = lock_all(&folders, on)?;
            dead.append(&mut lock.dead);
            let mut found = BTreeMap::new();
            let mut untrusted = Vec::new();
            for folder in &folders {
                match journal::read(folder) {
                    Ok(Some(f)) => {
                        found.insert(folder.clone(), f);
                    }
                    Ok(None) => {}
                    Err(e) => untrusted.push(e),
                }
            }
            // A journal's other folders are locked too, in order, when they
            // hold it (read without their lock: no other run can make a copy
            // of a journal whose run held this folder's lock; it is read
            // again under the lock). One that does not is never locked.
            let more: BTreeSet<PathBuf> = found
                .values()
                .filter_map(|f| match f {
                    Found::Journal(j) => Some(
                        j.folder_paths()
                            .into_iter()
                            .filter(|f| !folders.contains(f) && journal::held_by(f, j))
                            .collect::<Vec<_>>(),
                    ),
                    Found::Incomplete => None,
                })
                .flatten()
                .collect();
            if !more.is_empty() {
                drop(lock);
                folders.extend(more);
                continue;
            }
            recover_all(found, &mut untrusted, on)?;
            let partners = dead
                .iter()
                .flat_map(|r| lockset::release_partners(r, &lock.folders))
                .collect();
            return Ok((lock, untrusted, partners));
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

/// Takes the lock of each folder, in the set's (sorted) order.
fn lock_all(folders: &BTreeSet<PathBuf>, on: &mut dyn FnMut(Event<'_>)) -> Result<Lock, Error> {
    let mut files = Vec::with_capacity(folders.len());
    let mut dead = Vec::new();
    let token = super::new_id();
    let folders: Vec<PathBuf> = folders.iter().cloned().collect();
    for folder in &folders {
        let file = lock_one(folder, on)?;
        dead.extend(lockset::read(&file));
        lockset::write(&file, &token, &folders);
        files.push(file);
    }
    Ok(Lock {
        folders,
        files,
        dead,
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
pub(super) fn still_named(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

#[cfg(not(unix))]
pub(super) fn still_named(_: &File, _: &Path) -> bool {
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
/// killed writer left without a journal is removed. A journal that is not
/// trusted is told ([`Event::Untrusted`]) and left alone: it never stops a
/// reader.
pub fn recover_pending(folder: &Path, on: &mut dyn FnMut(Event<'_>)) -> Result<(), Error> {
    let recover_in = |folder: PathBuf, on: &mut dyn FnMut(Event<'_>)| {
        let (lock, untrusted, partners) = Lock::recovering(BTreeSet::from([folder]), on)?;
        drop(lock);
        for e in untrusted {
            on(Event::Untrusted(e.code(), e.message()));
        }
        Ok::<_, Error>(partners)
    };
    let partners = if std::fs::symlink_metadata(folder.join(JOURNAL)).is_err() {
        remove_dead_lock(folder)
    } else {
        let real = std::fs::canonicalize(folder).map_err(|e| Error::io(folder.display(), &e))?;
        recover_in(real, on)?
    };
    // The other folders of a killed writer, whose journal it left there.
    for partner in partners {
        recover_in(partner, on)?;
    }
    Ok(())
}

/// Removes the lock file a killed writer left in `folder` (one no process
/// holds; a held one is left alone, never waited for), and those it left in
/// the other folders it held ([`lockset::release_partners`]); returns those
/// of them that hold a journal.
fn remove_dead_lock(folder: &Path) -> Vec<PathBuf> {
    let path = folder.join(LOCK_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        return Vec::new();
    }
    let Ok(file) = open_lock_file(&path) else {
        return Vec::new();
    };
    if file.try_lock().is_err() || !still_named(&file, &path) || !cfg!(unix) {
        return Vec::new();
    }
    let record = lockset::read(&file);
    let _ = std::fs::remove_file(&path);
    drop(file);
    let held: Vec<PathBuf> = std::fs::canonicalize(folder).into_iter().collect();
    record.map_or_else(Vec::new, |r| lockset::release_partners(&r, &held))
}
