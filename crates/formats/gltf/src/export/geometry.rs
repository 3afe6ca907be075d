//! Meshes: each MSH slot a mesh, each batch a primitive (vertex attributes,
//! indices), the materials, and the winding the triangles are written with.

use super::{b64, shown_normal, Exporter};
use crate::buffer::Layout;
use crate::codes::Code;
use crate::error::Result;
use crate::extras::wrap;
use crate::geometry::batch_indices;
use crate::{extras as ex, names};
use gltf_json as json;
use gltf_json::accessor::{ComponentType, Type};
use gltf_json::validation::Checked;
use gltf_json::Index;
use std::collections::BTreeMap;
use std::rc::Rc;
use zerocopy::IntoBytes;

impl Exporter<'_> {
    /// Majority vote of triangle winding against the stored vertex normals
    /// (the view's, `mshconv_convert::geometry::clockwise`), noted.
    pub(super) fn detect_winding(&mut self) -> bool {
        let clockwise = self.clockwise;
        if clockwise {
            self.report.note(
                Code::ExportWindingFlipped.code(),
                "triangles wind clockwise seen from their normals' side; written reversed so glTF's counter-clockwise front faces match (restored on import)",
            );
        }
        clockwise
    }

    /// One glTF material per MSH material index, and one more for each further
    /// batch of the same index within a slot (`mat47#1`): Blender merges
    /// primitives that share a material, and those batches may differ in their
    /// unknown fields.
    pub(super) fn collect_materials(&mut self) {
        let mut used: std::collections::BTreeSet<(u16, u16)> = self
            .view
            .batches
            .iter()
            .map(|b| (b.material_index.get(), 0))
            .collect();
        for slot in 0..self.view.slots.len() {
            used.extend(self.material_keys(slot));
        }
        for (m, repeat) in used {
            self.material_of
                .insert((m, repeat), self.materials.len() as u32);
            self.materials.push(material(m, repeat));
        }
    }

    /// The batch indices of a slot.
    pub(super) fn slot_batches(&self, slot: usize) -> std::ops::Range<usize> {
        let s = self.view.slots[slot];
        let start = s.batch_start.get() as usize;
        start..start + s.batch_count.get() as usize
    }

    /// Per batch of the slot, in order: `(material index, how many earlier
    /// batches of the slot share it)`. One pass (counting the earlier batches
    /// for each was quadratic in a slot's batches).
    pub(super) fn material_keys(&self, slot: usize) -> Vec<(u16, u16)> {
        let batches = &self.view.batches[self.slot_batches(slot)];
        if batches.len() <= 16 {
            // A slot has a few batches as a rule: counting the earlier ones is
            // cheaper than a map then.
            return batches
                .iter()
                .enumerate()
                .map(|(k, b)| {
                    let m = b.material_index.get();
                    let repeat = batches[..k]
                        .iter()
                        .filter(|e| e.material_index.get() == m)
                        .count();
                    (m, repeat as u16)
                })
                .collect();
        }
        let mut seen: BTreeMap<u16, u16> = BTreeMap::new();
        batches
            .iter()
            .map(|b| {
                let m = b.material_index.get();
                let repeat = seen.entry(m).or_insert(0);
                let key = (m, *repeat);
                *repeat += 1;
                key
            })
            .collect()
    }

    /// The mesh of one slot, `None` when it has nothing to draw.
    pub(super) fn slot_mesh(&mut self, slot: usize) -> Result<Option<u32>> {
        let s = self.view.slots[slot];
        let (bs, bc) = (s.batch_start.get() as usize, s.batch_count.get() as usize);
        let mut primitives = Vec::with_capacity(bc);
        let mut batches = Vec::with_capacity(bc);
        let indices = Rc::clone(&self.indices);
        let keys = self.material_keys(slot);
        for (bi, key) in (bs..bs + bc).zip(keys) {
            let b = self.view.batches[bi];
            let idx = batch_indices(&indices, &b).unwrap_or(&[]);
            let (lo, hi) = match (idx.iter().min(), idx.iter().max()) {
                (Some(&lo), Some(&hi)) if !idx.is_empty() => (lo as u32, hi as u32),
                _ => (0, 0),
            };
            let first = b.base_vertex.get() + lo;
            batches.push(ex::BatchExtras {
                material: b.material_index.get(),
                flags: b.batch_flags.get(),
                opaque4: b.opaque4.get(),
                opaque6: b.opaque6.get(),
                opaque14: b.opaque14.get(),
                index_start: b.index_start.get(),
                base_vertex: b.base_vertex.get(),
                first_vertex: first,
                index_count: b.index_count.get() as u32,
                vertex_count: if idx.is_empty() { 0 } else { hi - lo + 1 },
            });
            if idx.is_empty() {
                continue;
            }
            let start = b.index_start.get() as usize;
            self.index_covered[start..start + idx.len()]
                .iter_mut()
                .for_each(|c| *c = true);
            let range = first as usize..=(b.base_vertex.get() + hi) as usize;
            self.vertex_covered[range.clone()]
                .iter_mut()
                .for_each(|c| *c = true);
            primitives.push(self.primitive(range, lo, &idx[..idx.len() / 3 * 3], key));
        }
        // The record travels as stored, always: recomputing the bounds to learn
        // whether the importer would get them back cost more than carrying them.
        let slot_extras = ex::SlotExtras {
            slot: slot as u32,
            tri_start: s.tri_start.get() as u32,
            tri_count: s.tri_count.get() as u32,
            batch_start: bs as u32,
            record: Some(b64(&s.as_bytes()[8..])),
            batches,
        };
        if primitives.is_empty() {
            self.extras_empty_slot(slot_extras);
            return Ok(None);
        }
        self.mesh_extras.push(slot_extras);
        self.meshes.push(json::Mesh {
            extensions: None,
            extras: None,
            name: Some(format!("slot{slot}")),
            primitives,
            weights: None,
        });
        Ok(Some(self.meshes.len() as u32 - 1))
    }

    pub(super) fn extras_empty_slot(&mut self, slot: ex::SlotExtras) {
        // A slot without drawable batches has no mesh (glTF meshes need a primitive);
        // its record travels in the model extras.
        self.extras_empty.push(slot);
    }

    pub(super) fn primitive(
        &mut self,
        range: std::ops::RangeInclusive<usize>,
        lo: u32,
        idx: &[u16],
        material: (u16, u16),
    ) -> json::mesh::Primitive {
        use json::mesh::Semantic;
        // The tables borrow the model's bytes, not the exporter.
        let view = &self.view;
        let (positions, normals, uv0) = (view.positions, view.normals, view.uv0);
        let (stream15, stream18) = (view.stream15, view.stream18);
        let f = self.axes;
        let mut attributes = BTreeMap::new();
        let a = self.buf.push_floats_iter(
            positions[range.clone()]
                .iter()
                .map(|[x, y, z]| f.vec([x.get(), y.get(), z.get()])),
            Layout::attribute(ComponentType::F32, Type::Vec3, false),
        );
        attributes.insert(Checked::Valid(Semantic::Positions), a);
        let normals = normals.map(|n| n[range.clone()].iter());
        let uvs = uv0.map(|uv| uv[range.clone()].iter());
        self.normals_and_uvs(&mut attributes, normals, uvs);
        if let Some(s15) = stream15.filter(|_| self.stream15_uv) {
            let a = self.buf.push_with(
                range.clone().count(),
                Layout::attribute(ComponentType::F32, Type::Vec2, false),
                None,
                |out| out.extend_from_slice(s15[range.clone()].as_flattened()),
            );
            attributes.insert(Checked::Valid(Semantic::TexCoords(1)), a);
        }
        if let Some(s18) = stream18 {
            // Res18 read as D3DCOLOR (bytes B, G, R, A); glTF wants R, G, B, A.
            let a = self.buf.push_with(
                range.clone().count(),
                Layout::attribute(ComponentType::U8, Type::Vec4, true),
                None,
                |out| {
                    out.extend(
                        s18[range.clone()]
                            .iter()
                            .flat_map(|c| [c[2], c[1], c[0], c[3]]),
                    )
                },
            );
            attributes.insert(Checked::Valid(Semantic::Colors(0)), a);
        }
        // 65535 is the primitive-restart value of u16 indices: such primitives use u32.
        let wide = idx.iter().any(|&i| i as u32 - lo >= 0xFFFF);
        let component = if wide {
            ComponentType::U32
        } else {
            ComponentType::U16
        };
        let mut ib = Layout::raw(component, Type::Scalar);
        ib.target = Some(json::buffer::Target::ElementArrayBuffer);
        let order: [usize; 3] = if self.cw { [0, 2, 1] } else { [0, 1, 2] };
        let indices = self.buf.push_with(idx.len(), ib, None, |out| {
            out.reserve(idx.len() * if wide { 4 } else { 2 });
            for t in idx.chunks_exact(3) {
                for k in order {
                    let i = t[k] as u32 - lo;
                    if wide {
                        out.extend_from_slice(&i.to_le_bytes());
                    } else {
                        out.extend_from_slice(&(i as u16).to_le_bytes());
                    }
                }
            }
        });
        json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: Default::default(),
            indices: Some(indices),
            material: self.material_of.get(&material).map(|&m| Index::new(m)),
            mode: Checked::Valid(json::mesh::Mode::Triangles),
            targets: None,
        }
    }
}

