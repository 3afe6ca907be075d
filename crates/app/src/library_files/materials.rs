//! `Material.lib` as one JSON text: a record per MAT0 entry with every
//! field (the entry's attributes, the version, the metadata, each phase's
//! parameters and texture name, each animation block's mode, mask and
//! keys). [`export`] writes it; [`plan_import`] rewrites only the entries
//! whose record changed and adds those the library lacks
//! (docs/LIBRARY_FILES.md).

use super::fields::{from_hex, number, numbers, pretty, to_hex, Record, Source};
use super::{parse_library, ImportPlan, Planning};
use crate::codes::{ErrorCode, NoteCode};
use crate::error::Error;
use crate::game::{same_name, MATERIAL_LIB, TEXTURES_LIB};
use crate::look_import::{fit_name, Action, Change, Library, ENTRY_NAME_MAX};
use mshconv_material::cp1251;
use mshconv_material::mat0::{
    AnimationBlock, Key, Metadata, Phase, INTERPOLATION_MASK_SHIFT, MAT0_TYPE_ID,
    PHASE_PARAMETER_BYTES, TEXTURE_NAME_BYTES, TIMELINE_MODE_MASK,
};
use mshconv_material::Mat0;
use serde::Serialize;
use std::path::Path;

/// What the material file says it is (its `about` field).
pub const ABOUT: &str = "mshconv materials: Material.lib as text (docs/LIBRARY_FILES.md)";

#[derive(Serialize)]
struct FileOut {
    about: &'static str,
    materials: Vec<RecordOut>,
    skipped: Vec<SkippedOut>,
}

#[derive(Serialize)]
struct RecordOut {
    entry: String,
    attr1: u32,
    attr3: u32,
    version: u32,
    metadata: MetadataOut,
    phases: Vec<PhaseOut>,
    animation_blocks: Vec<BlockOut>,
}

#[derive(Serialize)]
struct MetadataOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    c: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    d: Option<u32>,
}

#[derive(Serialize)]
struct PhaseOut {
    texture: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    texture_tail: Option<String>,
    parameters: [u8; PHASE_PARAMETER_BYTES],
}

#[derive(Serialize)]
struct BlockOut {
    timeline_mode: u32,
    interpolation_mask: u32,
    keys: Vec<[u16; 3]>,
}

#[derive(Serialize)]
struct SkippedOut {
    entry: String,
    why: String,
}

/// The bytes after a texture name's NUL, when any is not zero.
fn tail(phase: &Phase) -> Option<String> {
    let name = phase.texture().len();
    let rest = phase.texture_name.get(name + 1..)?;
    rest.iter().any(|&b| b != 0).then(|| to_hex(rest))
}

fn record(name: String, attr1: u32, attr3: u32, m: &Mat0) -> RecordOut {
    RecordOut {
        entry: name,
        attr1,
        attr3,
        version: m.version,
        metadata: MetadataOut {
            a: m.metadata.a,
            b: m.metadata.b,
            c: m.metadata.c,
            d: m.metadata.d,
        },
        phases: m
            .phases
            .iter()
            .map(|p| PhaseOut {
                texture: cp1251::decode(p.texture()),
                texture_tail: tail(p),
                parameters: p.parameters,
            })
            .collect(),
        animation_blocks: m
            .animation_blocks
            .iter()
            .map(|b| BlockOut {
                timeline_mode: b.mode_bits(),
                interpolation_mask: b.interpolation_mask(),
                keys: b.keys.iter().map(|k| [k.k0, k.k1, k.k2]).collect(),
            })
            .collect(),
    }
}

/// `Material.lib` as the material file's text: every MAT0 entry that
/// parses, in entry order; the others listed under `skipped`.
pub fn export(library: &Library) -> Result<Vec<u8>, Error> {
    let archive = parse_library(library)?;
    let mut materials = Vec::new();
    let mut skipped = Vec::new();
    for e in archive.entries() {
        let name = e.name();
        if e.type_id() != MAT0_TYPE_ID {
            skipped.push(SkippedOut {
                entry: name,
                why: "not a MAT0 entry".to_string(),
            });
            continue;
        }
        match Mat0::parse(e.data(), e.attr2()) {
            Ok(m) => materials.push(record(name, e.attr1(), e.attr3(), &m)),
            Err(err) => skipped.push(SkippedOut {
                entry: name,
                why: format!("not a MAT0 that parses: {err}"),
            }),
        }
    }
    let file = FileOut {
        about: ABOUT,
        materials,
        skipped,
    };
    let json = pretty(&file)?;
    Ok(json)
}

