//! `mshconv.Archive`: an archive of models (`.rlb`) read, and edited as the
//! CLI edits one (`mshconv convert IN ARCHIVE:ENTRY`, `mshconv nres remove`):
//! the application layer's put ([`mshconv_app::put`]: its put rule, its
//! notes) and `Editor`, written as a transaction under the folder's lock
//! (atomic and durable: docs/ROBUSTNESS.md). Before the archive is read, an
//! interrupted write in its folder is finished
//! ([`mshconv_app::txn::recover_before_reading_file`]; its notes logged:
//! [`crate::recovered`]).

use crate::convert::Note;
use crate::error;
use crate::look::{notes_of, Advice};
use mshconv_app::archive::{self, Editor, Placed};
use mshconv_app::look_import::write::Place;
use mshconv_app::put::{put_model, PutModel};
use mshconv_app::txn::{recover_before_reading_file, recovered_note, Lock};
use mshconv_app::Error;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyList};
use std::path::{Path, PathBuf};

/// How a refusal tells a Python user to add an entry.
pub const HOW_TO_ADD: &str = "pass add=True";
/// How a refusal tells a Python user to list the entries.
pub const HOW_TO_LIST: &str = "Archive.entries() lists them";

/// One directory entry: its `name`, `type` as text (`MSH`, `WEAR`, or the
/// number), payload `size` in bytes and `offset` in the file.
#[pyclass(module = "mshconv", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct Entry {
    /// The entry's name.
    pub name: String,
    /// The type as text where printable (`MSH`), else the number.
    #[pyo3(name = "type")]
    pub type_text: String,
    /// Payload size in bytes.
    pub size: u32,
    /// The payload's offset in the file (`file[offset:offset + size]` is `read(name)`).
    pub offset: u32,
}

#[pymethods]
impl Entry {
    fn __repr__(&self) -> String {
        format!(
            "Entry({:?}, type={:?}, size={})",
            self.name, self.type_text, self.size
        )
    }
}

/// What `Archive.put` did: `placed` (`"replaced"` or `"added"`) and its
/// `notes` (the CLI's `note[...]` lines: what a replaced entry loses, a look
/// the game folder does not get, an interrupted write finished).
#[pyclass(module = "mshconv", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct PutOutcome {
    /// `replaced` or `added`.
    pub placed: &'static str,
    /// The notes of the put.
    pub notes: Vec<Note>,
}

#[pymethods]
impl PutOutcome {
    fn __repr__(&self) -> String {
        format!(
            "PutOutcome(placed={:?}, notes={})",
            self.placed,
            self.notes.len()
        )
    }
}

/// An NRes archive file (`units.rlb`), read on every call (never cached).
#[pyclass(module = "mshconv", frozen)]
pub struct Archive {
    path: PathBuf,
}

/// The file's bytes, read once an interrupted write in its folder is
/// finished (the notes of that); an `io.*` error naming it.
fn read_file(path: &Path) -> Result<(Vec<u8>, Vec<mshconv_convert::Note>), Error> {
    let notes = recover_before_reading_file(path)?;
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.display(), &e))?;
    Ok((bytes, notes))
}

/// The archive's directory and the bytes it lies in.
fn parsed<'a>(bytes: &'a [u8], path: &Path) -> Result<nres::Archive<'a>, Error> {
    nres::Archive::parse(bytes)
        .map_err(|e| Error::from(e).context(format!("archive {}", path.display())))
}

/// Locks the archive's folder (finishing an interrupted write there: its
/// notes), opens the archive at `path`, applies `change` and replaces the
/// file as one transaction, as the CLI's `nres remove`.
fn edit<T>(
    path: &Path,
    change: impl FnOnce(&mut Editor) -> Result<T, Error>,
) -> Result<(T, Vec<mshconv_convert::Note>), Error> {
    archive::check_not_folder(path, None)?;
    let mut notes = Vec::new();
    let lock = Lock::acquire(&[path.to_path_buf()], &mut |e| {
        notes.extend(recovered_note(e))
    })?;
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.display(), &e))?;
    let mut editor =
        Editor::open(&bytes).map_err(|e| e.context(format!("archive {}", path.display())))?;
    let result = change(&mut editor)?;
    let mut txn = lock.transaction();
    txn.replace(path, editor.write()?);
    txn.commit()?;
    Ok((result, notes))
}

#[pymethods]
impl Archive {
    /// The archive at `path` (nothing is read until a method asks).
    #[new]
    fn new(path: PathBuf) -> Archive {
        Archive { path }
    }

    /// The path given.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Every directory entry, in directory order.
    fn entries(&self, py: Python<'_>) -> PyResult<Vec<Entry>> {
        let (entries, notes) = error::run(py, || {
            let (bytes, notes) = read_file(&self.path)?;
            let archive = parsed(&bytes, &self.path)?;
            let entries = mshconv_app::report::entry_rows(&archive)
                .into_iter()
                .map(|row| Entry {
                    name: row.name,
                    type_text: mshconv_app::report::type_label(row.type_id),
                    size: row.size,
                    offset: row.offset,
                })
                .collect();
            Ok((entries, notes))
        })?;
        crate::recovered::log(py, &notes)?;
        Ok(entries)
    }

