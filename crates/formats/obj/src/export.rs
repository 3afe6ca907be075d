//! MSH -> OBJ + MTL: pose one LOD/group in world space, then write text.
//!
//! Posing and writing are separate steps ([`pose`], [`write_obj`]) so the
//! writer can be measured on its own (`obj::bench`).

use super::{material_colour, ObjExportOptions, ObjFiles};
use crate::axes::Axes;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::names;
use crate::options::rotation_name;
use crate::report::Report;
use msh::pose::Affine;
use msh::{ModelKind, ModelRef};
use mshconv_convert::geometry::{batch_indices, dot};
use mshconv_convert::view::{ExportView, Exported};
use std::fmt::Write as _;

/// One `o`: a node's geometry at the chosen LOD/group, in world space, output frame.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ObjMesh {
    /// The `o` name (the glTF node name).
    pub name: String,
    /// `v`.
    pub positions: Vec<[f32; 3]>,
    /// `vt`, one per position, when the model has UV0.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// `vn`, one per position, when the model has normals.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Runs of triangles (indices into `positions`) with one material each, in batch order.
    pub runs: Vec<(u16, Vec<[u32; 3]>)>,
}

/// What [`pose`] produces: the objects, the material indices they use (sorted), the notes.
pub(crate) struct Posed {
    pub meshes: Vec<ObjMesh>,
    pub materials: Vec<u16>,
    pub report: Report,
}

/// Converts MSH bytes to an OBJ and its MTL. The input must pass strict validation.
pub fn export(bytes: &[u8], options: &ObjExportOptions) -> Result<(ObjFiles, Report)> {
    let posed = pose(bytes, options)?;
    Ok((plain_files(&posed, options), posed.report))
}

/// The OBJ and MTL without the game's look.
fn plain_files(posed: &Posed, options: &ObjExportOptions) -> ObjFiles {
    ObjFiles {
        obj: write_obj(&posed.meshes, &header(options), &options.mtl_name),
        mtl: write_mtl(&posed.materials),
        mtl_name: options.mtl_name.clone(),
    }
}

/// The OBJ export of a model's view: the `.obj`, then beside it its `.mtl`
/// (named `options.mtl_name`) and, with the view's look (see
/// [`export_with_look`]), the PNG textures the `.mtl` names.
pub fn export_view(view: &ExportView<'_>, options: &ObjExportOptions) -> Result<Exported> {
    options.check()?;
    let posed = pose_view(view, options)?;
    let (files, mut side, report) = match view.look {
        None => (plain_files(&posed, options), Vec::new(), posed.report),
        Some((look, image_stem)) => with_look(posed, options, look, image_stem),
    };
    side.insert(0, (files.mtl_name, files.mtl));
    Ok(Exported {
        main: files.obj,
        side,
        report,
    })
}

/// Validates the model and poses the chosen LOD/group of every node in world space.
pub(crate) fn pose(bytes: &[u8], options: &ObjExportOptions) -> Result<Posed> {
    options.check()?;
    pose_view(&ExportView::new(bytes)?, options)
}

