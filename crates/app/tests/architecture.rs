//! What docs/ARCHITECTURE.md says of the code, checked on the sources:
//! - the formats are plug-ins: the application layer, the CLI, the service
//!   and the Python package reach a format crate only through its row of
//!   `FORMATS` ("Where to add"), so no other file of theirs names one;
//! - every Rust file over about 800 lines of code is in its table "Files
//!   over about 800 lines, and why".

use mshconv_app::{Format, FORMATS};
use std::path::{Path, PathBuf};

/// The format crates, as Rust code names them.
const FORMAT_CRATES: [&str; 3] = ["mshconv_gltf", "mshconv_obj", "mshconv_usd"];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments and its `#[cfg(test)]` module
/// (a test may compare with a format crate's own API).
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn only_the_formats_table_names_a_format_crate() {
    let root = root();
    let mut files = Vec::new();
    for dir in [
        "crates/app/src",
        "crates/mshconv/src",
        "server/src",
        "crates/python/src",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "{} files", files.len());
    let table = root
        .join("crates/app/src/format.rs")
        .canonicalize()
        .unwrap();
    let mut named_in_table = 0;
    for file in &files {
        let code = code(&std::fs::read_to_string(file).unwrap());
        let named: Vec<_> = FORMAT_CRATES.iter().filter(|c| code.contains(*c)).collect();
        if file.canonicalize().unwrap() == table {
            named_in_table = named.len();
        } else {
            assert!(named.is_empty(), "{} names {named:?}", file.display());
        }
    }
    assert_eq!(named_in_table, FORMAT_CRATES.len());
}

#[test]
fn each_row_has_the_plug_ins_its_directions_need() {
    for row in &FORMATS {
        assert_eq!(
            row.exported(),
            Format::Msh.converts_to(row.format) && row.format != Format::Msh,
            "{}",
            row.name
        );
        // A format that brings a look back imports; one that takes a look exports.
        assert!(!row.brings_look || row.importer.is_some(), "{}", row.name);
        assert!(!row.takes_look || row.exporter.is_some(), "{}", row.name);
    }
    // MSH is the model itself: no plug-in.
    let msh = Format::Msh.spec();
    assert!(msh.exporter.is_none() && msh.importer.is_none());
    // The formats that hold animation take the clips.
    let takes_clips: Vec<_> = FORMATS
        .iter()
        .filter(|r| r.exporter.is_some_and(|e| e.takes_clips()))
        .map(|r| r.name)
        .collect();
    assert_eq!(takes_clips, ["glb", "gltf", "usda"]);
}

/// The lines of code of a Rust file: not blank, not a `//` comment.
fn lines_of_code(text: &str) -> usize {
    text.lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

#[test]
fn every_file_over_800_lines_of_code_is_in_the_table() {
    let root = root();
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let table = doc
        .split("## Files over about 800 lines, and why")
        .nth(1)
        .expect("the section")
        .split("\n## ")
        .next()
        .unwrap();
    let mut files = Vec::new();
    for dir in ["crates", "server", "fixtures", "fuzz", "bench"] {
        if root.join(dir).is_dir() {
            rust_files(&root.join(dir), &mut files);
        }
    }
    let mut over = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.contains("/target/") || rel.contains("node_modules") {
            continue;
        }
        let loc = lines_of_code(&std::fs::read_to_string(&file).unwrap());
        if loc > 800 && !table.contains(&format!("`{rel}`")) {
            over.push(format!("{rel} ({loc} lines of code)"));
        }
    }
    assert!(over.is_empty(), "not in ARCHITECTURE.md's table: {over:?}");
}
