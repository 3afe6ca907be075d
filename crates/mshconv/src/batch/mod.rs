//! `mshconv batch INPUT... --to F --out DIR`: many conversions in parallel.
//!
//! The run has three steps:
//! 1. **Plan** (one thread): walk the folders, read and parse the archives, name
//!    every output, and decide what is skipped or cannot be converted at all (a
//!    damaged archive, two inputs with one output).
//! 2. **Convert** (`--jobs` threads, the main thread one of them): each worker
//!    takes the next task (the largest inputs first) from a shared counter,
//!    converts it in memory, writes the output under a temporary name and
//!    renames it. Results go to the main thread over a channel; only the main
//!    thread prints.
//! 3. **Sum up**: the summary line, the JSON report sorted by input, the exit code.
//!
//! SIGINT sets a flag: workers take no new task, finish the one they have, and
//! the run sums up what was done and exits 130. A file is either written whole
//! under its name or not at all.

mod into;
mod look;
mod plan;
mod report;
mod unwritten;
mod work;
mod write;

use crate::cli::BatchArgs;
use crate::codes::CliCode;
use crate::fail;
use crate::fs::write_atomically;
use crate::glob::Filter;
use crate::out;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use into::{check_into, into_entries, note_losses};
use mshconv_app::{Error, Format};
use plan::{archive_entry, order_and_check, plan_input};
use report::{summarize, summary_line, Record, Report, Status};
use std::io::IsTerminal;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use work::{run_tasks, Game};

/// Exit code of a batch stopped by SIGINT (128 + 2, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;
/// Exit code of a batch that converted nothing and failed nothing: no input
/// converts to `--to` (every one skipped, or none found).
pub const EXIT_NOTHING: u8 = 3;

/// Where a task's input bytes are.
#[derive(Debug, Clone)]
pub(super) enum Source {
    /// A file, read by the worker.
    File(PathBuf),
    /// An archive entry's payload, by its byte range in the archive (whose
    /// directory the plan checked); the worker reads just that range.
    Entry {
        archive: Arc<PathBuf>,
        range: Range<u64>,
    },
}

/// One conversion to do.
#[derive(Debug, Clone)]
pub(super) struct Task {
    /// What the report and the messages call the input: a path, or `ARCHIVE:ENTRY`.
    input: String,
    source: Source,
    from: Format,
    to: Format,
    output: PathBuf,
    /// The input's folder, for a `.gltf`'s side-car buffers and an `.obj`'s `.mtl`.
    folder: Option<PathBuf>,
    /// With `--into`: the entry the model goes to (`output` is then `ARCHIVE:ENTRY`).
    entry: Option<String>,
    /// `--dry-run`: converted, listed, not written.
    dry_run: bool,
}

impl Task {
    /// The input's size as far as it is known before reading it (0 when not).
    fn input_size(&self) -> u64 {
        match &self.source {
            Source::File(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
            Source::Entry { range, .. } => range.end - range.start,
        }
    }
}

/// What the planning step found: tasks to run and inputs already decided.
#[derive(Default)]
pub(super) struct Plan {
    tasks: Vec<Task>,
    decided: Vec<Record>,
}

/// Runs `batch`.
pub fn run(args: &BatchArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let options = args.conversion.options()?;
    let mut game = Game {
        dir: args.conversion.game()?,
        found: None,
    };
    if let Some(dir) = &game.dir {
        if args.to == Format::Msh {
            // Checked before any conversion: a wrong folder costs nothing.
            mshconv_app::look_import::check_libraries(dir.dir(), args.conversion.new_libraries)?;
        }
    }
    let filter = Filter::new(&args.include, &args.exclude).map_err(|e| Error::bad_option(e.0))?;
    for input in &args.inputs {
        if archive_entry(input).is_none() {
            std::fs::metadata(input).with_context(|| format!("cannot read {}", input.display()))?;
        }
    }
    if let Some(report) = &args.report {
        check_report_path(report)?;
    }
    if let Some(archive) = &args.into {
        check_into(archive, args.to)?;
    }
    let out = args.out.clone().unwrap_or_default();
    if game.dir.is_none() && args.to == Format::Msh {
        // Without --game-dir: the game folder the outputs lie in, if any.
        let place = args.into.clone().unwrap_or_else(|| out.join("model.msh"));
        game.found = mshconv_app::look_import::find_game_dir(&place);
    }
    // Folders are walked without entering OUT (it may lie inside an input folder).
    let out_dir = match &args.out {
        // A dry run creates nothing: OUT is only left out of the walk when it is there.
        Some(dir) if args.dry_run => std::fs::canonicalize(dir).ok(),
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            Some(
                std::fs::canonicalize(dir)
                    .with_context(|| format!("cannot read {}", dir.display()))?,
            )
        }
        None => None,
    };

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // Without a handler (one was installed already), SIGINT keeps its default
        // action; the outputs are still never half-written, only a temp file may stay.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }

    let mut plan = Plan::default();
    for input in &args.inputs {
        plan_input(input, args.to, &out, out_dir.as_deref(), &filter, &mut plan);
    }
    if let Some(archive) = &args.into {
        into_entries(&mut plan, archive, args.add)?;
    }
    let mut tasks = order_and_check(&mut plan);
    for task in &mut tasks {
        task.dry_run = args.dry_run;
    }

    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let progress = if show_progress {
        ProgressBar::with_draw_target(Some(tasks.len() as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{wide_bar}] {pos}/{len} eta {eta}")
    {
        progress.set_style(style.progress_chars("=> "));
    }
    for record in &plan.decided {
        if record.status == Status::Failed {
            print_failure(&progress, record);
        } else if !args.quiet {
            print_skip(&progress, record);
        }
    }

    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let done = run_tasks(&tasks, &options, &game, jobs, &stop, |record| {
        if record.status == Status::Failed {
            print_failure(&progress, record);
        } else if !args.quiet {
            for note in &record.notes {
                progress.suspend(|| {
                    out::note_line(note.code, &format!("{}: {}", record.input, note.message))
                });
            }
        }
        progress.inc(1);
    });
    progress.finish_and_clear();

    let interrupted = stop.load(Ordering::SeqCst);
    let mut records = plan.decided;
    for (task, record) in tasks.iter().zip(done) {
        records.push(record.unwrap_or_else(|| {
            Record::skipped(
                &task.input,
                CliCode::RunInterrupted.code(),
                "not converted: the batch was interrupted",
            )
        }));
    }
    records.sort_by(|a, b| (&a.input, &a.output).cmp(&(&b.input, &b.output)));
    if let Some(archive) = &args.into {
        note_losses(archive, &mut records, args.quiet);
    }
    // Without --game-dir, in a game folder: the looks that are not written.
    if let Some(dir) = &game.found {
        unwritten::note(dir, &mut records, args.into.as_deref(), args.quiet);
    }
    // With --game-dir, the looks of the models going back to MSH; with
    // --into, the archive: one transaction (or, with --dry-run, a listing).
    let game = game.dir.as_deref().filter(|_| args.to == Format::Msh);
    if args.dry_run {
        let mut listing = Vec::new();
        let wears: Vec<(String, Vec<u8>)> = match game {
            Some(game) => look::bring_back(
                game,
                &mut records,
                args.into.as_deref(),
                args.quiet,
                Some(&mut listing),
            )
            .wears
            .into_iter()
            .filter(|_| args.into.is_some())
            .map(|(_, _, name, wear)| (name, wear))
            .collect(),
            None => Vec::new(),
        };
        print_dry_run(&records, args.into.as_deref(), &wears, listing)?;
    } else {
        write::write(game, &mut records, args.into.as_deref(), args.quiet);
    }
    let summary = summarize(&records, args.to, started, interrupted);
    let line = summary_line(&summary);
    out::stderr_line(&if args.dry_run {
        line.replacen("batch", "batch (dry run, nothing written)", 1)
    } else {
        line
    });
    if let Some(path) = &args.report {
        let mut json = serde_json::to_vec_pretty(&Report {
            summary: &summary,
            files: &records,
        })
        .context("cannot encode the report")?;
        json.push(b'\n');
        write_atomically(path, &json)?;
    }
    Ok(if interrupted {
        ExitCode::from(EXIT_INTERRUPTED)
    } else if summary.failed > 0 {
        ExitCode::from(failed_exit(&records))
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

/// `--dry-run`: what the run would write, on stdout: each converted model's
/// files (or archive entry), then the look's libraries and WEARs
/// (`look_lines`, the WEAR entries `wears` with `--into`) and library entries.
fn print_dry_run(
    records: &[Record],
    into: Option<&Path>,
    wears: &[(String, Vec<u8>)],
    look_lines: Vec<String>,
) -> anyhow::Result<()> {
    let mut text = String::new();
    // With --into: what each put would do (the put rule refused, while
    // planning, every entry the archive lacks without --add).
    let directory = into.map(crate::input::read_directory).transpose()?;
    for record in records.iter().filter(|r| r.status == Status::Converted) {
        for (path, len) in &record.would_write {
            text += &format!("would write {path} ({len} bytes)\n");
        }
        if let (Some(output), Some(payload)) = (&record.output, &record.payload) {
            let placed = directory
                .as_ref()
                .zip(output.rsplit_once(':'))
                .map(|(d, (_, entry))| into::placement_suffix(d, entry))
                .unwrap_or_default();
            text += &format!("would put {output} ({} bytes){placed}\n", payload.len());
        }
    }
    if let Some(archive) = into {
        for (name, wear) in wears {
            text += &format!(
                "would put {}:{name} ({} bytes)\n",
                archive.display(),
                wear.len()
            );
        }
    }
    for line in look_lines {
        text += &line;
        text.push('\n');
    }
    out::Out::stdout().text(&text)
}

/// The report goes into an existing folder and is not a folder itself; checked
/// before any conversion, so a typo does not cost a whole batch.
fn check_report_path(path: &Path) -> anyhow::Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let meta = std::fs::metadata(parent)
        .with_context(|| format!("cannot write the report {}", path.display()))?;
    if !meta.is_dir() || path.is_dir() {
        return Err(Error::new(
            mshconv_app::Kind::Io,
            mshconv_app::ErrorCode::IoNotADirectory,
            format!(
                "cannot write the report {}: not a file in a folder",
                path.display()
            ),
        )
        .into());
    }
    Ok(())
}

/// `skip[CODE]: INPUT: reason` on stderr: why an input was not converted.
pub(super) fn print_skip(progress: &ProgressBar, record: &Record) {
    if record.status != Status::Skipped {
        return;
    }
    let code = record.code.as_deref().unwrap_or("skipped");
    let message = record.message.as_deref().unwrap_or("");
    progress.suspend(|| out::stderr_line(&format!("skip[{code}]: {}: {message}", record.input)));
}

pub(super) fn print_failure(progress: &ProgressBar, record: &Record) {
    let code = record
        .code
        .as_deref()
        .unwrap_or(mshconv_app::ErrorCode::Internal.code());
    let message = record.message.as_deref().unwrap_or("");
    progress.suspend(|| out::error_line(code, &format!("{}: {message}", record.input)));
}
