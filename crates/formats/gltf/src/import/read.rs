//! Reading a glTF or GLB safely: GLB chunks with checked lengths, buffers only
//! from the GLB blob, `data:` URIs, or side-car files in the same folder (via a
//! resolver the caller controls), and accessors read with every range checked
//! before anything is allocated.

use super::extensions::Extensions;
use super::lenient::{self, Note};
use super::limits::{self, ReadBudget};
use super::{dense, draco, meshopt};
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use base64::Engine as _;
use gltf::accessor::{DataType, Dimensions};
use std::borrow::Cow;
use std::collections::HashMap;

pub use mshconv_convert::Resolver;

/// A parsed document and its buffers.
pub struct Source<'a> {
    /// The glTF document (validated by the `gltf` crate).
    pub doc: gltf::Document,
    /// The bytes of every buffer, in order (a GLB's binary chunk borrowed, not copied).
    pub buffers: Vec<Cow<'a, [u8]>>,
    /// The decoded bytes of each buffer view stored compressed
    /// (`EXT_meshopt_compression`), by view index.
    views: Vec<Option<Vec<u8>>>,
    /// The decoded elements of every accessor a Draco-compressed primitive
    /// names (`KHR_draco_mesh_compression`), by accessor index.
    draco: HashMap<usize, Vec<u8>>,
    /// The extension data the importer reads itself.
    pub(crate) extensions: Extensions,
    /// What reading the document normalised or left out (code, message).
    pub(crate) notes: Vec<Note>,
    /// How many more accessor elements may be read.
    budget: ReadBudget,
    /// The MSH material index of every glTF material and the notes of
    /// assigning them, computed once ([`Source::material_indices`]).
    material_indices: std::cell::OnceCell<(Vec<u16>, Vec<crate::report::Note>)>,
}

impl Source<'_> {
    /// The MSH material index of every glTF material
    /// ([`super::look::material_indices`]), computed once per document (the
    /// geometry import and the look import both read them); the notes of
    /// assigning them go into `report` at each call.
    pub(crate) fn material_indices(&self, report: &mut crate::report::Report) -> Result<Vec<u16>> {
        if let Some((indices, notes)) = self.material_indices.get() {
            report.notes.extend(notes.iter().cloned());
            return Ok(indices.clone());
        }
        let mut own = crate::report::Report::default();
        let indices = super::look::material_indices(&self.doc, &mut own)?;
        report.notes.extend(own.notes.iter().cloned());
        let _ = self.material_indices.set((indices.clone(), own.notes));
        Ok(indices)
    }
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
            Code::GltfInvalid.code(),
            format!(
                "not a valid glTF document: the JSON is not UTF-8 (byte {})",
                e.valid_up_to()
            ),
        )
    })?;
    limits::check_json(json)?;
    let parsed = lenient::document(json)?;
    let (doc, extensions) = (parsed.doc, parsed.extensions);
    let mut buffers = Vec::new();
    for buffer in doc.buffers() {
        // A meshopt fallback buffer may hold no data: its views are decoded instead.
        let fallback = extensions.is_fallback(buffer.index());
        let data = match buffer.source() {
            gltf::buffer::Source::Bin if fallback && (buffer.index() > 0 || blob.is_none()) => {
                Cow::Borrowed(&[][..])
            }
            // Only buffer 0 may be the GLB binary chunk (borrowed, never once per buffer).
            gltf::buffer::Source::Bin if buffer.index() > 0 => {
                return Err(invalid(
                    Code::GltfMissingUri.code(),
                    format!(
                        "buffer {0} has no URI (/buffers/{0}/uri); only buffer 0 can be a GLB's binary chunk",
                        buffer.index()
                    ),
                ))
            }
            gltf::buffer::Source::Bin => blob.map(Cow::Borrowed).ok_or_else(|| {
                invalid(
                    Code::GltfMissingBin.code(),
                    "buffer 0 refers to the GLB binary chunk, which is missing",
                )
            })?,
            gltf::buffer::Source::Uri(uri) => Cow::Owned(load_uri(uri, resolver)?),
        };
        if data.len() < buffer.length() && !(fallback && data.is_empty()) {
            return Err(invalid(
                Code::GltfBufferShort.code(),
                format!(
                    "/buffers/{}/byteLength: declares {} bytes but the buffer holds {}",
                    buffer.index(),
                    buffer.length(),
                    data.len()
                ),
            ));
        }
        buffers.push(data);
    }
    let file_bytes = json.len() + buffers.iter().map(|b| b.len()).sum::<usize>();
    let views = meshopt::decode_views(&doc, &extensions, &buffers, file_bytes)?;
    let budget = ReadBudget::new(file_bytes);
    let mut source = Source {
        doc,
        buffers,
        views,
        draco: HashMap::new(),
        extensions,
        notes: parsed.notes,
        budget,
        material_indices: std::cell::OnceCell::new(),
    };
    if source.extensions.has_draco() {
        source.draco = draco::decode_primitives(&source, &source.extensions, file_bytes)?;
    }
    Ok(source)
}

