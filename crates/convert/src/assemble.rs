//! Scene description -> canonical MSH model: the builder every importer shares.
//!
//! Nodes are ordered parents first (keeping the given order where it already
//! is), each node's LOD/group geometry becomes a slot, each batch one or more
//! MSH batches (split so indices fit u16), vertex data is quantised as
//! FORMAT.md says, Res7 and all bounds are derived, animation samples are
//! reduced to the keys linear interpolation needs and laid out canonically,
//! and the entries get the canonical order. What MSH cannot hold is a typed
//! error that says what to do.

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::reduce::{track, Reduced};
use crate::report::Report;
use crate::scene::{SceneBatch, SceneModel, SceneNode};
use msh::derive::{self, Track};
use msh::raw::{Batch20, Node38, PackedNormal, PackedUv, Slot68, NONE};
use msh::Model;
use zerocopy::little_endian::{F32, U16, U32};
use zerocopy::FromZeros;

/// Options of the assembler.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembleOptions {
    /// Largest translation difference (model units) key reduction may leave
    /// between a dropped sample and the line through the kept keys.
    pub translation_tolerance: f32,
    /// Largest quaternion component difference key reduction may leave
    /// (default: half an i16 quantisation step, 0.5 / 32767).
    pub rotation_tolerance: f32,
}

impl Default for AssembleOptions {
    fn default() -> Self {
        AssembleOptions {
            translation_tolerance: 1e-5,
            rotation_tolerance: 0.5 / 32767.0,
        }
    }
}

/// Most triangles a model can hold: Res7 ids and slot ranges are u16.
pub const MAX_TRIANGLES: usize = 0xFFFF;
/// Most nodes: parent indices are u16 with 0xFFFF meaning none.
pub const MAX_NODES: usize = 0xFFFF;

/// Builds a canonical MSH model from a scene description.
pub fn assemble(scene: &SceneModel, options: &AssembleOptions) -> Result<(Model, Report)> {
    let mut report = Report::default();
    let order = parents_first(scene, &mut report)?;
    let mut new_index = vec![0usize; scene.nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let mut b = Builder::new(scene, &mut report);
    for &old in &order {
        let node = &scene.nodes[old];
        let parent = node.parent.map_or(NONE, |p| new_index[p] as u16);
        b.node(node, parent)?;
    }
    b.notes();
    b.finish_streams();
    let mut model = b.model;
    let mut reduced = Reduced::default();
    let tracks: Vec<Track> = order
        .iter()
        .map(|&old| track(&scene.nodes[old], options, &mut reduced))
        .collect();
    reduced.report(options, &mut report);
    derive::write_animation(&mut model, &tracks).map_err(|e| {
        Error::new(
            ErrorKind::Unsupported,
            e.code(),
            format!("{e}; shorten the animation or animate fewer nodes"),
        )
    })?;
    model.header = header(&model);
    model.canonicalize_entries();
    Ok((model, report))
}

/// Node order with every parent before its children; a valid order is kept.
fn parents_first(scene: &SceneModel, report: &mut Report) -> Result<Vec<usize>> {
    let n = scene.nodes.len();
    if n > MAX_NODES {
        return Err(Error::new(
            ErrorKind::Unsupported,
            Code::ModelTooManyNodes.code(),
            format!("{n} nodes; an MSH model holds at most {MAX_NODES}: join objects first"),
        ));
    }
    let mut waiting: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut emitted = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for (i, node) in scene.nodes.iter().enumerate() {
        match node.parent {
            Some(p) if p >= n => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    Code::SceneBadParent.code(),
                    format!("node {i}'s parent {p} does not exist"),
                ))
            }
            Some(p) if !emitted[p] => waiting[p].push(i),
            _ => {
                let mut stack = vec![i];
                while let Some(j) = stack.pop() {
                    emitted[j] = true;
                    order.push(j);
                    stack.extend(std::mem::take(&mut waiting[j]).into_iter().rev());
                }
            }
        }
    }
    if order.len() != n {
        let stuck = (0..n).find(|&i| !emitted[i]).unwrap_or(0);
        return Err(Error::new(
            ErrorKind::InvalidInput,
            Code::SceneParentCycle.code(),
            format!("node {stuck} is part of a parent cycle: the hierarchy must be a tree"),
        ));
    }
    if order.iter().enumerate().any(|(k, &i)| k != i) {
        report.note(
            Code::ImportNodesReordered.code(),
            "nodes were reordered so that every parent comes before its children",
        );
    }
    Ok(order)
}

