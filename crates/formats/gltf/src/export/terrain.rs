//! Terrain models (FORMAT.md section 5): no Res6/Res13; a slot's
//! `tri_start/tri_count` is a range of Res21 triangles (28 bytes: `u32 flags`,
//! `u32` material word whose low byte is the primary material, three `u16`
//! vertex indices at offset 8 into Res3, and Res4/Res5 when they hold one
//! record per vertex). The tables stay raw in the container's entries (they
//! travel in extras for the exact way back, `lossless.rs`); what is shown here
//! is read from them with every index checked, so a damaged or partially
//! understood file never panics: a triangle whose vertex lies past Res3 (or at
//! a position that is not finite) is left out, and a slot range past Res21's
//! end is cut, each with an `export.terrain_skipped` note.
//!
//! Layout, as for standard models: glTF nodes `0..N` are the Res1 nodes (the
//! tiles) with their rest pose (the fallback key, identity when Res8 has none),
//! each with a child per used (LOD, group) slot, shown for the chosen LOD/group
//! and hidden (scale 0) otherwise; each slot a mesh `slot<n>` with one
//! primitive per primary material (`mat<n>`).

use super::geometry::material;
use super::{empty_node, Exporter};
use crate::buffer::Layout;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::geometry::{cross, dot, sub};
use crate::names;
use gltf_json as json;
use gltf_json::accessor::{ComponentType, Type};
use gltf_json::validation::Checked;
use gltf_json::Index;
use msh::raw::{AnimKey24, Node38, PackedNormal, PackedUv, Position, Slot68, GROUPS, LODS};
use msh::{resource as res, Attr, Container};
use std::collections::{BTreeMap, BTreeSet};
use zerocopy::{FromBytes, Immutable, KnownLayout};

/// Size of one Res21 record.
pub(crate) const TRI_SIZE: usize = 28;

/// The primary material (low byte of the material word) and the three vertex
/// indices of a Res21 record.
pub(crate) fn triangle(record: &[u8; TRI_SIZE]) -> (u8, [u32; 3]) {
    let v = |o: usize| u16::from_le_bytes([record[o], record[o + 1]]) as u32;
    (record[4], [v(8), v(10), v(12)])
}

/// The terrain's tables, viewed in the raw payloads (the first entry of each
/// type, as the game looks them up), cut to whole records.
pub(crate) struct Tables<'a> {
    pub nodes: &'a [Node38],
    pub slots: &'a [Slot68],
    pub positions: &'a [Position],
    /// Res4, when it has one record per vertex.
    pub normals: Option<&'a [PackedNormal]>,
    /// Res5, when it has one record per vertex.
    pub uv0: Option<&'a [PackedUv]>,
    pub tris: &'a [[u8; TRI_SIZE]],
    pub keys: &'a [AnimKey24],
    /// Res10, one record per node when it parses.
    pub names: Option<Vec<Option<&'a [u8]>>>,
}

impl<'a> Tables<'a> {
    pub(crate) fn read(container: &'a Container) -> Tables<'a> {
        let raw = |type_id: u32| -> &'a [u8] {
            container
                .entries
                .iter()
                .find(|e| e.type_id == type_id)
                .and_then(|e| e.raw.as_deref())
                .unwrap_or(&[])
        };
        let legacy = container
            .entries
            .iter()
            .any(|e| e.type_id == res::NODES && e.attrs[2] == Attr::Fixed(res::LEGACY_NODE_STRIDE));
        let nodes: &[Node38] = if legacy {
            &[]
        } else {
            records(raw(res::NODES))
        };
        let res2 = raw(res::SLOTS);
        let slots = records(res2.get(res::MODEL_HEADER_SIZE..).unwrap_or(&[]));
        let positions: &[Position] = records(raw(res::POSITIONS));
        let normals: &[PackedNormal] = records(raw(res::NORMALS));
        let uv0: &[PackedUv] = records(raw(res::UV0));
        let per_vertex = |n: usize| n == positions.len() && n > 0;
        let names = container
            .has(res::NAMES)
            .then(|| names(raw(res::NAMES), nodes.len()));
        Tables {
            nodes,
            slots,
            positions,
            normals: per_vertex(normals.len()).then_some(normals),
            uv0: per_vertex(uv0.len()).then_some(uv0),
            tris: records(raw(res::TERRAIN_TRIS)),
            keys: records(raw(res::ANIM_KEYS)),
            names,
        }
    }

