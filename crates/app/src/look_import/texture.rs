//! Textures of the look import: each base-colour image made a Texm entry of
//! `Textures.lib` (docs/MATERIALS.md, "The way back").
//!
//! - An image a textured export recorded (`extras.msh.texm`) whose pixels are
//!   those of the library's entry of that name: the entry is reused.
//! - Recorded, same size, but the pixels differ (edited) or the library lacks
//!   it: level 0 is encoded in the recorded format (the library's level as the
//!   reference, so unchanged pixels keep their exact bits; 888's unused byte
//!   from the record); the lower mips are the record's when the library had no
//!   entry (an import into another folder), else rebuilt from the new level 0
//!   by `texm::downsample` (a 2 x 2 box filter), as many as before; when
//!   level 0 comes out as the library's (an edit the format cannot hold,
//!   such as alpha painted into a 565 texture), the library's mips are kept
//!   and the entry is reused, byte for byte. Flags, palette and Page
//!   rectangles are the record's. The entry of that name is replaced (every
//!   model using the texture sees the edit); what a palette or grey texture
//!   could not hold of the paint is noted (`loss`).
//! - Recorded but resized in an editor: a new chain of the recorded format at
//!   the new size (the Page rectangles scaled), replacing the entry.
//! - Not recorded (a new image): [`new_texture_size`], [`new_texture_format`],
//!   a full mip chain, flags 0, under the image's name fitted by
//!   [`super::fit_name`] (an identical entry of that name is reused).
//!
//! Three-way: when the material records its texture as exported (the
//! fingerprint of its picture, `extras.msh.exported`), an image whose pixels
//! differ from the library's entry is compared with that base too. Left as
//! exported: the library changed the entry since, and its entry is kept
//! (`look.library_kept`). Edited, the library's entry still the exported one:
//! the edit replaces it (above). Edited, and the library's entry changed
//! since as well, otherwise: `look.edit_conflict`, naming the three pictures,
//! and nothing is written. Without that record (an older export, an OBJ,
//! another tool's file) the comparison is two-way as above, and a replaced
//! entry says so (`look.no_base`).

use super::naming::{fit_name, TEXTURE_NAME_MAX};
use super::{Action, Change, Edits, Library, Log};
use crate::codes::{ErrorCode, NoteCode};
use crate::error::Error;
use crate::game::{same_name, TEXTURES_LIB};
use mshconv_convert::imported_look::{ImportedImage, ImportedMaterial, RecordedTexm};
use mshconv_convert::look::fingerprint;
use mshconv_convert::Report;
use mshconv_material::texm::{
    downsample, encode_level, level_size, PixelFormat, Rgba8Image, TEXM_MAGIC,
};
use mshconv_material::Texm;
use std::borrow::Cow;

/// The largest side of a new texture (**a choice**: the retail sizes are not
/// known; 1998 hardware commonly took 256, later cards 1024 and more).
pub const MAX_NEW_TEXTURE_SIDE: u32 = 1024;

/// The size a new texture gets: each side the power of two nearest to it
/// (a tie goes up), at most [`MAX_NEW_TEXTURE_SIDE`].
pub fn new_texture_size(width: u32, height: u32) -> (u32, u32) {
    let side = |v: u32| {
        let down = 1u32 << (31 - v.max(1).leading_zeros());
        let up = down.saturating_mul(2);
        let nearest = if v - down < up - v { down } else { up };
        nearest.min(MAX_NEW_TEXTURE_SIDE)
    };
    (side(width), side(height))
}

/// The format a new texture gets: 8888 when any alpha is below 255, else 565.
pub fn new_texture_format(image: &Rgba8Image) -> PixelFormat {
    if image.pixels.iter().skip(3).step_by(4).any(|&a| a < 255) {
        PixelFormat::Argb8888
    } else {
        PixelFormat::Rgb565
    }
}

/// The filter of [`resample`]: Catmull-Rom, a cubic convolution whose
/// support widens with the downscale factor (each output pixel weighs every
/// source pixel it covers, so detail finer than the new size averages out
/// instead of aliasing), and that stays sharp when a side grows.
const RESAMPLE_FILTER: fast_image_resize::FilterType = fast_image_resize::FilterType::CatmullRom;

