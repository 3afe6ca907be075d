//! `Textures.lib` as a folder: every Texm entry as `NAME.png` (RGBA, mip 0
//! decoded) and `textures.json`, which holds what a PNG cannot (the pixel
//! format, the mip count, the flags, the palette, the Page rectangles, the
//! entry's attributes). [`export`] writes them; [`plan_import`] compares
//! the folder with the library (docs/LIBRARY_FILES.md):
//!
//! - a PNG whose pixels and record are the entry's: the entry is kept, byte
//!   for byte;
//! - other pixels, or another format or mip count: the entry re-encoded as
//!   the look import re-encodes an edited texture
//!   (`look_import::rebuild_texture`: unchanged pixels keep their bits, the
//!   lower mips rebuilt by the 2 x 2 box filter);
//! - other flags, Page or attributes only: those changed, the pixels kept;
//! - a record whose entry the library lacks: added as the record says;
//! - a PNG without a record: a new texture by the look import's rules for a
//!   new image (`look_import::new_texm`), named after the file's stem fitted
//!   by `look_import::fit_name`.

use super::fields::{from_hex, pretty, to_hex, Record, Source};
use super::{parse_library, ImportPlan, Planning};
use crate::codes::{ErrorCode, NoteCode};
use crate::error::Error;
use crate::game::{same_name, TEXTURES_LIB};
use crate::look_import::{
    describe_texture, fit_name, new_texm, new_texture_size, rebuild_texture, Action, Change,
    Library, MAX_NEW_TEXTURE_SIDE, TEXTURE_NAME_MAX,
};
use mshconv_convert::imported_look::RecordedTexm;
use mshconv_convert::look::{encode_png, file_name_part, Alpha};
use mshconv_material::texm::{
    PageRect, Palette, PixelFormat, Rgba8Image, PALETTE_ENTRIES, TEXM_MAGIC,
};
use mshconv_material::Texm;
use serde::Serialize;
use std::path::Path;

/// The index file of an exported folder.
pub const INDEX: &str = "textures.json";

/// What `textures.json` says it is (its `about` field).
pub const ABOUT: &str = "mshconv textures: Textures.lib as PNG files (docs/LIBRARY_FILES.md)";

/// The files of an exported library.
#[derive(Debug, Clone)]
pub struct Exported {
    /// `(file name, bytes)`: each texture's PNG, in entry order, then [`INDEX`].
    pub files: Vec<(String, Vec<u8>)>,
    /// Entries left out, with why (not a Texm that parses).
    pub skipped: Vec<(String, String)>,
}

#[derive(Serialize)]
struct IndexOut {
    about: &'static str,
    textures: Vec<RecordOut>,
    skipped: Vec<SkippedOut>,
}

