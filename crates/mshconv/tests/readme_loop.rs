//! README.md's `## Edit a game model` section runs as written: every `sh`
//! block right after a `<!-- readme_loop ... -->` line is run line by line,
//! each command verbatim by `sh -c`, in order, in a scratch folder that holds
//! the fixture archive `fixtures/small/archives/small.rlb` as `units.rlb` (the
//! README's name for the game's archive), with the folder of the binary under
//! test first on `PATH` (so `mshconv` is this build). Every command must exit 0.
//!
//! A comment line of a block is the user's step, not run. One that mentions
//! Blender and names two `.glb` files (`# 2. Blender: import dome.glb, edit,
//! export as edited.glb`) is played by copying the first to the second: the
//! model "exported" unedited (Blender itself is not run here; the Blender round
//! trip is `crates/formats/gltf/tests/blender_roundtrip.rs`). Since nothing is
//! edited, the archive after every block must be byte for byte the fixture:
//! a model put back unedited changes nothing.
//!
//! `~` is a scratch home holding the fixture game folder
//! (`fixtures/small/game`) as `~/Parkan`, the README's name for the game
//! folder; a copy of it the commands work on (`game`, `mod`) must end byte
//! for byte as it began (the textured round trip of an unedited model, and
//! the libraries exported as files and imported unedited, change nothing).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The marker line before each block the test runs.
const MARK: &str = "<!-- readme_loop";
/// The section the blocks are in.
const SECTION: &str = "\n## Edit a game model\n";
/// The archive the README works on, and what the test puts there.
const ARCHIVE: &str = "units.rlb";
const FIXTURE: &str = "fixtures/small/archives/small.rlb";
/// The game folder the README works on (`~/Parkan`), and what the test puts there.
const GAME: &str = "Parkan";
const GAME_FIXTURE: &str = "fixtures/small/game";

/// Every file under `dir` (relative path, bytes), sorted.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    common::tree(dir).into_iter().collect()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The lines (trimmed, blank ones left out) of every marked `sh` block of the
/// section, block by block.
fn loop_blocks(readme: &str) -> Vec<Vec<String>> {
    let start = readme
        .find(SECTION)
        .expect("README.md has a `## Edit a game model` section");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    let mut blocks = Vec::new();
    let mut marked = false;
    let mut block: Option<Vec<String>> = None;
    for line in rest[..end].lines() {
        let trimmed = line.trim();
        if let Some(current) = block.as_mut() {
            if trimmed.starts_with("```") {
                blocks.push(block.take().unwrap_or_default());
            } else if !trimmed.is_empty() {
                current.push(trimmed.to_string());
            }
            continue;
        }
        if trimmed.starts_with(MARK) {
            marked = true;
        } else if let Some(tag) = trimmed.strip_prefix("```") {
            if marked {
                assert_eq!(tag.trim(), "sh", "a marked block is an `sh` block");
                block = Some(Vec::new());
            }
            marked = false;
        } else if !trimmed.is_empty() {
            marked = false;
        }
    }
    assert!(block.is_none(), "a marked block is not closed");
    blocks
}

/// The user's Blender step of a comment line: `(from, to)` when it mentions
/// Blender and names two different `.glb` files (the first imported, the last
/// exported).
fn blender_step(comment: &str) -> Option<(String, String)> {
    if !comment.to_ascii_lowercase().contains("blender") {
        return None;
    }
    let names: Vec<&str> = comment
        .split(|c: char| !(c.is_ascii_alphanumeric() || "._-/".contains(c)))
        .filter(|w| w.len() > 4 && w.ends_with(".glb"))
        .collect();
    match (names.first(), names.last()) {
        (Some(from), Some(to)) if from != to => Some((from.to_string(), to.to_string())),
        _ => None,
    }
}

/// What the README says the loop does, so the test fails if it stops saying it.
const LOOP: [&str; 4] = [
    "mshconv convert units.rlb:M123_DOME.MSH ",
    "mshconv convert edited.glb units.rlb:M123_DOME.MSH",
    "mshconv validate units.rlb:M123_DOME.MSH",
    "--into units.rlb",
];

