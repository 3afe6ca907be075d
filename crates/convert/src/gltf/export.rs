//! MSH -> glTF 2.0. See docs/GLTF.md for the mapping; in short:
//! - glTF nodes `0..N` are the MSH nodes in order, rest pose = fallback key;
//! - every used (node, LOD, group) slot is a child node holding the slot's mesh,
//!   shown (scale 1) for the chosen LOD/group and hidden (scale 0) otherwise;
//! - each MSH slot is a mesh, each batch a primitive, each material index a material;
//! - Res8/Res19 become one animation (keys as they are where the engine's
//!   sampling is the glTF one, else baked per frame);
//! - what glTF cannot hold is in `extras.msh` and raw accessors (extras.rs).

use super::buffer::{BufferBuilder, Layout};
use super::extras::{self as ex, wrap};
use super::json_text;
use super::names;
use crate::error::{Error, ErrorKind, Result};
use crate::frame::Frame;
use crate::options::{rotation_name, ExportOptions, GltfFormat};
use crate::report::Report;
use base64::Engine as _;
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::validation::Checked;
use json::Index;
use msh::raw::{AnimKey24, Batch20};
use msh::{resource as res, Container, ModelKind, ModelRef};
use std::collections::BTreeMap;
use std::rc::Rc;
use zerocopy::IntoBytes;

/// Tolerance on `| |q| - 1 |` under which a stored quaternion is written as it
/// decodes (the validator allows 0.00769; a margin is kept).
const UNIT_TOLERANCE: f32 = 0.005;

/// Converts MSH bytes to glTF (`.glb` or `.gltf` per `options.format`).
pub fn export(bytes: &[u8], options: &ExportOptions) -> Result<(Vec<u8>, Report)> {
    document(bytes, options)?.encode(options.format)
}

/// The document [`export`] writes, before it is written out.
pub(crate) fn document(bytes: &[u8], options: &ExportOptions) -> Result<Document> {
    options.check()?;
    // The tables are read where they lie (the validated view); only the
    // container's facts are copied out.
    let opened = msh::open(bytes, msh::Mode::Strict)?;
    let container = Container::of(&opened.archive);
    let mut exporter = Exporter::new(&container, opened.view, options);
    // The buffer holds about 1.5 bytes per input byte (floats for packed
    // values, raw tables), and the GLB is assembled in it (plus the JSON, under
    // 64 KiB for most models): sized once, no copies while it grows.
    exporter
        .buf
        .bytes
        .reserve(bytes.len().saturating_mul(2).saturating_add(64 << 10));
    // About five accessors (and views) per batch (positions, normals, UVs,
    // indices, one more stream), up to four per animated node (times,
    // translations, rotations and their own times), plus the raw tables.
    let accessors = exporter.view.batches.len() * 5 + exporter.view.nodes.len() * 4 + 16;
    exporter.buf.views.reserve(accessors);
    exporter.buf.accessors.reserve(accessors);
    exporter.run()?;
    Ok(exporter.finish())
}

struct Exporter<'m> {
    /// The container's facts (entries, layout, header); the tables come from `view`.
    container: &'m Container,
    view: ModelRef<'m>,
    options: &'m ExportOptions,
    frame: Frame,
    report: Report,
    buf: BufferBuilder,
    nodes: Vec<json::Node>,
    meshes: Vec<json::Mesh>,
    /// `extras.msh` of each mesh, typed: written by the JSON writer (a mesh's
    /// `extras` stays empty; serialising each through serde cost ~5% of an export).
    mesh_extras: Vec<ex::SlotExtras>,
    /// `extras.msh` of the first nodes (the MSH nodes, then their slot nodes),
    /// typed in the same way.
    node_extras: Vec<ex::NodeMsh>,
    /// MSH slot -> glTF mesh.
    slot_mesh: Vec<Option<u32>>,
    materials: Vec<json::Material>,
    /// (MSH material index, repeat within its slot) -> glTF material.
    material_of: BTreeMap<(u16, u16), u32>,
    animations: Vec<json::Animation>,
    roots: Vec<u32>,
    extras: ex::ModelExtras,
    cw: bool,
    vertex_covered: Vec<bool>,
    index_covered: Vec<bool>,
    /// Res6 in native order, read once (shared, so a slot's meshes can borrow
    /// it while the exporter is borrowed mutably).
    indices: Rc<[u16]>,
    /// Slots without a drawable batch (no mesh), kept in the model extras.
    extras_empty: Vec<ex::SlotExtras>,
    /// Whether Res8/Res19 are kept raw (then every node records its map start and fallback).
    anim_raw_nodes: bool,
    /// Whether Res15 reads as a second UV set (checked once).
    stream15_uv: bool,
}

