//! EXT_meshopt_compression decoding (mshconv_gltf::import::meshopt):
//! bytes 0-3 choose the mode, the filter, the stride and (with byte 4) the
//! count; the rest is the compressed data. Decoding never panics or aborts
//! (every parameter meshoptimizer asserts on is checked first), and what it
//! returns is exactly `count * stride` bytes. The rest, taken as raw vertices
//! of that stride, comes back byte for byte through the vertex codec.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_gltf::import::meshopt::{decode, Filter, Mode};

const MAX_BYTES: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<5>() else {
        return;
    };
    let mode = [Mode::Attributes, Mode::Triangles, Mode::Indices][usize::from(head[0] % 3)];
    let filter = [
        Filter::None,
        Filter::Octahedral,
        Filter::Quaternion,
        Filter::Exponential,
        Filter::Color,
    ][usize::from(head[1] % 5)];
    // Mostly strides the codecs take, sometimes any.
    let stride = if head[2] & 0x80 == 0 {
        match mode {
            Mode::Attributes => (usize::from(head[2] % 64) + 1) * 4,
            _ => [2, 4][usize::from(head[2] & 1)],
        }
    } else {
        usize::from(head[2] & 0x7f) * 3
    };
    let count = usize::from(u16::from_le_bytes([head[3], head[4]]));
    if let Ok(out) = decode(rest, mode, filter, stride, count, MAX_BYTES) {
        assert_eq!(out.len(), count * stride, "decoded length");
    }
    // Correctness: arbitrary vertices survive the vertex codec.
    if mode == Mode::Attributes && stride > 0 && stride % 4 == 0 && stride <= 256 {
        let n = rest.len() / stride;
        let vertices = &rest[..n * stride];
        let encoded = encode(vertices, stride);
        let back = decode(
            &encoded,
            Mode::Attributes,
            Filter::None,
            stride,
            n,
            MAX_BYTES,
        )
        .expect("an encoding decodes");
        assert_eq!(back, vertices, "the vertex codec changed the data");
    }
});

/// Encodes `vertices` (elements of `stride` bytes) with meshoptimizer's vertex codec.
fn encode(vertices: &[u8], stride: usize) -> Vec<u8> {
    // One u32 per 4 bytes keeps the element size a multiple of 4, as the codec needs.
    macro_rules! by_words {
        ($($w:literal)*) => {
            match stride / 4 {
                $($w => {
                    let v: Vec<[u32; $w]> = vertices
                        .chunks_exact(stride)
                        .map(|e| std::array::from_fn(|k| u32::from_le_bytes([e[4 * k], e[4 * k + 1], e[4 * k + 2], e[4 * k + 3]])))
                        .collect();
                    meshopt::encode_vertex_buffer(&v).expect("encodes")
                })*
                _ => unreachable!(),
            }
        };
    }
    by_words!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64)
}