/// The image resampled to `width` x `height` by [`RESAMPLE_FILTER`]
/// (`fast_image_resize`), each channel alone, alpha too: straight alpha, as
/// the mips' box filter and the game read it (the colour of a transparent
/// texel is kept, not made black by premultiplying); the image itself when
/// the size is its own.
fn resample(image: &Rgba8Image, width: u32, height: u32) -> Result<Rgba8Image, Error> {
    use fast_image_resize::images::{Image, ImageRef};
    use fast_image_resize::{PixelType, ResizeAlg, ResizeOptions, Resizer};
    if (image.width, image.height) == (width, height) {
        return Ok(image.clone());
    }
    let failed = |e: &dyn std::fmt::Display| {
        Error::invalid(
            ErrorCode::LookBadTexture,
            format!(
                "a new texture of {} x {} cannot be resized to {width} x {height}: {e}",
                image.width, image.height
            ),
        )
    };
    let source = ImageRef::new(image.width, image.height, &image.pixels, PixelType::U8x4)
        .map_err(|e| failed(&e))?;
    let mut resized = Image::new(width, height, PixelType::U8x4);
    let options = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(RESAMPLE_FILTER))
        .use_alpha(false);
    Resizer::new()
        .resize(&source, &mut resized, &options)
        .map_err(|e| failed(&e))?;
    Ok(Rgba8Image {
        width,
        height,
        pixels: resized.into_vec(),
    })
}