impl<'m> Exporter<'m> {
    /// `container` gives the container's facts (entries, layout, header), `view` the tables.
    fn new(container: &'m Container, view: ModelRef<'m>, options: &'m ExportOptions) -> Self {
        Exporter {
            container,
            frame: Frame {
                axis: options.axis,
                rotation: options.rotation,
            },
            report: Report::default(),
            buf: BufferBuilder::default(),
            nodes: Vec::new(),
            meshes: Vec::new(),
            mesh_extras: Vec::new(),
            node_extras: Vec::new(),
            slot_mesh: vec![None; view.slots.len()],
            materials: Vec::new(),
            material_of: BTreeMap::new(),
            animations: Vec::new(),
            roots: Vec::new(),
            extras: ex::ModelExtras::default(),
            cw: false,
            vertex_covered: vec![false; view.positions.len()],
            index_covered: vec![false; view.indices.len()],
            indices: view.indices.iter().map(|i| i.get()).collect(),
            extras_empty: Vec::new(),
            anim_raw_nodes: false,
            stream15_uv: view.stream15.is_some_and(stream15_is_uv),
            view,
            options,
        }
    }

    fn run(&mut self) -> Result<()> {
        let kind = self.container.kind();
        self.extras.format = ex::FORMAT.to_string();
        self.extras.kind = match kind {
            ModelKind::Standard => "standard",
            ModelKind::LegacyNodes => "legacy_nodes",
            ModelKind::Terrain => "terrain",
        }
        .to_string();
        self.extras.options = ex::OptionsExtras {
            lod: self.options.lod,
            group: self.options.group,
            fps: self.options.fps,
            axis: self.options.axis.to_string(),
            rotation: rotation_name(self.options.rotation).to_string(),
        };
        if kind == ModelKind::Terrain {
            self.report.note(
                "export.terrain",
                "terrain model: its tables are carried in extras for the way back; no geometry is shown",
            );
        }
        if kind == ModelKind::LegacyNodes {
            self.report.note(
                "export.legacy_nodes",
                "legacy 24-byte node table: not decoded; every slot is shown under one root node",
            );
        }
        self.check_finite()?;
        self.cw = self.detect_winding();
        self.collect_materials();
        for slot in 0..self.view.slots.len() {
            self.slot_mesh[slot] = self.slot_mesh(slot)?;
        }
        match kind {
            ModelKind::Standard => {
                self.msh_nodes()?;
                self.animation()?;
            }
            _ => {
                self.flat_nodes();
                // Not decoded as a hierarchy: the animation tables travel raw.
                if self.container.has_typed(res::ANIM_KEYS)
                    || self.container.has_typed(res::ANIM_MAP)
                {
                    self.raw_animation();
                }
            }
        }
        self.raw_tables();
        self.gaps();
        self.container();
        Ok(())
    }

    /// glTF forbids NaN and infinity in accessors; the game's files have none.
    fn check_finite(&self) -> Result<()> {
        let bad = |what: &str, i: usize| {
            Error::new(
                ErrorKind::Unsupported,
                "export.non_finite",
                format!("{what} {i} is not a finite number; glTF cannot hold it (fix the value in the MSH first)"),
            )
        };
        if let Some(i) = self
            .view
            .positions
            .iter()
            .position(|p| p.iter().any(|c| !c.get().is_finite()))
        {
            return Err(bad("vertex position", i));
        }
        if let Some(i) = self
            .view
            .anim_keys
            .unwrap_or(&[])
            .iter()
            .position(|k| k.position().iter().any(|c| !c.is_finite()))
        {
            return Err(bad("animation key translation", i));
        }
        Ok(())
    }

    /// Majority vote of triangle winding against the stored vertex normals.
    fn detect_winding(&mut self) -> bool {
        let Some(normals) = self.view.normals else {
            return false;
        };
        let mut score = 0i64;
        for b in self.view.batches {
            let Some(idx) = batch_indices(&self.indices, b) else {
                continue;
            };
            let base = b.base_vertex.get() as usize;
            // Per triangle: written out rather than with `array::map`, which was
            // not inlined here (a call per component).
            let position = |v: usize| {
                let [x, y, z] = self.view.positions[v];
                [x.get() as f64, y.get() as f64, z.get() as f64]
            };
            let normal = |v: usize| {
                let [x, y, z] = normals[v].decode();
                [f64::from(x), f64::from(y), f64::from(z)]
            };
            for t in idx.chunks_exact(3) {
                let [a, b, c] = [
                    base + t[0] as usize,
                    base + t[1] as usize,
                    base + t[2] as usize,
                ];
                let p = [position(a), position(b), position(c)];
                let n = [normal(a), normal(b), normal(c)];
                let e1 = sub(p[1], p[0]);
                let e2 = sub(p[2], p[0]);
                let geo = cross(e1, e2);
                let avg = [
                    n[0][0] + n[1][0] + n[2][0],
                    n[0][1] + n[1][1] + n[2][1],
                    n[0][2] + n[1][2] + n[2][2],
                ];
                let d = dot(geo, avg);
                score += (d > 0.0) as i64 - (d < 0.0) as i64;
            }
        }
        if score < 0 {
            self.report.note(
                "export.winding_flipped",
                "triangles wind clockwise seen from their normals' side; written reversed so glTF's counter-clockwise front faces match (restored on import)",
            );
        }
        score < 0
    }