struct Builder<'s, 'r> {
    scene: &'s SceneModel,
    report: &'r mut Report,
    model: Model,
    with_uv1: bool,
    with_colors: bool,
    uv1: Vec<[u8; 8]>,
    colors: Vec<[u8; 4]>,
    computed_normals: usize,
    /// Vertex normals that were NaN or infinite, computed from the faces.
    unknown_normals: usize,
    zero_uvs: usize,
    /// Batches split to fit u16 indices, and the batches they became.
    split: (usize, usize),
    /// UV pieces moved into range by whole repeats, and those too wide to.
    uv_shifted: usize,
    uv_unfit: usize,
}

impl<'s, 'r> Builder<'s, 'r> {
    fn new(scene: &'s SceneModel, report: &'r mut Report) -> Self {
        let batches = || {
            scene
                .nodes
                .iter()
                .flat_map(|n| n.slots.iter().flat_map(|s| s.batches.iter()))
        };
        Builder {
            with_uv1: batches().any(|b| b.uv1.is_some()),
            with_colors: batches().any(|b| b.colors.is_some()),
            scene,
            report,
            model: Model {
                frame_count: 1,
                ..Model::default()
            },
            uv1: Vec::new(),
            colors: Vec::new(),
            computed_normals: 0,
            unknown_normals: 0,
            zero_uvs: 0,
            split: (0, 0),
            uv_shifted: 0,
            uv_unfit: 0,
        }
    }

