//! Writing files so that an interrupted run never leaves half of one.
//!
//! Outputs (a converted model, a report) are written by [`write_atomically`].
//! The user's own files (archives, the game folder's libraries, a model and
//! its WEAR going back into the game) are written under a lock, as one
//! transaction, by the application layer's [`mshconv_app::txn`]; [`lock`]
//! takes the lock and tells the user what it waits for.

use mshconv_app::batch::files;
use mshconv_app::txn::{Event, Lock};
use std::path::{Path, PathBuf};

/// Prints what taking a lock brings: a line while waiting for another
/// mshconv, a note for an interrupted run finished.
pub fn tell(event: Event<'_>) {
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

/// The application layer's [`files`] functions tell through this: each
/// event printed by [`tell`].
pub fn batch_tell(event: mshconv_app::batch::Event<'_>) {
    if let mshconv_app::batch::Event::Lock(event) = event {
        tell(event);
    }
}

/// Writes a file the user did not name beside one they did (an `.mtl`, a
/// PNG): as [`write_atomically`], but a symbolic link at its name that leads
/// out of its folder is refused (`io.link_leaves_folder`), never written through.
pub fn write_side(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(files::write_side(path, bytes, &batch_tell)?)
}

/// Writes `bytes` to `path` whole or not at all (the application layer's
/// [`files::write_atomically`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(files::write_atomically(path, bytes, &batch_tell)?)
}