#[derive(Serialize)]
struct RecordOut {
    entry: String,
    file: String,
    pixel_format: u32,
    mip_levels: usize,
    flags4: u32,
    flags5: u32,
    unknown6: u32,
    attributes: [u32; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<Vec<[i16; 4]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    palette: Option<String>,
}

#[derive(Serialize)]
struct SkippedOut {
    entry: String,
    why: String,
}

/// A file name for entry `name` not yet in `used` (compared
/// case-insensitively): `NAME.png` when the name is made of ASCII letters,
/// digits, `_`, `-` and `.` (not first), else its safe part, then `_2`, ...
fn file_name(name: &str, used: &[String]) -> String {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let stem = if plain {
        name.to_string()
    } else {
        file_name_part(name)
    };
    let taken = |f: &str| used.iter().any(|u| u.eq_ignore_ascii_case(f));
    let first = format!("{stem}.png");
    if !taken(&first) {
        return first;
    }
    (2u32..)
        .map(|n| format!("{stem}_{n}.png"))
        .find(|f| !taken(f))
        .unwrap_or(first)
}

/// Exports the library `library`: each Texm entry's mip 0 as an RGBA PNG
/// and the index.
pub fn export(library: &Library) -> Result<Exported, Error> {
    let archive = parse_library(library)?;
    let mut files = Vec::new();
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    let mut used: Vec<String> = vec![INDEX.to_string()];
    for e in archive.entries() {
        let name = e.name();
        let texm = match Texm::parse(e.data()) {
            Ok(t) => t,
            Err(err) => {
                skipped.push((name, format!("not a Texm texture: {err}")));
                continue;
            }
        };
        let pixels = texm.decode_rgba8().map_err(|err| {
            Error::invalid(
                ErrorCode::TexturesBadEntry,
                format!("texture {name:?}: {err}"),
            )
        })?;
        let file = file_name(&name, &used);
        used.push(file.clone());
        // Always RGBA (Alpha::Blend keeps the channel), so an editor keeps it.
        files.push((file.clone(), encode_png(&pixels, Alpha::Blend)));
        records.push(RecordOut {
            entry: name,
            file,
            pixel_format: texm.format.code(),
            mip_levels: texm.levels.len(),
            flags4: texm.flags4,
            flags5: texm.flags5,
            unknown6: texm.unknown6,
            attributes: [e.attr1(), e.attr2(), e.attr3()],
            page: texm
                .page
                .as_ref()
                .map(|p| p.iter().map(|r| [r.x, r.width, r.y, r.height]).collect()),
            palette: texm
                .palette
                .as_ref()
                .map(|p| to_hex(&p.iter().flatten().copied().collect::<Vec<u8>>())),
        });
    }
    let index = IndexOut {
        about: ABOUT,
        textures: records,
        skipped: skipped
            .iter()
            .map(|(entry, why)| SkippedOut {
                entry: entry.clone(),
                why: why.clone(),
            })
            .collect(),
    };
    let json = pretty(&index)?;
    files.push((INDEX.to_string(), json));
    Ok(Exported { files, skipped })
}

/// The PNGs of `dir` that `exported` does not hold (left by an earlier
/// export or put there by hand), by name: an import adds each as a new
/// texture.
pub fn other_pngs(dir: &Path, exported: &Exported) -> Result<Vec<String>, Error> {
    let mut others: Vec<String> = png_files(dir)?
        .into_iter()
        .filter(|f| !exported.files.iter().any(|(name, _)| name == f))
        .collect();
    others.sort();
    Ok(others)
}

/// The names of the PNG files of `dir` (not hidden ones).
fn png_files(dir: &Path) -> Result<Vec<String>, Error> {
    let listing = std::fs::read_dir(dir).map_err(|e| Error::io(dir.display(), &e))?;
    let mut out = Vec::new();
    for item in listing {
        let item = item.map_err(|e| Error::io(dir.display(), &e))?;
        let name = item.file_name().to_string_lossy().into_owned();
        let is_png = name.len() > 4 && name.to_ascii_lowercase().ends_with(".png");
        if is_png && !name.starts_with('.') && item.path().is_file() {
            out.push(name);
        }
    }
    Ok(out)
}

/// One record of `textures.json`, checked.
struct Wanted {
    entry: String,
    file: String,
    format: PixelFormat,
    mips: usize,
    flags: [u32; 3],
    attributes: [u32; 3],
    page: Option<Vec<PageRect>>,
    palette: Option<Box<Palette>>,
}

/// The most mip levels a record may ask for (a 1 x 1 level takes 1 to 4
/// bytes; the longest natural chain has 32 levels).
const MAX_MIPS: u64 = 64;

fn wanted(r: &Record<'_>) -> Result<Wanted, Error> {
    let entry = r.str("entry")?.to_string();
    if entry.is_empty() || entry.len() > crate::look_import::ENTRY_NAME_MAX {
        return Err(r.error("entry", "an entry name is 1 to 35 bytes"));
    }
    let file = r.str("file")?.to_string();
    if file.is_empty()
        || file.contains(['/', '\\', ':'])
        || file == "."
        || file == ".."
        || !file.to_ascii_lowercase().ends_with(".png")
    {
        return Err(r.error("file", "not a PNG file name in this folder"));
    }
    let code = r.u32("pixel_format")?;
    let format = PixelFormat::from_code(code).ok_or_else(|| {
        r.error(
            "pixel_format",
            format!("{code} is not one of 0, 565, 556, 4444, 88, 888, 8888"),
        )
    })?;
    let mips = match r.opt_number("mip_levels", MAX_MIPS)? {
        Some(n) if n > 0 => n as usize,
        _ => return Err(r.error("mip_levels", format!("missing or not from 1 to {MAX_MIPS}"))),
    };
    let flags = [r.u32("flags4")?, r.u32("flags5")?, r.u32("unknown6")?];
    let attributes = r
        .numbers::<3>("attributes", u64::from(u32::MAX))?
        .map(|v| v as u32);
    let page = match r.get("page") {
        None => None,
        Some(v) => {
            let rects = v
                .as_array()
                .and_then(|items| items.iter().map(page_rect).collect::<Option<Vec<_>>>())
                .ok_or_else(|| {
                    r.error(
                        "page",
                        "not an array of [x, width, y, height] (whole numbers from -32768 to 32767)",
                    )
                })?;
            Some(rects)
        }
    };
    let palette = match (r.get("palette"), format) {
        (Some(v), PixelFormat::Indexed8) => {
            let bytes = v
                .as_str()
                .and_then(from_hex)
                .filter(|b| b.len() == PALETTE_ENTRIES * 4)
                .ok_or_else(|| {
                    r.error("palette", "not 2048 hexadecimal digits (256 x R, G, B, A)")
                })?;
            let mut palette = Box::new([[0u8; 4]; PALETTE_ENTRIES]);
            for (dst, src) in palette.iter_mut().zip(bytes.chunks_exact(4)) {
                dst.copy_from_slice(src);
            }
            Some(palette)
        }
        (None, PixelFormat::Indexed8) => {
            return Err(r.error("palette", "missing (pixel format 0 needs its palette)"))
        }
        (Some(_), _) => {
            return Err(r.error("palette", "only pixel format 0 has a palette"));
        }
        (None, _) => None,
    };
    Ok(Wanted {
        entry,
        file,
        format,
        mips,
        flags,
        attributes,
        page,
        palette,
    })
}

fn page_rect(v: &serde_json::Value) -> Option<PageRect> {
    let items = v.as_array()?;
    if items.len() != 4 {
        return None;
    }
    let mut out = [0i16; 4];
    for (slot, item) in out.iter_mut().zip(items) {
        *slot = i16::try_from(item.as_i64()?).ok()?;
    }
    Some(PageRect {
        x: out[0],
        width: out[1],
        y: out[2],
        height: out[3],
    })
}

/// The record's header fields over `texm`.
fn with_header(mut texm: Texm, w: &Wanted) -> Texm {
    [texm.flags4, texm.flags5, texm.unknown6] = w.flags;
    texm.page = w.page.clone();
    texm
}

/// The entry the record and the PNG's pixels make, against the library's
/// entry `current` (parsed).
fn rebuilt(w: &Wanted, pixels: &Rgba8Image, current: &Texm) -> mshconv_material::Result<Texm> {
    let same_layout = w.format == current.format
        && w.mips == current.levels.len()
        && w.palette == current.palette;
    if same_layout && current.decode_rgba8()? == *pixels {
        return Ok(with_header(current.clone(), w));
    }
    let mut record = with_header(current.clone(), w);
    record.format = w.format;
    record.palette = w.palette.clone();
    if !same_layout {
        record.levels = vec![Vec::new(); w.mips];
    }
    let rec = RecordedTexm {
        name: w.entry.clone(),
        texm: record,
        unused_888: None,
    };
    rebuild_texture(&rec, pixels, Some(current))
}

/// A new entry as the record says.
fn from_record(w: &Wanted, pixels: &Rgba8Image) -> mshconv_material::Result<Texm> {
    let palette = w.palette.as_deref().copied();
    let texm = Texm::from_rgba8_with_mips(pixels, w.format, palette, w.mips as u32)?;
    Ok(with_header(texm, w))
}

fn read_png(dir: &Path, file: &str) -> Result<Option<Rgba8Image>, Error> {
    let path = dir.join(file);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path.display(), &e)),
    };
    Ok(Some(mshconv_convert::raster::decode(
        &bytes,
        &path.display().to_string(),
    )?))
}

