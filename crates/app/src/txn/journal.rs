//! The journal of a transaction, `.mshconv.journal` in every folder it writes
//! in: the files it replaces, the temporary file holding each new one, the
//! name the old one is kept under until the end, and how far it got. The next
//! mshconv that locks one of those folders finds it and finishes the work of
//! a run that died ([`recover`]): a transaction that had not committed is
//! rolled back, one that had is rolled forward.

use super::file::{folder_of, remove_if_there, sync_folder};
use crate::codes::{ErrorCode, NoteCode};
use crate::{Error, Kind};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The journal's file name in each folder of a transaction.
pub const JOURNAL: &str = ".mshconv.journal";
/// The journal's `format` value.
pub(super) const FORMAT: &str = "mshconv-journal";

/// How far a transaction got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// The new files are being written under temporary names; nothing is replaced yet.
    Prepared,
    /// Every new file is complete on the disk: the files are being replaced, in order.
    Committed,
    /// Replacing failed: the files replaced so far are being put back.
    RollingBack,
}

/// One file of a transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The file replaced (its real path: a symbolic link followed).
    pub target: String,
    /// The temporary file beside it holding the new content.
    pub temp: String,
    /// The name the old file is kept under until the end; none when there was none.
    pub old: Option<String>,
}

/// A transaction's journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    format: String,
    version: u32,
    /// The transaction's id (also in its temporary files' names).
    pub id: String,
    /// How far it got.
    pub state: State,
    /// Every folder it writes in (each holds a copy of the journal).
    pub folders: Vec<String>,
    /// The files, in the order they are replaced.
    pub steps: Vec<Step>,
}

impl Journal {
    /// A new journal in the state [`State::Prepared`].
    pub fn new(id: String, folders: &[PathBuf], steps: Vec<Step>) -> Journal {
        Journal {
            format: FORMAT.to_string(),
            version: 1,
            id,
            state: State::Prepared,
            folders: folders.iter().map(|f| encode(f)).collect(),
            steps,
        }
    }
    /// The folders, decoded.
    pub fn folder_paths(&self) -> Vec<PathBuf> {
        self.folders.iter().map(|f| decode(f)).collect()
    }
    /// Whether the journal found in `folder` names only what a transaction
    /// writes: `folder` among its folders, every file in one of them, and
    /// its temporary and kept files named `.NAME.ID.tmp` / `.NAME.ID.old`
    /// beside it. A journal that names anything else (planted, or damaged)
    /// is never acted on: recovery renames and removes the files it names.
    pub fn names_only_its_own(&self, folder: &Path) -> bool {
        let folders = self.folder_paths();
        let id_ok = !self.id.is_empty() && self.id.bytes().all(|b| b.is_ascii_alphanumeric());
        id_ok
            && folders.iter().any(|f| f == folder)
            && self.steps.iter().all(|step| {
                let target = decode(&step.target);
                let Some(name) = target.file_name() else {
                    return false;
                };
                let dir = folder_of(&target);
                let name = name.to_string_lossy();
                let beside = |suffix: &str| dir.join(format!(".{name}.{}.{suffix}", self.id));
                folders.iter().any(|f| f == dir)
                    && decode(&step.temp) == beside("tmp")
                    && step
                        .old
                        .as_deref()
                        .is_none_or(|old| decode(old) == beside("old"))
            })
    }

    fn text(&self) -> Vec<u8> {
        let mut text = serde_json::to_vec_pretty(self).unwrap_or_default();
        text.push(b'\n');
        text
    }
}

/// A path as the journal stores it: as text when it is UTF-8, else (Unix)
/// `hex:` and its bytes, so that any path the system has comes back.
pub fn encode(path: &Path) -> String {
    match path.to_str() {
        Some(s) if !s.starts_with("hex:") => s.to_string(),
        _ => format!("hex:{}", hex(path)),
    }
}

