//! One glTF mesh's primitives as scene batches: read in the mesh's own frame
//! (`MeshReader`), then placed in a node's frame and the game's axes (`place`).

use super::linear::{apply, apply_affine, det3, inverse_transpose, normalize3, Affine};
use super::read::Source;
use crate::axes::Axes;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::extras as ex;
use crate::report::Report;
use crate::scene::SceneBatch;
use std::collections::{BTreeMap, HashMap};

mod morph;

/// What reading and placing meshes noted, each kind reported once with its
/// count ([`MeshNotes::report`]).
#[derive(Debug, Default)]
pub(super) struct MeshNotes {
    /// Per mesh (its name, cut to 64 characters), primitives that are not triangles.
    skipped: BTreeMap<String, usize>,
    /// Per mesh (named as in `skipped`), primitives without `POSITION`.
    no_positions: BTreeMap<String, usize>,
    /// The glTF meshes (index, then name as in `skipped`) with a drawn
    /// primitive without normals, and without UVs: what a user counts, where
    /// the assembler counts the pieces they became on every node.
    no_normals: BTreeMap<usize, String>,
    no_uvs: BTreeMap<usize, String>,
    /// Batches placed under a zero scale.
    degenerate: usize,
    /// Primitives shaped by their morph targets' default weights.
    morphed: usize,
    /// Per TEXCOORD set other than 0, primitives whose UVs came from it.
    uv_sets: BTreeMap<u32, usize>,
    /// Skinned meshes made into rigid nodes: (mesh, skin, joints).
    pub rigid: Vec<(String, usize, usize)>,
}

impl MeshNotes {
    /// One note of each kind that arose.
    pub(super) fn report(self, report: &mut Report) {
        if !self.skipped.is_empty() {
            let total: usize = self.skipped.values().sum();
            let names: Vec<String> = self
                .skipped
                .keys()
                .take(4)
                .map(|n| format!("{n:?}"))
                .collect();
            let more = self.skipped.len().saturating_sub(4);
            report.note(
                Code::ImportPrimitiveSkipped.code(),
                format!(
                    "{total} primitives that are not triangles (points or lines) were left out (only triangles are models), of mesh {}{}",
                    names.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ),
            );
        }
        if !self.no_positions.is_empty() {
            let total: usize = self.no_positions.values().sum();
            let names: Vec<String> = self.no_positions.keys().map(|n| format!("{n:?}")).collect();
            report.note(
                Code::ImportPrimitiveSkipped.code(),
                format!(
                    "{total} primitives without POSITION were left out (they draw nothing), of {} meshes: {}",
                    names.len(),
                    crate::report::few(&names)
                ),
            );
        }
        for (meshes, code, what) in [
            (
                &self.no_normals,
                Code::ImportNormalsComputed,
                "vertex normals were missing on {} and were computed from the faces: {}",
            ),
            (
                &self.no_uvs,
                Code::ImportUvsZero,
                "{} no texture coordinates; they were set to 0: {}",
            ),
        ] {
            if meshes.is_empty() {
                continue;
            }
            let names: Vec<String> = meshes.values().cloned().collect();
            let count = if code == Code::ImportUvsZero {
                crate::report::counted(names.len(), "mesh has", "meshes have")
            } else {
                crate::report::counted(names.len(), "mesh", "meshes")
            };
            let few = crate::report::few(&names);
            report.note(
                code.code(),
                what.replacen("{}", &count, 1).replacen("{}", &few, 1),
            );
        }
        if self.degenerate > 0 {
            report.note(
                Code::ImportDegenerateTransform.code(),
                format!(
                    "{} mesh parts sit under a zero scale; their geometry collapses to a point",
                    self.degenerate
                ),
            );
        }
        if self.morphed > 0 {
            report.note(
                Code::ImportMorphWeightsApplied.code(),
                format!("the default morph weights (mesh or node weights) shape {} primitives: applied to their positions (and normals where the targets have them), as a viewer shows them", self.morphed),
            );
        }
        for (set, count) in self.uv_sets {
            report.note(
                Code::ImportUvSet.code(),
                format!("the base colour texture reads TEXCOORD_{set} on {count} primitives: that set (with its texture transform) became their UVs (Res5)"),
            );
        }
        if !self.rigid.is_empty() {
            // A skinned mesh on many nodes is one mesh to the user: named once.
            let mut list: Vec<String> = Vec::new();
            for (m, skin, joints) in &self.rigid {
                let entry = format!("{m} (skin {skin}, {joints} joints)");
                if !list.contains(&entry) {
                    list.push(entry);
                }
            }
            report.note(
                super::skin::RIGID,
                format!(
                    "{}: each triangle went to the MSH node of its dominant joint: {}",
                    crate::report::counted(list.len(), "skinned mesh", "skinned meshes"),
                    crate::report::few(&list)
                ),
            );
        }
    }
}

