//! A file this exporter wrote, rewritten by another tool (Blender): the
//! original model recognised part by part.
//!
//! The export records the original MSH file's fingerprint in the scene
//! extras (or, asked to embed it, the file itself: `gltf::original`); the
//! import is given the original (the model it writes over, or one named)
//! and takes it when its fingerprint matches (`original.rs` here). Blender
//! keeps scene custom properties ("Custom Properties" ticked) but rebuilds
//! buffers, reorders nodes, splits vertices and resamples animation, so the
//! exact rebuild (`lossless.rs`) declines.
//! Here the file is read as any glTF is (`generic.rs`) and each part is
//! compared with the original at the game's precision:
//! - nodes: the same nodes (by their recorded index) with the same parents;
//! - names: a renamed node changes its Res10 name only;
//! - geometry, per slot: the same triangles corner for corner (same materials,
//!   order and first corners, as Blender keeps them; in a triangle soup the
//!   faces Blender keeps are found by their values), else the same triangles
//!   with moved vertices (those vertices, the slot's Res7 records and bounds
//!   and the model's bounds are written again), else changed;
//! - animation: every node's pose at every frame of the original timeline,
//!   as the engine samples it.
//!
//! Nothing edited: the original file, byte for byte. Edits: the original with
//! only those parts written again. A change of structure (nodes added,
//! removed or re-parented, triangles added or deleted): the model the generic
//! path builds, with the original's entry names and the resources glTF cannot
//! hold (Res9, Res17, Res20, unknown types) carried over. A note says which.

mod animation;
mod fan;
mod geometry;
mod holder;
mod lnor;
mod original;
mod scene;

use super::read::Source;
use super::{AnimationChoice, Laid, Resolved};
use crate::assemble::AssembleOptions;
use crate::codes::Code;
use crate::error::Result;
use crate::extras::ModelExtras;
use crate::report::Report;
use crate::scene::SceneModel;
use geometry::SlotState;
use msh::Model;
pub(super) use original::Note;
use std::collections::{BTreeMap, BTreeSet};

/// What the recognition made.
pub(super) struct Recognised {
    /// The MSH bytes.
    pub msh: Vec<u8>,
    /// Where the animations went on the timeline (as the generic path laid them).
    pub laid: Laid,
    /// Its notes (the generic path's, then what was kept and rebuilt).
    pub report: Report,
}

/// Recognises the original in `src`: the one the file embeds, else `given`
/// when it is the one the file's fingerprint names. `Err` when there is
/// none (the caller then takes the generic path) with the note that says
/// why, when there is one to say (a missing or changed original; a file
/// that records neither, or a damaged embedded one, has none).
pub(super) fn recognise(
    src: &Source<'_>,
    extras: &ModelExtras,
    resolved: &Resolved,
    assemble: &AssembleOptions,
    (input_len, given): (usize, Option<&[u8]>),
) -> Result<std::result::Result<Recognised, Option<Note>>> {
    let bytes = match original::find(extras, given, input_len) {
        Ok(bytes) => bytes,
        Err(why) => return Ok(Err(why)),
    };
    let Ok(original) = Model::from_bytes(&bytes) else {
        return Ok(Err(None));
    };
    let mut report = Report::default();
    // The original's poses at frame 0 are sampled once, at the first slot
    // holder that has a translation (most files have none).
    let poses = std::cell::OnceCell::new();
    let noise = |owner: u32, far: f64| {
        let poses = poses.get_or_init(|| holder::poses_at_start(&original));
        holder::is_rounding(&original, poses.as_deref(), owner as usize, far)
    };
    let (scene, laid, origins) = super::generic::scene_traced(
        src,
        Some(extras),
        resolved,
        &AnimationChoice::All,
        Some(&noise),
        &mut report,
    )?;
    // The original as its own export shows it, read the same way.
    let msh = match compare(&original, &scene, &origins) {
        Some(c) if c.is_unedited() => {
            report.note(
                Code::ImportOriginalKept.code(),
                "the file is the model mshconv exported, unedited: the original bytes were written",
            );
            bytes.into_owned()
        }
        Some(c) => match c.apply(original.clone(), &scene, assemble, &mut report) {
            Some(m) => m,
            None => rebuilt(&original, &scene, assemble, &mut report)?,
        },
        None => rebuilt(&original, &scene, assemble, &mut report)?,
    };
    Ok(Ok(Recognised { msh, laid, report }))
}

