//! The game's look in a glTF export (docs/GLTF.md, "Textures"): each glTF
//! material whose MSH material index the look resolves is named after its
//! MAT0 entry (`NAME`, then `NAME#1`, `NAME#2`... for a further batch of the
//! slot or another index resolving to the same entry), gets its
//! texture as `baseColorTexture` (PNG, sampler wrap repeat) and `alphaMode`
//! from the texture's alpha, and keeps in `extras.msh` what the way back
//! needs: the index, the WEAR row, the MAT0 in full. Each image keeps the
//! Texm fields PNG cannot hold; the root keeps the WEAR text.

use super::super::extras::wrap;
use super::Exporter;
use crate::codes::Code;
use crate::export_options::GltfFormat;
use crate::extras_safe::u32_or_text::value as safe;
use crate::look::{entry_fingerprint, side_file_name, Alpha, Look, Material, Texture};
use base64::Engine as _;
use gltf_json as json;
use gltf_json::validation::Checked;
use gltf_json::Index;
use mshconv_material::texm::PixelFormat;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// glTF's `alphaCutoff` for a `MASK` texture (alpha only 0 or 255: any cutoff
/// strictly between them gives the same picture; glTF's default).
pub(crate) const MASK_CUTOFF: f32 = 0.5;

/// The look while the export runs, and what it adds to the document.
pub(super) struct LookState<'m> {
    look: &'m Look,
    image_stem: String,
    out: LookOut,
    /// Texture name -> glTF texture.
    texture_of: BTreeMap<String, u32>,
    /// Side file names already used.
    file_names: BTreeSet<String>,
}

/// What the look adds to the document.
#[derive(Default)]
pub(super) struct LookOut {
    pub images: Vec<json::Image>,
    pub textures: Vec<json::Texture>,
    pub samplers: Vec<json::texture::Sampler>,
    pub root_extras: json::extras::Extras,
    pub side_files: Vec<(String, Vec<u8>)>,
}

impl<'m> LookState<'m> {
    pub(super) fn new(look: &'m Look, image_stem: &str) -> Self {
        LookState {
            look,
            image_stem: image_stem.to_string(),
            out: LookOut::default(),
            texture_of: BTreeMap::new(),
            file_names: BTreeSet::new(),
        }
    }

    pub(super) fn finish(self) -> LookOut {
        self.out
    }
}

