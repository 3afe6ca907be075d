//! Golden files for `inspect` output, of models built here and of the committed
//! fixture models (`fixtures/small/models`). Regenerate with `UPDATE_GOLDEN=1`.

mod common;

use common::*;
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn updating() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1")
}

/// Compares `actual` with the golden file `name`, collecting a failure instead of panicking.
fn check(name: &str, actual: &str, failures: &mut Vec<String>) {
    let path = golden_dir().join(name);
    if updating() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    match std::fs::read_to_string(&path) {
        Err(e) => failures.push(format!("{name}: cannot read the golden file ({e})")),
        Ok(expected) if expected != actual => {
            let line = expected
                .lines()
                .zip(actual.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
            failures.push(format!(
                "{name}: differs from line {}\n  expected: {:?}\n  actual:   {:?}",
                line + 1,
                expected.lines().nth(line).unwrap_or("<end>"),
                actual.lines().nth(line).unwrap_or("<end>"),
            ));
        }
        Ok(_) => {}
    }
}

fn finish(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} golden file(s) differ:\n{}\n\nIf the new output is intended, regenerate the golden files with\n  UPDATE_GOLDEN=1 cargo test -p mshconv --test golden\nand review the diff.",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn inspect_output_of_built_models_matches_golden_files() {
    let dir = tempfile::tempdir().unwrap();
    let models = [
        ("sample.msh", sample_bytes()),
        ("static.msh", many_nodes(2)),
        ("legacy.msh", legacy_bytes()),
        ("terrain.msh", terrain_bytes()),
    ];
    let mut failures = Vec::new();
    for (name, bytes) in &models {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let text = run(dir.path(), &["inspect", name]).expect(0).stdout;
        check(&format!("{name}.txt"), &text, &mut failures);
    }
    let json = run(dir.path(), &["inspect", "--json", "sample.msh"])
        .expect(0)
        .stdout;
    check("sample.msh.json", &json, &mut failures);
    finish(failures);
}

/// The repository root (the fixtures live there).
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn inspect_output_of_fixture_models_matches_golden_files() {
    let root = repository();
    let models = root.join("fixtures/small/models");
    let mut names: Vec<String> = std::fs::read_dir(&models)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}; generate it with `cargo run -p mshconv-fixtures --release -- small --out fixtures/small`",
                models.display()
            )
        })
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".msh"))
        .collect();
    names.sort();
    assert!(
        !names.is_empty(),
        "{} holds no .msh files",
        models.display()
    );
    let mut failures = Vec::new();
    for name in &names {
        let path = format!("fixtures/small/models/{name}");
        let r = run(&root, &["inspect", &path]);
        if r.code != 0 || !r.stderr.is_empty() {
            failures.push(format!("{path}: exit {}: {}", r.code, r.stderr));
            continue;
        }
        check(&format!("fixtures/{name}.txt"), &r.stdout, &mut failures);
    }
    // A golden file whose model is gone is stale.
    let golden = golden_dir().join("fixtures");
    for entry in std::fs::read_dir(&golden).into_iter().flatten() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        let model = file.strip_suffix(".txt").unwrap_or(&file);
        if !names.iter().any(|n| n == model) {
            if updating() {
                std::fs::remove_file(golden.join(&file)).unwrap();
            } else {
                failures.push(format!(
                    "fixtures/{file}: no model {model} any more (stale golden file)"
                ));
            }
        }
    }
    finish(failures);
}
