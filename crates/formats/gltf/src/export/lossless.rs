//! What glTF cannot hold, written for the exact way back (read by
//! `gltf/import/lossless.rs`): raw tables, ranges no batch covers, and the
//! container's layout (entries, names, attributes, order).

use super::{b64, Exporter};
use crate::extras as ex;
use gltf_json::accessor::{ComponentType, Type};
use msh::resource as res;
use zerocopy::IntoBytes;

impl Exporter<'_> {
    /// Raw accessors for tables the glTF content cannot give back exactly.
    pub(super) fn raw_tables(&mut self) {
        let view = self.view.clone();
        let view = &view;
        if let Some(normals) = view.normals.filter(|n| !n.is_empty()) {
            self.extras.raw.normals = Some(self.buf.push_raw(
                normals.as_bytes(),
                normals.len(),
                ComponentType::I8,
                Type::Vec4,
            ));
        }
        if let Some(s) = view.stream15.filter(|s| !s.is_empty() && !self.stream15_uv) {
            let a = self
                .buf
                .push_raw(s.as_flattened(), s.len(), ComponentType::U16, Type::Vec4);
            self.extras.raw.stream15 = Some(a);
        }
        if let Some(s) = view.stream16.filter(|s| !s.is_empty()) {
            let a = self
                .buf
                .push_raw(s.as_flattened(), s.len(), ComponentType::U16, Type::Vec4);
            self.extras.raw.stream16 = Some(a);
        }
        if let Some(descs) = view.tri_descs.filter(|d| !d.is_empty()) {
            // Always raw: deriving it to learn whether the importer could derive
            // it back cost more than all the rest of the export (bench/RESULTS.md).
            self.extras.raw.tri_descs = Some(self.buf.push_raw(
                descs.as_bytes(),
                descs.len() * 2,
                ComponentType::U16,
                Type::Vec4,
            ));
        }
        if self.anim_raw_nodes {
            // Every node's map start and fallback key, as stored.
            for (node, e) in view.nodes.iter().zip(&mut self.node_extras) {
                if let ex::NodeMsh::Node(e) = e {
                    e.anim = Some([node.anim_map_start.get(), node.fallback_key.get()]);
                }
            }
        }
    }

    /// Vertex and index ranges no batch covers, kept raw.
    pub(super) fn gaps(&mut self) {
        let view = self.view.clone();
        let view = &view;
        for (start, count) in runs(&self.vertex_covered) {
            let mut data = Vec::new();
            for v in start..start + count {
                data.extend_from_slice(view.positions[v].as_bytes());
                if let Some(s) = view.normals {
                    data.extend_from_slice(s[v].as_bytes());
                }
                if let Some(s) = view.uv0 {
                    data.extend_from_slice(s[v].as_bytes());
                }
                if let Some(s) = view.stream15 {
                    data.extend_from_slice(&s[v]);
                }
                if let Some(s) = view.stream16 {
                    data.extend_from_slice(&s[v]);
                }
                if let Some(s) = view.stream18 {
                    data.extend_from_slice(&s[v]);
                }
            }
            self.extras.vertex_gaps.push(ex::Gap {
                start: start as u32,
                count: count as u32,
                data: b64(&data),
            });
        }
        let mut batch_covered = vec![false; view.batches.len()];
        for slot in 0..view.slots.len() {
            for b in self.slot_batches(slot) {
                if let Some(c) = batch_covered.get_mut(b) {
                    *c = true;
                }
            }
        }
        for (start, count) in runs(&batch_covered) {
            let data = view.batches[start..start + count].as_bytes();
            self.extras.batch_gaps.push(ex::Gap {
                start: start as u32,
                count: count as u32,
                data: b64(data),
            });
        }
        for (start, count) in runs(&self.index_covered) {
            let data = view.indices[start..start + count].as_bytes();
            self.extras.index_gaps.push(ex::Gap {
                start: start as u32,
                count: count as u32,
                data: b64(data),
            });
        }
    }

    /// The container's facts in the model extras: header, counts, winding,
    /// entry order, names, attributes, layout and raw payloads.
    pub(super) fn container_extras(&mut self) {
        let container = self.container;
        let view = self.view.clone();
        let view = &view;
        self.extras.header = container
            .has_typed(res::SLOTS)
            .then(|| b64(container.header.as_bytes()));
        self.extras.frame_count = container.frame_count;
        self.extras.counts = ex::Counts {
            vertices: view.positions.len() as u32,
            indices: view.indices.len() as u32,
            tri_descs: view.tri_descs.map_or(0, |d| d.len() as u32),
            batches: view.batches.len() as u32,
            slots: view.slots.len() as u32,
            keys: view.anim_keys.map_or(0, |k| k.len() as u32),
            map_words: view.anim_map.map_or(0, |m| m.len() as u32),
        };
        self.extras.winding = if self.cw {
            ex::Winding::Cw
        } else {
            ex::Winding::Ccw
        };
        let names: Vec<&[u8]> = container
            .entries
            .iter()
            .map(|e| e.name.as_bytes())
            .collect();
        let canonical_sort = nres::sort_table(names.iter().copied());
        let sort_canonical = container
            .entries
            .iter()
            .zip(&canonical_sort)
            .all(|(e, &c)| e.sort_index == c);
        let layout_canonical = self.layout_canonical();
        self.extras.keep_sort_index = container.keep_sort_index && !sort_canonical;
        self.extras.leading = (!container.leading.is_empty()).then(|| b64(&container.leading));
        self.extras.physical_order = container
            .physical_order
            .as_ref()
            .filter(|o| o.iter().enumerate().any(|(i, &p)| i != p))
            .map(|o| o.iter().map(|&p| p as u32).collect());
        for e in &container.entries {
            let text = e.name.to_string_lossy();
            let clean = nres::Name::new(&text).map(|n| n == e.name).unwrap_or(false);
            let attrs = e.attrs.map(|a| match a {
                msh::Attr::Derived => -1,
                msh::Attr::Fixed(v) => v as i64,
            });
            self.extras.entries.push(ex::EntryExtras {
                type_id: e.type_id,
                name: text,
                name_field: (!clean).then(|| b64(e.name.field())),
                attrs: attrs.iter().any(|&a| a >= 0).then_some(attrs),
                sort_index: self.extras.keep_sort_index.then_some(e.sort_index),
                filler: if layout_canonical {
                    None
                } else {
                    e.filler
                        .as_ref()
                        .map(|f| (f.payload_len as u32, b64(&f.bytes)))
                },
                offset: if layout_canonical {
                    None
                } else {
                    e.offset_hint
                },
                data: e.raw.as_ref().map(|d| b64(d)),
            });
        }
        if !self.extras_empty.is_empty() {
            self.extras.empty_slots = std::mem::take(&mut self.extras_empty);
        }
    }

    /// True when writing payloads in directory order with zero padding to 8 reproduces the layout.
    pub(super) fn layout_canonical(&self) -> bool {
        let container = self.container;
        if !container.leading.is_empty() {
            return false;
        }
        if let Some(order) = &container.physical_order {
            if order.iter().enumerate().any(|(i, &p)| i != p) {
                return false;
            }
        }
        let mut pos = 16usize;
        for e in &container.entries {
            let len = match (&e.raw, &e.filler) {
                (Some(raw), _) => raw.len(),
                (None, Some(f)) => f.payload_len,
                (None, None) => return true,
            };
            if len == 0 && e.offset_hint.is_some_and(|h| h as usize != pos) {
                return false;
            }
            pos += len;
            let pad = (8 - pos % 8) % 8;
            match &e.filler {
                Some(f) if f.bytes.len() == pad && f.bytes.iter().all(|&b| b == 0) => pos += pad,
                Some(_) => return false,
                None => pos += pad,
            }
        }
        true
    }
}

/// Runs of `false` as `(start, count)`.
pub(super) fn runs(covered: &[bool]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < covered.len() {
        if covered[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < covered.len() && !covered[i] {
            i += 1;
        }
        out.push((start, i - start));
    }
    out
}
