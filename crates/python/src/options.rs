//! The conversion options of `convert(**options)`, parsed by the application
//! layer's own option types: the values and the refusals are the CLI's.

use mshconv_app::{Options, OPTIONS};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};

/// The keywords, one per row of the application layer's option table
/// ([`OPTIONS`]), in its order: each option's query name (`lod`, `fps`, ...,
/// as the service spells it; the CLI's `--lod`). `mshconv.OPTION_NAMES`.
pub fn names() -> Vec<&'static str> {
    OPTIONS.iter().map(|row| row.query).collect()
}

/// The options given as keywords: each value as the text the CLI would take
/// (`lod=1` is `--lod 1`), parsed and range-checked by `Options::set`.
pub fn parse(options: Option<&Bound<'_, PyDict>>) -> Result<Options, mshconv_app::Error> {
    let mut parsed = Options::default();
    let Some(options) = options else {
        return Ok(parsed);
    };
    for (key, value) in options.iter() {
        let key = key.str().map(|k| k.to_string()).unwrap_or_default();
        let Some(row) = OPTIONS.iter().find(|row| row.query == key) else {
            return Err(mshconv_app::Error::bad_option(format!(
                "{key:?} is not an option: use {}",
                names().join(", ")
            )));
        };
        parsed.set(row.name, &text(&key, &value)?)?;
    }
    Ok(parsed)
}

/// A keyword's value as text: a string as it is, a number as Python writes
/// it, a bool as `true` or `false` (an option taking other values refuses it).
fn text(key: &str, value: &Bound<'_, PyAny>) -> Result<String, mshconv_app::Error> {
    // A bool as the option table writes it (`embed_original=True` is `true`).
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(b.is_true().to_string());
    }
    let is_number = !value.is_instance_of::<PyBool>()
        && (value.extract::<i64>().is_ok() || value.extract::<f64>().is_ok());
    if value.is_instance_of::<PyString>() || is_number {
        if let Ok(s) = value.str() {
            return Ok(s.to_string());
        }
    }
    let shown = value.repr().map(|r| r.to_string()).unwrap_or_default();
    Err(mshconv_app::Error::bad_option(format!(
        "{key} must be a string or a number, not {shown}"
    )))
}