/// A terrain model another tool rewrote: the original's bytes (found as
/// [`recognise`] finds them) when what the file shows is what the
/// original's own export shows (`scene::same`); `Err(None)` otherwise
/// (terrain comes back only unedited), `Err` with the note without an
/// original.
pub(super) fn terrain(
    src: &Source<'_>,
    extras: &ModelExtras,
    options: &crate::ExportOptions,
    (input_len, given): (usize, Option<&[u8]>),
) -> Result<std::result::Result<Vec<u8>, Option<Note>>> {
    let bytes = match original::find(extras, given, input_len) {
        Ok(bytes) => bytes,
        Err(why) => return Ok(Err(why)),
    };
    let resolved = Resolved {
        fps: options.fps,
        axis: options.axis,
        rotation: options.rotation,
    };
    let Ok((glb, _)) = crate::export::export(&bytes, options) else {
        return Ok(Err(None));
    };
    let shown = super::read::parse(&glb, &|_| None)?;
    let own = shown
        .doc
        .scenes()
        .next()
        .and_then(|s| crate::extras::unwrap::<ModelExtras>(s.extras()));
    let scene_of = |source: &Source<'_>, recorded: Option<&ModelExtras>| {
        super::generic::scene(
            source,
            recorded,
            &resolved,
            &AnimationChoice::All,
            &mut Report::default(),
        )
        .map(|(scene, _)| scene)
    };
    let (Ok(original), Ok(back)) = (scene_of(&shown, own.as_ref()), scene_of(src, Some(extras)))
    else {
        return Ok(Err(None));
    };
    Ok(match scene::same(&original, &back) {
        true => Ok(bytes.into_owned()),
        false => Err(None),
    })
}

/// What differs between the original and what came back, node by node.
struct Comparison {
    /// Nodes whose name changed, with the new name.
    renamed: Vec<(usize, Option<Vec<u8>>)>,
    /// Slots whose vertices moved.
    moved: BTreeMap<usize, BTreeMap<u32, geometry::Corner>>,
    /// Whether some slot changed beyond moved vertices.
    geometry_changed: bool,
    /// Per node: whether its pose differs at some frame.
    animated: Vec<bool>,
}

impl Comparison {
    fn is_unedited(&self) -> bool {
        self.renamed.is_empty()
            && self.moved.is_empty()
            && !self.geometry_changed
            && !self.animated.contains(&true)
    }

