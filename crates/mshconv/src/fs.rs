//! Writing files so that an interrupted run never leaves half of one.
//!
//! Outputs (a converted model, a report) are written by [`write_atomically`].
//! The user's own files (archives, the game folder's libraries, a model and
//! its WEAR going back into the game) are written under a lock, as one
//! transaction, by the application layer's [`mshconv_app::txn`]; [`lock`]
//! takes the lock and tells the user what it waits for.

use anyhow::Context;
use mshconv_app::txn::{self, Event, Lock};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Prints what taking a lock brings: a line while waiting for another
/// mshconv, a note for an interrupted run finished.
fn tell(event: Event<'_>) {
    match event {
        Event::Waiting(dir) => crate::out::stderr_line(&format!(
            "waiting for another mshconv writing {}...",
            dir.display()
        )),
        Event::Recovered(code, message) | Event::Untrusted(code, message) => {
            crate::out::note_line(code, message)
        }
    }
}

/// Locks the folders of `paths` (the files about to be read and replaced)
/// against other mshconv processes, finishing what a run that died there
/// left (docs/ROBUSTNESS.md, "Writing your files").
pub fn lock(paths: &[PathBuf]) -> anyhow::Result<Lock> {
    Ok(Lock::acquire(paths, &mut tell)?)
}

/// Finishes an interrupted run whose journal lies in the folder of `file`,
/// before the folder is read or written without a lock.
pub fn recover_pending(file: &Path) -> anyhow::Result<()> {
    Ok(recover_folder(txn::folder_of(file))?)
}

/// Finishes an interrupted run whose journal lies in `dir` (the application
/// layer's [`txn::recover_pending`]), its notes printed as they come; while
/// another mshconv holds the folder (its journal is there because it is
/// writing), the line that says so is printed before the wait, as a writer's is.
pub fn recover_folder(dir: &Path) -> Result<(), mshconv_app::Error> {
    txn::recover_pending(dir, &mut tell)
}

/// Refuses to replace `path` when it is read-only or hard-linked
/// (`io.read_only`, `io.hard_linked`), before its folder is locked: a
/// refusal is checked again under the lock, after any other writer there
/// (whose transaction gives its file a second name for a while).
pub fn check_replaceable(path: &Path) -> anyhow::Result<()> {
    Ok(txn::check_replaceable_unlocked(path, &mut tell)?)
}

/// Writes a file the user did not name beside one they did (an `.mtl`, a
/// PNG): as [`write_atomically`], but a symbolic link at its name that leads
/// out of its folder is refused (`io.link_leaves_folder`), never written through.
pub fn write_side(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    txn::check_side(path)?;
    write_atomically(path, bytes)
}

/// Writes `bytes` to `path` through a temporary file beside it (made
/// exclusively, `.NAME.XXXXXX.tmp`) and a rename: an interrupted run never
/// leaves a partial file under `path`. A symbolic link is written through
/// (the link kept), a replaced file keeps its mode and group, a read-only or
/// hard-linked one is refused. The file is not flushed to the disk on its own
/// (no fsync): outputs can be made again, and a flush per file made a batch
/// on an ext4 disk several times slower than the conversions themselves
/// (bench/RESULTS.md).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let cannot = || format!("cannot write {}", path.display());
    let real = txn::real_path(path).with_context(cannot)?;
    let dir = txn::folder_of(&real);
    recover_pending(&real)?;
    check_replaceable(path)?;
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
    let mut tmp = builder.tempfile_in(dir).with_context(cannot)?;
    txn::keep_metadata(tmp.as_file(), &real).with_context(cannot)?;
    tmp.write_all(bytes).with_context(cannot)?;
    tmp.persist(&real)
        .map_err(|e| e.error)
        .with_context(cannot)?;
    Ok(())
}
