//! The extension objects the importer reads itself (`gltf-json` keeps no
//! unknown extension data): `EXT_meshopt_compression` on buffer views and
//! buffers, `KHR_draco_mesh_compression` on primitives, `KHR_texture_transform`
//! on each material's base colour texture (`baseColorTexture`, or the
//! diffuse texture of `KHR_materials_pbrSpecularGlossiness`), and `EXT_mesh_gpu_instancing` and
//! `KHR_node_visibility` on nodes. Read in one pass over the JSON that skips everything else.

use super::meshopt::Compressed;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use serde::Deserialize;

/// The extension data of one document.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Extensions {
    #[serde(rename = "bufferViews")]
    views: Vec<Holder<ViewExtensions>>,
    buffers: Vec<Holder<BufferExtensions>>,
    materials: Vec<Material>,
    meshes: Vec<Mesh>,
    nodes: Vec<Holder<NodeExtensions>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NodeExtensions {
    #[serde(rename = "EXT_mesh_gpu_instancing")]
    instancing: Option<Instancing>,
    #[serde(rename = "KHR_node_visibility")]
    visibility: Option<Visibility>,
}

/// A node's `KHR_node_visibility` object.
#[derive(Debug, Deserialize)]
#[serde(default)]
struct Visibility {
    /// Whether the node and its descendants are drawn.
    visible: bool,
}

impl Default for Visibility {
    fn default() -> Self {
        Visibility { visible: true }
    }
}

