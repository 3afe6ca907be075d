//! The original MSH file inside a glTF export (`scenes[0].extras.msh.original`),
//! written with `--embed-original` (and by every export before the
//! fingerprint): raw DEFLATE, then base64. Another tool (Blender) keeps the
//! scene's custom properties but rebuilds everything else; the import
//! compares what comes back with this file and keeps its bytes where nothing
//! was edited (`import/recognise/`).

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use base64::Engine as _;
use std::io::{Read, Write};

/// Compression level: the default of zlib (6), with flate2's `zlib-rs`
/// backend (**a choice**, measured on the 605 models of `gen-fixtures full`,
/// 33.8 MB, bench/RESULTS.md "Issue 41"): 40.2% of the MSH bytes in 0.95 s,
/// where miniz_oxide (the backend before) took 2.40 s for 39.5% at level 6
/// and 0.44 s for 44.4% at level 1, and zlib-rs's level 9 took 2.72 s for
/// 39.1%.
const LEVEL: u32 = 6;

/// The text the export stores for the MSH file `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    let mut deflate = flate2::write::DeflateEncoder::new(
        Vec::with_capacity(bytes.len() / 2),
        flate2::Compression::new(LEVEL),
    );
    // Writing into a Vec cannot fail.
    let packed = deflate
        .write_all(bytes)
        .and_then(|()| deflate.finish())
        .unwrap_or_default();
    base64::engine::general_purpose::STANDARD.encode(packed)
}

/// The MSH file stored as `text`, at most `limit` bytes (a larger one is an
/// error before more than `limit + 1` bytes are inflated).
pub fn decode(text: &str, limit: usize) -> Result<Vec<u8>> {
    let bad = |why: String| {
        Error::new(
            ErrorKind::InvalidInput,
            Code::GltfBadExtras.code(),
            format!("/scenes/0/extras/msh/original: {why}"),
        )
    };
    let packed = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| bad(format!("invalid base64 ({e})")))?;
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(packed.as_slice())
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| bad(format!("invalid DEFLATE data ({e})")))?;
    if out.len() > limit {
        return Err(bad(format!("inflates to more than {limit} bytes")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_comes_back_as_it_went_in() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        assert_eq!(decode(&encode(&bytes), bytes.len()).unwrap(), bytes);
    }

    #[test]
    fn more_than_the_limit_is_refused() {
        let bytes = vec![0u8; 10_000];
        let e = decode(&encode(&bytes), 9_999).unwrap_err();
        assert_eq!(e.code(), "gltf.bad_extras");
        assert!(decode("not base64!", 10).is_err());
        assert!(decode("AAAA", 10).is_err());
    }
}
