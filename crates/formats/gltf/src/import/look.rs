//! The way back of a model's look: what a glTF says about each MSH material
//! index (its name, its base-colour image decoded to RGBA8, and what a
//! textured export recorded in extras: the WEAR row, the MAT0 entry, the
//! Texm fields PNG cannot hold, the WEAR text). The application layer
//! (`mshconv_app::look_import`) turns it into WEAR, MAT0 and Texm entries;
//! this module only reads (docs/MATERIALS.md, "The way back").
//!
//! Extras that do not parse as a textured export writes them are ignored
//! (the material is then a new one), never an error: a file edited by hand
//! still imports. A base-colour image that cannot be decoded is an error
//! (`image.*`), since the import was asked to bring the look back.

use super::read::{self, Resolver};
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::extras as ex;
use crate::imported_look::{
    Exported, ImportedImage, ImportedLook, ImportedMaterial, RecordedMat0, RecordedTexm,
    RecordedWear,
};
use crate::names;
use crate::raster;
use crate::report::Report;
use base64::Engine as _;
use mshconv_material::mat0::{AnimationBlock, Key, Metadata, Phase};
use mshconv_material::texm::{PageRect, PixelFormat, PALETTE_ENTRIES};
use mshconv_material::{Mat0, Texm};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct MaterialExtras {
    wear: Option<WearRowExtras>,
    mat0: Option<Mat0Extras>,
    exported: Option<Exported>,
}

#[derive(Deserialize)]
struct WearRowExtras {
    legacy_id: String,
    name: String,
}

#[derive(Deserialize)]
struct Mat0Extras {
    name: String,
    #[serde(deserialize_with = "crate::extras_safe::u32_or_text::deserialize")]
    attr1: u32,
    version: u32,
    metadata: Metadata0,
    phases: Vec<PhaseExtras>,
    animation_blocks: Vec<BlockExtras>,
}

#[derive(Deserialize)]
struct Metadata0 {
    a: Option<u8>,
    b: Option<u8>,
    #[serde(default, with = "crate::extras_safe::opt_u32")]
    c: Option<u32>,
    #[serde(default, with = "crate::extras_safe::opt_u32")]
    d: Option<u32>,
}

#[derive(Deserialize)]
struct PhaseExtras {
    parameters: Vec<u8>,
    texture_name: String,
}

#[derive(Deserialize)]
struct BlockExtras {
    #[serde(deserialize_with = "crate::extras_safe::u32_or_text::deserialize")]
    header: u32,
    keys: Vec<[u16; 3]>,
}

#[derive(Deserialize)]
struct ImageExtras {
    texm: TexmExtras,
}

