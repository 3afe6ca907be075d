//! The journal of a transaction, `.mshconv.journal` in every folder it writes
//! in: the files it replaces, the temporary file holding each new one, the
//! name the old one is kept under until the end, and how far it got. The next
//! mshconv that locks one of those folders finds it and finishes the work of
//! a run that died ([`recover`]): a transaction that had not committed is
//! rolled back, one that had is rolled forward.

use super::file::{folder_of, remove_if_there, sync_folder};
use crate::codes::ErrorCode;
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
    /// The files of `step`, decoded: its target, and beside it the names a
    /// transaction of this id gives the new file (`.NAME.ID.tmp`, and
    /// `.NAME.ID.new` once linked), and the old one kept (`.NAME.ID.old`).
    pub fn names(&self, step: &Step) -> Names {
        let target = decode(&step.target);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = folder_of(&target).to_path_buf();
        let beside = |suffix: &str| dir.join(format!(".{name}.{}.{suffix}", self.id));
        Names {
            temp: beside("tmp"),
            new: beside("new"),
            old: step.old.as_ref().map(|_| beside("old")),
            target,
        }
    }

    /// Whether the journal found in `folder` names only what a transaction
    /// writes: an id of 16 hex digits; folders that are absolute, plain (no
    /// `.` or `..`) and distinct, `folder` among them; each target's folder
    /// one of them; its temporary and kept files named `.NAME.ID.tmp` /
    /// `.NAME.ID.old` beside it. A journal that names anything else (planted,
    /// or damaged) is never acted on: recovery renames and removes the files
    /// it names. (Whether its other folders hold it too is asked by the lock,
    /// which reads them.)
    pub fn names_only_its_own(&self, folder: &Path) -> bool {
        let folders: std::collections::BTreeSet<PathBuf> =
            self.folder_paths().into_iter().collect();
        let id_ok = self.id.len() == 16
            && self
                .id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let distinct =
            folders.len() == self.folders.len() && folders.iter().all(|f| is_plain_absolute(f));
        id_ok
            && distinct
            && folders.contains(folder)
            && self.steps.iter().all(|step| {
                let names = self.names(step);
                let ours = |n: Option<&std::ffi::OsStr>| {
                    n.is_some_and(|n| n != JOURNAL && n != super::LOCK_FILE)
                };
                ours(names.target.file_name())
                    && folders.contains(folder_of(&names.target))
                    && decode(&step.temp) == names.temp
                    && step.old.as_deref().map(decode) == names.old
            })
    }

    /// Whether `other` is this journal (another folder's copy), whatever
    /// state either reached.
    pub fn same_as(&self, other: &Journal) -> bool {
        (&self.id, &self.folders, &self.steps) == (&other.id, &other.folders, &other.steps)
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

/// The files of one step of a journal ([`Journal::names`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    /// The file replaced.
    pub target: PathBuf,
    /// Its new content, until renamed over the target.
    pub temp: PathBuf,
    /// A second name of the new file (a hard link made with the temporary
    /// file): after the rename, the proof that the target is this
    /// transaction's own new file.
    pub new: PathBuf,
    /// The old content kept, when there was a file.
    pub old: Option<PathBuf>,
}

/// `paths` for a message: the first few, and how many more.
pub fn shown<'p>(paths: impl ExactSizeIterator<Item = &'p Path>) -> String {
    const FEW: usize = 8;
    let count = paths.len();
    let mut text = paths
        .take(FEW)
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if count > FEW {
        text += &format!(" and {} more", count - FEW);
    }
    text
}

/// Whether `path` is absolute and plain: no `.` or `..` in it.
fn is_plain_absolute(path: &Path) -> bool {
    use std::path::Component;
    path.is_absolute()
        && path.components().all(|c| {
            matches!(
                c,
                Component::RootDir | Component::Prefix(_) | Component::Normal(_)
            )
        })
}

/// The most a journal file is read of: a real one lists the files of one
/// write (a few hundred bytes each); anything longer is not one of ours.
pub const MAX_LEN: u64 = 16 << 20;

/// What the journal file of a folder holds.
#[derive(Debug)]
pub enum Found {
    /// A journal.
    Journal(Journal),
    /// A file that is not a whole journal: a first journal cut short while
    /// it was written, so before any file of its transaction was.
    Incomplete,
}

/// What is at the journal's name in a folder.
enum Loaded {
    /// Nothing.
    Absent,
    /// A symbolic link (never followed).
    Link,
    /// A regular file, read.
    File(Found),
}

/// The journal in `folder`, if there is one: read only from a regular file
/// (opened without following a link and without blocking, so a FIFO or a
/// device is refused, never read), of at most [`MAX_LEN`] bytes. A symbolic
/// link at its name is removed, never followed. Anything else there (a
/// folder, a FIFO, a longer file) is `txn.journal_unknown`.
pub fn read(folder: &Path) -> Result<Option<Found>, Error> {
    Ok(match load(folder)? {
        Loaded::Absent => None,
        Loaded::Link => {
            let path = folder.join(JOURNAL);
            std::fs::remove_file(&path).map_err(|e| Error::io(path.display(), &e))?;
            sync_folder(folder);
            None
        }
        Loaded::File(found) => Some(found),
    })
}

/// Whether `folder` (a real path: no link in it) holds a copy of `journal`:
/// read only, to know whether to lock it too.
pub fn held_by(folder: &Path, journal: &Journal) -> bool {
    let real = std::fs::canonicalize(folder).is_ok_and(|r| r == folder);
    real && matches!(load(folder), Ok(Loaded::File(Found::Journal(j))) if j.same_as(journal))
}

fn load(folder: &Path) -> Result<Loaded, Error> {
    let path = folder.join(JOURNAL);
    let unknown = |why: String| {
        Error::new(
            Kind::Io,
            ErrorCode::TxnJournalUnknown,
            format!("{} {why}: it is not a journal this mshconv wrote, and nothing was done; remove it after checking it", path.display()),
        )
    };
    let file = match open_no_follow(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Loaded::Absent),
        Err(_) if is_link(&path) => return Ok(Loaded::Link),
        Err(e) => return Err(unknown(format!("cannot be read ({e})"))),
    };
    let meta = file
        .metadata()
        .map_err(|e| unknown(format!("cannot be read ({e})")))?;
    if !meta.is_file() {
        return Err(unknown("is not a regular file".into()));
    }
    if meta.len() > MAX_LEN {
        return Err(unknown(format!(
            "holds {} bytes, more than a journal (at most {MAX_LEN})",
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_LEN + 1), &mut bytes)
        .map_err(|e| unknown(format!("cannot be read ({e})")))?;
    if bytes.len() as u64 > MAX_LEN {
        return Err(unknown(format!(
            "holds more than a journal (at most {MAX_LEN} bytes)"
        )));
    }
    parse(&bytes, folder).map(Loaded::File)
}

/// Opens `path` for reading: a symbolic link is an error, not followed
/// (`O_NOFOLLOW`), and a FIFO or device opens without waiting (`O_NONBLOCK`).
pub(super) fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Whether `path` is a symbolic link (itself, not followed).
pub(super) fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
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
                    "{} names files this mshconv would not have written (outside its folders, or not its temporary names), or not this folder: nothing was done; remove it after checking the files it names",
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
