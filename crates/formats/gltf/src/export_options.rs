//! The options of the MSH -> glTF export, and how the neutral settings of
//! the core's format seam map to them.

use mshconv_convert::options::{check_fps, check_lod_group, Axis, BadOption, Rotation};
use mshconv_convert::ExportSettings;

/// Container format of glTF output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum GltfFormat {
    /// Binary `.glb`: JSON and buffer in one file.
    #[default]
    Glb,
    /// Text `.gltf` with the buffer embedded as a `data:` URI.
    Gltf,
}

/// Options of the MSH -> glTF export. Defaults are documented on each field and
/// recorded in the output (`scenes[0].extras.msh.options`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExportOptions {
    /// LOD shown by viewers (0..=2, default 0). Every other LOD/group is still in the file.
    pub lod: u8,
    /// Group shown by viewers (0..=4, default 0).
    pub group: u8,
    /// Game frames per second on the glTF timeline (default 24: Blender's default
    /// scene rate, so Blender's per-frame resampling lands on every game frame).
    pub fps: f32,
    /// Up axis of the output (default Y up).
    pub axis: Axis,
    /// How a stored rotation turns a node (default: conjugate, FORMAT.md's reading).
    pub rotation: Rotation,
    /// `.glb` or `.gltf`.
    pub format: GltfFormat,
    /// Name of the model (scene name); default `model`.
    pub name: String,
    /// Animation clips: one glTF animation per clip instead of one over the
    /// whole timeline (default none). See [`mshconv_convert::clips`].
    pub clips: Option<mshconv_convert::ClipList>,
    /// Embeds the model file itself (`extras.msh.original`, compressed) for a
    /// self-contained file; by default (false) only its fingerprint
    /// (`extras.msh.original_fingerprint`), and the import takes the original
    /// from what it writes over (docs/GLTF.md, "The original").
    pub embed_original: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            lod: 0,
            group: 0,
            fps: 24.0,
            axis: Axis::YUp,
            rotation: Rotation::Conjugate,
            format: GltfFormat::Glb,
            name: "model".to_string(),
            clips: None,
            embed_original: false,
        }
    }
}

impl ExportOptions {
    /// The options of the neutral `settings`, written as `format`.
    pub fn from_settings(settings: &ExportSettings, format: GltfFormat) -> ExportOptions {
        ExportOptions {
            lod: settings.lod,
            group: settings.group,
            fps: settings.fps,
            axis: settings.axis,
            rotation: settings.rotation,
            format,
            name: settings.name.clone(),
            clips: settings.clips.clone(),
            embed_original: settings.embed_original,
        }
    }

    /// Checks ranges: lod 0..=2, group 0..=4, fps finite and positive.
    pub fn check(&self) -> Result<(), BadOption> {
        check_lod_group(self.lod, self.group)?;
        check_fps(self.fps)
    }
}

impl From<&ExportOptions> for ExportSettings {
    /// The glTF export's options but its container format (the files are
    /// named after the model).
    fn from(o: &ExportOptions) -> Self {
        ExportSettings {
            lod: o.lod,
            group: o.group,
            fps: o.fps,
            axis: o.axis,
            rotation: o.rotation,
            name: o.name.clone(),
            file: o.name.clone(),
            clips: o.clips.clone(),
            embed_original: o.embed_original,
        }
    }
}
