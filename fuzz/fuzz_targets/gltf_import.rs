//! glTF/GLB import: never panics, never reads a file (the resolver refuses),
//! and whatever it accepts becomes a strictly valid MSH.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let refuse = |_: &str| -> Option<Vec<u8>> { None };
    if let Ok((msh, _)) = mshconv_gltf::gltf_to_msh(data, &Default::default(), &refuse) {
        if let Err(e) = msh::open(&msh, msh::Mode::Strict) {
            panic!("the importer wrote an invalid MSH: {e}");
        }
    }
});
