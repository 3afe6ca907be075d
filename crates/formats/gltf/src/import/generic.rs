//! Any glTF -> scene description: nodes, LOD/group slots, batches, animation
//! sampled at whole frames. Node scale is baked into geometry (MSH nodes are
//! rigid); strips and fans become lists; what MSH cannot hold is an error.

use super::linear::{
    affine_of, apply, compose, diag, is_identity, lerp, matrix_quat, mul, normalize, quat_matrix,
    quat_mul, similarity_rotation, slerp, transpose, IDENTITY, IDENTITY_AFFINE, M3,
};
use super::mesh::{mesh_batches, placed, MeshNotes};
use super::read::Source;
use super::{AnimationChoice, Laid, Resolved};
use crate::axes::Axes;
use crate::clips::{Clip, LoopMode};
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::extras::{self as ex, ModelExtras};
use crate::names;
use crate::report::Report;
use crate::scene::{KeySample, SceneBatch, SceneModel, SceneNode, SceneSlot};
use gltf::animation::{Interpolation, Property};
use std::collections::{BTreeMap, HashMap};

mod instancing;
mod nonuniform;

fn unsupported(code: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Unsupported, code, message)
}

/// A glTF node that becomes an MSH node.
struct Item<'a> {
    node: gltf::Node<'a>,
    parent: Option<usize>,
    /// The residual linear map (scale, shear, mirror) of this node, baked into its geometry.
    k: M3,
    /// The parent's residual map, applied to this node's translations.
    k_parent: M3,
    /// When `k_parent` is a mirror (a uniform scale times an orthogonal map
    /// that is not a rotation): the quaternion of its rotation part `Q`, which
    /// every rotation of this node is conjugated through (`k R = (Q R Q^T) k`),
    /// so an animated rotation turns the way the file says.
    conjugate: Option<[f64; 4]>,
    /// An instance of `node`'s mesh (`EXT_mesh_gpu_instancing`): its number
    /// and transform relative to `node`, which is its parent item.
    instance: Option<(usize, instancing::Trs)>,
    /// Whether `node`'s mesh is drawn by its instances instead.
    instanced: bool,
    /// Whether `KHR_node_visibility` hides the node (its own `visible: false`
    /// or a hidden ancestor's): its mesh is not drawn.
    hidden: bool,
}

impl Item<'_> {
    /// The local translation, rotation and scale.
    fn trs(&self) -> instancing::Trs {
        match self.instance {
            Some((_, trs)) => trs,
            None => self.node.transform().decomposed(),
        }
    }

    /// The mesh this item draws.
    fn mesh(&self) -> Option<gltf::Mesh<'_>> {
        self.node.mesh().filter(|_| !self.instanced && !self.hidden)
    }

    /// The residual map of a node of this rotation and scale under
    /// `k_parent`, and the conjugation of its rotations (see `conjugate`).
    /// Under a mirror the residual is `k_parent S` and the node turns by
    /// `Q R Q^T`, exact at every rotation; under any other map it is
    /// `R^T k_parent R S` at the rest rotation `R`.
    fn residual(k_parent: &M3, r: [f32; 4], s: [f32; 3]) -> (M3, Option<[f64; 4]>) {
        let s = diag(s.map(f64::from));
        if let Some(q) = similarity_rotation(k_parent).filter(|q| !is_identity(q)) {
            return (mul(k_parent, &s), Some(matrix_quat(&q)));
        }
        let rm = quat_matrix(normalize(r.map(f64::from)));
        (mul(&mul(&transpose(&rm), k_parent), &mul(&rm, &s)), None)
    }

    /// A rotation of this node as the MSH node turns (unit, conjugated
    /// through the parent's mirror where there is one).
    fn turned(&self, r: [f64; 4]) -> [f64; 4] {
        let r = normalize(r);
        match self.conjugate {
            Some(q) => normalize(quat_mul(quat_mul(q, r), [-q[0], -q[1], -q[2], q[3]])),
            None => r,
        }
    }
}

/// Builds the scene description of the document's default scene, and the
/// clips its animations became on the timeline.
pub fn scene(
    src: &Source<'_>,
    recorded: Option<&ModelExtras>,
    opts: &Resolved,
    choice: &AnimationChoice,
    report: &mut Report,
) -> Result<(SceneModel, Laid)> {
    scene_traced(src, recorded, opts, choice, None, report).map(|(scene, laid, _)| (scene, laid))
}

