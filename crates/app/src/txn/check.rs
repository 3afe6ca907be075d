//! Whether a file may be replaced, asked by a writer that does not hold its
//! folder's lock yet: an output renamed into place (which takes no lock), or
//! `batch --into` before it converts. Another writer's transaction gives its
//! file a second name while it holds the lock (the old content kept as
//! `.NAME.ID.old`, a hard link), so a check outside the lock may see a hard
//! link that is gone once that writer is done: a refusal counts only when
//! made again under the lock.

use super::file::{check_replaceable, real_path};
use super::lock::{Event, Lock};
use crate::codes::ErrorCode;
use crate::Error;
use std::path::Path;

/// Refuses to replace `path` as [`check_replaceable`] does (`io.read_only`,
/// `io.hard_linked`, `io.is_a_directory`), for a caller that holds no lock:
/// a file that passes passes; a refusal is checked again under the folder's
/// lock ([`Lock::acquire`], which waits for another writer there, `on` hears
/// of it), and stands only if it holds there too. When the folder cannot be
/// locked (a folder the user cannot write), the first refusal stands.
pub fn check_replaceable_unlocked(path: &Path, on: &mut dyn FnMut(Event<'_>)) -> Result<(), Error> {
    super::hook::check_point(path);
    let real = real_path(path)?;
    let Err(refused) = check_replaceable(&real, path) else {
        return Ok(());
    };
    match Lock::acquire(&[path.to_path_buf()], on) {
        Ok(_) => Ok(()),
        Err(e) if is_refusal(&e) => Err(e),
        Err(_) => Err(refused),
    }
}

/// Whether `e` is one of [`check_replaceable`]'s refusals.
fn is_refusal(e: &Error) -> bool {
    [
        ErrorCode::IoReadOnly,
        ErrorCode::IoHardLinked,
        ErrorCode::IoIsADirectory,
    ]
    .iter()
    .any(|c| c.code() == e.code())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_refusal_made_outside_the_lock_stands_when_it_holds_under_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("units.rlb");
        std::fs::write(&file, b"x").unwrap();
        check_replaceable_unlocked(&file, &mut |_| {}).unwrap();
        check_replaceable_unlocked(&dir.path().join("new.rlb"), &mut |_| {}).unwrap();
        std::fs::hard_link(&file, dir.path().join("other.rlb")).unwrap();
        let e = check_replaceable_unlocked(&file, &mut |_| {}).unwrap_err();
        assert_eq!(e.code(), "io.hard_linked");
        // The lock taken for the second look is released and its file gone.
        assert!(!dir.path().join(super::super::LOCK_FILE).exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_second_name_gone_once_the_lock_is_free_is_no_refusal() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("units.rlb");
        std::fs::write(&file, b"x").unwrap();
        let kept = dir.path().join(".units.rlb.0123456789abcdef.old");
        std::fs::hard_link(&file, &kept).unwrap();
        // Another writer holds the lock while the kept name is there, and
        // removes it before it lets go (as a transaction does).
        assert_eq!(
            check_replaceable(&file, &file).unwrap_err().code(),
            "io.hard_linked"
        );
        let lock = Lock::acquire(&[dir.path().join("new.rlb")], &mut |_| {}).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let checker = {
            let file = file.clone();
            std::thread::spawn(move || {
                check_replaceable_unlocked(&file, &mut |event| {
                    if let Event::Waiting(_) = event {
                        tx.send(()).unwrap();
                    }
                })
            })
        };
        rx.recv().unwrap();
        std::fs::remove_file(&kept).unwrap();
        drop(lock);
        checker.join().unwrap().unwrap();
    }
}
