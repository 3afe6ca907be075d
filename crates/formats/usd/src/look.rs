//! The game's look in a USD export (docs/USD.md, "Materials"): a textured
//! material reads its PNG, written beside the `.usda`, through a
//! `UsdUVTexture` at the mesh's `st`; its alpha is the surface's opacity when
//! the texture uses alpha.

use super::text::{self, Usda};
use crate::codes::Code;
use crate::report::Report;
use mshconv_convert::look::{side_file_name, Alpha, Look, SideFiles, Texture};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The opacity under which a `Mask` texture's texel is cut away (alpha is 0
/// or 255 there: any value between gives the same picture; glTF's cutoff).
const MASK_THRESHOLD: f32 = 0.5;

/// The look while the export runs, and the PNG files it adds.
pub(super) struct LookState<'m> {
    pub look: &'m Look,
    image_stem: String,
    /// Texture name -> its file name.
    file_of: BTreeMap<String, String>,
    pub side_files: SideFiles,
}

impl<'m> LookState<'m> {
    pub fn new(look: &'m Look, image_stem: &str) -> Self {
        LookState {
            look,
            image_stem: image_stem.to_string(),
            file_of: BTreeMap::new(),
            side_files: Vec::new(),
        }
    }

    /// The file name of texture `t`'s PNG, added on first use:
    /// `{image_stem}_{texture}.png`, and `_{k}` before `.png` when two
    /// textures' names give the same file name (the glTF export's names, `k`
    /// the texture's place in the order of first use, so a `.gltf` and a
    /// `.usda` of one model share their PNG files).
    pub fn file(&mut self, t: &Arc<Texture>, report: &mut Report) -> String {
        if let Some(f) = self.file_of.get(&t.name) {
            return f.clone();
        }
        let name = side_file_name(&self.image_stem, &t.name, "png", self.file_of.len(), |f| {
            self.side_files.iter().any(|(n, _)| n == f)
        });
        if t.alpha != Alpha::Opaque && !report.has(Code::UsdOpacity.code()) {
            report.note(
                Code::UsdOpacity.code(),
                format!(
                    "texture {:?} uses alpha: it is the surface's opacity{}",
                    t.name,
                    if t.alpha == Alpha::Mask {
                        " (cut at 0.5)"
                    } else {
                        ""
                    }
                ),
            );
        }
        self.side_files.push((name.clone(), t.png().to_vec()));
        self.file_of.insert(t.name.clone(), name.clone());
        name
    }
}

/// The `UsdPreviewSurface` inputs of a textured material at `path`: the
/// colour (and the opacity when the texture uses alpha) from its texture.
pub(super) fn surface_inputs(usda: &mut Usda, path: &str, t: &Texture) {
    usda.line(&format!(
        "color3f inputs:diffuseColor.connect = <{path}/Texture.outputs:rgb>"
    ));
    if t.alpha != Alpha::Opaque {
        usda.line(&format!(
            "float inputs:opacity.connect = <{path}/Texture.outputs:a>"
        ));
    }
    if t.alpha == Alpha::Mask {
        let mut v = String::new();
        text::float(&mut v, MASK_THRESHOLD);
        usda.line(&format!("float inputs:opacityThreshold = {v}"));
    }
}

/// The texture's shaders of the material at `path`: a `UsdUVTexture` reading
/// `file` (wrap repeat, sRGB) at the primvar `st`.
pub(super) fn texture_shaders(usda: &mut Usda, path: &str, file: &str) {
    usda.open("def Shader \"Texture\"");
    usda.line("uniform token info:id = \"UsdUVTexture\"");
    usda.line(&format!("asset inputs:file = @{file}@"));
    usda.line("token inputs:sourceColorSpace = \"sRGB\"");
    usda.line(&format!(
        "float2 inputs:st.connect = <{path}/St.outputs:result>"
    ));
    usda.line("token inputs:wrapS = \"repeat\"");
    usda.line("token inputs:wrapT = \"repeat\"");
    usda.line("float outputs:a");
    usda.line("float3 outputs:rgb");
    usda.close();
    usda.open("def Shader \"St\"");
    usda.line("uniform token info:id = \"UsdPrimvarReader_float2\"");
    usda.line("string inputs:varname = \"st\"");
    usda.line("float2 outputs:result");
    usda.close();
}
