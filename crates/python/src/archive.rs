//! `mshconv.Archive`: an archive of models (`.rlb`) read, and edited as the
//! CLI edits one (`mshconv convert IN ARCHIVE:ENTRY`, `mshconv nres remove`):
//! the application layer's put rule and `Editor`, written as a transaction
//! under the folder's lock (atomic and durable: docs/ROBUSTNESS.md).

use crate::error;
use mshconv_app::archive::{self, Editor};
use mshconv_app::txn::Lock;
use mshconv_app::{Error, Names, Options};
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

/// An NRes archive file (`units.rlb`), read on every call (never cached).
#[pyclass(module = "mshconv", frozen)]
pub struct Archive {
    path: PathBuf,
}

/// The file's bytes; an `io.*` error naming it.
fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::io(path.display(), &e))
}

/// The archive's directory and the bytes it lies in.
fn parsed<'a>(bytes: &'a [u8], path: &Path) -> Result<nres::Archive<'a>, Error> {
    nres::Archive::parse(bytes)
        .map_err(|e| Error::from(e).context(format!("archive {}", path.display())))
}

/// Locks the archive's folder, opens the archive at `path`, applies `change`
/// and replaces the file as one transaction, as the CLI's `nres put/remove`.
pub fn edit<T>(
    path: &Path,
    change: impl FnOnce(&mut Editor) -> Result<T, Error>,
) -> Result<T, Error> {
    archive::check_not_folder(path, None)?;
    let lock = Lock::acquire(&[path.to_path_buf()], &mut |_| {})?;
    let bytes = read_file(path)?;
    let mut editor =
        Editor::open(&bytes).map_err(|e| e.context(format!("archive {}", path.display())))?;
    let result = change(&mut editor)?;
    let mut txn = lock.transaction();
    txn.replace(path, editor.write()?);
    txn.commit()?;
    Ok(result)
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
        error::run(py, || {
            let bytes = read_file(&self.path)?;
            let archive = parsed(&bytes, &self.path)?;
            Ok(mshconv_app::report::entry_rows(&archive)
                .into_iter()
                .map(|row| Entry {
                    name: row.name,
                    type_text: mshconv_app::report::type_label(row.type_id),
                    size: row.size,
                    offset: row.offset,
                })
                .collect())
        })
    }

    /// The payload of the entry `name` (found as the game finds it: ASCII
    /// case-insensitively), byte for byte.
    fn read<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        let data = error::run(py, || {
            let bytes = read_file(&self.path)?;
            let (_, _, data) = archive::entry_in(&bytes, name, false, HOW_TO_LIST)?;
            Ok(data.to_vec())
        })?;
        Ok(PyBytes::new(py, &data))
    }

    /// Puts a model under `name`: `data` is an `.msh` (opened strictly and
    /// kept byte for byte) or a glTF/GLB/OBJ (converted to MSH, as
    /// `mshconv convert IN ARCHIVE:ENTRY`). Replaces the entry of that name;
    /// a name the archive lacks is added only with `add=True`, else refused
    /// (`archive.no_such_entry`, with the closest names). An archive whose
    /// entries share or overlap their bytes is refused before anything is
    /// copied (`archive.entries_overlap`). Returns `"replaced"` or `"added"`.
    #[pyo3(signature = (name, data, add=false))]
    fn put(&self, py: Python<'_>, name: &str, data: &[u8], add: bool) -> PyResult<&'static str> {
        error::run(py, || {
            archive::check_model_entry_name(name)?;
            let from = crate::convert::input_format(data, None)?;
            let (msh, _) = mshconv_app::model_as_msh(
                data,
                from,
                &Options::default(),
                &Names::same(&model_stem(name)),
                &mshconv_app::NoResources,
            )?;
            let placed = edit(&self.path, |editor| {
                editor.put_model(name, msh, add, HOW_TO_ADD)
            })?;
            Ok(match placed {
                archive::Placed::Replaced => "replaced",
                archive::Placed::Added => "added",
            })
        })
    }

    /// Removes the entry `name` (`input.no_such_entry` when there is none;
    /// `archive.entries_overlap` for an archive whose entries share bytes).
    fn remove(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        error::run(py, || edit(&self.path, |editor| editor.remove(name)))
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
        error::run(py, || {
            let bytes = read_file(&self.path)?;
            Ok(look(&parsed(&bytes, &self.path)?))
        })
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

/// An entry name's stem (`TANK.MSH` -> `TANK`), the model's name.
fn model_stem(name: &str) -> String {
    name.rsplit_once('.')
        .map_or(name, |(stem, _)| stem)
        .to_string()
}
