//! What a lock file says: the folders its holder locked together and a
//! token no other holder has. A writer killed while it held two folders
//! leaves a lock file in each (and, killed between them, a journal in one);
//! the next command that finds one of them dead reads it and releases the
//! other folders' dead lock files of the same token, so a command touching
//! one folder cleans both. A lock file planted in one folder cannot make
//! mshconv remove anything in another: there, only a dead lock file holding
//! the same token goes, which only the killed holder could have written.

use super::journal::{self, JOURNAL};
use super::lock::still_named;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::PathBuf;

/// The first line of a lock file's record.
const HEADER: &str = "mshconv-lock 1";
/// The most of a lock file that is read: a record lists a few folders.
const MAX_LEN: u64 = 1 << 20;

/// A dead holder's record: its token and the folders it held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    token: String,
    folders: Vec<PathBuf>,
}

/// Writes the record of a lock over `folders` into the held lock `file`.
pub fn write(mut file: &File, token: &str, folders: &[PathBuf]) {
    let mut text = format!("{HEADER}\n{token}\n");
    for f in folders {
        text.push_str(&journal::encode(f));
        text.push('\n');
    }
    let _ = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(text.as_bytes()));
}

/// The record in the lock `file`, if it holds one.
pub fn read(mut file: &File) -> Option<Record> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.take(MAX_LEN).read_to_string(&mut text).ok()?;
    let mut lines = text.lines();
    (lines.next()? == HEADER).then_some(())?;
    let token = lines.next()?.to_string();
    (token.len() == 16 && token.bytes().all(|b| b.is_ascii_hexdigit())).then_some(())?;
    Some(Record {
        token,
        folders: lines.map(journal::decode).collect(),
    })
}

/// Releases the dead lock files of `record`'s folders other than `held`
/// (the folders the caller holds): each that is still the dead holder's
/// (same token, or empty: made and not written yet; no process holds it)
/// is removed when its folder has no
/// journal. The folders that have one are returned: their journal is
/// finished by whoever may lock them (a reader holding nothing).
pub fn release_partners(record: &Record, held: &[PathBuf]) -> Vec<PathBuf> {
    let mut with_journal = Vec::new();
    for folder in &record.folders {
        let plain = std::fs::canonicalize(folder).is_ok_and(|r| &r == folder);
        if !plain || held.contains(folder) {
            continue;
        }
        let path = folder.join(super::LOCK_FILE);
        let Ok(file) = journal::open_no_follow(&path) else {
            continue;
        };
        // Empty: made by the holder, killed before it wrote its record.
        let empty = file.metadata().is_ok_and(|m| m.is_file() && m.len() == 0);
        let dead = file.metadata().is_ok_and(|m| m.is_file())
            && file.try_lock().is_ok()
            && still_named(&file, &path)
            && (empty || read(&file).is_some_and(|r| r.token == record.token));
        if !dead {
            continue;
        }
        if std::fs::symlink_metadata(folder.join(JOURNAL)).is_ok() {
            with_journal.push(folder.clone());
        } else if cfg!(unix) {
            let _ = std::fs::remove_file(&path);
            super::file::sync_folder(folder);
        }
    }
    with_journal
}