#[derive(Deserialize)]
struct TexmExtras {
    name: String,
    width: u32,
    height: u32,
    format: u32,
    #[serde(deserialize_with = "crate::extras_safe::u32_or_text::deserialize")]
    flags4: u32,
    #[serde(deserialize_with = "crate::extras_safe::u32_or_text::deserialize")]
    flags5: u32,
    #[serde(deserialize_with = "crate::extras_safe::u32_or_text::deserialize")]
    unknown6: u32,
    mip_count: usize,
    lower_mips: Vec<String>,
    palette: Option<String>,
    page: Option<Vec<[i16; 4]>>,
    unused_888: Option<String>,
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn unbase64(s: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(s).ok()
}

impl Mat0Extras {
    /// The recorded entry, or `None` when a field does not fit (hand-edited).
    fn into_recorded(self) -> Option<RecordedMat0> {
        let phases = self
            .phases
            .iter()
            .map(|p| {
                Some(Phase {
                    parameters: p.parameters.as_slice().try_into().ok()?,
                    texture_name: unhex(&p.texture_name)?.as_slice().try_into().ok()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let animation_blocks = self
            .animation_blocks
            .iter()
            .map(|b| AnimationBlock {
                header: b.header,
                keys: b
                    .keys
                    .iter()
                    .map(|&[k0, k1, k2]| Key { k0, k1, k2 })
                    .collect(),
            })
            .collect();
        let mat0 = Mat0 {
            version: self.version,
            metadata: Metadata {
                a: self.metadata.a,
                b: self.metadata.b,
                c: self.metadata.c,
                d: self.metadata.d,
            },
            phases,
            animation_blocks,
        };
        // Only a value that writes (and so reads back) is a record.
        mat0.write().ok()?;
        Some(RecordedMat0 {
            name: self.name,
            attr1: self.attr1,
            mat0,
        })
    }
}

impl TexmExtras {
    /// The recorded Texm (level 0 empty), or `None` when a field is malformed.
    fn into_recorded(self) -> Option<RecordedTexm> {
        let format = PixelFormat::from_code(self.format)?;
        let palette = match &self.palette {
            Some(p) => {
                let bytes = unbase64(p)?;
                if bytes.len() != PALETTE_ENTRIES * 4 {
                    return None;
                }
                let mut out = Box::new([[0u8; 4]; PALETTE_ENTRIES]);
                for (dst, src) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                    dst.copy_from_slice(src);
                }
                Some(out)
            }
            None => None,
        };
        if self.lower_mips.len() + 1 != self.mip_count {
            return None;
        }
        let mut levels = vec![Vec::new()];
        for l in &self.lower_mips {
            levels.push(unbase64(l)?);
        }
        let unused_888 = match &self.unused_888 {
            Some(u) => Some(unbase64(u)?),
            None => None,
        };
        let texm = Texm {
            width: self.width,
            height: self.height,
            flags4: self.flags4,
            flags5: self.flags5,
            unknown6: self.unknown6,
            format,
            palette,
            levels,
            page: self.page.map(|rects| {
                rects
                    .iter()
                    .map(|&[x, width, y, height]| PageRect {
                        x,
                        width,
                        y,
                        height,
                    })
                    .collect()
            }),
        };
        Some(RecordedTexm {
            name: self.name,
            texm,
            unused_888,
        })
    }
}

/// The name a glTF material stands for: without the `#n` repeat suffix.
fn base_name(name: &str) -> &str {
    match name.rfind('#') {
        Some(i) if i > 0 && name[i + 1..].bytes().all(|b| b.is_ascii_digit()) => &name[..i],
        _ => name,
    }
}

/// The stem of an image URI's file name (`tank_GLASS.png` -> `tank_GLASS`).
fn uri_stem(uri: &str) -> Option<String> {
    if uri.starts_with("data:") {
        return None;
    }
    let file = uri.rsplit(['/', '\\']).next()?;
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    (!stem.is_empty()).then(|| stem.to_string())
}

/// Reads the look of glTF or GLB bytes. `resolver` gives a `.gltf`'s side
/// files (buffers and images) by plain file name.
pub fn read_look(bytes: &[u8], resolver: Resolver<'_>) -> Result<ImportedLook> {
    look_of(&read::parse(bytes, resolver)?, resolver)
}

/// The look of a parsed document (`resolver` gives a `.gltf`'s image files).
pub(crate) fn look_of(src: &read::Source<'_>, resolver: Resolver<'_>) -> Result<ImportedLook> {
    let doc = &src.doc;
    let indices = src.material_indices(&mut Report::default())?;
    let mut look = ImportedLook {
        // The document's own extras (`extras.msh.wear`), where the export
        // writes it.
        wear: {
            #[derive(Deserialize)]
            struct Root {
                wear: RecordedWear,
            }
            ex::unwrap::<Root>(&doc.as_json().extras).map(|r| r.wear)
        },
        materials: BTreeMap::new(),
        notes: Vec::new(),
    };
    let mut decoded: BTreeMap<usize, Option<ImportedImage>> = BTreeMap::new();
    let mut tinted: Vec<String> = Vec::new();
    for (m, &index) in doc.materials().zip(&indices) {
        if look.materials.contains_key(&index) {
            continue;
        }
        let extras: Option<MaterialExtras> = ex::unwrap(m.extras());
        let (wear_row, mat0, exported) = match extras {
            Some(e) => (
                e.wear.map(|w| (w.legacy_id, w.name)),
                e.mat0.and_then(Mat0Extras::into_recorded),
                e.exported,
            ),
            None => (None, None, None),
        };
        let pbr = m.pbr_metallic_roughness();
        // A spec-gloss material's base colour is its diffuse texture and factor.
        let diffuse = m.index().and_then(|i| src.extensions.diffuse(i));
        let (texture, base_color) = match diffuse {
            Some((texture, factor)) => (texture.and_then(|t| doc.textures().nth(t)), factor),
            None => (
                pbr.base_color_texture().map(|info| info.texture()),
                pbr.base_color_factor(),
            ),
        };
        let image = match texture {
            Some(texture) => {
                let source = texture.source();
                let i = source.index();
                if let std::collections::btree_map::Entry::Vacant(slot) = decoded.entry(i) {
                    // An image that is not there or does not decode (KTX2, a
                    // damaged PNG) leaves its material without one: the
                    // model still converts, with a note.
                    match read_image(src, &source, resolver) {
                        Ok(image) => {
                            slot.insert(Some(image));
                        }
                        Err(e) => {
                            look.notes.push(crate::report::Note {
                                code: Code::LookImageUnreadable.code(),
                                message: format!(
                                    "image {i} ({}): {}; material {index} comes back without it",
                                    e.code(),
                                    e.message()
                                ),
                            });
                            slot.insert(None);
                        }
                    }
                }
                decoded.get(&i).cloned().flatten()
            }
            None => None,
        };
        if base_color != [1.0; 4] {
            let [r, g, b, a] = base_color;
            let name = m.name().unwrap_or("(unnamed)");
            tinted.push(format!("{name:?} ({r}, {g}, {b}, {a})"));
        }
        look.materials.insert(
            index,
            ImportedMaterial {
                name: m.name().map(|n| base_name(n).to_string()),
                wear_row,
                mat0,
                exported,
                image,
                base_color,
            },
        );
    }
    if !tinted.is_empty() {
        look.notes.push(crate::report::Note {
            code: Code::LookBaseColorDropped.code(),
            message: format!(
                "{} a base colour factor other than white: the game's materials do not hold one, so it was dropped (the texture, if any, is kept as it is): {}",
                crate::report::counted(tinted.len(), "material has", "materials have"),
                crate::report::few(&tinted)
            ),
        });
    }
    Ok(look)
}

/// An image's pixels and its recorded Texm.
fn read_image(
    src: &read::Source<'_>,
    image: &gltf::Image<'_>,
    resolver: Resolver<'_>,
) -> Result<ImportedImage> {
    let what = format!("image {}", image.index());
    // From the image's JSON, not `Image::source`: that unwraps a missing
    // `mimeType` beside a `bufferView` and an index past the views (a panic
    // on a file the document's validation let through; the pixels are
    // sniffed, so the MIME type is not needed).
    let json = src.doc.as_json().images.get(image.index());
    let (bytes, stem): (Vec<u8>, Option<String>) = match (
        json.and_then(|j| j.buffer_view.as_ref()),
        json.and_then(|j| j.uri.as_deref()),
    ) {
        (Some(index), _) => {
            let view = src.doc.views().nth(index.value()).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    Code::GltfViewOutOfRange.code(),
                    format!("{what}: buffer view {} does not exist", index.value()),
                )
            })?;
            let buffer = src
                .buffers
                .get(view.buffer().index())
                .map(|b| &b[..])
                .unwrap_or(&[]);
            let range = view.offset()..view.offset().saturating_add(view.length());
            let slice = buffer.get(range).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    Code::GltfViewOutOfRange.code(),
                    format!(
                        "{what}: buffer view {} lies outside its buffer",
                        view.index()
                    ),
                )
            })?;
            (slice.to_vec(), None)
        }
        (None, Some(uri)) => (read::load_uri(uri, resolver)?, uri_stem(uri)),
        (None, None) => {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                Code::ImageInvalid.code(),
                format!("{what}: not a decodable image: it has neither a buffer view nor a uri"),
            ));
        }
    };
    let pixels = raster::decode(&bytes, &what)?;
    let texm = ex::unwrap::<ImageExtras>(image.extras()).and_then(|e| e.texm.into_recorded());
    Ok(ImportedImage {
        name: image.name().map(str::to_string).or(stem),
        pixels,
        texm,
    })
}

