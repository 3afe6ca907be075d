//! `mshconv validate`: every finding of every file, and a verdict per file.

use crate::cli::ValidateArgs;
use crate::fail::{self, EXIT_INVALID};
use crate::input;
use crate::out::{self, Out};
use msh::{Finding, Mode, ModelKind, Severity};
use serde::Serialize;
use std::process::ExitCode;

/// The result for one file.
#[derive(Debug, Clone, Serialize)]
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

/// The one-line verdict for a file.
pub fn verdict(r: &FileResult) -> String {
    let count = |s: Severity| r.findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let kind = match r.kind {
        Some(ModelKind::Standard) => "model",
        Some(ModelKind::LegacyNodes) => "model with a legacy node table",
        Some(ModelKind::Terrain) => "terrain model",
        None => "unreadable container",
    };
    format!(
        "{}: {} ({}, {kind}): {}, {}",
        r.file,
        if r.valid { "valid" } else { "INVALID" },
        r.mode,
        plural(errors, "error"),
        plural(warnings, "warning"),
    )
}

/// Runs `validate`.
pub fn run(args: &ValidateArgs, out: &mut Out) -> anyhow::Result<ExitCode> {
    let mode = if args.tolerant {
        Mode::Tolerant
    } else {
        Mode::Strict
    };
    let mut worst = 0u8;
    let mut results = Vec::new();
    for spec in &args.files {
        let input = match input::load(spec, args.entry.as_deref(), args.tolerant) {
            Ok(input) => input,
            Err(e) => {
                let failure = fail::classify(&e);
                if failure.exit == 0 {
                    return Err(e);
                }
                out::error_line(&failure.code, &fail::message(&e));
                worst = worst.max(failure.exit);
                continue;
            }
        };
        let result = check(&input.label, &input.bytes, mode);
        if !result.valid {
            worst = worst.max(EXIT_INVALID);
        }
        if args.json {
            results.push(result);
        } else {
            let mut text = String::new();
            for f in &result.findings {
                text.push_str(&format!("{}: {f}\n", result.file));
            }
            text.push_str(&verdict(&result));
            text.push('\n');
            out.text(&text)?;
        }
    }
    if args.json {
        let mut text = serde_json::to_string_pretty(&results)?;
        text.push('\n');
        out.text(&text)?;
    }
    Ok(ExitCode::from(worst))
}