    /// The original with the edits written in, `None` when they cannot be
    /// written in place (the caller rebuilds the model).
    fn apply(
        &self,
        mut m: Model,
        scene: &SceneModel,
        assemble: &AssembleOptions,
        report: &mut Report,
    ) -> Option<Vec<u8>> {
        if self.geometry_changed {
            return None;
        }
        let mut what = Vec::new();
        for (node, name) in &self.renamed {
            // A model without a decoded Res10 cannot take a name in place.
            *m.names.get_mut(*node)? = name.clone();
        }
        if !self.renamed.is_empty() {
            what.push(format!("the names of {} node(s)", self.renamed.len()));
        }
        if !self.moved.is_empty() {
            // A vertex another, unedited slot draws cannot move without editing it.
            let moved: BTreeSet<u32> = self
                .moved
                .values()
                .flat_map(|v| v.keys().copied())
                .collect();
            let shared = (0..m.slots.len())
                .filter(|s| !self.moved.contains_key(s))
                .any(|s| geometry::vertices(&m, s).any(|v| moved.contains(&v)));
            if shared {
                return None;
            }
            let mut all = BTreeMap::new();
            for vertices in self.moved.values() {
                for (v, c) in vertices {
                    if all.insert(*v, *c).is_some_and(|before| before != *c) {
                        return None;
                    }
                }
            }
            // Only moved positions change what depends on positions (Res7's
            // adjacency and face normals, the bounds): a normal or UV alone
            // changes its own table.
            let placed: Vec<usize> = self
                .moved
                .iter()
                .filter(|(_, v)| v.iter().any(|(&i, c)| geometry::position_moved(&m, i, c)))
                .map(|(&s, _)| s)
                .collect();
            geometry::patch_vertices(&mut m, &all);
            for &slot in &placed {
                geometry::rederive_slot(&mut m, slot);
            }
            if !placed.is_empty() {
                m.header = if m.kind() == msh::ModelKind::LegacyNodes {
                    // No decoded nodes: every slot at the model's origin.
                    let points: Vec<[f32; 3]> = (0..m.slots.len())
                        .flat_map(|s| geometry::vertices(&m, s).collect::<Vec<_>>())
                        .filter_map(|v| m.positions.get(v as usize))
                        .map(|p| p.map(|c| c.get()))
                        .collect();
                    msh::derive::model_header(points)
                } else {
                    crate::assemble::header(&m)
                };
            }
            what.push(format!(
                "{} vertices of {} slot(s)",
                all.len(),
                self.moved.len()
            ));
        }
        let animated = self.animated.iter().filter(|&&a| a).count();
        if animated > 0 {
            animation::rewrite(&mut m, &scene.nodes, &self.animated, assemble, report).ok()?;
            what.push(format!("the animation of {animated} node(s)"));
        }
        let bytes = m.to_bytes().ok()?;
        msh::open(&bytes, msh::Mode::Strict).ok()?;
        report.note(
            Code::ImportOriginalEdited.code(),
            format!(
                "the file is the model mshconv exported, edited: {} written again, every other table kept as it was",
                what.join(", ")
            ),
        );
        Some(bytes)
    }
}

/// Compares the original with the scene, `None` when the node structure
/// differs (nodes added, removed, reordered without a record, re-parented).
fn compare(m: &Model, scene: &SceneModel, origins: &[Option<u32>]) -> Option<Comparison> {
    if m.kind() == msh::ModelKind::LegacyNodes {
        return compare_legacy(m, scene);
    }
    let n = m.nodes.len();
    if n == 0 || scene.nodes.len() != n {
        return None;
    }
    // Names as the export read them (also from a Res10 the model keeps raw).
    let view = m.view();
    let name_of = |i: usize| {
        view.names
            .as_ref()
            .and_then(|names| names.get(i).copied().flatten())
            .filter(|n| !n.is_empty())
    };
    for (i, (node, back)) in m.nodes.iter().zip(&scene.nodes).enumerate() {
        let parent = node.parent().map(usize::from);
        if origins.get(i).copied().flatten() != Some(i as u32) || back.parent != parent {
            return None;
        }
    }
    let mut renamed = Vec::new();
    let mut moved = BTreeMap::new();
    let mut geometry_changed = false;
    for (i, (node, back)) in m.nodes.iter().zip(&scene.nodes).enumerate() {
        if name_of(i) != back.name.as_deref() {
            renamed.push((i, back.name.clone()));
        }
        for lod in 0..3u8 {
            for group in 0..5u8 {
                let slot = node.slot(lod.into(), group.into());
                let came = back.slots.iter().find(|s| s.lod == lod && s.group == group);
                // The slot's drawable batches (original_batches leaves out the empty ones).
                let drawn = slot
                    .map(|s| (s as usize, geometry::original_batches(m, s as usize)))
                    .filter(|(_, batches)| !batches.is_empty());
                // A slot whose every triangle names a vertex twice has no
                // face in Blender: its node comes back without a mesh.
                let nothing = crate::scene::SceneSlot {
                    lod,
                    group,
                    batches: Vec::new(),
                    opaque: [0; 5],
                };
                match (drawn, came) {
                    (None, None) => {}
                    (None, Some(c)) if c.batches.iter().all(|b| b.triangles.is_empty()) => {}
                    (Some((s, batches)), came) => {
                        match geometry::compare(m, &batches, came.unwrap_or(&nothing)) {
                            SlotState::Same => {}
                            SlotState::Moved(v) => {
                                if moved.insert(s, v.clone()).is_some_and(|o| o != v) {
                                    geometry_changed = true;
                                }
                            }
                            SlotState::Changed => geometry_changed = true,
                        }
                    }
                    _ => geometry_changed = true,
                }
            }
        }
    }
    let animated = animation::edited(m, &scene.nodes)?;
    Some(Comparison {
        renamed,
        moved,
        geometry_changed,
        animated,
    })
}