#[test]
fn the_section_has_the_loop() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks = loop_blocks(&readme);
    assert!(blocks.len() >= 2, "{blocks:#?}");
    let lines: Vec<&String> = blocks.iter().flatten().collect();
    for wanted in LOOP {
        assert!(
            lines
                .iter()
                .any(|l| !l.starts_with('#') && l.contains(wanted)),
            "no command with `{wanted}` in the marked blocks: {lines:#?}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with('#') && blender_step(l).is_some()),
        "no Blender step (a comment naming the .glb imported and the one exported): {lines:#?}"
    );
    // The commands run in a folder with the archive only: no path into the repository.
    for line in lines.iter().filter(|l| !l.starts_with('#')) {
        assert!(!line.contains("fixtures/"), "{line}");
    }
}

#[test]
fn the_loop_runs_as_written() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let original = std::fs::read(repo().join(FIXTURE)).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::fs::write(dir.join(ARCHIVE), &original).unwrap();
    let home = scratch.path().join("home");
    let game = tree(&repo().join(GAME_FIXTURE));
    for (rel, bytes) in &game {
        let p = home.join(GAME).join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let dir = &dir.join("work");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(ARCHIVE), &original).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_mshconv"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();

    let mut ran = 0;
    let mut played = 0;
    for (b, block) in loop_blocks(&readme).iter().enumerate() {
        for line in block {
            if line.starts_with('#') {
                if let Some((from, to)) = blender_step(line) {
                    assert!(
                        dir.join(&from).is_file(),
                        "block {b}: the Blender step opens {from}, which no command before it wrote: {line}"
                    );
                    std::fs::copy(dir.join(&from), dir.join(&to)).unwrap();
                    played += 1;
                }
                continue;
            }
            let out = Command::new("sh")
                .arg("-c")
                .arg(line)
                .current_dir(dir)
                .env("PATH", &path)
                .env("HOME", &home)
                .env_remove("MSHCONV_GAME_DIR")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "block {b}: {line}\n  exit {:?}\n  stdout {}\n  stderr {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                !String::from_utf8_lossy(&out.stderr).contains("panicked"),
                "{line}"
            );
            ran += 1;
        }
        let now = std::fs::read(dir.join(ARCHIVE)).unwrap();
        assert!(
            now == original,
            "block {b}: after putting unedited models back, {ARCHIVE} is not the original ({} bytes, was {})",
            now.len(),
            original.len()
        );
    }
    // `game` (a model with its look) and `mod` (the libraries as files),
    // each brought back unedited: nothing changes.
    for copy in ["game", "mod"] {
        let copied = dir.join(copy);
        if copied.exists() {
            assert!(
                tree(&copied) == game,
                "the game folder's copy {copy} changed: what comes back unedited changes nothing"
            );
        }
    }
    assert!(ran >= 5, "only {ran} commands ran");
    assert!(played >= 1, "the Blender step was not played");
}

#[test]
fn the_extraction_rules() {
    let text = "intro\n```sh\nno\n```\n\n## Edit a game model\n\n```sh\ncargo install x\n```\n\
        <!-- readme_loop: runs -->\n```sh\na one  # note\n\n# 2. Blender: import a.glb, export as b.glb\nb two\n```\n\
        text\n```sh\nnot marked\n```\n<!-- readme_loop -->\n```sh\nc three\n```\n## Next\n\
        <!-- readme_loop -->\n```sh\nd no\n```\n";
    assert_eq!(
        loop_blocks(text),
        [
            vec![
                "a one  # note".to_string(),
                "# 2. Blender: import a.glb, export as b.glb".to_string(),
                "b two".to_string()
            ],
            vec!["c three".to_string()]
        ]
    );
    assert_eq!(
        blender_step(
            "# 2. Blender: import dome.glb, edit, export as edited.glb (the boxes: below)"
        ),
        Some(("dome.glb".to_string(), "edited.glb".to_string()))
    );
    assert_eq!(
        blender_step("# Blender: edit any of them, export each over its own file"),
        None
    );
    assert_eq!(blender_step("# copy a.glb to b.glb"), None);
    assert_eq!(blender_step("# Blender: open a.glb, save a.glb"), None);
}
