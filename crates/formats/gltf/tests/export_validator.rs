//! Every valid fixture converts, and the Khronos glTF-Validator reports 0 errors
//! and 0 warnings on every output, GLB and `.gltf`. Output is deterministic.

mod common;

use mshconv_gltf::msh_to_gltf;
use mshconv_gltf::{ExportOptions, GltfFormat};

#[test]
fn every_fixture_exports_to_validator_clean_gltf_and_glb() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut written = 0;
    for (name, bytes) in common::valid_fixtures() {
        for format in [GltfFormat::Glb, GltfFormat::Gltf] {
            let options = ExportOptions {
                format,
                ..ExportOptions::default()
            };
            match msh_to_gltf(&bytes, &options) {
                Ok((out, _report)) => {
                    let again = msh_to_gltf(&bytes, &options).unwrap().0;
                    if again != out {
                        failures.push(format!("{name}: output differs between two runs"));
                    }
                    let ext = if format == GltfFormat::Glb {
                        "glb"
                    } else {
                        "gltf"
                    };
                    let file = format!("{}.{ext}", name.replace('/', "__"));
                    std::fs::write(dir.path().join(file), out).unwrap();
                    written += 1;
                }
                Err(e) => failures.push(format!("{name} ({format:?}): {e}")),
            }
        }
    }
    let results = common::validate_dir(dir.path());
    assert_eq!(results.len(), written, "validator saw every file");
    for r in results {
        if r.errors > 0 || r.warnings > 0 {
            failures.push(format!(
                "{}: {} errors, {} warnings: {}",
                r.file,
                r.errors,
                r.warnings,
                r.messages
                    .iter()
                    .filter(|m| !m.starts_with("2:") && !m.starts_with("3:"))
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" | ")
            ));
        }
    }
    common::fail_if_any("export", failures);
}