/// The batches of one glTF mesh in its own frame (see [`MeshReader`]);
/// `weights` are the node's morph weights, if it has its own.
pub(super) fn mesh_batches(
    src: &Source<'_>,
    mesh: &gltf::Mesh<'_>,
    weights: Option<&[f32]>,
    materials: &[u16],
    notes: &mut MeshNotes,
) -> Result<Vec<SceneBatch>> {
    let mut reader = MeshReader::new(mesh, weights, materials);
    let mut out: Vec<SceneBatch> = Vec::new();
    for prim in mesh.primitives() {
        if let Some(batch) = reader.read(src, &prim, notes)? {
            out.push(batch);
        }
    }
    Ok(out)
}

/// Batches read by [`mesh_batches`], moved by `m` (node-local frame) then into the game frame.
pub(super) fn placed(
    mut batches: Vec<SceneBatch>,
    m: &Affine,
    axes: &Axes,
    winding_cw: bool,
    notes: &mut MeshNotes,
) -> Vec<SceneBatch> {
    for batch in &mut batches {
        place(batch, m, axes, winding_cw, notes);
    }
    batches
}

/// Moves a batch read in its mesh's frame by `m` (node-local frame) then into
/// the game frame; a mirroring `m` (or a clockwise file) turns the triangles over.
pub(super) fn place(
    batch: &mut SceneBatch,
    m: &Affine,
    axes: &Axes,
    winding_cw: bool,
    notes: &mut MeshNotes,
) {
    let lin = [
        [m[0][0], m[0][1], m[0][2]],
        [m[1][0], m[1][1], m[1][2]],
        [m[2][0], m[2][1], m[2][2]],
    ];
    let det = det3(&lin);
    let normal_m = inverse_transpose(&lin);
    for p in &mut batch.positions {
        *p = axes.vec_back(apply_affine(m, p.map(f64::from)).map(|c| c as f32));
    }
    // A normal that is not finite stays so: the file does not know it.
    for v in batch.normals.iter_mut().flatten() {
        if v.iter().all(|c| c.is_finite()) {
            *v = axes.vec_back(normalize3(apply(&normal_m, v.map(f64::from))).map(|c| c as f32));
        }
    }
    if det < 0.0 || winding_cw {
        batch.triangles.iter_mut().for_each(|t| t.swap(1, 2));
    }
    if det == 0.0 {
        notes.degenerate += 1;
    }
}

/// Reads the primitives of one mesh as batches in the mesh's own frame
/// (triangles, as glTF winds them), matching each to the batch fields the
/// mesh's extras recorded.
pub(super) struct MeshReader<'m> {
    mesh_name: String,
    mesh_index: usize,
    /// The morph weights in force (the node's, else the mesh's).
    weights: Vec<f32>,
    materials: &'m [u16],
    /// The recorded batch fields of each material, in order.
    recorded_of: HashMap<u16, Vec<[u16; 4]>>,
    /// How many primitives of each material came so far.
    seen_of: HashMap<u16, usize>,
}

impl<'m> MeshReader<'m> {
    /// A reader of `mesh`'s primitives; `weights` are the node's morph
    /// weights (else the mesh's apply); `materials` maps glTF material
    /// indices to MSH ones.
    pub(super) fn new(
        mesh: &gltf::Mesh<'_>,
        weights: Option<&[f32]>,
        materials: &'m [u16],
    ) -> Self {
        let mut recorded_of: HashMap<u16, Vec<[u16; 4]>> = HashMap::new();
        for b in ex::unwrap::<ex::SlotExtras>(mesh.extras())
            .map(|s| s.batches)
            .unwrap_or_default()
        {
            recorded_of
                .entry(b.material)
                .or_default()
                .push([b.flags, b.opaque4, b.opaque6, b.opaque14]);
        }
        MeshReader {
            mesh_name: mesh.name().unwrap_or("").chars().take(64).collect(),
            mesh_index: mesh.index(),
            weights: weights.or(mesh.weights()).unwrap_or_default().to_vec(),
            materials,
            recorded_of,
            seen_of: HashMap::new(),
        }
    }

