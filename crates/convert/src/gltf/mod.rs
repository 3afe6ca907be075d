//! MSH <-> glTF 2.0 (`.glb`, `.gltf`).

mod buffer;
pub(crate) mod export;
pub mod extras;
pub mod extras_safe;
pub mod import;
pub mod names;
pub mod original;

pub use export::{export, export_with_look, GltfFiles};
pub use import::{import, import_with_clips, AnimationChoice, ImportOptions, Resolver};