    /// One glTF material per MSH material index, and one more for each further
    /// batch of the same index within a slot (`mat47#1`): Blender merges
    /// primitives that share a material, and those batches may differ in their
    /// unknown fields.
    fn collect_materials(&mut self) {
        let mut used: std::collections::BTreeSet<(u16, u16)> = self
            .view
            .batches
            .iter()
            .map(|b| (b.material_index.get(), 0))
            .collect();
        for slot in 0..self.view.slots.len() {
            for bi in self.slot_batches(slot) {
                used.insert(self.material_key(slot, bi));
            }
        }
        for (m, repeat) in used {
            self.material_of
                .insert((m, repeat), self.materials.len() as u32);
            self.materials.push(material(m, repeat));
        }
    }

    /// The batch indices of a slot.
    fn slot_batches(&self, slot: usize) -> std::ops::Range<usize> {
        let s = self.view.slots[slot];
        let start = s.batch_start.get() as usize;
        start..start + s.batch_count.get() as usize
    }

    /// `(material index, how many earlier batches of the slot share it)`.
    fn material_key(&self, slot: usize, batch: usize) -> (u16, u16) {
        let m = self.view.batches[batch].material_index.get();
        let start = self.slot_batches(slot).start;
        let repeat = self.view.batches[start..batch]
            .iter()
            .filter(|b| b.material_index.get() == m)
            .count();
        (m, repeat as u16)
    }

