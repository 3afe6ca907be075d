//! MSH -> glTF 2.0. See docs/GLTF.md for the mapping; in short:
//! - glTF nodes `0..N` are the MSH nodes in order, rest pose = fallback key;
//! - every used (node, LOD, group) slot is a child node holding the slot's mesh,
//!   shown (scale 1) for the chosen LOD/group and hidden (scale 0) otherwise;
//! - each MSH slot is a mesh, each batch a primitive, each material index a material;
//! - Res8/Res19 become one animation (keys as they are where the engine's
//!   sampling is the glTF one, else baked per frame);
//! - what glTF cannot hold is in `extras.msh` and raw accessors (extras.rs);
//! - terrain models: every table raw in extras, the geometry shown from them
//!   (terrain.rs).

mod animation;
mod geometry;
mod glb;
mod look;
mod lossless;
mod nodes;
mod terrain;

pub(crate) use crate::geometry::shown_normal;

use super::buffer::BufferBuilder;
use super::extras as ex;
use crate::axes::Axes;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::export_options::{ExportOptions, GltfFormat};
use crate::look::Look;
use crate::report::Report;
use base64::Engine as _;
use glb::Document;
use gltf_json as json;
use gltf_json::Index;
use msh::{resource as res, Container, ModelKind, ModelRef};
use mshconv_convert::view::{ExportView, Exported};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Tolerance on `| |q| - 1 |` under which a stored quaternion is written as it
/// decodes (the validator allows 0.00769; a margin is kept).
const UNIT_TOLERANCE: f32 = 0.005;

/// Converts MSH bytes to glTF (`.glb` or `.gltf` per `options.format`).
pub fn export(bytes: &[u8], options: &ExportOptions) -> Result<(Vec<u8>, Report)> {
    document(bytes, options)?.encode(options.format)
}

/// What [`export_with_look`] makes: the `.glb` or `.gltf`, and the files
/// beside it (a `.gltf`'s PNG textures; none for a `.glb`, which embeds them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GltfFiles {
    /// The `.glb` or `.gltf`.
    pub main: Vec<u8>,
    /// `(file name, bytes)` of each file the main one names by URI.
    pub side: Vec<(String, Vec<u8>)>,
}

/// Converts MSH bytes to glTF with the game's look: materials named after the
/// resolved MAT0 entries, their textures as PNG (embedded in a `.glb`; files
/// named `{image_stem}_{texture}.png` beside a `.gltf`), and the MAT0, Texm and
/// WEAR fields PNG and glTF cannot hold in extras (docs/GLTF.md, "Textures").
/// An empty `look` gives the bytes [`export`] gives.
pub fn export_with_look(
    bytes: &[u8],
    options: &ExportOptions,
    look: &Look,
    image_stem: &str,
) -> Result<(GltfFiles, Report)> {
    options.check()?;
    let view = ExportView::new(bytes)?.with_look(look, image_stem);
    let out = export_view(&view, options)?;
    Ok((
        GltfFiles {
            main: out.main,
            side: out.side,
        },
        out.report,
    ))
}

/// The glTF export of a model's view: a `.glb` or a `.gltf` as
/// `options.format` says; with the view's look (see [`export_with_look`]),
/// a `.gltf`'s PNG textures beside it. `options.lod`/`group` choose what
/// viewers show; every other LOD/group is in the file too.
pub fn export_view(view: &ExportView<'_>, options: &ExportOptions) -> Result<Exported> {
    options.check()?;
    let mut document = document_of(view, options)?;
    let side = std::mem::take(&mut document.side_files);
    let (main, report) = document.encode(options.format)?;
    Ok(Exported { main, side, report })
}

/// The document [`export`] writes, before it is written out.
pub(crate) fn document(bytes: &[u8], options: &ExportOptions) -> Result<Document> {
    options.check()?;
    document_of(&ExportView::new(bytes)?, options)
}

