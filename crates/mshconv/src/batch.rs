//! `mshconv batch INPUT... --to F --out DIR`: many conversions in parallel,
//! planned, run and written by the application layer ([`mshconv_app::batch`]).
//! This module translates the arguments into a request, shows the progress
//! bar and what the run tells, prints the dry run's listing and the summary,
//! writes the report, and maps the outcome to the exit code.
//!
//! SIGINT sets a flag: workers take no new task, finish the one they have, and
//! the run sums up what was done and exits 130. A file is either written whole
//! under its name or not at all.

use crate::cli::BatchArgs;
use crate::fail;
use crate::fs::write_atomically;
use crate::out;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mshconv_app::batch::{self, summary_line, Event, Record, Request};
use mshconv_app::Format;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Exit code of a batch stopped by SIGINT (128 + 2, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;
/// Exit code of a batch that converted nothing and failed nothing: no input
/// converts to `--to` (every one skipped, or none found).
pub const EXIT_NOTHING: u8 = 3;

/// Runs `batch`.
pub fn run(args: &BatchArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let options = args.conversion.options()?;
    let request = Request {
        inputs: &args.inputs,
        to: args.to,
        out: args.out.as_deref(),
        into: args.into.as_deref(),
        add: args.add,
        include: &args.include,
        exclude: &args.exclude,
        report: args.report.as_deref(),
        dry_run: args.dry_run,
        options: &options,
        game_dir: args.conversion.game()?,
        new_libraries: args.conversion.new_libraries,
        advice: &crate::advice::Cli,
        started,
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // Without a handler (one was installed already), SIGINT keeps its default
        // action; the outputs are still never half-written, only a temp file may stay.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }

    // While planning, only locks and recoveries are told (the decided
    // inputs are told by the run, under the progress bar).
    let plan = batch::plan(&request, &|event| {
        if let Event::Lock(event) = event {
            crate::fs::tell(event);
        }
    })?;

    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let progress = if show_progress {
        ProgressBar::with_draw_target(Some(plan.tasks() as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{wide_bar}] {pos}/{len} eta {eta}")
    {
        progress.set_style(style.progress_chars("=> "));
    }
    let quiet = args.quiet;
    // Lines go above the bar while it runs (the look's and the archive's
    // come once it is cleared).
    let say = |line: &dyn Fn()| {
        if progress.is_finished() {
            line()
        } else {
            progress.suspend(line)
        }
    };
    let tell = |event: Event<'_>| match event {
        Event::Lock(event) => crate::fs::tell(event),
        Event::Failed {
            input,
            code,
            message,
        } => say(&|| out::error_line(code, &format!("{input}: {message}"))),
        Event::Skipped { .. } | Event::Note { .. } if quiet => {}
        Event::Skipped {
            input,
            code,
            message,
        } => say(&|| out::stderr_line(&format!("skip[{code}]: {input}: {message}"))),
        Event::Note {
            about: Some(input),
            note,
        } => say(&|| out::note_line(note.code, &format!("{input}: {}", note.message))),
        Event::Note { about: None, note } => say(&|| out::note_line(note.code, &note.message)),
        Event::Done => progress.inc(1),
    };

    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let outcome = batch::run(&request, plan, jobs, &stop, &tell)?;
    progress.finish_and_clear();
    if let Some(listing) = &outcome.listing {
        out::Out::stdout().text(listing)?;
    }
    let summary = &outcome.summary;
    let line = summary_line(summary);
    out::stderr_line(&if args.dry_run {
        line.replacen("batch", "batch (dry run, nothing written)", 1)
    } else {
        line
    });
    if let Some(path) = &args.report {
        write_atomically(path, &outcome.report_json()?)?;
    }
    Ok(if outcome.interrupted() {
        ExitCode::from(EXIT_INTERRUPTED)
    } else if summary.failed > 0 {
        ExitCode::from(failed_exit(&outcome.records))
    } else if summary.converted == 0 {
        out::stderr_line(&format!(
            "batch: nothing converted: no input converts to {} ({}; archives hold msh models already)",
            args.to,
            Format::directions()
        ));
        ExitCode::from(EXIT_NOTHING)
    } else {
        ExitCode::SUCCESS
    })
}

/// The exit code of a batch some of whose inputs failed: 1, or 2 when the
/// disk filled up (`io.no_space`), as every command exits for a full disk.
fn failed_exit(records: &[Record]) -> u8 {
    let full = mshconv_app::ErrorCode::IoNoSpace.code();
    if records.iter().any(|r| r.code.as_deref() == Some(full)) {
        fail::EXIT_USAGE
    } else {
        fail::EXIT_INVALID
    }
}
