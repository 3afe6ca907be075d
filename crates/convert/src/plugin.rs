//! The seam every format crate fills: an export of the model's
//! [`ExportView`] and an import of the format's bytes, each taking the
//! format-neutral settings the front ends' options make.
//!
//! A format crate implements [`ExportFormat`] (when MSH converts to it) and
//! [`ImportFormat`] (when it converts to MSH) on a small value (its
//! `Plugin`), and the application layer's `FORMATS` table holds that value in
//! the format's row: the application layer, the CLI and the service then reach
//! the format only through these two traits. Each crate maps the settings to
//! its own option struct (the one its library API takes), so a format's own
//! options stay in its crate.

use crate::clips::ClipList;
use crate::error::Result;
use crate::imported_look::ImportedLook;
use crate::options::{check_fps, check_lod_group, Axis, BadOption, Rotation};
use crate::view::{ExportView, Exported, Imported};
use std::fmt::Debug;

/// What an export is asked for, in no format's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportSettings {
    /// The LOD shown (or, in a format without LODs, written): 0 to 2.
    pub lod: u8,
    /// The group shown or written: 0 to 4.
    pub group: u8,
    /// Game frames per second on the output's timeline.
    pub fps: f32,
    /// Up axis of the output.
    pub axis: Axis,
    /// How a stored rotation turns a node.
    pub rotation: Rotation,
    /// The model's name (a scene or root prim name).
    pub name: String,
    /// The output files' stem: `{file}.{ext}`, and the files the main file
    /// names beside it (an `.obj`'s `{file}.mtl`).
    pub file: String,
    /// The animation clips, for a format that holds animation.
    pub clips: Option<ClipList>,
    /// Embeds the model file itself, for a format that records where it came
    /// from (glTF: `extras.msh.original`); by default only its fingerprint.
    pub embed_original: bool,
}

impl Default for ExportSettings {
    fn default() -> Self {
        ExportSettings {
            lod: 0,
            group: 0,
            fps: 24.0,
            axis: Axis::YUp,
            rotation: Rotation::Conjugate,
            name: "model".to_string(),
            file: "model".to_string(),
            clips: None,
            embed_original: false,
        }
    }
}

impl ExportSettings {
    /// Checks ranges: lod 0..=2, group 0..=4, fps finite, above 0 and at
    /// most 1000.
    pub fn check(&self) -> std::result::Result<(), BadOption> {
        check_lod_group(self.lod, self.group)?;
        check_fps(self.fps)
    }
}

/// Which animation(s) of an input become the MSH timeline.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AnimationChoice {
    /// Every animation, one after another on the timeline (clip ranges are
    /// reported); an animation that animates none of the nodes of the clip
    /// before it joins that clip and plays at the same time (Blender writes one
    /// animation per animated object).
    #[default]
    All,
    /// The animation with this index.
    Index(usize),
    /// The animation with this name.
    Name(String),
    /// No animation: every node static at its rest pose.
    None,
}

/// What an import is asked for: `None` means what the file records, else
/// the export defaults.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImportSettings {
    /// Game frames per second of the input's timeline.
    pub fps: Option<f32>,
    /// Up axis of the input.
    pub axis: Option<Axis>,
    /// The rotation reading to undo.
    pub rotation: Option<Rotation>,
    /// Which animation(s) to take.
    pub animation: AnimationChoice,
    /// The model the input was exported from, when at hand (the model it is
    /// written over, or one given): what an import recognises another tool's
    /// rewrite against, when the input records its fingerprint only.
    pub original: Option<Original>,
}

/// A model file's bytes, shared (options are cloned per model of a batch).
pub type Original = std::sync::Arc<[u8]>;

/// The files an import may read besides its input, by the names the input
/// gives them. Every method has a default that provides nothing.
pub trait Inputs {
    /// A file the input names by a plain file name (a `.gltf`'s buffer or
    /// image, the images an `.mtl` names), or `None` when it is not available.
    fn side_file(&self, _name: &str) -> Option<Vec<u8>> {
        None
    }

    /// The material library of an input whose text names `named` (an
    /// `.obj`'s `mtllib`; `None` when it names none): by default the side
    /// file of that name. A front end given the library with the input (an
    /// upload's `.mtl` field) answers it whatever the name.
    fn material_library(&self, named: Option<&str>) -> Option<Vec<u8>> {
        named.and_then(|n| self.side_file(n))
    }
}

/// A format MSH converts to.
pub trait ExportFormat: Debug + Sync {
    /// Whether the format holds animation: the application layer then gives
    /// it the clips (those asked for, or the clip list beside the model).
    fn takes_clips(&self) -> bool;

    /// Checks `settings` as this format takes them, before the model is read
    /// (a refusal names the option).
    fn check(&self, settings: &ExportSettings) -> Result<()>;

    /// The export of `view`: the main file, the files beside it, the report.
    fn export(&self, view: &ExportView<'_>, settings: &ExportSettings) -> Result<Exported>;
}

/// A format that converts to MSH.
pub trait ImportFormat: Debug + Sync {
    /// The MSH model of `input` (with its files from `inputs`) and, when
    /// `look`, the look it brings back, from one parse of the input.
    fn import(
        &self,
        input: &[u8],
        settings: &ImportSettings,
        inputs: &dyn Inputs,
        look: bool,
    ) -> Result<Imported>;

    /// The look `input` brings back, without converting the model (the
    /// notes of reading it in its `notes`).
    fn read_look(&self, input: &[u8], inputs: &dyn Inputs) -> Result<ImportedLook>;
}
