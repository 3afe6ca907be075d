//! Reading a glTF or GLB safely: GLB chunks with checked lengths, buffers only
//! from the GLB blob, `data:` URIs, or side-car files in the same folder (via a
//! resolver the caller controls), and accessors read with every range checked
//! before anything is allocated.

use super::limits::{self, ReadBudget};
use crate::error::{Error, ErrorKind, Result};
use base64::Engine as _;
use gltf::accessor::{DataType, Dimensions};
use std::borrow::Cow;

/// Gives the bytes of a side-car file named by a buffer's relative URI, or `None`.
/// The importer only asks for plain file names (no folders, no `..`, no scheme).
pub type Resolver<'a> = &'a dyn Fn(&str) -> Option<Vec<u8>>;

/// A parsed document and its buffers.
pub struct Source<'a> {
    /// The glTF document (validated by the `gltf` crate).
    pub doc: gltf::Document,
    /// The bytes of every buffer, in order (a GLB's binary chunk borrowed, not copied).
    pub buffers: Vec<Cow<'a, [u8]>>,
    /// How many more accessor elements may be read.
    budget: ReadBudget,
}

fn invalid(code: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, code, message)
}

/// Parses `.glb` or `.gltf` bytes and loads every buffer.
pub fn parse<'a>(bytes: &'a [u8], resolver: Resolver<'_>) -> Result<Source<'a>> {
    let (json, blob) = if bytes.starts_with(b"glTF") {
        split_glb(bytes)?
    } else {
        (bytes, None)
    };
    // glTF JSON is UTF-8: checked once here, so the parser does not check
    // every string again.
    let json = std::str::from_utf8(json).map_err(|e| {
        invalid(
            "gltf.invalid",
            format!(
                "not a valid glTF document: the JSON is not UTF-8 (byte {})",
                e.valid_up_to()
            ),
        )
    })?;
    limits::check_json(json)?;
    let root: gltf_json::Root = serde_json::from_str(json)
        .map_err(|e| invalid("gltf.invalid", format!("not a valid glTF document: {e}")))?;
    check_what_gltf_json_skips(&root)?;
    let doc = gltf::Document::from_json(root)
        .map_err(|e| invalid("gltf.invalid", format!("not a valid glTF document: {e}")))?;
    let mut buffers = Vec::new();
    for buffer in doc.buffers() {
        let data = match buffer.source() {
            // Only buffer 0 may be the GLB binary chunk (borrowed, never once per buffer).
            gltf::buffer::Source::Bin if buffer.index() > 0 => {
                return Err(invalid(
                    "gltf.missing_uri",
                    format!(
                        "buffer {} has no URI; only buffer 0 can be a GLB's binary chunk",
                        buffer.index()
                    ),
                ))
            }
            gltf::buffer::Source::Bin => blob.map(Cow::Borrowed).ok_or_else(|| {
                invalid(
                    "gltf.missing_bin",
                    "buffer 0 refers to the GLB binary chunk, which is missing",
                )
            })?,
            gltf::buffer::Source::Uri(uri) => Cow::Owned(load_uri(uri, resolver)?),
        };
        if data.len() < buffer.length() {
            return Err(invalid(
                "gltf.buffer_short",
                format!(
                    "buffer {} declares {} bytes but holds {}",
                    buffer.index(),
                    buffer.length(),
                    data.len()
                ),
            ));
        }
        buffers.push(data);
    }
    let budget = ReadBudget::new(json.len() + buffers.iter().map(|b| b.len()).sum::<usize>());
    Ok(Source {
        doc,
        buffers,
        budget,
    })
}

/// The references gltf-json's validation does not check (or checks only after
/// indexing with them), which the `gltf` crate's accessors would index or
/// unwrap unchecked: refused here, before the document is built.
fn check_what_gltf_json_skips(root: &gltf_json::Root) -> Result<()> {
    // gltf-json's own validation indexes the POSITION accessor without a range
    // check (a panic on a bad index): check every attribute's accessor first.
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if let Some(a) = prim
                .attributes
                .values()
                .find(|a| a.value() >= root.accessors.len())
            {
                return Err(invalid(
                    "gltf.bad_index",
                    format!(
                        "meshes[{m}].primitives[{p}] names accessor {}, which does not exist",
                        a.value()
                    ),
                ));
            }
        }
    }
    // Nor does it look at animation channels (their target node and path); the
    // `gltf` accessors then index and unwrap them unchecked.
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            let problem = if ch.target.node.value() >= root.nodes.len() {
                format!(
                    "targets node {}, which does not exist",
                    ch.target.node.value()
                )
            } else if ch.target.path == gltf_json::validation::Checked::Invalid {
                "targets an unknown property (path)".to_string()
            } else {
                continue;
            };
            return Err(invalid(
                "gltf.bad_index",
                format!("animations[{a}].channels[{c}] {problem}"),
            ));
        }
    }
    Ok(())
}

