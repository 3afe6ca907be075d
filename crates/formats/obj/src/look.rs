//! The way back of a model's look from an OBJ's `.mtl`: each `newmtl
//! mat<k>` with a `map_Kd` image is material index k with that image (rows
//! bottom up in the file, as the OBJ export writes them and OBJ tools read
//! them: flipped back to top down). The export's comment before a
//! `newmtl` (`# TANK_BODY (exact)`) names the MAT0 entry.
//!
//! What an `.mtl` cannot say is left alone (docs/MATERIALS.md, "The way
//! back"): a material named otherwise than `mat<k>` (its index comes from the
//! order of `usemtl` lines, which only the importer knows) and one whose
//! comment says its WEAR row resolved by a fallback (the row's own name is
//! not in the `.mtl`) keep their WEAR rows as they are, with a note each.

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::imported_look::{ImportedImage, ImportedLook, ImportedMaterial};
use crate::names;
use crate::raster;
use crate::report::Report;
use mshconv_material::texm::Rgba8Image;

/// One `newmtl` block's part the look needs.
#[derive(Debug, Default)]
struct Block<'a> {
    name: &'a str,
    /// The export's comment: `(MAT0 name, how it resolved)`.
    resolved: Option<(&'a str, &'a str)>,
    map_kd: Option<&'a str>,
}

/// `# NAME (how)` as the OBJ export writes it.
fn export_comment(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix('#')?.trim();
    let (name, how) = rest.strip_suffix(')')?.rsplit_once(" (")?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some((name, how))
}

/// The file of a `map_Kd` line's arguments: the text after any options
/// (`-o u v w`, `-s ...`, `-bm x`, `-clamp on`: an option and its numbers or
/// on/off), so a name with spaces stays whole.
fn map_file(args: &str) -> &str {
    let mut rest = args.trim();
    while rest.starts_with('-') {
        let mut words = rest.splitn(2, char::is_whitespace);
        let _option = words.next();
        rest = words.next().unwrap_or("").trim_start();
        // The option's values: numbers, or on/off.
        loop {
            let mut w = rest.splitn(2, char::is_whitespace);
            let word = w.next().unwrap_or("");
            if !word.is_empty() && (word.parse::<f64>().is_ok() || word == "on" || word == "off") {
                rest = w.next().unwrap_or("").trim_start();
            } else {
                break;
            }
        }
    }
    rest.trim()
}

fn blocks(mtl: &str) -> Vec<Block<'_>> {
    let mut out: Vec<Block<'_>> = Vec::new();
    let mut comment = None;
    for line in mtl.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            comment = export_comment(line);
            continue;
        }
        if let Some(rest) = line.strip_prefix("newmtl") {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                out.push(Block {
                    name: rest.trim(),
                    resolved: comment.take(),
                    map_kd: None,
                });
                continue;
            }
        }
        if !line.is_empty() {
            comment = None;
        }
        if let (Some(rest), Some(block)) = (line.strip_prefix("map_Kd"), out.last_mut()) {
            if rest.starts_with(char::is_whitespace) {
                block.map_kd = Some(map_file(rest));
            }
        }
    }
    out
}

/// The image rows turned over (bottom-up file rows to top-down pixels).
fn flip_rows(image: &mut Rgba8Image) {
    let row = image.width as usize * 4;
    let rows: Vec<Vec<u8>> = image.pixels.chunks(row).rev().map(<[u8]>::to_vec).collect();
    image.pixels = rows.concat();
}

/// Reads the look of an OBJ's `.mtl` text; `resolver` gives the images it
/// names (plain file names beside the `.obj`); `report` gets a note for each
/// material whose look stays as it is.
pub fn read_look(
    mtl: &[u8],
    resolver: crate::Resolver<'_>,
    report: &mut Report,
) -> Result<ImportedLook> {
    let text = String::from_utf8_lossy(mtl);
    let mut look = ImportedLook::default();
    for block in blocks(&text) {
        let Some(index) = names::material_index(block.name) else {
            report.note(
                Code::LookObjMaterialUnnamed.code(),
                format!(
                    "material {:?} has no mat<index> name: its look is not brought back (its WEAR row stays)",
                    block.name
                ),
            );
            continue;
        };
        if let Some((name, how)) = block.resolved.filter(|(_, how)| *how != "exact") {
            report.note(
                Code::LookObjFallbackKept.code(),
                format!(
                    "material {index} showed {name:?} by the runtime's fallback ({how}): its WEAR row stays as it is"
                ),
            );
            continue;
        }
        let Some(file) = block.map_kd else {
            continue;
        };
        let what = format!("map_Kd {file:?} of {}", block.name);
        let decoded = resolver(file)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    Code::LookMissingImage.code(),
                    format!("{what}: the image is not available (give it beside the .obj, by a plain file name)"),
                )
            })
            .and_then(|bytes| raster::decode(&bytes, &what));
        // An image that is not there or does not decode leaves the material
        // as it is: the model still converts, with a note.
        let mut pixels = match decoded {
            Ok(p) => p,
            Err(e) => {
                report.note(
                    Code::LookImageUnreadable.code(),
                    format!(
                        "{} ({}); material {index} keeps its look",
                        e.message(),
                        e.code()
                    ),
                );
                continue;
            }
        };
        flip_rows(&mut pixels);
        let stem = file
            .rsplit(['/', '\\'])
            .next()
            .map(|f| f.split('.').next().unwrap_or(f).to_string());
        look.materials.entry(index).or_insert(ImportedMaterial {
            name: block.resolved.map(|(name, _)| name.to_string()),
            wear_row: None,
            mat0: None,
            exported: None,
            image: Some(ImportedImage {
                name: stem,
                pixels,
                texm: None,
            }),
            base_color: [1.0; 4],
        });
    }
    Ok(look)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtl_blocks_with_the_export_comment_and_map_options() {
        let mtl = "# header\n\n# TANK_BODY (exact)\nnewmtl mat0\nKd 1 1 1\nmap_Kd -o 0 0 0 -clamp on my tex.png\n\n# DEFAULT (default)\nnewmtl mat2\nmap_Kd b.png\nnewmtl Other\n";
        let b = blocks(mtl);
        assert_eq!(b.len(), 3);
        assert_eq!(
            (b[0].name, b[0].resolved, b[0].map_kd),
            ("mat0", Some(("TANK_BODY", "exact")), Some("my tex.png"))
        );
        assert_eq!(b[1].resolved, Some(("DEFAULT", "default")));
        assert_eq!(
            (b[2].name, b[2].resolved, b[2].map_kd),
            ("Other", None, None)
        );
    }

    #[test]
    fn rows_flip() {
        let mut image = Rgba8Image {
            width: 1,
            height: 2,
            pixels: vec![1, 1, 1, 1, 2, 2, 2, 2],
        };
        flip_rows(&mut image);
        assert_eq!(image.pixels, [2, 2, 2, 2, 1, 1, 1, 1]);
    }
}
