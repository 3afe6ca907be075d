//! `EXT_meshopt_compression`: buffer views stored with meshoptimizer's vertex
//! and index codecs (and the vertex filters), decoded with the `meshopt`
//! crate (bindings to meshoptimizer's C++ decoders, which are written to be
//! safe on untrusted input).
//!
//! Every parameter the decoders assert on is checked here first (an assert
//! in C++ would abort the process), and the decoded size is bounded by the
//! caller before anything is allocated.

use super::extensions::Extensions;
use super::limits;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use serde::Deserialize;
use std::borrow::Cow;

/// The `EXT_meshopt_compression` object of a buffer view.
#[derive(Debug, Clone, Deserialize)]
pub struct Compressed {
    /// The buffer that holds the compressed bytes.
    pub buffer: usize,
    /// Where they start in it.
    #[serde(default, rename = "byteOffset")]
    pub byte_offset: usize,
    /// How many there are.
    #[serde(rename = "byteLength")]
    pub byte_length: usize,
    /// The size of one decoded element.
    #[serde(rename = "byteStride")]
    pub byte_stride: usize,
    /// How many elements are decoded.
    pub count: usize,
    /// `ATTRIBUTES`, `TRIANGLES` or `INDICES`.
    pub mode: String,
    /// `NONE`, `OCTAHEDRAL`, `QUATERNION`, `EXPONENTIAL` (or `COLOR`).
    #[serde(default)]
    pub filter: Option<String>,
}

/// The codec of a compressed view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Vertex attributes (the vertex codec).
    Attributes,
    /// A triangle list's indices (the index buffer codec).
    Triangles,
    /// Any other indices (the index sequence codec).
    Indices,
}

/// The filter applied after the vertex codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// None.
    None,
    /// Octahedral unit vectors (8 or 16 bits).
    Octahedral,
    /// Quaternions (16 bits).
    Quaternion,
    /// Shared-exponent floats.
    Exponential,
    /// YCoCg colours (8 or 16 bits).
    Color,
}

fn invalid(message: String) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        Code::GltfMeshoptInvalid.code(),
        message,
    )
}

impl Compressed {
    /// The mode and filter, checked by name.
    pub fn codec(&self) -> Result<(Mode, Filter)> {
        let mode = match self.mode.as_str() {
            "ATTRIBUTES" => Mode::Attributes,
            "TRIANGLES" => Mode::Triangles,
            "INDICES" => Mode::Indices,
            other => return Err(invalid(format!("unknown mode {other:?}"))),
        };
        let filter = match self.filter.as_deref().unwrap_or("NONE") {
            "NONE" => Filter::None,
            "OCTAHEDRAL" => Filter::Octahedral,
            "QUATERNION" => Filter::Quaternion,
            "EXPONENTIAL" => Filter::Exponential,
            "COLOR" => Filter::Color,
            other => return Err(invalid(format!("unknown filter {other:?}"))),
        };
        Ok((mode, filter))
    }

    /// The number of bytes decoding gives (`count * byteStride`), if it fits.
    pub fn decoded_len(&self) -> Option<usize> {
        self.count.checked_mul(self.byte_stride)
    }
}

/// The decoded bytes of every compressed buffer view of a document, by view
/// index (`None` for a view stored plainly). All of them together may take
/// at most [`limits::decoded_limit`] of the file's size.
pub(crate) fn decode_views(
    doc: &gltf::Document,
    extensions: &Extensions,
    buffers: &[Cow<'_, [u8]>],
    file_bytes: usize,
) -> Result<Vec<Option<Vec<u8>>>> {
    if !extensions.has_meshopt() {
        return Ok(Vec::new());
    }
    let mut left = limits::decoded_limit(file_bytes);
    let mut out = Vec::new();
    for view in doc.views() {
        let Some(c) = extensions.meshopt_view(view.index()) else {
            out.push(None);
            continue;
        };
        let at = |what: String| {
            invalid(format!(
                "/bufferViews/{}/extensions/EXT_meshopt_compression: {what}",
                view.index()
            ))
        };
        let (mode, filter) = c.codec().map_err(|e| at(e.message().to_string()))?;
        let encoded = buffers
            .get(c.buffer)
            .and_then(|b| b.get(c.byte_offset..c.byte_offset.checked_add(c.byte_length)?))
            .ok_or_else(|| at("its compressed bytes run past their buffer".into()))?;
        let mut bytes =
            decode(encoded, mode, filter, c.byte_stride, c.count, left).map_err(|e| {
                if e.code() == Code::GltfMeshoptInvalid.code() {
                    at(e.message().to_string())
                } else {
                    e
                }
            })?;
        left -= bytes.len();
        // The view's own length and stride describe the decoded bytes.
        if bytes.len() < view.length() {
            return Err(at(format!(
                "{} bytes decoded, the buffer view is {} bytes long",
                bytes.len(),
                view.length()
            )));
        }
        bytes.truncate(view.length());
        out.push(Some(bytes));
    }
    Ok(out)
}

/// Decodes `count` elements of `stride` bytes from `encoded`; refuses a
/// decoded size over `max_bytes` before anything is allocated.
#[cfg(feature = "meshopt")]
pub fn decode(
    encoded: &[u8],
    mode: Mode,
    filter: Filter,
    stride: usize,
    count: usize,
    max_bytes: usize,
) -> Result<Vec<u8>> {
    let len = count
        .checked_mul(stride)
        .filter(|&n| n <= max_bytes)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                Code::GltfDecodedTooLarge.code(),
                format!("{count} elements of {stride} bytes decoded from {} bytes: more than the {max_bytes} bytes this file may decode to", encoded.len()),
            )
        })?;
    let fails = |e: meshopt::Error| invalid(format!("the compressed data does not decode: {e}"));
    match mode {
        Mode::Attributes => {
            if stride == 0 || stride > 256 || !stride.is_multiple_of(4) {
                return Err(invalid(format!(
                    "byteStride {stride} of attributes must be a multiple of 4 up to 256"
                )));
            }
            let mut out = vertices(encoded, stride, count).map_err(fails)?;
            unfilter(&mut out, filter, stride)?;
            debug_assert_eq!(out.len(), len);
            Ok(out)
        }
        Mode::Triangles | Mode::Indices => {
            if filter != Filter::None {
                return Err(invalid("index data has no filter".into()));
            }
            if mode == Mode::Triangles && !count.is_multiple_of(3) {
                return Err(invalid(format!(
                    "a triangle list of {count} indices is not whole triangles"
                )));
            }
            let triangles = mode == Mode::Triangles;
            match stride {
                2 => index_codec(encoded, count, triangles, u16::to_le_bytes),
                4 => index_codec(encoded, count, triangles, u32::to_le_bytes),
                _ => {
                    return Err(invalid(format!(
                        "byteStride {stride} of indices must be 2 or 4"
                    )))
                }
            }
            .map_err(fails)
        }
    }
}

