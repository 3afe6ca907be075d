//! `mshconv.validate`: `mshconv validate --json`'s result for one model.

use crate::error;
use mshconv_app::report::{LibraryCheck, Validation};
use pyo3::prelude::*;

/// One finding of a validation.
#[pyclass(module = "mshconv", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct Finding {
    /// The stable code, e.g. `batch.index_count`.
    pub code: String,
    /// `info`, `warning` or `error` (an error fails strict validation).
    pub severity: String,
    /// Where: a path such as `Res13[4].index_start`.
    pub path: String,
    /// The absolute byte offset in the file, when known.
    pub offset: Option<u64>,
    /// What is wrong, with the expected and actual values.
    pub message: String,
}

#[pymethods]
impl Finding {
    fn __repr__(&self) -> String {
        let offset = self.offset.map_or("None".to_string(), |o| o.to_string());
        format!(
            "Finding({:?}, path={:?}, offset={offset})",
            self.code, self.path
        )
    }
}

/// The result of validating one model.
#[pyclass(module = "mshconv", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct Report {
    /// Whether strict validation accepts the model.
    pub valid: bool,
    /// `standard`, `legacy_nodes`, `terrain`, or None when the container does not open.
    pub kind: Option<String>,
    /// Every finding, in the order validation found them.
    pub findings: Vec<Finding>,
}

#[pymethods]
impl Report {
    fn __repr__(&self) -> String {
        format!(
            "Report(valid={}, findings={})",
            self.valid,
            self.findings.len()
        )
    }
}

/// Validates a model's bytes strictly; damage becomes findings, never an
/// error. A game library (`Material.lib`, `Textures.lib`) is checked by its
/// MAT0 or Texm entries, as `mshconv validate` checks it: `kind` is
/// `materials` or `textures`, and each entry that does not parse is a
/// finding whose `path` is the entry's name.
#[pyfunction]
pub fn validate(py: Python<'_>, data: &[u8]) -> PyResult<Report> {
    error::run(py, || {
        let result = match mshconv_app::report::validate("data", data, msh::Mode::Strict) {
            Validation::Model(result) => result,
            Validation::Library(library) => return Ok(library_report(&library)),
        };
        Ok(Report {
            valid: result.valid,
            kind: result.kind.map(|k| serde_text(&k)),
            findings: result
                .findings
                .iter()
                .map(|f| Finding {
                    code: f.code.as_str().to_string(),
                    severity: serde_text(&f.severity),
                    path: f.path.clone(),
                    offset: f.offset,
                    message: f.message.clone(),
                })
                .collect(),
        })
    })
}

/// A library's check as a report: a finding per entry that does not parse.
fn library_report(library: &LibraryCheck) -> Report {
    Report {
        valid: library.valid,
        kind: Some(library.library.to_string()),
        findings: library
            .entries
            .iter()
            .filter(|e| !e.valid)
            .map(|e| Finding {
                code: e.code.unwrap_or_default().to_string(),
                severity: "error".to_string(),
                path: e.file.clone(),
                offset: None,
                message: e.message.clone().unwrap_or_default(),
            })
            .collect(),
    }
}

/// A unit enum's name as `mshconv validate --json` writes it (its serde name).
fn serde_text(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        other => format!("{other:?}"),
    }
}