/// How many levels a full chain of a `width` x `height` texture has.
fn full_chain(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

fn material_error(e: mshconv_material::Error, what: &str) -> Error {
    Error::invalid(ErrorCode::LookBadTexture, format!("{what}: {e}"))
}

/// One planned image: its identity and the entry it became.
struct Planned {
    record: Option<String>,
    name: Option<String>,
    pixels: Rgba8Image,
    entry: String,
}

/// The texture side of a plan: `Textures.lib`'s entries and its editor.
pub(super) struct Planner<'l> {
    /// Every entry's name and payload, as the plan goes (borrowed from the
    /// library; new and replaced ones owned).
    entries: Vec<(String, Cow<'l, [u8]>)>,
    /// The entries before the run (`look_import::plan_in_run`): whether an
    /// image is an edit is decided against these.
    base: Vec<(String, &'l [u8])>,
    edits: Edits<'l>,
    planned: Vec<Planned>,
}

impl<'l> Planner<'l> {
    pub(super) fn new(lib: &'l Library, base: &'l Library) -> Result<Planner<'l>, Error> {
        let entries = lib.entries(|e| Some((e.name(), Cow::Borrowed(e.data()))))?;
        let base = base.entries(|e| Some((e.name(), e.data())))?;
        Ok(Planner {
            entries,
            base,
            edits: Edits::new(lib),
            planned: Vec::new(),
        })
    }

    fn entry(&self, name: &str) -> Option<&[u8]> {
        self.entries
            .iter()
            .find(|(n, _)| same_name(n, name))
            .map(|(_, d)| d.as_ref())
    }

    /// The entry `name` as it was before the run.
    fn base_entry(&self, name: &str) -> Option<&'l [u8]> {
        self.base
            .iter()
            .find(|(n, _)| same_name(n, name))
            .map(|(_, d)| *d)
    }

    /// The entry `name` as stored (its own spelling).
    fn stored_name(&self, name: &str) -> String {
        self.entries
            .iter()
            .find(|(n, _)| same_name(n, name))
            .map_or_else(|| name.to_string(), |(n, _)| n.clone())
    }

    /// The library's entry `name` as a record (what an export would have
    /// recorded of it: the entry before the run, else one an earlier model
    /// of the run added), if it parses.
    fn record_of(&self, name: &str) -> Option<RecordedTexm> {
        let texm = self
            .base_entry(name)
            .and_then(|d| Texm::parse(d).ok())
            .or_else(|| self.texm(name))?;
        Some(as_record(self.stored_name(name), texm))
    }

    /// The entry `name` parsed, if there is one and it parses.
    fn texm(&self, name: &str) -> Option<Texm> {
        Texm::parse(self.entry(name)?).ok()
    }

    fn put(&mut self, name: &str, texm: &Texm) -> Result<(), Error> {
        let bytes = texm
            .write()
            .map_err(|e| material_error(e, &format!("texture {name:?}")))?;
        self.edits
            .editor()?
            .put(name, Some(TEXM_MAGIC), bytes.clone())?;
        match self.entries.iter_mut().find(|(n, _)| same_name(n, name)) {
            Some(slot) => slot.1 = Cow::Owned(bytes),
            None => self.entries.push((name.to_string(), Cow::Owned(bytes))),
        }
        Ok(())
    }

    /// The texture entry of `image` (used by material `index`), planned.
    pub(super) fn plan(
        &mut self,
        image: &ImportedImage,
        material: &ImportedMaterial,
        hint: Option<&str>,
        index: u16,
        log: &mut Log<'_>,
    ) -> Result<String, Error> {
        let record = image.texm.as_ref().map(|t| t.name.clone());
        if let Some(p) = self
            .planned
            .iter()
            .find(|p| p.record == record && p.name == image.name && p.pixels == image.pixels)
        {
            return Ok(p.entry.clone());
        }
        // An image without its record whose material had a texture is that
        // texture (edited or not): the library's entry stands for the record.
        let from_library = match (&image.texm, hint) {
            (None, Some(h)) => self.record_of(h),
            _ => None,
        };
        // The texture as exported, when the material records it (and it is
        // this image's): the base of the three-way comparison.
        let exported = |rec: &RecordedTexm| {
            material
                .exported
                .as_ref()
                .and_then(|e| e.texture.as_ref())
                .filter(|b| same_name(&b.name, &rec.name))
                .map(|b| Exported {
                    fingerprint: &b.fingerprint,
                    fields: image.texm.as_ref(),
                })
        };
        let (entry, action, detail, conflict) = match image.texm.as_ref().or(from_library.as_ref())
        {
            Some(rec) => self.plan_recorded(image, rec, exported(rec), log.report)?,
            None => {
                let (entry, action, detail) = self.plan_new(image, material, log.report)?;
                (entry, action, detail, false)
            }
        };
        let change = Change {
            library: TEXTURES_LIB,
            entry: entry.clone(),
            action,
            detail: format!("material {index}: {detail}"),
        };
        if conflict {
            log.conflicts.push(change.clone());
        }
        log.changes.push(change);
        self.planned.push(Planned {
            record,
            name: image.name.clone(),
            pixels: image.pixels.clone(),
            entry: entry.clone(),
        });
        Ok(entry)
    }

    /// A recorded image (or one the library's entry stands for): reused when
    /// its pixels are the entry's before the run, else the entry rebuilt.
    /// With `exported` (what the file records of the texture as exported),
    /// the comparison is three-way (module docs): an image left as exported
    /// keeps the library's entry, and an edit of an entry the library
    /// changed since is a conflict. The last value says the entry was left
    /// because an earlier model of the run changed it otherwise.
    fn plan_recorded(
        &mut self,
        image: &ImportedImage,
        rec: &RecordedTexm,
        exported: Option<Exported<'_>>,
        report: &mut Report,
    ) -> Result<(String, Action, String, bool), Error> {
        let name = rec.name.clone();
        let base_bytes = self.base_entry(&name);
        let current = base_bytes.and_then(|d| Texm::parse(d).ok());
        if let Some(cur) = &current {
            let theirs = cur.decode_rgba8().ok();
            if theirs.as_ref() == Some(&image.pixels) {
                return Ok((name, Action::Reused, describe(cur), false));
            }
            if let Some(exported) = &exported {
                let ours = fingerprint(&image.pixels);
                let theirs = theirs.as_ref().map(fingerprint);
                let library_changed = theirs.as_deref() != Some(exported.fingerprint)
                    || exported
                        .fields
                        .is_some_and(|f| !same_fields(f, &as_record(name.clone(), cur.clone())));
                if ours == exported.fingerprint {
                    // The file leaves the texture as exported: the
                    // library's entry, changed since, stays.
                    report.note(
                        NoteCode::LookLibraryKept.code(),
                        format!("texture {name:?} changed in {TEXTURES_LIB} since the file was exported, and the file leaves it as exported: the library's entry is kept (when the file's picture is the one wanted, as from another game folder, put it in with mshconv textures import)"),
                    );
                    return Ok((name, Action::Reused, describe(cur), false));
                }
                if library_changed {
                    let short = |f: &str| f.get(..8).unwrap_or(f).to_string();
                    return Err(Error::invalid(
                        ErrorCode::LookEditConflict,
                        format!(
                            "{TEXTURES_LIB} entry {name} was edited on both sides since the file was exported: the export had picture {}, {TEXTURES_LIB} has {} now ({} x {}), the file has {} ({} x {}): nothing is written (export the model again from the game folder and repeat the edit there, or put the file's picture in with mshconv textures import)",
                            short(exported.fingerprint),
                            theirs.as_deref().map_or_else(|| "one that does not decode".to_string(), short),
                            cur.width,
                            cur.height,
                            short(&ours),
                            image.pixels.width,
                            image.pixels.height,
                        ),
                    ));
                }
            }
        }
        let texm = rebuild(rec, &image.pixels, current.as_ref())
            .map_err(|e| material_error(e, &format!("texture {name:?}")))?;
        let action = if base_bytes.is_some() {
            Action::Replaced
        } else {
            Action::Added
        };
        let bytes = texm
            .write()
            .map_err(|e| material_error(e, &format!("texture {name:?}")))?;
        if base_bytes == Some(bytes.as_slice()) {
            // Nothing the format holds changed: the entry as it is, and what
            // the edit lost said.
            super::note_reduced(report, &name, &texm, &image.pixels);
            return Ok((name, Action::Reused, describe(&texm), false));
        }
        let now = self.entry(&name);
        if now.is_some_and(|n| n != bytes.as_slice()) && now != base_bytes {
            // An earlier model of the run changed it otherwise.
            return Ok((name, action, describe(&texm), true));
        }
        if action == Action::Replaced && exported.is_none() {
            report.note(
                NoteCode::LookNoBase.code(),
                format!("texture {name:?}: the file does not record the picture it was exported with (an older export, an OBJ, another tool's file, or Blender without Custom Properties): its picture replaces the library's entry as it is now, and an edit made to that entry since the export is lost"),
            );
        }
        if action == Action::Replaced {
            report.note(
                NoteCode::LookTextureReplaced.code(),
                format!(
                    "texture {name:?} was edited: re-encoded in its format {} ({}), mips rebuilt by a 2 x 2 box filter",
                    texm.format.code(),
                    if (texm.width, texm.height) == (rec.texm.width, rec.texm.height) {
                        "same size".to_string()
                    } else {
                        format!("now {} x {}", texm.width, texm.height)
                    }
                ),
            );
        }
        super::note_reduced(report, &name, &texm, &image.pixels);
        let detail = describe(&texm);
        self.put(&name, &texm)?;
        Ok((name, action, detail, false))
    }

    fn plan_new(
        &mut self,
        image: &ImportedImage,
        material: &ImportedMaterial,
        report: &mut Report,
    ) -> Result<(String, Action, String), Error> {
        let wanted = image
            .name
            .as_deref()
            .or(material.name.as_deref())
            .unwrap_or("");
        // An entry of the image's name with its pixels (an editor that drops
        // image extras and material names alike) is the game's own.
        if let Some(t) = self.texm(wanted) {
            if t.decode_rgba8().is_ok_and(|d| d == image.pixels) {
                let name = self.stored_name(wanted);
                return Ok((name, Action::Reused, describe(&t)));
            }
        }
        let (width, height) = new_texture_size(image.pixels.width, image.pixels.height);
        let texm = new_texm(&image.pixels, "a new texture")?;
        // An identical entry of the wanted name is reused; any other entry
        // of a name keeps its name and the new texture gets the next one.
        let bytes = texm
            .write()
            .map_err(|e| material_error(e, "a new texture"))?;
        let name = fit_name(wanted, "TEXTURE", TEXTURE_NAME_MAX, |n| {
            self.entry(n).is_some_and(|d| d != bytes.as_slice())
        });
        if self.entry(&name).is_some() {
            return Ok((name, Action::Reused, describe(&texm)));
        }
        if (width, height) != (image.pixels.width, image.pixels.height) {
            report.note(
                NoteCode::LookTextureResized.code(),
                format!(
                    "image {wanted:?} ({} x {}) becomes texture {name:?} of {width} x {height} (powers of two, at most {MAX_NEW_TEXTURE_SIDE})",
                    image.pixels.width, image.pixels.height
                ),
            );
        }
        if name != wanted {
            report.note(
                NoteCode::LookNameFitted.code(),
                format!("texture name {wanted:?} is stored as {name:?} (15 bytes of letters, digits, _ - .)"),
            );
        }
        self.put(&name, &texm)?;
        Ok((name, Action::Added, describe(&texm)))
    }

    /// `Textures.lib`'s new bytes, when an entry was added or replaced.
    pub(super) fn finish(self) -> Result<Option<Vec<u8>>, Error> {
        self.edits.finish()
    }
}

