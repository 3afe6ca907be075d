//! Runs `read_back.py` (beside this file) with the Python of `.venv-usd`
//! (usd-core): shared by the USD tests of the convert crate and the CLI
//! (`#[path]`-included: both crates lie two folders below the repository).

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root, from the including crate's manifest folder.
fn root() -> PathBuf {
    // The first folder up with the workspace's Cargo.lock (this file is
    // compiled into the tests of crates at different depths).
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|p| p.join("Cargo.lock").is_file())
        .expect("the workspace root")
        .to_path_buf()
}

/// Reads every `.usda` in `dir` back with usd-core: one JSON document per
/// file (see read_back.py), by file name. Panics with how to install
/// usd-core when `.venv-usd` is missing.
pub fn read_back(dir: &Path) -> BTreeMap<String, Value> {
    let python = root().join(".venv-usd/bin/python");
    assert!(
        python.exists(),
        "usd-core is not installed: run scripts/setup-usd.sh (scripts/test.sh does)"
    );
    let out = Command::new(python)
        .arg(root().join("crates/formats/usd/tests/data/usd/read_back.py"))
        .arg(dir)
        .output()
        .expect("run the USD read-back script");
    assert!(
        out.status.success(),
        "read_back.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["file"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

/// usd-core's findings on one read-back file (errors and warnings of its
/// validators or its ComplianceChecker, or too few validators run), as
/// failure lines.
pub fn findings(file: &str, doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["errors", "warnings"] {
        if doc[key].as_array().is_some_and(|a| !a.is_empty()) {
            out.push(format!("{file}: usd-core's checks: {key}: {}", doc[key]));
        }
    }
    if doc["checker"] == "UsdValidation" && doc["validators"].as_u64().unwrap_or(0) < 20 {
        out.push(format!(
            "{file}: only {} usd-core validators ran",
            doc["validators"]
        ));
    }
    out
}
