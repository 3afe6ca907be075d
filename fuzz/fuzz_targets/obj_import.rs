//! OBJ import: never panics, and whatever it accepts becomes a strictly valid MSH.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((msh, _)) = mshconv_obj::obj_to_msh(data, None, &Default::default()) {
        if let Err(e) = msh::open(&msh, msh::Mode::Strict) {
            panic!("the OBJ importer wrote an invalid MSH: {e}");
        }
    }
});
