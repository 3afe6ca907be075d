//! MAT0: the first byte is the version (the entry's `attr2`), the rest the
//! payload. Parsing never panics; whatever parses writes back to the same
//! bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_material::Mat0;

fuzz_target!(|data: &[u8]| {
    let Some((&version, payload)) = data.split_first() else {
        return;
    };
    match Mat0::parse(payload, u32::from(version)) {
        Ok(m) => {
            let _ = (m.texture(), m.metadata.effective());
            for b in &m.animation_blocks {
                let _ = (b.mode(), b.interpolation_mask());
            }
            assert_eq!(
                m.write().expect("a parsed MAT0 must write"),
                payload,
                "MAT0 does not write back byte for byte"
            );
        }
        Err(e) => {
            let at = e.offset().expect("a parse error has an offset");
            assert!(at <= payload.len() as u64, "offset past the input");
        }
    }
});
