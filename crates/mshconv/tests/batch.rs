//! `mshconv batch`: the real binary over folders, archives and damaged files in
//! temporary folders; the JSON report; `--jobs`; SIGINT.
//!
//! The tests are in `batch/`, by topic: [`inputs`] (folders and explicit
//! inputs), [`archives_damaged`] (archives and damaged files) and [`run`]
//! (jobs, usage errors, progress, SIGINT); the helpers they share are here.

mod common;

#[path = "batch/archives_damaged.rs"]
mod archives_damaged;
#[path = "batch/inputs.rs"]
mod inputs;
#[path = "batch/run.rs"]
mod run;

use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn small(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/small")
        .join(rel)
}

/// Every file under `dir`, by `/`-separated relative path, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &child, out);
            } else {
                out.insert(child, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out);
    out
}

fn names(tree: &BTreeMap<String, Vec<u8>>) -> Vec<&str> {
    tree.keys().map(String::as_str).collect()
}

fn report(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The report's files by input.
fn files_by_input(report: &Value) -> BTreeMap<String, Value> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["input"].as_str().unwrap().to_string(), f.clone()))
        .collect()
}

/// What `convert` writes for a model named `name`.
fn glb_of(msh: &[u8], name: &str) -> Vec<u8> {
    let options = mshconv_gltf::ExportOptions {
        name: name.to_string(),
        ..Default::default()
    };
    mshconv_gltf::msh_to_gltf(msh, &options).unwrap().0
}

/// A complete GLB: magic, version 2, the header's length equal to the file's,
/// and a JSON chunk that parses.
fn check_glb(bytes: &[u8]) -> Result<(), String> {
    let u32_at = |at: usize| -> Result<u32, String> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .ok_or_else(|| format!("{} bytes: no u32 at {at}", bytes.len()))
    };
    if bytes.get(..4) != Some(b"glTF") || u32_at(4)? != 2 {
        return Err("not a GLB 2 header".into());
    }
    if u32_at(8)? as usize != bytes.len() {
        return Err(format!(
            "header length {} but the file is {} bytes",
            u32_at(8)?,
            bytes.len()
        ));
    }
    let json_len = u32_at(12)? as usize;
    if u32_at(16)? != 0x4E4F_534A {
        return Err("the first chunk is not JSON".into());
    }
    let json = bytes
        .get(20..20 + json_len)
        .ok_or("the JSON chunk is cut")?;
    serde_json::from_slice::<Value>(json).map_err(|e| format!("JSON chunk: {e}"))?;
    Ok(())
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap();
}

/// The last line on stderr: `batch: N converted, N failed, N skipped; ...`.
fn summary_counts(stderr: &str) -> (usize, usize, usize) {
    let line = stderr.lines().last().unwrap_or("");
    let rest = line.split_once(": ").map_or("", |(_, r)| r);
    let numbers: Vec<usize> = rest
        .split(';')
        .next()
        .unwrap()
        .split(", ")
        .map(|part| part.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 3, "summary line: {line}");
    (numbers[0], numbers[1], numbers[2])
}
