//! # mshconv (Python): the application layer as a Python module
//!
//! The native part of the Python package `mshconv` (built by maturin into
//! one abi3 wheel for CPython 3.10 and later; `python/mshconv` re-exports it
//! with type stubs). Every function is a thin wrapper over `mshconv_app`,
//! the layer the CLI and the HTTP service use, so a conversion, an archive
//! edit or a validation from Python gives the CLI's bytes, notes and error
//! codes:
//!
//! - [`convert::convert`]: `mshconv_app::convert` over bytes;
//! - [`entry::convert_entry`]: one entry of an archive converted with its
//!   WEAR, as `mshconv convert ARCHIVE:ENTRY OUT --game-dir DIR`;
//! - [`archive::Archive`]: an archive file read (after an interrupted write
//!   there is finished), and edited with the CLI's put rule and its locked,
//!   atomic, durable transaction;
//! - [`validate::validate`]: `mshconv validate --json`'s result for one model;
//! - [`look::write_model`]: a model into a file or an archive entry, its
//!   look into the game folder (`mshconv convert IN OUT --game-dir`);
//! - [`error`]: `mshconv.Error` (a `ValueError`) with the CLI's `.code`; the
//!   work runs with the GIL released and a panic is caught there, so none
//!   crosses into Python.

#![forbid(unsafe_code)]

mod archive;
mod convert;
mod entry;
mod error;
mod look;
mod options;
mod recovered;
mod validate;

use pyo3::prelude::*;

/// The native module `mshconv._mshconv`.
#[pymodule]
fn _mshconv(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<error::Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(convert::convert, m)?)?;
    m.add_function(wrap_pyfunction!(entry::convert_entry, m)?)?;
    m.add(
        "OPTION_NAMES",
        pyo3::types::PyTuple::new(m.py(), options::names())?,
    )?;
    m.add_function(wrap_pyfunction!(validate::validate, m)?)?;
    m.add_function(wrap_pyfunction!(look::write_model, m)?)?;
    m.add_class::<convert::Output>()?;
    m.add_class::<convert::Note>()?;
    m.add_class::<archive::Archive>()?;
    m.add_class::<archive::Entry>()?;
    m.add_class::<validate::Report>()?;
    m.add_class::<validate::Finding>()?;
    m.add_class::<look::PlannedFile>()?;
    m.add_class::<look::DryRun>()?;
    m.add_class::<archive::PutOutcome>()?;
    Ok(())
}
