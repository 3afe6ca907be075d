//! Animation clips both ways (issue 25): an export with clips converts back
//! to the byte-identical MSH and the same clip list (GLB and .gltf); a file
//! whose model extras are gone still puts each clip at its recorded frames;
//! each key-time check is triggered by a file of `tests/data/clips/`.
//! (That each clip's animation is the engine's pose: `export_animation.rs`.)

mod common;

use mshconv_convert::clips::{
    KEY_TIME_DUPLICATE, KEY_TIME_INVALID, KEY_TIME_ORDER, NO_TRACK, PAST_TIMELINE,
};
use mshconv_convert::{ClipList, LoopMode};
use mshconv_gltf::msh_to_gltf;
use mshconv_gltf::{import_with_clips, ImportOptions};
use mshconv_gltf::{ExportOptions, GltfFormat};

/// Animated standard fixtures of at least 8 frames, with a clip list over each.
fn animated() -> Vec<(String, Vec<u8>, ClipList)> {
    common::valid_fixtures()
        .into_iter()
        .filter_map(|(name, bytes)| {
            let opened = msh::open(&bytes, msh::Mode::Strict).ok()?;
            let fc = opened.view.frame_count;
            let fit = opened.view.is_animated()
                && fc >= 8
                && opened.view.kind == Some(msh::ModelKind::Standard);
            if !fit {
                return None;
            }
            let list = format!(
                "idle=0..2:loop,walk=3..{}:pingpong,die={}..{}:once",
                fc / 2,
                fc / 2 + 2,
                fc - 1
            );
            Some((name, bytes.clone(), list.parse().unwrap()))
        })
        .collect()
}

fn no_side_files(_: &str) -> Option<Vec<u8>> {
    None
}

#[test]
fn an_export_with_clips_comes_back_byte_identical_with_its_clips() {
    let models = animated();
    assert!(models.len() >= 3, "only {} animated models", models.len());
    for (name, bytes, list) in &models {
        for format in [GltfFormat::Glb, GltfFormat::Gltf] {
            let options = ExportOptions {
                format,
                clips: Some(list.clone()),
                ..ExportOptions::default()
            };
            let (out, _) = msh_to_gltf(bytes, &options).unwrap();
            let doc = gltf::Gltf::from_slice(&out).unwrap();
            let names: Vec<_> = doc.animations().map(|a| a.name().unwrap_or("")).collect();
            assert_eq!(names, ["idle", "walk", "die"], "{name}");
            let extras: serde_json::Value = serde_json::from_str(
                doc.animations()
                    .nth(1)
                    .unwrap()
                    .extras()
                    .as_ref()
                    .unwrap()
                    .get(),
            )
            .unwrap();
            assert_eq!(extras["msh"]["clip"]["mode"], "pingpong", "{name}");
            assert_eq!(extras["msh"]["clip"]["first"], 3, "{name}");
            assert_eq!(extras["msh"]["clip"]["fps"], 24.0, "{name}");
            let (back, clips, report) =
                import_with_clips(&out, &ImportOptions::default(), &no_side_files).unwrap();
            assert!(back == *bytes, "{name} {format:?}: not byte-identical");
            assert_eq!(clips.as_ref(), Some(list), "{name}");
            assert!(report.has("import.clip_list"), "{name}");
        }
    }
}

#[test]
fn clips_past_the_timeline_or_without_tracks_are_refused() {
    let (name, bytes, _) = &animated()[0];
    let fc = msh::open(bytes, msh::Mode::Strict)
        .unwrap()
        .view
        .frame_count;
    let options = ExportOptions {
        clips: Some(format!("a=0..{fc}").parse().unwrap()),
        ..ExportOptions::default()
    };
    let e = msh_to_gltf(bytes, &options).unwrap_err();
    assert_eq!(e.code(), PAST_TIMELINE, "{name}");
    let still = common::valid_fixtures()
        .into_iter()
        .find(|(_, b)| {
            msh::open(b, msh::Mode::Strict).is_ok_and(|o| {
                !o.view.is_animated()
                    && o.view.kind == Some(msh::ModelKind::Standard)
                    && o.view.frame_count > 0
            })
        })
        .expect("a still model");
    let options = ExportOptions {
        clips: Some("a=0..0".parse().unwrap()),
        ..ExportOptions::default()
    };
    assert_eq!(
        msh_to_gltf(&still.1, &options).unwrap_err().code(),
        NO_TRACK
    );
}

