//! What `mshconv validate ARCHIVE` and `mshconv inspect ARCHIVE` print about an
//! archive of models: every model entry checked ([`check_archive`]) or
//! summarised ([`inspect_archive`]), and the type ids as text ([`type_text`]).

use super::validate::{check, FileResult};
use msh::{Finding, Mode, ModelKind, Severity};
use serde::Serialize;

/// A type id as the text its four little-endian bytes spell (`0x48534D` is
/// `"MSH"`, `0x4D415430` read from the bytes `MAT0` is `"MAT0"`), or `None`
/// when they spell nothing printable.
///
/// The bytes are read little-endian and trailing NUL bytes dropped; what is
/// left must be 2 to 4 graphic ASCII characters (`!` to `~`, no space, no NUL
/// inside) and not only digits (`"12"` would read as the number 12). Every
/// type below 256 is therefore a number: the model tables' own (1 to 21), and
/// a stray 99 is not shown as `c`.
pub fn type_text(type_id: u32) -> Option<String> {
    let bytes = type_id.to_le_bytes();
    let len = bytes.iter().rposition(|&b| b != 0)? + 1;
    let text = &bytes[..len];
    let printable = text.len() >= 2 && text.iter().all(u8::is_ascii_graphic);
    let digits = text.iter().all(u8::is_ascii_digit);
    (printable && !digits).then(|| String::from_utf8_lossy(text).into_owned())
}

/// A type id as shown in text: [`type_text`] where printable, else the number.
pub fn type_label(type_id: u32) -> String {
    type_text(type_id).unwrap_or_else(|| type_id.to_string())
}

/// The check of an archive of models: what `mshconv validate ARCHIVE` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArchiveCheck {
    /// The archive as named on the command line.
    pub file: String,
    /// One result per model entry, in directory order, each named `ARCHIVE:ENTRY`.
    pub models: Vec<FileResult>,
    /// Problems of the container that concern no model entry (tolerant mode
    /// only: strict mode refuses such a container before it is an archive).
    pub container: Vec<Finding>,
}

impl ArchiveCheck {
    /// Model entries accepted in the mode.
    pub fn accepted(&self) -> usize {
        self.models.iter().filter(|r| r.valid).count()
    }

    /// Whether every model entry is accepted in the mode.
    pub fn valid(&self) -> bool {
        self.models.iter().all(|r| r.valid)
    }
}

/// Checks every model entry (name ending in `.msh`) of an archive in a mode.
/// `problems` are the container's problems a tolerant parse reported: one
/// about a model entry is that entry's finding (its payload could not be
/// read, so it is not accepted), any other is the archive's.
pub fn check_archive(
    label: &str,
    archive: &nres::Archive<'_>,
    problems: &[nres::Error],
    mode: Mode,
) -> ArchiveCheck {
    let mut container = Vec::new();
    let mut damaged: Vec<(usize, Finding)> = Vec::new();
    for p in problems {
        match p.entry_index() {
            Some(i)
                if archive
                    .entry(i)
                    .is_some_and(|e| nres::is_model_name(e.name_bytes())) =>
            {
                damaged.push((i, Finding::container(p)));
            }
            _ => container.push(Finding::container(p)),
        }
    }
    let models = archive
        .nested_models()
        .map(|e| {
            let file = format!("{label}:{}", e.name());
            let own: Vec<Finding> = damaged
                .iter()
                .filter(|(i, _)| *i == e.index())
                .map(|(_, f)| f.clone())
                .collect();
            if own.is_empty() {
                check(&file, e.data(), mode)
            } else {
                FileResult {
                    file,
                    mode: mode_name(mode),
                    valid: false,
                    kind: None,
                    findings: own,
                }
            }
        })
        .collect();
    ArchiveCheck {
        file: label.to_string(),
        models,
        container,
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Strict => "strict",
        Mode::Tolerant => "tolerant",
    }
}

/// What `mshconv inspect ARCHIVE` prints: the entries, and a summary of each model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArchiveInspection {
    /// The archive as named on the command line.
    pub file: String,
    /// Size of the archive in bytes.
    pub bytes: usize,
    /// `strict` or `tolerant`: the mode each model's `valid` is judged in.
    pub mode: &'static str,
    /// Number of model entries.
    pub models: usize,
    /// Every entry, in directory order.
    pub entries: Vec<ArchiveEntry>,
}

/// One entry of an archive of models.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArchiveEntry {
    /// Position in the directory.
    pub index: usize,
    /// Resource type.
    pub type_id: u32,
    /// The type as text ([`type_text`]), null when it is not printable.
    pub type_text: Option<String>,
    /// Name (text up to the NUL).
    pub name: String,
    /// Payload size in bytes.
    pub size: u32,
    /// The model's summary, for a model entry (name ending in `.msh`); null otherwise.
    pub model: Option<ModelSummary>,
}

