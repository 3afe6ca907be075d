//! What a model (or an archive) holds, as data: the output shapes of
//! `mshconv inspect`, `pose`, `validate --json` and `nres list --json`, shared
//! by the command-line tool and the HTTP service so that both show the same.
//!
//! - [`check`] validates a file into a [`FileResult`] (never failing: damage
//!   becomes findings);
//! - [`inspect()`] builds one [`Inspection`] of an opened model (the CLI prints
//!   it as stable text or as JSON; the service as JSON);
//! - [`PoseDoc`] is every node's local pose at one time, in the shape of
//!   `mshconv pose --json`; [`not_poseable`] says which models have none;
//! - [`entry_rows`] lists an archive's directory as [`EntryRow`]s, with each
//!   type id also as text ([`type_text`]);
//! - [`check_archive`] and [`inspect_archive`] check and summarise every model
//!   of an archive of models (`validate ARCHIVE`, `inspect ARCHIVE`);
//! - [`validate()`] checks a file as `validate` does: a game library
//!   (`Material.lib`, `Textures.lib`) by its MAT0 or Texm entries
//!   ([`check_library`]), anything else as a model.
//!
//! Every type here serialises with serde; [`F32`] writes the f32 values that
//! JSON cannot hold (NaN, infinities) as strings, so nothing is lost. The
//! model's own serialisable types ([`msh::Finding`], [`msh::ModelKind`]) come
//! from `msh`'s `serde` feature.
//!
//! Every table access is bounds-checked: in tolerant mode a damaged model is
//! shown as far as it can be read.
//!
//! ```
//! # fn demo(bytes: &[u8]) -> msh::Result<()> {
//! use mshconv_app::report;
//! let opened = msh::open(bytes, msh::Mode::Strict)?;
//! let inspection = report::inspect("tank.msh", &opened);
//! println!("{} nodes, {} slots", inspection.nodes.len(), inspection.slots.len());
//! let poses = msh::pose::local_poses(&opened.view, 2.5)?;
//! let doc = report::PoseDoc::new(&opened.view, 2.5, &poses);
//! assert_eq!(doc.nodes.len(), opened.view.nodes.len());
//! # Ok(()) }
//! ```

mod archive;
mod entries;
mod float;
mod inspect;
mod library;
mod pose;
mod validate;

pub use archive::{
    check_archive, inspect_archive, type_label, type_text, ArchiveCheck, ArchiveEntry,
    ArchiveInspection, ModelSummary,
};
pub use entries::{entry_rows, EntryRow, EntryRows};
pub use float::F32;
pub use inspect::{
    inspect, AnimationInfo, BatchInfo, EntryInfo, FindingCounts, Inspection, LegacyInfo, NodeInfo,
    Resources, SlotInfo, SlotRef, TerrainInfo, Totals,
};
pub(crate) use library::material_summary;
pub use library::{check_library, validate, LibraryCheck, LibraryEntry, Validation};
pub use pose::{not_poseable, FrameInfo, NodePose, PoseDoc, Timeline};
pub use validate::{check, FileResult};

/// A name's bytes as text (invalid UTF-8 replaced).
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The bytes of a file under `fixtures/small/`.
#[cfg(test)]
fn fixture(path: &str) -> Vec<u8> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/small/");
    std::fs::read(format!("{root}{path}")).unwrap()
}
