//! The MSH nodes as `Xform` prims: the hierarchy, each node's rest pose and,
//! for an animated node, the engine's pose at every integer frame as time
//! samples; each node's used slots as prims referencing the slot meshes.

use super::text::{self, Siblings, Usda};
use super::Walk;
use crate::codes::Code;
use crate::error::Result;
use crate::names;
use msh::anim::Pose;
use msh::pose::Affine;
use msh::ModelKind;

/// Tolerance on `| |q| - 1 |` under which an engine quaternion is used as
/// sampled; a quaternion further from unit length is normalised (the glTF
/// export's rule).
const UNIT_TOLERANCE: f32 = 0.005;

/// One node's prim: its name, display name and slot prims.
struct NodePrim {
    name: String,
    display: String,
    /// `(lod, group, slot, prim name)` of each used slot reference.
    slots: Vec<(u8, u8, u16, String)>,
}

impl Walk<'_> {
    /// Every node's `Xform`, in the hierarchy (legacy models: one prim per
    /// slot with a mesh, under the root).
    pub(super) fn nodes(&mut self, usda: &mut Usda) -> Result<()> {
        let mut root = Siblings::default();
        root.name("Slots");
        root.name("Materials");
        if self.view.kind == Some(ModelKind::LegacyNodes) {
            self.report.note(
                Code::UsdLegacyNodes.code(),
                "legacy 24-byte node table: not decoded; every slot is shown under the root prim",
            );
            for slot in 0..self.view.slots.len() {
                if self.has_mesh[slot] {
                    let name = root.name(&format!("slot{slot}"));
                    self.slot_prim(usda, &name, None, slot as u16, true);
                }
            }
            return Ok(());
        }
        let prims = self.node_prims(root);
        let n = prims.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, node) in self.view.nodes.iter().enumerate() {
            match node.parent().map(usize::from).filter(|&p| p < i) {
                Some(p) => children[p].push(i),
                None => roots.push(i),
            }
        }
        let rest = self.model.rest_poses()?;
        // Depth first without recursion (a chain of nodes may be long): each
        // entry is a node and how many of its children are written.
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for &r in roots.iter().rev() {
            stack.push((r, 0));
            self.open_node(usda, r, &prims[r], &rest[r])?;
            while let Some(&mut (i, ref mut next)) = stack.last_mut() {
                match children[i].get(*next) {
                    Some(&c) => {
                        *next += 1;
                        stack.push((c, 0));
                        self.open_node(usda, c, &prims[c], &rest[c])?;
                    }
                    None => {
                        stack.pop();
                        usda.close();
                    }
                }
            }
        }
        Ok(())
    }

    /// The prim names: unique among siblings, each node's slot prims
    /// (`L<lod>G<group>`) named before its child nodes.
    fn node_prims(&self, mut root: Siblings) -> Vec<NodePrim> {
        let view = &self.view;
        let raw: Vec<Option<&[u8]>> = (0..view.nodes.len()).map(|i| view.node_name(i)).collect();
        let shown = names::node_names(&raw);
        let mut siblings: Vec<Siblings> = Vec::with_capacity(view.nodes.len());
        let mut prims = Vec::with_capacity(view.nodes.len());
        for (i, node) in view.nodes.iter().enumerate() {
            let mut own = Siblings::default();
            let mut slots = Vec::new();
            for lod in 0..3u8 {
                for group in 0..5u8 {
                    if let Some(slot) = node.slot(lod as usize, group as usize) {
                        slots.push((lod, group, slot, own.name(&format!("L{lod}G{group}"))));
                    }
                }
            }
            siblings.push(own);
            let display = shown[i].0.clone();
            let name = match node.parent().map(usize::from).filter(|&p| p < i) {
                Some(p) => siblings[p].name(&display),
                None => root.name(&display),
            };
            prims.push(NodePrim {
                name,
                display,
                slots,
            });
        }
        prims
    }

    /// Opens node `i`'s prim: its pose, then its slot prims (its child nodes follow).
    fn open_node(&mut self, usda: &mut Usda, i: usize, prim: &NodePrim, rest: &Pose) -> Result<()> {
        usda.open_meta(&format!("def Xform {}", text::string(&prim.name)));
        usda.custom_data(&[("mshNode", i as u64)]);
        usda.line(&format!("displayName = {}", text::string(&prim.display)));
        usda.close_meta();
        usda.open("");
        usda.line(&format!(
            "matrix4d xformOp:transform = {}",
            self.matrix(i, rest)
        ));
        if self.view.nodes[i].map_start().is_some() {
            let tracks = msh::pose::tracks(&self.view);
            let node = &self.view.nodes[i];
            usda.line("matrix4d xformOp:transform.timeSamples = {");
            for f in 0..=self.view.frame_count {
                let pose =
                    msh::anim::sample(&tracks, i, node, f as f32).map_err(msh::Error::from)?;
                usda.line(&format!("    {f}: {},", self.matrix(i, &pose)));
            }
            usda.line("}");
        }
        usda.line("uniform token[] xformOpOrder = [\"xformOp:transform\"]");
        for (lod, group, slot, name) in &prim.slots {
            let shown = *lod == self.options.lod && *group == self.options.group;
            let display = names::slot_node_name(&prim.display, i, *lod, *group);
            self.slot_prim(usda, name, Some((*lod, *group, &display)), *slot, shown);
        }
        Ok(())
    }

    /// A prim showing slot `slot`: a `Mesh` referencing its mesh in
    /// `class "Slots"` (an empty `Xform` for a slot with nothing to draw),
    /// invisible unless `shown`.
    fn slot_prim(
        &self,
        usda: &mut Usda,
        name: &str,
        lod_group: Option<(u8, u8, &str)>,
        slot: u16,
        shown: bool,
    ) {
        let mesh = self.has_mesh.get(slot as usize) == Some(&true);
        let kind = if mesh { "Mesh" } else { "Xform" };
        usda.open_meta(&format!("def {kind} {}", text::string(name)));
        match lod_group {
            Some((lod, group, display)) => {
                usda.custom_data(&[
                    ("group", group.into()),
                    ("lod", lod.into()),
                    ("mshSlot", slot.into()),
                ]);
                usda.line(&format!("displayName = {}", text::string(display)));
            }
            None => usda.custom_data(&[("mshSlot", slot.into())]),
        }
        if mesh {
            usda.line(&format!(
                "prepend references = <{}/Slots/slot{slot}>",
                self.root_path
            ));
        }
        usda.close_meta();
        usda.open("");
        if !shown {
            usda.line("token visibility = \"invisible\"");
        }
        usda.close();
    }

    /// A node's local transform as the engine builds it from a pose (its own
    /// quaternion-to-matrix formula, so a quaternion a little off unit length
    /// scales exactly as in the game), in the output frame (`C M C^T`, `C` the
    /// axis change), as USD's `matrix4d` (row vectors: the rotation block
    /// transposed, the translation in the last row). A quaternion further than
    /// [`UNIT_TOLERANCE`] from unit length is normalised first (identity when
    /// zero or not finite), as the glTF export shows it, with a note.
    fn matrix(&mut self, node: usize, pose: &Pose) -> String {
        let [w, x, y, z] = pose.rotation;
        let len = (w * w + x * x + y * y + z * z).sqrt();
        let mut pose = *pose;
        if (len - 1.0).abs() >= UNIT_TOLERANCE {
            if !self.report.has(Code::UsdDegenerateQuaternion.code()) {
                self.report.note(
                    Code::UsdDegenerateQuaternion.code(),
                    format!("node {node}: a rotation {:?} is not unit length; shown normalised (identity when zero), as in the glTF export", pose.rotation),
                );
            }
            pose.rotation = if len > 0.0 && len.is_finite() {
                [w / len, x / len, y / len, z / len]
            } else {
                [1.0, 0.0, 0.0, 0.0]
            };
        }
        let m = Affine::from_pose(&pose, self.axes.rotation).0;
        // Each entry is an f32 (the engine computes in single precision).
        let column = |j: usize| -> [f32; 3] {
            let e = self.axes.vec_back(std::array::from_fn::<f64, 3, _>(|k| {
                f64::from(u8::from(k == j))
            }));
            let v: [f64; 3] = std::array::from_fn(|r| (0..3).map(|c| m[r][c] * e[c]).sum());
            self.axes.vec(v).map(|c| c as f32)
        };
        let t = self.axes.vec([m[0][3], m[1][3], m[2][3]]).map(|c| c as f32);
        let row = |v: [f32; 3], w: f32| text::tuple_text(&[v[0], v[1], v[2], w]);
        format!(
            "( {}, {}, {}, {} )",
            row(column(0), 0.0),
            row(column(1), 0.0),
            row(column(2), 0.0),
            row(t, 1.0)
        )
    }
}