/// Whether a slot holder's translation is another tool's rounding: given the
/// MSH index its owner's extras recorded and the translation's largest
/// coordinate, `true` reads the holder as if it had none.
pub type HolderNoise<'a> = &'a dyn Fn(u32, f64) -> bool;

/// [`scene`], and for each of its nodes the MSH index its extras recorded
/// (`None` for a node without them); slot holders' translations that
/// `noise` calls rounding are left out.
pub fn scene_traced(
    src: &Source<'_>,
    recorded: Option<&ModelExtras>,
    opts: &Resolved,
    choice: &AnimationChoice,
    noise: Option<HolderNoise<'_>>,
    report: &mut Report,
) -> Result<(SceneModel, Laid, Vec<Option<u32>>)> {
    let doc = &src.doc;
    super::skin::note_unused(doc, report);
    if doc.cameras().next().is_some() {
        report.note(
            Code::ImportCamerasIgnored.code(),
            "cameras are not part of a model and were left out",
        );
    }
    let axes = Axes {
        axis: opts.axis,
        rotation: opts.rotation,
    };
    let roots: Vec<gltf::Node<'_>> = match doc.default_scene().or_else(|| doc.scenes().next()) {
        // More roots than nodes name one twice: one past the node count is enough to tell.
        Some(s) => s.nodes().take(doc.nodes().len() + 1).collect(),
        None => {
            let children: std::collections::HashSet<usize> = doc
                .nodes()
                .flat_map(|n| n.children().map(|c| c.index()))
                .collect();
            doc.nodes()
                .filter(|n| !children.contains(&n.index()))
                .collect()
        }
    };
    // Traverse: MSH nodes, and slot holders (|L<l>G<g> children) attached to their owner.
    let mut items: Vec<Item<'_>> = Vec::new();
    let mut holders: Vec<(usize, gltf::Node<'_>, u8, u8)> = Vec::new();
    // A node is marked when it is put on the stack, so the stack never holds
    // more than the nodes (a child list naming one node a million times fails
    // at its second mention).
    let mut visited = std::collections::HashSet::new();
    let mut reach = |node: &gltf::Node<'_>| -> Result<()> {
        if visited.insert(node.index()) {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::InvalidInput,
            Code::GltfNodeCycle.code(),
            format!(
                "node {} is reached twice: the node graph is not a tree",
                node.index()
            ),
        ))
    };
    for n in &roots {
        reach(n)?;
    }
    let (mut instanced_nodes, mut instanced_triangles) = (0usize, 0usize);
    let mut stack: Vec<(gltf::Node<'_>, Option<usize>, M3, bool)> = roots
        .into_iter()
        .rev()
        .map(|n| (n, None, IDENTITY, false))
        .collect();
    while let Some((node, parent, k_parent, hidden)) = stack.pop() {
        let hidden = hidden || src.extensions.hidden(node.index());
        let slot = names::slot_suffix(node.name().unwrap_or(""))
            .or_else(|| parent.and_then(|p| renamed_slot_node(&node, &items[p].node)));
        if let (Some(owner), Some((l, g))) = (parent, slot) {
            if node.children().next().is_none() {
                if !hidden {
                    holders.push((owner, node, l, g));
                }
                continue;
            }
        }
        let (_, r, s) = node.transform().decomposed();
        let (k, conjugate) = Item::residual(&k_parent, r, s);
        if items.len() == crate::assemble::MAX_NODES {
            // Checked while walking: the assembler would refuse the model anyway.
            return Err(unsupported(
                Code::ModelTooManyNodes.code(),
                format!(
                    "more than {} nodes; an MSH model holds at most {}: join objects first",
                    crate::assemble::MAX_NODES,
                    crate::assemble::MAX_NODES
                ),
            ));
        }
        let instances = instancing::instances(src, &node)?;
        items.push(Item {
            node: node.clone(),
            parent,
            k,
            k_parent,
            conjugate,
            instance: None,
            instanced: instances.is_some(),
            hidden,
        });
        let me = items.len() - 1;
        if let (Some(list), Some(mesh)) = (instances, node.mesh()) {
            let triangles = instancing::mesh_triangles(&mesh);
            instancing::check_limits(
                node.index(),
                items.len(),
                list.len(),
                triangles,
                instanced_triangles,
            )?;
            instanced_triangles += triangles * list.len();
            instanced_nodes += 1;
            for (i, (t, r, s)) in list.into_iter().enumerate() {
                let (k_instance, conjugate) = Item::residual(&k, r, s);
                items.push(Item {
                    node: node.clone(),
                    parent: Some(me),
                    k: k_instance,
                    k_parent: k,
                    conjugate,
                    instance: Some((i, (t, r, s))),
                    instanced: false,
                    hidden,
                });
            }
        }
        let mut children = Vec::new();
        for child in node.children() {
            reach(&child)?;
            children.push(child);
        }
        for child in children.into_iter().rev() {
            stack.push((child, Some(me), k, hidden));
        }
    }
    if instanced_nodes > 0 {
        report.note(
            Code::ImportInstancesExpanded.code(),
            format!(
                "{} instances of {instanced_nodes} nodes (EXT_mesh_gpu_instancing) became nodes of their own, each a child of its node holding the mesh",
                items.iter().filter(|it| it.instance.is_some()).count()
            ),
        );
    }
    note_hidden(&items, report);
    // Original node order where the extras give it (Blender keeps node custom properties).
    let order_key: Vec<u32> = items
        .iter()
        .map(|it| match it.instance {
            Some(_) => u32::MAX,
            None => ex::unwrap::<ex::NodeExtras>(it.node.extras()).map_or(u32::MAX, |e| e.node),
        })
        .collect();
    if items.iter().any(|it| !is_identity(&it.k)) {
        report.note(
            Code::ImportScaleBaked.code(),
            "node scale was baked into the geometry (MSH nodes have no scale)",
        );
    }
    let materials = src.material_indices(report)?;
    let winding_cw = recorded.is_some_and(|r| r.winding == ex::Winding::Cw);
    // Skinned meshes go to their joints' nodes (skin.rs).
    let item_of = node_items(&items);
    let joint = |node: usize| item_of.get(&node).map(|&i| (i, items[i].k));
    let mut mesh_notes = MeshNotes::default();
    let mut skinned: Vec<(usize, SceneBatch)> = Vec::new();
    let mut blends = super::skin::Blends::default();
    let mut nodes: Vec<SceneNode> = Vec::with_capacity(items.len());
    let mut unplaced: Option<(usize, Vec<SceneBatch>)> = None;
    for it in &items {
        let e: Option<ex::NodeExtras> =
            ex::unwrap(it.node.extras()).filter(|_| it.instance.is_none());
        let (t, r, _) = it.trs();
        let gltf_name = it.node.name().unwrap_or("");
        // The recorded raw name holds while the node keeps the name the export
        // gave it; a node renamed in another tool takes its new name.
        let recorded_name = e.as_ref().and_then(|e| {
            let raw = match &e.name_raw {
                Some(text) => {
                    use base64::Engine as _;
                    Some(
                        base64::engine::general_purpose::STANDARD
                            .decode(text)
                            .ok()?,
                    )
                }
                None if e.unnamed => None,
                None => return None,
            };
            names::keeps_exported_name(gltf_name, raw.as_deref(), e.node as usize).then_some(raw)
        });
        let name = recorded_name.unwrap_or_else(|| {
            let name = names::node_name_from_gltf(gltf_name);
            Some(match it.instance {
                Some((i, _)) => format!("{name}_{i}").into_bytes(),
                None => name.as_bytes().to_vec(),
            })
        });
        let mut slots: BTreeMap<(u8, u8), Vec<SceneBatch>> = BTreeMap::new();
        let skin = it.node.skin().filter(|_| it.instance.is_none());
        if let (Some(mesh), Some(skin)) = (it.mesh(), skin) {
            skinned.extend(super::skin::split(
                src,
                &mesh,
                &skin,
                it.node.weights(),
                &joint,
                &axes,
                &materials,
                winding_cw,
                &mut blends,
                &mut mesh_notes,
            )?);
        } else if let Some(mesh) = it.mesh() {
            // Instances of one node read its mesh once.
            let read = match (&unplaced, it.instance) {
                (Some((node, batches)), Some(_)) if *node == it.node.index() => batches.clone(),
                _ => mesh_batches(src, &mesh, it.node.weights(), &materials, &mut mesh_notes)?,
            };
            if it.instance.is_some() {
                unplaced = Some((it.node.index(), read.clone()));
            }
            let m = affine_of(&it.k, [0.0; 3]);
            let batches = placed(read, &m, &axes, winding_cw, &mut mesh_notes);
            slots.entry((0, 0)).or_default().extend(batches);
        }
        nodes.push(SceneNode {
            name: name.filter(|n| !n.is_empty()),
            parent: it.parent,
            translation: axes.vec_back(apply(&it.k_parent, t.map(f64::from)).map(|c| c as f32)),
            rotation: axes.quat_back(it.turned(r.map(f64::from)).map(|c| c as f32)),
            hdr0: e.as_ref().map_or(0, |e| e.hdr0),
            slots: Vec::new(),
            track: None,
        });
        let idx = nodes.len() - 1;
        for (l, g) in slots.keys().copied().collect::<Vec<_>>() {
            let batches = slots.remove(&(l, g)).unwrap_or_default();
            let opaque = it.mesh().map_or([0; 5], |m| slot_opaque(&m));
            nodes[idx].slots.push(SceneSlot {
                lod: l,
                group: g,
                batches,
                opaque,
            });
        }
    }
    for (owner, holder, l, g) in holders {
        let Some(mesh) = holder.mesh() else { continue };
        let (t, r, s) = holder.transform().decomposed();
        let hidden = s.iter().all(|&c| c == 0.0);
        let local = if hidden {
            IDENTITY_AFFINE
        } else {
            let rm = quat_matrix(normalize(r.map(f64::from)));
            affine_of(&mul(&rm, &diag(s.map(f64::from))), t.map(f64::from))
        };
        let k = &items[owner].k;
        let mut m = compose(&affine_of(k, [0.0; 3]), &local);
        let far = m.iter().map(|row| row[3].abs()).fold(0.0, f64::max);
        if far > 0.0 && noise.is_some_and(|noise| noise(order_key[owner], far)) {
            m.iter_mut().for_each(|row| row[3] = 0.0);
        }
        let read = mesh_batches(src, &mesh, holder.weights(), &materials, &mut mesh_notes)?;
        let batches = placed(read, &m, &axes, winding_cw, &mut mesh_notes);
        add_to_slot(&mut nodes[owner], (l, g), batches, slot_opaque(&mesh));
    }
    for (owner, batch) in skinned {
        add_to_slot(&mut nodes[owner], (0, 0), vec![batch], [0; 5]);
    }
    mesh_notes.report(report);
    let clips = animation(src, &items, &mut nodes, &axes, opts.fps, choice, report)?;
    blends.report(&nodes, &axes, report);
    // Reorder by the recorded original index when there is one.
    let mut perm: Vec<usize> = (0..nodes.len()).collect();
    perm.sort_by_key(|&i| (order_key[i], i));
    if perm.iter().enumerate().any(|(a, &b)| a != b) {
        let mut inverse = vec![0; perm.len()];
        for (new, &old) in perm.iter().enumerate() {
            inverse[old] = new;
        }
        let mut reordered: Vec<SceneNode> = perm.iter().map(|&i| nodes[i].clone()).collect();
        for n in &mut reordered {
            n.parent = n.parent.map(|p| inverse[p]);
        }
        nodes = reordered;
    }
    let origins = perm
        .iter()
        .map(|&i| Some(order_key[i]).filter(|&k| k != u32::MAX))
        .collect();
    Ok((SceneModel { nodes }, clips, origins))
}

