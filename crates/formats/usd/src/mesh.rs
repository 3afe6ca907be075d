//! Slot meshes: each MSH slot with a drawable batch once, as a `Mesh` under
//! the root's `class "Slots"` (abstract: not drawn itself), which the nodes'
//! slot prims reference; each batch a `GeomSubset` bound to its material.

use super::text::{self, Usda};
use super::Walk;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::geometry::shown_normal;

/// One slot's vertex and face arrays, every drawn batch after the other.
#[derive(Default)]
struct SlotArrays {
    points: Vec<[f32; 3]>,
    normals: Option<Vec<[f32; 3]>>,
    st: Option<Vec<[f32; 2]>>,
    /// Res15 as a second UV set (V flipped), when it reads as one.
    st1: Option<Vec<[f32; 2]>>,
    /// Res18 (D3DCOLOR: bytes B, G, R, A) as colour and opacity in 0..=1.
    colors: Option<Vec<[f32; 4]>>,
    indices: Vec<i32>,
    /// Per drawn batch: its material index and its faces `start..end`.
    subsets: Vec<(u16, std::ops::Range<usize>)>,
}

impl Walk<'_> {
    /// The `class "Slots"` with a `Mesh` per slot that has a drawable batch;
    /// records which slots got one.
    pub(super) fn slot_meshes(&mut self, usda: &mut Usda) -> Result<()> {
        if self.clockwise {
            self.report.note(
                Code::UsdWindingFlipped.code(),
                "triangles wind clockwise seen from their normals' side; written reversed so USD's counter-clockwise (rightHanded) front faces match, as in the glTF export",
            );
        }
        usda.open("class \"Slots\"");
        for slot in 0..self.view.slots.len() {
            let arrays = self.slot_arrays(slot)?;
            if arrays.subsets.is_empty() {
                continue;
            }
            self.has_mesh[slot] = true;
            self.write_mesh(usda, slot, &arrays);
        }
        usda.close();
        Ok(())
    }

    /// The arrays of slot `slot`: each batch's vertex range
    /// `[base_vertex + min(index), base_vertex + max(index)]` (as the glTF
    /// export's primitives), its whole triangles rebased into it.
    fn slot_arrays(&self, slot: usize) -> Result<SlotArrays> {
        let view = &self.view;
        let s = &view.slots[slot];
        let start = s.batch_start.get() as usize;
        let batches = view
            .batches
            .get(start..start + s.batch_count.get() as usize)
            .ok_or_else(|| out_of_range(format!("slot {slot}: its batches")))?;
        let mut a = SlotArrays {
            normals: view.normals.map(|_| Vec::new()),
            st: view.uv0.map(|_| Vec::new()),
            st1: self.stream15_uv.then(Vec::new),
            colors: view.stream18.map(|_| Vec::new()),
            ..SlotArrays::default()
        };
        for (k, b) in batches.iter().enumerate() {
            let first = b.index_start.get() as usize;
            let idx = view
                .indices
                .get(first..first + b.index_count.get() as usize)
                .ok_or_else(|| out_of_range(format!("slot {slot} batch {k}: its indices")))?;
            let idx = &idx[..idx.len() / 3 * 3];
            let (Some(lo), Some(hi)) = (
                idx.iter().map(|i| i.get()).min(),
                idx.iter().map(|i| i.get()).max(),
            ) else {
                continue;
            };
            let base = b.base_vertex.get() as usize;
            let range = base + lo as usize..=base + hi as usize;
            let points = view
                .positions
                .get(range.clone())
                .ok_or_else(|| out_of_range(format!("slot {slot} batch {k}: its vertices")))?;
            let offset = a.points.len() as i64 - i64::from(lo);
            a.points.extend(
                points
                    .iter()
                    .map(|[x, y, z]| self.axes.vec([x.get(), y.get(), z.get()])),
            );
            if let (Some(out), Some(n)) = (&mut a.normals, view.normals) {
                let n = n.get(range.clone()).unwrap_or(&[]);
                out.extend(n.iter().map(|n| self.axes.vec(shown_normal(n).0)));
            }
            if let (Some(out), Some(uv)) = (&mut a.st, view.uv0) {
                let uv = uv.get(range.clone()).unwrap_or(&[]);
                // USD's texture origin is the bottom left, glTF's the top left.
                out.extend(uv.iter().map(|t| {
                    let [u, v] = t.decode();
                    [u, 1.0 - v]
                }));
            }
            if let (Some(out), Some(s15)) = (&mut a.st1, view.stream15) {
                let s15 = s15.get(range.clone()).unwrap_or(&[]);
                out.extend(s15.iter().map(|r| {
                    let f = |k: usize| f32::from_le_bytes([r[k], r[k + 1], r[k + 2], r[k + 3]]);
                    [f(0), 1.0 - f(4)]
                }));
            }
            if let (Some(out), Some(s18)) = (&mut a.colors, view.stream18) {
                let s18 = s18.get(range.clone()).unwrap_or(&[]);
                out.extend(
                    s18.iter()
                        .map(|c| [c[2], c[1], c[0], c[3]].map(|b| f32::from(b) / 255.0)),
                );
            }
            let faces = a.indices.len() / 3;
            let order: [usize; 3] = if self.clockwise { [0, 2, 1] } else { [0, 1, 2] };
            a.indices.extend(
                idx.chunks_exact(3)
                    .flat_map(|t| order.map(|k| (i64::from(t[k].get()) + offset) as i32)),
            );
            a.subsets
                .push((b.material_index.get(), faces..a.indices.len() / 3));
        }
        Ok(a)
    }

    fn write_mesh(&self, usda: &mut Usda, slot: usize, a: &SlotArrays) {
        usda.open_meta(&format!("def Mesh \"slot{slot}\""));
        usda.custom_data(&[("mshSlot", slot as u64)]);
        usda.close_meta();
        usda.open("");
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in &a.points {
            for c in 0..3 {
                lo[c] = lo[c].min(p[c]);
                hi[c] = hi[c].max(p[c]);
            }
        }
        usda.line(&format!(
            "float3[] extent = [{}, {}]",
            text::tuple_text(&lo),
            text::tuple_text(&hi)
        ));
        usda.array(
            "int[] faceVertexCounts",
            0..a.indices.len() / 3,
            32,
            |s, _| s.push('3'),
            None,
        );
        usda.array(
            "int[] faceVertexIndices",
            &a.indices,
            24,
            |s, i| s.push_str(&i.to_string()),
            None,
        );
        if let Some(normals) = &a.normals {
            usda.array(
                "normal3f[] normals",
                normals,
                4,
                |s, n| text::tuple(s, n),
                Some(VERTEX),
            );
        }
        usda.array(
            "point3f[] points",
            &a.points,
            4,
            |s, p| text::tuple(s, p),
            None,
        );
        if let Some(st) = &a.st {
            usda.array(
                "texCoord2f[] primvars:st",
                st,
                6,
                |s, t| text::tuple(s, t),
                Some(VERTEX),
            );
        }
        if let Some(st1) = &a.st1 {
            usda.array(
                "texCoord2f[] primvars:st1",
                st1,
                6,
                |s, t| text::tuple(s, t),
                Some(VERTEX),
            );
        }
        if let Some(colors) = &a.colors {
            usda.array(
                "color3f[] primvars:displayColor",
                colors,
                4,
                |s, c| text::tuple(s, &c[..3]),
                Some(VERTEX),
            );
            usda.array(
                "float[] primvars:displayOpacity",
                colors,
                12,
                |s, c| text::float(s, c[3]),
                Some(VERTEX),
            );
        }
        usda.line("uniform token subdivisionScheme = \"none\"");
        usda.line("uniform token subsetFamily:materialBind:familyType = \"partition\"");
        for (k, (material, faces)) in a.subsets.iter().enumerate() {
            usda.open_meta(&format!("def GeomSubset \"batch{k}\""));
            usda.line("prepend apiSchemas = [\"MaterialBindingAPI\"]");
            usda.close_meta();
            usda.open("");
            usda.line("uniform token elementType = \"face\"");
            usda.line("uniform token familyName = \"materialBind\"");
            usda.array(
                "int[] indices",
                faces.clone(),
                32,
                |s, f| s.push_str(&f.to_string()),
                None,
            );
            usda.line(&format!(
                "rel material:binding = <{}/Materials/mat{material}>",
                self.root_path
            ));
            usda.close();
        }
        usda.close();
    }
}

/// The interpolation of values given per point.
const VERTEX: &str = "interpolation = \"vertex\"";

fn out_of_range(what: String) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        Code::UsdOutOfRange.code(),
        format!("{what} lie outside the model's tables"),
    )
}
