//! An archive file edited in place: `nres put`, `nres remove` (and the
//! entry a put replaces): the folder locked before the archive is read
//! (another writer waited for, a run that died there finished), the archive
//! edited in memory by the [`Editor`] (every other entry keeps its bytes,
//! name and order) and replaced as one transaction ([`crate::txn`]): a kill
//! at any moment leaves the old archive whole, and two writers both land.

use super::{check_not_folder, Editor};
use crate::error::Error;
use crate::txn::{Event, Lock};
use std::path::Path;

/// Locks the folder of the archive at `path` (`on` hears of a wait or a run
/// finished, as it happens), opens the archive, applies `change`, and
/// replaces the file. A folder given as the archive is refused
/// (`archive.is_folder`) before anything is locked.
pub fn edit_file<T>(
    path: &Path,
    on: &mut dyn FnMut(Event<'_>),
    change: impl FnOnce(&mut Editor) -> Result<T, Error>,
) -> Result<T, Error> {
    check_not_folder(path, None)?;
    let lock = Lock::acquire(&[path.to_path_buf()], on)?;
    // Under the lock nothing is left to finish: the read recovers nothing.
    let (result, bytes) = crate::batch::edited(path, &|_| {}, change)?;
    let mut txn = lock.transaction();
    txn.replace(path, bytes);
    txn.commit()?;
    Ok(result)
}
