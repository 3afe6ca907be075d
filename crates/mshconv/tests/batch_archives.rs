//! `batch` and archives: `--into`, `ARCHIVE:ENTRY` inputs, filters over
//! archive entries, skip reasons and the exit code of a batch that converts
//! nothing. The real binary in temp folders.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/small")
        .join(rel)
}

fn outputs(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, rel: &str, found: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = format!("{rel}{}", e.file_name().to_string_lossy());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &format!("{name}/"), found);
            } else {
                found.push(name);
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, "", &mut found);
    found.sort();
    found
}

#[test]
fn into_an_archive_replaces_and_adds_and_reports_which() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read(fixture("archives/small.rlb")).unwrap();
    std::fs::write(dir.path().join("small.rlb"), &original).unwrap();
    std::fs::create_dir(dir.path().join("edited")).unwrap();
    // Two entries out to glTF (one renamed, so it is added back as a new entry).
    run(
        dir.path(),
        &[
            "convert",
            "small.rlb:M123_DOME.MSH",
            "edited/m123_dome.glb",
            "-q",
        ],
    )
    .expect(0);
    run(
        dir.path(),
        &[
            "convert",
            "small.rlb:M143_ROBOT.MSH",
            "edited/robot2.gltf",
            "-q",
        ],
    )
    .expect(0);
    // Without --add, robot2 (an entry the archive lacks) fails before it is
    // converted; the dome is still put back.
    let r = run(
        dir.path(),
        &["batch", "edited", "--to", "msh", "--into", "small.rlb"],
    )
    .expect(1);
    assert!(
        r.stderr.contains("error[archive.no_such_entry]: edited/robot2.gltf: archive small.rlb has no entry named \"ROBOT2.MSH\"")
            && r.stderr.contains("give --add"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("note[archive.added]"), "{}", r.stderr);
    assert_eq!(
        std::fs::read(dir.path().join("small.rlb")).unwrap(),
        original
    );
    // --dry-run says which entry is replaced and which would be added.
    let into = [
        "batch",
        "edited",
        "--to",
        "msh",
        "--into",
        "small.rlb",
        "--add",
    ];
    let r = run(dir.path(), &[&into[..], &["--dry-run"]].concat()).expect(0);
    let puts: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("would put "))
        .collect();
    assert_eq!(puts.len(), 2, "{}", r.stdout);
    assert!(
        puts[0].starts_with("would put small.rlb:M123_DOME.MSH (")
            && puts[0].ends_with(" bytes): replace"),
        "{}",
        r.stdout
    );
    assert!(
        puts[1].starts_with("would put small.rlb:ROBOT2.MSH (")
            && puts[1].ends_with(" bytes): add (a new entry)"),
        "{}",
        r.stdout
    );
    assert_eq!(
        std::fs::read(dir.path().join("small.rlb")).unwrap(),
        original
    );
    let r = run(dir.path(), &[&into[..], &["--report", "r.json"]].concat()).expect(0);
    assert!(r.stderr.contains("note[archive.replaced]"), "{}", r.stderr);
    assert!(r.stderr.contains("note[archive.added]"), "{}", r.stderr);
    let bytes = std::fs::read(dir.path().join("small.rlb")).unwrap();
    let after = nres::Archive::parse(&bytes).unwrap();
    let before = nres::Archive::parse(&original).unwrap();
    // Every original entry is there with its bytes (the dome came back unedited).
    for e in before.entries() {
        assert_eq!(
            after.entry(e.index()).unwrap().data(),
            e.data(),
            "{}",
            e.name()
        );
        assert_eq!(after.entry(e.index()).unwrap().name(), e.name());
    }
    let added = after
        .find_by_name("ROBOT2.MSH")
        .expect("added, found by the game's lookup");
    assert_eq!(
        added.data(),
        before.find_by_name("M143_ROBOT.MSH").unwrap().data()
    );
    // Only the archive changed: no output folder, no stray file.
    assert_eq!(
        outputs(dir.path()),
        [
            "edited/m123_dome.glb",
            "edited/robot2.gltf",
            "r.json",
            "small.rlb"
        ]
    );
    let report: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r.json")).unwrap()).unwrap();
    let placed: Vec<(&str, &str)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["output"].as_str().unwrap(), f["placed"].as_str().unwrap()))
        .collect();
    assert_eq!(
        placed,
        [
            ("small.rlb:M123_DOME.MSH", "replaced"),
            ("small.rlb:ROBOT2.MSH", "added")
        ]
    );
    // --into takes --to msh only, and an archive that exists.
    let r = run(
        dir.path(),
        &["batch", "edited", "--to", "glb", "--into", "small.rlb"],
    )
    .expect(2);
    assert!(r.stderr.contains("option.invalid"), "{}", r.stderr);
    run(
        dir.path(),
        &["batch", "edited", "--to", "msh", "--into", "none.rlb"],
    )
    .expect(2);
}

