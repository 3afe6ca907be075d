//! Tier 1: for every valid fixture, msh -> glb -> msh and msh -> gltf -> msh
//! give back the original bytes (failures collected per file).

mod common;

use mshconv_gltf::ImportOptions;
use mshconv_gltf::{gltf_to_msh, msh_to_gltf};
use mshconv_gltf::{ExportOptions, GltfFormat};

fn no_files(_: &str) -> Option<Vec<u8>> {
    None
}

#[test]
fn every_fixture_round_trips_byte_for_byte_through_glb_and_gltf() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, bytes) in common::valid_fixtures() {
        for format in [GltfFormat::Glb, GltfFormat::Gltf] {
            let (gltf, _) = msh_to_gltf(
                &bytes,
                &ExportOptions {
                    format,
                    ..Default::default()
                },
            )
            .unwrap();
            match gltf_to_msh(&gltf, &ImportOptions::default(), &no_files) {
                Ok((back, report)) if back == bytes => {
                    if report.has("import.rebuilt") {
                        failures.push(format!(
                            "{name} ({format:?}): identical, but through the generic path: {:?}",
                            report.notes
                        ));
                    }
                    checked += 1;
                }
                Ok((back, report)) => {
                    let first = back
                        .iter()
                        .zip(&bytes)
                        .position(|(a, b)| a != b)
                        .unwrap_or(back.len().min(bytes.len()));
                    failures.push(format!(
                        "{name} ({format:?}): differs at byte {first} ({} vs {} bytes); notes {:?}",
                        back.len(),
                        bytes.len(),
                        report
                            .notes
                            .iter()
                            .map(|n| n.message.as_str())
                            .collect::<Vec<_>>()
                    ));
                }
                Err(e) => failures.push(format!("{name} ({format:?}): {e}")),
            }
        }
    }
    common::fail_if_any("round trip", failures);
    assert!(checked > 80, "{checked}");
}

/// Exports before Res7 always travelled raw left it out when the per-slot
/// derivation reproduces it: such files still round trip exactly. The
/// generated models build Res7 with `msh::derive::tri_descs`, so removing the
/// raw table from their exports is exactly that older shape.
#[test]
fn exports_without_raw_res7_get_it_derived_back_exactly() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, bytes) in common::valid_fixtures() {
        if !name.starts_with("models/") {
            continue;
        }
        let options = ExportOptions {
            format: GltfFormat::Gltf,
            ..Default::default()
        };
        let (gltf, _) = msh_to_gltf(&bytes, &options).unwrap();
        let mut doc: serde_json::Value = serde_json::from_slice(&gltf).unwrap();
        let raw = doc["scenes"][0]["extras"]["msh"]["raw"]
            .as_object_mut()
            .unwrap();
        if raw.remove("tri_descs").is_none() {
            failures.push(format!("{name}: the export has no raw Res7"));
            continue;
        }
        let stripped = serde_json::to_vec(&doc).unwrap();
        match gltf_to_msh(&stripped, &ImportOptions::default(), &no_files) {
            Ok((back, report)) if back == bytes && !report.has("import.rebuilt") => checked += 1,
            Ok((_, report)) => failures.push(format!("{name}: differs; notes {:?}", report.notes)),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    common::fail_if_any("derived Res7", failures);
    assert!(checked >= 20, "{checked}");
}
