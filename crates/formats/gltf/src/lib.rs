//! # mshconv_gltf: MSH <-> glTF 2.0 (`.glb`, `.gltf`)
//!
//! The glTF format over the format-neutral core (`mshconv_convert`): the
//! export of a validated model, and the import of any glTF (lossless for an
//! unedited export, recognised for one another tool rebuilt, else generic).
//! The mapping, and what travels in `extras` for the way back, is described
//! in `docs/GLTF.md`.
//!
//! ```no_run
//! let msh_bytes = std::fs::read("tank.msh").unwrap();
//! let (glb, report) = mshconv_gltf::msh_to_gltf(&msh_bytes, &mshconv_gltf::ExportOptions::default()).unwrap();
//! for note in &report.notes {
//!     eprintln!("{}: {}", note.code, note.message);
//! }
//! std::fs::write("tank.glb", glb).unwrap();
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod buffer;
pub(crate) mod export;
pub mod export_options;
pub mod extras;
pub mod extras_safe;
pub mod import;
pub mod original;
pub mod plugin;

// The core's modules, under the names they had when this crate was a module of it.
use mshconv_convert::{
    assemble, axes, clips, codes, error, geometry, imported_look, look, names, options, palette,
    raster, reduce, repeats, report, scene,
};

pub use export::{export, export_view, export_with_look, GltfFiles};
pub use export_options::{ExportOptions, GltfFormat};
pub use import::{
    import, import_with_clips, import_with_look, AnimationChoice, ImportOptions, Resolver,
};
pub use plugin::Plugin;

use mshconv_convert::{Report, Result};

/// Converts glTF or GLB bytes to MSH bytes. A `.gltf` that names side-car
/// buffer files gets them from `resolver` (plain file names only; `data:` URIs
/// are read directly; no other URI is ever followed).
/// A terrain model comes back only from an unedited export of it (else
/// `import.terrain_edited`, `Unsupported`).
pub fn gltf_to_msh(
    gltf: &[u8],
    options: &ImportOptions,
    resolver: Resolver<'_>,
) -> Result<(Vec<u8>, Report)> {
    import(gltf, options, resolver)
}

/// Converts MSH bytes to glTF: a `.glb` or a `.gltf` with its buffer embedded,
/// as `options.format` says. The input must pass strict validation. A terrain
/// model's geometry is shown from its raw tables, which travel in extras.
pub fn msh_to_gltf(msh: &[u8], options: &ExportOptions) -> Result<(Vec<u8>, Report)> {
    export(msh, options)
}