    /// The batch of one primitive, `None` when it is not triangles (counted
    /// for the note) or has no positions. The morph targets' default weights
    /// are applied; the UVs are the set the base colour texture reads.
    pub(super) fn read(
        &mut self,
        src: &Source<'_>,
        prim: &gltf::Primitive<'_>,
        notes: &mut MeshNotes,
    ) -> Result<Option<SceneBatch>> {
        // Every primitive visited counts against the read budget: a mesh of many
        // empty primitives on many nodes is work without data.
        src.visit()?;
        let mode = prim.mode();
        use gltf::mesh::Mode;
        if !matches!(
            mode,
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
        ) {
            *notes.skipped.entry(self.mesh_name.clone()).or_default() += 1;
            return Ok(None);
        }
        let Some(pa) = prim.get(&gltf::Semantic::Positions) else {
            *notes
                .no_positions
                .entry(self.mesh_name.clone())
                .or_default() += 1;
            return Ok(None);
        };
        let mut positions: Vec<[f32; 3]> = src.floats::<3>(&pa)?;
        let n = positions.len();
        let mut normals = match prim.get(&gltf::Semantic::Normals) {
            Some(a) => Some(src.normals(&a)?),
            None => None,
        };
        if self.weights.iter().any(|&w| w != 0.0)
            && morph::apply(
                src,
                self.mesh_index,
                prim,
                &self.weights,
                &mut positions,
                normals.as_mut(),
            )?
        {
            notes.morphed += 1;
        }
        let uv = |set| -> Result<Option<Vec<[f32; 2]>>> {
            match prim.get(&gltf::Semantic::TexCoords(set)) {
                Some(a) => Ok(Some(src.texcoords(&a, set, prim.material().index())?)),
                None => Ok(None),
            }
        };
        let colors = match prim.get(&gltf::Semantic::Colors(0)) {
            Some(a) => {
                let rgba: Vec<[f32; 4]> = match a.dimensions() {
                    gltf::accessor::Dimensions::Vec3 => src
                        .floats::<3>(&a)?
                        .into_iter()
                        .map(|c| [c[0], c[1], c[2], 1.0])
                        .collect(),
                    _ => src.floats::<4>(&a)?,
                };
                Some(
                    rgba.into_iter()
                        .map(|c| c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8))
                        .collect::<Vec<_>>(),
                )
            }
            None => None,
        };
        let indices: Vec<u32> = match prim.indices() {
            Some(a) => src.indices(&a)?,
            None => (0..n as u32).collect(),
        };
        if let Some(&bad) = indices.iter().find(|&&i| i as usize >= n) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                Code::GltfBadIndex.code(),
                format!("an index ({bad}) is past the primitive's {n} vertices"),
            ));
        }
        let mut triangles: Vec<[u32; 3]> = match mode {
            Mode::Triangles => indices
                .chunks_exact(3)
                .map(|t| [t[0], t[1], t[2]])
                .collect(),
            Mode::TriangleStrip => (2..indices.len())
                .map(|i| {
                    if i % 2 == 0 {
                        [indices[i - 2], indices[i - 1], indices[i]]
                    } else {
                        [indices[i - 1], indices[i - 2], indices[i]]
                    }
                })
                .collect(),
            _ => (2..indices.len())
                .map(|i| [indices[0], indices[i - 1], indices[i]])
                .collect(),
        };
        triangles.retain(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
        let material = prim
            .material()
            .index()
            .and_then(|i| self.materials.get(i).copied())
            .unwrap_or(0);
        // Unknown batch fields recorded on the mesh (Blender drops primitive extras);
        // primitives of one material are matched to the recorded batches in order.
        let nth = self.seen_of.entry(material).or_default();
        let fields = self
            .recorded_of
            .get(&material)
            .and_then(|list| list.get(*nth).or(list.first()))
            .copied()
            .unwrap_or([0; 4]);
        *nth += 1;
        // The set the base colour texture reads is what the model shows.
        let set = prim
            .material()
            .index()
            .map_or(0, |m| src.extensions.base_color_set(m));
        let uv0 = match uv(set)? {
            Some(uv) if set != 0 => {
                *notes.uv_sets.entry(set).or_default() += 1;
                Some(uv)
            }
            Some(uv) => Some(uv),
            None => uv(0)?,
        };
        let label = || match self.mesh_name.as_str() {
            "" => format!("mesh {}", self.mesh_index),
            name => format!("{name:?}"),
        };
        if normals.is_none() {
            notes
                .no_normals
                .entry(self.mesh_index)
                .or_insert_with(label);
        }
        if uv0.is_none() {
            notes.no_uvs.entry(self.mesh_index).or_insert_with(label);
        }
        Ok(Some(SceneBatch {
            material,
            positions,
            normals,
            uv0,
            // Res15 is the source's TEXCOORD_1 as it is: a texture transform
            // belongs to the base colour's set only (Res5).
            uv1: match prim.get(&gltf::Semantic::TexCoords(1)) {
                Some(a) => Some(src.floats::<2>(&a)?),
                None => None,
            },
            colors,
            triangles,
            fields,
        }))
    }
}
