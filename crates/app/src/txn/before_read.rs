//! Reading a folder an interrupted write may have left half-finished: every
//! front end calls [`recover_before_reading`] before it reads the user's
//! files (an archive, the game folder's libraries), so that it never reads a
//! write that a killed run left half done (docs/ROBUSTNESS.md, "Writing your
//! files"). What was finished comes back as notes.

use super::{folder_of, recover_pending, Event};
use crate::codes::{ErrorCode, NoteCode};
use crate::Error;
use mshconv_convert::Note;
use std::path::Path;

/// The note of an interrupted run's transaction finished (`txn.rolled_back`
/// or `txn.rolled_forward`), or of a journal left alone because it is not
/// trusted (`txn.journal_unknown`), for an [`Event`] a lock or a recovery
/// tells.
pub fn recovered_note(event: Event<'_>) -> Option<Note> {
    let (code, message) = match event {
        Event::Recovered(code, message) => (
            NoteCode::ALL
                .iter()
                .map(|c| c.code())
                .find(|c| *c == code)
                .unwrap_or(NoteCode::TxnRolledBack.code()),
            message,
        ),
        Event::Untrusted(_, message) => (ErrorCode::TxnJournalUnknown.code(), message),
        Event::Waiting(_) => return None,
    };
    Some(Note {
        code,
        message: message.to_string(),
    })
}

/// Finishes an interrupted run whose journal lies in `folder` (a game
/// folder, an archive's folder) before it is read without a lock: the notes
/// of what was finished (none when nothing was pending, the common case: a
/// look for the journal, no lock taken).
pub fn recover_before_reading(folder: &Path) -> Result<Vec<Note>, Error> {
    let mut notes = Vec::new();
    recover_pending(folder, &mut |event| notes.extend(recovered_note(event)))?;
    Ok(notes)
}

/// [`recover_before_reading`] the folder the file `path` lies in.
pub fn recover_before_reading_file(path: &Path) -> Result<Vec<Note>, Error> {
    recover_before_reading(folder_of(path))
}
