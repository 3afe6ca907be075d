//! glTF behind the core's format seam ([`mshconv_convert::plugin`]): the
//! value the application layer's `FORMATS` rows hold for `.glb` and `.gltf`.

use crate::export_options::{ExportOptions, GltfFormat};
use crate::import::{self, ImportOptions};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::plugin::{ExportFormat, ExportSettings, ImportFormat, ImportSettings, Inputs};
use mshconv_convert::{ExportView, Exported, Imported, Result};

/// glTF as a format of the tools: exports write `.glb` or `.gltf` as the
/// value says; imports read either (the bytes tell which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plugin(pub GltfFormat);

impl From<&ImportSettings> for ImportOptions {
    /// The glTF import's options of the neutral settings (the key reduction's
    /// tolerances at their defaults).
    fn from(settings: &ImportSettings) -> Self {
        ImportOptions {
            fps: settings.fps,
            axis: settings.axis,
            rotation: settings.rotation,
            animation: settings.animation.clone(),
            original: settings.original.clone(),
            ..Default::default()
        }
    }
}

impl ExportFormat for Plugin {
    fn takes_clips(&self) -> bool {
        true
    }

    fn check(&self, settings: &ExportSettings) -> Result<()> {
        Ok(ExportOptions::from_settings(settings, self.0).check()?)
    }

    fn export(&self, view: &ExportView<'_>, settings: &ExportSettings) -> Result<Exported> {
        crate::export_view(view, &ExportOptions::from_settings(settings, self.0))
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
        let side = |name: &str| inputs.side_file(name);
        let options = ImportOptions::from(settings);
        if look {
            return import::import_with_look(input, &options, &side);
        }
        let (msh, clips, report) = import::import_with_clips(input, &options, &side)?;
        Ok(Imported {
            msh,
            clips,
            look: None,
            report,
        })
    }

    fn read_look(&self, input: &[u8], inputs: &dyn Inputs) -> Result<ImportedLook> {
        import::look::read_look(input, &|name: &str| inputs.side_file(name))
    }
}
