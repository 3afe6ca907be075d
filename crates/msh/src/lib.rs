//! # msh: the model format of *Parkan: Iron Strategy*
//!
//! A `.msh` file is an NRes container (crate [`nres`]) of typed binary tables:
//! a rigid node hierarchy with 3 LODs x 5 groups of geometry slots per node,
//! batches, packed normals and UVs, and per-node keyframe animation addressed
//! through a frame map. FORMAT.md is the reference.
//!
//! Layers, lowest first:
//! - [`raw`]: on-disk records, field by field; [`resource`]: type numbers and strides;
//! - [`ModelRef`]: zero-copy typed views of a file's tables;
//! - [`validate()`]/[`open`]: every rule, strict or tolerant, with codes and byte offsets;
//! - [`Model`]: the owned, editable model and its byte-exact writer;
//! - [`anim`]: the engine's animation sampler; [`pose`]: poses through the hierarchy;
//! - [`derive`](mod@derive): derived tables (triangle descriptors, bounds, canonical animation);
//! - with the `serde` feature (default), serialisation of what the front ends
//!   print: [`Finding`] (with [`Code`], [`Severity`]), [`Report`], [`ModelKind`], [`pose::Rotation`].
//!
//! The shapes the front ends print (`mshconv inspect`, `pose`, `validate --json`)
//! are the application layer's (`mshconv_app::report`), not this crate's.
//!
//! ```
//! # fn demo(bytes: &[u8]) -> msh::Result<()> {
//! let opened = msh::open(bytes, msh::Mode::Strict)?;          // checks every rule
//! println!("{} nodes", opened.view.nodes.len());
//! let model = msh::Model::from_bytes(bytes)?;                 // owned, editable
//! assert_eq!(model.to_bytes()?, bytes);                       // byte for byte
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod anim;
pub mod derive;
mod error;
mod model;
pub mod pose;
pub mod raw;
pub mod repeats;
mod report;
pub mod resource;
mod validate;
mod view;

pub use error::{Error, Result};
pub use model::{default_entry_name, is_whole, Attr, Container, EntryMeta, Model};
pub use report::{Code, Finding, Report, Severity};
pub use validate::{
    canonical_map_value, canonical_tracks, open, validate, validate_bytes, validate_into, Mode,
    Opened,
};
pub use view::{Location, ModelKind, ModelRef};
