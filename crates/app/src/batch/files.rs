//! A batch's reads and writes of files: each read after the recovery of an
//! interrupted write in the file's folder, each output written whole or not
//! at all. The front ends' own reads and writes use the same functions.

use super::Tell;
use crate::txn;
use crate::Error;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

/// What a lock or a recovery tells, as a batch's [`Tell`] says it.
fn on_lock(tell: Tell<'_>) -> impl FnMut(txn::Event<'_>) + '_ {
    move |event| tell(super::Event::Lock(event))
}

/// Finishes an interrupted run whose journal lies in the folder of `file`,
/// before the folder is read or written without a lock.
pub fn recover_pending(file: &Path, tell: Tell<'_>) -> Result<(), Error> {
    txn::recover_pending(txn::folder_of(file), &mut on_lock(tell))
}

/// Refuses to replace `path` when it is read-only or hard-linked
/// (`io.read_only`, `io.hard_linked`), before its folder is locked.
pub fn check_replaceable(path: &Path, tell: Tell<'_>) -> Result<(), Error> {
    txn::check_replaceable_unlocked(path, &mut on_lock(tell))
}

/// Locks the folders of `paths` against other mshconv processes, finishing
/// what a run that died there left.
pub fn lock(paths: &[std::path::PathBuf], tell: Tell<'_>) -> Result<txn::Lock, Error> {
    txn::Lock::acquire(paths, &mut on_lock(tell))
}

/// `cannot read PATH: ...`, with the I/O error's code.
fn cannot_read(path: &Path, e: &std::io::Error) -> Error {
    Error::io(format!("cannot read {}", path.display()), e)
}

/// Reads a file with the path in the error, once an interrupted run that
/// was writing it is finished.
pub fn read_file(path: &Path, tell: Tell<'_>) -> Result<Vec<u8>, Error> {
    recover_pending(path, tell)?;
    std::fs::read(path).map_err(|e| cannot_read(path, &e))
}

/// Reads the checked directory of an archive without its payloads (the header,
/// then the directory at the end), once an interrupted run that was writing
/// it is finished: a damaged archive is the container's error without
/// context ([`is_damaged`]), a file that cannot be read an I/O error.
pub fn read_directory(path: &Path, tell: Tell<'_>) -> Result<nres::Directory, Error> {
    recover_pending(path, tell)?;
    let mut file = File::open(path).map_err(|e| cannot_read(path, &e))?;
    let len = file.metadata().map_err(|e| cannot_read(path, &e))?.len();
    let mut head = Vec::with_capacity(nres::raw::HEADER_SIZE);
    (&mut file)
        .take(nres::raw::HEADER_SIZE as u64)
        .read_to_end(&mut head)
        .map_err(|e| cannot_read(path, &e))?;
    let at = nres::Directory::locate(&head, len)?;
    // The located range lies within the file's length: reading it is bounded.
    let directory = read_at(&mut file, at).map_err(|e| cannot_read(path, &e))?;
    Ok(nres::Directory::parse(&head, &directory, len)?)
}

/// [`read_directory`], a damaged archive's error in the context `archive PATH`.
pub fn read_archive_directory(path: &Path, tell: Tell<'_>) -> Result<nres::Directory, Error> {
    read_directory(path, tell).map_err(|e| {
        if is_damaged(&e) {
            e.context(format!("archive {}", path.display()))
        } else {
            e
        }
    })
}

/// Whether an error of [`read_directory`] says the archive is damaged (not
/// that it could not be read).
pub fn is_damaged(e: &Error) -> bool {
    std::error::Error::source(e).is_some_and(|s| s.is::<nres::Error>())
}

/// Bytes `range` of a file (an archive entry's payload).
pub fn read_range(path: &Path, range: Range<u64>) -> Result<Vec<u8>, Error> {
    let mut file = File::open(path).map_err(|e| cannot_read(path, &e))?;
    read_at(&mut file, range).map_err(|e| cannot_read(path, &e))
}

fn read_at(file: &mut File, range: Range<u64>) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(range.start))?;
    let len = range.end.saturating_sub(range.start);
    // Callers pass a range checked to lie within the file's length, so the
    // room is bounded by the file; reserved once, the payload is read in one
    // call rather than through a probe and a growing buffer.
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(std::io::Error::other)?;
    file.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the file became shorter while it was read",
        ));
    }
    Ok(bytes)
}

/// Writes a file the user did not name beside one they did (an `.mtl`, a
/// PNG): as [`write_atomically`], but a symbolic link at its name that leads
/// out of its folder is refused (`io.link_leaves_folder`), never written through.
pub fn write_side(path: &Path, bytes: &[u8], tell: Tell<'_>) -> Result<(), Error> {
    txn::check_side(path)?;
    write_atomically(path, bytes, tell)
}

/// Writes `bytes` to `path` through a temporary file beside it (made
/// exclusively, `.NAME.XXXXXX.tmp`) and a rename: an interrupted run never
/// leaves a partial file under `path`. A symbolic link is written through
/// (the link kept), a replaced file keeps its mode and group, a read-only or
/// hard-linked one is refused. The file is not flushed to the disk on its own
/// (no fsync): outputs can be made again, and a flush per file made a batch
/// on an ext4 disk several times slower than the conversions themselves
/// (bench/RESULTS.md).
pub fn write_atomically(path: &Path, bytes: &[u8], tell: Tell<'_>) -> Result<(), Error> {
    let cannot = |e: &std::io::Error| Error::io(format!("cannot write {}", path.display()), e);
    let real =
        txn::real_path(path).map_err(|e| e.context(format!("cannot write {}", path.display())))?;
    let dir = txn::folder_of(&real);
    recover_pending(&real, tell)?;
    check_replaceable(path, tell)?;
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // As a new file is made (the umask applies), not tempfile's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(|e| cannot(&e))?;
    txn::keep_metadata(tmp.as_file(), &real).map_err(|e| cannot(&e))?;
    tmp.write_all(bytes).map_err(|e| cannot(&e))?;
    tmp.persist(&real).map_err(|e| cannot(&e.error))?;
    Ok(())
}
