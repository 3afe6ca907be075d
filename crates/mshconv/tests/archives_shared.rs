//! Archives whose entries share or overlap their payloads (valid NRes, but
//! every writer gives each entry its own copy: 1,000 entries on one 4 MB
//! payload became a 4.2 GB file). Every command that rewrites an archive
//! refuses them with `archive.entries_overlap` before it copies anything,
//! and leaves every file as it was; the same commands on the same entries
//! laid out one after another succeed.

mod common;

use common::*;
use std::ops::Range;
use std::path::Path;

/// The entry layouts: a disjoint one (the control), three entries on one
/// payload, and two that overlap by 8 bytes.
fn layouts(model: &[u8]) -> [(&'static str, Vec<u8>); 3] {
    let len = model.len() as u32;
    let mut two = model.to_vec();
    two.extend_from_slice(model);
    let disjoint = by_bytes::archive_by_bytes(&two, &[("A.MSH", 0..len), ("B.MSH", len..2 * len)]);
    let shared: Vec<(&str, Range<u32>)> = ["A.MSH", "B.MSH", "C.MSH"]
        .into_iter()
        .map(|n| (n, 0..len))
        .collect();
    let shared = by_bytes::archive_by_bytes(model, &shared);
    let overlapping =
        by_bytes::archive_by_bytes(&two, &[("A.MSH", 0..len), ("B.MSH", len - 8..2 * len)]);
    [
        ("disjoint", disjoint),
        ("shared", shared),
        ("overlapping", overlapping),
    ]
}

/// Every command that rewrites `units.rlb` (a model `model.msh` and a
/// folder `in/` holding it as `NEW.glb` beside it).
const COMMANDS: &[&[&str]] = &[
    &[
        "nres",
        "put",
        "units.rlb",
        "model.msh",
        "--name",
        "NEW.MSH",
        "--add",
    ],
    &["nres", "put", "units.rlb", "model.msh", "--name", "A.MSH"],
    &["nres", "remove", "units.rlb", "B.MSH"],
    &["convert", "model.msh", "units.rlb:NEW.MSH", "--add"],
    &["convert", "model.msh", "units.rlb:A.MSH"],
    &[
        "convert",
        "in/NEW.glb",
        "units.rlb:NEW.MSH",
        "--add",
        "--dry-run",
    ],
    &["batch", "in", "--to", "msh", "--into", "units.rlb", "--add"],
    &["nres", "repack", "units.rlb", "--out", "repacked.rlb"],
    &["nres", "repack", "units.rlb", "--out", "units.rlb"],
];

fn folder(dir: &Path, archive: &[u8]) {
    let model = sample_bytes();
    std::fs::write(dir.join("units.rlb"), archive).unwrap();
    std::fs::write(dir.join("model.msh"), &model).unwrap();
    std::fs::create_dir(dir.join("in")).unwrap();
    run(dir, &["convert", "model.msh", "in/NEW.glb"]).expect(0);
}

#[test]
fn every_command_that_rewrites_an_archive_refuses_shared_and_overlapping_payloads() {
    let model = sample_bytes();
    for (layout, archive) in layouts(&model) {
        nres::Archive::parse(&archive).expect("valid NRes");
        for args in COMMANDS {
            let dir = tempfile::tempdir().unwrap();
            folder(dir.path(), &archive);
            let before = tree(dir.path());
            if layout == "disjoint" {
                run(dir.path(), args).expect(0);
                continue;
            }
            let r = run(dir.path(), args).expect(1);
            let what = format!("{layout}: {args:?}: {}", r.stderr);
            assert!(
                r.stderr.starts_with("error[archive.entries_overlap]: "),
                "{what}"
            );
            // The two entries found, and where their bytes are.
            let (first, second) = if layout == "shared" {
                (
                    "entry 0 (\"A.MSH\", bytes 16..",
                    "entry 1 (\"B.MSH\", bytes 16..",
                )
            } else {
                (
                    "entry 0 (\"A.MSH\", bytes 16..",
                    "entry 1 (\"B.MSH\", bytes ",
                )
            };
            assert!(r.stderr.contains(first), "{what}");
            assert!(r.stderr.contains(second), "{what}");
            // Nothing written, grown or left behind.
            assert_eq!(tree(dir.path()), before, "{what}");
        }
    }
}
