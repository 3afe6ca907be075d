//! The look an importer reads back from a file, by MSH material index: the
//! type every format's look import fills (glTF's `read_look`, OBJ's
//! `read_look`) and the application layer (`mshconv_app::look_import`) turns
//! into WEAR, MAT0 and Texm entries (docs/MATERIALS.md, "The way back").

use mshconv_material::texm::Rgba8Image;
use mshconv_material::{Mat0, Texm};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The look of an imported model, by MSH material index.
#[derive(Debug, Clone, Default)]
pub struct ImportedLook {
    /// The WEAR a textured export recorded (the document's `extras.msh.wear`).
    pub wear: Option<RecordedWear>,
    /// One entry per MSH material index the glTF's materials map to (the
    /// first glTF material of each index; `NAME#1` repeats share it).
    pub materials: BTreeMap<u16, ImportedMaterial>,
    /// What could not be read (`look.image_unreadable`: an image that is not
    /// there or does not decode; its material comes back without it).
    pub notes: Vec<crate::report::Note>,
}

/// A WEAR as a textured export recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RecordedWear {
    /// The WEAR's file or entry name.
    pub name: String,
    /// Its text, Windows-1251 decoded one character per byte.
    pub text: String,
}

/// A glTF material, as the look import sees it.
#[derive(Debug, Clone)]
pub struct ImportedMaterial {
    /// The glTF material's name without a `#n` repeat suffix.
    pub name: Option<String>,
    /// The WEAR row a textured export recorded: `(legacy_id, name)`.
    pub wear_row: Option<(String, String)>,
    /// The MAT0 entry a textured export recorded (its name, `attr1`, value).
    pub mat0: Option<RecordedMat0>,
    /// The material as exported, as a textured export recorded it
    /// (`extras.msh.exported`): the base of the way back's three-way
    /// comparison (docs/MATERIALS.md, "The way back").
    pub exported: Option<Exported>,
    /// The base-colour texture's image, decoded.
    pub image: Option<ImportedImage>,
    /// `baseColorFactor` (linear RGBA).
    pub base_color: [f32; 4],
}

/// A MAT0 entry as recorded in a material's extras.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedMat0 {
    /// The entry's name.
    pub name: String,
    /// The entry's `attr1`.
    pub attr1: u32,
    /// The payload (its `version` is the entry's `attr2`).
    pub mat0: Mat0,
}

/// A material as exported: the fingerprints of its MAT0 entry and of its
/// texture's picture.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Exported {
    /// The [`crate::look::entry_fingerprint`] of its MAT0 entry.
    pub mat0: Option<String>,
    /// Its texture.
    pub texture: Option<TextureBase>,
}

/// A material's texture as exported: the `Textures.lib` entry's name and the
/// [`crate::look::fingerprint`] of its mip 0.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TextureBase {
    /// The entry's name.
    pub name: String,
    /// The fingerprint of its mip 0 as exported.
    pub fingerprint: String,
}

/// A base-colour image.
#[derive(Debug, Clone)]
pub struct ImportedImage {
    /// The image's name (glTF `name`, else its file name's stem).
    pub name: Option<String>,
    /// Mip 0, RGBA8, rows top to bottom.
    pub pixels: Rgba8Image,
    /// The Texm a textured export recorded, with `levels[0]` empty: level 0
    /// is `pixels`, to be encoded in `texm.format`.
    pub texm: Option<RecordedTexm>,
}

/// A Texm as recorded in an image's extras.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedTexm {
    /// The `Textures.lib` entry name.
    pub name: String,
    /// Every field; `levels[0]` is empty (mip 0 comes from the image).
    pub texm: Texm,
    /// 888's unused byte of each mip-0 pixel.
    pub unused_888: Option<Vec<u8>>,
}
