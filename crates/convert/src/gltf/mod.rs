//! MSH <-> glTF 2.0 (`.glb`, `.gltf`).

mod buffer;
mod export;
pub mod extras;
pub mod names;

pub use export::export;
