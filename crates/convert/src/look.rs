//! A model's look from the game's libraries, as the exports take it: each
//! `material_index` the model's WEAR resolves, with its MAT0 and its decoded
//! texture. The application layer resolves it (`mshconv_app::game`); the
//! exports only map it (docs/MATERIALS.md, "The resolver and the export").
//!
//! Textures are shared (`Arc`) between every model that uses them, and each
//! is encoded to PNG once, on first use ([`Texture::png`]).

use mshconv_material::texm::Rgba8Image;
use mshconv_material::{Mat0, Texm};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// How a WEAR row's name became a MAT0 entry: the runtime's rule, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resolution {
    /// The entry with the row's name (names compared case-insensitively).
    Exact,
    /// No entry of that name: the entry named `DEFAULT`.
    Default,
    /// Neither: the first entry of `Material.lib`.
    FirstEntry,
}

impl Resolution {
    /// The name written in extras and notes: `exact`, `default`, `first_entry`.
    pub fn name(self) -> &'static str {
        match self {
            Resolution::Exact => "exact",
            Resolution::Default => "default",
            Resolution::FirstEntry => "first_entry",
        }
    }
}

/// A MAT0 entry of `Material.lib`, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// The entry's name as stored.
    pub name: String,
    /// The entry's `attr1` (runtime flags, kept raw).
    pub attr1: u32,
    /// The material (its `version` is the entry's `attr2`).
    pub mat0: Mat0,
}

/// How a texture's alpha channel is used, from its pixels (the evidence
/// `../shared/spec/MATERIALS.md` names until the MAT0 parameters are known).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Alpha {
    /// Every pixel's alpha is 255.
    Opaque,
    /// Alpha is only 0 or 255 (and not all 255): glTF `MASK`.
    Mask,
    /// Some alpha strictly between 0 and 255: glTF `BLEND`.
    Blend,
}

impl Alpha {
    /// The alpha use of RGBA8 pixels.
    pub fn of(pixels: &[u8]) -> Alpha {
        let mut alpha = Alpha::Opaque;
        for a in pixels.iter().skip(3).step_by(4) {
            match a {
                255 => {}
                0 => alpha = Alpha::Mask,
                _ => return Alpha::Blend,
            }
        }
        alpha
    }
}

/// How many hex digits a [`fingerprint`] has (**a choice**: 128 bits of
/// SHA-256, enough that two different pictures never share one by chance,
/// and short in a file's extras).
pub const FINGERPRINT_HEX: usize = 32;

/// The fingerprint of a picture: the first 128 bits of the SHA-256 of its
/// width and height (little-endian `u32`s) and its RGBA8 pixels, in
/// lowercase hex. A textured glTF export records that of each material's
/// texture as exported, so the way back tells the user's edit from a
/// library change made since (docs/MATERIALS.md, "The way back").
pub fn fingerprint(image: &Rgba8Image) -> String {
    hex128(&[
        &image.width.to_le_bytes(),
        &image.height.to_le_bytes(),
        &image.pixels,
    ])
}

/// The fingerprint of a MAT0 entry, as [`fingerprint`] of a picture: of its
/// `attr1`, `attr2` (the version; little-endian `u32`s) and payload.
pub fn entry_fingerprint(attr1: u32, attr2: u32, data: &[u8]) -> String {
    hex128(&[&attr1.to_le_bytes(), &attr2.to_le_bytes(), data])
}

/// The fingerprint of a model file, as [`fingerprint`] of a picture: of its
/// bytes. A glTF export records that of the model it was made from
/// (`extras.msh.original_fingerprint`) instead of the file, and the import
/// checks the original it is given against it (docs/GLTF.md, "The original").
pub fn file_fingerprint(bytes: &[u8]) -> String {
    hex128(&[bytes])
}

