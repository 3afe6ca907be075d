//! What `mshconv validate Material.lib` (or `Textures.lib`) says: a game
//! library is an NRes archive of MAT0 materials or Texm textures
//! (docs/MATERIALS.md), not a model, so each of those entries is parsed and
//! reported ([`check_library`]), not the file as a model ("node table
//! missing"). [`validate`] picks the check a file's bytes call for, for every
//! front end.

use super::archive::type_label;
use super::validate::{check, FileResult};
use crate::look_import::describe_texture;
use msh::Mode;
use mshconv_material::mat0::MAT0_TYPE_ID;
use mshconv_material::texm::TEXM_MAGIC;
use mshconv_material::{cp1251, Mat0, Texm};
use serde::Serialize;

/// The check of a game library: what `validate` prints for `Material.lib`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LibraryCheck {
    /// The file as named.
    pub file: String,
    /// `strict` or `tolerant` (how the container was read).
    pub mode: &'static str,
    /// Whether every MAT0 and Texm entry parses.
    pub valid: bool,
    /// `materials` (MAT0 entries) or `textures` (Texm entries).
    pub library: &'static str,
    /// Every entry, in directory order.
    pub entries: Vec<LibraryEntry>,
}

/// One entry of a library.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LibraryEntry {
    /// `Material.lib:GLASS`.
    pub file: String,
    /// The type as text (`MAT0`, `Texm`) or the number.
    pub r#type: String,
    /// Whether it was parsed: an entry of the library's type (`false` for
    /// another type, listed only).
    pub checked: bool,
    /// Whether it parses (`true` for an entry not checked).
    pub valid: bool,
    /// What it is (`version 3, 2 phases, texture GLASS_4444`, `565 64 x 64,
    /// 7 mips`; empty when it does not parse or is not checked).
    pub summary: String,
    /// The error's code when it does not parse (`texm.truncated`).
    pub code: Option<&'static str>,
    /// The error's message.
    pub message: Option<String>,
}

/// What `validate` gives for a file: a model's (or entry's) result, or a
/// library's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Validation {
    /// A model ([`check`]).
    Model(FileResult),
    /// A game library ([`check_library`]).
    Library(LibraryCheck),
}

impl Validation {
    /// Whether the file is accepted.
    pub fn valid(&self) -> bool {
        match self {
            Validation::Model(r) => r.valid,
            Validation::Library(l) => l.valid,
        }
    }
}

/// Validates a file's bytes: a game library by its entries
/// ([`check_library`]), anything else as a model ([`check`]).
pub fn validate(label: &str, bytes: &[u8], mode: Mode) -> Validation {
    match check_library(label, bytes, mode) {
        Some(library) => Validation::Library(library),
        None => Validation::Model(check(label, bytes, mode)),
    }
}

/// The check of a game library, or `None` when the bytes are not one: an
/// NRes archive without a node table whose entries include MAT0 or Texm
/// ones (the more numerous type names the library). Each entry of that type
/// is parsed (a MAT0 at the version its `attr2` gives); other entries are
/// listed as not checked.
pub fn check_library(label: &str, bytes: &[u8], mode: Mode) -> Option<LibraryCheck> {
    let archive = match mode {
        Mode::Strict => nres::Archive::parse(bytes).ok()?,
        Mode::Tolerant => nres::Archive::parse_tolerant(bytes).ok()?.0,
    };
    if archive.find_by_type(msh::resource::NODES).is_some() {
        return None;
    }
    let count = |t: u32| archive.entries().filter(|e| e.type_id() == t).count();
    let (materials, textures) = (count(MAT0_TYPE_ID), count(TEXM_MAGIC));
    if materials + textures == 0 {
        return None;
    }
    let (library, wanted) = if materials >= textures {
        ("materials", MAT0_TYPE_ID)
    } else {
        ("textures", TEXM_MAGIC)
    };
    let entries: Vec<LibraryEntry> = archive
        .entries()
        .map(|e| {
            let checked = e.type_id() == wanted;
            let parsed = match e.type_id() {
                t if t != wanted => Ok(String::new()),
                MAT0_TYPE_ID => Mat0::parse(e.data(), e.attr2()).map(|m| material_summary(&m)),
                _ => Texm::parse(e.data()).map(|t| describe_texture(&t)),
            };
            let file = format!("{label}:{}", e.name());
            let r#type = type_label(e.type_id());
            match parsed {
                Ok(summary) => LibraryEntry {
                    file,
                    r#type,
                    checked,
                    valid: true,
                    summary,
                    code: None,
                    message: None,
                },
                Err(err) => LibraryEntry {
                    file,
                    r#type,
                    checked,
                    valid: false,
                    summary: String::new(),
                    code: Some(err.code()),
                    message: Some(match err.offset() {
                        Some(at) => format!("{} at byte {at}", err.message()),
                        None => err.message().to_string(),
                    }),
                },
            }
        })
        .collect();
    Some(LibraryCheck {
        file: label.to_string(),
        mode: match mode {
            Mode::Strict => "strict",
            Mode::Tolerant => "tolerant",
        },
        valid: entries.iter().all(|e| e.valid),
        library,
        entries,
    })
}

/// `version 3, 2 phases, texture GLASS_4444` (or `untextured`).
pub(crate) fn material_summary(m: &Mat0) -> String {
    let texture = m.texture().map_or_else(
        || "untextured".to_string(),
        |t| format!("texture {}", cp1251::decode(t)),
    );
    format!(
        "version {}, {} phase{}, {texture}",
        m.version,
        m.phases.len(),
        if m.phases.len() == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    #[test]
    fn libraries_are_checked_by_their_entries_and_models_as_models() {
        let lib = fixture("game/Material.lib");
        let Validation::Library(check) = validate("Material.lib", &lib, Mode::Strict) else {
            panic!("a library")
        };
        assert_eq!(check.library, "materials");
        assert!(check.valid);
        let glass = check
            .entries
            .iter()
            .find(|e| e.file == "Material.lib:GLASS");
        assert!(
            glass.is_some_and(|g| g.r#type == "MAT0" && g.summary.contains("texture GLASS_4444")),
            "{glass:?}"
        );
        let tex = fixture("game/Textures.lib");
        let Validation::Library(check) = validate("Textures.lib", &tex, Mode::Strict) else {
            panic!("a library")
        };
        assert_eq!(check.library, "textures");
        assert!(check
            .entries
            .iter()
            .any(|e| e.summary == "565 64 x 64, 7 mips"));
        let model = fixture("models/m095_walker.msh");
        assert!(matches!(
            validate("w.msh", &model, Mode::Strict),
            Validation::Model(r) if r.valid
        ));
    }
}