/// One record of the material file, checked: `(name, attr1, attr3, MAT0)`.
fn wanted(r: &Record<'_>) -> Result<(String, u32, u32, Mat0), Error> {
    let entry = r.str("entry")?.to_string();
    if entry.is_empty() || entry.len() > ENTRY_NAME_MAX {
        return Err(r.error("entry", "an entry name is 1 to 35 bytes"));
    }
    let attr1 = r.u32("attr1")?;
    let attr3 = r.u32("attr3")?;
    let version = r.u32("version")?;
    let metadata = match r.value("metadata")? {
        serde_json::Value::Object(map) => {
            let field = |k: &str, max: u64| -> Result<Option<u64>, Error> {
                map.get(k)
                    .filter(|v| !v.is_null())
                    .map(|v| {
                        number(v, max).ok_or_else(|| {
                            r.error(
                                &format!("metadata.{k}"),
                                format!("not a whole number from 0 to {max}"),
                            )
                        })
                    })
                    .transpose()
            };
            Metadata {
                a: field("a", 255)?.map(|v| v as u8),
                b: field("b", 255)?.map(|v| v as u8),
                c: field("c", u64::from(u32::MAX))?.map(|v| v as u32),
                d: field("d", u64::from(u32::MAX))?.map(|v| v as u32),
            }
        }
        _ => return Err(r.error("metadata", "not an object")),
    };
    let phases = r
        .array("phases")?
        .iter()
        .enumerate()
        .map(|(i, p)| phase(r, i, p))
        .collect::<Result<Vec<_>, _>>()?;
    let animation_blocks = r
        .array("animation_blocks")?
        .iter()
        .enumerate()
        .map(|(i, b)| block(r, i, b))
        .collect::<Result<Vec<_>, _>>()?;
    if phases.len() > usize::from(u16::MAX) {
        return Err(r.error("phases", "more than 65535 phases"));
    }
    if let Some(i) = animation_blocks
        .iter()
        .position(|b| b.keys.len() > usize::from(u16::MAX))
    {
        return Err(r.error(
            &format!("animation_blocks[{i}].keys"),
            "more than 65535 keys",
        ));
    }
    let mat0 = Mat0 {
        version,
        metadata,
        phases,
        animation_blocks,
    };
    // What the writer refuses besides (a version past the newest, metadata
    // not matching the version, too many blocks) is refused here, by field.
    if let Err(e) = mat0.write() {
        let field = match e.code() {
            "mat0.bad_version" => "version",
            "mat0.too_many_blocks" => "animation_blocks",
            _ => "metadata",
        };
        return Err(r.error(field, e));
    }
    Ok((entry, attr1, attr3, mat0))
}

fn phase(r: &Record<'_>, i: usize, p: &serde_json::Value) -> Result<Phase, Error> {
    let field = |f: &str| format!("phases[{i}].{f}");
    let texture = p
        .get("texture")
        .and_then(|v| v.as_str())
        .ok_or_else(|| r.error(&field("texture"), "missing or not a string"))?;
    let name = cp1251::encode(texture).map_err(|c| {
        r.error(
            &field("texture"),
            format!("{c:?} is not a Windows-1251 character"),
        )
    })?;
    if name.len() > TEXTURE_NAME_BYTES || name.contains(&0) {
        return Err(r.error(
            &field("texture"),
            format!("a texture name is at most {TEXTURE_NAME_BYTES} bytes, without NUL"),
        ));
    }
    let mut texture_name = [0u8; TEXTURE_NAME_BYTES];
    texture_name[..name.len()].copy_from_slice(&name);
    if let Some(t) = p.get("texture_tail").filter(|v| !v.is_null()) {
        let bytes = t
            .as_str()
            .and_then(from_hex)
            .ok_or_else(|| r.error(&field("texture_tail"), "not hexadecimal bytes"))?;
        // Kept while the name keeps its length: it fills the field after the NUL.
        if name.len() + 1 + bytes.len() == TEXTURE_NAME_BYTES {
            texture_name[name.len() + 1..].copy_from_slice(&bytes);
        }
    }
    let parameters = p
        .get("parameters")
        .and_then(|v| numbers::<PHASE_PARAMETER_BYTES>(v, 255))
        .ok_or_else(|| {
            r.error(
                &field("parameters"),
                format!("not an array of {PHASE_PARAMETER_BYTES} whole numbers from 0 to 255"),
            )
        })?
        .map(|v| v as u8);
    Ok(Phase {
        parameters,
        texture_name,
    })
}

