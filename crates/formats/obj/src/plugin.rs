//! OBJ behind the core's format seam ([`mshconv_convert::plugin`]): the
//! value the application layer's `FORMATS` row holds for `.obj`.

use crate::{ObjExportOptions, ObjImportOptions};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::plugin::{ExportFormat, ExportSettings, ImportFormat, ImportSettings, Inputs};
use mshconv_convert::{ExportView, Exported, Imported, Report, Result};

/// Wavefront OBJ (and its MTL) as a format of the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plugin;

impl From<&ExportSettings> for ObjExportOptions {
    /// The OBJ export's options of the neutral settings: the `.mtl` is
    /// `{file}.mtl` (OBJ holds no animation: the frame rate and clips do not apply).
    fn from(settings: &ExportSettings) -> Self {
        ObjExportOptions {
            lod: settings.lod,
            group: settings.group,
            axis: settings.axis,
            rotation: settings.rotation,
            mtl_name: format!("{}.mtl", settings.file),
        }
    }
}

impl From<&ImportSettings> for ObjImportOptions {
    /// The OBJ import's options of the neutral settings (its axis; an OBJ
    /// records none, so the default is Y up).
    fn from(settings: &ImportSettings) -> Self {
        ObjImportOptions {
            axis: settings.axis.unwrap_or_default(),
        }
    }
}

/// The file name an `.obj`'s first `mtllib` line names, trimmed.
pub fn mtllib_name(obj: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(obj);
    text.lines()
        .find_map(|l| l.trim().strip_prefix("mtllib ").map(str::trim))
        .map(str::to_string)
}

impl ExportFormat for Plugin {
    fn takes_clips(&self) -> bool {
        false
    }

    fn check(&self, settings: &ExportSettings) -> Result<()> {
        Ok(ObjExportOptions::from(settings).check()?)
    }

    fn export(&self, view: &ExportView<'_>, settings: &ExportSettings) -> Result<Exported> {
        crate::export_view(view, &ObjExportOptions::from(settings))
    }
}

impl ImportFormat for Plugin {
    fn import(
        &self,
        input: &[u8],
        settings: &ImportSettings,
        inputs: &dyn Inputs,
        look: bool,
    ) -> Result<Imported> {
        let mtl = inputs.material_library(mtllib_name(input).as_deref());
        let options = ObjImportOptions::from(settings);
        if look {
            let side = |name: &str| inputs.side_file(name);
            return crate::import_with_look(input, mtl.as_deref(), &options, &side);
        }
        let (msh, report) = crate::obj_to_msh(input, mtl.as_deref(), &options)?;
        Ok(Imported {
            msh,
            clips: None,
            look: None,
            report,
        })
    }

    fn read_look(&self, input: &[u8], inputs: &dyn Inputs) -> Result<ImportedLook> {
        // The .mtl the .obj names (nothing to bring back without one).
        let Some(mtl) = inputs.material_library(mtllib_name(input).as_deref()) else {
            return Ok(ImportedLook::default());
        };
        let mut notes = Report::default();
        let mut look =
            crate::look::read_look(&mtl, &|name: &str| inputs.side_file(name), &mut notes)?;
        // The notes of reading the .mtl, then the look's own.
        notes.notes.append(&mut look.notes);
        look.notes = notes.notes;
        Ok(look)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mtllib_line_names_the_material_library() {
        assert_eq!(
            mtllib_name(b"# x\n  mtllib  a.mtl \nv 0 0 0\n").as_deref(),
            Some("a.mtl")
        );
        assert_eq!(mtllib_name(b"v 0 0 0\n"), None);
    }
}
