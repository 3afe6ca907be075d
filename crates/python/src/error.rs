//! `mshconv.Error` and the one way work runs: the GIL released, a panic
//! caught, an application error turned into the exception with its code.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

pyo3::create_exception!(
    mshconv,
    Error,
    PyValueError,
    "A failure of mshconv: `.code` is the stable code the CLI prints (`error[CODE]`), str() the message."
);

/// `mshconv.Error(message)` with its `.code`.
pub fn raise(py: Python<'_>, code: &str, message: &str) -> PyErr {
    let err = Error::new_err(message.to_string());
    if let Err(e) = err.value(py).setattr("code", code) {
        return e;
    }
    err
}

/// The exception of an application-layer error.
pub fn from_app(py: Python<'_>, e: &mshconv_app::Error) -> PyErr {
    raise(py, e.code(), e.message())
}

/// Runs `work` with the GIL released (other Python threads run meanwhile)
/// and a panic caught: it becomes `mshconv.Error` with the code `internal`.
pub fn run<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, mshconv_app::Error> + Send,
{
    match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(from_app(py, &e)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(raise(
                py,
                mshconv_app::ErrorCode::Internal.code(),
                &format!("a bug in mshconv (please report it with the input): {what}"),
            ))
        }
    }
}
