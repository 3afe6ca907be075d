//! Nodes: the MSH nodes with their rest pose, a child per used LOD/group slot
//! (legacy models, and terrain models without a node table: one root over
//! every slot's mesh; terrain nodes are in terrain.rs).

use super::{b64, empty_node, Exporter, UNIT_TOLERANCE};
use crate::codes::Code;
use crate::error::Result;
use crate::{extras as ex, names};
use gltf_json as json;
use gltf_json::Index;
use msh::raw::AnimKey24;

impl Exporter<'_> {
    /// MSH nodes `0..N`, then one node per used (node, LOD, group) slot.
    pub(super) fn msh_nodes(&mut self) -> Result<()> {
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
                        name: Some(names::slot_node_name(&names[i].0, i, lod, group)),
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
                translation: Some(self.axes.vec(key.position())),
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

    /// Legacy models (and terrain models without nodes): one root node, every
    /// slot's mesh shown under it.
    pub(super) fn flat_nodes(&mut self) {
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
    pub(super) fn rest_rotation(
        &mut self,
        key: &AnimKey24,
        node: usize,
    ) -> ([f32; 4], Option<[i16; 4]>) {
        let raw = key.quat_raw();
        if quat_exact(raw) {
            // Blender gives a rotation back with w >= 0 (the same rotation,
            // negated): a stored w < 0 (or 0, either sign) is kept for the way back.
            let negated = (raw[3] <= 0).then_some(raw);
            return (self.axes.quat(raw).map(decode_component), negated);
        }
        let q = raw.map(|c| c as f32);
        let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
        let unit = if len > 0.0 {
            q.map(|c| c / len)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        };
        self.report.note(
            Code::ExportDegenerateQuaternion.code(),
            format!(
                "node {node}: rest rotation {raw:?} is {} and is shown {}; the stored value is kept for the way back",
                if len == 0.0 { "zero" } else { "not unit length" },
                if len == 0.0 { "as identity" } else { "normalised" }
            ),
        );
        (self.axes.quat(unit), Some(raw))
    }
}

/// Stored quaternion components decode to a value the glTF side holds exactly
/// (close enough to unit length, and no -32768, which normalized SHORT cannot hold).
pub(super) fn quat_exact(raw: [i16; 4]) -> bool {
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
pub(super) fn decode_component(s: i16) -> f32 {
    s as f32 * (1.0f32 / 32767.0f32)
}
