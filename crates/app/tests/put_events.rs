//! `mshconv_app::put::put_model_telling`, as the CLI calls it: a typo'd
//! entry refused before the model is read, the notes told as they happen
//! being the outcome's notes, and a dry run's listing (the model's size, no
//! WEAR without a look) with nothing written. The oracles are the fixture's
//! bytes and the archive read back with `nres`.

use mshconv_app::look_import::advice::GameDirAdvice;
use mshconv_app::look_import::write::Place;
use mshconv_app::put::{put_model_telling, Event, PutModel, Source};
use mshconv_app::{Format, NoResources, Options};
use std::path::{Path, PathBuf};

#[derive(Debug)]
struct Advice;

impl GameDirAdvice for Advice {
    fn option(&self) -> String {
        "--game-dir".into()
    }
    fn command(&self, dir: &str) -> String {
        format!("put --game-dir {dir}")
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A copy of the small game folder's archive, and a model to put.
fn setup() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("units.rlb");
    std::fs::copy(root().join("fixtures/small/game/units.rlb"), &archive).unwrap();
    let model = std::fs::read(root().join("fixtures/small/models/m277_turret.msh")).unwrap();
    (dir, archive, model)
}

fn put(
    data: &[u8],
    archive: &Path,
    name: &str,
    dry_run: bool,
    told: &mut Vec<(String, String)>,
) -> Result<mshconv_app::put::Outcome, mshconv_app::Error> {
    let options = Options::default();
    let source = Source {
        options: &options,
        names: None,
        resources: &NoResources,
        new_libraries: false,
    };
    let request = PutModel {
        data,
        from: Format::Msh,
        place: Place::Entry {
            archive: archive.to_path_buf(),
            name: name.into(),
        },
        add: false,
        game_dir: None,
        how_to_add: "give add",
        advice: &Advice,
        dry_run,
        original: None,
    };
    put_model_telling(&request, &source, &mut |event| {
        if let Event::Note(note) = event {
            told.push((note.code.to_string(), note.message.clone()));
        }
    })
}

#[test]
fn a_typo_is_refused_before_the_model_is_read() {
    let (_dir, archive, _) = setup();
    let before = std::fs::read(&archive).unwrap();
    let mut told = Vec::new();
    let e = put(b"not a model", &archive, "TANKK.MSH", false, &mut told).unwrap_err();
    assert_eq!(e.code(), "archive.no_such_entry", "{e}");
    assert!(told.is_empty());
    assert_eq!(std::fs::read(&archive).unwrap(), before);
}

#[test]
fn the_notes_told_are_the_outcomes_and_the_entry_holds_the_model() {
    let (_dir, archive, model) = setup();
    let mut told = Vec::new();
    let outcome = put(&model, &archive, "TANK.MSH", false, &mut told).unwrap();
    let kept: Vec<_> = outcome
        .report
        .notes
        .iter()
        .map(|n| (n.code.to_string(), n.message.clone()))
        .collect();
    // The turret has less than the tank it replaces: archive.entry_loses.
    assert!(
        told.iter().any(|(code, _)| code == "archive.entry_loses"),
        "{told:?}"
    );
    assert_eq!(told, kept);
    assert!(outcome.listing.is_none());
    let bytes = std::fs::read(&archive).unwrap();
    let read = nres::Archive::parse(&bytes).unwrap();
    assert_eq!(read.find_by_name("TANK.MSH").unwrap().data(), &model[..]);
}

#[test]
fn a_dry_run_lists_the_model_and_writes_nothing() {
    let (_dir, archive, model) = setup();
    let before = std::fs::read(&archive).unwrap();
    let mut told = Vec::new();
    let outcome = put(&model, &archive, "TANK.MSH", true, &mut told).unwrap();
    let listing = outcome.listing.expect("a dry run's listing");
    assert_eq!(listing.model_bytes, model.len());
    assert_eq!(listing.wear_bytes, None);
    assert!(listing.libraries.is_empty() && listing.changes.is_empty());
    assert_eq!(outcome.placed, Some(mshconv_app::archive::Placed::Replaced));
    assert_eq!(std::fs::read(&archive).unwrap(), before);
}