/// `(lod, group)` of a slot node an earlier export named past 59 bytes
/// (`names::earlier_slot_node_name`) that Blender renamed because another
/// slot node had its name: Blender cuts such a name to its first 59 bytes,
/// which loses the `|L<lod>G<group>` suffix (docs/BLENDER.md, "What Blender
/// changes"). Its extras name the slot and `owner`'s recorded index, and its
/// name is that cut of the name the export gave it.
fn renamed_slot_node(node: &gltf::Node<'_>, owner: &gltf::Node<'_>) -> Option<(u8, u8)> {
    let slot = ex::unwrap::<ex::SlotNodeExtras>(node.extras())?;
    let recorded = ex::unwrap::<ex::NodeExtras>(owner.extras())?;
    let given = names::earlier_slot_node_name(owner.name()?, slot.lod, slot.group)?;
    (slot.owner == recorded.node && names::cut_by_blender(node.name()?, &given))
        .then_some((slot.lod, slot.group))
}

/// One note naming the nodes `KHR_node_visibility` hides whose meshes were
/// left out (a few names, then how many more).
fn note_hidden(items: &[Item<'_>], report: &mut Report) {
    let hidden: Vec<String> = items
        .iter()
        .filter(|it| it.hidden && it.instance.is_none() && it.node.mesh().is_some())
        .map(|it| match it.node.name() {
            Some(name) => format!("{name:?}"),
            None => format!("node {}", it.node.index()),
        })
        .collect();
    if hidden.is_empty() {
        return;
    }
    report.note(
        Code::ImportNodeHidden.code(),
        format!(
            "{} hidden by KHR_node_visibility (visible: false, or under a hidden node): their meshes were left out: {}",
            crate::report::counted(hidden.len(), "node", "nodes"),
            crate::report::few(&hidden)
        ),
    );
}

/// The item of each glTF node (instances are not glTF nodes).
fn node_items(items: &[Item<'_>]) -> HashMap<usize, usize> {
    items
        .iter()
        .enumerate()
        .filter(|(_, it)| it.instance.is_none())
        .map(|(i, it)| (it.node.index(), i))
        .collect()
}

/// Adds batches to a node's slot `(lod, group)`, making the slot when it has none.
fn add_to_slot(
    node: &mut SceneNode,
    (lod, group): (u8, u8),
    batches: Vec<SceneBatch>,
    opaque: [u32; 5],
) {
    match node
        .slots
        .iter_mut()
        .find(|s| s.lod == lod && s.group == group)
    {
        Some(slot) => slot.batches.extend(batches),
        None => node.slots.push(SceneSlot {
            lod,
            group,
            batches,
            opaque,
        }),
    }
}

/// The unknown tail of the slot a mesh stands for, from its extras (zero without them).
fn slot_opaque(mesh: &gltf::Mesh<'_>) -> [u32; 5] {
    use base64::Engine as _;
    let record = ex::unwrap::<ex::SlotExtras>(mesh.extras()).and_then(|s| s.record);
    let bytes = record
        .and_then(|r| base64::engine::general_purpose::STANDARD.decode(r).ok())
        .filter(|b| b.len() == 60);
    match bytes {
        // Bytes 8..68 of Slot68: bounds (40 bytes), then the five u32 of the tail.
        Some(b) => std::array::from_fn(|k| {
            u32::from_le_bytes([b[40 + 4 * k], b[41 + 4 * k], b[42 + 4 * k], b[43 + 4 * k]])
        }),
        None => [0; 5],
    }
}

/// Samples the chosen animations at whole frames and sets each node's
/// track; returns where each clip (animation, or group playing together) lies.
fn animation(
    src: &Source<'_>,
    items: &[Item<'_>],
    nodes: &mut [SceneNode],
    axes: &Axes,
    fps: f32,
    choice: &AnimationChoice,
    report: &mut Report,
) -> Result<Laid> {
    let anims: Vec<gltf::Animation<'_>> = match choice {
        AnimationChoice::None => return Ok(Laid::default()),
        AnimationChoice::All => src.doc.animations().collect(),
        AnimationChoice::Index(i) => vec![src.doc.animations().nth(*i).ok_or_else(|| {
            Error::new(
                ErrorKind::BadOption,
                Code::OptionNoSuchAnimation.code(),
                format!("there is no animation {i}"),
            )
        })?],
        AnimationChoice::Name(name) => vec![src
            .doc
            .animations()
            .find(|a| a.name() == Some(name.as_str()))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::BadOption,
                    Code::OptionNoSuchAnimation.code(),
                    format!("there is no animation named {name:?}"),
                )
            })?],
    };
    let item_of = node_items(items);
    // Clips an export recorded go back to their frames, each its own group.
    let placed = match choice {
        AnimationChoice::All => super::clips::recorded(src, fps, report)?,
        _ => None,
    };
    let groups = if *choice == AnimationChoice::All && placed.is_none() {
        play_together(anims)
    } else {
        anims.into_iter().map(|a| vec![a]).collect()
    };
    let names = super::clips::unique_names(
        &groups
            .iter()
            .map(|g| g.iter().map(|a| a.name()).collect())
            .collect::<Vec<_>>(),
    );
    // The next free frame (laid end to end, each group starts there).
    let mut next = 0u32;
    let mut clips = Vec::new();
    let mut laid = Vec::new();
    let mut samples: Vec<Vec<KeySample>> = vec![Vec::new(); nodes.len()];
    let mut animated = vec![false; nodes.len()];
    let mut scaled = std::collections::BTreeSet::new();
    let mut merged = Vec::new();
    let mut still = Vec::new();
    let mut mends = super::clips::Mends::default();
    let mut sheared = nonuniform::Sheared::default();
    for (g, group) in groups.iter().enumerate() {
        let mut curves: HashMap<(usize, u8), Curve> = HashMap::new();
        let mut duration = 0f32;
        let group_name = group
            .iter()
            .map(|a| format!("{:?}", a.name().unwrap_or("(unnamed)")))
            .collect::<Vec<_>>()
            .join(" + ");
        if group.len() > 1 {
            merged.push(group_name.clone());
        }
        for (anim, ch) in group
            .iter()
            .flat_map(|a| a.channels().map(move |ch| (a, ch)))
        {
            let Some(&i) = item_of.get(&ch.target().node().index()) else {
                continue;
            };
            let sampler = ch.sampler();
            let times: Vec<f32> = src
                .floats::<1>(&sampler.input())?
                .into_iter()
                .map(|t| t[0])
                .collect();
            let kind = match ch.target().property() {
                Property::Translation => 0u8,
                Property::Rotation => 1,
                Property::Scale => {
                    scaled.insert(i);
                    continue;
                }
                Property::MorphTargetWeights => continue,
            };
            let values: Vec<[f32; 4]> = if kind == 0 {
                src.floats::<3>(&sampler.output())?
                    .into_iter()
                    .map(|v| [v[0], v[1], v[2], 0.0])
                    .collect()
            } else {
                src.floats::<4>(&sampler.output())?
            };
            let per_key = if sampler.interpolation() == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let (times, values) = super::clips::mend_keys(
                &format!(
                    "animation {:?} sampler {}",
                    anim.name().unwrap_or(""),
                    sampler.index()
                ),
                times,
                values,
                per_key,
                &mut mends,
            )?;
            if times.is_empty() || values.len() != times.len() * per_key {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    Code::GltfBadSampler.code(),
                    format!(
                        "animation {:?}: a sampler's input and output counts disagree",
                        anim.name().unwrap_or("")
                    ),
                ));
            }
            duration = duration.max(times[times.len() - 1]);
            animated[i] = true;
            curves.insert(
                (i, kind),
                Curve {
                    times,
                    values,
                    interpolation: sampler.interpolation(),
                },
            );
        }
        if curves.is_empty() {
            still.push(group_name);
            continue;
        }
        let frames = super::clips::frames_of(duration, fps);
        let offset = placed.as_ref().map_or(next, |p| p[g].first);
        // Checked before sampling anything: the frame map holds at most 65535 words
        // (frames x animated nodes), so a longer timeline cannot be an MSH animation.
        let animated_count = animated.iter().filter(|&&a| a).count().max(1) as u64;
        let total = (offset as u64 + frames as u64 + 1) * animated_count;
        if total > 0xFFFF {
            return Err(unsupported(
                Code::AnimTooLong.code(),
                format!(
                    "the animation runs {} frames at {fps} fps over {animated_count} animated nodes; an MSH frame map holds at most 65535 frames x nodes: shorten the animation, choose one with --animation, or lower --fps",
                    offset as u64 + frames as u64 + 1
                ),
            ));
        }
        clips.push(format!(
            "{group_name} frames {}..={}",
            offset,
            offset + frames
        ));
        // Only the animated items are visited per frame (visiting every item per
        // frame made a file of many static nodes cost 65,535 x its nodes).
        let animated_items: Vec<usize> = (0..items.len()).filter(|&i| animated[i]).collect();
        for f in 0..=frames {
            let t = f as f32 / fps;
            for &i in &animated_items {
                let it = &items[i];
                let (rt, rr, _) = it.trs();
                let tr = curves.get(&(i, 0)).map_or(rt.map(f64::from), |c| {
                    let v = c.sample(t, false);
                    [v[0], v[1], v[2]]
                });
                let rot = it.turned(
                    curves
                        .get(&(i, 1))
                        .map_or(rr.map(f64::from), |c| c.sample(t, true)),
                );
                samples[i].push(KeySample {
                    frame: offset + f,
                    translation: axes.vec_back(apply(&it.k_parent, tr).map(|c| c as f32)),
                    rotation: axes.quat_back(rot.map(|c| c as f32)),
                });
            }
        }
        sheared.measure(items, nodes, &curves, frames, fps, axes);
        laid.push(Clip {
            name: names[g].clone(),
            first: offset,
            last: offset + frames,
            mode: placed.as_ref().map_or(LoopMode::Loop, |p| p[g].mode),
        });
        next = next.max(offset + frames + 1);
    }
    let offset = next;
    if !merged.is_empty() {
        report.note(
            Code::ImportAnimationsMerged.code(),
            format!(
                "{} of animations animate different nodes and play together (Blender writes one animation per object): {}",
                crate::report::counted(merged.len(), "group", "groups"),
                crate::report::few(&merged)
            ),
        );
    }
    if !scaled.is_empty() {
        report.note(
            Code::ImportScaleAnimationIgnored.code(),
            format!(
                "scale animation ignored on {} nodes: MSH nodes cannot hold it",
                scaled.len()
            ),
        );
    }
    if !still.is_empty() {
        report.note(
            crate::clips::NO_TRACK,
            format!(
                "{} no node and were left out of the timeline: {}",
                crate::report::counted(still.len(), "animation moves", "animations move"),
                crate::report::few(&still)
            ),
        );
    }
    mends.report(report);
    sheared.report(report);
    if clips.len() > 1 && placed.is_none() {
        report.note(
            Code::ImportClips.code(),
            format!("animations laid end to end: {}", clips.join(", ")),
        );
    }
    for (i, s) in samples.into_iter().enumerate() {
        if animated[i] && !s.is_empty() {
            // Frames of other clips where this node is not animated hold its rest pose.
            let rest = KeySample {
                frame: 0,
                translation: nodes[i].translation,
                rotation: nodes[i].rotation,
            };
            let mut full: BTreeMap<u32, KeySample> = (0..offset)
                .map(|f| (f, KeySample { frame: f, ..rest }))
                .collect();
            for k in s {
                full.insert(k.frame, k);
            }
            nodes[i].track = Some(full.into_values().collect());
        }
    }
    Ok(Laid {
        clips: laid,
        recorded: placed.is_some(),
    })
}