impl Exporter<'_> {
    /// A primitive's normals and first UVs (each when the model has them, one
    /// per vertex in the order given) as accessors into `attributes`; a
    /// zero-length normal is shown as +Z, with one note per export.
    pub(super) fn normals_and_uvs<'v>(
        &mut self,
        attributes: &mut BTreeMap<Checked<json::mesh::Semantic>, Index<json::Accessor>>,
        normals: Option<impl ExactSizeIterator<Item = &'v msh::raw::PackedNormal>>,
        uvs: Option<impl ExactSizeIterator<Item = &'v msh::raw::PackedUv>>,
    ) {
        use json::mesh::Semantic;
        let f = self.axes;
        if let Some(normals) = normals {
            let mut zero = false;
            let a = self.buf.push_float_iter(
                normals.map(|n| {
                    let (unit, was_zero) = shown_normal(n);
                    zero |= was_zero;
                    f.vec(unit)
                }),
                Layout::attribute(ComponentType::F32, Type::Vec3, false),
            );
            attributes.insert(Checked::Valid(Semantic::Normals), a);
            if zero && !self.report.has(Code::ExportZeroNormal.code()) {
                self.report.note(
                    Code::ExportZeroNormal.code(),
                    "zero-length vertex normals are shown as +Z (the raw bytes are kept)",
                );
            }
        }
        if let Some(uvs) = uvs {
            let a = self.buf.push_float_iter(
                uvs.map(|t| t.decode()),
                Layout::attribute(ComponentType::F32, Type::Vec2, false),
            );
            attributes.insert(Checked::Valid(Semantic::TexCoords(0)), a);
        }
    }
}

pub(super) fn material(index: u16, repeat: u16) -> json::Material {
    let rgb = crate::palette::material_colour(index);
    json::Material {
        name: Some(names::material_name(index, repeat)),
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor([rgb[0], rgb[1], rgb[2], 1.0]),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(1.0),
            ..Default::default()
        },
        extras: wrap(&serde_json::json!({ "material": index })),
        ..Default::default()
    }
}