/// A node's `EXT_mesh_gpu_instancing` object.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Instancing {
    /// The accessor of each per-instance attribute (`TRANSLATION`, `ROTATION`, `SCALE`, ...).
    pub attributes: std::collections::BTreeMap<String, usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Mesh {
    primitives: Vec<Holder<PrimitiveExtensions>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PrimitiveExtensions {
    #[serde(rename = "KHR_draco_mesh_compression")]
    draco: Option<Draco>,
}

/// A primitive's `KHR_draco_mesh_compression` object.
#[derive(Debug, Deserialize)]
pub(crate) struct Draco {
    /// The buffer view holding the Draco bitstream.
    #[serde(rename = "bufferView")]
    pub view: usize,
    /// The Draco attribute unique id of each glTF attribute name.
    pub attributes: std::collections::BTreeMap<String, u32>,
}

/// An object's `extensions`.
#[derive(Debug, Deserialize)]
#[serde(bound = "T: Deserialize<'de> + Default")]
struct Holder<T> {
    #[serde(default)]
    extensions: T,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ViewExtensions {
    #[serde(rename = "EXT_meshopt_compression")]
    meshopt: Option<Compressed>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct BufferExtensions {
    #[serde(rename = "EXT_meshopt_compression")]
    meshopt: Option<Fallback>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Fallback {
    fallback: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Material {
    #[serde(rename = "pbrMetallicRoughness")]
    pbr: Option<Pbr>,
    extensions: Option<MaterialExtensions>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MaterialExtensions {
    #[serde(rename = "KHR_materials_pbrSpecularGlossiness")]
    spec_gloss: Option<SpecGloss>,
}

/// A material's `KHR_materials_pbrSpecularGlossiness` object: its diffuse
/// texture and factor are the base colour a viewer that knows it shows.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SpecGloss {
    #[serde(rename = "diffuseTexture")]
    diffuse: Option<TextureInfo>,
    #[serde(rename = "diffuseFactor")]
    factor: Option<[f32; 4]>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Pbr {
    #[serde(rename = "baseColorTexture")]
    base_color: Option<TextureInfo>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TextureInfo {
    index: Option<usize>,
    #[serde(rename = "texCoord")]
    tex_coord: u32,
    extensions: Option<InfoExtensions>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct InfoExtensions {
    #[serde(rename = "KHR_texture_transform")]
    transform: Option<Transform>,
}

/// `KHR_texture_transform`'s fields.
#[derive(Debug, Deserialize)]
#[serde(default)]
struct Transform {
    offset: [f32; 2],
    rotation: f32,
    scale: [f32; 2],
    #[serde(rename = "texCoord")]
    tex_coord: Option<u32>,
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            offset: [0.0; 2],
            rotation: 0.0,
            scale: [1.0; 2],
            tex_coord: None,
        }
    }
}

/// A base colour texture's transform: which UV set it applies to, and the
/// 2x3 matrix `uv' = M * (u, v, 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct UvTransform {
    /// The TEXCOORD set the texture reads.
    pub set: u32,
    /// Rows of the affine map.
    pub m: [[f32; 3]; 2],
}

impl UvTransform {
    /// Applies the transform to one coordinate pair.
    pub fn apply(&self, uv: [f32; 2]) -> [f32; 2] {
        let m = &self.m;
        [
            m[0][0] * uv[0] + m[0][1] * uv[1] + m[0][2],
            m[1][0] * uv[0] + m[1][1] * uv[1] + m[1][2],
        ]
    }
}

impl Extensions {
    /// The extension data, or `gltf.invalid` naming what is malformed.
    pub fn read(parsed: serde_json::Result<Extensions>) -> Result<Extensions> {
        let ext = parsed.map_err(|e| {
            Error::new(
                ErrorKind::InvalidInput,
                Code::GltfInvalid.code(),
                format!("not a valid glTF document: an extension object is malformed: {e}"),
            )
        })?;
        for (m, t) in ext.transforms().enumerate() {
            if let Some(t) = t {
                if t.m.iter().flatten().any(|v| !v.is_finite()) {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        Code::GltfNonFinite.code(),
                        format!("/materials/{m}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform holds NaN or infinity"),
                    ));
                }
            }
        }
        Ok(ext)
    }

    /// The `EXT_meshopt_compression` object of buffer view `view`, if any.
    pub fn meshopt_view(&self, view: usize) -> Option<&Compressed> {
        self.views.get(view)?.extensions.meshopt.as_ref()
    }

    /// Whether buffer `buffer` is a meshopt fallback buffer (may have no data).
    pub fn is_fallback(&self, buffer: usize) -> bool {
        self.buffers
            .get(buffer)
            .and_then(|b| b.extensions.meshopt.as_ref())
            .is_some_and(|f| f.fallback)
    }

    /// The `KHR_draco_mesh_compression` object of a primitive, if any.
    pub fn draco(&self, mesh: usize, primitive: usize) -> Option<&Draco> {
        self.meshes
            .get(mesh)?
            .primitives
            .get(primitive)?
            .extensions
            .draco
            .as_ref()
    }

    /// The `EXT_mesh_gpu_instancing` object of node `node`, if any.
    pub fn instancing(&self, node: usize) -> Option<&Instancing> {
        self.nodes.get(node)?.extensions.instancing.as_ref()
    }

    /// Whether node `node` is hidden by `KHR_node_visibility` (`visible: false`;
    /// its descendants are hidden with it).
    pub fn hidden(&self, node: usize) -> bool {
        self.nodes
            .get(node)
            .and_then(|n| n.extensions.visibility.as_ref())
            .is_some_and(|v| !v.visible)
    }

    /// Whether any primitive is Draco-compressed.
    pub fn has_draco(&self) -> bool {
        self.meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .any(|p| p.extensions.draco.is_some())
    }

    /// Whether any buffer view is meshopt-compressed.
    pub fn has_meshopt(&self) -> bool {
        self.views.iter().any(|v| v.extensions.meshopt.is_some())
    }

    /// Material `material`'s `KHR_materials_pbrSpecularGlossiness` object, if any.
    fn spec_gloss(&self, material: usize) -> Option<&SpecGloss> {
        self.materials
            .get(material)?
            .extensions
            .as_ref()?
            .spec_gloss
            .as_ref()
    }

    /// The texture info a material's base colour reads: the diffuse texture
    /// of `KHR_materials_pbrSpecularGlossiness` where the material has the
    /// extension (what a viewer that knows it shows), else `baseColorTexture`.
    fn base_color_info(&self, material: usize) -> Option<&TextureInfo> {
        match self.spec_gloss(material) {
            Some(sg) => sg.diffuse.as_ref(),
            None => self
                .materials
                .get(material)?
                .pbr
                .as_ref()?
                .base_color
                .as_ref(),
        }
    }

    /// Where material `material` is `KHR_materials_pbrSpecularGlossiness`:
    /// its diffuse texture's index (`None` without one) and its diffuse
    /// factor (white by default), which are its base colour.
    pub fn diffuse(&self, material: usize) -> Option<(Option<usize>, [f32; 4])> {
        let sg = self.spec_gloss(material)?;
        Some((
            sg.diffuse.as_ref().and_then(|d| d.index),
            sg.factor.unwrap_or([1.0; 4]),
        ))
    }

    /// The base colour texture transform of material `material`, if it has one.
    pub fn uv_transform(&self, material: usize) -> Option<UvTransform> {
        let info = self.base_color_info(material)?;
        let t = info.extensions.as_ref()?.transform.as_ref()?;
        let (s, c) = t.rotation.sin_cos();
        Some(UvTransform {
            set: t.tex_coord.unwrap_or(info.tex_coord),
            // T * R * S as the extension defines them.
            m: [
                [c * t.scale[0], s * t.scale[1], t.offset[0]],
                [-s * t.scale[0], c * t.scale[1], t.offset[1]],
            ],
        })
    }

    /// The TEXCOORD set material `material`'s base colour texture reads
    /// (its `KHR_texture_transform` override, else its `texCoord`; 0 without one).
    pub fn base_color_set(&self, material: usize) -> u32 {
        let Some(info) = self.base_color_info(material) else {
            return 0;
        };
        info.extensions
            .as_ref()
            .and_then(|e| e.transform.as_ref())
            .and_then(|t| t.tex_coord)
            .unwrap_or(info.tex_coord)
    }

    fn transforms(&self) -> impl Iterator<Item = Option<UvTransform>> + '_ {
        (0..self.materials.len()).map(|m| self.uv_transform(m))
    }

    /// Whether some material's base colour texture has a transform.
    pub fn transforms_baked(&self) -> bool {
        self.transforms().any(|t| t.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotated_scaled_offset_transform_matches_the_extension_definition() {
        let json = r#"{"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0,"texCoord":1,
            "extensions":{"KHR_texture_transform":{"offset":[0.5,0.25],"rotation":1.5707963,"scale":[2,3]}}}}},{}]}"#;
        let ext = Extensions::read(serde_json::from_str(json)).unwrap();
        let t = ext.uv_transform(0).unwrap();
        assert_eq!(t.set, 1);
        // Scale (1,1) -> (2,3); rotate by 90 degrees: (x, y) -> (y, -x); offset.
        let [u, v] = t.apply([1.0, 1.0]);
        assert!(
            (u - 3.5).abs() < 1e-5 && (v - (-2.0 + 0.25)).abs() < 1e-5,
            "{u} {v}"
        );
        assert!(ext.uv_transform(1).is_none());
        assert!(ext.transforms_baked());
        let bad = r#"{"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0,"extensions":{"KHR_texture_transform":{"scale":"x"}}}}}]}"#;
        assert_eq!(
            Extensions::read(serde_json::from_str(bad))
                .unwrap_err()
                .code(),
            "gltf.invalid"
        );
    }
}
