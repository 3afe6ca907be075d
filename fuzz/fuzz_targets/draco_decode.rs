//! KHR_draco_mesh_compression decoding (mshconv_gltf::import::draco):
//! any bytes as a Draco mesh bitstream. Decoding never panics and stays
//! within its byte ceiling; what it returns is consistent: every face names
//! points that exist, and every attribute has a value row per point.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_gltf::import::draco::decode;

fuzz_target!(|data: &[u8]| {
    if let Ok(mesh) = decode(data, 16 << 20) {
        assert!(mesh
            .faces
            .iter()
            .flatten()
            .all(|&p| (p as usize) < mesh.points));
        for (components, values) in mesh.attributes.values() {
            assert_eq!(values.len(), mesh.points * components);
        }
    }
});