/// The first [`FINGERPRINT_HEX`] hex digits of the SHA-256 of `parts` in turn.
fn hex128(parts: &[&[u8]]) -> String {
    use sha2::Digest as _;
    let mut hash = sha2::Sha256::new();
    for part in parts {
        hash.update(part);
    }
    let digest = hash.finalize();
    digest[..FINGERPRINT_HEX / 2]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A Texm entry of `Textures.lib`, parsed, with mip 0 decoded to RGBA8.
#[derive(Debug)]
pub struct Texture {
    /// The entry's name as stored.
    pub name: String,
    /// The Texm (every level, the palette, the Page rectangles).
    pub texm: Texm,
    /// Mip 0 as RGBA8, rows top to bottom.
    pub rgba: Rgba8Image,
    /// How its alpha is used.
    pub alpha: Alpha,
    png: OnceLock<Vec<u8>>,
    png_bottom_up: OnceLock<Vec<u8>>,
    fingerprint: OnceLock<String>,
}

impl Texture {
    /// The texture `name` from its Texm; `None` when mip 0 does not decode
    /// (which a parsed Texm always does).
    pub fn new(name: String, texm: Texm) -> Option<Texture> {
        let rgba = texm.decode_rgba8().ok()?;
        let alpha = Alpha::of(&rgba.pixels);
        Some(Texture {
            name,
            texm,
            rgba,
            alpha,
            png: OnceLock::new(),
            png_bottom_up: OnceLock::new(),
            fingerprint: OnceLock::new(),
        })
    }

    /// Mip 0's [`fingerprint`], made on first use.
    pub fn fingerprint(&self) -> &str {
        self.fingerprint.get_or_init(|| fingerprint(&self.rgba))
    }

    /// Mip 0 as a PNG (RGBA, 8 bits; RGB when opaque), encoded on first use.
    pub fn png(&self) -> &[u8] {
        self.png.get_or_init(|| encode_png(&self.rgba, self.alpha))
    }

    /// Mip 0 as a PNG with its rows in reverse order, for OBJ: OBJ tools put
    /// the V origin at the image's bottom, MSH UVs (written as stored, so the
    /// round trip stays exact) have it at the top; flipping the image instead
    /// of V shows the texture the right way up. Encoded on first use.
    pub fn png_bottom_up(&self) -> &[u8] {
        self.png_bottom_up.get_or_init(|| {
            let row = self.rgba.width as usize * 4;
            let pixels = if row == 0 {
                Vec::new()
            } else {
                self.rgba
                    .pixels
                    .chunks(row)
                    .rev()
                    .flatten()
                    .copied()
                    .collect()
            };
            let flipped = Rgba8Image {
                width: self.rgba.width,
                height: self.rgba.height,
                pixels,
            };
            encode_png(&flipped, self.alpha)
        })
    }
}

/// Encodes RGBA8 pixels as PNG with a fast setting (the images are small and
/// a batch encodes each once per process). Opaque images drop the alpha
/// channel. An image whose size the encoder refuses (never one a Texm holds)
/// gives an empty vector.
pub fn encode_png(image: &Rgba8Image, alpha: Alpha) -> Vec<u8> {
    let mut out = Vec::new();
    let opaque = alpha == Alpha::Opaque;
    let rgb: Vec<u8>;
    let data: &[u8] = if opaque {
        rgb = image
            .pixels
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        &rgb
    } else {
        &image.pixels
    };
    let result = (|| -> Result<(), png::EncodingError> {
        let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
        encoder.set_color(if opaque {
            png::ColorType::Rgb
        } else {
            png::ColorType::Rgba
        });
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(data)?;
        writer.finish()
    })();
    if result.is_err() {
        return Vec::new();
    }
    out
}

/// One `material_index` resolved.
#[derive(Debug, Clone)]
pub struct ResolvedMaterial {
    /// The WEAR row's legacy id, as written.
    pub legacy_id: String,
    /// The WEAR row's material name.
    pub row_name: String,
    /// Which of the runtime's rules found the material.
    pub resolution: Resolution,
    /// The MAT0 entry.
    pub material: Arc<Material>,
    /// The texture the material names (its first non-empty texture name),
    /// when `Textures.lib` has it.
    pub texture: Option<Arc<Texture>>,
}

/// The WEAR a look was resolved through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WearSource {
    /// Its entry or file name.
    pub name: String,
    /// Its text, decoded from Windows-1251 (every byte is one character, so
    /// the bytes come back exactly).
    pub text: String,
}