/// The model's own extras gone (as another tool may drop them), the
/// animations' clip extras kept: each clip comes back at its frames.
#[test]
fn recorded_frames_hold_without_the_model_extras() {
    for (name, bytes, list) in animated().iter().take(4) {
        let options = ExportOptions {
            format: GltfFormat::Gltf,
            clips: Some(list.clone()),
            ..ExportOptions::default()
        };
        let (out, _) = msh_to_gltf(bytes, &options).unwrap();
        let mut json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        json["scenes"][0]
            .as_object_mut()
            .unwrap()
            .remove("extras")
            .unwrap();
        let edited = serde_json::to_vec(&json).unwrap();
        let (back, clips, report) =
            import_with_clips(&edited, &ImportOptions::default(), &no_side_files).unwrap();
        assert_eq!(clips.as_ref(), Some(list), "{name}");
        assert!(!report.has("import.clips"), "{name}: laid end to end");
        let view = msh::open(&back, msh::Mode::Strict).unwrap();
        assert!(
            view.view.frame_count > list.clips()[2].last,
            "{name}: the timeline ends before the last clip"
        );
    }
}

fn import_file(name: &str) -> mshconv_convert::Result<(Option<ClipList>, mshconv_convert::Report)> {
    let path = common::root()
        .join("crates/formats/gltf/tests/data/clips")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    import_with_clips(&bytes, &ImportOptions::default(), &no_side_files)
        .map(|(_, clips, report)| (clips, report))
}