/// What a file records of a texture as exported: the fingerprint of its
/// picture (`extras.msh.exported.texture` of the material) and, when the image's own
/// record came along (`extras.msh.texm`), the Texm's other fields.
struct Exported<'a> {
    fingerprint: &'a str,
    fields: Option<&'a RecordedTexm>,
}

/// `texm` as an export records it: level 0 left out (the picture is the
/// image), 888's unused byte kept apart.
fn as_record(name: String, mut texm: Texm) -> RecordedTexm {
    let unused_888 = (texm.format == PixelFormat::Rgb888)
        .then(|| {
            texm.levels
                .first()
                .map(|l| l.chunks_exact(4).map(|p| p[3]).collect())
        })
        .flatten();
    if let Some(level0) = texm.levels.first_mut() {
        level0.clear();
    }
    RecordedTexm {
        name,
        texm,
        unused_888,
    }
}

/// Whether two records hold the same Texm (their names aside).
fn same_fields(a: &RecordedTexm, b: &RecordedTexm) -> bool {
    a.texm == b.texm && a.unused_888 == b.unused_888
}

/// A new texture from an image (see the module documentation): each side
/// the nearest power of two ([`new_texture_size`], resampled by
/// [`RESAMPLE_FILTER`]), the format by its alpha ([`new_texture_format`]), a
/// full mip chain, flags 0; `what` names it in an error.
pub(crate) fn new_texm(image: &Rgba8Image, what: &str) -> Result<Texm, Error> {
    let (width, height) = new_texture_size(image.width, image.height);
    let pixels = resample(image, width, height)?;
    let format = new_texture_format(&pixels);
    Texm::from_rgba8_with_mips(&pixels, format, None, full_chain(width, height))
        .map_err(|e| material_error(e, what))
}

