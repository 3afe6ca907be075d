//! Regression tests, each named after the finding it pins; fuzzer inputs are in tests/data/.

use std::path::Path;

/// A strictly valid model comes back byte for byte through .glb and .gltf.
fn assert_round_trips(bytes: &[u8]) {
    msh::open(bytes, msh::Mode::Strict).expect("valid");
    for format in [
        mshconv_gltf::GltfFormat::Glb,
        mshconv_gltf::GltfFormat::Gltf,
    ] {
        let (gltf, _) = mshconv_gltf::msh_to_gltf(
            bytes,
            &mshconv_gltf::ExportOptions {
                format,
                ..Default::default()
            },
        )
        .unwrap();
        let (back, _) = mshconv_gltf::gltf_to_msh(&gltf, &Default::default(), &|_| None).unwrap();
        assert!(back == bytes, "{format:?}: the round trip changed the file");
    }
}

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// Fuzzing (gltf_import, 2026-11-22): a GLB with our extras whose indices and
/// key times were damaged went through the exact rebuild and came out as an
/// invalid MSH (vertices past Res3, key times not increasing). The rebuild now
/// validates its result and otherwise leaves the file to the generic path, and
/// the importer never returns an invalid model.
#[test]
fn fuzz_gltf_lossless_bad_indices_never_gives_an_invalid_model() {
    let bytes = data("fuzz_gltf_lossless_bad_indices.glb");
    match mshconv_gltf::gltf_to_msh(&bytes, &Default::default(), &|_| None) {
        Ok((msh, _)) => {
            msh::open(&msh, msh::Mode::Strict).expect("whatever the importer returns is valid");
        }
        Err(e) => assert_eq!(e.kind(), mshconv_convert::ErrorKind::InvalidInput, "{e}"),
    }
}

/// Fuzzing (gltf_import, 2026-11-22): a primitive whose POSITION names an
/// accessor that does not exist made gltf-json's validation panic (it indexes
/// without a range check). Attribute indices are now checked first.
#[test]
fn fuzz_gltf_position_accessor_out_of_range_is_an_error() {
    let bytes = data("fuzz_gltf_position_accessor_out_of_range.glb");
    let e = mshconv_gltf::gltf_to_msh(&bytes, &Default::default(), &|_| None).unwrap_err();
    assert_eq!(e.kind(), mshconv_convert::ErrorKind::InvalidInput, "{e}");
}

/// Fuzzing (gltf_import, 2026-11-22): an animation lasting 42745 s made the
/// importer sample about a million frames per node before failing. The MSH
/// limit (65535 frame-map words) is now checked before sampling.
#[test]
fn fuzz_gltf_huge_duration_is_refused_before_sampling() {
    let bytes = data("fuzz_gltf_huge_duration.glb");
    let e = mshconv_gltf::gltf_to_msh(&bytes, &Default::default(), &|_| None).unwrap_err();
    assert_eq!(e.code(), "anim.too_long", "{e}");
}

/// Fuzzing (msh_gltf_roundtrip, session 6 campaign): a valid model with no
/// nodes but two keys in Res8 came back with none: the keys after the last
/// node's track belong to no node, and the exporter took the layout for
/// canonical without them (so did not carry Res8 raw). Such keys now make it
/// non-canonical.
#[test]
fn fuzz_roundtrip_keys_after_the_last_track_come_back() {
    assert_round_trips(&data("fuzz_roundtrip_keys_after_the_last_track.msh"));
}

/// Fuzzing (msh_gltf_roundtrip, session 7 campaign): a valid model whose
/// static node's one key is at time -0.0 came back with +0.0. The exporter
/// checked the canonical layout's "one key at 0" with `==`, which -0.0
/// passes, so did not carry Res8 raw; it now asks for the bits of +0.0 (and
/// so does the direct-track check for an animated node's first key).
#[test]
fn fuzz_roundtrip_negative_zero_key_time_comes_back() {
    assert_round_trips(&data("fuzz_roundtrip_negative_zero_key_time.msh"));
}