/// "1 material has" / "N materials have".
fn names_have(n: usize) -> String {
    crate::report::counted(n, "material has", "materials have")
}

/// MSH material index of every glTF material: the exporter's extras, else a
/// `mat<k>` name, else the lowest free index (reported). The one rule both
/// the geometry import and the look import use.
pub(crate) fn material_indices(doc: &gltf::Document, report: &mut Report) -> Result<Vec<u16>> {
    let mut out: Vec<Option<u16>> = doc
        .materials()
        .map(|m| {
            #[derive(Deserialize)]
            struct E {
                material: u16,
            }
            ex::unwrap::<E>(m.extras())
                .map(|e| e.material)
                .or_else(|| m.name().and_then(names::material_index))
        })
        .collect();
    let taken: std::collections::HashSet<u16> = out.iter().flatten().copied().collect();
    let mut free = (0..=u16::MAX).filter(|k| !taken.contains(k));
    let mut assigned: Vec<String> = Vec::new();
    for (i, m) in doc.materials().enumerate() {
        if out[i].is_none() {
            // More materials than MSH's 16-bit indices: the model cannot be made.
            let Some(next) = free.next() else {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    Code::GltfTooManyMaterials.code(),
                    "more than 65536 materials: MSH material indices are 16-bit; merge materials first",
                ));
            };
            out[i] = Some(next);
            assigned.push(format!("{:?} gets {next}", m.name().unwrap_or("(unnamed)")));
        }
    }
    if !assigned.is_empty() {
        // One note for them all: a file of 167 such materials gave 167 lines.
        report.note(
            Code::ImportMaterialAssigned.code(),
            format!(
                "{} no MSH index (no `mat<k>` name, no extras); each gets the lowest free index: {}",
                names_have(assigned.len()),
                crate::report::few(&assigned)
            ),
        );
    }
    Ok(out.into_iter().map(|m| m.unwrap_or(0)).collect())
}