/// The JSON chunk and the optional BIN chunk of a GLB, lengths checked.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    let u32_at = |at: usize| -> Option<usize> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let bad = |what: &str| invalid("glb.malformed", format!("malformed GLB: {what}"));
    if u32_at(4) != Some(2) {
        return Err(bad("version is not 2"));
    }
    let total = u32_at(8).ok_or_else(|| bad("header is cut short"))?;
    if total > bytes.len() {
        return Err(bad("the header's length is larger than the file"));
    }
    let bytes = &bytes[..total];
    let mut at = 12usize;
    let mut json = None;
    let mut bin = None;
    while at < bytes.len() {
        let len = u32_at(at).ok_or_else(|| bad("chunk header is cut short"))?;
        let kind = bytes
            .get(at + 4..at + 8)
            .ok_or_else(|| bad("chunk header is cut short"))?;
        let start = at + 8;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| bad("a chunk runs past the end"))?;
        match kind {
            b"JSON" if json.is_none() => json = Some(&bytes[start..end]),
            b"BIN\0" if bin.is_none() && json.is_some() => bin = Some(&bytes[start..end]),
            _ => {}
        }
        at = end;
    }
    Ok((json.ok_or_else(|| bad("no JSON chunk"))?, bin))
}

/// A buffer URI: `data:` (base64), or a plain file name given to the resolver.
pub(super) fn load_uri(uri: &str, resolver: Resolver<'_>) -> Result<Vec<u8>> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, data) = rest.split_once(";base64,").ok_or_else(|| {
            invalid(
                "gltf.bad_data_uri",
                "a data: URI must be base64 (';base64,')",
            )
        })?;
        return base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| {
                invalid(
                    "gltf.bad_data_uri",
                    format!("a data: URI is not valid base64: {e}"),
                )
            });
    }
    let name = percent_decode(uri);
    let plain = !name.is_empty()
        && !name.contains(['/', '\\', ':'])
        && name != ".."
        && name != "."
        && !name.starts_with('.')
        && !name.chars().any(char::is_control);
    if !plain {
        return Err(invalid(
            "gltf.uri_refused",
            format!("buffer URI {uri:?} is not followed: only data: URIs and plain file names beside the .gltf are read"),
        ));
    }
    resolver(&name).ok_or_else(|| {
        invalid(
            "gltf.missing_buffer",
            format!(
                "buffer file {name:?} is not available (give it beside the .gltf, or use a .glb)"
            ),
        )
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Source<'_> {
    /// The element bytes of an accessor, checked (the range before anything is
    /// read, the count against the read budget).
    pub fn elements(
        &self,
        accessor: &gltf::Accessor<'_>,
    ) -> Result<impl ExactSizeIterator<Item = &[u8]> + '_> {
        let (data, start, stride, size, count) = self.layout(accessor)?;
        self.budget
            .take(count.saturating_add(limits::READ_OVERHEAD))?;
        Ok((0..count).map(move |i| &data[start + i * stride..start + i * stride + size]))
    }

    /// Counts a visit of a primitive against the read budget.
    pub fn visit(&self) -> Result<()> {
        self.budget.take(limits::READ_OVERHEAD)
    }

    /// The number of elements of an accessor, checked against its buffer view
    /// (nothing is read).
    pub fn count(&self, accessor: &gltf::Accessor<'_>) -> Result<usize> {
        Ok(self.layout(accessor)?.4)
    }

    /// An accessor's view bytes, first element offset, stride, element size
    /// and count, with every range checked.
    fn layout(&self, accessor: &gltf::Accessor<'_>) -> Result<(&[u8], usize, usize, usize, usize)> {
        let where_ = || format!("accessor {}", accessor.index());
        if accessor.sparse().is_some() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "gltf.sparse_unsupported",
                format!("{} is sparse; re-export without sparse accessors", where_()),
            ));
        }
        let size = accessor.size();
        let count = accessor.count();
        let Some(view) = accessor.view() else {
            return Err(invalid(
                "gltf.accessor_without_view",
                format!("{} has no buffer view", where_()),
            ));
        };
        let buffer = self.buffers.get(view.buffer().index()).ok_or_else(|| {
            invalid(
                "gltf.bad_buffer",
                format!("{}: its buffer is missing", where_()),
            )
        })?;
        let view_start = view.offset();
        let view_end = view_start
            .checked_add(view.length())
            .filter(|&e| e <= buffer.len())
            .ok_or_else(|| {
                invalid(
                    "gltf.view_out_of_range",
                    format!("buffer view {} runs past its buffer", view.index()),
                )
            })?;
        let data = &buffer[view_start..view_end];
        let stride = view.stride().unwrap_or(size);
        if stride < size {
            return Err(invalid(
                "gltf.bad_stride",
                format!(
                    "{}: stride {stride} is smaller than its {size}-byte elements",
                    where_()
                ),
            ));
        }
        let start = accessor.offset();
        // The last element must end inside the view: checked before anything is sized by `count`.
        let needed = count.checked_sub(1).map_or(Some(0), |last| {
            last.checked_mul(stride)
                .and_then(|x| x.checked_add(start))
                .and_then(|x| x.checked_add(size))
        });
        match needed {
            Some(n) if n <= data.len() => {}
            _ => {
                return Err(invalid(
                    "gltf.accessor_out_of_range",
                    format!(
                        "{} ({count} elements of {size} bytes) runs past its buffer view",
                        where_()
                    ),
                ))
            }
        }
        Ok((data, start, stride, size, count))
    }

    /// An accessor's values as floats (normalised integers as the spec says), `N` components each.
    pub fn floats<const N: usize>(&self, accessor: &gltf::Accessor<'_>) -> Result<Vec<[f32; N]>> {
        if components(accessor.dimensions()) != N {
            return Err(invalid(
                "gltf.accessor_type",
                format!(
                    "accessor {} has {:?} elements, {N} components were expected",
                    accessor.index(),
                    accessor.dimensions()
                ),
            ));
        }
        let ty = accessor.data_type();
        let norm = accessor.normalized();
        let elements = self.elements(accessor)?;
        let values: Vec<[f32; N]> = if ty == DataType::F32 {
            // The common case without the per-component type dispatch.
            elements
                .map(|e| std::array::from_fn(|k| f32_at(e, k)))
                .collect()
        } else {
            elements
                .map(|e| std::array::from_fn(|k| component(e, ty, k, norm)))
                .collect()
        };
        if values.iter().flatten().any(|v| !v.is_finite()) {
            return Err(invalid(
                "gltf.non_finite",
                format!("accessor {} holds NaN or infinity", accessor.index()),
            ));
        }
        Ok(values)
    }

    /// An index accessor's values.
    pub fn indices(&self, accessor: &gltf::Accessor<'_>) -> Result<Vec<u32>> {
        let ty = accessor.data_type();
        if accessor.dimensions() != Dimensions::Scalar
            || !matches!(ty, DataType::U8 | DataType::U16 | DataType::U32)
        {
            return Err(invalid(
                "gltf.accessor_type",
                format!(
                    "index accessor {} is not an unsigned scalar",
                    accessor.index()
                ),
            ));
        }
        Ok(self
            .elements(accessor)?
            .map(|e| int_component(e, ty, 0) as u32)
            .collect())
    }

    /// The raw bytes of an accessor's elements, concatenated.
    pub fn raw(&self, accessor: &gltf::Accessor<'_>) -> Result<Vec<u8>> {
        let elements = self.elements(accessor)?;
        // The count was checked against the view: this is at most its length.
        let mut out = Vec::with_capacity(elements.len() * accessor.size());
        for e in elements {
            out.extend_from_slice(e);
        }
        Ok(out)
    }

    /// The accessor with this index.
    pub fn accessor(&self, index: u32) -> Result<gltf::Accessor<'_>> {
        self.doc.accessors().nth(index as usize).ok_or_else(|| {
            invalid(
                "gltf.bad_accessor",
                format!("extras name accessor {index}, which does not exist"),
            )
        })
    }
}

