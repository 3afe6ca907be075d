//! Texm: parsing never panics; whatever parses writes back to the same
//! bytes; every level decodes to RGBA8 and encodes back (with the level as
//! reference) to the same bits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_material::texm::{encode_level, level_size};
use mshconv_material::Texm;

fuzz_target!(|data: &[u8]| {
    match Texm::parse(data) {
        Ok(t) => {
            assert_eq!(
                t.write().expect("a parsed Texm must write"),
                data,
                "Texm does not write back byte for byte"
            );
            for (i, level) in t.levels.iter().enumerate() {
                let image = t.decode_level_rgba8(i).expect("a parsed level decodes");
                let (w, h) = level_size(t.width, t.height, i as u32);
                let back = encode_level(
                    t.format,
                    t.palette.as_deref(),
                    w,
                    h,
                    &image.pixels,
                    Some(level),
                )
                .expect("decoded pixels encode");
                assert_eq!(&back, level, "level {i} does not come back through RGBA8");
            }
        }
        Err(e) => {
            let at = e.offset().expect("a parse error has an offset");
            assert!(at <= data.len() as u64, "offset past the input");
        }
    }
});
