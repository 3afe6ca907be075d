//! `mshconv validate`: every finding of every file, and a verdict per file.

use crate::cli::ValidateArgs;
use crate::fail::{self, EXIT_INVALID};
use crate::input;
use crate::out::{self, Out};
use msh::{Mode, ModelKind, Severity};
use mshconv_app::report::{check, FileResult};
use std::process::ExitCode;

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
    let mode = Mode::from_tolerant(args.tolerant);
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
