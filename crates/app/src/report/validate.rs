//! What `mshconv validate --json` prints: one [`FileResult`] per file, made by [`check`].

use msh::{Finding, Mode, ModelKind};
use serde::Serialize;

/// The result of validating one file: the content of `mshconv validate --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileResult {
    /// The file as named on the command line (`ARCHIVE:ENTRY` for an entry).
    pub file: String,
    /// `strict` or `tolerant`.
    pub mode: &'static str,
    /// Whether the file is accepted in this mode.
    pub valid: bool,
    /// `standard`, `legacy_nodes`, `terrain`, or null when the container could not be opened.
    pub kind: Option<ModelKind>,
    /// Every finding, in the order validation found them.
    pub findings: Vec<Finding>,
}

/// Validates one model's bytes in a mode; never fails (damage becomes findings).
pub fn check(label: &str, bytes: &[u8], mode: Mode) -> FileResult {
    let mode_name = match mode {
        Mode::Strict => "strict",
        Mode::Tolerant => "tolerant",
    };
    let result = |valid, kind, findings| FileResult {
        file: label.to_string(),
        mode: mode_name,
        valid,
        kind,
        findings,
    };
    match msh::open(bytes, mode) {
        Ok(opened) => result(true, opened.view.kind, opened.report.findings),
        Err(msh::Error::Invalid(report)) => {
            // The kind is still known: the container opens, the model breaks rules.
            let kind = msh::open(bytes, Mode::Tolerant)
                .ok()
                .and_then(|o| o.view.kind);
            result(false, kind, report.findings)
        }
        Err(msh::Error::Container(e)) => result(false, None, vec![Finding::container(&e)]),
        Err(other) => result(
            false,
            None,
            vec![Finding::new(
                msh::Code::Unreadable,
                None,
                "model",
                other.to_string(),
            )],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    #[test]
    fn check_reports_valid_invalid_and_unreadable_files() {
        let good = check("w.msh", &fixture("models/m095_walker.msh"), Mode::Strict);
        assert!(good.valid);
        assert_eq!((good.file.as_str(), good.mode), ("w.msh", "strict"));
        assert_eq!(good.kind, Some(ModelKind::Standard));

        let bad = fixture("damaged/anim4__batch0_index_count_4.msh");
        let strict = check("bad", &bad, Mode::Strict);
        assert!(!strict.valid);
        assert_eq!(
            strict.kind,
            Some(ModelKind::Standard),
            "the kind is still known"
        );
        assert_eq!(strict.findings[0].code.as_str(), "batch.index_count");
        let tolerant = check("bad", &bad, Mode::Tolerant);
        assert!(tolerant.valid);
        assert_eq!(tolerant.mode, "tolerant");

        let garbage = check("x", b"not a container", Mode::Strict);
        assert!(!garbage.valid);
        assert_eq!(garbage.kind, None);
        assert_eq!(garbage.findings[0].code.as_str(), "nres.truncated");
    }
}