/// Fuzzing (gltf_import, long campaign, session 6): a 13 KB GLB whose
/// animation samples one node along a straight line for 9,746 frames took
/// 0.6 s to import (11 s under the fuzzer): the key reduction tried every
/// candidate end of a straight run, checking every sample before it, which
/// is quadratic (29 s for the 65,535 frames a model may hold). Long runs are
/// now searched by doubling and bisection (8 ms); the keys are the same
/// (`assemble::tests::a_long_straight_track_keeps_only_its_corners` keeps
/// that covered). Since the key checks of issue 25 this file's key times,
/// out of order, are sorted first (`clips.key_time_order`): its last key is
/// then at 1.08e37 s and the file is refused before any sampling
/// (`anim.too_long`), where it used to be sampled over the 406 s its last
/// key in file order gave.
#[test]
fn fuzz_gltf_long_straight_track_is_reduced_to_its_corners() {
    let bytes = data("fuzz_gltf_long_straight_track.glb");
    let e = mshconv_gltf::gltf_to_msh(&bytes, &Default::default(), &|_| None).unwrap_err();
    assert_eq!(e.code(), "anim.too_long", "{e}");
}

/// Fuzzing (msh_gltf_roundtrip, 2026-11-22): a valid model with a batch that no
/// slot refers to lost that batch's fields on the direct round trip. Batches
/// outside every slot now travel raw, like vertex and index gaps.
#[test]
fn fuzz_roundtrip_batch_in_no_slot_comes_back() {
    assert_round_trips(&data("fuzz_roundtrip_batch_in_no_slot.msh"));
}

/// Fuzzing (msh_gltf_roundtrip, long campaign, 2026-11-22): a model with no nodes
/// and an empty Res19 whose frame count (attr2) is not 1 came back with frame
/// count 1: with no keys and no map words there was no raw table to carry it.
/// The exporter now records when the frame count is kept as it is.
#[test]
fn fuzz_roundtrip_empty_map_frame_count_comes_back() {
    assert_round_trips(&data("fuzz_roundtrip_empty_map_frame_count.msh"));
}

/// Fuzzing (gltf_import, long campaign, 2026-11-22): a GLB whose JSON holds a
/// value gltf-json marks invalid (an unknown enum) reached a `Checked::unwrap`
/// and panicked. It is now an error.
#[test]
fn fuzz_gltf_invalid_checked_value_is_an_error() {
    let bytes = data("fuzz_gltf_invalid_checked_value.glb");
    let e = mshconv_gltf::gltf_to_msh(&bytes, &Default::default(), &|_| None).unwrap_err();
    assert_eq!(e.kind(), mshconv_convert::ErrorKind::InvalidInput, "{e}");
}

/// The same gap as `fuzz_gltf_invalid_checked_value_is_an_error`: gltf-json does
/// not check an animation channel's target node either (the `gltf` crate then
/// indexes it unchecked).
#[test]
fn gltf_animation_channel_node_out_of_range_is_an_error() {
    let json = br#"{"asset":{"version":"2.0"},"nodes":[{}],
      "buffers":[{"byteLength":8,"uri":"data:application/octet-stream;base64,AAAAAAAAgD8="}],
      "bufferViews":[{"buffer":0,"byteLength":8}],
      "accessors":[{"bufferView":0,"count":2,"componentType":5126,"type":"SCALAR","min":[0],"max":[1]}],
      "animations":[{"samplers":[{"input":0,"output":0}],
        "channels":[{"sampler":0,"target":{"node":7,"path":"translation"}}]}]}"#;
    let e = mshconv_gltf::gltf_to_msh(json, &Default::default(), &|_| None).unwrap_err();
    assert_eq!(e.code(), "gltf.bad_index", "{e}");
    assert!(e.to_string().contains("animations[0].channels[0]"), "{e}");
}

/// Fuzzing (look_import, 2026-11-28, in CI): an image with a `bufferView`
/// and no `mimeType` made the `gltf` crate's `Image::source` panic (it
/// unwraps the MIME type; it also indexes the views without a check). The
/// look import reads the image's JSON itself: a view that does not exist is
/// `gltf.view_out_of_range`, an image without view or uri `image.invalid`,
/// and the pixels are sniffed as before (their material gets no texture,
/// with a note).
#[test]
fn fuzz_look_image_view_without_mime_type_does_not_panic() {
    let bytes = data("fuzz_look_image_view_without_mime_type.glb");
    if let Err(e) = mshconv_gltf::import::look::read_look(&bytes, &|_| None) {
        assert_eq!(e.kind(), mshconv_convert::ErrorKind::InvalidInput, "{e}");
    }
}
