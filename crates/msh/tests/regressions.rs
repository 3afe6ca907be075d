//! Regression tests, each named after the finding it pins (fuzzer finds keep their input in tests/data/).

use msh::{Mode, Model};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// Fuzzing (msh_model, 2026-11-22): an empty Res19 whose `data_offset` points
/// inside Res7's payload is valid (an empty payload may point anywhere), but
/// the lossless writer re-laid the container out canonically. Empty payloads
/// now keep their offset as a hint.
#[test]
fn fuzz_empty_payload_inside_another_round_trips() {
    let bytes = data("fuzz_empty_payload_inside_another.msh");
    msh::open(&bytes, Mode::Strict).expect("the file is strictly valid");
    assert_eq!(
        Model::from_bytes(&bytes).unwrap().to_bytes().unwrap(),
        bytes
    );
    let archive = nres::Archive::parse(&bytes).unwrap();
    let owned = nres::OwnedArchive::from_archive(&archive);
    assert_eq!(owned.write(nres::WriteMode::Lossless).unwrap(), bytes);
}
