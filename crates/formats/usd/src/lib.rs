//! # mshconv_usd: MSH -> USD text (`.usda`)
//!
//! For the DCC tools built on USD. See docs/USD.md
//! for the mapping; in short:
//!
//! - the layer: `upAxis` from `--axis`, `metersPerUnit = 1` (as glTF),
//!   `timeCodesPerSecond = framesPerSecond = --fps`, one time code per game
//!   frame, the clips in `customLayerData` (`mshconv.animationClips`);
//! - one root `Xform` named after the model (`defaultPrim`), an `Xform` per
//!   MSH node in its hierarchy, its rest pose as the default value of
//!   `xformOp:translate`/`xformOp:orient` and, for an animated node, the
//!   engine's pose at every integer frame as time samples (mod `xform`);
//! - each slot with a drawable batch once, as a `Mesh` in `class "Slots"`, a
//!   `GeomSubset` per batch bound to its material (mod `mesh`); each node's
//!   used `(lod, group)` slots are prims referencing it, hidden unless they are
//!   the chosen `--lod`/`--group`;
//! - a `UsdPreviewSurface` material per MSH material index, its display colour
//!   the glTF export's; with the game's look ([`export_with_look`]) named
//!   after its MAT0 entry and textured from a PNG beside the `.usda` (mod
//!   `look`).
//!
//! The text is written by hand (mod `text`): there is no USD library in Rust.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod look;
mod mesh;
pub mod plugin;
mod text;
mod xform;

// The core's modules, under the names they had when this crate was a module of it.
use mshconv_convert::{axes, codes, error, geometry, names, palette, repeats, report};

use crate::axes::Axes;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::report::Report;
use msh::{ModelKind, ModelRef};
use mshconv_convert::look::{Look, SideFiles};
use mshconv_convert::view::{ExportView, Exported};
use text::Usda;

pub use plugin::Plugin;

/// Options of the MSH -> USD export: the neutral export settings, all of
/// which USD reads but the file stem (USD has no container choice). Defaults
/// are the glTF export's: LOD 0 and group 0 shown (the other LOD/groups are
/// hidden prims), 24 frames per second (`timeCodesPerSecond`), Y up, the
/// conjugate rotation reading, the root prim (`defaultPrim`) named `model`,
/// the clips (in the layer's `customLayerData`) none.
pub use mshconv_convert::ExportSettings as UsdOptions;

/// Converts MSH bytes to USD text (`.usda`). The input must pass strict
/// validation; terrain models are `Unsupported` (`usd.terrain`).
pub fn export(bytes: &[u8], options: &UsdOptions) -> Result<(Vec<u8>, Report)> {
    options.check()?;
    let out = export_view(&ExportView::new(bytes)?, options)?;
    Ok((out.main, out.report))
}

/// [`export`] with the game's look: each material the look resolves is named
/// after its MAT0 entry (`displayName`) and, when it has a texture, reads it
/// through a `UsdUVTexture` from `{image_stem}_{texture}.png` beside the
/// `.usda` (the glTF export's `.gltf` side file of the same name and bytes),
/// returned as side files. An empty `look` gives the bytes [`export`] gives.
pub fn export_with_look(
    bytes: &[u8],
    options: &UsdOptions,
    look: &Look,
    image_stem: &str,
) -> Result<(Vec<u8>, SideFiles, Report)> {
    options.check()?;
    let view = ExportView::new(bytes)?.with_look(look, image_stem);
    let out = export_view(&view, options)?;
    Ok((out.main, out.side, out.report))
}

/// The USD export of a model's view: the `.usda`, and with the view's look
/// (see [`export_with_look`]) the PNG textures beside it.
pub fn export_view(model: &ExportView<'_>, options: &UsdOptions) -> Result<Exported> {
    options.check()?;
    let view = model.model().clone();
    if view.kind == Some(ModelKind::Terrain) {
        return Err(Error::new(
            ErrorKind::Unsupported,
            Code::UsdTerrain.code(),
            "terrain models (Res21 triangles, no Res6/Res13) are not written as USD; convert it to glTF instead, which shows the terrain's triangles and carries its tables through",
        ));
    }
    crate::repeats::check(&view, None)?;
    if let Some(clips) = &options.clips {
        clips.check_model(&view)?;
    }
    let mut root = text::Siblings::default();
    let root_name = root.name(&options.name);
    let mut walk = Walk {
        axes: Axes {
            axis: options.axis,
            rotation: options.rotation,
        },
        options,
        report: Report::default(),
        root_path: format!("/{root_name}"),
        has_mesh: vec![false; view.slots.len()],
        view,
        model,
        look: model
            .look
            .map(|(look, stem)| look::LookState::new(look, stem)),
        clockwise: model.clockwise,
        stream15_uv: model.stream15_uv,
    };
    let mut usda = Usda::default();
    walk.layer(&mut usda, &root_name);
    usda.open_meta(&format!("def Xform {}", text::string(&root_name)));
    usda.line("kind = \"component\"");
    usda.close_meta();
    usda.open("");
    walk.slot_meshes(&mut usda)?;
    walk.materials(&mut usda);
    walk.nodes(&mut usda)?;
    usda.close();
    let side = walk.look.map(|l| l.side_files).unwrap_or_default();
    Ok(Exported {
        main: usda.out.into_bytes(),
        side,
        report: walk.report,
    })
}