fn change(entry: &str, action: Action, detail: String) -> Change {
    Change {
        library: TEXTURES_LIB,
        entry: entry.to_string(),
        action,
        detail,
    }
}

/// Plans the import of the exported folder `dir` into `library`: what
/// changes (see the module documentation); writes nothing.
pub fn plan_import(dir: &Path, library: &Library) -> Result<ImportPlan, Error> {
    let index_path = dir.join(INDEX);
    let text = match std::fs::read(&index_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::usage(
                ErrorCode::TexturesNoIndex,
                format!(
                    "{} has no {INDEX}: give a folder `mshconv textures export` wrote",
                    dir.display()
                ),
            ))
        }
        Err(e) => return Err(Error::io(index_path.display(), &e)),
    };
    let source = Source {
        file: &index_path,
        code: ErrorCode::TexturesBadIndex,
    };
    let records = source.records(&text, "textures")?;
    let mut wanted_list: Vec<Wanted> = Vec::new();
    for r in &records {
        let w = wanted(r)?;
        if wanted_list.iter().any(|o| same_name(&o.entry, &w.entry)) {
            return Err(r.error("entry", "a second record of this entry"));
        }
        if wanted_list
            .iter()
            .any(|o| o.file.eq_ignore_ascii_case(&w.file))
        {
            return Err(r.error("file", "a second record of this file"));
        }
        wanted_list.push(w);
    }
    let archive = parse_library(library)?;
    let mut planning = Planning::new(library, &archive);
    for (w, r) in wanted_list.iter().zip(&records) {
        let Some(pixels) = read_png(dir, &w.file)? else {
            planning.report.note(
                NoteCode::TexturesPngMissing.code(),
                format!(
                    "{} is not there: texture {:?} is left as it is",
                    w.file, w.entry
                ),
            );
            continue;
        };
        let what = |e: mshconv_material::Error| {
            Error::invalid(
                ErrorCode::LookBadTexture,
                format!("texture {:?} ({}): {e}", w.entry, w.file),
            )
        };
        let found = archive.entries().find(|e| same_name(&e.name(), &w.entry));
        let (texm, action) = match &found {
            Some(e) => {
                let current = Texm::parse(e.data()).map_err(|err| {
                    r.error(
                        "entry",
                        format!("the library's entry is not a texture: {err}"),
                    )
                })?;
                (
                    rebuilt(w, &pixels, &current).map_err(what)?,
                    Action::Replaced,
                )
            }
            None => {
                if fit_name(&w.entry, "TEXTURE", TEXTURE_NAME_MAX, |_| false) != w.entry {
                    return Err(r.error(
                        "entry",
                        "the library has no such entry, and a new texture's name is at most 15 bytes of ASCII letters, digits, _ - .",
                    ));
                }
                (from_record(w, &pixels).map_err(what)?, Action::Added)
            }
        };
        let bytes = texm.write().map_err(what)?;
        // What the format could not hold of the PNG is said, also when the
        // entry keeps its bytes (alpha painted into an opaque texture).
        crate::look_import::note_reduced(&mut planning.report, &w.entry, &texm, &pixels);
        let detail = describe_texture(&texm);
        let action = match &found {
            Some(e)
                if e.data() == bytes.as_slice()
                    && [e.attr1(), e.attr2(), e.attr3()] == w.attributes =>
            {
                Action::Reused
            }
            _ => action,
        };
        let name = found.as_ref().map_or_else(|| w.entry.clone(), |e| e.name());
        if action != Action::Reused {
            let type_id = Some(TEXM_MAGIC).filter(|_| found.is_none());
            planning.put(&name, type_id, bytes, Some(w.attributes))?;
        }
        planning.changes.push(change(&name, action, detail));
    }
    add_new_pngs(dir, &wanted_list, &mut planning)?;
    planning.finish()
}

