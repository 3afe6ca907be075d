//! Which journal found at a lock is trusted, and what is done with one that
//! is not (docs/ROBUSTNESS.md, "Which journal is trusted"): a journal is
//! acted on only when every folder it names holds it (so one planted in a
//! folder cannot act in another), and then only on proven files
//! ([`super::recover::unproven`]).

use super::file::folder_of;
use super::journal::{self, Found, Journal, State, JOURNAL};
use super::lock::Event;
use super::recover::{recover, Source};
use crate::codes::NoteCode;
use crate::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Finishes every transaction whose journal was found (by folder) and is
/// trusted: each once, in the furthest state any of its folders' journals
/// reached. A journal some folder it names does not hold (locked, with the
/// same journal) is alone: its run had written nothing yet or had finished
/// (the journals are written before any file and removed after every one),
/// so only that journal file is removed, and only while no file of its
/// transaction is beside its targets; else it is not trusted (`untrusted`).
pub(super) fn recover_all(
    found: BTreeMap<PathBuf, Found>,
    untrusted: &mut Vec<Error>,
    on: &mut dyn FnMut(Event<'_>),
) -> Result<(), Error> {
    let mut by_id: BTreeMap<String, (Journal, State, Vec<PathBuf>)> = BTreeMap::new();
    for (folder, f) in &found {
        match f {
            Found::Journal(j) => {
                let entry = by_id
                    .entry(j.id.clone())
                    .or_insert_with(|| (j.clone(), j.state, Vec::new()));
                entry.1 = entry.1.max(j.state);
                entry.2.push(folder.clone());
            }
            Found::Incomplete => {
                // Cut short while first written: nothing of its run was written yet.
                super::file::remove_if_there(&folder.join(JOURNAL))
                    .map_err(|e| Error::io(folder.join(JOURNAL).display(), &e))?;
                on(Event::Recovered(
                    NoteCode::TxnRolledBack.code(),
                    &format!(
                        "an mshconv run interrupted before it wrote anything left an incomplete journal in {}; removed",
                        folder.display()
                    ),
                ));
            }
        }
    }
    for (journal, state, holders) in by_id.values() {
        let held =
            |f: &PathBuf| matches!(found.get(f), Some(Found::Journal(j)) if j.same_as(journal));
        if journal.folder_paths().iter().all(held) {
            match recover(journal, *state, Source::Disk) {
                Ok((code, message)) => on(Event::Recovered(code, &message)),
                Err(e) if e.code() == "txn.journal_unknown" => untrusted.push(e),
                Err(e) => return Err(e),
            }
            continue;
        }
        for folder in holders {
            match remove_alone(journal, *state, folder) {
                Ok((code, message)) => on(Event::Recovered(code, &message)),
                Err(e) => untrusted.push(e),
            }
        }
    }
    Ok(())
}

/// Removes the journal of a transaction found in `folder` alone (another of
/// its folders lacks it), when none of the files it names beside its targets
/// in `folder` is there: then its run had not begun writing files or had
/// finished them. Else it is `txn.journal_unknown`, left as it is.
fn remove_alone(
    journal: &Journal,
    state: State,
    folder: &Path,
) -> Result<(&'static str, String), Error> {
    let others: Vec<PathBuf> = journal
        .folder_paths()
        .into_iter()
        .filter(|f| f.as_path() != folder)
        .collect();
    let others = journal::shown(others.iter().map(PathBuf::as_path));
    let left = journal.steps.iter().map(|s| journal.names(s)).find(|n| {
        folder_of(&n.target) == folder
            && [Some(&n.temp), Some(&n.new), n.old.as_ref()]
                .into_iter()
                .flatten()
                .any(|p| std::fs::symlink_metadata(p).is_ok())
    });
    if let Some(n) = left {
        return Err(Error::new(
            crate::Kind::Io,
            crate::codes::ErrorCode::TxnJournalUnknown,
            format!(
                "the journal in {} names {} too, which has no copy of it, and files of its transaction are beside {}: nothing was done; remove it after checking the files it names",
                folder.display(),
                others,
                n.target.display()
            ),
        ));
    }
    journal::remove(folder, &journal.id);
    let (code, what) = match state {
        State::Committed => (NoteCode::TxnRolledForward, "had finished"),
        _ => (NoteCode::TxnRolledBack, "had written nothing yet"),
    };
    Ok((
        code.code(),
        format!(
            "an interrupted mshconv run left its journal in {} alone ({} has none: the run {what}); removed, nothing else touched",
            folder.display(),
            others
        ),
    ))
}
