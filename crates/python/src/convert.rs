//! `mshconv.convert`: `mshconv_app::convert` over bytes, and its `Output`.

use crate::error;
use mshconv_app::{Format, GameResources, ModelLocation, Names, NoResources, Resources};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::PathBuf;

/// What a conversion noted (the CLI's `note[CODE]: message` lines).
#[pyclass(module = "mshconv", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct Note {
    /// The stable code, e.g. `export.clips_beside`.
    pub code: String,
    /// What happened and where.
    pub message: String,
}

#[pymethods]
impl Note {
    fn __repr__(&self) -> String {
        format!("Note({:?}, {:?})", self.code, self.message)
    }
}

/// What a conversion made: `files` (file name -> bytes, the main file
/// first, named `name` + extension, then the side files) and its `notes`.
#[pyclass(module = "mshconv", frozen, get_all)]
pub struct Output {
    /// File name -> bytes, the main file first.
    pub files: Py<PyDict>,
    /// The conversion's notes.
    pub notes: Py<PyList>,
}

#[pymethods]
impl Output {
    fn __repr__(&self, py: Python<'_>) -> String {
        let names: Vec<String> = self
            .files
            .bind(py)
            .keys()
            .iter()
            .map(|k| k.to_string())
            .collect();
        let notes = self.notes.bind(py).len();
        format!("Output(files={names:?}, notes={notes})")
    }
}

/// The format named `name` (`msh`, `glb`, `gltf`, `obj`, `usda`).
pub fn format(name: &str) -> Result<Format, mshconv_app::Error> {
    name.parse::<Format>()
        .map_err(|e| mshconv_app::Error::bad_option(e.to_string()))
}

/// The input's format: `source` when given, else told from the bytes. An
/// archive of models is no model (`request.entry_required`, as the CLI says).
pub fn input_format(data: &[u8], source: Option<&str>) -> Result<Format, mshconv_app::Error> {
    let from = match source {
        Some(s) => format(s)?,
        None => mshconv_app::input_format(None, None, data)?.0,
    };
    if from == Format::Msh {
        if let Ok(parsed) = nres::Archive::parse(data) {
            if mshconv_app::archive::is_model_archive(&parsed) {
                return Err(mshconv_app::archive::entry_required(
                    &parsed,
                    "the data",
                    "read one model with mshconv.Archive(path).read(name)",
                ));
            }
        }
    }
    Ok(from)
}

/// The resources of a conversion of bytes: nothing beside them, or with
/// `game_dir` the model's look from the game folder (its WEAR as given),
/// read once an interrupted write there is finished (the notes of that).
pub fn resources(
    game_dir: Option<PathBuf>,
    name: &str,
    wear: Option<Vec<u8>>,
) -> Result<(Box<dyn Resources>, Vec<mshconv_convert::Note>), mshconv_app::Error> {
    let Some(dir) = game_dir else {
        return Ok((Box::new(NoResources), Vec::new()));
    };
    let recovered = if dir.is_dir() {
        mshconv_app::txn::recover_before_reading(&dir)?
    } else {
        Vec::new()
    };
    let game = mshconv_app::GameDir::open(&dir)?;
    let wear = wear.map(|bytes| (mshconv_app::game::wear_name(name), bytes));
    let resources = GameResources {
        inner: &NoResources,
        game,
        at: ModelLocation::Given {
            model: name.to_string(),
            wear,
        },
    };
    Ok((Box::new(resources), recovered))
}

/// Converts `data` to the format `to`: the CLI's `mshconv convert`.
///
/// `source` is the input's format (told from the bytes when omitted), `name`
/// the model's name and the output files' stem, `game_dir` the game folder
/// whose libraries give an export its materials and textures, read once an
/// interrupted write there is finished (its notes first; with `wear`,
/// the model's material list, `NAME.wea` beside it), `options` the CLI's
/// conversion options (`lod`, `group`, `fps`, `axis`, `rotation`,
/// `animation`, `clips`, `embed_original`); `original` a glTF's original
/// (the model it was exported from: the CLI's `--original`).
#[pyfunction]
#[pyo3(signature = (data, to, *, source=None, name="model", game_dir=None, wear=None, original=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn convert(
    py: Python<'_>,
    data: &[u8],
    to: &str,
    source: Option<&str>,
    name: &str,
    game_dir: Option<PathBuf>,
    wear: Option<Vec<u8>>,
    original: Option<Vec<u8>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Output> {
    let mut options = crate::options::parse(options).map_err(|e| error::from_app(py, &e))?;
    options.original = original.map(Into::into);
    let output = error::run(py, || {
        let to = format(to)?;
        let from = input_format(data, source)?;
        let (resources, recovered) = resources(game_dir, name, wear)?;
        let mut output = mshconv_app::convert(
            data,
            (from, to),
            &options,
            &Names::same(name),
            resources.as_ref(),
        )?;
        output.report.notes.splice(0..0, recovered);
        Ok(output)
    })?;
    output_of(py, &output)
}

/// The Python `Output` of a conversion's files and notes.
pub fn output_of(py: Python<'_>, output: &mshconv_app::Output) -> PyResult<Output> {
    let files = PyDict::new(py);
    for file in &output.files {
        files.set_item(&file.name, PyBytes::new(py, &file.bytes))?;
    }
    let notes = PyList::empty(py);
    for note in &output.report.notes {
        let note = Note {
            code: note.code.to_string(),
            message: note.message.clone(),
        };
        notes.append(Py::new(py, note)?)?;
    }
    Ok(Output {
        files: files.unbind(),
        notes: notes.unbind(),
    })
}
