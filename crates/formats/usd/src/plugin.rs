//! USD behind the core's format seam ([`mshconv_convert::plugin`]): the
//! value the application layer's `FORMATS` row holds for `.usda` (written
//! only: the crate has no import).

use mshconv_convert::plugin::{ExportFormat, ExportSettings};
use mshconv_convert::{ExportView, Exported, Result};

/// USD text as a format of the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plugin;

impl ExportFormat for Plugin {
    fn takes_clips(&self) -> bool {
        true
    }

    fn check(&self, settings: &ExportSettings) -> Result<()> {
        Ok(settings.check()?)
    }

    fn export(&self, view: &ExportView<'_>, settings: &ExportSettings) -> Result<Exported> {
        crate::export_view(view, settings)
    }
}
