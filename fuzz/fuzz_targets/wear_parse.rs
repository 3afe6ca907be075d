//! WEAR text: parsing never panics; whatever parses writes back to the same
//! bytes, and its written form parses to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_material::Wear;

fuzz_target!(|data: &[u8]| {
    match Wear::parse(data) {
        Ok(wear) => {
            let written = wear.write().expect("a parsed WEAR must write");
            assert_eq!(written, data, "WEAR does not write back byte for byte");
            assert_eq!(Wear::parse(&written).unwrap(), wear);
        }
        Err(e) => {
            let at = e.offset().expect("a parse error has an offset");
            assert!(at <= data.len() as u64, "offset past the input");
        }
    }
});
