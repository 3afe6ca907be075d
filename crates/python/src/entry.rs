//! `mshconv.convert_entry` and `Archive.convert`: one model of an archive
//! converted as `mshconv convert ARCHIVE:ENTRY OUT [--game-dir DIR]`
//! converts it. The entry is found as the game finds it; with a game folder,
//! the model's WEAR is the application layer's: [`ModelLocation::Entry`]
//! names the archive and the entry, and [`mshconv_app::GameDir`] reads the
//! WEAR entry beside it, as for the CLI.

use crate::archive::HOW_TO_LIST;
use crate::convert::{format, output_of, Output};
use crate::error;
use mshconv_app::names::model_name;
use mshconv_app::{Error, Folder, Format, GameResources, ModelLocation, Names, Options, Resources};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};

/// Converts the entry `entry` of the archive at `path` to the format `to`:
/// the entry read by name (ASCII case-insensitively), converted as an MSH
/// model named after it (`TANK.MSH` -> `TANK`), the files beside the archive
/// read as the CLI reads them (`TANK.clips.json`), and with `game_dir` the
/// look from the game folder, the WEAR being the entry's sibling in the
/// archive (`TANK.WEA`).
pub fn convert_entry_at(
    path: &Path,
    entry: &str,
    to: &str,
    game_dir: Option<&Path>,
    options: &Options,
) -> Result<mshconv_app::Output, Error> {
    let to = format(to)?;
    // An interrupted write in the archive's folder (and the game folder) is
    // finished before either is read, as the CLI does; its notes come first.
    let mut recovered = mshconv_app::txn::recover_before_reading_file(path)?;
    if let Some(dir) = game_dir.filter(|d| d.is_dir()) {
        recovered.extend(mshconv_app::txn::recover_before_reading(dir)?);
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.display(), &e))?;
    let (_, name, data) = mshconv_app::archive::entry_in(&bytes, entry, false, HOW_TO_LIST)
        .map_err(|e| e.context(format!("archive {}", path.display())))?;
    let model = model_name(&name);
    let folder = Folder::new(path.parent().unwrap_or(Path::new("")));
    let game_resources;
    let resources: &dyn Resources = match game_dir {
        Some(dir) => {
            game_resources = GameResources {
                inner: &folder,
                game: mshconv_app::GameDir::open(dir)?,
                at: ModelLocation::Entry {
                    archive: path.to_path_buf(),
                    entry: name.clone(),
                },
            };
            &game_resources
        }
        None => &folder,
    };
    let mut output = mshconv_app::convert(
        data,
        (Format::Msh, to),
        options,
        &Names::same(&model),
        resources,
    )?;
    recovered.append(&mut output.report.notes);
    output.report.notes = recovered;
    Ok(output)
}

/// The Python call of [`convert_entry_at`]: the options parsed first (a bad
/// one raises before any read), the work without the GIL.
pub fn run(
    py: Python<'_>,
    path: &Path,
    entry: &str,
    to: &str,
    game_dir: Option<PathBuf>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Output> {
    let options = crate::options::parse(options).map_err(|e| error::from_app(py, &e))?;
    let output = error::run(py, || {
        convert_entry_at(path, entry, to, game_dir.as_deref(), &options)
    })?;
    output_of(py, &output)
}

/// Converts the model `entry` of the archive `archive` to `to`: what
/// `mshconv convert ARCHIVE:ENTRY OUT --to TO [--game-dir DIR]` writes. With
/// `game_dir`, the model's WEAR is its sibling entry (`TANK.WEA` beside
/// `TANK.MSH`), found as the CLI finds it. `options` are `convert`'s.
#[pyfunction]
#[pyo3(signature = (archive, entry, to, *, game_dir=None, **options))]
pub fn convert_entry(
    py: Python<'_>,
    archive: PathBuf,
    entry: &str,
    to: &str,
    game_dir: Option<PathBuf>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Output> {
    run(py, &archive, entry, to, game_dir, options)
}