/// The state of one export.
pub(crate) struct Walk<'m> {
    view: ModelRef<'m>,
    /// The export view (its rest poses, read once).
    model: &'m ExportView<'m>,
    options: &'m UsdOptions,
    axes: Axes,
    report: Report,
    /// The root prim's path, `/{name}`.
    root_path: String,
    /// Per MSH slot: whether it has a `Mesh` in `class "Slots"`.
    has_mesh: Vec<bool>,
    /// The game's look, when the export was given one.
    look: Option<look::LookState<'m>>,
    /// Whether the model's triangles wind clockwise (the view's vote; then
    /// each is written reversed).
    clockwise: bool,
    /// Whether Res15 reads as a second UV set: every record two finite floats
    /// (the glTF export's `TEXCOORD_1` rule).
    stream15_uv: bool,
}

impl Walk<'_> {
    /// The layer's header: its metadata.
    fn layer(&self, usda: &mut Usda, root_name: &str) {
        usda.line("#usda 1.0");
        usda.open_meta("");
        usda.line("customLayerData = {");
        usda.line(&format!(
            "    string generator = \"mshconv {}\"",
            env!("CARGO_PKG_VERSION")
        ));
        if let Some(clips) = &self.options.clips {
            usda.line("    dictionary mshconv = {");
            usda.line("        dictionary animationClips = {");
            for (order, clip) in clips.clips().iter().enumerate() {
                usda.line(&format!(
                    "            dictionary {} = {{",
                    text::string(&clip.name)
                ));
                usda.line(&format!("                int order = {order}"));
                usda.line(&format!(
                    "                double startTimeCode = {}",
                    clip.first
                ));
                usda.line(&format!(
                    "                double endTimeCode = {}",
                    clip.last
                ));
                usda.line(&format!(
                    "                string loopMode = \"{}\"",
                    clip.mode.as_str()
                ));
                usda.line("            }");
            }
            usda.line("        }");
            usda.line("    }");
        }
        usda.line("}");
        usda.line(&format!("defaultPrim = {}", text::string(root_name)));
        let mut fps = String::new();
        text::float(&mut fps, self.options.fps);
        if self.view.is_animated() {
            usda.line(&format!("endTimeCode = {}", self.view.frame_count));
        }
        usda.line(&format!("framesPerSecond = {fps}"));
        usda.line("metersPerUnit = 1");
        if self.view.is_animated() {
            usda.line("startTimeCode = 0");
        }
        usda.line(&format!("timeCodesPerSecond = {fps}"));
        usda.line(match self.options.axis {
            mshconv_convert::Axis::YUp => "upAxis = \"Y\"",
            mshconv_convert::Axis::ZUp => "upAxis = \"Z\"",
        });
        usda.close_meta();
        usda.line("");
    }

    /// `def Scope "Materials"`: a `UsdPreviewSurface` per MSH material index
    /// a batch uses, coloured as the glTF export colours it, or textured from
    /// the look.
    fn materials(&mut self, usda: &mut Usda) {
        let used: std::collections::BTreeSet<u16> = self
            .view
            .batches
            .iter()
            .map(|b| b.material_index.get())
            .collect();
        usda.open("def Scope \"Materials\"");
        for m in used {
            let path = format!("{}/Materials/mat{m}", self.root_path);
            let resolved = self.look.as_ref().and_then(|l| l.look.materials.get(&m));
            match resolved {
                Some(r) => {
                    usda.open_meta(&format!("def Material \"mat{m}\""));
                    usda.line(&format!("displayName = {}", text::string(&r.material.name)));
                    usda.close_meta();
                    usda.open("");
                }
                None => usda.open(&format!("def Material \"mat{m}\"")),
            }
            usda.line(&format!(
                "token outputs:surface.connect = <{path}/PreviewSurface.outputs:surface>"
            ));
            let texture = resolved.and_then(|r| r.texture.clone());
            usda.open("def Shader \"PreviewSurface\"");
            usda.line("uniform token info:id = \"UsdPreviewSurface\"");
            match &texture {
                Some(t) => look::surface_inputs(usda, &path, t),
                None => usda.line(&format!(
                    "color3f inputs:diffuseColor = {}",
                    text::tuple_text(&crate::palette::material_colour(m))
                )),
            }
            usda.line("float inputs:metallic = 0");
            usda.line("float inputs:roughness = 1");
            usda.line("token outputs:surface");
            usda.close();
            if let (Some(t), Some(state)) = (&texture, self.look.as_mut()) {
                let file = state.file(t, &mut self.report);
                look::texture_shaders(usda, &path, &file);
            }
            usda.close();
        }
        usda.close();
    }
}