/// A model whose node table is not decoded (legacy 24-byte records): the
/// export shows slot `k` as a node `slot<k>` under one root, none moved or
/// animated; the slots are compared, nothing else can change.
fn compare_legacy(m: &Model, scene: &SceneModel) -> Option<Comparison> {
    let identity = |node: &crate::scene::SceneNode| {
        node.track.is_none()
            && node.translation == [0.0; 3]
            && node.rotation.map(f32::abs) == [0.0, 0.0, 0.0, 1.0]
    };
    let mut found = vec![false; m.slots.len()];
    let mut moved = BTreeMap::new();
    let mut geometry_changed = false;
    for node in &scene.nodes {
        if !identity(node) {
            return None;
        }
        if node.slots.is_empty() {
            continue;
        }
        let slot = node
            .name
            .as_deref()
            .and_then(|n| n.strip_prefix(b"slot"))
            .and_then(|k| std::str::from_utf8(k).ok()?.parse::<usize>().ok())
            .filter(|&k| k < found.len() && !found[k]);
        let (Some(k), [only]) = (slot, node.slots.as_slice()) else {
            return None;
        };
        found[k] = true;
        match geometry::compare(m, &geometry::original_batches(m, k), only) {
            SlotState::Same => {}
            SlotState::Moved(v) => {
                moved.insert(k, v);
            }
            SlotState::Changed => geometry_changed = true,
        }
    }
    let missing =
        (0..found.len()).any(|k| !found[k] && !geometry::original_batches(m, k).is_empty());
    Some(Comparison {
        renamed: Vec::new(),
        moved,
        geometry_changed: geometry_changed || missing,
        animated: Vec::new(),
    })
}

/// The model rebuilt from what came back, with the original's entry names and
/// the resources glTF cannot hold carried over (when the result stays valid).
fn rebuilt(
    original: &Model,
    scene: &SceneModel,
    assemble: &AssembleOptions,
    report: &mut Report,
) -> Result<Vec<u8>> {
    let (mut model, assembled) = crate::assemble::assemble(scene, assemble)?;
    report.notes.extend(assembled.notes);
    // The container facts carry_container changes, to go back to when the
    // carried model is not valid.
    let plain = (
        model.entries.clone(),
        model.keep_sort_index,
        model.physical_order.clone(),
    );
    carry_container(original, &mut model);
    let carried = model
        .to_bytes()
        .ok()
        .filter(|b| msh::open(b, msh::Mode::Strict).is_ok());
    let kept: Vec<String> = original
        .entries
        .iter()
        .filter(|e| e.raw.is_some() && e.type_id != msh::resource::NODES)
        .map(|e| format!("Res{}", e.type_id))
        .collect();
    report.note(
        Code::ImportOriginalRebuilt.code(),
        match &carried {
            Some(_) if kept.is_empty() => "the file is the model mshconv exported, with nodes or triangles added, removed or re-parented: the model was rebuilt from its content, with the original's entry names".to_string(),
            Some(_) => format!("the file is the model mshconv exported, with nodes or triangles added, removed or re-parented: the model was rebuilt from its content, with the original's entry names and its {} carried over", kept.join(", ")),
            None => "the file is the model mshconv exported, with nodes or triangles added, removed or re-parented: the model was rebuilt from its content; the original's entry names and unknown resources did not fit it and were left out".to_string(),
        },
    );
    match carried {
        Some(bytes) => Ok(bytes),
        None => {
            (model.entries, model.keep_sort_index, model.physical_order) = plain;
            Ok(model.to_bytes()?)
        }
    }
}