/// Poses the chosen LOD/group of every node of a view in world space.
fn pose_view(model: &ExportView<'_>, options: &ObjExportOptions) -> Result<Posed> {
    let view = model.model().clone();
    match view.kind {
        Some(ModelKind::LegacyNodes) => {
            return Err(Error::new(
                ErrorKind::Unsupported,
                Code::ObjLegacyNodes.code(),
                "the model has the legacy 24-byte node table (MTCHECK.MSH), whose nodes are not decoded, so there is no hierarchy to pose for OBJ; convert it to glTF instead, which carries it through",
            ))
        }
        Some(ModelKind::Terrain) => {
            return Err(Error::new(
                ErrorKind::Unsupported,
                Code::ObjTerrain.code(),
                "terrain models (Res21 triangles, no Res6/Res13) are not written as OBJ, which could not bring their tables back; convert it to glTF instead, which shows the terrain's triangles and carries its tables through",
            ))
        }
        _ => {}
    }
    let (lod, group) = (options.lod as usize, options.group as usize);
    crate::repeats::check(&view, Some((lod, group)))?;
    let axes = Axes {
        axis: options.axis,
        rotation: options.rotation,
    };
    let mut report = Report::default();
    let poses = model.rest_poses()?;
    let world = msh::pose::compose(&view, &poses, options.rotation);
    let indices = &model.indices;
    let cw = model.clockwise;
    if cw {
        report.note(
            Code::ObjWindingFlipped.code(),
            "triangles wind clockwise seen from their normals' side; written reversed so OBJ's counter-clockwise front faces match (an import keeps the OBJ's winding)",
        );
    }
    let raw_names: Vec<Option<&[u8]>> = (0..view.nodes.len()).map(|i| view.node_name(i)).collect();
    let node_names = names::node_names(&raw_names);
    let mut meshes = Vec::new();
    let mut materials = Vec::new();
    let mut zero_normals = false;
    let mut posed = false;
    let mut skipped = 0usize;
    let mut other_slots = 0usize;
    for (i, node) in view.nodes.iter().enumerate() {
        other_slots += (0..3)
            .flat_map(|l| (0..5).map(move |g| (l, g)))
            .filter(|&(l, g)| (l, g) != (lod, group) && node.slot(l, g).is_some())
            .count();
        let tris = node
            .slot(lod, group)
            .and_then(|s| view.slots.get(s as usize))
            .map(|s| slot_triangles(&view, indices, s))
            .unwrap_or_default();
        if tris.is_empty() {
            skipped += 1;
            continue;
        }
        let w = world[i];
        posed |= w != Affine::IDENTITY;
        let flip = cw ^ (det(&w) < 0.0);
        let mut used: Vec<u32> = tris.iter().flat_map(|(_, t)| t.iter().copied()).collect();
        used.sort_unstable();
        used.dedup();
        let local = |v: u32| used.binary_search(&v).map_or(0, |k| k as u32);
        let mut runs: Vec<(u16, Vec<[u32; 3]>)> = Vec::new();
        for (material, [a, b, c]) in tris {
            let t = if flip {
                [local(a), local(c), local(b)]
            } else {
                [local(a), local(b), local(c)]
            };
            match runs.last_mut() {
                Some((m, list)) if *m == material => list.push(t),
                _ => runs.push((material, vec![t])),
            }
            materials.push(material);
        }
        let mut positions = Vec::with_capacity(used.len());
        for &v in &used {
            let p = view.positions[v as usize].map(|c| c.get() as f64);
            let q = w.point(p).map(|c| c as f32);
            if q.iter().any(|c| !c.is_finite()) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    Code::ObjNonFinite.code(),
                    format!(
                        "vertex {v} of node {i} ({}) is not a finite number once posed; fix the position or the node's rest pose in the MSH first",
                        node_names[i].0
                    ),
                ));
            }
            positions.push(axes.vec(q));
        }
        let normals = view.normals.map(|ns| {
            used.iter()
                .map(|&v| {
                    let n = ns[v as usize].decode().map(f64::from);
                    let unit = unit(w.vector(n)).unwrap_or_else(|| {
                        // A zero normal: shown as the node's +Z, as the glTF export does.
                        zero_normals = true;
                        unit(w.vector([0.0, 0.0, 1.0])).unwrap_or([0.0, 0.0, 1.0])
                    });
                    axes.vec(unit.map(|c| c as f32))
                })
                .collect()
        });
        let uvs = view
            .uv0
            .map(|uv| used.iter().map(|&v| uv[v as usize].decode()).collect());
        meshes.push(ObjMesh {
            name: node_names[i].0.clone(),
            positions,
            uvs,
            normals,
            runs,
        });
    }
    if zero_normals {
        report.note(
            Code::ObjZeroNormal.code(),
            "zero-length vertex normals are written as their node's +Z",
        );
    }
    if posed {
        report.note(
            Code::ObjPoseBaked.code(),
            "geometry is written in world space with each node's rest pose applied through the hierarchy; OBJ has no node transforms, so it comes back baked under root nodes",
        );
    }
    if view.is_animated() {
        report.note(
            Code::ObjAnimationDropped.code(),
            "the model is animated; OBJ holds no animation, only the rest pose is written",
        );
    }
    if other_slots > 0 {
        report.note(
            Code::ObjSlotsDropped.code(),
            format!(
                "{other_slots} slot reference(s) at other LOD/groups are not written; OBJ holds one LOD/group (choose it with lod/group)"
            ),
        );
    }
    if skipped > 0 {
        report.note(
            Code::ObjNodesWithoutGeometry.code(),
            format!(
                "{skipped} of {} node(s) have no triangles at LOD {lod} group {group} and are not in the OBJ",
                view.nodes.len()
            ),
        );
    }
    materials.sort_unstable();
    materials.dedup();
    Ok(Posed {
        meshes,
        materials,
        report,
    })
}