#[cfg(unix)]
fn hex(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(not(unix))]
fn hex(path: &Path) -> String {
    path.to_string_lossy()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The path [`encode`] stored.
pub fn decode(text: &str) -> PathBuf {
    let Some(digits) = text.strip_prefix("hex:") else {
        return PathBuf::from(text);
    };
    let bytes: Vec<u8> = (0..digits.len() / 2)
        .filter_map(|i| u8::from_str_radix(digits.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    bytes_to_path(bytes)
}

#[cfg(unix)]
fn bytes_to_path(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn bytes_to_path(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// The temporary name a journal is rewritten through.
fn rewrite_temp(folder: &Path, id: &str) -> PathBuf {
    folder.join(format!("{JOURNAL}.{id}.tmp"))
}

fn io_error(what: &Path, e: &std::io::Error) -> Error {
    Error::io(format!("cannot write the journal {}", what.display()), e)
}

/// Writes the first journal of a transaction into `folder`: created
/// exclusively and flushed, before any temporary file is made.
pub fn write_new(folder: &Path, journal: &Journal) -> Result<(), Error> {
    let path = folder.join(JOURNAL);
    let mut made = false;
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        made = true;
        f.write_all(&journal.text())?;
        f.sync_all()
    })();
    if result.is_err() && made {
        let _ = std::fs::remove_file(&path);
    }
    sync_folder(folder);
    result.map_err(|e| io_error(&path, &e))
}

/// Replaces the journal in `folder` with `journal` (a new state), atomically.
pub fn rewrite(folder: &Path, journal: &Journal) -> Result<(), Error> {
    let temp = rewrite_temp(folder, &journal.id);
    let path = folder.join(JOURNAL);
    let result = (|| {
        super::file::write_temp(&temp, &journal.text(), None, true)?;
        std::fs::rename(&temp, &path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    sync_folder(folder);
    result.map_err(|e| io_error(&path, &e))
}

/// Removes the journal of transaction `id` from `folder` (and the temporary
/// file of a rewrite that did not finish).
pub fn remove(folder: &Path, id: &str) {
    let _ = remove_if_there(&rewrite_temp(folder, id));
    let _ = remove_if_there(&folder.join(JOURNAL));
    sync_folder(folder);
}

/// What the journal file of a folder holds.
#[derive(Debug)]
pub enum Found {
    /// A journal.
    Journal(Journal),
    /// A file that is not a whole journal: a first journal cut short while
    /// it was written, so before any file of its transaction was.
    Incomplete,
}

/// The journal in `folder`, if there is one.
pub fn read(folder: &Path) -> Result<Option<Found>, Error> {
    let path = folder.join(JOURNAL);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path.display(), &e)),
    };
    parse(&bytes, folder).map(Some)
}

/// The journal file `bytes` found in `folder`: a journal this mshconv wrote
/// and may act on, an incomplete one, or `txn.journal_unknown` (another
/// format or version, or one that names files a transaction would not write).
pub fn parse(bytes: &[u8], folder: &Path) -> Result<Found, Error> {
    let path = folder.join(JOURNAL);
    Ok(match serde_json::from_slice::<Journal>(bytes) {
        Ok(j) if j.format == FORMAT && j.version == 1 && !j.names_only_its_own(folder) => {
            return Err(Error::new(
                Kind::Io,
                ErrorCode::TxnJournalUnknown,
                format!(
                    "{} names files this mshconv would not have written (outside its folders, or not its temporary names): nothing was done; remove it after checking the files it names",
                    path.display()
                ),
            ))
        }
        Ok(j) if j.format == FORMAT && j.version == 1 => Found::Journal(j),
        Ok(j) => {
            return Err(Error::new(
                Kind::Io,
                ErrorCode::TxnJournalUnknown,
                format!(
                    "{} is a journal of format {:?} version {}, which this mshconv does not know: finish with the mshconv that wrote it, or remove it after checking the files it names",
                    path.display(),
                    j.format,
                    j.version
                ),
            ))
        }
        Err(_) => Found::Incomplete,
    })
}

/// What [`recover`] did, for a note: its code and message.
pub type Recovered = (&'static str, String);

/// Finishes the transaction of `journal`, whose folders are all locked:
/// `state` is the furthest state any of its folders' journals reached.
/// Prepared: its temporary files and kept old files are removed (nothing was
/// replaced yet). Committed: every file not yet replaced is, in order.
/// Rolling back: every file replaced is put back.
pub fn recover(journal: &Journal, state: State) -> Result<Recovered, Error> {
    let folders = journal.folder_paths();
    let fail = |what: &Path, e: &std::io::Error| {
        Error::new(
            Kind::Io,
            ErrorCode::TxnRecoveryFailed,
            format!(
                "an interrupted mshconv run left its journal in {} and cannot be finished: {}: {e}; the journal stays, the next mshconv command there tries again",
                folders.first().map(|f| f.display().to_string()).unwrap_or_default(),
                what.display()
            ),
        )
        .with_io_cause(e)
    };
    let mut names = Vec::new();
    match state {
        State::Prepared => {
            for step in &journal.steps {
                let (temp, old) = (decode(&step.temp), step.old.as_deref().map(decode));
                remove_if_there(&temp).map_err(|e| fail(&temp, &e))?;
                if let Some(old) = old {
                    remove_if_there(&old).map_err(|e| fail(&old, &e))?;
                }
                names.push(decode(&step.target));
            }
        }
        State::Committed => {
            for step in &journal.steps {
                let (target, temp) = (decode(&step.target), decode(&step.temp));
                if temp.exists() {
                    std::fs::rename(&temp, &target).map_err(|e| fail(&target, &e))?;
                    sync_folder(folder_of(&target));
                }
                names.push(target);
            }
            for step in &journal.steps {
                if let Some(old) = step.old.as_deref().map(decode) {
                    remove_if_there(&old).map_err(|e| fail(&old, &e))?;
                }
            }
        }
        State::RollingBack => {
            for step in journal.steps.iter().rev() {
                let (target, temp) = (decode(&step.target), decode(&step.temp));
                if temp.exists() {
                    // Not replaced yet: its new file and kept old name go.
                    remove_if_there(&temp).map_err(|e| fail(&temp, &e))?;
                    if let Some(old) = step.old.as_deref().map(decode) {
                        remove_if_there(&old).map_err(|e| fail(&old, &e))?;
                    }
                } else if let Some(old) = step.old.as_deref().map(decode) {
                    if old.exists() {
                        std::fs::rename(&old, &target).map_err(|e| fail(&target, &e))?;
                    }
                } else {
                    remove_if_there(&target).map_err(|e| fail(&target, &e))?;
                }
                sync_folder(folder_of(&target));
                names.push(target);
            }
        }
    }
    for folder in &folders {
        remove(folder, &journal.id);
    }
    let list = names
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(if state == State::Committed {
        (
            NoteCode::TxnRolledForward.code(),
            format!("an interrupted mshconv run was completed: {list} now hold what it wrote"),
        )
    } else {
        (
            NoteCode::TxnRolledBack.code(),
            format!(
                "an interrupted mshconv run was rolled back: {list} are as they were before it"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_come_back_from_the_journal() {
        for p in ["a/b.rlb", "hex:odd", "/x y/Material.lib"] {
            assert_eq!(decode(&encode(Path::new(p))), PathBuf::from(p));
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = Path::new(std::ffi::OsStr::from_bytes(b"units\xff.rlb"));
            assert!(encode(odd).starts_with("hex:"));
            assert_eq!(decode(&encode(odd)), odd);
        }
    }
}
