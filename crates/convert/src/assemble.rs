//! Scene description -> canonical MSH model: the builder every importer shares.

use crate::error::{Error, ErrorKind, Result};
use crate::report::Report;
use crate::scene::SceneModel;

/// Options of the assembler.
#[derive(Debug, Clone, PartialEq)]
pub struct AssembleOptions {
    /// Largest position difference (model units) key reduction may introduce
    /// between kept keys and a dropped sample.
    pub translation_tolerance: f32,
    /// Largest quaternion component difference key reduction may introduce
    /// (default: half an i16 quantisation step, 0.5 / 32767).
    pub rotation_tolerance: f32,
}

impl Default for AssembleOptions {
    fn default() -> Self {
        AssembleOptions { translation_tolerance: 1e-5, rotation_tolerance: 0.5 / 32767.0 }
    }
}

/// Builds a canonical MSH model from a scene description.
pub fn assemble(scene: &SceneModel, options: &AssembleOptions) -> Result<(msh::Model, Report)> {
    let _ = (scene, options);
    Err(Error::new(ErrorKind::Unsupported, "assemble.pending", "the model assembler is being written"))
}