/// The slot's triangles, `(material, absolute vertex indices)`, in batch order.
fn slot_triangles(
    view: &ModelRef<'_>,
    indices: &[u16],
    s: &msh::raw::Slot68,
) -> Vec<(u16, [u32; 3])> {
    let (bs, bc) = (s.batch_start.get() as usize, s.batch_count.get() as usize);
    let batches = view.batches.get(bs..bs + bc).unwrap_or(&[]);
    let mut out = Vec::new();
    for b in batches {
        let base = b.base_vertex.get();
        for t in batch_indices(indices, b).unwrap_or(&[]).chunks_exact(3) {
            let abs = [0, 1, 2].map(|k| base.saturating_add(t[k] as u32));
            if abs.iter().all(|&v| (v as usize) < view.positions.len()) {
                out.push((b.material_index.get(), abs));
            }
        }
    }
    out
}

/// Writes the OBJ text: header, `mtllib`, then per mesh `o`, `v`, `vt`, `vn`, `usemtl`, `f`.
pub(crate) fn write_obj(meshes: &[ObjMesh], header: &str, mtl_name: &str) -> Vec<u8> {
    let estimate: usize = meshes
        .iter()
        .map(|m| m.positions.len() * 100 + m.runs.iter().map(|r| r.1.len() * 40).sum::<usize>())
        .sum();
    let mut out = String::with_capacity(estimate + header.len() + 64);
    out.push_str(header);
    // Writing into a String cannot fail: the fmt::Result of `write!` is always Ok.
    let _ = writeln!(out, "mtllib {mtl_name}");
    let mut base = 1usize;
    for m in meshes {
        let _ = writeln!(out, "o {}", m.name);
        for [x, y, z] in &m.positions {
            let _ = writeln!(out, "v {x} {y} {z}");
        }
        for [u, v] in m.uvs.iter().flatten() {
            let _ = writeln!(out, "vt {u} {v}");
        }
        for [x, y, z] in m.normals.iter().flatten() {
            let _ = writeln!(out, "vn {x} {y} {z}");
        }
        let (uv, normal) = (m.uvs.is_some(), m.normals.is_some());
        for (material, tris) in &m.runs {
            let _ = writeln!(out, "usemtl {}", names::material_name(*material, 0));
            for t in tris {
                out.push('f');
                for &v in t {
                    let i = base + v as usize;
                    let _ = match (uv, normal) {
                        (true, true) => write!(out, " {i}/{i}/{i}"),
                        (true, false) => write!(out, " {i}/{i}"),
                        (false, true) => write!(out, " {i}//{i}"),
                        (false, false) => write!(out, " {i}"),
                    };
                }
                out.push('\n');
            }
        }
        base += m.positions.len();
    }
    out.into_bytes()
}

/// Converts MSH bytes to an OBJ and its MTL with the game's look: each
/// material the look resolves keeps its `newmtl mat<k>` name (the importer
/// reads the index from it) with the MAT0 name in a comment, `Kd 1 1 1` and
/// `map_Kd {image_stem}_{texture}.obj.png`; the PNG files (rows bottom up, see
/// [`mshconv_convert::look::Texture::png_bottom_up`]) are returned beside. The `.obj`
/// is the one [`export`] writes.
pub fn export_with_look(
    bytes: &[u8],
    options: &ObjExportOptions,
    look: &mshconv_convert::look::Look,
    image_stem: &str,
) -> Result<(ObjFiles, mshconv_convert::look::SideFiles, Report)> {
    options.check()?;
    let view = ExportView::new(bytes)?;
    let posed = pose_view(&view, options)?;
    Ok(with_look(posed, options, look, image_stem))
}