/// A model entry in a few numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Whether the model is accepted in the mode (as `validate` says).
    pub valid: bool,
    /// `standard`, `legacy_nodes`, `terrain`, or null when it cannot be opened.
    pub kind: Option<ModelKind>,
    /// Nodes; null when they are not decoded (legacy, terrain, unreadable).
    pub nodes: Option<usize>,
    /// Slots; null for a terrain model or one that cannot be opened.
    pub slots: Option<usize>,
    /// Triangles drawn (a terrain model's Res21 triangles); null when it cannot be opened.
    pub triangles: Option<usize>,
    /// Whether some node is animated; null when nodes are not decoded.
    pub animated: Option<bool>,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
}

/// Summarises every entry of an archive; each model is read tolerantly (so a
/// damaged one is still counted) and judged in `mode`.
pub fn inspect_archive(label: &str, archive: &nres::Archive<'_>, mode: Mode) -> ArchiveInspection {
    let entries: Vec<ArchiveEntry> = archive
        .entries()
        .map(|e| ArchiveEntry {
            index: e.index(),
            type_id: e.type_id(),
            type_text: type_text(e.type_id()),
            name: e.name(),
            size: e.size(),
            model: nres::is_model_name(e.name_bytes())
                .then(|| summarise(&format!("{label}:{}", e.name()), e.data(), mode)),
        })
        .collect();
    ArchiveInspection {
        file: label.to_string(),
        bytes: archive.bytes().len(),
        mode: mode_name(mode),
        models: entries.iter().filter(|e| e.model.is_some()).count(),
        entries,
    }
}

fn summarise(label: &str, bytes: &[u8], mode: Mode) -> ModelSummary {
    match msh::open(bytes, Mode::Tolerant) {
        Ok(opened) => {
            let i = super::inspect(label, &opened);
            let errors = i.findings.errors;
            ModelSummary {
                valid: mode == Mode::Tolerant || errors == 0,
                kind: i.kind,
                nodes: i.totals.as_ref().and_then(|t| t.nodes),
                slots: i.totals.as_ref().map(|t| t.slots),
                triangles: i
                    .totals
                    .as_ref()
                    .map(|t| t.triangles)
                    .or(i.terrain.as_ref().map(|t| t.triangles)),
                animated: i.animation.animated_nodes.map(|n| n > 0),
                errors,
                warnings: i.findings.warnings,
            }
        }
        Err(_) => {
            let r = check(label, bytes, mode);
            let count = |s: Severity| r.findings.iter().filter(|f| f.severity == s).count();
            ModelSummary {
                valid: false,
                kind: None,
                nodes: None,
                slots: None,
                triangles: None,
                animated: None,
                errors: count(Severity::Error),
                warnings: count(Severity::Warning),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    #[test]
    fn type_ids_as_text() {
        assert_eq!(type_text(0x48534D).as_deref(), Some("MSH"));
        assert_eq!(
            type_text(u32::from_le_bytes(*b"MAT0")).as_deref(),
            Some("MAT0")
        );
        assert_eq!(
            type_text(u32::from_le_bytes(*b"Texm")).as_deref(),
            Some("Texm")
        );
        assert_eq!(
            type_text(u32::from_le_bytes(*b"TXT\0")).as_deref(),
            Some("TXT")
        );
        assert_eq!(type_text(1), None);
        assert_eq!(type_text(0), None);
        assert_eq!(type_text(u32::from_le_bytes(*b"12\0\0")), None);
        assert_eq!(type_text(u32::from_le_bytes(*b"A\0B\0")), None);
        assert_eq!(type_text(u32::from_le_bytes(*b"A B\0")), None);
        assert_eq!(type_text(99), None);
        assert_eq!(
            type_text(u32::from_le_bytes(*b"db\0\0")).as_deref(),
            Some("db")
        );
        assert_eq!(type_label(4739917), "MSH");
        assert_eq!(type_label(13), "13");
    }

    #[test]
    fn every_model_of_an_archive_is_checked_and_summarised() {
        let bytes = fixture("archives/small.rlb");
        let archive = nres::Archive::parse(&bytes).unwrap();
        let c = check_archive("small.rlb", &archive, &[], Mode::Strict);
        assert_eq!(c.models.len(), 8);
        assert!(c.valid());
        assert_eq!(c.models[0].file, "small.rlb:M121_DEPOT.MSH");
        let i = inspect_archive("small.rlb", &archive, Mode::Strict);
        assert_eq!(i.models, 8);
        let m = i.entries[0].model.as_ref().unwrap();
        assert!(m.valid);
        assert_eq!(m.kind, Some(ModelKind::Standard));
        assert_eq!(i.entries[0].type_text.as_deref(), Some("MSH"));
    }
}
