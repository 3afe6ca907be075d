//! Each format's crate behind one shape: an export of the model's view with
//! that format's options, an import of the format's bytes to MSH. The only
//! place of the application layer that names the format crates' functions.

use crate::error::Error;
use crate::format::Format;
use crate::options::{Fps, Options};
use crate::resources::{mtllib_name, Resources};
use mshconv_convert::{ClipList, ExportView, Exported, GltfFormat, Imported};

use super::Names;

/// Whether exports to `to` take animation clips (glTF and USD; OBJ holds no
/// animation).
pub(super) fn takes_clips(to: Format) -> bool {
    matches!(to, Format::Glb | Format::Gltf | Format::Usda)
}

/// An export, with its format's options.
pub(super) enum Exporter {
    /// glTF or GLB.
    Gltf(mshconv_convert::ExportOptions),
    /// Wavefront OBJ and its MTL.
    Obj(mshconv_obj::ObjExportOptions),
    /// USD text.
    Usd(mshconv_usd::UsdOptions),
}

impl Exporter {
    /// The export to `to` with the options that apply to it, checked.
    pub(super) fn new(
        to: Format,
        options: &Options,
        names: &Names,
        clips: Option<ClipList>,
    ) -> Result<Exporter, Error> {
        let exporter = match to {
            Format::Glb | Format::Gltf => {
                let format = if to == Format::Glb {
                    GltfFormat::Glb
                } else {
                    GltfFormat::Gltf
                };
                let mut export = options.gltf_export(format, &names.model);
                export.clips = clips;
                export.check().map_err(mshconv_convert::Error::from)?;
                Exporter::Gltf(export)
            }
            Format::Obj => {
                let export = options.obj_export(format!("{}.mtl", names.file));
                export.check().map_err(mshconv_convert::Error::from)?;
                Exporter::Obj(export)
            }
            Format::Usda => {
                let export = mshconv_usd::UsdOptions {
                    lod: options.lod.get(),
                    group: options.group.get(),
                    fps: options.fps.unwrap_or(Fps::DEFAULT).get(),
                    axis: options.axis.unwrap_or_default(),
                    rotation: options.rotation.unwrap_or_default(),
                    name: names.model.clone(),
                    clips,
                };
                export.check().map_err(mshconv_convert::Error::from)?;
                Exporter::Usd(export)
            }
            Format::Msh => {
                return Err(Error::internal(
                    "a direction passed its check but has no conversion",
                ))
            }
        };
        Ok(exporter)
    }

    /// The export of `view`: the main file, the files beside it, the report.
    pub(super) fn export(&self, view: &ExportView<'_>) -> Result<Exported, Error> {
        Ok(match self {
            Exporter::Gltf(options) => mshconv_gltf::export_view(view, options)?,
            Exporter::Obj(options) => mshconv_obj::export_view(view, options)?,
            Exporter::Usd(options) => mshconv_usd::export_view(view, options)?,
        })
    }
}

/// Imports `input` (in format `from`) to MSH; `resources` gives a `.gltf`'s
/// buffers and images and an `.obj`'s `.mtl`. With `look`, the look the
/// input brings back too, from the same parse (an OBJ's from its `.mtl`).
pub(super) fn import(
    input: &[u8],
    from: Format,
    options: &Options,
    resources: &dyn Resources,
    look: bool,
) -> Result<Imported, Error> {
    match from {
        Format::Glb | Format::Gltf => {
            let side = |name: &str| resources.side_file(name);
            let import = options.gltf_import();
            if look {
                return Ok(mshconv_gltf::import_with_look(input, &import, &side)?);
            }
            let (msh, clips, report) = mshconv_gltf::import_with_clips(input, &import, &side)?;
            Ok(Imported {
                msh,
                clips,
                look: None,
                report,
            })
        }
        Format::Obj => {
            let mtl = resources.mtl(mtllib_name(input).as_deref());
            let import = options.obj_import();
            if look {
                let side = |name: &str| resources.side_file(name);
                return Ok(mshconv_obj::import_with_look(
                    input,
                    mtl.as_deref(),
                    &import,
                    &side,
                )?);
            }
            let (msh, report) = mshconv_obj::obj_to_msh(input, mtl.as_deref(), &import)?;
            Ok(Imported {
                msh,
                clips: None,
                look: None,
                report,
            })
        }
        Format::Msh | Format::Usda => Err(Error::internal(
            "a direction passed its check but has no conversion",
        )),
    }
}