/// The JSON chunk and the optional BIN chunk of a GLB, lengths checked.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    let u32_at = |at: usize| -> Option<usize> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let bad = |what: &str| invalid(Code::GlbMalformed.code(), format!("malformed GLB: {what}"));
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
                Code::GltfBadDataUri.code(),
                "a data: URI must be base64 (';base64,')",
            )
        })?;
        return base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| {
                invalid(
                    Code::GltfBadDataUri.code(),
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
            Code::GltfUriRefused.code(),
            format!("buffer URI {uri:?} is not followed: only data: URIs and plain file names beside the .gltf are read"),
        ));
    }
    resolver(&name).ok_or_else(|| {
        invalid(
            Code::GltfMissingBuffer.code(),
            format!("buffer file {name:?} is not available"),
        )
        .with_advice("give it beside the .gltf, or use a .glb")
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
    /// read, the count against the read budget). Elements in a buffer view are
    /// borrowed; those of an accessor without one (zeros) or a sparse one are
    /// built, after the read budget has allowed their count.
    pub fn elements(&self, accessor: &gltf::Accessor<'_>) -> Result<Elements<'_>> {
        let size = accessor.size();
        if let Some(decoded) = self.draco.get(&accessor.index()) {
            let count = decoded.len() / size.max(1);
            self.budget
                .take(count.saturating_add(limits::READ_OVERHEAD))?;
            return Ok(Elements {
                layout: Layout::Built(Cow::Borrowed(decoded)),
                size,
                count,
                next: 0,
            });
        }
        if accessor.sparse().is_none() {
            if let Some((data, start, stride, count)) = self.view_layout(accessor)? {
                self.budget
                    .take(count.saturating_add(limits::READ_OVERHEAD))?;
                return Ok(Elements {
                    layout: Layout::View {
                        data,
                        start,
                        stride,
                    },
                    size,
                    count,
                    next: 0,
                });
            }
        }
        let count = accessor.count();
        self.budget.take_built(
            count.saturating_add(limits::READ_OVERHEAD),
            accessor.index(),
        )?;
        let mut built = match self.view_layout(accessor)? {
            Some((data, start, stride, _)) => (0..count)
                .flat_map(|i| &data[start + i * stride..start + i * stride + size])
                .copied()
                .collect(),
            // The budget allowed `count`; an element is at most 64 bytes (MAT4 of f32).
            None => vec![0u8; count * size],
        };
        if let Some(sparse) = accessor.sparse() {
            let n = sparse.count();
            self.budget.take(n.saturating_add(limits::READ_OVERHEAD))?;
            let indices = sparse.indices();
            let values = sparse.values();
            dense::apply_sparse(
                &mut built,
                size,
                dense::Sparse {
                    accessor: accessor.index(),
                    count: n,
                    indices: self.view_bytes(&indices.view())?.get(indices.offset()..),
                    index_size: match indices.index_type() {
                        gltf::accessor::sparse::IndexType::U8 => 1,
                        gltf::accessor::sparse::IndexType::U16 => 2,
                        gltf::accessor::sparse::IndexType::U32 => 4,
                    },
                    values: self.view_bytes(&values.view())?.get(values.offset()..),
                },
            )?;
        }
        Ok(Elements {
            layout: Layout::Built(Cow::Owned(built)),
            size,
            count,
            next: 0,
        })
    }

    /// Counts a visit of a primitive against the read budget.
    pub fn visit(&self) -> Result<()> {
        self.budget.take(limits::READ_OVERHEAD)
    }

    /// The number of elements of an accessor, checked against its buffer view
    /// (nothing is read).
    pub fn count(&self, accessor: &gltf::Accessor<'_>) -> Result<usize> {
        if self.draco.contains_key(&accessor.index()) {
            return Ok(accessor.count());
        }
        Ok(match self.view_layout(accessor)? {
            Some(layout) => layout.3,
            None => accessor.count(),
        })
    }

    /// The bytes of a buffer view: decoded when it is stored compressed, else
    /// its range of its buffer, checked.
    pub(super) fn view_bytes(&self, view: &gltf::buffer::View<'_>) -> Result<&[u8]> {
        if let Some(decoded) = self.views.get(view.index()).and_then(Option::as_ref) {
            return Ok(decoded);
        }
        let buffer = self.buffers.get(view.buffer().index()).ok_or_else(|| {
            invalid(
                Code::GltfBadBuffer.code(),
                format!(
                    "/bufferViews/{}/buffer: its buffer is missing",
                    view.index()
                ),
            )
        })?;
        let view_start = view.offset();
        let view_end = view_start
            .checked_add(view.length())
            .filter(|&e| e <= buffer.len())
            .ok_or_else(|| {
                invalid(
                    Code::GltfViewOutOfRange.code(),
                    format!("/bufferViews/{}: runs past its buffer", view.index()),
                )
            })?;
        Ok(&buffer[view_start..view_end])
    }

    /// An accessor's view bytes, first element offset, stride and count, with
    /// every range checked; `None` for an accessor without a view.
    fn view_layout(&self, accessor: &gltf::Accessor<'_>) -> Result<Option<ViewLayout<'_>>> {
        let where_ = || format!("/accessors/{}", accessor.index());
        let size = accessor.size();
        let count = accessor.count();
        let Some(view) = accessor.view() else {
            return Ok(None);
        };
        let data = self.view_bytes(&view)?;
        let stride = view.stride().unwrap_or(size);
        if stride < size {
            return Err(invalid(
                Code::GltfBadStride.code(),
                format!(
                    "{}: the stride of its buffer view ({stride}) is smaller than its {size}-byte elements",
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
                    Code::GltfAccessorOutOfRange.code(),
                    format!(
                        "{}/count: {count} elements of {size} bytes run past its buffer view",
                        where_()
                    ),
                ))
            }
        }
        Ok(Some((data, start, stride, count)))
    }

    /// An accessor's values as floats (normalised integers as the spec says),
    /// `N` components each; NaN or infinity is refused (`gltf.non_finite`).
    pub fn floats<const N: usize>(&self, accessor: &gltf::Accessor<'_>) -> Result<Vec<[f32; N]>> {
        let values = self.any_floats::<N>(accessor)?;
        if values.iter().flatten().any(|v| !v.is_finite()) {
            return Err(invalid(
                Code::GltfNonFinite.code(),
                format!("/accessors/{}: holds NaN or infinity", accessor.index()),
            ));
        }
        Ok(values)
    }

    /// A NORMAL accessor's values, NaN and infinity kept: Blender writes NaN
    /// normals where its face normals overflow (coordinates near 1e19 and
    /// beyond); a normal that is not finite is one the file does not know,
    /// which the import replaces (`SceneBatch::normals`).
    pub fn normals(&self, accessor: &gltf::Accessor<'_>) -> Result<Vec<[f32; 3]>> {
        self.any_floats::<3>(accessor)
    }

    /// An accessor's values as floats, whatever they are.
    fn any_floats<const N: usize>(&self, accessor: &gltf::Accessor<'_>) -> Result<Vec<[f32; N]>> {
        if components(accessor.dimensions()) != N {
            return Err(invalid(
                Code::GltfAccessorType.code(),
                format!(
                    "/accessors/{}/type: {:?} elements, {N} components were expected",
                    accessor.index(),
                    accessor.dimensions()
                ),
            ));
        }
        let ty = accessor.data_type();
        let norm = accessor.normalized();
        let elements = self.elements(accessor)?;
        Ok(if ty == DataType::F32 {
            // The common case without the per-component type dispatch.
            elements
                .map(|e| std::array::from_fn(|k| f32_at(&e, k)))
                .collect()
        } else {
            elements
                .map(|e| std::array::from_fn(|k| component(&e, ty, k, norm)))
                .collect()
        })
    }

    /// A TEXCOORD set's values, with the `KHR_texture_transform` of the
    /// material's base colour texture baked in when it reads this set.
    pub fn texcoords(
        &self,
        accessor: &gltf::Accessor<'_>,
        set: u32,
        material: Option<usize>,
    ) -> Result<Vec<[f32; 2]>> {
        let mut uv = self.floats::<2>(accessor)?;
        if let Some(t) = material
            .and_then(|m| self.extensions.uv_transform(m))
            .filter(|t| t.set == set)
        {
            uv.iter_mut().for_each(|p| *p = t.apply(*p));
        }
        Ok(uv)
    }

    /// An index accessor's values.
    pub fn indices(&self, accessor: &gltf::Accessor<'_>) -> Result<Vec<u32>> {
        let ty = accessor.data_type();
        if accessor.dimensions() != Dimensions::Scalar
            || !matches!(ty, DataType::U8 | DataType::U16 | DataType::U32)
        {
            return Err(invalid(
                Code::GltfAccessorType.code(),
                format!(
                    "/accessors/{}: an index accessor must be an unsigned scalar",
                    accessor.index()
                ),
            ));
        }
        Ok(self
            .elements(accessor)?
            .map(|e| int_component(&e, ty, 0) as u32)
            .collect())
    }

    /// The raw bytes of an accessor's elements, concatenated.
    pub fn raw(&self, accessor: &gltf::Accessor<'_>) -> Result<Vec<u8>> {
        let elements = self.elements(accessor)?;
        // The count was checked against the view (or allowed by the budget).
        let mut out = Vec::with_capacity(elements.len() * accessor.size());
        for e in elements {
            out.extend_from_slice(&e);
        }
        Ok(out)
    }

    /// The accessor with this index.
    pub fn accessor(&self, index: u32) -> Result<gltf::Accessor<'_>> {
        self.doc.accessors().nth(index as usize).ok_or_else(|| {
            invalid(
                Code::GltfBadAccessor.code(),
                format!("extras name accessor {index}, which does not exist"),
            )
        })
    }
}

/// An accessor's elements in its buffer view: the view's bytes, the first
/// element's offset, the stride and the count.
type ViewLayout<'s> = (&'s [u8], usize, usize, usize);

/// Where an accessor's elements are.
enum Layout<'s> {
    /// In a buffer view: the view's bytes, the first element's offset, the stride.
    View {
        data: &'s [u8],
        start: usize,
        stride: usize,
    },
    /// Built (zeros, sparse, decoded): packed elements.
    Built(Cow<'s, [u8]>),
}

/// The elements of one accessor, each `size` bytes.
pub struct Elements<'s> {
    layout: Layout<'s>,
    size: usize,
    count: usize,
    next: usize,
}

impl<'s> Iterator for Elements<'s> {
    type Item = Cow<'s, [u8]>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.count {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let size = self.size;
        Some(match &self.layout {
            Layout::View {
                data,
                start,
                stride,
            } => Cow::Borrowed(&data[start + i * stride..start + i * stride + size]),
            Layout::Built(Cow::Borrowed(bytes)) => Cow::Borrowed(&bytes[i * size..(i + 1) * size]),
            Layout::Built(Cow::Owned(bytes)) => {
                Cow::Owned(bytes[i * size..(i + 1) * size].to_vec())
            }
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.count - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Elements<'_> {}

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
