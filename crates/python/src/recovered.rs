//! Notes that a call returning something else cannot return (an
//! interrupted write finished before `Archive.entries()` reads the archive):
//! logged as the CLI prints them, `note[CODE]: message`, as warnings of the
//! standard `logging` module's logger `mshconv`.

use mshconv_convert::Note;
use pyo3::prelude::*;

/// Logs each of `notes` on the logger `mshconv` (level WARNING).
pub fn log(py: Python<'_>, notes: &[Note]) -> PyResult<()> {
    if notes.is_empty() {
        return Ok(());
    }
    let logger = py
        .import("logging")?
        .call_method1("getLogger", ("mshconv",))?;
    for note in notes {
        logger.call_method1(
            "warning",
            (format!("note[{}]: {}", note.code, note.message),),
        )?;
    }
    Ok(())
}