#[cfg(feature = "meshopt")]
/// The index codecs (triangle list or sequence) for indices of `W` bytes.
fn index_codec<T: meshopt::IndexType, const W: usize>(
    encoded: &[u8],
    count: usize,
    triangles: bool,
    le: fn(T) -> [u8; W],
) -> meshopt::Result<Vec<u8>> {
    let v: Vec<T> = if triangles {
        meshopt::decode_index_buffer(encoded, count)?
    } else {
        meshopt::decode_index_sequence(encoded, count)?
    };
    Ok(v.into_iter().flat_map(le).collect())
}

#[cfg(feature = "meshopt")]
/// The vertex codec for a stride known only at run time: one monomorphic
/// decoder per allowed stride (4, 8, ..., 256).
fn vertices(encoded: &[u8], stride: usize, count: usize) -> meshopt::Result<Vec<u8>> {
    /// One element: the decoder writes `size_of::<Element<N>>() == N` bytes.
    #[derive(Clone, Copy)]
    #[repr(transparent)]
    struct Element<const N: usize>([u8; N]);
    impl<const N: usize> Default for Element<N> {
        fn default() -> Self {
            Element([0; N])
        }
    }
    fn typed<const N: usize>(encoded: &[u8], count: usize) -> meshopt::Result<Vec<u8>> {
        let v: Vec<Element<N>> = meshopt::decode_vertex_buffer(encoded, count)?;
        Ok(v.into_iter().flat_map(|e| e.0).collect())
    }
    macro_rules! strides {
        ($($n:literal)*) => {
            match stride {
                $($n => typed::<$n>(encoded, count),)*
                _ => unreachable!("the stride was checked"),
            }
        };
    }
    strides!(4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100
        104 108 112 116 120 124 128 132 136 140 144 148 152 156 160 164 168 172 176 180
        184 188 192 196 200 204 208 212 216 220 224 228 232 236 240 244 248 252 256)
}

#[cfg(feature = "meshopt")]
/// Applies a vertex filter in place.
fn unfilter(data: &mut [u8], filter: Filter, stride: usize) -> Result<()> {
    let wrong = |what: &str| {
        Err(invalid(format!(
            "filter {what} cannot apply to a byteStride of {stride}"
        )))
    };
    match (filter, stride) {
        (Filter::None, _) => {}
        (Filter::Octahedral, 4) => in_place::<i8, 1>(data, meshopt::decode_filter_oct),
        (Filter::Octahedral, 8) => in_place::<i16, 2>(data, meshopt::decode_filter_oct),
        (Filter::Quaternion, 8) => in_place::<i16, 2>(data, meshopt::decode_filter_quat),
        (Filter::Color, 4) => in_place::<u8, 1>(data, meshopt::decode_filter_color),
        (Filter::Color, 8) => in_place::<u16, 2>(data, meshopt::decode_filter_color),
        // Each 32-bit component is decoded on its own.
        (Filter::Exponential, _) => {
            let mut v: Vec<[u32; 1]> = data
                .chunks_exact(4)
                .map(|c| [u32::from_le_bytes([c[0], c[1], c[2], c[3]])])
                .collect();
            meshopt::decode_filter_exp(&mut v);
            for (c, x) in data.chunks_exact_mut(4).zip(v) {
                c.copy_from_slice(&x[0].to_le_bytes());
            }
        }
        (Filter::Octahedral, _) => return wrong("OCTAHEDRAL"),
        (Filter::Quaternion, _) => return wrong("QUATERNION"),
        (Filter::Color, _) => return wrong("COLOR"),
    }
    Ok(())
}