impl Exporter<'_> {
    /// Applies the look to the materials built so far; adds the images,
    /// textures, the sampler and the WEAR. Without a look, nothing.
    pub(super) fn apply_look(&mut self) {
        let Some(mut state) = self.look.take() else {
            return;
        };
        let look = state.look;
        let keys: Vec<((u16, u16), u32)> = self.material_of.iter().map(|(&k, &v)| (k, v)).collect();
        let mut names_used: BTreeMap<String, u32> = BTreeMap::new();
        for ((m, _repeat), gi) in keys {
            let Some(r) = look.materials.get(&m) else {
                continue;
            };
            let texture = r
                .texture
                .as_ref()
                .map(|t| self.texture_index(&mut state, t));
            let Some(mat) = self.materials.get_mut(gi as usize) else {
                continue;
            };
            // Unique names, or Blender renames one `NAME.001` and the way
            // back takes it for a new material: a further batch of the slot
            // and another index resolving to the same MAT0 (two WEAR rows
            // naming it, two missing names falling back to it) get `#n`.
            let used = names_used.entry(r.material.name.clone()).or_insert(0u32);
            mat.name = Some(if *used == 0 {
                r.material.name.clone()
            } else {
                format!("{}#{used}", r.material.name)
            });
            *used += 1;
            let mut extras = json!({
                "material": m,
                "resolved": r.resolution.name(),
                "wear": { "legacy_id": r.legacy_id, "name": r.row_name },
                "mat0": mat0_extras(&r.material),
            });
            // The material and its texture as exported, on the material
            // (Blender keeps a material's extras, not an image's): the way
            // back's base.
            extras["exported"] = json!({
                "mat0": r.material.mat0.write().ok().map(|data| {
                    entry_fingerprint(r.material.attr1, r.material.mat0.version, &data)
                }),
                "texture": r.texture.as_ref().map(|t| {
                    json!({ "name": t.name, "fingerprint": t.fingerprint() })
                }),
            });
            mat.extras = wrap(&extras);
            if let (Some(ti), Some(t)) = (texture, r.texture.as_ref()) {
                let pbr = &mut mat.pbr_metallic_roughness;
                pbr.base_color_factor = json::material::PbrBaseColorFactor([1.0, 1.0, 1.0, 1.0]);
                pbr.base_color_texture = Some(json::texture::Info {
                    index: Index::new(ti),
                    tex_coord: 0,
                    extensions: None,
                    extras: Default::default(),
                });
                match t.alpha {
                    Alpha::Opaque => {}
                    Alpha::Mask => {
                        mat.alpha_mode = Checked::Valid(json::material::AlphaMode::Mask);
                        mat.alpha_cutoff = Some(json::material::AlphaCutoff(MASK_CUTOFF));
                    }
                    Alpha::Blend => {
                        mat.alpha_mode = Checked::Valid(json::material::AlphaMode::Blend);
                    }
                }
            }
        }
        if let Some(wear) = &look.wear {
            state.out.root_extras = wrap(&json!({
                "wear": { "name": wear.name, "text": wear.text },
            }));
        }
        self.look = Some(state);
    }

    /// The glTF texture of `t`, added (image, texture, the one sampler) on first use.
    fn texture_index(&mut self, state: &mut LookState<'_>, t: &Arc<Texture>) -> u32 {
        if let Some(&i) = state.texture_of.get(&t.name) {
            return i;
        }
        if state.out.samplers.is_empty() {
            state.out.samplers.push(json::texture::Sampler {
                mag_filter: None,
                min_filter: None,
                name: None,
                wrap_s: Checked::Valid(json::texture::WrappingMode::Repeat),
                wrap_t: Checked::Valid(json::texture::WrappingMode::Repeat),
                extensions: None,
                extras: Default::default(),
            });
        }
        let image_index = state.out.images.len() as u32;
        let png = t.png();
        let (buffer_view, uri, mime_type) = match self.options.format {
            GltfFormat::Glb => (
                Some(Index::new(self.buf.push_view(png))),
                None,
                Some(json::image::MimeType("image/png".to_string())),
            ),
            GltfFormat::Gltf => {
                let name = side_file_name(
                    &state.image_stem,
                    &t.name,
                    "png",
                    image_index as usize,
                    |f| state.file_names.contains(f),
                );
                state.file_names.insert(name.clone());
                state.out.side_files.push((name.clone(), png.to_vec()));
                (None, Some(name), None)
            }
        };
        let alpha = match t.alpha {
            Alpha::Opaque => "opaque",
            Alpha::Mask => "mask",
            Alpha::Blend => "blend",
        };
        if t.alpha != Alpha::Opaque {
            self.report.note(
                Code::ExportAlphaMode.code(),
                format!(
                    "texture {:?}: alpha {} gives alphaMode {}",
                    t.name,
                    if t.alpha == Alpha::Mask {
                        "only 0 or 255"
                    } else {
                        "between 0 and 255"
                    },
                    if t.alpha == Alpha::Mask {
                        "MASK"
                    } else {
                        "BLEND"
                    }
                ),
            );
        }
        state.out.images.push(json::Image {
            buffer_view,
            mime_type,
            name: Some(t.name.clone()),
            uri,
            extensions: None,
            extras: wrap(&json!({ "texm": texm_extras(t), "alpha": alpha })),
        });
        let index = state.out.textures.len() as u32;
        state.out.textures.push(json::Texture {
            name: Some(t.name.clone()),
            sampler: Some(Index::new(0)),
            source: Index::new(image_index),
            extensions: None,
            extras: Default::default(),
        });
        state.texture_of.insert(t.name.clone(), index);
        index
    }
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The MAT0 entry in full: its NRes attributes, the version-gated metadata as
/// stored, every phase (parameters, the 16 texture-name bytes in hex) and
/// every animation block. A u32 of 2^31 or more is written as text, which
/// Blender keeps (`extras_safe`): as a number, Blender would keep the whole
/// extras as one Python string and the material would lose its index.
fn mat0_extras(m: &Material) -> Value {
    let mat0 = &m.mat0;
    let md = &mat0.metadata;
    json!({
        "name": m.name,
        "attr1": safe(m.attr1),
        "version": mat0.version,
        "metadata": { "a": md.a, "b": md.b, "c": md.c.map(safe), "d": md.d.map(safe) },
        "phases": mat0.phases.iter().map(|p| json!({
            "parameters": p.parameters.to_vec(),
            "texture_name": hex(&p.texture_name),
        })).collect::<Vec<_>>(),
        "animation_blocks": mat0.animation_blocks.iter().map(|b| json!({
            "header": safe(b.header),
            "keys": b.keys.iter().map(|k| [k.k0, k.k1, k.k2]).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The Texm fields PNG cannot hold: format, flags, palette, the lower mips
/// (raw, base64), the Page rectangles and 888's unused byte of mip 0 (one per
/// pixel, base64).
fn texm_extras(t: &Texture) -> Value {
    let texm = &t.texm;
    let mut v = json!({
        "name": t.name,
        "width": texm.width,
        "height": texm.height,
        "format": texm.format.code(),
        "flags4": safe(texm.flags4),
        "flags5": safe(texm.flags5),
        "unknown6": safe(texm.unknown6),
        "mip_count": texm.levels.len(),
        "lower_mips": texm.levels.iter().skip(1).map(|l| b64(l)).collect::<Vec<_>>(),
    });
    if let Some(palette) = &texm.palette {
        let bytes: Vec<u8> = palette.iter().flatten().copied().collect();
        v["palette"] = Value::from(b64(&bytes));
    }
    if let Some(page) = &texm.page {
        v["page"] = Value::from(
            page.iter()
                .map(|r| json!([r.x, r.width, r.y, r.height]))
                .collect::<Vec<_>>(),
        );
    }
    if texm.format == PixelFormat::Rgb888 {
        if let Some(level) = texm.levels.first() {
            let unused: Vec<u8> = level.chunks_exact(4).map(|p| p[3]).collect();
            v["unused_888"] = Value::from(b64(&unused));
        }
    }
    v
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