    fn node(&mut self, node: &SceneNode, parent: u16) -> Result<()> {
        let mut rec = Node38::new_zeroed();
        rec.hdr0 = U16::new(node.hdr0);
        rec.parent = U16::new(parent);
        rec.anim_map_start = U16::new(NONE);
        rec.slots = [U16::new(NONE); 15];
        let mut seen = [false; 15];
        for slot in &node.slots {
            if slot.lod > 2 || slot.group > 4 {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    Code::SceneBadSlot.code(),
                    format!(
                        "LOD {} group {} does not exist (LOD 0-2, group 0-4)",
                        slot.lod, slot.group
                    ),
                ));
            }
            let k = slot.lod as usize * 5 + slot.group as usize;
            if seen[k] {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    Code::SceneDuplicateSlot.code(),
                    format!(
                        "a node has two pieces for LOD {} group {}",
                        slot.lod, slot.group
                    ),
                ));
            }
            seen[k] = true;
            if let Some(index) = self.slot(&slot.batches, slot.opaque)? {
                rec.slots[k] = U16::new(index);
            }
        }
        self.model.nodes.push(rec);
        self.model
            .names
            .push(node.name.clone().filter(|n| !n.is_empty()));
        Ok(())
    }

    /// Appends one slot; `None` when it has no triangle.
    fn slot(&mut self, batches: &[SceneBatch], opaque: [u32; 5]) -> Result<Option<u16>> {
        let m = &mut self.model;
        let tri_start = m.tri_descs.len();
        let batch_start = m.batches.len();
        let mut slot_tris: Vec<[u32; 3]> = Vec::new();
        for batch in batches {
            self.batch(batch, &mut slot_tris)?;
        }
        let m = &mut self.model;
        if slot_tris.is_empty() {
            m.batches.truncate(batch_start);
            return Ok(None);
        }
        if tri_start + slot_tris.len() > MAX_TRIANGLES {
            return Err(Error::new(
                ErrorKind::Unsupported,
                Code::ModelTooManyTriangles.code(),
                format!(
                    "the model has more than {MAX_TRIANGLES} triangles ({} so far); MSH models hold at most {MAX_TRIANGLES}: decimate it or split it into several models",
                    tri_start + slot_tris.len()
                ),
            ));
        }
        let batch_count = m.batches.len() - batch_start;
        if m.batches.len() > 0xFFFF || m.slots.len() >= 0xFFFF {
            return Err(Error::new(
                ErrorKind::Unsupported,
                Code::ModelTooManyBatches.code(),
                "more than 65535 batches or slots: use fewer materials or pieces",
            ));
        }
        m.tri_descs
            .extend(derive::tri_descs(&m.positions, &slot_tris, tri_start));
        let mut rec = Slot68::new_zeroed();
        rec.tri_start = U16::new(tri_start as u16);
        rec.tri_count = U16::new(slot_tris.len() as u16);
        rec.batch_start = U16::new(batch_start as u16);
        rec.batch_count = U16::new(batch_count as u16);
        let points = slot_tris
            .iter()
            .flatten()
            .map(|&v| m.positions[v as usize].map(|c| c.get()));
        derive::set_slot_bounds(&mut rec, &derive::bounds(points));
        rec.opaque = opaque.map(U32::new);
        m.slots.push(rec);
        Ok(Some((m.slots.len() - 1) as u16))
    }

    /// Appends one scene batch as one or more MSH batches (indices fit u16).
    fn batch(&mut self, batch: &SceneBatch, slot_tris: &mut Vec<[u32; 3]>) -> Result<()> {
        let n = batch.positions.len();
        let check = |what: &str, len: Option<usize>| -> Result<()> {
            match len {
                Some(l) if l != n => Err(Error::new(
                    ErrorKind::InvalidInput,
                    Code::SceneAttributeLength.code(),
                    format!("a batch has {n} positions but {l} {what}"),
                )),
                _ => Ok(()),
            }
        };
        check("normals", batch.normals.as_ref().map(Vec::len))?;
        check("UVs", batch.uv0.as_ref().map(Vec::len))?;
        check("UV1s", batch.uv1.as_ref().map(Vec::len))?;
        check("colours", batch.colors.as_ref().map(Vec::len))?;
        if let Some(t) = batch
            .triangles
            .iter()
            .find(|t| t.iter().any(|&v| v as usize >= n))
        {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                Code::SceneBadIndex.code(),
                format!("triangle {t:?} refers to a vertex past the batch's {n} vertices"),
            ));
        }
        if batch.positions.iter().flatten().any(|c| !c.is_finite()) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                Code::SceneNonFinite.code(),
                "a vertex position is not a finite number",
            ));
        }
        let normals = match &batch.normals {
            Some(n) if n.iter().flatten().all(|c| c.is_finite()) => n.clone(),
            // Normals the file does not know (NaN or infinity): from the faces.
            Some(n) => {
                let faces = vertex_normals(&batch.positions, &batch.triangles);
                let finite = |v: &[f32; 3]| v.iter().all(|c| c.is_finite());
                self.unknown_normals += n.iter().filter(|v| !finite(v)).count();
                n.iter()
                    .zip(faces)
                    .map(|(given, face)| if finite(given) { *given } else { face })
                    .collect()
            }
            None => {
                self.computed_normals += 1;
                vertex_normals(&batch.positions, &batch.triangles)
            }
        };
        if batch.uv0.is_none() {
            self.zero_uvs += 1;
        }
        let fitted = batch
            .uv0
            .as_deref()
            .and_then(|uv| crate::uv_range::fit(uv, &batch.triangles));
        if let Some(f) = &fitted {
            self.uv_shifted += f.shifted;
            self.uv_unfit += f.unfit;
        }
        let uv0 = fitted
            .as_ref()
            .map(|f| f.uv.as_slice())
            .or(batch.uv0.as_deref());
        // Chunks whose vertices fit u16 indices (0..=65535 from base_vertex) and
        // whose index count fits Batch20's u16. A mesh of at most 65536 vertices
        // keeps them once, in order, and its chunks share them.
        const MAX_BATCH_TRIANGLES: usize = 0xFFFF / 3;
        let groups: Vec<VertexGroup> = if n <= 0x10000 {
            let chunks = batch
                .triangles
                .chunks(MAX_BATCH_TRIANGLES)
                .map(<[_]>::to_vec)
                .collect();
            vec![((0..n as u32).collect(), chunks)]
        } else {
            let mut groups = Vec::new();
            let mut current: Vec<[u32; 3]> = Vec::new();
            let mut used = std::collections::HashSet::new();
            for t in &batch.triangles {
                let new = t.iter().filter(|v| !used.contains(*v)).count();
                if used.len() + new > 0x10000 || current.len() == MAX_BATCH_TRIANGLES {
                    groups.push(std::mem::take(&mut current));
                    used.clear();
                }
                used.extend(t.iter().copied());
                current.push(*t);
            }
            groups.push(current);
            groups
                .into_iter()
                .filter(|g| !g.is_empty())
                .map(|tris| {
                    let mut seen = std::collections::HashSet::new();
                    let verts: Vec<u32> = tris
                        .iter()
                        .flatten()
                        .copied()
                        .filter(|v| seen.insert(*v))
                        .collect();
                    (verts, vec![tris])
                })
                .collect()
        };
        let batches_made: usize = groups.iter().map(|g| g.1.len()).sum();
        if batches_made > 1 {
            self.split.0 += 1;
            self.split.1 += batches_made;
        }
        for (verts, chunks) in groups {
            let local: std::collections::HashMap<u32, u32> = if n <= 0x10000 {
                Default::default()
            } else {
                verts
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (v, i as u32))
                    .collect()
            };
            let m = &mut self.model;
            let base = m.positions.len() as u32;
            for &v in &verts {
                let v = v as usize;
                m.positions.push(batch.positions[v].map(F32::new));
                m.normals.push(PackedNormal::encode(normals[v], 0));
                m.uv0
                    .push(PackedUv::encode(uv0.map_or([0.0, 0.0], |u| u[v])));
                if self.with_uv1 {
                    let uv = batch.uv1.as_ref().map_or([0.0, 0.0], |u| u[v]);
                    let mut rec = [0u8; 8];
                    rec[..4].copy_from_slice(&uv[0].to_le_bytes());
                    rec[4..].copy_from_slice(&uv[1].to_le_bytes());
                    self.uv1.push(rec);
                }
                if self.with_colors {
                    let [r, g, b, a] = batch.colors.as_ref().map_or([255, 255, 255, 255], |c| c[v]);
                    self.colors.push([b, g, r, a]);
                }
            }
            for tris in chunks.into_iter().filter(|c| !c.is_empty()) {
                let m = &mut self.model;
                let index_start = m.indices.len() as u32;
                for t in &tris {
                    let l = t.map(|v| if local.is_empty() { v } else { local[&v] });
                    m.indices.extend(l.map(|i| U16::new(i as u16)));
                    slot_tris.push(l.map(|i| base + i));
                }
                let mut rec = Batch20::new_zeroed();
                rec.material_index = U16::new(batch.material);
                let [flags, o4, o6, o14] = batch.fields;
                rec.batch_flags = U16::new(flags);
                rec.opaque4 = U16::new(o4);
                rec.opaque6 = U16::new(o6);
                rec.opaque14 = U16::new(o14);
                rec.index_count = U16::new((tris.len() * 3) as u16);
                rec.index_start = U32::new(index_start);
                rec.base_vertex = U32::new(base);
                m.batches.push(rec);
            }
        }
        Ok(())
    }

    /// One note of each kind the batches gave.
    fn notes(&mut self) {
        let r = &mut *self.report;
        if self.computed_normals > 0 {
            r.note(
                Code::ImportNormalsComputed.code(),
                format!(
                    "vertex normals were missing on {} and were computed from the faces",
                    crate::report::counted(self.computed_normals, "mesh part", "mesh parts")
                ),
            );
        }
        if self.unknown_normals > 0 {
            r.note(
                Code::ImportNormalsNotFinite.code(),
                format!(
                    "{} vertex normals were NaN or infinite (Blender writes NaN where coordinates near 1e19 and beyond overflow its face normals): computed from the faces",
                    self.unknown_normals
                ),
            );
        }
        if self.zero_uvs > 0 {
            r.note(
                Code::ImportUvsZero.code(),
                format!(
                    "{} no texture coordinates; they were set to 0",
                    crate::report::counted(self.zero_uvs, "mesh part has", "mesh parts have")
                ),
            );
        }
        if self.split.0 > 0 {
            r.note(
                Code::ImportBatchSplit.code(),
                format!(
                    "{} split into {} batches in all to fit u16 indices",
                    crate::report::counted(self.split.0, "mesh part was", "mesh parts were"),
                    self.split.1
                ),
            );
        }
        if self.uv_shifted > 0 {
            r.note(
                Code::ImportUvsShifted.code(),
                format!("{} pieces of texture coordinates beyond Res5's range (-32 to +32) were moved by whole texture repeats into it (the same texels under repeat wrapping)", self.uv_shifted),
            );
        }
        if self.uv_unfit > 0 {
            r.note(
                Code::ImportUvsClamped.code(),
                format!("{} pieces of texture coordinates span more than Res5's 64 repeats and were clamped to -32..+32: split them or scale their UVs down", self.uv_unfit),
            );
        }
    }

    fn finish_streams(&mut self) {
        if self.with_uv1 {
            self.model.stream15 = std::mem::take(&mut self.uv1);
        }
        if self.with_colors {
            self.model.stream18 = std::mem::take(&mut self.colors);
        }
        let _ = self.scene;
    }
}

