//! `mshconv.write_model`: a model written to a `.msh` file or an archive
//! entry, its look (textures, materials, WEAR) into the game folder when one
//! is given: what `mshconv convert IN OUT[:ENTRY] --game-dir DIR` writes,
//! through the application layer's one operation ([`mshconv_app::put`]),
//! which locks, plans and writes as a transaction; with `dry_run=True` it
//! says which files would change and writes nothing.

use crate::archive::HOW_TO_ADD;
use crate::convert::{input_format, Note};
use crate::error;
use mshconv_app::look_import::advice::GameDirAdvice;
use mshconv_app::look_import::write::Place;
use mshconv_app::put::{put_model, PutModel};
use mshconv_convert::Report;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use std::path::PathBuf;

/// One file a write writes, or would write: its `path`, the `size` of the
/// bytes written and the `change`: `"new"`, `"changed"`, `"unchanged"` (the
/// same bytes written again) or `"backup"` (a library's first backup).
#[pyclass(module = "mshconv", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct PlannedFile {
    /// The path as the write names it.
    pub path: String,
    /// Size of the bytes written, in bytes.
    pub size: usize,
    /// `new`, `changed`, `unchanged` or `backup`.
    pub change: String,
}

#[pymethods]
impl PlannedFile {
    fn __repr__(&self) -> String {
        format!(
            "PlannedFile({:?}, size={}, change={:?})",
            self.path, self.size, self.change
        )
    }
}

/// What `write_model(..., dry_run=True)` would do: the `files` it would
/// write and the `notes` it would give; nothing was written.
#[pyclass(module = "mshconv", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct DryRun {
    /// Every file the write would write, in order.
    pub files: Vec<PlannedFile>,
    /// The notes of the write.
    pub notes: Vec<Note>,
}

#[pymethods]
impl DryRun {
    fn __repr__(&self) -> String {
        format!("DryRun(files={:?}, notes={})", self.files, self.notes.len())
    }
}

/// How `look.not_written` tells a Python user to give the game folder:
/// the `game_dir` keyword, and this call with it.
#[derive(Debug)]
pub struct Advice {
    /// The `path` given, as text.
    pub path: String,
    /// The `entry` given.
    pub entry: Option<String>,
}

impl GameDirAdvice for Advice {
    fn option(&self) -> String {
        "game_dir".to_string()
    }

    fn command(&self, dir: &str) -> String {
        let entry = match &self.entry {
            Some(e) => format!(", entry={}", py_str(e)),
            None => String::new(),
        };
        format!(
            "mshconv.write_model(data, {}{entry}, game_dir={})",
            py_str(&self.path),
            py_str(dir)
        )
    }
}

/// `text` as a Python string literal (double-quoted, `\` and `"` escaped).
fn py_str(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The notes of a report.
pub fn notes_of(report: &Report) -> Vec<Note> {
    report
        .notes
        .iter()
        .map(|n| Note {
            code: n.code.to_string(),
            message: n.message.clone(),
        })
        .collect()
}

/// Writes the model `data` (an `.msh`, kept byte for byte, or a glTF/GLB/OBJ,
/// converted) to `path`, or into its archive entry `entry` (replacing it;
/// adding it only with `add`). With `game_dir`, a glTF's or OBJ's look goes
/// into the game folder's libraries (each backed up the first time,
/// `Textures.lib.bak`) and the model's WEAR, all in one transaction with the
/// model. Returns the notes (the CLI's `note[...]` lines); with `dry_run`,
/// a `DryRun` of the files it would write, writing nothing.
#[pyfunction]
#[pyo3(signature = (data, path, *, entry=None, add=false, game_dir=None, dry_run=false, original=None))]
#[allow(clippy::too_many_arguments)]
pub fn write_model(
    py: Python<'_>,
    data: &[u8],
    path: PathBuf,
    entry: Option<String>,
    add: bool,
    game_dir: Option<PathBuf>,
    dry_run: bool,
    original: Option<Vec<u8>>,
) -> PyResult<Py<PyAny>> {
    let advice = Advice {
        path: path.display().to_string(),
        entry: entry.clone(),
    };
    let outcome = error::run(py, || {
        let place = match entry {
            Some(name) => Place::Entry {
                archive: path,
                name,
            },
            None => Place::File(path),
        };
        put_model(&PutModel {
            data,
            from: input_format(data, None)?,
            place,
            add,
            game_dir: game_dir.as_deref(),
            how_to_add: HOW_TO_ADD,
            advice: &advice,
            dry_run,
            original: original.map(Into::into),
        })
    })?;
    let notes = notes_of(&outcome.report);
    if !dry_run {
        return notes.into_py_any(py);
    }
    let files = outcome
        .files
        .into_iter()
        .map(|f| PlannedFile {
            path: f.path.display().to_string(),
            size: f.size,
            change: f.change.word().to_string(),
        })
        .collect();
    DryRun { files, notes }.into_py_any(py)
}