/// The PNGs of `dir` no record names: new textures, in file-name order.
fn add_new_pngs(dir: &Path, wanted: &[Wanted], planning: &mut Planning<'_>) -> Result<(), Error> {
    let mut new_files: Vec<String> = png_files(dir)?
        .into_iter()
        .filter(|f| !wanted.iter().any(|w| w.file == *f))
        .collect();
    new_files.sort();
    for file in new_files {
        let Some(pixels) = read_png(dir, &file)? else {
            continue;
        };
        let stem = &file[..file.len() - 4];
        let texm = new_texm(&pixels, &format!("a new texture ({file})"))?;
        let bytes = texm.write().map_err(|e| {
            Error::invalid(
                ErrorCode::LookBadTexture,
                format!("a new texture ({file}): {e}"),
            )
        })?;
        let name = fit_name(stem, "TEXTURE", TEXTURE_NAME_MAX, |n| {
            planning
                .entries
                .get(n)
                .is_some_and(|d| d != bytes.as_slice())
        });
        if planning.entries.get(&name).is_some() {
            // An identical entry of that name is there.
            planning
                .changes
                .push(change(&name, Action::Reused, describe_texture(&texm)));
            continue;
        }
        let (width, height) = new_texture_size(pixels.width, pixels.height);
        if (width, height) != (pixels.width, pixels.height) {
            planning.report.note(
                NoteCode::LookTextureResized.code(),
                format!(
                    "{file} ({} x {}) becomes texture {name:?} of {width} x {height} (powers of two, at most {MAX_NEW_TEXTURE_SIDE})",
                    pixels.width, pixels.height
                ),
            );
        }
        if name != stem {
            planning.report.note(
                NoteCode::LookNameFitted.code(),
                format!("texture name {stem:?} is stored as {name:?} (15 bytes of letters, digits, _ - .)"),
            );
        }
        planning.put(&name, Some(TEXM_MAGIC), bytes, None)?;
        planning.changes.push(change(
            &name,
            Action::Added,
            format!("{}, from {file}", describe_texture(&texm)),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_the_entry_names_when_safe() {
        let used = vec!["textures.json".to_string(), "ROCK.png".to_string()];
        assert_eq!(file_name("TANK_BODY.0", &used), "TANK_BODY.0.png");
        assert_eq!(file_name("rock", &used), "rock_2.png");
        assert_eq!(file_name("a/b", &used), "a_b.png");
        assert_eq!(file_name("..", &used), "__.png");
    }
}