/// `565 64 x 64, 7 mips`.
pub(crate) fn describe(t: &Texm) -> String {
    format!(
        "{} {} x {}, {} mip{}",
        t.format.code(),
        t.width,
        t.height,
        t.levels.len(),
        if t.levels.len() == 1 { "" } else { "s" }
    )
}

/// The recorded Texm with `pixels` as level 0 (see the module documentation).
pub(crate) fn rebuild(
    rec: &RecordedTexm,
    pixels: &Rgba8Image,
    current: Option<&Texm>,
) -> mshconv_material::Result<Texm> {
    let mut texm = rec.texm.clone();
    let same_size = (pixels.width, pixels.height) == (texm.width, texm.height);
    if !same_size {
        let (sx, sy) = (
            pixels.width as f32 / texm.width as f32,
            pixels.height as f32 / texm.height as f32,
        );
        if let Some(page) = &mut texm.page {
            let scale = |v: i16, s: f32| (f32::from(v) * s).round().clamp(-32768.0, 32767.0) as i16;
            for r in page.iter_mut() {
                *r = mshconv_material::texm::PageRect {
                    x: scale(r.x, sx),
                    width: scale(r.width, sx),
                    y: scale(r.y, sy),
                    height: scale(r.height, sy),
                };
            }
        }
        texm.width = pixels.width;
        texm.height = pixels.height;
        let count = (texm.levels.len() as u32).min(full_chain(pixels.width, pixels.height));
        texm.levels = vec![Vec::new(); count as usize];
    }
    // The reference keeps what RGBA8 cannot say: the library's level when it
    // has the same layout, else 888's recorded unused byte.
    let comparable = current.filter(|c| {
        same_size
            && c.format == texm.format
            && (c.width, c.height) == (texm.width, texm.height)
            && c.palette == texm.palette
    });
    let reference0: Option<Vec<u8>> = match comparable {
        Some(c) => c.levels.first().cloned(),
        None => rec.unused_888.as_ref().filter(|_| same_size).map(|unused| {
            unused
                .iter()
                .flat_map(|&u| [0, 0, 0, u])
                .collect::<Vec<u8>>()
        }),
    };
    let palette = texm.palette.as_deref();
    texm.levels[0] = encode_level(
        texm.format,
        palette,
        texm.width,
        texm.height,
        &pixels.pixels,
        reference0.as_deref(),
    )?;
    // Level 0 as the library's (an edit the format cannot hold): its mips
    // too, so the entry's bytes are the same.
    if let Some(c) = comparable.filter(|c| c.levels.len() == texm.levels.len()) {
        if c.levels.first() == texm.levels.first() {
            texm.levels.clone_from(&c.levels);
            return Ok(texm);
        }
    }
    // Lower levels: the record's when nothing is known to have changed them
    // (the library had no such texture and the size is the recorded one).
    if current.is_some() || !same_size {
        let mut level = pixels.clone();
        for i in 1..texm.levels.len() {
            level = downsample(&level);
            let (w, h) = level_size(texm.width, texm.height, i as u32);
            debug_assert_eq!((w, h), (level.width, level.height));
            let reference = comparable.and_then(|c| c.levels.get(i)).map(Vec::as_slice);
            texm.levels[i] = encode_level(texm.format, palette, w, h, &level.pixels, reference)?;
        }
    }
    Ok(texm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_sizes_are_powers_of_two_within_the_limit() {
        assert_eq!(new_texture_size(64, 64), (64, 64));
        assert_eq!(new_texture_size(100, 40), (128, 32));
        assert_eq!(new_texture_size(96, 48), (128, 64));
        assert_eq!(new_texture_size(1, 3000), (1, MAX_NEW_TEXTURE_SIDE));
        assert_eq!(full_chain(64, 16), 7);
        assert_eq!(full_chain(1, 1), 1);
    }

    #[test]
    fn alpha_picks_8888() {
        let opaque = Rgba8Image {
            width: 1,
            height: 1,
            pixels: vec![1, 2, 3, 255],
        };
        assert_eq!(new_texture_format(&opaque), PixelFormat::Rgb565);
        let see_through = Rgba8Image {
            pixels: vec![1, 2, 3, 254],
            ..opaque
        };
        assert_eq!(new_texture_format(&see_through), PixelFormat::Argb8888);
    }

    #[test]
    fn resampling_keeps_a_flat_colour_and_the_size_asked() {
        let image = Rgba8Image {
            width: 3,
            height: 5,
            pixels: [9, 8, 7, 255].repeat(15),
        };
        let r = resample(&image, 4, 4).unwrap();
        assert_eq!((r.width, r.height), (4, 4));
        assert_eq!(r.pixels, [9, 8, 7, 255].repeat(16));
    }

    /// A checker of 3-texel squares (a period of 6 texels, finer than the 8
    /// a quarter of the size can show) downscaled 4x comes out near its mean
    /// grey. (Bilinear at pixel centres, without a prefilter, reads two
    /// texels per pixel and gave 0, 128 and 255 in turn here: aliasing.)
    /// Alpha, varying with the checker too, is filtered as the colours are.
    #[test]
    fn a_fine_checker_downscaled_4x_is_its_mean_grey() {
        let (w, h) = (240u32, 120u32);
        let mut pixels = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h {
            for x in 0..w {
                let v = if (x / 3 + y / 3) % 2 == 0 { 255 } else { 0 };
                pixels.extend([v, v, v, if v == 0 { 55 } else { 255 }]);
            }
        }
        let image = Rgba8Image {
            width: w,
            height: h,
            pixels,
        };
        let r = resample(&image, w / 4, h / 4).unwrap();
        assert_eq!((r.width, r.height), (60, 30));
        for (i, p) in r.pixels.chunks_exact(4).enumerate() {
            for (c, mean) in [(0, 127.5), (1, 127.5), (2, 127.5), (3, 155.0)] {
                assert!(
                    (f64::from(p[c]) - mean).abs() <= 24.0,
                    "pixel {i} channel {c}: {} (mean {mean})",
                    p[c]
                );
            }
        }
        // Not a constant answer: a coarse checker (32-texel squares, 8 pixels
        // once downscaled) keeps its
        // contrast at the same size.
        let coarse = Rgba8Image {
            pixels: (0..w * h)
                .flat_map(|i| {
                    let (x, y) = (i % w, i / w);
                    let v = if (x / 32 + y / 32) % 2 == 0 { 255 } else { 0 };
                    [v, v, v, 255]
                })
                .collect(),
            ..image
        };
        let r = resample(&coarse, w / 4, h / 4).unwrap();
        let grey: Vec<u8> = r.pixels.chunks_exact(4).map(|p| p[0]).collect();
        assert!(grey[2 * 60 + 2] >= 250, "inside a white square: {grey:?}");
        assert!(grey[2 * 60 + 10] <= 5, "inside a black square: {grey:?}");
    }
}