/// Vertices shared by some batches (source indices) and those batches' triangles.
type VertexGroup = (Vec<u32>, Vec<Vec<[u32; 3]>>);

/// Area-weighted vertex normals (unit length; +Z for a vertex of only degenerate faces).
pub fn vertex_normals(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let mut acc = vec![[0f64; 3]; positions.len()];
    for t in triangles {
        let p = t.map(|v| positions[v as usize].map(f64::from));
        let e1 = [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]];
        let e2 = [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]];
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        for &v in t {
            for k in 0..3 {
                acc[v as usize][k] += n[k];
            }
        }
    }
    acc.iter()
        .map(|a| {
            let len = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            if len > 0.0 {
                a.map(|c| (c / len) as f32)
            } else {
                [0.0, 0.0, 1.0]
            }
        })
        .collect()
}

/// The global bounds of the rest pose (as the engine places the nodes).
pub fn header(model: &Model) -> msh::raw::ModelHeader {
    let view = model.view();
    let Ok(rest) = msh::pose::rest_poses(&view) else {
        return model.header;
    };
    let world = msh::pose::compose(&view, &rest, msh::pose::Rotation::Conjugate);
    let mut points = Vec::new();
    for (i, node) in view.nodes.iter().enumerate() {
        for k in 0..15 {
            let s = node.slots[k].get();
            let Some(slot) = view.slots.get(s as usize) else {
                continue;
            };
            let (bs, bc) = (
                slot.batch_start.get() as usize,
                slot.batch_count.get() as usize,
            );
            for b in &view.batches[bs..bs + bc] {
                let (is, ic) = (b.index_start.get() as usize, b.index_count.get() as usize);
                for idx in &view.indices[is..is + ic] {
                    let p = view.positions[(b.base_vertex.get() + idx.get() as u32) as usize];
                    let w = world[i].point(p.map(|c| c.get() as f64));
                    points.push(w.map(|c| c as f32));
                }
            }
        }
    }
    derive::model_header(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{KeySample, SceneSlot};

    fn cube_batch(material: u16) -> SceneBatch {
        let p = |x: f32, y: f32, z: f32| [x, y, z];
        let positions = vec![
            p(0., 0., 0.),
            p(1., 0., 0.),
            p(1., 1., 0.),
            p(0., 1., 0.),
            p(0., 0., 1.),
            p(1., 0., 1.),
            p(1., 1., 1.),
            p(0., 1., 1.),
        ];
        let triangles = vec![
            [0, 2, 1],
            [0, 3, 2],
            [4, 5, 6],
            [4, 6, 7],
            [0, 1, 5],
            [0, 5, 4],
            [1, 2, 6],
            [1, 6, 5],
            [2, 3, 7],
            [2, 7, 6],
            [3, 0, 4],
            [3, 4, 7],
        ];
        SceneBatch {
            material,
            positions,
            triangles,
            ..Default::default()
        }
    }

    #[test]
    fn assembles_a_valid_model_with_parents_first() {
        let scene = SceneModel {
            nodes: vec![
                SceneNode {
                    name: Some(b"child".to_vec()),
                    parent: Some(1),
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    slots: vec![SceneSlot {
                        lod: 0,
                        group: 0,
                        batches: vec![cube_batch(3), cube_batch(5)],
                        opaque: [0; 5],
                    }],
                    track: Some(
                        (0..10)
                            .map(|frame| KeySample {
                                frame,
                                translation: [frame as f32 * 0.5, 0.0, 0.0],
                                rotation: [0.0, 0.0, 0.0, 1.0],
                            })
                            .collect(),
                    ),
                    ..Default::default()
                },
                SceneNode {
                    name: Some(b"root".to_vec()),
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    ..Default::default()
                },
            ],
        };
        let (model, report) = assemble(&scene, &AssembleOptions::default()).unwrap();
        let bytes = model.to_bytes().unwrap();
        let opened = msh::open(&bytes, msh::Mode::Strict).unwrap();
        assert_eq!(opened.view.node_name(0), Some(&b"root"[..]));
        assert_eq!(opened.view.nodes[1].parent(), Some(0));
        assert_eq!(opened.view.batches.len(), 2);
        assert_eq!(opened.view.tri_descs.unwrap().len(), 24);
        assert!(report.has("import.nodes_reordered"));
        assert!(report.has("import.normals_computed"));
        // A linear track needs two keys only.
        assert!(report.has("import.keys_reduced"));
        assert_eq!(opened.view.anim_keys.unwrap().len(), 1 + 2);
        assert_eq!(opened.view.frame_count, 10);
        assert!(
            !opened
                .report
                .findings
                .iter()
                .any(|f| f.severity == msh::Severity::Warning),
            "{:?}",
            opened.report
        );
    }

    #[test]
    fn cycles_and_limits_are_typed_errors() {
        let cyc = SceneModel {
            nodes: vec![
                SceneNode {
                    parent: Some(1),
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    ..Default::default()
                },
                SceneNode {
                    parent: Some(0),
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    ..Default::default()
                },
            ],
        };
        assert_eq!(
            assemble(&cyc, &AssembleOptions::default())
                .unwrap_err()
                .code(),
            "scene.parent_cycle"
        );
        let mut big = cube_batch(0);
        big.triangles = vec![[0, 1, 2]; MAX_TRIANGLES + 1];
        let too_many = SceneModel {
            nodes: vec![SceneNode {
                rotation: [0.0, 0.0, 0.0, 1.0],
                slots: vec![SceneSlot {
                    lod: 0,
                    group: 0,
                    batches: vec![big],
                    opaque: [0; 5],
                }],
                ..Default::default()
            }],
        };
        let e = assemble(&too_many, &AssembleOptions::default()).unwrap_err();
        assert_eq!(e.code(), "model.too_many_triangles", "{e}");
    }
}
