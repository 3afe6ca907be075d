//! Shared test helpers: the committed fixtures and the Khronos validator.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// Every valid committed fixture (retail-like models and edge cases), sorted, as (name, bytes).
pub fn valid_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in ["models", "edge"] {
        let path = root().join("fixtures/small").join(dir);
        let mut entries: Vec<_> = std::fs::read_dir(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "msh"))
            .collect();
        entries.sort();
        for p in entries {
            let name = format!("{dir}/{}", p.file_name().unwrap().to_string_lossy());
            out.push((name, std::fs::read(&p).unwrap()));
        }
    }
    assert!(
        out.len() > 40,
        "expected the committed fixture set, found {} files",
        out.len()
    );
    out
}

/// One validator result.
#[derive(Debug, serde::Deserialize)]
pub struct Validated {
    pub file: String,
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    pub messages: Vec<String>,
}

/// Runs the Khronos glTF-Validator (npm `gltf-validator`) over a directory.
pub fn validate_dir(dir: &Path) -> Vec<Validated> {
    let tool = root().join("tools/gltf-validator");
    assert!(
        tool.join("node_modules/gltf-validator").exists(),
        "the Khronos glTF-Validator is not installed: run `npm ci --prefix tools/gltf-validator` (scripts/test.sh does)"
    );
    let out = Command::new("node")
        .arg(tool.join("validate.mjs"))
        .arg(dir)
        .output()
        .expect("node must be on PATH to run the glTF validator");
    assert!(
        out.status.success(),
        "validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad validator line {l}: {e}")))
        .collect()
}

/// Fails with every message when `failures` is not empty.
pub fn fail_if_any(what: &str, failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{what}: {} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The messages of a report's notes with this code.
pub fn notes<'r>(report: &'r mshconv_convert::Report, code: &str) -> Vec<&'r str> {
    report
        .notes
        .iter()
        .filter(|n| n.code == code)
        .map(|n| n.message.as_str())
        .collect()
}

/// The triangles of one MSH slot: per triangle its batch's material index and
/// the model vertex index of each corner.
pub fn slot_triangles(view: &msh::ModelRef<'_>, slot: u16) -> Vec<(u16, [usize; 3])> {
    let s = view.slots[slot as usize];
    let (bs, bc) = (s.batch_start.get() as usize, s.batch_count.get() as usize);
    let mut out = Vec::new();
    for b in &view.batches[bs..bs + bc] {
        let start = b.index_start.get() as usize;
        let idx = &view.indices[start..start + b.index_count.get() as usize];
        for t in idx.chunks_exact(3) {
            out.push((
                b.material_index.get(),
                std::array::from_fn(|k| (b.base_vertex.get() + u32::from(t[k].get())) as usize),
            ));
        }
    }
    out
}

/// Helpers of the OBJ tests.
pub mod blender;
pub mod gltf_build;
pub mod gltf_sampler;
pub mod obj;
