//! Exports refuse a model whose overlapping ranges would repeat a table's rows
//! past the bound `msh::repeats` sets (docs/ROBUSTNESS.md, "The exports").

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use msh::ModelRef;

/// Refuses (`export.ranges_overlap`) a model past [`msh::repeats::excess`]'s
/// bound, before any work is done. `per_node` is the LOD and group an OBJ
/// export writes once for every node (glTF writes each slot once, however
/// many nodes show it).
pub fn check(view: &ModelRef<'_>, per_node: Option<(usize, usize)>) -> Result<()> {
    match msh::repeats::excess(view, per_node) {
        None => Ok(()),
        Some(why) => Err(Error::new(
            ErrorKind::Unsupported,
            Code::ExportRangesOverlap.code(),
            format!("{why}: the model is valid but repeats the same data over and over; it is not exported"),
        )),
    }
}