/// Animations grouped into clips that play at the same time: each animation
/// joins the clip before it when it animates none of that clip's nodes (as
/// Blender's default export writes one animation per animated object), else it
/// starts a new clip after it.
fn play_together(anims: Vec<gltf::Animation<'_>>) -> Vec<Vec<gltf::Animation<'_>>> {
    let mut groups: Vec<Vec<gltf::Animation<'_>>> = Vec::new();
    let mut targets: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for anim in anims {
        let mine: std::collections::HashSet<usize> =
            anim.channels().map(|c| c.target().node().index()).collect();
        match groups.last_mut() {
            Some(group) if mine.is_disjoint(&targets) => {
                targets.extend(mine);
                group.push(anim);
            }
            _ => {
                targets = mine;
                groups.push(vec![anim]);
            }
        }
    }
    groups
}

struct Curve {
    times: Vec<f32>,
    values: Vec<[f32; 4]>,
    interpolation: Interpolation,
}

impl Curve {
    /// The value at `t` (seconds), as glTF defines each interpolation.
    fn sample(&self, t: f32, rotation: bool) -> [f64; 4] {
        let n = self.times.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let value = |k: usize| self.values[if cubic { 3 * k + 1 } else { k }].map(f64::from);
        if t <= self.times[0] {
            return value(0);
        }
        if t >= self.times[n - 1] {
            return value(n - 1);
        }
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (self.times[k] as f64, self.times[k + 1] as f64);
        let a = (t as f64 - t0) / (t1 - t0);
        match self.interpolation {
            Interpolation::Step => value(k),
            Interpolation::Linear if rotation => slerp(value(k), value(k + 1), a),
            Interpolation::Linear => lerp(value(k), value(k + 1), a),
            Interpolation::CubicSpline => {
                let dt = t1 - t0;
                let (p0, p1) = (value(k), value(k + 1));
                let m0 = self.values[3 * k + 2].map(|c| c as f64 * dt);
                let m1 = self.values[3 * (k + 1)].map(|c| c as f64 * dt);
                let (a2, a3) = (a * a, a * a * a);
                let h = [
                    2.0 * a3 - 3.0 * a2 + 1.0,
                    a3 - 2.0 * a2 + a,
                    -2.0 * a3 + 3.0 * a2,
                    a3 - a2,
                ];
                std::array::from_fn(|c| h[0] * p0[c] + h[1] * m0[c] + h[2] * p1[c] + h[3] * m1[c])
            }
        }
    }
}
