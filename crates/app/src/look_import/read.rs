//! What an input brings back of its look, for [`super::plan`]: the glTF's or
//! the OBJ's materials and images, read once here for every front end (the
//! CLI's `convert`/`batch` and the service's `archive/put`), and the line
//! that says what a plan does to one library entry.

use super::Change;
use crate::error::Error;
use crate::{Format, Resources};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::Report;

/// Whether a conversion from `from` brings a look back (glTF, GLB and OBJ
/// do: [`crate::format::FormatSpec::brings_look`]).
pub fn brings_look(from: Format) -> bool {
    from.spec().brings_look
}

/// The look of the glTF or OBJ `input` (of format `from`), its images and an
/// OBJ's `.mtl` found through `resources` (the format's plug-in reads it),
/// and the notes of reading it.
pub fn read_look(
    input: &[u8],
    from: Format,
    resources: &dyn Resources,
) -> Result<(ImportedLook, Report), Error> {
    let look = crate::convert::importer(from)?.read_look(input, resources)?;
    Ok(notes_apart(look))
}

/// A look read back and the notes of reading it, apart (the front ends
/// report the notes beside the look's plan).
pub(crate) fn notes_apart(mut look: ImportedLook) -> (ImportedLook, Report) {
    let notes = Report {
        notes: std::mem::take(&mut look.notes),
    };
    (look, notes)
}

/// `Textures.lib: add RUST (material 1: 8888 128 x 32, 8 mips)`: what a plan
/// does to one library entry (`note[look.entry]`, `--dry-run`).
pub fn change_line(c: &Change) -> String {
    format!(
        "{}: {} {} ({})",
        c.library,
        c.action.verb(),
        c.entry,
        c.detail
    )
}