fn block(r: &Record<'_>, i: usize, b: &serde_json::Value) -> Result<AnimationBlock, Error> {
    let field = |f: &str| format!("animation_blocks[{i}].{f}");
    let mode = b
        .get("timeline_mode")
        .and_then(|v| number(v, u64::from(TIMELINE_MODE_MASK)))
        .ok_or_else(|| {
            r.error(
                &field("timeline_mode"),
                format!("not a whole number from 0 to {TIMELINE_MODE_MASK}"),
            )
        })? as u32;
    let max_mask = u64::from(u32::MAX >> INTERPOLATION_MASK_SHIFT);
    let mask = b
        .get("interpolation_mask")
        .and_then(|v| number(v, max_mask))
        .ok_or_else(|| {
            r.error(
                &field("interpolation_mask"),
                format!("not a whole number from 0 to {max_mask}"),
            )
        })? as u32;
    let keys = b
        .get("keys")
        .and_then(|v| v.as_array())
        .and_then(|keys| {
            keys.iter()
                .map(|k| {
                    numbers::<3>(k, u64::from(u16::MAX)).map(|[k0, k1, k2]| Key {
                        k0: k0 as u16,
                        k1: k1 as u16,
                        k2: k2 as u16,
                    })
                })
                .collect::<Option<Vec<Key>>>()
        })
        .ok_or_else(|| {
            r.error(
                &field("keys"),
                "not an array of [k0, k1, k2] (whole numbers from 0 to 65535)",
            )
        })?;
    Ok(AnimationBlock {
        header: mask << INTERPOLATION_MASK_SHIFT | mode,
        keys,
    })
}

fn change(entry: &str, action: Action, m: &Mat0) -> Change {
    Change {
        library: MATERIAL_LIB,
        entry: entry.to_string(),
        action,
        detail: crate::report::material_summary(m),
    }
}

/// The names of the textures in the `Textures.lib` beside the material
/// library at `path` (found as the game folder's libraries are, ignoring
/// case); `None` when the folder has none. A library that does not read is
/// an error naming it.
pub fn texture_names_beside(path: &Path) -> Result<Option<Vec<Vec<u8>>>, Error> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let textures = Library::read(dir, TEXTURES_LIB)?;
    if textures.bytes.is_none() {
        return Ok(None);
    }
    let archive = parse_library(&textures)?;
    Ok(Some(
        archive.entries().map(|e| e.name_bytes().to_vec()).collect(),
    ))
}

/// Refuses a changed or added material whose phase names a texture that
/// `textures` (the names in `Textures.lib`) lacks and that the library's
/// entry `old` did not name already (`materials.no_such_texture`, naming the
/// material, the field and the texture, with the closest names).
fn check_textures(
    r: &Record<'_>,
    mat0: &Mat0,
    old: Option<&Mat0>,
    textures: &[Vec<u8>],
) -> Result<(), Error> {
    let known = |t: &[u8]| {
        textures.iter().any(|n| nres::cmp_names(n, t).is_eq())
            || old.is_some_and(|o| {
                o.phases
                    .iter()
                    .any(|p| nres::cmp_names(p.texture(), t).is_eq())
            })
    };
    let Some((i, texture)) = mat0
        .phases
        .iter()
        .map(Phase::texture)
        .enumerate()
        .find(|(_, t)| !t.is_empty() && !known(t))
    else {
        return Ok(());
    };
    let name = cp1251::decode(texture);
    let closest = crate::archive::closest(textures.iter().map(Vec::as_slice), &name);
    let hint = if closest.is_empty() {
        format!("{} textures", textures.len())
    } else {
        format!("did you mean {}?", closest.join(" or "))
    };
    Err(r.error_with(
        ErrorCode::MaterialsNoSuchTexture,
        &format!("phases[{i}].texture"),
        format!(
            "{TEXTURES_LIB} has no texture {name:?} ({hint}); add it first (`mshconv textures import`), or name one it has"
        ),
    ))
}