#[test]
fn an_archive_entry_is_an_input_and_filters_reach_entries() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("archives/small.rlb"), dir.path().join("small.rlb")).unwrap();
    run(
        dir.path(),
        &[
            "batch",
            "small.rlb:m123_dome.msh",
            "--to",
            "glb",
            "--out",
            "one",
        ],
    )
    .expect(0);
    assert_eq!(
        outputs(&dir.path().join("one")),
        ["small.rlb/M123_DOME.glb"]
    );
    let r = run(
        dir.path(),
        &[
            "batch",
            "small.rlb:NOPE.MSH",
            "--to",
            "glb",
            "--out",
            "none",
        ],
    )
    .expect(1);
    assert!(
        r.stderr.contains("error[input.no_such_entry]"),
        "{}",
        r.stderr
    );

    // --include over the entries of an archive named on the command line, and
    // of one found in a folder.
    run(
        dir.path(),
        &[
            "batch",
            "small.rlb",
            "--to",
            "glb",
            "--out",
            "m12",
            "--include",
            "M12*",
        ],
    )
    .expect(0);
    let got = outputs(&dir.path().join("m12"));
    assert!(!got.is_empty());
    assert!(
        got.iter().all(|p| p.starts_with("small.rlb/M12")),
        "{got:?}"
    );
    std::fs::create_dir(dir.path().join("game")).unwrap();
    std::fs::copy(
        fixture("archives/small.rlb"),
        dir.path().join("game/small.rlb"),
    )
    .unwrap();
    run(
        dir.path(),
        &[
            "batch",
            "game",
            "--to",
            "glb",
            "--out",
            "ex",
            "--exclude",
            "M12*",
        ],
    )
    .expect(0);
    let got = outputs(&dir.path().join("ex"));
    assert!(!got.is_empty());
    assert!(
        got.iter().all(|p| !p.starts_with("small.rlb/M12")),
        "{got:?}"
    );
}

#[test]
fn skips_say_why_and_a_batch_that_converts_nothing_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("models/m095_walker.msh"),
        dir.path().join("walker.msh"),
    )
    .unwrap();
    let r = run(
        dir.path(),
        &["batch", "walker.msh", "--to", "msh", "--out", "out"],
    )
    .expect(3);
    assert!(
        r.stderr
            .contains("skip[input.not_convertible]: walker.msh:"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("nothing converted"), "{}", r.stderr);
    std::fs::create_dir(dir.path().join("models")).unwrap();
    std::fs::copy(
        fixture("models/m095_walker.msh"),
        dir.path().join("models/w.msh"),
    )
    .unwrap();
    let r = run(
        dir.path(),
        &["batch", "models", "--to", "msh", "--out", "out"],
    )
    .expect(3);
    assert!(r.stderr.contains("0 converted"), "{}", r.stderr);
    // --quiet keeps the skip lines out, not the exit code.
    let r = run(
        dir.path(),
        &["batch", "walker.msh", "--to", "msh", "--out", "out", "-q"],
    )
    .expect(3);
    assert!(!r.stderr.contains("skip["), "{}", r.stderr);
}
