//! `mshconv validate`: every finding of every file, and a verdict per file.
//!
//! An archive of models (`units.rlb`, named without an entry) is checked
//! whole: its container, then every model entry, each with its verdict, then
//! a line for the archive. A game library (`Material.lib`, `Textures.lib`)
//! is checked by its MAT0 or Texm entries (`report::check_library`), each
//! with its verdict, then a line for the library.

use crate::cli::ValidateArgs;
use crate::fail::{self, EXIT_INVALID};
use crate::input;
use crate::input::Input;
use crate::out::{self, Out};
use msh::{Mode, ModelKind, Severity};
use mshconv_app::archive;
use mshconv_app::report::{
    check, check_archive, validate, ArchiveCheck, FileResult, LibraryCheck, Validation,
};
use std::process::ExitCode;

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The verdict's first word: `valid` (accepted, no error), `readable`
/// (accepted with errors: only in tolerant mode), `INVALID` (rejected).
pub fn verdict_word(r: &FileResult) -> &'static str {
    let errors = r.findings.iter().any(|f| f.severity == Severity::Error);
    match (r.valid, errors) {
        (false, _) => "INVALID",
        (true, true) => "readable",
        (true, false) => "valid",
    }
}

/// The one-line verdict for a file.
pub fn verdict(r: &FileResult) -> String {
    let count = |s: Severity| r.findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let kind = match r.kind {
        Some(ModelKind::Standard) => "model",
        Some(ModelKind::LegacyNodes) => "model with a legacy node table",
        Some(ModelKind::Terrain) => "terrain model",
        None => "unreadable container",
    };
    format!(
        "{}: {} ({}, {kind}): {}, {}",
        r.file,
        verdict_word(r),
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
        let whole = match archive_check(&input, mode) {
            Ok(whole) => whole,
            Err(e) => {
                out::error_line(e.code(), e.message());
                worst = worst.max(e.exit_code());
                continue;
            }
        };
        if let Some(whole) = whole {
            if !whole.valid() {
                worst = worst.max(EXIT_INVALID);
            }
            if args.json {
                results.extend(archive_objects(whole).into_iter().map(Validation::Model));
            } else {
                out.text(&archive_text(&whole))?;
            }
            continue;
        }
        // A file named without an entry may be a game library.
        let validation = match input.entry {
            None => validate(&input.label, &input.bytes, mode),
            Some(_) => Validation::Model(check(&input.label, &input.bytes, mode)),
        };
        if !validation.valid() {
            worst = worst.max(EXIT_INVALID);
        }
        if args.json {
            results.push(validation);
        } else {
            out.text(&match &validation {
                Validation::Model(result) => file_text(result),
                Validation::Library(library) => library_text(library),
            })?;
        }
    }
    if args.json {
        let mut text = serde_json::to_string_pretty(&results)?;
        text.push('\n');
        out.text(&text)?;
    }
    Ok(ExitCode::from(worst))
}

/// A file's findings, one a line, then its verdict.
fn file_text(result: &FileResult) -> String {
    let mut text = String::new();
    for f in &result.findings {
        text.push_str(&format!("{}: {f}\n", result.file));
    }
    text.push_str(&verdict(result));
    text.push('\n');
    text
}

/// The check of every model of an archive of models given without an entry
/// (`None` for anything else: a model, an entry, a file that does not open as
/// NRes). The container is read as the mode reads it: strictly, a damaged one
/// is not an archive here but a file that fails as today; tolerantly, its
/// problems are reported and the entries still checked. Model entries that
/// share their bytes past the archive's size are refused
/// (`archive.entries_overlap`), as `batch` refuses them.
fn archive_check(input: &Input, mode: Mode) -> Result<Option<ArchiveCheck>, mshconv_app::Error> {
    if input.entry.is_some() {
        return Ok(None);
    }
    let parsed = match mode {
        Mode::Strict => nres::Archive::parse(&input.bytes).map(|a| (a, Vec::new())),
        Mode::Tolerant => nres::Archive::parse_tolerant(&input.bytes),
    };
    let Ok((parsed, problems)) = parsed else {
        return Ok(None);
    };
    if !archive::is_model_archive(&parsed) {
        return Ok(None);
    }
    archive::check_models_disjoint(&archive::models(&parsed))
        .map_err(|e| e.context(&input.label))?;
    Ok(Some(check_archive(&input.label, &parsed, &problems, mode)))
}

/// A library's text: a line per entry (`valid (MAT0): version 3, ...`,
/// `INVALID (Texm): texm.truncated: ...`, `not checked (TXT)`), then the
/// library's line (`Material.lib: library of 12 materials: 12 valid, 0
/// invalid`).
fn library_text(library: &LibraryCheck) -> String {
    let mut text = String::new();
    for e in &library.entries {
        let line = match (e.checked, e.valid) {
            (false, _) => format!("{}: not checked ({})", e.file, e.r#type),
            (true, true) => format!("{}: valid ({}): {}", e.file, e.r#type, e.summary),
            (true, false) => format!(
                "{}: INVALID ({}): {}: {}",
                e.file,
                e.r#type,
                e.code.unwrap_or("internal"),
                e.message.as_deref().unwrap_or("")
            ),
        };
        text.push_str(&line);
        text.push('\n');
    }
    let checked = library.entries.iter().filter(|e| e.checked);
    let invalid = checked.clone().filter(|e| !e.valid).count();
    let word = if library.library == "materials" {
        "material"
    } else {
        "texture"
    };
    text.push_str(&format!(
        "{}: library of {}: {} valid, {invalid} invalid\n",
        library.file,
        plural(checked.clone().count(), word),
        checked.count() - invalid,
    ));
    text
}

/// An archive's text: its container's problems, every model's findings and
/// verdict, then the archive's line.
fn archive_text(whole: &ArchiveCheck) -> String {
    let mut text = String::new();
    for f in &whole.container {
        text.push_str(&format!("{}: {f}\n", whole.file));
    }
    for result in &whole.models {
        text.push_str(&file_text(result));
    }
    text.push_str(&archive_verdict(whole));
    text.push('\n');
    text
}

/// The archive's line: `units.rlb: archive of 8 models: 7 valid, 1 invalid`
/// (tolerant mode adds `, N readable` for models accepted with errors, and
/// container problems add `; container: N errors`).
pub fn archive_verdict(whole: &ArchiveCheck) -> String {
    let count = |word: &str| {
        whole
            .models
            .iter()
            .filter(|r| verdict_word(r) == word)
            .count()
    };
    let readable = count("readable");
    let mut line = format!(
        "{}: archive of {}: {} valid, ",
        whole.file,
        plural(whole.models.len(), "model"),
        count("valid"),
    );
    if readable > 0 {
        line.push_str(&format!("{readable} readable, "));
    }
    line.push_str(&format!("{} invalid", count("INVALID")));
    if !whole.container.is_empty() {
        line.push_str(&format!(
            "; container: {}",
            plural(whole.container.len(), "error")
        ));
    }
    line
}

/// The archive's objects for `--json`: one per model entry, and before them,
/// when its container has problems (tolerant mode), one for the archive itself
/// (kind null, `valid` true: the container was read).
fn archive_objects(whole: ArchiveCheck) -> Vec<FileResult> {
    let mut objects = Vec::with_capacity(whole.models.len() + 1);
    if let Some(mode) = whole.models.first().map(|r| r.mode) {
        if !whole.container.is_empty() {
            objects.push(FileResult {
                file: whole.file.clone(),
                mode,
                valid: true,
                kind: None,
                findings: whole.container,
            });
        }
    }
    objects.extend(whole.models);
    objects
}