/// What an export takes from the game's libraries: each `material_index` the
/// model's WEAR resolves (an index missing here is exported as without a
/// game folder: `mat<n>`, palette colour), and the WEAR itself.
#[derive(Debug, Clone, Default)]
pub struct Look {
    /// By `material_index`.
    pub materials: BTreeMap<u16, ResolvedMaterial>,
    /// The model's WEAR, kept in the output's extras.
    pub wear: Option<WearSource>,
}

/// Files an export writes beside its main file: `(file name, bytes)`.
pub type SideFiles = Vec<(String, Vec<u8>)>;

/// Makes a texture name a safe file-name part: ASCII letters, digits, `-`
/// and `_` kept, anything else `_`.
pub fn file_name_part(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "texture".to_string()
    } else {
        s
    }
}

/// The file name of a texture's image beside the model,
/// `{stem}_{texture}.{ext}` (the texture's name made safe by
/// [`file_name_part`]), or `{stem}_{texture}_{k}.{ext}` when `taken` says
/// that name is already used (two textures whose names give the same file
/// name; `k` the texture's place in the order of first use). Every export
/// names its images so: a `.gltf` and a `.usda` of one model share theirs.
pub fn side_file_name(
    stem: &str,
    texture: &str,
    ext: &str,
    k: usize,
    taken: impl Fn(&str) -> bool,
) -> String {
    let base = format!("{stem}_{}", file_name_part(texture));
    let name = format!("{base}.{ext}");
    if taken(&name) {
        format!("{base}_{k}.{ext}")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_use_from_pixels() {
        assert_eq!(Alpha::of(&[1, 2, 3, 255, 4, 5, 6, 255]), Alpha::Opaque);
        assert_eq!(Alpha::of(&[1, 2, 3, 0, 4, 5, 6, 255]), Alpha::Mask);
        assert_eq!(Alpha::of(&[1, 2, 3, 0, 4, 5, 6, 128]), Alpha::Blend);
    }

    /// The oracle: Python's `hashlib.sha256(struct.pack('<II', w, h) +
    /// pixels).hexdigest()[:32]`.
    #[test]
    fn fingerprint_is_sha256_of_size_and_pixels() {
        let image = |width, height| Rgba8Image {
            width,
            height,
            pixels: vec![1, 2, 3, 255, 4, 5, 6, 7],
        };
        assert_eq!(
            fingerprint(&image(2, 1)),
            "c89cd07e89b04c6855602863fa9c9a9f"
        );
        // The same pixels in another shape are another picture.
        assert_eq!(
            fingerprint(&image(1, 2)),
            "01504210b7d9c84990e50c21203a14cc"
        );
        // hashlib.sha256(struct.pack('<II', 3, 6) + b'MAT0').hexdigest()[:32]
        assert_eq!(
            entry_fingerprint(3, 6, b"MAT0"),
            "fb9aedb90524df23d350ef86e66a59bd"
        );
    }

    #[test]
    fn png_round_trip() {
        for pixels in [
            vec![10, 20, 30, 255, 40, 50, 60, 255],
            vec![10, 20, 30, 0, 40, 50, 60, 200],
        ] {
            let image = Rgba8Image {
                width: 2,
                height: 1,
                pixels: pixels.clone(),
            };
            let png = encode_png(&image, Alpha::of(&pixels));
            let decoder = png::Decoder::new(std::io::Cursor::new(png));
            let mut reader = decoder.read_info().unwrap();
            let mut buf = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut buf).unwrap();
            let got: Vec<u8> = if info.color_type == png::ColorType::Rgb {
                buf[..info.buffer_size()]
                    .chunks(3)
                    .flat_map(|p| [p[0], p[1], p[2], 255])
                    .collect()
            } else {
                buf[..info.buffer_size()].to_vec()
            };
            assert_eq!(got, pixels);
        }
        assert_eq!(file_name_part("a b/ü.T"), "a_b___T");
        assert_eq!(file_name_part(""), "texture");
    }
}
