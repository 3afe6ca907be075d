//! # convert: MSH <-> glTF 2.0 / GLB (and, later, OBJ)
//!
//! Every conversion is a function over bytes in memory with an options struct,
//! returning bytes and a [`Report`] of what was approximated, baked or decided.
//! The CLI and the HTTP service are thin layers over it.
//!
//! ```no_run
//! let msh_bytes = std::fs::read("tank.msh").unwrap();
//! let (glb, report) = convert::msh_to_gltf(&msh_bytes, &convert::ExportOptions::default()).unwrap();
//! for note in &report.notes {
//!     eprintln!("{}: {}", note.code, note.message);
//! }
//! std::fs::write("tank.glb", glb).unwrap();
//! ```
//!
//! The glTF mapping, and what travels in `extras` for the way back, is described
//! in `docs/GLTF.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod assemble;
mod error;
pub mod frame;
pub mod gltf;
mod options;
mod report;
pub mod scene;

pub use error::{Error, ErrorKind, Result};
pub use options::{
    parse_rotation, rotation_name, Axis, BadOption, ExportOptions, GltfFormat, Rotation,
};
pub use report::{Note, Report};

/// Converts MSH bytes to glTF: a `.glb` or a `.gltf` with its buffer embedded,
/// as `options.format` says. The input must pass strict validation.
pub fn msh_to_gltf(msh: &[u8], options: &ExportOptions) -> Result<(Vec<u8>, Report)> {
    gltf::export(msh, options)
}
