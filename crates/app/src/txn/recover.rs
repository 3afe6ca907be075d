//! Finishing the transaction of a journal a run that died left
//! ([`recover`]), and the proof asked before a file is replaced or removed:
//! a journal read from the disk may have been planted, so recovery touches a
//! target only when the files beside it show it is what this transaction
//! left there (docs/ROBUSTNESS.md, "Which journal is trusted").

use super::file::{folder_of, remove_if_there, sync_folder};
use super::journal::{self, Journal, Names, State};
use crate::codes::{ErrorCode, NoteCode};
use crate::{Error, Kind};
use std::path::Path;

/// What [`recover`] did, for a note: its code and message.
pub type Recovered = (&'static str, String);

/// Whose journal [`recover`] finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The running transaction's own, in memory: it knows what it did.
    Own,
    /// One read from the disk: every target it would replace or remove must
    /// be proven first ([`unproven`]).
    Disk,
}

/// Finishes the transaction of `journal`, whose folders are all locked:
/// `state` is the furthest state any of its folders' journals reached.
/// Prepared: its temporary files and kept old files are removed (nothing was
/// replaced yet). Committed: every file not yet replaced is, in order.
/// Rolling back: every file replaced is put back. A journal from the
/// disk whose targets are not proven ([`unproven`]) is `txn.journal_unknown`
/// and nothing is done.
pub fn recover(journal: &Journal, state: State, source: Source) -> Result<Recovered, Error> {
    let folders = journal.folder_paths();
    let shown = folders
        .first()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    if source == Source::Disk {
        if let Some(why) = unproven(journal, state) {
            return Err(Error::new(
                Kind::Io,
                ErrorCode::TxnJournalUnknown,
                format!(
                    "the journal in {shown} would change {why}: nothing was done; remove it after checking the files it names"
                ),
            ));
        }
    }
    let fail = |what: &Path, e: &std::io::Error| {
        Error::new(
            Kind::Io,
            ErrorCode::TxnRecoveryFailed,
            format!(
                "an interrupted mshconv run left its journal in {shown} and cannot be finished: {}: {e}; the journal stays, the next mshconv command there tries again",
                what.display()
            ),
        )
        .with_io_cause(e)
    };
    let steps: Vec<Names> = journal.steps.iter().map(|s| journal.names(s)).collect();
    let remove = |p: &Path| remove_if_there(p).map_err(|e| fail(p, &e));
    match state {
        State::Prepared => {
            for n in &steps {
                remove(&n.temp)?;
                remove(&n.new)?;
                if let Some(old) = &n.old {
                    remove(old)?;
                }
            }
        }
        State::Committed => {
            for n in &steps {
                if there(&n.temp) {
                    std::fs::rename(&n.temp, &n.target).map_err(|e| fail(&n.target, &e))?;
                    sync_folder(folder_of(&n.target));
                }
            }
            for n in &steps {
                remove(&n.new)?;
                if let Some(old) = &n.old {
                    remove(old)?;
                }
            }
        }
        State::RollingBack => {
            for n in steps.iter().rev() {
                if there(&n.temp) {
                    // Not replaced yet: its new file and kept old name go.
                    remove(&n.temp)?;
                    if let Some(old) = &n.old {
                        remove(old)?;
                    }
                } else if let Some(old) = &n.old {
                    if there(old) {
                        std::fs::rename(old, &n.target).map_err(|e| fail(&n.target, &e))?;
                    }
                } else if source == Source::Own || same_file(&n.target, &n.new) {
                    remove(&n.target)?;
                }
                remove(&n.new)?;
                sync_folder(folder_of(&n.target));
            }
        }
    }
    for folder in &folders {
        journal::remove(folder, &journal.id);
    }
    let list = journal::shown(steps.iter().map(|n| n.target.as_path()));
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

/// The first target that recovery in `state` would replace or remove
/// without proof that it is what this transaction left there, if any. The
/// rule: rolling forward replaces a target only while it is still the old
/// file (the same file as its kept `.NAME.ID.old`, or absent when there was
/// none); rolling back replaces or removes a target only when it is this
/// transaction's new file (the same file as its `.NAME.ID.new`), or absent.
/// The files renamed over a target are always its own `.NAME.ID.tmp` or
/// `.NAME.ID.old`; removed files are only those names and `.NAME.ID.new`.
pub fn unproven(journal: &Journal, state: State) -> Option<String> {
    let proven = |n: &Names| match state {
        State::Prepared => true,
        State::Committed => {
            !there(&n.temp)
                || regular(&n.temp)
                    && match &n.old {
                        None => !there(&n.target),
                        Some(old) => same_file(&n.target, old) || same_bytes(&n.target, old),
                    }
        }
        State::RollingBack => {
            let touched = !there(&n.temp) && n.old.as_deref().is_none_or(there);
            !touched
                || n.old.as_deref().is_none_or(regular)
                    && (!there(&n.target) || same_file(&n.target, &n.new))
        }
    };
    journal
        .steps
        .iter()
        .map(|s| journal.names(s))
        .find(|n| !proven(n))
        .map(|n| {
            format!(
                "{}, which is not the file this run left there",
                n.target.display()
            )
        })
}

/// Whether something (a link too, not followed) is at `path`.
fn there(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Whether `path` is a regular file (a link is not followed).
fn regular(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// Whether `a` and `b` are two names of one regular file (neither a link).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
        (Ok(a), Ok(b)) => a.is_file() && b.is_file() && same_inode(&a, &b),
        _ => false,
    }
}

#[cfg(unix)]
fn same_inode(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_inode(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// Whether the regular files `a` and `b` hold the same bytes (an old file
/// kept as a copy, where the file system has no hard links).
fn same_bytes(a: &Path, b: &Path) -> bool {
    regular(a)
        && regular(b)
        && std::fs::metadata(a).ok().map(|m| m.len()) == std::fs::metadata(b).ok().map(|m| m.len())
        && matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}