    /// The Res21 range of a slot, cut at Res21's end, and how many triangles the cut left out.
    pub(crate) fn slot_range(&self, slot: usize) -> (std::ops::Range<usize>, usize) {
        let s = &self.slots[slot];
        let start = s.tri_start.get() as usize;
        let end = start + s.tri_count.get() as usize;
        let len = self.tris.len();
        (start.min(len)..end.min(len), end - end.min(len))
    }

    /// The slots shown: those a node points at (in range), or every slot when
    /// there are no nodes.
    pub(crate) fn used_slots(&self) -> BTreeSet<usize> {
        if self.nodes.is_empty() {
            return (0..self.slots.len()).collect();
        }
        self.nodes
            .iter()
            .flat_map(|n| n.slots.iter().map(|s| s.get() as usize))
            .filter(|&s| s < self.slots.len())
            .collect()
    }

    fn finite(&self, v: u32) -> bool {
        self.positions[v as usize]
            .iter()
            .all(|c| c.get().is_finite())
    }
}

/// Whole records of `data` (a trailing partial record is left out).
fn records<T: FromBytes + KnownLayout + Immutable>(data: &[u8]) -> &[T] {
    let whole = data.len() / core::mem::size_of::<T>();
    <[T]>::ref_from_prefix_with_elems(data, whole)
        .map(|(t, _)| t)
        .unwrap_or(&[])
}

/// Res10: `count` records of `u32 len` then `len + 1` bytes when `len > 0`;
/// a record past the end (and every one after it) reads as unnamed.
fn names(data: &[u8], count: usize) -> Vec<Option<&[u8]>> {
    let mut out = Vec::with_capacity(count.min(data.len() / 4));
    let mut pos = 0usize;
    while out.len() < count {
        let Some(len) = data
            .get(pos..pos.saturating_add(4))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        else {
            break;
        };
        if len == 0 {
            out.push(None);
            pos += 4;
            continue;
        }
        let start = pos + 4;
        match start
            .checked_add(len)
            .and_then(|end| Some((data.get(start..end)?, end)))
        {
            Some((text, end)) if end < data.len() => {
                out.push(Some(text));
                pos = end + 1;
            }
            _ => break,
        }
    }
    out.resize(count, None);
    out
}

/// Triangles of one shown slot, by primary material.
type Groups = BTreeMap<u8, Vec<[u32; 3]>>;

/// What the export left out of the picture, for the note.
#[derive(Default)]
struct Skipped {
    past_res3: usize,
    non_finite: usize,
    past_res21: usize,
    bad_slot_refs: usize,
    missing_keys: usize,
    bad_parents: usize,
}