/// The OBJ, the MTL with the game's look, and the PNG files it names.
fn with_look(
    posed: Posed,
    options: &ObjExportOptions,
    look: &mshconv_convert::look::Look,
    image_stem: &str,
) -> (ObjFiles, mshconv_convert::look::SideFiles, Report) {
    let obj = write_obj(&posed.meshes, &header(options), &options.mtl_name);
    let mut out = format!(
        "# mshconv {}: MSH material indices as OBJ materials (mat<index>), resolved through the game folder\n",
        env!("CARGO_PKG_VERSION")
    );
    let mut side: Vec<(String, Vec<u8>)> = Vec::new();
    // Texture name -> its file.
    let mut file_of: std::collections::BTreeMap<&str, String> = Default::default();
    for &m in &posed.materials {
        let name = names::material_name(m, 0);
        match look.materials.get(&m) {
            Some(r) => {
                let _ = writeln!(
                    out,
                    "\n# {} ({})\nnewmtl {name}",
                    r.material.name.replace(['\r', '\n'], " "),
                    r.resolution.name()
                );
                match &r.texture {
                    Some(t) => {
                        let file = match file_of.get(t.name.as_str()) {
                            Some(f) => f.clone(),
                            None => {
                                // `.obj.png`: not the name of the glTF export's
                                // (top-down) PNG of the same model and texture.
                                let file = mshconv_convert::look::side_file_name(
                                    image_stem,
                                    &t.name,
                                    "obj.png",
                                    side.len(),
                                    |f| side.iter().any(|(n, _)| n == f),
                                );
                                side.push((file.clone(), t.png_bottom_up().to_vec()));
                                file_of.insert(&t.name, file.clone());
                                file
                            }
                        };
                        let _ = writeln!(out, "Kd 1 1 1\nmap_Kd {file}");
                    }
                    None => {
                        let [r, g, b] = material_colour(m);
                        let _ = writeln!(out, "Kd {r} {g} {b}");
                    }
                }
            }
            None => {
                let [r, g, b] = material_colour(m);
                let _ = writeln!(out, "\nnewmtl {name}\nKd {r} {g} {b}");
            }
        }
    }
    let files = ObjFiles {
        obj,
        mtl: out.into_bytes(),
        mtl_name: options.mtl_name.clone(),
    };
    (files, side, posed.report)
}

/// The `.obj`'s header comment.
fn header(options: &ObjExportOptions) -> String {
    format!(
        "# mshconv {}: MSH -> OBJ, LOD {} group {}, {}, rotation {}\n# geometry in world space, rest pose applied through the hierarchy (docs/OBJ.md)\n",
        env!("CARGO_PKG_VERSION"),
        options.lod,
        options.group,
        options.axis,
        rotation_name(options.rotation)
    )
}

/// Writes the MTL text: one `newmtl mat<k>` with a stable `Kd` colour per index.
pub(crate) fn write_mtl(materials: &[u16]) -> Vec<u8> {
    let mut out = format!(
        "# mshconv {}: MSH material indices as OBJ materials (mat<index>)\n",
        env!("CARGO_PKG_VERSION")
    );
    for &m in materials {
        let [r, g, b] = material_colour(m);
        let _ = writeln!(
            out,
            "\nnewmtl {}\nKd {r} {g} {b}",
            names::material_name(m, 0)
        );
    }
    out.into_bytes()
}

fn unit(v: [f64; 3]) -> Option<[f64; 3]> {
    let len = dot(v, v).sqrt();
    (len > 1e-12 && len.is_finite()).then(|| v.map(|c| c / len))
}

fn det(a: &Affine) -> f64 {
    let m = &a.0;
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}
