//! The exact rebuild of a file this exporter wrote (docs/GLTF.md, "What travels
//! in extras"). Tables come from the glTF content; the extras supply what glTF
//! cannot hold. If the structure no longer matches what the extras describe
//! (nodes, slots, primitives or vertex counts changed), this path declines and
//! the generic one rebuilds the model.

use super::read::Source;
use super::Resolved;
use crate::axes::Axes;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::export::shown_normal;
use crate::extras::{self as ex, ModelExtras};
use crate::names;
use base64::Engine as _;
use msh::derive::{self, Key, Track};
use msh::raw::{
    AnimKey24, Batch20, ModelHeader, Node38, PackedNormal, PackedUv, Slot68, TriDesc16, NONE,
};
use msh::{resource as res, Attr, EntryMeta, Model};
use zerocopy::little_endian::{F32, U16, U32};
use zerocopy::{FromBytes, FromZeros, IntoBytes};

/// Either the rebuilt model, or why this path does not apply.
pub type Outcome = std::result::Result<Model, String>;

fn bad(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, Code::GltfBadExtras.code(), message)
}

fn b64(s: &str) -> Result<Vec<u8>> {
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| bad(format!("extras hold invalid base64: {e}")))
}

/// Rebuilds the model, or says why it cannot be rebuilt exactly.
pub fn rebuild(src: &Source<'_>, extras: &ModelExtras, opts: &Resolved) -> Result<Outcome> {
    let axes = Axes {
        axis: opts.axis,
        rotation: opts.rotation,
    };
    let accessors = src.doc.accessors().count() as u32;
    let buffer_length = src.doc.buffers().next().map_or(0, |b| b.length() as u64);
    if accessors != extras.accessors || buffer_length != extras.buffer_length {
        return Ok(Err(
            "another tool rebuilt its buffers (the recorded accessors no longer hold)".into(),
        ));
    }
    let mut m = Model {
        keep_sort_index: extras.keep_sort_index,
        ..Model::default()
    };
    container(&mut m, extras)?;
    if extras.kind == ex::Kind::Terrain {
        return Ok(Ok(m));
    }
    // The claimed counts may not exceed what the file holds: every vertex and index
    // lies in a primitive or a gap, every key in an accessor. What the data holds:
    // an accessor's count as far as its view has room for it (an accessor past its
    // view holds nothing; reading it fails below), a gap's count as far as its
    // base64 text goes (every record takes more than one character of it).
    let prim_vertices: usize = src
        .doc
        .meshes()
        .flat_map(|me| me.primitives())
        .filter_map(|p| p.get(&gltf::Semantic::Positions))
        .map(|a| src.count(&a).unwrap_or(0))
        .fold(0, usize::saturating_add);
    let held = |gaps: &[ex::Gap]| -> usize {
        gaps.iter()
            .map(|g| (g.count as usize).min(g.data.len()))
            .fold(0, usize::saturating_add)
    };
    let gap_vertices = held(&extras.vertex_gaps);
    let counts = &extras.counts;
    if counts.vertices as usize > prim_vertices.saturating_add(gap_vertices) {
        return Ok(Err(format!(
            "it claims {} vertices but holds {}",
            counts.vertices,
            prim_vertices.saturating_add(gap_vertices)
        )));
    }
    // Every batch is described by a slot or a batch gap; every slot by a mesh or
    // an empty slot; derived Res7 records lie in slot ranges (u16 start and count).
    let described_batches = src
        .doc
        .meshes()
        .filter_map(|me| ex::unwrap::<ex::SlotExtras>(me.extras()))
        .chain(extras.empty_slots.iter().cloned())
        .map(|s| s.batches.len())
        .fold(held(&extras.batch_gaps), usize::saturating_add);
    let total_bytes: usize = src.buffers.iter().map(|b| b.len()).sum::<usize>() + 1024;
    // Indices lie in the buffers, or (those no batch of a slot covers) in the
    // index gaps' data.
    if counts.indices as usize > total_bytes.saturating_add(held(&extras.index_gaps))
        || counts.batches as usize > described_batches
        || counts.slots as usize > total_bytes + 0xFFFF
        || (extras.raw.tri_descs.is_none() && counts.tri_descs as usize > 2 * 0xFFFF)
    {
        return Ok(Err(
            "its recorded table sizes are larger than the file".into()
        ));
    }
    if let Some(h) = &extras.header {
        m.header = ModelHeader::read_from_bytes(&b64(h)?)
            .map_err(|_| bad("the recorded header is not 140 bytes"))?;
    }
    m.frame_count = extras.frame_count;

    // Slots and batches from the meshes (and the slots without a mesh).
    let mut batches = vec![Batch20::new_zeroed(); counts.batches as usize];
    let mut slot_meshes: Vec<(ex::SlotExtras, Option<gltf::Mesh<'_>>)> = Vec::new();
    for mesh in src.doc.meshes() {
        match ex::unwrap::<ex::SlotExtras>(mesh.extras()) {
            Some(s) => slot_meshes.push((s, Some(mesh))),
            None => {
                return Ok(Err(format!(
                    "mesh {} has no slot record (added in another tool)",
                    mesh.index()
                )))
            }
        }
    }
    slot_meshes.extend(extras.empty_slots.iter().cloned().map(|s| (s, None)));
    if slot_meshes.len() != counts.slots as usize {
        return Ok(Err(format!(
            "it has {} slots where {} were written",
            slot_meshes.len(),
            counts.slots
        )));
    }
    // Sized once the count is known to match the file's slots.
    let mut slots = vec![Slot68::new_zeroed(); counts.slots as usize];
    let positions_len = counts.vertices as usize;
    let mut positions = vec![[F32::new(0.0); 3]; positions_len];
    let typed: Vec<u32> = m
        .entries
        .iter()
        .filter(|e| e.raw.is_none())
        .map(|e| e.type_id)
        .collect();
    let has = |t: u32| typed.contains(&t);
    let raw_normals = match extras.raw.normals {
        Some(a) => Some(
            <[PackedNormal]>::ref_from_bytes(&src.raw(&src.accessor(a)?)?)
                .map_err(|_| bad("raw normals"))?
                .to_vec(),
        ),
        None => None,
    };
    if raw_normals
        .as_ref()
        .is_some_and(|n| n.len() != positions_len)
    {
        return Ok(Err("its raw normals do not match the vertex count".into()));
    }
    let mut normals = raw_normals
        .clone()
        .unwrap_or_else(|| vec![PackedNormal([0; 4]); positions_len]);
    let mut uv0 = vec![PackedUv::new_zeroed(); positions_len];
    let mut stream15 = vec![[0u8; 8]; if has(res::STREAM15) { positions_len } else { 0 }];
    let mut stream18 = vec![[0u8; 4]; if has(res::STREAM18) { positions_len } else { 0 }];
    let mut indices = vec![U16::new(0); counts.indices as usize];
    let cw = extras.winding == ex::Winding::Cw;
    for (slot, mesh) in &slot_meshes {
        let k = slot.slot as usize;
        let Some(rec) = slots.get_mut(k) else {
            return Ok(Err(format!("slot {k} is out of range")));
        };
        rec.tri_start = U16::new(slot.tri_start as u16);
        rec.tri_count = U16::new(slot.tri_count as u16);
        rec.batch_start = U16::new(slot.batch_start as u16);
        rec.batch_count = U16::new(slot.batches.len() as u16);
        if let Some(r) = &slot.record {
            let bytes = b64(r)?;
            if bytes.len() != 60 {
                return Err(bad("a slot record is not 60 bytes"));
            }
            rec.as_mut_bytes()[8..].copy_from_slice(&bytes);
        }
        let drawn: Vec<&ex::BatchExtras> =
            slot.batches.iter().filter(|b| b.index_count > 0).collect();
        let prims: Vec<gltf::Primitive<'_>> = mesh
            .as_ref()
            .map(|me| me.primitives().collect())
            .unwrap_or_default();
        if prims.len() != drawn.len() {
            return Ok(Err(format!(
                "slot {k} has {} primitives where {} were written",
                prims.len(),
                drawn.len()
            )));
        }
        for (j, b) in slot.batches.iter().enumerate() {
            let Some(rec) = batches.get_mut(slot.batch_start as usize + j) else {
                return Ok(Err("a batch is out of range".into()));
            };
            rec.batch_flags = U16::new(b.flags);
            rec.material_index = U16::new(b.material);
            rec.opaque4 = U16::new(b.opaque4);
            rec.opaque6 = U16::new(b.opaque6);
            rec.opaque14 = U16::new(b.opaque14);
            rec.index_count = U16::new(b.index_count as u16);
            rec.index_start = U32::new(b.index_start);
            rec.base_vertex = U32::new(b.base_vertex);
        }
        for (b, prim) in drawn.iter().zip(&prims) {
            let Some(pa) = prim.get(&gltf::Semantic::Positions) else {
                return Ok(Err("a primitive lost its positions".into()));
            };
            let n = b.vertex_count as usize;
            let first = b.first_vertex as usize;
            if pa.count() != n || first + n > positions_len {
                return Ok(Err(format!(
                    "slot {k}: a primitive has {} vertices where {n} were written",
                    pa.count()
                )));
            }
            for (v, p) in src.floats::<3>(&pa)?.into_iter().enumerate() {
                positions[first + v] = axes.vec_back(p).map(F32::new);
            }
            if let Some(na) = prim.get(&gltf::Semantic::Normals) {
                let read = src.normals(&na)?;
                if read.iter().flatten().any(|c| !c.is_finite()) {
                    // The export writes unit normals: another tool computed these.
                    return Ok(Err("a primitive's normals are NaN or infinite".into()));
                }
                for (v, nrm) in read.into_iter().take(n).enumerate() {
                    let raw = raw_normals.as_ref().map(|r| r[first + v]);
                    let shown = raw.map(|r| axes.vec(shown_normal(&r).0));
                    normals[first + v] = match raw {
                        Some(r) if shown == Some(nrm) => r,
                        _ => PackedNormal::encode(axes.vec_back(nrm), raw.map_or(0, |r| r.0[3])),
                    };
                }
            }
            if let Some(ta) = prim.get(&gltf::Semantic::TexCoords(0)) {
                for (v, t) in src.floats::<2>(&ta)?.into_iter().take(n).enumerate() {
                    uv0[first + v] = PackedUv::encode(t);
                }
            }
            if let (Some(ta), false) =
                (prim.get(&gltf::Semantic::TexCoords(1)), stream15.is_empty())
            {
                for (v, t) in src.floats::<2>(&ta)?.into_iter().take(n).enumerate() {
                    stream15[first + v][..4].copy_from_slice(&t[0].to_le_bytes());
                    stream15[first + v][4..].copy_from_slice(&t[1].to_le_bytes());
                }
            }
            if let (Some(ca), false) = (prim.get(&gltf::Semantic::Colors(0)), stream18.is_empty()) {
                for (v, e) in src.elements(&ca)?.take(n).enumerate() {
                    if e.len() == 4 {
                        stream18[first + v] = [e[2], e[1], e[0], e[3]];
                    }
                }
            }
            let Some(ia) = prim.indices() else {
                return Ok(Err("a primitive lost its indices".into()));
            };
            let mut idx = src.indices(&ia)?;
            if idx.len() != b.index_count as usize / 3 * 3 {
                return Ok(Err(format!(
                    "slot {k}: a primitive has {} indices where {} were written",
                    idx.len(),
                    b.index_count
                )));
            }
            if cw {
                idx.chunks_exact_mut(3).for_each(|t| t.swap(1, 2));
            }
            let shift = b
                .first_vertex
                .checked_sub(b.base_vertex)
                .ok_or_else(|| bad("first_vertex below base_vertex"))?;
            for (j, i) in idx.into_iter().enumerate() {
                let value = i
                    .checked_add(shift)
                    .filter(|&v| v <= 0xFFFF)
                    .ok_or_else(|| bad("an index does not fit u16"))?;
                let at = b.index_start as usize + j;
                *indices
                    .get_mut(at)
                    .ok_or_else(|| bad("an index range is out of range"))? = U16::new(value as u16);
            }
        }
    }
    gaps(
        extras,
        &mut positions,
        &mut normals,
        &mut uv0,
        &mut stream15,
        &mut stream18,
        &mut indices,
        &mut batches,
        &m,
    )?;
    if let Some(a) = extras.raw.stream15 {
        stream15 = records(&src.raw(&src.accessor(a)?)?)?;
    }
    if let Some(a) = extras.raw.stream16 {
        m.stream16 = records(&src.raw(&src.accessor(a)?)?)?;
    }
    m.positions = positions;
    m.normals = if has(res::NORMALS) {
        normals
    } else {
        Vec::new()
    };
    m.uv0 = if has(res::UV0) { uv0 } else { Vec::new() };
    m.stream15 = stream15;
    m.stream18 = stream18;
    m.indices = indices;
    m.batches = batches;
    m.slots = slots;
    if let Some(a) = extras.raw.keys {
        m.anim_keys = <[AnimKey24]>::ref_from_bytes(&src.raw(&src.accessor(a)?)?)
            .map_err(|_| bad("raw Res8"))?
            .to_vec();
    }
    if let Some(a) = extras.raw.map {
        m.anim_map = <[U16]>::ref_from_bytes(&src.raw(&src.accessor(a)?)?)
            .map_err(|_| bad("raw Res19"))?
            .to_vec();
    }
    if extras.kind == ex::Kind::Standard {
        if let Err(why) = nodes(src, extras, &axes, opts, &mut m)? {
            return Ok(Err(why));
        }
    }
    // Recomputing slot bounds (and deriving Res7) visits every slot's
    // indices: slots that share batches would repeat it without bound. A file
    // past what an export writes (`msh::repeats`) gets the generic path.
    if let Some(why) = msh::repeats::excess(&m.view(), None) {
        return Ok(Err(why));
    }
    // Slot bounds that were not recorded are the recomputed ones.
    for (slot, _) in &slot_meshes {
        if slot.record.is_none() {
            let k = slot.slot as usize;
            let b = derive::bounds_of_batches(&m.positions, slot_indices(&m, k));
            derive::set_slot_bounds(&mut m.slots[k], &b);
        }
    }
    m.tri_descs = match extras.raw.tri_descs {
        Some(a) => <[TriDesc16]>::ref_from_bytes(&src.raw(&src.accessor(a)?)?)
            .map_err(|_| bad("raw Res7"))?
            .to_vec(),
        None if has(res::TRI_DESCS) => derive_tri_descs(&m, counts.tri_descs as usize),
        None => Vec::new(),
    };
    Ok(Ok(m))
}

/// Entries, names, attributes, layout and raw payloads.
fn container(m: &mut Model, extras: &ModelExtras) -> Result<()> {
    for e in &extras.entries {
        let name = match &e.name_field {
            Some(f) => {
                let bytes = b64(f)?;
                let field: [u8; 36] = bytes
                    .try_into()
                    .map_err(|_| bad("a name field is not 36 bytes"))?;
                nres::Name::from_field(field)
            }
            None => nres::Name::new(&e.name).map_err(|err| bad(format!("entry name: {err}")))?,
        };
        let attrs = match e.attrs {
            Some(a) => a.map(|v| {
                if v < 0 {
                    Attr::Derived
                } else {
                    Attr::Fixed(v as u32)
                }
            }),
            None => [Attr::Derived; 3],
        };
        let filler = match &e.filler {
            Some((len, bytes)) => Some(nres::Filler {
                payload_len: *len as usize,
                bytes: b64(bytes)?,
            }),
            None => None,
        };
        let raw = match &e.data {
            Some(d) => Some(b64(d)?),
            None => None,
        };
        m.entries.push(EntryMeta {
            type_id: e.type_id,
            name,
            attrs,
            sort_index: e.sort_index.unwrap_or(0),
            filler,
            offset_hint: e.offset,
            raw,
        });
    }
    if let Some(l) = &extras.leading {
        m.leading = b64(l)?;
    }
    m.physical_order = extras
        .physical_order
        .as_ref()
        .map(|o| o.iter().map(|&p| p as usize).collect());
    if m.physical_order
        .as_ref()
        .is_some_and(|o| o.len() != m.entries.len())
    {
        return Err(bad("physical_order does not list every entry"));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn gaps(
    extras: &ModelExtras,
    positions: &mut [[F32; 3]],
    normals: &mut [PackedNormal],
    uv0: &mut [PackedUv],
    s15: &mut [[u8; 8]],
    s18: &mut [[u8; 4]],
    indices: &mut [U16],
    batches: &mut [Batch20],
    m: &Model,
) -> Result<()> {
    let has = |t: u32| m.entries.iter().any(|e| e.type_id == t && e.raw.is_none());
    let stride = 12
        + if has(res::NORMALS) { 4 } else { 0 }
        + if has(res::UV0) { 4 } else { 0 }
        + if has(res::STREAM15) { 8 } else { 0 }
        + if has(res::STREAM16) { 8 } else { 0 }
        + if has(res::STREAM18) { 4 } else { 0 };
    for g in &extras.vertex_gaps {
        let data = b64(&g.data)?;
        if data.len() != g.count as usize * stride
            || g.start as usize + g.count as usize > positions.len()
        {
            return Err(bad("a vertex gap does not fit"));
        }
        for (k, rec) in data.chunks_exact(stride).enumerate() {
            let v = g.start as usize + k;
            let mut at = 0;
            let mut take = |n: usize| {
                let s = &rec[at..at + n];
                at += n;
                s
            };
            positions[v] = <[F32; 3]>::read_from_bytes(take(12)).map_err(|_| bad("gap"))?;
            if has(res::NORMALS) {
                normals[v] = PackedNormal::read_from_bytes(take(4)).map_err(|_| bad("gap"))?;
            }
            if has(res::UV0) {
                uv0[v] = PackedUv::read_from_bytes(take(4)).map_err(|_| bad("gap"))?;
            }
            if has(res::STREAM15) {
                s15[v].copy_from_slice(take(8));
            }
            if has(res::STREAM16) {
                take(8); // Res16 comes whole from its raw accessor.
            }
            if has(res::STREAM18) {
                s18[v].copy_from_slice(take(4));
            }
        }
    }
    for g in &extras.batch_gaps {
        let data = b64(&g.data)?;
        let start = g.start as usize;
        if data.len() != g.count as usize * 20 || start + g.count as usize > batches.len() {
            return Err(bad("a batch gap does not fit"));
        }
        for (k, rec) in data.chunks_exact(20).enumerate() {
            batches[start + k] = Batch20::read_from_bytes(rec).map_err(|_| bad("batch gap"))?;
        }
    }
    for g in &extras.index_gaps {
        let data = b64(&g.data)?;
        let start = g.start as usize;
        if data.len() != g.count as usize * 2 || start + g.count as usize > indices.len() {
            return Err(bad("an index gap does not fit"));
        }
        for (k, c) in data.chunks_exact(2).enumerate() {
            indices[start + k] = U16::new(u16::from_le_bytes([c[0], c[1]]));
        }
    }
    Ok(())
}

fn records<const N: usize>(bytes: &[u8]) -> Result<Vec<[u8; N]>> {
    if !bytes.len().is_multiple_of(N) {
        return Err(bad("a raw stream is not whole records"));
    }
    Ok(bytes
        .chunks_exact(N)
        .map(|c| c.try_into().unwrap_or([0; N]))
        .collect())
}

/// A node's translation keys (time, value) and raw rotation keys, as read.
type NodeChannels = (Option<Vec<(f32, [f32; 3])>>, Option<Vec<[i16; 4]>>);

/// Nodes, names and animation.
fn nodes(
    src: &Source<'_>,
    extras: &ModelExtras,
    axes: &Axes,
    opts: &Resolved,
    m: &mut Model,
) -> Result<std::result::Result<(), String>> {
    let mut msh_nodes: Vec<(ex::NodeExtras, gltf::Node<'_>)> = Vec::new();
    let mut slot_nodes: Vec<(ex::SlotNodeExtras, gltf::Node<'_>)> = Vec::new();
    for node in src.doc.nodes() {
        if let Some(e) = ex::unwrap::<ex::SlotNodeExtras>(node.extras())
            .filter(|_| names::slot_suffix(node.name().unwrap_or("")).is_some())
        {
            slot_nodes.push((e, node));
        } else if let Some(e) = ex::unwrap::<ex::NodeExtras>(node.extras()) {
            msh_nodes.push((e, node));
        }
    }
    let n = msh_nodes.len();
    if msh_nodes
        .iter()
        .enumerate()
        .any(|(i, (e, _))| e.node as usize != i)
    {
        return Ok(Err("its nodes were reordered or removed".into()));
    }
    let msh_of: std::collections::HashMap<usize, usize> = msh_nodes
        .iter()
        .map(|(e, node)| (node.index(), e.node as usize))
        .collect();
    let mut parent = vec![NONE; n];
    for (e, node) in &msh_nodes {
        for child in node.children() {
            if let Some(&c) = msh_of.get(&child.index()) {
                parent[c] = e.node as u16;
            }
        }
    }
    m.nodes = (0..n)
        .map(|i| {
            let mut r = Node38::new_zeroed();
            r.hdr0 = U16::new(msh_nodes[i].0.hdr0);
            r.parent = U16::new(parent[i]);
            r.anim_map_start = U16::new(NONE);
            r.slots = [U16::new(NONE); 15];
            r
        })
        .collect();
    for (e, _) in &slot_nodes {
        let Some(node) = m.nodes.get_mut(e.owner as usize) else {
            return Ok(Err("a slot node's owner is gone".into()));
        };
        if e.lod > 2 || e.group > 4 {
            return Err(bad("a slot node's LOD/group is out of range"));
        }
        node.slots[e.lod as usize * 5 + e.group as usize] = U16::new(e.slot as u16);
    }
    m.names = msh_nodes
        .iter()
        .map(|(e, node)| -> Result<Option<Vec<u8>>> {
            Ok(match &e.name_raw {
                Some(raw) => Some(b64(raw)?).filter(|r| !r.is_empty()),
                None if e.unnamed => None,
                None => Some(
                    names::node_name_from_gltf(node.name().unwrap_or(""))
                        .as_bytes()
                        .to_vec(),
                )
                .filter(|r| !r.is_empty()),
            })
        })
        .collect::<Result<_>>()?;

    if extras.raw.keys.is_some() {
        // Res8 and Res19 were read raw; the nodes say where their tracks are.
        for (i, (e, _)) in msh_nodes.iter().enumerate() {
            let [start, fallback] = e
                .anim
                .ok_or_else(|| bad("raw animation without the nodes' map starts"))?;
            m.nodes[i].anim_map_start = U16::new(start);
            m.nodes[i].fallback_key = U16::new(fallback);
        }
        return Ok(Ok(()));
    }
    // Rebuild the keys from the channels (as stored) and the nodes' poses.
    let mut channels: Vec<NodeChannels> = vec![(None, None); n];
    let mut times_of: Vec<Option<Vec<f32>>> = vec![None; n];
    for anim in src.doc.animations() {
        for ch in anim.channels() {
            let Some(&i) = msh_of.get(&ch.target().node().index()) else {
                continue;
            };
            let sampler = ch.sampler();
            let times: Vec<f32> = src
                .floats::<1>(&sampler.input())?
                .into_iter()
                .map(|t| t[0])
                .collect();
            let out = sampler.output();
            match ch.target().property() {
                gltf::animation::Property::Translation => {
                    let v = src.floats::<3>(&out)?;
                    channels[i].0 = Some(times.iter().copied().zip(v).collect());
                }
                gltf::animation::Property::Rotation => {
                    if out.data_type() != gltf::accessor::DataType::I16 || !out.normalized() {
                        return Ok(Err(
                            "a rotation channel is no longer the stored i16 values".into()
                        ));
                    }
                    let raw: Vec<[i16; 4]> = src
                        .elements(&out)?
                        .map(|e| {
                            std::array::from_fn(|k| i16::from_le_bytes([e[2 * k], e[2 * k + 1]]))
                        })
                        .collect();
                    channels[i].1 = Some(raw);
                }
                _ => return Ok(Err("it has scale or weight channels".into())),
            }
            times_of[i] = Some(times);
        }
    }
    let mut tracks = Vec::with_capacity(n);
    for (i, (e, node)) in msh_nodes.iter().enumerate() {
        let track = match (&channels[i], &times_of[i]) {
            ((Some(t), Some(r)), Some(times)) if t.len() == r.len() && t.len() == times.len() => {
                Track {
                    keys: times
                        .iter()
                        .zip(t)
                        .zip(r)
                        .map(|((&time, (_, p)), q)| Key {
                            time: (time * opts.fps).round(),
                            pos: axes.vec_back(*p),
                            quat: axes.quat_back(*q),
                        })
                        .collect(),
                }
            }
            ((None, None), _) => {
                let (t, r, _) = node.transform().decomposed();
                let quat = match e.rest_quat {
                    Some(q) => q,
                    None => axes.quat_back(derive::quantize_quat(r)),
                };
                Track::fixed(axes.vec_back(t), quat)
            }
            _ => return Ok(Err(format!("node {i}'s channels do not match each other"))),
        };
        tracks.push(track);
    }
    let had_map = m.entries.iter().any(|e| e.type_id == res::ANIM_MAP);
    let frame_count = m.frame_count;
    derive::write_animation(m, &tracks).map_err(|err| bad(format!("animation: {err}")))?;
    if !had_map || extras.keep_frame_count {
        m.frame_count = frame_count;
    }
    Ok(Ok(()))
}

/// Each batch of slot `k` as its base vertex and indices (ranges past the
/// tables are cut short), for the slot's bounds.
fn slot_indices(
    m: &Model,
    k: usize,
) -> impl Iterator<Item = (u32, impl Iterator<Item = u16> + '_)> + '_ {
    let s = m.slots[k];
    let (bs, bc) = (s.batch_start.get() as usize, s.batch_count.get() as usize);
    let within = |len: usize, start: usize, count: usize| {
        start.min(len)..start.saturating_add(count).min(len)
    };
    m.batches[within(m.batches.len(), bs, bc)]
        .iter()
        .map(move |b| {
            let (is, ic) = (b.index_start.get() as usize, b.index_count.get() as usize);
            let indices = m.indices[within(m.indices.len(), is, ic)]
                .iter()
                .map(|i| i.get());
            (b.base_vertex.get(), indices)
        })
}

/// Res7 recomputed per slot, for an export that does not carry it raw (older files).
fn derive_tri_descs(m: &Model, count: usize) -> Vec<TriDesc16> {
    let mut out = vec![TriDesc16::new_zeroed(); count];
    for s in &m.slots {
        let (ts, tc) = (s.tri_start.get() as usize, s.tri_count.get() as usize);
        let (bs, bc) = (s.batch_start.get() as usize, s.batch_count.get() as usize);
        let mut tris = Vec::new();
        for b in m.batches.iter().skip(bs).take(bc) {
            let (is, ic) = (b.index_start.get() as usize, b.index_count.get() as usize);
            for t in m
                .indices
                .iter()
                .skip(is)
                .take(ic)
                .collect::<Vec<_>>()
                .chunks_exact(3)
            {
                tris.push([0, 1, 2].map(|k| b.base_vertex.get() + t[k].get() as u32));
            }
        }
        let descs = derive::tri_descs(&m.positions, &tris, ts);
        for (k, d) in descs.into_iter().take(tc).enumerate() {
            if let Some(slot) = out.get_mut(ts + k) {
                *slot = d;
            }
        }
    }
    out
}