impl Exporter<'_> {
    /// The terrain's geometry and nodes (see the module text).
    pub(super) fn terrain(&mut self) -> Result<()> {
        let container = self.container;
        let t = Tables::read(container);
        let mut skipped = Skipped::default();
        let used = t.used_slots();
        // Slots may share triangles: bounded as for standard models
        // (`msh::repeats`), before any work.
        let visits: u64 = used.iter().map(|&s| t.slot_range(s).0.len() as u64).sum();
        let bound = msh::repeats::REPEAT * t.tris.len() as u64 + msh::repeats::SLACK;
        if visits > bound {
            return Err(Error::new(
                ErrorKind::Unsupported,
                Code::ExportRangesOverlap.code(),
                format!("the terrain's slots cover {visits} triangles of Res21's {} (more than {bound}): the model repeats the same data over and over; it is not exported", t.tris.len()),
            ));
        }
        // Every shown triangle, checked, grouped by slot and primary material.
        let mut shown: Vec<(usize, Groups)> = Vec::with_capacity(used.len());
        let mut materials = BTreeSet::new();
        for &slot in &used {
            let (range, cut) = t.slot_range(slot);
            skipped.past_res21 += cut;
            let mut groups = Groups::new();
            for record in &t.tris[range] {
                let (m, v) = triangle(record);
                if v.iter().any(|&v| v as usize >= t.positions.len()) {
                    skipped.past_res3 += 1;
                } else if !v.iter().all(|&v| t.finite(v)) {
                    skipped.non_finite += 1;
                } else {
                    groups.entry(m).or_default().push(v);
                    materials.insert(m);
                }
            }
            shown.push((slot, groups));
        }
        self.cw = terrain_winding(&t, &shown);
        if self.cw {
            self.report.note(
                Code::ExportWindingFlipped.code(),
                "triangles wind clockwise seen from their normals' side; written reversed so glTF's counter-clockwise front faces match (restored on import)",
            );
        }
        for m in materials {
            self.material_of
                .insert((m as u16, 0), self.materials.len() as u32);
            self.materials.push(material(m as u16, 0));
        }
        let mut slot_mesh = vec![None; t.slots.len()];
        for (slot, groups) in &shown {
            if groups.is_empty() {
                continue;
            }
            let primitives = groups
                .iter()
                .map(|(&m, tris)| self.terrain_primitive(&t, tris, m))
                .collect();
            self.meshes.push(json::Mesh {
                extensions: None,
                extras: None,
                name: Some(format!("slot{slot}")),
                primitives,
                weights: None,
            });
            slot_mesh[*slot] = Some(self.meshes.len() as u32 - 1);
        }
        if t.nodes.is_empty() {
            self.slot_mesh = slot_mesh;
            self.flat_nodes();
        } else {
            self.terrain_nodes(&t, &slot_mesh, &mut skipped);
        }
        self.terrain_notes(&t, &skipped);
        Ok(())
    }

    /// One primitive: the triangles' vertices (only those used, in Res3
    /// order), their normals and UVs when Res4/Res5 hold one per vertex.
    fn terrain_primitive(
        &mut self,
        t: &Tables<'_>,
        tris: &[[u32; 3]],
        m: u8,
    ) -> json::mesh::Primitive {
        use json::mesh::Semantic;
        let f = self.axes;
        let mut verts: Vec<u32> = tris.iter().flatten().copied().collect();
        verts.sort_unstable();
        verts.dedup();
        let mut attributes = BTreeMap::new();
        let a = self.buf.push_floats_iter(
            verts
                .iter()
                .map(|&v| f.vec(t.positions[v as usize].map(|c| c.get()))),
            Layout::attribute(ComponentType::F32, Type::Vec3, false),
        );
        attributes.insert(Checked::Valid(Semantic::Positions), a);
        let normals = t
            .normals
            .map(|n| verts.iter().map(move |&v| &n[v as usize]));
        let uvs = t.uv0.map(|uv| verts.iter().map(move |&v| &uv[v as usize]));
        self.normals_and_uvs(&mut attributes, normals, uvs);
        // 65535 is the primitive-restart value of u16 indices.
        let wide = verts.len() > 0xFFFF;
        let mut ib = Layout::raw(
            if wide {
                ComponentType::U32
            } else {
                ComponentType::U16
            },
            Type::Scalar,
        );
        ib.target = Some(json::buffer::Target::ElementArrayBuffer);
        let order: [usize; 3] = if self.cw { [0, 2, 1] } else { [0, 1, 2] };
        let local = |v: u32| verts.binary_search(&v).unwrap_or(0) as u32;
        let indices = self.buf.push_with(tris.len() * 3, ib, None, |out| {
            out.reserve(tris.len() * if wide { 12 } else { 6 });
            for tri in tris {
                for k in order {
                    let i = local(tri[k]);
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
            material: self.material_of.get(&(m as u16, 0)).map(|&i| Index::new(i)),
            mode: Checked::Valid(json::mesh::Mode::Triangles),
            targets: None,
        }
    }

    /// Nodes `0..N` are the Res1 nodes with their rest pose, then one node
    /// per (node, LOD, group) slot, as for standard models (no node extras:
    /// the terrain's tables come back from the model extras alone).
    fn terrain_nodes(&mut self, t: &Tables<'_>, slot_mesh: &[Option<u32>], skipped: &mut Skipped) {
        let n = t.nodes.len();
        let raw_names: Vec<Option<&[u8]>> = (0..n)
            .map(|i| t.names.as_ref().and_then(|v| v[i]))
            .collect();
        let names = names::node_names(&raw_names);
        let mut children: Vec<Vec<Index<json::Node>>> = vec![Vec::new(); n];
        let mut slot_nodes = Vec::new();
        for (i, node) in t.nodes.iter().enumerate() {
            match node.parent() {
                Some(p) if (p as usize) < i => children[p as usize].push(Index::new(i as u32)),
                Some(_) => {
                    skipped.bad_parents += 1;
                    self.roots.push(i as u32);
                }
                None => self.roots.push(i as u32),
            }
        }
        for (i, node) in t.nodes.iter().enumerate() {
            for lod in 0..LODS as u8 {
                for group in 0..GROUPS as u8 {
                    let Some(slot) = node.slot(lod as usize, group as usize) else {
                        continue;
                    };
                    let Some(&mesh) = slot_mesh.get(slot as usize) else {
                        skipped.bad_slot_refs += 1;
                        continue;
                    };
                    let shown = lod == self.options.lod && group == self.options.group;
                    children[i].push(Index::new((n + slot_nodes.len()) as u32));
                    slot_nodes.push(json::Node {
                        name: Some(names::slot_node_name(&names[i].0, i, lod, group)),
                        mesh: mesh.map(Index::new),
                        scale: (!shown).then_some([0.0; 3]),
                        ..empty_node()
                    });
                }
            }
            let mut gltf_node = json::Node {
                name: Some(names[i].0.clone()),
                ..empty_node()
            };
            let key = t.keys.get(node.fallback_key.get() as usize);
            match key.filter(|k| k.position().iter().all(|c| c.is_finite())) {
                Some(key) => {
                    let (rotation, _) = self.rest_rotation(key, i);
                    gltf_node.translation = Some(self.axes.vec(key.position()));
                    gltf_node.rotation = Some(json::scene::UnitQuaternion(rotation));
                }
                None => skipped.missing_keys += 1,
            }
            self.nodes.push(gltf_node);
        }
        for (i, c) in children.into_iter().enumerate() {
            if !c.is_empty() {
                self.nodes[i].children = Some(c);
            }
        }
        self.nodes.extend(slot_nodes);
    }

    fn terrain_notes(&mut self, t: &Tables<'_>, s: &Skipped) {
        let streams = match (t.normals.is_some(), t.uv0.is_some()) {
            (true, true) => " with Res4 normals and Res5 UVs",
            (true, false) => " with Res4 normals",
            (false, true) => " with Res5 UVs",
            (false, false) => "",
        };
        self.report.note(
            Code::ExportTerrain.code(),
            format!(
                "terrain model: each node's slots show their Res21 triangles over the Res3 positions{streams}, one primitive per primary material; secondary (blend) materials, triangle flags, Res11 and Res14 are not shown, and every table is carried in extras for the exact way back (an edited terrain does not import)"
            ),
        );
        let mut parts = Vec::new();
        if s.past_res3 > 0 {
            parts.push(format!(
                "{} triangles with a vertex index past Res3 ({} vertices) left out",
                s.past_res3,
                t.positions.len()
            ));
        }
        if s.non_finite > 0 {
            parts.push(format!(
                "{} triangles on a position that is not a finite number left out",
                s.non_finite
            ));
        }
        if s.past_res21 > 0 {
            parts.push(format!(
                "slot ranges run {} triangles past the end of Res21 ({} triangles)",
                s.past_res21,
                t.tris.len()
            ));
        }
        if s.bad_slot_refs > 0 {
            parts.push(format!(
                "{} node slot references past Res2's {} slots ignored",
                s.bad_slot_refs,
                t.slots.len()
            ));
        }
        if s.missing_keys > 0 {
            parts.push(format!(
                "{} nodes whose fallback key is past Res8 (or not a finite translation) placed at the identity",
                s.missing_keys
            ));
        }
        if s.bad_parents > 0 {
            parts.push(format!(
                "{} nodes whose parent is not an earlier node shown as roots",
                s.bad_parents
            ));
        }
        if !parts.is_empty() {
            self.report.note(
                Code::ExportTerrainSkipped.code(),
                format!(
                    "terrain tables partly out of range: {}; the tables are carried unchanged",
                    parts.join("; ")
                ),
            );
        }
    }
}

/// Majority vote of the shown triangles' winding against their vertex normals
/// (as for standard models); counter-clockwise without Res4.
fn terrain_winding(t: &Tables<'_>, shown: &[(usize, Groups)]) -> bool {
    let Some(normals) = t.normals else {
        return false;
    };
    let position = |v: u32| t.positions[v as usize].map(|c| c.get() as f64);
    let normal = |v: u32| normals[v as usize].decode().map(f64::from);
    let mut score = 0i64;
    for tri in shown.iter().flat_map(|(_, g)| g.values()).flatten() {
        let p = tri.map(position);
        let n = tri.map(normal);
        let geo = cross(sub(p[1], p[0]), sub(p[2], p[0]));
        let avg = [0, 1, 2].map(|k| n[0][k] + n[1][k] + n[2][k]);
        let d = dot(geo, avg);
        score += (d > 0.0) as i64 - (d < 0.0) as i64;
    }
    score < 0
}
