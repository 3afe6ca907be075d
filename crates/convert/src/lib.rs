//! # mshconv_convert: MSH <-> glTF 2.0 / GLB and Wavefront OBJ
//!
//! Every conversion is a function over bytes in memory with an options struct,
//! returning bytes and a [`Report`] of what was approximated, baked or decided.
//! The CLI and the HTTP service are thin layers over it.
//!
//! ```no_run
//! let msh_bytes = std::fs::read("tank.msh").unwrap();
//! let (glb, report) = mshconv_convert::msh_to_gltf(&msh_bytes, &mshconv_convert::ExportOptions::default()).unwrap();
//! for note in &report.notes {
//!     eprintln!("{}: {}", note.code, note.message);
//! }
//! std::fs::write("tank.glb", glb).unwrap();
//! ```
//!
//! The glTF mapping, and what travels in `extras` for the way back, is described
//! in `docs/GLTF.md`; the OBJ mapping in `docs/OBJ.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod assemble;
pub mod axes;
pub mod clips;
pub mod codes;
mod error;
pub mod gltf;
pub mod look;
pub mod obj;
mod options;
pub mod palette;
pub mod raster;
mod reduce;
mod repeats;
mod report;
pub mod scene;
pub mod usd;
mod uv_range;

pub use clips::{Clip, ClipList, LoopMode};
pub use error::{Cause, Error, ErrorKind, Result};
pub use obj::{ObjExportOptions, ObjFiles, ObjImportOptions};
pub use options::{
    parse_rotation, rotation_name, Axis, BadOption, ExportOptions, GltfFormat, Rotation,
};
pub use report::{Note, Report};

/// Converts glTF or GLB bytes to MSH bytes. A `.gltf` that names side-car
/// buffer files gets them from `resolver` (plain file names only; `data:` URIs
/// are read directly; no other URI is ever followed).
/// A terrain model comes back only from an unedited export of it (else
/// `import.terrain_edited`, `Unsupported`).
pub fn gltf_to_msh(
    gltf: &[u8],
    options: &gltf::ImportOptions,
    resolver: gltf::Resolver<'_>,
) -> Result<(Vec<u8>, Report)> {
    gltf::import(gltf, options, resolver)
}

/// Converts MSH bytes to glTF: a `.glb` or a `.gltf` with its buffer embedded,
/// as `options.format` says. The input must pass strict validation. A terrain
/// model's geometry is shown from its raw tables, which travel in extras.
pub fn msh_to_gltf(msh: &[u8], options: &ExportOptions) -> Result<(Vec<u8>, Report)> {
    gltf::export(msh, options)
}

/// Converts MSH bytes to a Wavefront OBJ and its MTL: the LOD/group chosen in
/// `options`, posed by the rest pose through the hierarchy (world space). The
/// input must pass strict validation; legacy-node and terrain models are
/// `Unsupported`. See `docs/OBJ.md`.
pub fn msh_to_obj(msh: &[u8], options: &ObjExportOptions) -> Result<(ObjFiles, Report)> {
    obj::export(msh, options)
}

/// Converts a Wavefront OBJ (and its MTL, if given; it is never looked up by
/// the name in `mtllib`) to MSH bytes: each object becomes a root node with its
/// geometry at LOD 0 group 0. See `docs/OBJ.md`.
pub fn obj_to_msh(
    obj: &[u8],
    mtl: Option<&[u8]>,
    options: &ObjImportOptions,
) -> Result<(Vec<u8>, Report)> {
    obj::import(obj, mtl, options)
}
