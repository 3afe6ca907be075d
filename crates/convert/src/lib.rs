//! # mshconv_convert: the format-neutral core of the conversions
//!
//! What every format shares: the importers' scene and its assembler into MSH
//! ([`scene`], [`assemble`]), the coordinate frame ([`axes`]), animation clips
//! ([`clips`]), the names nodes and materials get ([`names`]), the game's look
//! an export writes ([`look`]) and an import reads back ([`imported_look`]),
//! decoded images ([`raster`]), the shown geometry's rules ([`geometry`]),
//! options, the [`Report`] and the [`Error`]. Each format is a crate of its
//! own over it: `mshconv-gltf` (glTF 2.0 / GLB), `mshconv-obj` (Wavefront
//! OBJ), `mshconv-usd` (USD text).
//!
//! The glTF mapping, and what travels in `extras` for the way back, is described
//! in `docs/GLTF.md`; the OBJ mapping in `docs/OBJ.md`; USD in `docs/USD.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod assemble;
pub mod axes;
pub mod clips;
pub mod codes;
pub mod error;
pub mod geometry;
pub mod imported_look;
pub mod look;
pub mod names;
pub mod options;
pub mod palette;
pub mod plugin;
pub mod raster;
pub mod reduce;
pub mod repeats;
pub mod report;
pub mod scene;
pub mod uv_range;
pub mod view;

pub use clips::{Clip, ClipList, LoopMode};
pub use error::{Cause, Error, ErrorKind, Result};
pub use options::{parse_rotation, rotation_name, Axis, BadOption, Rotation};
pub use plugin::{
    AnimationChoice, ExportFormat, ExportSettings, ImportFormat, ImportSettings, Inputs, Original,
};
pub use report::{Note, Report};
pub use view::{ExportView, Exported, Imported};

/// Gives the bytes of a side-car file named by a relative URI (a glTF buffer or image, an OBJ's texture), or `None`.
/// The importer only asks for plain file names (no folders, no `..`, no scheme).
pub type Resolver<'a> = &'a dyn Fn(&str) -> Option<Vec<u8>>;