#[cfg(feature = "meshopt")]
/// A component type the filters work on, read from and written to bytes.
trait Component: Copy + Default {
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [u8]);
}

#[cfg(feature = "meshopt")]
macro_rules! component {
    ($($t:ty)*) => {$(
        impl Component for $t {
            fn read(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap_or_default())
            }
            fn write(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
#[cfg(feature = "meshopt")]
component!(i8 u8 i16 u16);

#[cfg(feature = "meshopt")]
/// Runs a filter over elements of four `C` (each `W` bytes wide), in place.
fn in_place<C: Component, const W: usize>(data: &mut [u8], f: fn(&mut [[C; 4]])) {
    let mut v: Vec<[C; 4]> = data
        .chunks_exact(4 * W)
        .map(|e| std::array::from_fn(|k| C::read(&e[k * W..(k + 1) * W])))
        .collect();
    f(&mut v);
    for (e, x) in data.chunks_exact_mut(4 * W).zip(v) {
        for (k, c) in x.into_iter().enumerate() {
            c.write(&mut e[k * W..(k + 1) * W]);
        }
    }
}

/// Without the `meshopt` feature: compressed data is refused by name.
#[cfg(not(feature = "meshopt"))]
pub fn decode(
    _encoded: &[u8],
    _mode: Mode,
    _filter: Filter,
    _stride: usize,
    _count: usize,
    _max_bytes: usize,
) -> Result<Vec<u8>> {
    Err(super::left_out("EXT_meshopt_compression", "meshopt"))
}

#[cfg(all(test, not(feature = "meshopt")))]
mod tests_without {
    #[test]
    fn compressed_views_are_refused_by_name_without_the_feature() {
        let e = super::decode(
            &[0xa0; 16],
            super::Mode::Attributes,
            super::Filter::None,
            4,
            1,
            64,
        )
        .unwrap_err();
        assert_eq!(e.code(), "gltf.extension_required");
        assert!(
            e.message().contains("EXT_meshopt_compression"),
            "{}",
            e.message()
        );
    }
}

#[cfg(all(test, feature = "meshopt"))]
mod tests {
    use super::*;

    #[test]
    fn vertices_and_indices_round_trip_through_the_codecs() {
        let verts: Vec<[u8; 12]> = (0..100u8).map(|i| [i; 12]).collect();
        let enc = meshopt::encode_vertex_buffer(&verts).unwrap();
        let out = decode(&enc, Mode::Attributes, Filter::None, 12, 100, 1 << 20).unwrap();
        assert_eq!(out, verts.concat());
        let idx: Vec<u32> = (0..99).map(|i| (i * 7) % 100).collect();
        let enc = meshopt::encode_index_buffer(&idx, 100).unwrap();
        let out = decode(&enc, Mode::Triangles, Filter::None, 4, 99, 1 << 20).unwrap();
        let back: Vec<u32> = out
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // The codec may rotate a triangle's corners, never its winding or order.
        let canon = |t: &[u32]| {
            let r = (0..3).min_by_key(|&k| t[k]).unwrap();
            [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]
        };
        let a: Vec<_> = back.chunks(3).map(canon).collect();
        let b: Vec<_> = idx.chunks(3).map(canon).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn bad_parameters_are_refused_before_the_decoder_sees_them() {
        let enc = [0xa0u8; 64];
        for (mode, filter, stride, count, code) in [
            (Mode::Attributes, Filter::None, 6, 4, "gltf.meshopt_invalid"),
            (
                Mode::Attributes,
                Filter::None,
                260,
                4,
                "gltf.meshopt_invalid",
            ),
            (
                Mode::Attributes,
                Filter::Quaternion,
                4,
                4,
                "gltf.meshopt_invalid",
            ),
            (Mode::Triangles, Filter::None, 2, 4, "gltf.meshopt_invalid"),
            (Mode::Indices, Filter::None, 3, 4, "gltf.meshopt_invalid"),
            (
                Mode::Indices,
                Filter::Octahedral,
                2,
                4,
                "gltf.meshopt_invalid",
            ),
            (
                Mode::Attributes,
                Filter::None,
                4,
                usize::MAX,
                "gltf.decoded_too_large",
            ),
            (
                Mode::Attributes,
                Filter::None,
                4,
                1 << 20,
                "gltf.decoded_too_large",
            ),
            (Mode::Attributes, Filter::None, 4, 8, "gltf.meshopt_invalid"),
        ] {
            let e = decode(&enc, mode, filter, stride, count, 1 << 16).unwrap_err();
            assert_eq!(e.code(), code, "{mode:?} {filter:?} {stride} {count}");
        }
    }
}