    /// The payload of the entry `name` (found as the game finds it: ASCII
    /// case-insensitively), byte for byte.
    fn read<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        let (data, notes) = error::run(py, || {
            let (bytes, notes) = read_file(&self.path)?;
            let (_, _, data) = archive::entry_in(&bytes, name, false, HOW_TO_LIST)?;
            Ok((data.to_vec(), notes))
        })?;
        crate::recovered::log(py, &notes)?;
        Ok(PyBytes::new(py, &data))
    }

    /// Puts a model under `name`: `data` is an `.msh` (opened strictly and
    /// kept byte for byte) or a glTF/GLB/OBJ (converted to MSH), as
    /// `mshconv convert IN ARCHIVE:ENTRY` and `write_model(data, path,
    /// entry=name)` put it. Replaces the entry of that name; a name the
    /// archive lacks is added only with `add=True`, else refused
    /// (`archive.no_such_entry`, with the closest names). Returns a
    /// `PutOutcome`: `placed` (`"replaced"` or `"added"`) and the notes (what
    /// a replaced entry loses: `archive.entry_loses`). An archive whose
    /// entries share or overlap their bytes is refused before anything is
    /// copied (`archive.entries_overlap`).
    #[pyo3(signature = (name, data, add=false))]
    fn put(&self, py: Python<'_>, name: &str, data: &[u8], add: bool) -> PyResult<PutOutcome> {
        let advice = Advice {
            path: self.path.display().to_string(),
            entry: Some(name.to_string()),
        };
        let outcome = error::run(py, || {
            put_model(&PutModel {
                data,
                from: crate::convert::input_format(data, None)?,
                place: Place::Entry {
                    archive: self.path.clone(),
                    name: name.to_string(),
                },
                add,
                game_dir: None,
                how_to_add: HOW_TO_ADD,
                advice: &advice,
                dry_run: false,
                original: None,
            })
        })?;
        Ok(PutOutcome {
            placed: match outcome.placed {
                Some(Placed::Added) => "added",
                _ => "replaced",
            },
            notes: notes_of(&outcome.report),
        })
    }

    /// Removes the entry `name` (`input.no_such_entry` when there is none;
    /// `archive.entries_overlap` for an archive whose entries share bytes).
    fn remove(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        let ((), notes) = error::run(py, || edit(&self.path, |editor| editor.remove(name)))?;
        crate::recovered::log(py, &notes)
    }

    /// Converts the model `entry` to `to`, as `mshconv.convert_entry(path,
    /// entry, to, ...)` (with `game_dir`, its WEAR is the sibling entry).
    #[pyo3(signature = (entry, to, *, game_dir=None, **options))]
    fn convert(
        &self,
        py: Python<'_>,
        entry: &str,
        to: &str,
        game_dir: Option<PathBuf>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<crate::convert::Output> {
        crate::entry::run(py, &self.path, entry, to, game_dir, options)
    }

    // The mapping of entry names to payloads, each call reading the file.

    /// The entries' names, in directory order.
    fn keys(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.with_archive(py, |a| a.entries().map(|e| e.name()).collect())
    }

    /// The entries' payloads, in directory order.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let items = self.with_archive(py, |a| {
            a.entries().map(|e| e.data().to_vec()).collect::<Vec<_>>()
        })?;
        Ok(items.iter().map(|d| PyBytes::new(py, d)).collect())
    }

    /// `(name, payload)` of every entry, in directory order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
        let items = self.with_archive(py, |a| {
            a.entries()
                .map(|e| (e.name(), e.data().to_vec()))
                .collect::<Vec<_>>()
        })?;
        Ok(items
            .into_iter()
            .map(|(n, d)| (n, PyBytes::new(py, &d)))
            .collect())
    }

    /// The payload of the entry `name`, or `default` when there is none.
    #[pyo3(signature = (name, default=None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(match self.payload(py, name)? {
            Some(data) => Some(PyBytes::new(py, &data).into_any()),
            None => default,
        })
    }

    fn __getitem__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        match self.payload(py, name)? {
            Some(data) => Ok(PyBytes::new(py, &data)),
            None => Err(PyKeyError::new_err(name.to_string())),
        }
    }

    fn __contains__(&self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(name) = name.extract::<String>() else {
            return Ok(false);
        };
        self.with_archive(py, |a| archive::find(a, &name).is_some())
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.with_archive(py, |a| a.len())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        PyList::new(py, self.keys(py)?)?.try_iter()
    }

    // A context manager: nothing is held open (every call reads the file), so
    // leaving the block only ends it.

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        false
    }

    fn __repr__(&self) -> String {
        format!("Archive({:?})", self.path.display().to_string())
    }
}

impl Archive {
    /// `look` at the archive's directory, the file read and parsed now.
    fn with_archive<T: Send>(
        &self,
        py: Python<'_>,
        look: impl FnOnce(&nres::Archive<'_>) -> T + Send,
    ) -> PyResult<T> {
        let (value, notes) = error::run(py, || {
            let (bytes, notes) = read_file(&self.path)?;
            Ok((look(&parsed(&bytes, &self.path)?), notes))
        })?;
        crate::recovered::log(py, &notes)?;
        Ok(value)
    }

    /// The payload of the entry `name` (found as the game finds it), if any.
    fn payload(&self, py: Python<'_>, name: &str) -> PyResult<Option<Vec<u8>>> {
        self.with_archive(py, |a| {
            archive::find(a, name)
                .and_then(|i| a.entry(i))
                .map(|e| e.data().to_vec())
        })
    }
}
