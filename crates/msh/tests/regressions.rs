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

/// Fuzzing (gltf_import, 2026-11-22): validating a model whose last key time is
/// huge (1e30 saturates to u64::MAX when cast) overflowed `frame_count + 1` and
/// panicked. The canonical frame count now saturates.
#[test]
fn huge_key_time_does_not_overflow_the_frame_count_check() {
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/small/models/m095_walker.msh"),
    )
    .unwrap();
    let mut model = Model::from_bytes(&bytes).unwrap();
    let last = model
        .nodes
        .iter()
        .map(|n| n.fallback_key.get() as usize)
        .max()
        .unwrap();
    model.anim_keys[last].time = 1e30f32.into();
    let damaged = model.to_bytes().unwrap();
    let report = msh::validate_bytes(&damaged);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.code == msh::Code::NonCanonicalFrameCount),
        "{report:?}"
    );
}

/// Fuzzing (msh_gltf_roundtrip, 2026-11-22): a legacy-node model whose batch
/// reached past Res3 passed strict validation (the rules were skipped for the
/// legacy layout) and the exporter read out of range. The geometry rules now
/// apply to legacy models too.
#[test]
fn fuzz_legacy_batch_past_vertices_is_invalid() {
    let bytes = data("fuzz_legacy_batch_past_vertices.msh");
    let e = msh::open(&bytes, Mode::Strict).unwrap_err();
    assert_eq!(e.code(), "batch.vertex_range", "{e}");
}
