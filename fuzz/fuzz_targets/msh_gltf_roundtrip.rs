//! The whole bytes -> GLB -> MSH path: a file strict validation accepts comes
//! back byte for byte through .glb and .gltf; export and import never panic.
#![no_main]

use mshconv_gltf::{ExportOptions, GltfFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let refuse = |_: &str| -> Option<Vec<u8>> { None };
    let valid = msh::open(data, msh::Mode::Strict).is_ok();
    for format in [GltfFormat::Glb, GltfFormat::Gltf] {
        match mshconv_gltf::msh_to_gltf(data, &ExportOptions { format, ..Default::default() }) {
            Ok((gltf, _)) => {
                let back = mshconv_gltf::gltf_to_msh(&gltf, &Default::default(), &refuse);
                match back {
                    Ok((msh, _)) => assert_eq!(msh, data, "{format:?} round trip changed a valid file"),
                    Err(e) => panic!("re-importing our own export failed: {e}"),
                }
            }
            // Only invalid files, values glTF cannot hold (NaN positions), or a
            // valid file whose ranges repeat its tables past the bound of
            // docs/ROBUSTNESS.md (standard or terrain slots) may be refused.
            Err(e) => assert!(
                !valid || matches!(e.code(), "export.non_finite" | "export.ranges_overlap"),
                "a valid file failed to export: {e}"
            ),
        }
    }
});