/// Plans the import of the material file `file` (its bytes `text`) into
/// `library`: each record equal to its entry keeps it byte for byte, a
/// changed one replaces the entry's payload and attributes, a record of a
/// name the library lacks adds a MAT0 entry (a name the game's rules do
/// not allow is fitted, `look.name_fitted`). A changed or added material
/// naming a texture that `textures` (the names in `Textures.lib`, when
/// known: [`texture_names_beside`]) lacks is refused
/// (`materials.no_such_texture`). Entries the file does not name are left
/// as they are. Writes nothing.
pub fn plan_import(
    file: &Path,
    text: &[u8],
    library: &Library,
    textures: Option<&[Vec<u8>]>,
) -> Result<ImportPlan, Error> {
    let source = Source {
        file,
        code: ErrorCode::MaterialsBadFile,
    };
    let records = source.records(text, "materials")?;
    let mut wanted_list = Vec::new();
    for r in &records {
        let w = wanted(r)?;
        if wanted_list
            .iter()
            .any(|(n, ..): &(String, u32, u32, Mat0)| same_name(n, &w.0))
        {
            return Err(r.error("entry", "a second record of this entry"));
        }
        wanted_list.push(w);
    }
    let archive = parse_library(library)?;
    let mut planning = Planning::new(library, &archive);
    for ((wanted_name, attr1, attr3, mat0), r) in wanted_list.iter().zip(&records) {
        let bytes = mat0.write().map_err(|e| r.error("entry", e))?;
        let attributes = [*attr1, mat0.version, *attr3];
        // A name the library lacks is fitted as the look import fits a new
        // material's: an entry of the fitted name with these bytes is this
        // material (brought back before), any other keeps its name.
        let name = match archive
            .entries()
            .find(|e| same_name(&e.name(), wanted_name))
        {
            Some(e) => e.name(),
            None => {
                let name = fit_name(wanted_name, "MATERIAL", ENTRY_NAME_MAX, |n| {
                    planning
                        .entries
                        .get(n)
                        .is_some_and(|d| d != bytes.as_slice())
                });
                if name != *wanted_name {
                    planning.report.note(
                        NoteCode::LookNameFitted.code(),
                        format!("material name {wanted_name:?} is stored as {name:?}"),
                    );
                }
                name
            }
        };
        let action = match archive.entries().find(|e| same_name(&e.name(), &name)) {
            Some(e) if e.type_id() != MAT0_TYPE_ID => {
                return Err(r.error("entry", "the library's entry of this name is not a MAT0"))
            }
            Some(e)
                if e.data() == bytes.as_slice()
                    && [e.attr1(), e.attr2(), e.attr3()] == attributes =>
            {
                Action::Reused
            }
            Some(_) => Action::Replaced,
            // Added by an earlier record of this file, with these bytes.
            None if planning.entries.get(&name).is_some() => Action::Reused,
            None => Action::Added,
        };
        if let (Some(textures), true) = (textures, action != Action::Reused) {
            let old = archive
                .entries()
                .find(|e| same_name(&e.name(), &name))
                .and_then(|e| Mat0::parse(e.data(), e.attr2()).ok());
            check_textures(r, mat0, old.as_ref(), textures)?;
        }
        if action != Action::Reused {
            planning.put(&name, Some(MAT0_TYPE_ID), bytes, Some(attributes))?;
        }
        planning.changes.push(change(&name, action, mat0));
    }
    planning.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nres::{OwnedArchive, OwnedEntry, WriteMode};

    /// A library of one version-6 MAT0 `M` whose phase names `texture`
    /// (raw bytes, 16 at most, the rest of the field `tail`).
    fn library(texture: &[u8], tail: &[u8]) -> Library {
        let mut phase = Phase::new(b"");
        phase.texture_name[..texture.len()].copy_from_slice(texture);
        phase.texture_name[TEXTURE_NAME_BYTES - tail.len()..].copy_from_slice(tail);
        phase.parameters[17] = 9;
        let mat0 = Mat0 {
            version: 6,
            metadata: Metadata {
                a: Some(1),
                b: Some(2),
                c: Some(3),
                d: Some(4),
            },
            phases: vec![phase],
            animation_blocks: vec![AnimationBlock {
                header: 0b101_1110,
                keys: vec![Key {
                    k0: 1,
                    k1: 2,
                    k2: 3,
                }],
            }],
        };
        let mut entry = OwnedEntry::new(MAT0_TYPE_ID, "M", mat0.write().unwrap()).unwrap();
        (entry.attr1, entry.attr2, entry.attr3) = (7, 6, 8);
        let mut archive = OwnedArchive::new();
        archive.push(entry);
        Library {
            path: "Material.lib".into(),
            bytes: Some(archive.write(WriteMode::Canonical).unwrap()),
        }
    }

    #[test]
    fn names_tails_and_windows_1251_come_back_byte_for_byte() {
        // "ТЕКС" in Windows-1251, a NUL, then bytes after it.
        let lib = library(&[0xD2, 0xC5, 0xCA, 0xD1], &[0xAA, 0, 0xBB]);
        let text = export(&lib).unwrap();
        let json = String::from_utf8(text.clone()).unwrap();
        assert!(json.contains("\"texture\": \"ТЕКС\""), "{json}");
        assert!(
            json.contains("\"texture_tail\": \"0000000000000000aa00bb\""),
            "{json}"
        );
        let plan = plan_import(Path::new("m.json"), &text, &lib, None).unwrap();
        assert_eq!(plan.bytes, None, "unchanged: nothing to write");
        assert_eq!(plan.count(Action::Reused), 1);
        // A renamed texture gets zeros after its NUL.
        let renamed = json.replace("ТЕКС", "ROCK_1");
        let plan = plan_import(Path::new("m.json"), renamed.as_bytes(), &lib, None).unwrap();
        let bytes = plan.bytes.expect("replaced");
        let archive = nres::Archive::parse(&bytes).unwrap();
        let e = archive.entry(0).unwrap();
        assert_eq!((e.attr1(), e.attr2(), e.attr3()), (7, 6, 8));
        let m = Mat0::parse(e.data(), 6).unwrap();
        assert_eq!(&m.phases[0].texture_name, b"ROCK_1\0\0\0\0\0\0\0\0\0\0");
        assert_eq!(m.phases[0].parameters[17], 9);
        assert_eq!(m.animation_blocks[0].header, 0b101_1110);
    }

    #[test]
    fn a_texture_textures_lib_lacks_is_refused_unless_the_entry_named_it() {
        let lib = library(b"ROCK_1", &[]);
        let text = String::from_utf8(export(&lib).unwrap()).unwrap();
        let textures = [b"ROCK_2".to_vec(), b"SAND".to_vec()];
        // The entry named ROCK_1 before: a change elsewhere keeps it.
        let other = text.replace("\"attr1\": 7", "\"attr1\": 5");
        assert_ne!(other, text);
        plan_import(Path::new("m.json"), other.as_bytes(), &lib, Some(&textures)).unwrap();
        let typo = text.replace("ROCK_1", "ROCK_3");
        let e =
            plan_import(Path::new("m.json"), typo.as_bytes(), &lib, Some(&textures)).unwrap_err();
        assert_eq!(e.code(), "materials.no_such_texture");
        assert!(
            e.message().contains("\"M\": field \"phases[0].texture\"")
                && e.message()
                    .contains("no texture \"ROCK_3\" (did you mean ROCK_2?)"),
            "{}",
            e.message()
        );
        let fixed = text.replace("ROCK_1", "rock_2");
        plan_import(Path::new("m.json"), fixed.as_bytes(), &lib, Some(&textures)).unwrap();
    }

    #[test]
    fn a_name_of_sixteen_bytes_has_no_nul_and_comes_back() {
        let lib = library(b"SIXTEEN_BYTES_XY", &[]);
        let text = export(&lib).unwrap();
        let plan = plan_import(Path::new("m.json"), &text, &lib, None).unwrap();
        assert_eq!(plan.bytes, None);
        let too_long = String::from_utf8(text)
            .unwrap()
            .replace("SIXTEEN_BYTES_XY", "SEVENTEEN_BYTES_X");
        let e = plan_import(Path::new("m.json"), too_long.as_bytes(), &lib, None).unwrap_err();
        assert_eq!(e.code(), "materials.bad_file");
        assert!(e.message().contains("phases[0].texture"), "{}", e.message());
    }
}