    /// The mesh of one slot, `None` when it has nothing to draw.
    fn slot_mesh(&mut self, slot: usize) -> Result<Option<u32>> {
        let s = self.view.slots[slot];
        let (bs, bc) = (s.batch_start.get() as usize, s.batch_count.get() as usize);
        let mut primitives = Vec::with_capacity(bc);
        let mut batches = Vec::with_capacity(bc);
        let indices = Rc::clone(&self.indices);
        for bi in bs..bs + bc {
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
            let key = self.material_key(slot, bi);
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

    fn extras_empty_slot(&mut self, slot: ex::SlotExtras) {
        // A slot without drawable batches has no mesh (glTF meshes need a primitive);
        // its record travels in the model extras.
        self.extras_empty.push(slot);
    }

    fn primitive(
        &mut self,
        range: std::ops::RangeInclusive<usize>,
        lo: u32,
        idx: &[u16],
        material: (u16, u16),
    ) -> json::mesh::Primitive {
        use json::mesh::Semantic;
        let view = &self.view;
        let f = self.frame;
        let mut attributes = BTreeMap::new();
        let a = self.buf.push_floats_iter(
            view.positions[range.clone()]
                .iter()
                .map(|[x, y, z]| f.vec([x.get(), y.get(), z.get()])),
            Layout::attribute(ComponentType::F32, Type::Vec3, false),
        );
        attributes.insert(Checked::Valid(Semantic::Positions), a);
        if let Some(normals) = view.normals {
            let mut zero = false;
            let a = self.buf.push_float_iter(
                normals[range.clone()].iter().map(|n| {
                    let (unit, was_zero) = shown_normal(n);
                    zero |= was_zero;
                    f.vec(unit)
                }),
                Layout::attribute(ComponentType::F32, Type::Vec3, false),
            );
            attributes.insert(Checked::Valid(Semantic::Normals), a);
            if zero && !self.report.has("export.zero_normal") {
                self.report.note(
                    "export.zero_normal",
                    "zero-length vertex normals are shown as +Z (the raw bytes are kept)",
                );
            }
        }
        if let Some(uv) = view.uv0 {
            let a = self.buf.push_float_iter(
                uv[range.clone()].iter().map(|t| t.decode()),
                Layout::attribute(ComponentType::F32, Type::Vec2, false),
            );
            attributes.insert(Checked::Valid(Semantic::TexCoords(0)), a);
        }
        if let Some(s15) = view.stream15.filter(|_| self.stream15_uv) {
            let a = self.buf.push_with(
                range.clone().count(),
                Layout::attribute(ComponentType::F32, Type::Vec2, false),
                None,
                |out| out.extend_from_slice(s15[range.clone()].as_flattened()),
            );
            attributes.insert(Checked::Valid(Semantic::TexCoords(1)), a);
        }
        if let Some(s18) = view.stream18 {
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

    /// MSH nodes `0..N`, then one node per used (node, LOD, group) slot.
    fn msh_nodes(&mut self) -> Result<()> {
        let view = self.view.clone();
        let raw_names: Vec<Option<&[u8]>> =
            (0..view.nodes.len()).map(|i| view.node_name(i)).collect();
        let names = names::node_names(&raw_names);
        let keys = view.anim_keys.unwrap_or(&[]);
        let n = view.nodes.len();
        let mut children: Vec<Vec<Index<json::Node>>> = vec![Vec::new(); n];
        for (i, node) in view.nodes.iter().enumerate() {
            match node.parent() {
                Some(p) => children[p as usize].push(Index::new(i as u32)),
                None => self.roots.push(i as u32),
            }
        }
        let mut slot_nodes = Vec::new();
        let mut slot_extras = Vec::new();
        // Node `i` is MSH node `i`, so its typed extras are `node_extras[i]`.
        debug_assert!(self.nodes.is_empty() && self.node_extras.is_empty());
        for (i, node) in view.nodes.iter().enumerate() {
            let key = keys[node.fallback_key.get() as usize];
            let (rotation, rest_quat) = self.rest_rotation(&key, i);
            let mut extras = ex::NodeExtras {
                node: i as u32,
                hdr0: node.hdr0.get(),
                name_raw: names[i].1.then(|| b64(raw_names[i].unwrap_or(&[]))),
                unnamed: raw_names[i].is_none() && view.names.is_some(),
                rest_quat,
                anim: None,
            };
            if view.names.is_none() {
                extras.unnamed = false;
            }
            for lod in 0..3u8 {
                for group in 0..5u8 {
                    let Some(slot) = node.slot(lod as usize, group as usize) else {
                        continue;
                    };
                    let shown = lod == self.options.lod && group == self.options.group;
                    let index = n + slot_nodes.len();
                    children[i].push(Index::new(index as u32));
                    slot_nodes.push(json::Node {
                        name: Some(names::slot_node_name(&names[i].0, lod, group)),
                        mesh: self.slot_mesh[slot as usize].map(Index::new),
                        scale: (!shown).then_some([0.0; 3]),
                        ..empty_node()
                    });
                    slot_extras.push(ex::NodeMsh::Slot(ex::SlotNodeExtras {
                        owner: i as u32,
                        lod,
                        group,
                        shown,
                        slot: slot as u32,
                    }));
                }
            }
            self.nodes.push(json::Node {
                name: Some(names[i].0.clone()),
                translation: Some(self.frame.vec(key.position())),
                rotation: Some(json::scene::UnitQuaternion(rotation)),
                ..empty_node()
            });
            self.node_extras.push(ex::NodeMsh::Node(extras));
        }
        for (i, c) in children.into_iter().enumerate() {
            if !c.is_empty() {
                self.nodes[i].children = Some(c);
            }
        }
        self.nodes.extend(slot_nodes);
        self.node_extras.extend(slot_extras);
        Ok(())
    }

    /// Legacy and terrain models: one root node, every slot's mesh shown under it.
    fn flat_nodes(&mut self) {
        let meshes: Vec<(usize, u32)> = self
            .slot_mesh
            .iter()
            .enumerate()
            .filter_map(|(slot, m)| m.map(|m| (slot, m)))
            .collect();
        let children: Vec<Index<json::Node>> = (1..=meshes.len() as u32).map(Index::new).collect();
        self.nodes.push(json::Node {
            name: Some(self.options.name.clone()),
            children: (!children.is_empty()).then_some(children),
            ..empty_node()
        });
        for (slot, mesh) in meshes {
            self.nodes.push(json::Node {
                name: Some(format!("slot{slot}")),
                mesh: Some(Index::new(mesh)),
                ..empty_node()
            });
        }
        self.roots = vec![0];
    }

    /// The rest rotation as glTF `[x, y, z, w]`, and the raw stored value when
    /// the glTF value cannot give it back.
    fn rest_rotation(&mut self, key: &AnimKey24, node: usize) -> ([f32; 4], Option<[i16; 4]>) {
        let raw = key.quat_raw();
        if quat_exact(raw) {
            return (self.frame.quat(raw).map(decode_component), None);
        }
        let q = raw.map(|c| c as f32);
        let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
        let unit = if len > 0.0 {
            q.map(|c| c / len)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        };
        self.report.note(
            "export.degenerate_quaternion",
            format!(
                "node {node}: rest rotation {raw:?} is {} and is shown {}; the stored value is kept for the way back",
                if len == 0.0 { "zero" } else { "not unit length" },
                if len == 0.0 { "as identity" } else { "normalised" }
            ),
        );
        (self.frame.quat(unit), Some(raw))
    }

    /// One animation with translation and rotation channels per animated node.
    fn animation(&mut self) -> Result<()> {
        let view = self.view.clone();
        let view = &view;
        let keys = view.anim_keys.unwrap_or(&[]);
        let map = view.anim_map.unwrap_or(&[]);
        let fc = view.frame_count;
        let tracks = msh::canonical_tracks(view.nodes);
        let mut exact = tracks.is_some();
        let animated: Vec<usize> = (0..view.nodes.len())
            .filter(|&i| view.nodes[i].map_start().is_some())
            .collect();
        // Canonical layout: map blocks back to back, frame_count = last time + 1, static nodes one key at 0.
        if let Some(tracks) = &tracks {
            let mut max_end = 0f32;
            for (i, &(start, end)) in tracks.iter().enumerate() {
                let animated_node = view.nodes[i].map_start().is_some();
                if !animated_node && (end != start || keys[start].time() != 0.0) {
                    exact = false;
                }
                if animated_node {
                    max_end = max_end.max(keys[end].time());
                }
            }
            let canonical_frames = if animated.is_empty() {
                1
            } else {
                (max_end as u64).saturating_add(1)
            };
            if self.container.has(res::ANIM_MAP) && fc as u64 != canonical_frames {
                exact = false;
            }
            for (k, &i) in animated.iter().enumerate() {
                if view.nodes[i].anim_map_start.get() as u64 != k as u64 * fc as u64 {
                    exact = false;
                }
            }
            if map.len() as u64 != animated.len() as u64 * fc as u64 {
                exact = false;
            }
        }
        if animated.is_empty() {
            if !exact {
                self.raw_animation();
            }
            return Ok(());
        }
        let fps = self.options.fps;
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for &i in &animated {
            let node = &view.nodes[i];
            let direct = tracks.as_ref().and_then(|t| direct_track(view, i, t[i]));
            let Samples {
                times,
                translations,
                rotations,
                rotation_times,
            } = match direct {
                Some((start, end)) => {
                    let track = &keys[start..=end];
                    let times: Vec<[f32; 1]> = track.iter().map(|k| [k.time() / fps]).collect();
                    let translations: Vec<[f32; 3]> =
                        track.iter().map(|k| self.frame.vec(k.position())).collect();
                    let rot = if track.iter().all(|k| quat_exact(k.quat_raw())) {
                        let raw: Vec<[i16; 4]> = track
                            .iter()
                            .map(|k| self.frame.quat(k.quat_raw()))
                            .collect();
                        Rotations::Short(raw)
                    } else {
                        exact = false;
                        self.report.note(
                            "export.degenerate_quaternion",
                            format!("node {i}: some rotation keys are not unit length; written normalised"),
                        );
                        Rotations::Float(
                            track
                                .iter()
                                .map(|k| self.frame.quat(unit_xyzw(k.quat_wxyz())))
                                .collect(),
                        )
                    };
                    let samples = Samples {
                        times,
                        translations,
                        rotations: rot,
                        rotation_times: None,
                    };
                    match self.densify(i, node, &keys[start..=end], samples)? {
                        (samples, true) => {
                            exact = false;
                            samples
                        }
                        (samples, false) => samples,
                    }
                }
                None => {
                    exact = false;
                    self.report.note(
                        "export.animation_baked",
                        format!(
                            "node {i}: its keys and frame map are not the canonical layout the glTF timeline can show as is; sampled as the engine does at every frame 0..={fc}"
                        ),
                    );
                    self.bake(i, node)?
                }
            };
            let input = self.buf.push_floats(&times, Layout::float(Type::Scalar));
            let r_input = match &rotation_times {
                Some(t) => self.buf.push_floats(t, Layout::float(Type::Scalar)),
                None => input,
            };
            let t_out = self
                .buf
                .push_float_iter(translations.iter().copied(), Layout::float(Type::Vec3));
            let r_out = match &rotations {
                Rotations::Short(raw) => {
                    let mut l = Layout::raw(ComponentType::I16, Type::Vec4);
                    l.normalized = true;
                    self.buf.push_with(raw.len(), l, None, |out| {
                        out.extend(raw.as_flattened().iter().flat_map(|c| c.to_le_bytes()))
                    })
                }
                Rotations::Float(q) => self
                    .buf
                    .push_float_iter(q.iter().copied(), Layout::float(Type::Vec4)),
            };
            for (output, input, path) in [
                (t_out, input, json::animation::Property::Translation),
                (r_out, r_input, json::animation::Property::Rotation),
            ] {
                samplers.push(json::animation::Sampler {
                    extensions: None,
                    extras: Default::default(),
                    input,
                    interpolation: Checked::Valid(json::animation::Interpolation::Linear),
                    output,
                });
                channels.push(json::animation::Channel {
                    sampler: Index::new(samplers.len() as u32 - 1),
                    target: json::animation::Target {
                        extensions: None,
                        extras: Default::default(),
                        node: Index::new(i as u32),
                        path: Checked::Valid(path),
                    },
                    extensions: None,
                    extras: Default::default(),
                });
            }
        }
        self.animations.push(json::Animation {
            extensions: None,
            extras: Default::default(),
            channels,
            name: Some("msh".to_string()),
            samplers,
        });
        if !exact {
            self.raw_animation();
        }
        Ok(())
    }

    /// Tools that interpolate a quaternion's components linearly (Blender keys
    /// them as four curves: a normalised lerp, not a slerp) drift from the engine
    /// between keys that are far apart in frames and in angle. Where that drift
    /// would exceed a quarter of an i16 step at some integer frame, the rotation
    /// channel gets a key at every frame of that segment, holding the engine's
    /// value, so Blender's per-frame resampling reproduces the engine. Returns
    /// whether anything was added (the stored keys then travel raw).
    fn densify(
        &mut self,
        i: usize,
        node: &msh::raw::Node38,
        track: &[AnimKey24],
        samples: Samples,
    ) -> Result<(Samples, bool)> {
        let needs = |k0: &AnimKey24, k1: &AnimKey24| -> bool {
            let (q0, q1) = (k0.quat_wxyz(), k1.quat_wxyz());
            let (t0, t1) = (k0.time() as u32, k1.time() as u32);
            let sign = if q0.iter().zip(&q1).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                -1.0
            } else {
                1.0
            };
            let slerp = msh::anim::Slerp::new(q0, q1);
            (t0 + 1..t1).any(|f| {
                let a = (f - t0) as f32 / (t1 - t0) as f32;
                let s = slerp.at(a).map(f64::from);
                let n: [f64; 4] = std::array::from_fn(|c| {
                    q0[c] as f64 + (sign * q1[c] as f64 - q0[c] as f64) * a as f64
                });
                let (ls, ln) = (
                    s.iter().map(|c| c * c).sum::<f64>().sqrt(),
                    n.iter().map(|c| c * c).sum::<f64>().sqrt(),
                );
                let d = |sg: f64| {
                    (0..4)
                        .map(|c| (s[c] / ls - sg * n[c] / ln).abs())
                        .fold(0.0, f64::max)
                };
                d(1.0).min(d(-1.0)) > 0.25 / 32767.0
            })
        };
        let dense: Vec<bool> = track.windows(2).map(|w| needs(&w[0], &w[1])).collect();
        if !dense.iter().any(|&d| d) {
            return Ok((samples, false));
        }
        let tracks = msh::pose::tracks(&self.view);
        let fps = self.options.fps;
        // One sample per frame of the track's span at most.
        let span = sample_capacity(track.last().map_or(0.0, |k| k.time()) as u64 + 1);
        let mut times = Vec::with_capacity(span);
        let mut rotations: Vec<[f32; 4]> = Vec::with_capacity(span);
        let mut push = |t: u32, q: [f32; 4], rotations: &mut Vec<[f32; 4]>| {
            let mut q = q;
            if let Some(prev) = rotations.last() {
                if prev.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                    q = q.map(|c| -c);
                }
            }
            times.push([t as f32 / fps]);
            rotations.push(q);
        };
        for (k, key) in track.iter().enumerate() {
            push(
                key.time() as u32,
                self.frame.quat(shown_quat(key.quat_wxyz())),
                &mut rotations,
            );
            if k + 1 < track.len() && dense[k] {
                for f in (key.time() as u32).saturating_add(1)..track[k + 1].time() as u32 {
                    let pose =
                        msh::anim::sample(&tracks, i, node, f as f32).map_err(msh::Error::from)?;
                    push(
                        f,
                        self.frame.quat(shown_quat(pose.rotation)),
                        &mut rotations,
                    );
                }
            }
        }
        Ok((
            Samples {
                rotations: Rotations::Float(rotations),
                rotation_times: Some(times),
                ..samples
            },
            true,
        ))
    }

    /// Keeps Res8 and Res19 raw, with every node's map start and fallback key.
    fn raw_animation(&mut self) {
        let keys = self.view.anim_keys.unwrap_or(&[]);
        if !keys.is_empty() {
            self.extras.raw.keys = Some(self.buf.push_raw(
                keys.as_bytes(),
                keys.len() * 3,
                ComponentType::U16,
                Type::Vec4,
            ));
        }
        let map = self.view.anim_map.unwrap_or(&[]);
        if !map.is_empty() {
            self.extras.raw.map = Some(self.buf.push_raw(
                map.as_bytes(),
                map.len(),
                ComponentType::U16,
                Type::Scalar,
            ));
        }
        self.anim_raw_nodes = true;
        self.extras.keep_frame_count = true;
    }

    /// Samples the engine at every frame `0..=frame_count`: the pose a viewer
    /// shows at each integer frame is the engine's.
    fn bake(&mut self, i: usize, node: &msh::raw::Node38) -> Result<Samples> {
        let tracks = msh::pose::tracks(&self.view);
        let fc = self.view.frame_count;
        let frames = sample_capacity(fc as u64 + 1);
        let mut times = Vec::with_capacity(frames);
        let mut translations = Vec::with_capacity(frames);
        let mut rotations: Vec<[f32; 4]> = Vec::with_capacity(frames);
        for f in 0..=fc {
            let pose = msh::anim::sample(&tracks, i, node, f as f32).map_err(msh::Error::from)?;
            // The engine's value as sampled (its tiny departures from unit length
            // scale children exactly as in the game); only a degenerate one is normalised.
            let mut q = self.frame.quat(shown_quat(pose.rotation));
            if let Some(prev) = rotations.last() {
                if prev.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                    q = q.map(|c| -c);
                }
            }
            times.push([f as f32 / self.options.fps]);
            translations.push(self.frame.vec(pose.translation));
            rotations.push(q);
        }
        Ok(Samples {
            times,
            translations,
            rotation_times: None,
            rotations: Rotations::Float(rotations),
        })
    }

    /// Raw accessors for tables the glTF content cannot give back exactly.
    fn raw_tables(&mut self) {
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
    fn gaps(&mut self) {
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

    /// Entry order, names, attributes, layout and raw payloads.
    fn container(&mut self) {
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
        self.extras.winding = if self.cw { "cw" } else { "ccw" }.to_string();
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
    fn layout_canonical(&self) -> bool {
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

    /// The glTF document: its JSON tree, the typed mesh extras and the binary buffer.
    fn finish(mut self) -> Document {
        if self.roots.is_empty() {
            // A model without nodes still gets a scene root (readers expect one); it
            // comes after the MSH nodes, so node indices keep their meaning.
            self.roots.push(self.nodes.len() as u32);
            self.nodes.push(json::Node {
                name: Some(self.options.name.clone()),
                ..empty_node()
            });
        }
        let mut extras = self.extras;
        let buffer_len = self.buf.bytes.len();
        let mut root = json::Root {
            asset: json::Asset {
                copyright: None,
                extensions: None,
                extras: Default::default(),
                generator: Some(format!("mshconv {}", env!("CARGO_PKG_VERSION"))),
                min_version: None,
                version: "2.0".to_string(),
            },
            accessors: self.buf.accessors,
            buffer_views: self.buf.views,
            nodes: self.nodes,
            meshes: self.meshes,
            materials: self.materials,
            animations: self.animations,
            ..Default::default()
        };
        extras.format = ex::FORMAT.to_string();
        extras.accessors = root.accessors.len() as u32;
        extras.buffer_length = (buffer_len as u64).div_ceil(4) * 4;
        root.scenes.push(json::Scene {
            extensions: None,
            extras: wrap(&extras),
            name: Some(self.options.name.clone()),
            nodes: self.roots.iter().map(|&r| Index::new(r)).collect(),
        });
        root.scene = Some(Index::new(0));
        let mut bin = self.buf.bytes;
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        if buffer_len > 0 {
            root.buffers.push(json::Buffer {
                byte_length: json::validation::USize64::from(bin.len()),
                name: None,
                uri: match self.options.format {
                    GltfFormat::Glb => None,
                    GltfFormat::Gltf => Some(format!(
                        "data:application/octet-stream;base64,{}",
                        b64(&bin)
                    )),
                },
                extensions: None,
                extras: Default::default(),
            });
        }
        Document {
            root,
            mesh_extras: self.mesh_extras,
            node_extras: self.node_extras,
            bin: (buffer_len > 0).then_some(bin),
            report: self.report,
        }
    }
}

/// An exported document before it is written out.
pub(crate) struct Document {
    /// The JSON tree (meshes and the MSH nodes without their `msh` extras:
    /// those are typed beside it).
    pub root: json::Root,
    /// `extras.msh` of each mesh, in mesh order.
    pub mesh_extras: Vec<ex::SlotExtras>,
    /// `extras.msh` of the first nodes, in node order.
    pub node_extras: Vec<ex::NodeMsh>,
    /// Buffer 0, 4-byte aligned, when there is one.
    pub bin: Option<Vec<u8>>,
    /// What the export noticed.
    pub report: Report,
}

impl Document {
    /// The extras kept typed, for the JSON writer.
    pub fn typed(&self) -> json_text::Typed<'_> {
        json_text::Typed {
            meshes: &self.mesh_extras,
            nodes: &self.node_extras,
        }
    }

    /// The `.gltf` JSON or the `.glb` file.
    fn encode(self, format: GltfFormat) -> Result<(Vec<u8>, Report)> {
        // A GLB's JSON is written after room for the file and chunk headers.
        let is_glb = format == GltfFormat::Glb;
        let mut text = if is_glb {
            vec![0; GLB_HEAD]
        } else {
            Vec::new()
        };
        json_text::write(&self.root, self.typed(), &mut text).map_err(|e| {
            Error::new(
                ErrorKind::Output,
                "export.json",
                format!("could not write the glTF JSON: {e}"),
            )
        })?;
        let out = if is_glb { glb(text, self.bin)? } else { text };
        Ok((out, self.report))
    }
}

/// The GLB file header and the JSON chunk's header, before the JSON.
const GLB_HEAD: usize = 20;

/// The GLB: header, JSON chunk (padded with spaces), BIN chunk (already
/// 4-byte aligned). `head` is the JSON after [`GLB_HEAD`] bytes of room for
/// the headers. Assembled in the binary buffer's own allocation, which has
/// room for it as a rule (the bytes move once; no second buffer as large).
fn glb(mut head: Vec<u8>, bin: Option<Vec<u8>>) -> Result<Vec<u8>> {
    let json_len = (head.len() - GLB_HEAD).div_ceil(4) * 4;
    let bin_len = bin.as_ref().map_or(0, Vec::len);
    let total = GLB_HEAD + json_len + if bin.is_some() { 8 + bin_len } else { 0 };
    let too_large = |what: usize| {
        u32::try_from(what).map_err(|_| {
            Error::new(
                ErrorKind::Output,
                "export.glb",
                format!("the GLB would be {total} bytes, more than a GLB can hold (4 GiB)"),
            )
        })
    };
    head[0..4].copy_from_slice(b"glTF");
    head[4..8].copy_from_slice(&2u32.to_le_bytes());
    head[8..12].copy_from_slice(&too_large(total)?.to_le_bytes());
    head[12..16].copy_from_slice(&too_large(json_len)?.to_le_bytes());
    head[16..20].copy_from_slice(b"JSON");
    head.resize(GLB_HEAD + json_len, b' ');
    let Some(mut bin) = bin else {
        return Ok(head);
    };
    head.extend_from_slice(&too_large(bin_len)?.to_le_bytes());
    head.extend_from_slice(b"BIN\0");
    if bin.capacity() < total {
        // No room: the binary chunk is appended to the head (one copy).
        head.reserve_exact(bin_len);
        head.extend_from_slice(&bin);
        return Ok(head);
    }
    // The bytes move up by the head's length (one memmove), the head goes in front.
    bin.resize(bin_len + head.len(), 0);
    bin.copy_within(0..bin_len, head.len());
    bin[..head.len()].copy_from_slice(&head);
    Ok(bin)
}

/// Rotation outputs: normalized SHORT (the Res8 encoding itself) or floats.
enum Rotations {
    Short(Vec<[i16; 4]>),
    Float(Vec<[f32; 4]>),
}

/// The keys of one node's two channels.
struct Samples {
    times: Vec<[f32; 1]>,
    translations: Vec<[f32; 3]>,
    rotations: Rotations,
    /// Times of the rotation keys when they differ from `times` (densified segments).
    rotation_times: Option<Vec<[f32; 1]>>,
}

/// The track `start..=end` of animated node `i` when the engine's sampling of it
/// is exactly the glTF LINEAR/slerp playback of its keys at integer frames:
/// whole-number key times from 0, canonical map values over the whole block.
fn direct_track(
    view: &ModelRef<'_>,
    i: usize,
    (start, end): (usize, usize),
) -> Option<(usize, usize)> {
    let keys = view.anim_keys?;
    let map = view.anim_map?;
    let track = keys.get(start..=end)?;
    if track.len() < 2 || track[0].time() != 0.0 || track.iter().any(|k| k.time().fract() != 0.0) {
        return None;
    }
    let times: Vec<f32> = keys.iter().map(|k| k.time()).collect();
    let fc = view.frame_count;
    if (fc as f32) < track[track.len() - 1].time() + 1.0 {
        return None;
    }
    let ms = view.nodes[i].anim_map_start.get() as usize;
    let block = map.get(ms..ms + fc as usize)?;
    block
        .iter()
        .enumerate()
        .all(|(f, w)| w.get() == msh::canonical_map_value(&times, start, end, f as u32))
        .then_some((start, end))
}

/// The unit normal the exporter shows for a packed normal (game frame), and
/// whether it was zero (then +Z). The importer compares with it to tell an
/// unedited normal (raw bytes kept) from an edited one.
pub(crate) fn shown_normal(n: &msh::raw::PackedNormal) -> ([f32; 3], bool) {
    let [x, y, z] = n.decode();
    let d = [f64::from(x), f64::from(y), f64::from(z)];
    let len = dot(d, d).sqrt();
    if len > 1e-9 {
        let unit = |c: f64| (c / len) as f32;
        ([unit(d[0]), unit(d[1]), unit(d[2])], false)
    } else {
        ([0.0, 0.0, 1.0], true)
    }
}

/// The room reserved for `n` animation samples: the count comes from the file
/// (key times, frame count), so at most 65,536 are reserved ahead; beyond that
/// the vectors grow as samples are actually made.
fn sample_capacity(n: u64) -> usize {
    n.min(1 << 16) as usize
}

/// The indices of a batch, if in range.
fn batch_indices<'a>(indices: &'a [u16], b: &Batch20) -> Option<&'a [u16]> {
    let start = b.index_start.get() as usize;
    indices.get(start..start.checked_add(b.index_count.get() as usize)?)
}

/// Stored quaternion components decode to a value the glTF side holds exactly
/// (close enough to unit length, and no -32768, which normalized SHORT cannot hold).
fn quat_exact(raw: [i16; 4]) -> bool {
    if raw.contains(&i16::MIN) {
        return false;
    }
    let len = raw
        .iter()
        .map(|&c| decode_component(c) * decode_component(c))
        .sum::<f32>()
        .sqrt();
    (len - 1.0).abs() < UNIT_TOLERANCE
}

/// `s * (1/32767)` in single precision, the engine's decoding.
fn decode_component(s: i16) -> f32 {
    s as f32 * (1.0f32 / 32767.0f32)
}

/// An engine quaternion `[w, x, y, z]` as glTF `[x, y, z, w]`: as it is when
/// within the unit tolerance (its tiny departures scale children exactly as in
/// the game), normalised otherwise (identity when zero).
fn shown_quat(q: [f32; 4]) -> [f32; 4] {
    let [w, x, y, z] = q;
    let len = (w * w + x * x + y * y + z * z).sqrt();
    if (len - 1.0).abs() < UNIT_TOLERANCE {
        [x, y, z, w]
    } else {
        unit_xyzw(q)
    }
}

/// An engine quaternion `[w, x, y, z]` as a unit `[x, y, z, w]` (identity when zero).
fn unit_xyzw(q: [f32; 4]) -> [f32; 4] {
    let [w, x, y, z] = q;
    let len = (w * w + x * x + y * y + z * z).sqrt();
    if len > 0.0 && len.is_finite() {
        [x / len, y / len, z / len, w / len]
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Res15 shown as TEXCOORD_1 when every record is two finite floats.
fn stream15_is_uv(s: &[[u8; 8]]) -> bool {
    s.iter().all(|r| {
        let u = f32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        let v = f32::from_le_bytes([r[4], r[5], r[6], r[7]]);
        u.is_finite() && v.is_finite()
    })
}

fn material(index: u16, repeat: u16) -> json::Material {
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

fn empty_node() -> json::Node {
    json::Node {
        camera: None,
        children: None,
        extensions: None,
        extras: Default::default(),
        matrix: None,
        mesh: None,
        name: None,
        rotation: None,
        scale: None,
        translation: None,
        skin: None,
        weights: None,
    }
}

/// Runs of `false` as `(start, count)`.
fn runs(covered: &[bool]) -> Vec<(usize, usize)> {
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

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