/// Gives a rebuilt model the original's entry names (per type) and the raw
/// resources it has no table for, in the original's entry order.
fn carry_container(original: &Model, model: &mut Model) {
    let mut entries = Vec::with_capacity(original.entries.len() + model.entries.len());
    let mut taken = vec![false; model.entries.len()];
    for e in &original.entries {
        let rebuilt = model
            .entries
            .iter()
            .position(|r| r.type_id == e.type_id && r.raw.is_none());
        match rebuilt {
            Some(k) if !taken[k] => {
                taken[k] = true;
                let mut r = model.entries[k].clone();
                r.name = e.name;
                entries.push(r);
            }
            Some(_) => {}
            // Raw resources the rebuilt model has no table for (Res9, Res17,
            // Res20, unknown types) travel as they were.
            None if e.raw.is_some() && e.type_id != msh::resource::NODES => {
                let mut r = e.clone();
                r.sort_index = 0;
                r.filler = None;
                r.offset_hint = None;
                entries.push(r);
            }
            None => {}
        }
    }
    for (k, e) in model.entries.iter().enumerate() {
        if !taken[k] {
            entries.push(e.clone());
        }
    }
    model.entries = entries;
    model.keep_sort_index = false;
    model.physical_order = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 40: when only normals come back changed, Res4 alone changes
    /// (not the triangle records, the slot bounds or the model header).
    #[test]
    fn a_normal_alone_changes_res4_alone() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../fixtures/small/models/m242_robot.msh"
        );
        let mut m = Model::from_bytes(&std::fs::read(path).unwrap()).unwrap();
        let slot = (0..m.slots.len())
            .find(|&s| geometry::vertices(&m, s).next().is_some())
            .unwrap();
        // Bounds and triangle links that derivation would not give (as a
        // model from another tool has them): they must stay.
        let radius = m.slots[slot].sphere_radius.get();
        m.slots[slot].sphere_radius.set(radius + 1.0);
        let first = m.slots[slot].tri_start.get() as usize;
        m.tri_descs[first].links = [zerocopy::little_endian::U16::new(0xFFFF); 3];
        let r = m.header.sphere_radius.get();
        m.header.sphere_radius.set(r + 1.0);
        let bytes = m.to_bytes().unwrap();
        let v = geometry::vertices(&m, slot).next().unwrap();
        let p = m.positions[v as usize].map(|c| c.get());
        let n = m.normals[v as usize].0;
        // Another normal (flipped), the position and UV as they were.
        let normal = [n[0], n[1], n[2]].map(|c| -f32::from(c) / 127.0);
        let uv = m.uv0[v as usize].decode();
        let corner = geometry::Corner {
            position: p,
            normal: Some(normal),
            uv: Some(uv),
        };
        let comparison = Comparison {
            renamed: Vec::new(),
            moved: BTreeMap::from([(slot, BTreeMap::from([(v, corner)]))]),
            geometry_changed: false,
            animated: vec![false; m.nodes.len()],
        };
        let out = comparison
            .apply(
                m.clone(),
                &SceneModel::default(),
                &AssembleOptions::default(),
                &mut Report::default(),
            )
            .unwrap();
        let (a, b) = (
            nres::Archive::parse(&bytes).unwrap(),
            nres::Archive::parse(&out).unwrap(),
        );
        let changed: Vec<u32> = a
            .entries()
            .zip(b.entries())
            .filter(|(x, y)| x.data() != y.data())
            .map(|(x, _)| x.type_id())
            .collect();
        assert_eq!(changed, vec![4], "only the normals");
    }
}