fn components(d: Dimensions) -> usize {
    match d {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 | Dimensions::Mat2 => 4,
        Dimensions::Mat3 => 9,
        Dimensions::Mat4 => 16,
    }
}

fn int_component(e: &[u8], ty: DataType, k: usize) -> i64 {
    match ty {
        DataType::I8 => e[k] as i8 as i64,
        DataType::U8 => e[k] as i64,
        DataType::I16 => i16::from_le_bytes([e[2 * k], e[2 * k + 1]]) as i64,
        DataType::U16 => u16::from_le_bytes([e[2 * k], e[2 * k + 1]]) as i64,
        DataType::U32 => {
            u32::from_le_bytes([e[4 * k], e[4 * k + 1], e[4 * k + 2], e[4 * k + 3]]) as i64
        }
        DataType::F32 => 0,
    }
}

/// Float component `k` of an element.
fn f32_at(e: &[u8], k: usize) -> f32 {
    f32::from_le_bytes([e[4 * k], e[4 * k + 1], e[4 * k + 2], e[4 * k + 3]])
}

fn component(e: &[u8], ty: DataType, k: usize, normalized: bool) -> f32 {
    if ty == DataType::F32 {
        return f32_at(e, k);
    }
    let v = int_component(e, ty, k) as f32;
    if !normalized {
        return v;
    }
    match ty {
        DataType::I8 => (v / 127.0).max(-1.0),
        DataType::U8 => v / 255.0,
        DataType::I16 => (v / 32767.0).max(-1.0),
        DataType::U16 => v / 65535.0,
        _ => v,
    }
}