/// The document of a view (its look, when it has one, included).
fn document_of(view: &ExportView<'_>, options: &ExportOptions) -> Result<Document> {
    // The tables are read where they lie (the validated view); only the
    // container's facts are copied out.
    crate::repeats::check(view.model(), None)?;
    let container = Container::of(&view.opened.archive);
    let mut exporter = Exporter::new(&container, view, options);
    exporter.look = view
        .look
        .map(|(look, stem)| look::LookState::new(look, stem));
    // The buffer holds about 1.5 bytes per input byte (floats for packed
    // values, raw tables), and the GLB is assembled in it (plus the JSON, under
    // 64 KiB for most models): sized once, no copies while it grows.
    exporter
        .buf
        .bytes
        .reserve(view.bytes.len().saturating_mul(2).saturating_add(64 << 10));
    // About five accessors (and views) per batch (positions, normals, UVs,
    // indices, one more stream), up to four per animated node (times,
    // translations, rotations and their own times), plus the raw tables.
    let accessors = exporter.view.batches.len() * 5 + exporter.view.nodes.len() * 4 + 16;
    exporter.buf.views.reserve(accessors);
    exporter.buf.accessors.reserve(accessors);
    exporter.run()?;
    exporter.extras.original_fingerprint =
        Some(mshconv_convert::look::file_fingerprint(view.bytes));
    if options.embed_original {
        exporter.extras.original = Some(crate::original::encode(view.bytes));
    }
    Ok(exporter.finish())
}

struct Exporter<'m> {
    /// The container's facts (entries, layout, header); the tables come from `view`.
    container: &'m Container,
    view: ModelRef<'m>,
    options: &'m ExportOptions,
    axes: Axes,
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
    /// The view's winding vote ([`ExportView::clockwise`]), noted by `detect_winding`.
    clockwise: bool,
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
    /// The game's look, when the export was given one (`export_with_look`).
    look: Option<look::LookState<'m>>,
}

impl<'m> Exporter<'m> {
    /// `container` gives the container's facts (entries, layout, header),
    /// `model` the tables and what every export reads of them the same way.
    fn new(container: &'m Container, model: &ExportView<'m>, options: &'m ExportOptions) -> Self {
        let view = model.model().clone();
        Exporter {
            container,
            axes: Axes {
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
            clockwise: model.clockwise,
            vertex_covered: vec![false; view.positions.len()],
            index_covered: vec![false; view.indices.len()],
            indices: model.indices.clone(),
            extras_empty: Vec::new(),
            anim_raw_nodes: false,
            stream15_uv: model.stream15_uv,
            look: None,
            view,
            options,
        }
    }

    fn run(&mut self) -> Result<()> {
        let kind = self.container.kind();
        self.extras.format = ex::Format::V1;
        self.extras.kind = kind.into();
        self.extras.options = ex::OptionsExtras {
            lod: self.options.lod,
            group: self.options.group,
            fps: self.options.fps,
            axis: self.options.axis.into(),
            rotation: self.options.rotation.into(),
        };
        if kind == ModelKind::LegacyNodes {
            self.report.note(
                Code::ExportLegacyNodes.code(),
                "legacy 24-byte node table: not decoded; every slot is shown under one root node",
            );
        }
        self.check_finite()?;
        if self.options.clips.is_some() && kind != ModelKind::Standard {
            self.report.note(
                Code::ExportClipsIgnored.code(),
                "the clips apply to standard models only: this model's animation tables travel raw",
            );
        }
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
            // Its tables stay raw (carried in extras); the geometry is read from them.
            ModelKind::Terrain => self.terrain()?,
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
        self.container_extras();
        // After every other table, so the geometry's views lie where they lie without a look.
        self.apply_look();
        Ok(())
    }

    /// glTF forbids NaN and infinity in accessors; the game's files have none.
    fn check_finite(&self) -> Result<()> {
        let bad = |what: &str, i: usize| {
            Error::new(
                ErrorKind::Unsupported,
                Code::ExportNonFinite.code(),
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
        let look = self
            .look
            .take()
            .map(look::LookState::finish)
            .unwrap_or_default();
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
            images: look.images,
            textures: look.textures,
            samplers: look.samplers,
            extras: look.root_extras,
            ..Default::default()
        };
        extras.format = ex::Format::V1;
        extras.accessors = root.accessors.len() as u32;
        extras.buffer_length = (buffer_len as u64).div_ceil(4) * 4;
        root.scenes.push(json::Scene {
            extensions: None,
            // Written typed from `Document::scene_extras`.
            extras: None,
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
            scene_extras: extras,
            mesh_extras: self.mesh_extras,
            node_extras: self.node_extras,
            bin: (buffer_len > 0).then_some(bin),
            report: self.report,
            side_files: look.side_files,
        }
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

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
