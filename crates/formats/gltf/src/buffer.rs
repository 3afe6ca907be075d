//! The binary buffer of a glTF document and the accessors into it.
//!
//! Every accessor gets its own buffer view, 4-byte aligned, written once in the
//! order the exporter asks for them, so the output is deterministic.

use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::validation::{Checked, USize64};
use json::Index;
use zerocopy::little_endian::F32;
use zerocopy::FromBytes;

/// Builds the single binary buffer (buffer 0) and its views and accessors.
#[derive(Debug, Default)]
pub struct BufferBuilder {
    /// The bytes of buffer 0.
    pub bytes: Vec<u8>,
    /// Buffer views, in order.
    pub views: Vec<json::buffer::View>,
    /// Accessors, in order.
    pub accessors: Vec<json::Accessor>,
}

/// What an accessor holds, besides its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Component type.
    pub component: ComponentType,
    /// Element type.
    pub kind: Type,
    /// Whether integer components are normalized.
    pub normalized: bool,
    /// Buffer view target (vertex attributes, indices), if any.
    pub target: Option<json::buffer::Target>,
}

impl Layout {
    /// Float vectors of `kind`.
    pub const fn float(kind: Type) -> Self {
        Layout {
            component: ComponentType::F32,
            kind,
            normalized: false,
            target: None,
        }
    }
    /// Vertex attribute layout.
    pub const fn attribute(component: ComponentType, kind: Type, normalized: bool) -> Self {
        Layout {
            component,
            kind,
            normalized,
            target: Some(json::buffer::Target::ArrayBuffer),
        }
    }
    /// Raw data for the importer, not used by any primitive.
    pub const fn raw(component: ComponentType, kind: Type) -> Self {
        Layout {
            component,
            kind,
            normalized: false,
            target: None,
        }
    }
}

impl BufferBuilder {
    /// Appends `data` as a view of its own (4-byte aligned, no target, no
    /// accessor: an embedded image); returns the view's index.
    pub fn push_view(&mut self, data: &[u8]) -> u32 {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(data);
        self.views.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(data.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: None,
            extensions: None,
            extras: Default::default(),
        });
        self.views.len() as u32 - 1
    }

    /// Appends `data` as a new view and accessor of `count` elements; returns the accessor index.
    pub fn push(
        &mut self,
        data: &[u8],
        count: usize,
        layout: Layout,
        min_max: Option<(serde_json::Value, serde_json::Value)>,
    ) -> Index<json::Accessor> {
        self.push_with(count, layout, min_max, |out| out.extend_from_slice(data))
    }

    /// Appends a raw table for the importer (no target, no bounds); returns the
    /// accessor index as the extras record it.
    pub fn push_raw(
        &mut self,
        data: &[u8],
        count: usize,
        component: ComponentType,
        kind: Type,
    ) -> u32 {
        self.push(data, count, Layout::raw(component, kind), None)
            .value() as u32
    }

    /// Appends a new view whose bytes `write` appends to the buffer in place (no
    /// intermediate copy), and its accessor of `count` elements.
    pub fn push_with(
        &mut self,
        count: usize,
        layout: Layout,
        min_max: Option<(serde_json::Value, serde_json::Value)>,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> Index<json::Accessor> {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let offset = self.bytes.len();
        write(&mut self.bytes);
        let length = self.bytes.len() - offset;
        self.views.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(length),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: layout.target.map(Checked::Valid),
            extensions: None,
            extras: Default::default(),
        });
        let (min, max) = match min_max {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        self.accessors.push(json::Accessor {
            buffer_view: Some(Index::new(self.views.len() as u32 - 1)),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(GenericComponentType(layout.component)),
            extensions: None,
            extras: Default::default(),
            type_: Checked::Valid(layout.kind),
            min,
            max,
            name: None,
            normalized: layout.normalized,
            sparse: None,
        });
        Index::new(self.accessors.len() as u32 - 1)
    }

    /// Float vectors written as they come, without min/max.
    pub fn push_float_iter<const N: usize>(
        &mut self,
        values: impl ExactSizeIterator<Item = [f32; N]>,
        layout: Layout,
    ) -> Index<json::Accessor> {
        self.write_floats(values, layout, false)
    }

    /// Float vectors with per-component min/max (required for POSITION and animation inputs).
    pub fn push_floats<const N: usize>(
        &mut self,
        values: &[[f32; N]],
        layout: Layout,
    ) -> Index<json::Accessor> {
        self.push_floats_iter(values.iter().copied(), layout)
    }

    /// [`BufferBuilder::push_floats`] over an iterator, written in place.
    pub fn push_floats_iter<const N: usize>(
        &mut self,
        values: impl ExactSizeIterator<Item = [f32; N]>,
        layout: Layout,
    ) -> Index<json::Accessor> {
        self.write_floats(values, layout, true)
    }

    fn write_floats<const N: usize>(
        &mut self,
        values: impl ExactSizeIterator<Item = [f32; N]>,
        layout: Layout,
        bounds: bool,
    ) -> Index<json::Accessor> {
        let count = values.len();
        let mut min = [f32::INFINITY; N];
        let mut max = [f32::NEG_INFINITY; N];
        // The view is written first, then its accessor gets the bounds.
        let index = self.push_with(count, layout, None, |out| {
            // Sized once, then filled element by element through a little-endian
            // view of the new bytes (no capacity or bounds check per float).
            let start = out.len();
            out.resize(start + count * N * 4, 0);
            let Ok(slots) = <[[F32; N]]>::mut_from_bytes(&mut out[start..]) else {
                unreachable!("F32 has alignment 1 and the length is a whole number of elements")
            };
            for (v, slot) in values.zip(slots) {
                if bounds {
                    for i in 0..N {
                        min[i] = min[i].min(v[i]);
                        max[i] = max[i].max(v[i]);
                    }
                }
                *slot = v.map(F32::new);
            }
        });
        if bounds && count > 0 {
            let accessor = &mut self.accessors[index.value()];
            accessor.min = Some(json_floats(&min));
            accessor.max = Some(json_floats(&max));
        }
        index
    }
}

fn json_floats(v: &[f32]) -> serde_json::Value {
    serde_json::Value::Array(v.iter().map(|&x| serde_json::json!(x)).collect())
}