#[test]
fn each_key_time_code_is_triggered_by_its_file() {
    // NaN and infinity are refused by the reader, as in any float accessor
    // (`gltf.non_finite`), before the key check sees them.
    for file in ["key_time_nan.gltf", "key_time_infinite.gltf"] {
        let e = import_file(file).unwrap_err();
        assert_eq!(e.code(), "gltf.non_finite", "{file}: {e}");
    }
    for (file, code) in [
        ("key_time_negative.gltf", KEY_TIME_INVALID),
        ("key_time_duplicate.gltf", KEY_TIME_DUPLICATE),
        ("key_time_order.gltf", KEY_TIME_ORDER),
        ("no_track.gltf", NO_TRACK),
        ("past_timeline.gltf", PAST_TIMELINE),
    ] {
        let (_, report) = import_file(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(report.has(code), "{file}: {:?}", report.notes);
    }
    // Mended past the timeline: laid from frame 0 instead (one clip: no list).
    assert_eq!(import_file("past_timeline.gltf").unwrap().0, None);
}

#[test]
fn a_recorded_clip_goes_to_its_frames() {
    let (clips, report) = import_file("recorded.gltf").unwrap();
    let clips = clips.expect("a clip list");
    assert_eq!(clips.clips().len(), 1);
    let c = &clips.clips()[0];
    assert_eq!(
        (c.name.as_str(), c.first, c.last, c.mode),
        ("walk", 10, 16, LoopMode::PingPong)
    );
    assert!(report.has("import.clip_list"));
}

/// Exports with clips pass the Khronos glTF-Validator with 0 errors and 0
/// warnings, GLB and `.gltf`, and are the same bytes run after run.
#[test]
fn exports_with_clips_are_validator_clean() {
    let dir = tempfile::tempdir().unwrap();
    let mut written = 0;
    for (name, bytes, list) in animated() {
        for format in [GltfFormat::Glb, GltfFormat::Gltf] {
            let options = ExportOptions {
                format,
                clips: Some(list.clone()),
                ..ExportOptions::default()
            };
            let out = msh_to_gltf(&bytes, &options).unwrap().0;
            assert!(
                out == msh_to_gltf(&bytes, &options).unwrap().0,
                "{name}: not deterministic"
            );
            let ext = if format == GltfFormat::Glb {
                "glb"
            } else {
                "gltf"
            };
            std::fs::write(
                dir.path()
                    .join(format!("{}.{ext}", name.replace('/', "__"))),
                out,
            )
            .unwrap();
            written += 1;
        }
    }
    let results = common::validate_dir(dir.path());
    assert_eq!(results.len(), written, "the validator saw every file");
    let failures: Vec<String> = results
        .iter()
        .filter(|r| r.errors > 0 || r.warnings > 0)
        .map(|r| {
            format!(
                "{}: {} errors, {} warnings: {:?}",
                r.file,
                r.errors,
                r.warnings,
                &r.messages[..r.messages.len().min(5)]
            )
        })
        .collect();
    common::fail_if_any("validator", failures);
}

/// A terrain model's tables travel raw: clips do not apply, and it says so.
#[test]
fn clips_on_a_terrain_model_are_noted_and_ignored() {
    let bytes = std::fs::read(common::root().join("fixtures/small/edge/terrain_land.msh")).unwrap();
    let plain = msh_to_gltf(&bytes, &ExportOptions::default()).unwrap();
    let options = ExportOptions {
        clips: Some("a=0..0".parse().unwrap()),
        ..ExportOptions::default()
    };
    let (out, report) = msh_to_gltf(&bytes, &options).unwrap();
    assert!(report.has("export.clips_ignored"), "{:?}", report.notes);
    assert!(out == plain.0, "the output is the one without clips");
}

/// An edit to a clip's keys is an edit in the MSH: the exact rebuild sees
/// the clip animation changed and steps aside; the original is recognised
/// with that node's animation written again (`import.original_edited`), each
/// clip at its recorded frames with the edited pose.
#[test]
fn an_edited_clip_is_taken() {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let (_, bytes, list) = animated()
        .into_iter()
        .find(|(name, ..)| name.ends_with("m095_walker.msh"))
        .expect("the walker");
    let options = ExportOptions {
        format: GltfFormat::Gltf,
        clips: Some(list.clone()),
        ..ExportOptions::default()
    };
    let (out, _) = msh_to_gltf(&bytes, &options).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    // The first key of the walk clip's first channel (a translation): x + 0.5.
    let walk = &json["animations"][1];
    let channel = &walk["channels"][0];
    assert_eq!(channel["target"]["path"], "translation");
    let node = channel["target"]["node"].as_u64().unwrap() as usize;
    let sampler = channel["sampler"].as_u64().unwrap() as usize;
    let accessor =
        &json["accessors"][walk["samplers"][sampler]["output"].as_u64().unwrap() as usize];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let at = (view["byteOffset"].as_u64().unwrap_or(0)
        + accessor["byteOffset"].as_u64().unwrap_or(0)) as usize;
    let uri = json["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, data) = uri.split_once(',').unwrap();
    let mut buffer = b64.decode(data).unwrap();
    let x = f32::from_le_bytes(buffer[at..at + 4].try_into().unwrap()) + 0.5;
    buffer[at..at + 4].copy_from_slice(&x.to_le_bytes());
    json["buffers"][0]["uri"] = format!("{head},{}", b64.encode(&buffer)).into();
    let edited = serde_json::to_vec(&json).unwrap();

    // Written back over the model it came from: that model is the original.
    let over = ImportOptions {
        original: Some(bytes.as_slice().into()),
        ..ImportOptions::default()
    };
    let (back, clips, report) = import_with_clips(&edited, &over, &no_side_files).unwrap();
    assert!(report.has("import.original_edited"), "{:?}", report.notes);
    assert_eq!(clips.as_ref(), Some(&list));
    let first = list.clips()[1].first as f32;
    let a = msh::open(&bytes, msh::Mode::Strict).unwrap();
    let b = msh::open(&back, msh::Mode::Strict).unwrap();
    let before = msh::pose::local_poses(&a.view, first).unwrap()[node].translation[0];
    let after = msh::pose::local_poses(&b.view, first).unwrap()[node].translation[0];
    assert!((after - before - 0.5).abs() < 1e-4, "{before} -> {after}");
    // The unedited file still rebuilds exactly.
    let (same, _, report) =
        import_with_clips(&out, &ImportOptions::default(), &no_side_files).unwrap();
    assert!(same == bytes && !report.has("import.rebuilt"));
}
