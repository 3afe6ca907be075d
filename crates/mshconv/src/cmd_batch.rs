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

use crate::cli::BatchArgs;
use crate::fail;
use crate::fs::write_atomically;
use crate::glob::Filter;
use crate::input::{read_directory, read_file, read_range};
use crate::out;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mshconv_app::names::{entry_file_stem, model_name};
use mshconv_app::{archive, is_archive_path, Error, Folder, Format, Names, NoResources, Options};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// Exit code of a batch stopped by SIGINT (128 + 2, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Where a task's input bytes are.
#[derive(Debug, Clone)]
enum Source {
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
struct Task {
    /// What the report and the messages call the input: a path, or `ARCHIVE:ENTRY`.
    input: String,
    source: Source,
    from: Format,
    to: Format,
    output: PathBuf,
    /// The input's folder, for a `.gltf`'s side-car buffers and an `.obj`'s `.mtl`.
    folder: Option<PathBuf>,
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

/// How one input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Converted and written.
    Converted,
    /// Could not be converted (or written); `code` and `message` say why.
    Failed,
    /// Not converted on purpose: not a format that converts to `--to`, or not
    /// reached because the batch was interrupted.
    Skipped,
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    /// The input: a path, or `ARCHIVE:ENTRY`.
    pub input: String,
    /// The file written (`null` when nothing was written).
    pub output: Option<String>,
    /// How it ended.
    pub status: Status,
    /// Stable code of the failure or the reason for skipping.
    pub code: Option<String>,
    /// What went wrong, for a person.
    pub message: Option<String>,
    /// What the conversion approximated or decided.
    pub notes: Vec<mshconv_convert::Note>,
    /// Size of the input (of the entry's payload for an archive entry).
    pub bytes_in: u64,
    /// Size of what was written (with the `.mtl` for `.obj` output).
    pub bytes_out: u64,
    /// Time spent on this input, in milliseconds.
    pub ms: f64,
}

impl Record {
    fn new(input: &str, status: Status) -> Record {
        Record {
            input: input.to_string(),
            output: None,
            status,
            code: None,
            message: None,
            notes: Vec::new(),
            bytes_in: 0,
            bytes_out: 0,
            ms: 0.0,
        }
    }

    fn failed(input: &str, code: &str, message: impl Into<String>) -> Record {
        Record {
            code: Some(code.to_string()),
            message: Some(message.into()),
            ..Record::new(input, Status::Failed)
        }
    }

    fn skipped(input: &str, code: &str, message: impl Into<String>) -> Record {
        Record {
            code: Some(code.to_string()),
            message: Some(message.into()),
            ..Record::new(input, Status::Skipped)
        }
    }
}

/// The report's totals.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The output format.
    pub to: String,
    /// Inputs converted.
    pub converted: usize,
    /// Inputs that failed.
    pub failed: usize,
    /// Inputs skipped.
    pub skipped: usize,
    /// Bytes read, over every input.
    pub bytes_in: u64,
    /// Bytes written, over every output.
    pub bytes_out: u64,
    /// Wall time of the whole batch.
    pub seconds: f64,
    /// Whether SIGINT stopped the batch.
    pub interrupted: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    summary: &'a Summary,
    files: &'a [Record],
}

/// What the planning step found: tasks to run and inputs already decided.
#[derive(Default)]
struct Plan {
    tasks: Vec<Task>,
    decided: Vec<Record>,
}

/// Runs `batch`.
pub fn run(args: &BatchArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let options = args.conversion.options()?;
    let filter = Filter::new(&args.include, &args.exclude).map_err(|e| Error::bad_option(e.0))?;
    for input in &args.inputs {
        std::fs::metadata(input).with_context(|| format!("cannot read {}", input.display()))?;
    }
    if let Some(report) = &args.report {
        check_report_path(report)?;
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    // Folders are walked without entering OUT (it may lie inside an input folder).
    let out_dir = std::fs::canonicalize(&args.out)
        .with_context(|| format!("cannot read {}", args.out.display()))?;

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // Without a handler (one was installed already), SIGINT keeps its default
        // action; the outputs are still never half-written, only a temp file may stay.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }

    let mut plan = Plan::default();
    for input in &args.inputs {
        plan_input(input, args.to, &args.out, &out_dir, &filter, &mut plan);
    }
    let tasks = order_and_check(&mut plan);

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
        }
    }

    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let done = run_tasks(&tasks, &options, jobs, &stop, |record| {
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
                "run.interrupted",
                "not converted: the batch was interrupted",
            )
        }));
    }
    records.sort_by(|a, b| (&a.input, &a.output).cmp(&(&b.input, &b.output)));
    let summary = summarize(&records, args.to, started, interrupted);
    out::stderr_line(&summary_line(&summary));
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
        ExitCode::from(fail::EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
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
            "io.not_a_directory",
            format!(
                "cannot write the report {}: not a file in a folder",
                path.display()
            ),
        )
        .into());
    }
    Ok(())
}

/// Adds what one command-line input gives to the plan.
fn plan_input(
    input: &Path,
    to: Format,
    out: &Path,
    out_dir: &Path,
    filter: &Filter,
    plan: &mut Plan,
) {
    let label = input.display().to_string();
    if input.is_dir() {
        let mut found = Vec::new();
        walk(input, String::new(), out_dir, &mut found, plan);
        found.sort();
        for rel in found {
            let path = input.join(&rel);
            let wanted = if is_archive_path(&path) {
                to != Format::Msh
            } else {
                Format::from_path(&path).is_some_and(|from| from.converts_to(to))
            };
            if wanted && filter.accepts(&rel) {
                let target = out.join(&rel);
                if is_archive_path(&path) {
                    plan_archive(&path, to, &target, plan);
                } else {
                    plan_file(&path, to, target.with_extension(to.to_string()), plan);
                }
            }
        }
        return;
    }
    let file_name = input.file_name().map(PathBuf::from).unwrap_or_default();
    if is_archive_path(input) {
        if to == Format::Msh {
            plan.decided.push(Record::skipped(
                &label,
                "input.not_convertible",
                "an archive holds .msh models already; there is nothing to convert to msh",
            ));
        } else {
            plan_archive(input, to, &out.join(file_name), plan);
        }
        return;
    }
    match Format::from_path(input) {
        Some(from) if from.converts_to(to) => {
            plan_file(
                input,
                to,
                out.join(file_name).with_extension(to.to_string()),
                plan,
            );
        }
        Some(from) => plan.decided.push(Record::skipped(
            &label,
            "input.not_convertible",
            format!("{from} does not convert to {to} (msh -> glb/gltf/obj, glb/gltf/obj -> msh)"),
        )),
        None => plan.decided.push(Record::skipped(
            &label,
            "input.not_convertible",
            "not a model: the name ends in none of .msh .glb .gltf .obj .rlb",
        )),
    }
}

/// Collects the files under `dir` as `/`-separated paths relative to the folder
/// given on the command line. Symbolic links to folders are not followed (no
/// cycles); OUT is not entered. A folder that cannot be read is a failure.
fn walk(dir: &Path, rel: String, out_dir: &Path, found: &mut Vec<String>, plan: &mut Plan) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            plan.decided.push(Record::failed(
                &dir.display().to_string(),
                fail::io_code(&e),
                format!("cannot read the folder: {e}"),
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if std::fs::canonicalize(&path).is_ok_and(|p| p == out_dir) {
                continue;
            }
            walk(&path, child, out_dir, found, plan);
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            found.push(child);
        }
    }
}

fn plan_file(path: &Path, to: Format, output: PathBuf, plan: &mut Plan) {
    let Some(from) = Format::from_path(path) else {
        return;
    };
    plan.tasks.push(Task {
        input: path.display().to_string(),
        source: Source::File(path.to_path_buf()),
        from,
        to,
        output,
        folder: path.parent().map(Path::to_path_buf),
    });
}

/// Every `.msh` entry of an archive becomes a task writing into `target`
/// (`OUT/.../units.rlb/`); an archive that cannot be read or parsed is one failure.
/// Only the header and the directory are read here: the workers read each
/// entry's bytes themselves (no serial read of the whole archive, and no
/// archive held in memory).
fn plan_archive(path: &Path, to: Format, target: &Path, plan: &mut Plan) {
    let label = path.display().to_string();
    let directory = match read_directory(path) {
        Ok(directory) => directory,
        Err(e) => {
            let damaged = e.is::<nres::Error>();
            let e = if damaged {
                e.context("damaged archive")
            } else {
                e
            };
            let failure = fail::classify(&e);
            let mut record = Record::failed(&label, &failure.code, fail::message(&e));
            if damaged {
                record.bytes_in = std::fs::metadata(path).map_or(0, |m| m.len());
            }
            plan.decided.push(record);
            return;
        }
    };
    let models = archive::models(&directory);
    // Model entries may share their bytes (valid NRes): each would be converted
    // and written once per entry. Past the archive's own size it is refused.
    let file_len = std::fs::metadata(path).map_or(u64::MAX, |m| m.len());
    if let Err(e) = archive::check_models_fit(&models, file_len) {
        plan.decided
            .push(Record::failed(&label, e.code(), e.message()));
        return;
    }
    let archive = Arc::new(path.to_path_buf());
    plan.tasks.extend(models.into_iter().map(|model| Task {
        input: format!("{label}:{}", model.name),
        output: target.join(format!(
            "{}.{to}",
            entry_file_stem(directory.name_bytes(model.index).unwrap_or_default())
        )),
        source: Source::Entry {
            archive: Arc::clone(&archive),
            range: model.range,
        },
        from: Format::Msh,
        to,
        folder: None,
    }));
}

/// Sorts the tasks by input, drops exact duplicates (one file named twice), and
/// turns a task whose output another task already writes into a failure: the
/// first by input wins, so the outcome does not depend on the order of INPUTs.
fn order_and_check(plan: &mut Plan) -> Vec<Task> {
    let mut tasks = std::mem::take(&mut plan.tasks);
    tasks.sort_by(|a, b| (&a.input, &a.output).cmp(&(&b.input, &b.output)));
    tasks.dedup_by(|a, b| a.input == b.input && a.output == b.output);
    let mut owners: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut kept = Vec::with_capacity(tasks.len());
    for task in tasks {
        if let Some(owner) = owners.get(&task.output) {
            plan.decided.push(Record::failed(
                &task.input,
                "output.conflict",
                format!(
                    "{} is the output of {owner} already; leave one of them out (--exclude) or convert it separately",
                    task.output.display()
                ),
            ));
        } else {
            owners.insert(task.output.clone(), task.input.clone());
            kept.push(task);
        }
    }
    // Decided inputs named twice appear once.
    let mut seen = BTreeSet::new();
    plan.decided
        .retain(|r| seen.insert((r.input.clone(), r.code.clone())));
    kept
}

/// Runs the tasks on `jobs` threads; `on_done` sees each record as it arrives
/// (on the calling thread). The result holds a record per task, `None` for a
/// task not started because `stop` was set.
///
/// The calling thread is one of the workers: it takes tasks like the others and
/// between two of its own hands on what the others sent. So it is rarely
/// parked on the channel, and a worker's send rarely has to wake it (a wake-up
/// cost as much as a small conversion; with one job no thread is spawned).
fn run_tasks(
    tasks: &[Task],
    options: &Options,
    jobs: usize,
    stop: &AtomicBool,
    mut on_done: impl FnMut(&Record),
) -> Vec<Option<Record>> {
    let mut results: Vec<Option<Record>> = vec![None; tasks.len()];
    // Largest input first: the last tasks taken are small ones, so the workers
    // run out of work at about the same time (ties keep the input order).
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_cached_key(|&i| std::cmp::Reverse(tasks[i].input_size()));
    let next = AtomicUsize::new(0);
    let take = || {
        if stop.load(Ordering::SeqCst) {
            return None;
        }
        let i = *order.get(next.fetch_add(1, Ordering::SeqCst))?;
        Some((i, &tasks[i]))
    };
    let workers = jobs.clamp(1, tasks.len().max(1));
    let (sender, receiver) = mpsc::channel::<(usize, Record)>();
    std::thread::scope(|scope| {
        for _ in 1..workers {
            let sender = sender.clone();
            let take = &take;
            scope.spawn(move || {
                while let Some((i, task)) = take() {
                    if sender.send((i, run_task(task, options))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut record = |(i, record): (usize, Record)| {
            on_done(&record);
            results[i] = Some(record);
        };
        while let Some((i, task)) = take() {
            record((i, run_task(task, options)));
            while let Ok(sent) = receiver.try_recv() {
                record(sent);
            }
        }
        for sent in receiver {
            record(sent);
        }
    });
    results
}

/// Converts one task into its record; a panic in the library (a bug) fails
/// this input only.
fn run_task(task: &Task, options: &Options) -> Record {
    let started = Instant::now();
    let mut record = Record::new(&task.input, Status::Converted);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        convert_task(task, options, &mut record)
    }));
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            let failure = fail::classify(&e);
            record.status = Status::Failed;
            record.code = Some(failure.code);
            record.message = Some(fail::message(&e));
            record.output = None;
        }
        Err(_) => {
            record.status = Status::Failed;
            record.code = Some("internal".to_string());
            record.message = Some(
                "the conversion panicked (a bug in mshconv; please report it with this file)"
                    .to_string(),
            );
            record.output = None;
        }
    }
    if record.status == Status::Failed {
        record.bytes_out = 0;
        record.notes.clear();
    }
    record.ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    record
}

fn convert_task(task: &Task, options: &Options, record: &mut Record) -> anyhow::Result<()> {
    let read;
    let bytes: &[u8] = match &task.source {
        Source::File(path) => {
            read = read_file(path)?;
            &read
        }
        Source::Entry { archive, range } => {
            read = read_range(archive, range.clone())?;
            &read
        }
    };
    record.bytes_in = bytes.len() as u64;
    // A file is told by its bytes, as `convert` tells it (a folder's files
    // were chosen by their names); an entry is a model.
    let from = match &task.source {
        Source::File(path) => mshconv_app::input_format(None, Some(path), bytes)?.0,
        Source::Entry { .. } => task.from,
    };
    let folder = task.folder.as_deref().map(Folder::new);
    let resources: &dyn mshconv_app::Resources = match &folder {
        Some(folder) => folder,
        None => &NoResources,
    };
    let names = Names {
        model: model_name(&task.input),
        file: model_name(&task.output.to_string_lossy()),
    };
    let output = mshconv_app::convert(bytes, (from, task.to), options, &names, resources)?;
    if let Some(parent) = task.output.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    // The .mtl first: a model is complete once its .obj is there.
    for side in &output.files[1..] {
        write_atomically(&task.output.with_file_name(&side.name), &side.bytes)?;
    }
    write_atomically(&task.output, &output.main().bytes)?;
    record.output = Some(task.output.display().to_string());
    record.bytes_out = output.len();
    record.notes = output.report.notes;
    Ok(())
}

fn print_failure(progress: &ProgressBar, record: &Record) {
    let code = record.code.as_deref().unwrap_or("internal");
    let message = record.message.as_deref().unwrap_or("");
    progress.suspend(|| out::error_line(code, &format!("{}: {message}", record.input)));
}

fn summarize(records: &[Record], to: Format, started: Instant, interrupted: bool) -> Summary {
    let count = |s: Status| records.iter().filter(|r| r.status == s).count();
    Summary {
        to: to.to_string(),
        converted: count(Status::Converted),
        failed: count(Status::Failed),
        skipped: count(Status::Skipped),
        bytes_in: records.iter().map(|r| r.bytes_in).sum(),
        bytes_out: records.iter().map(|r| r.bytes_out).sum(),
        seconds: (started.elapsed().as_secs_f64() * 1e3).round() / 1e3,
        interrupted,
    }
}

/// `batch: 433 converted, 2 failed, 0 skipped; 58.1 MiB in, 120.3 MiB out; 3.21 s`.
fn summary_line(s: &Summary) -> String {
    format!(
        "batch{}: {} converted, {} failed, {} skipped; {} in, {} out; {:.2} s",
        if s.interrupted { " (interrupted)" } else { "" },
        s.converted,
        s.failed,
        s.skipped,
        size(s.bytes_in),
        size(s.bytes_out),
        s.seconds
    )
}

/// A byte count for people: `512 B`, `3.4 KiB`, `58.1 MiB`.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_for_people() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1023), "1023 B");
        assert_eq!(size(1024), "1.0 KiB");
        assert_eq!(size(1536 * 1024), "1.5 MiB");
    }

    #[test]
    fn the_largest_inputs_are_converted_first() {
        // Entries of an archive that is not there: each task fails at once, in
        // the order the worker took it.
        let task = |input: &str, size: u64| Task {
            input: input.into(),
            source: Source::Entry {
                archive: Arc::new(PathBuf::from("no/such/archive.rlb")),
                range: 0..size,
            },
            from: Format::Msh,
            to: Format::Glb,
            output: PathBuf::from(format!("out/{input}.glb")),
            folder: None,
        };
        let tasks = [task("a", 10), task("b", 300), task("c", 10), task("d", 20)];
        let mut seen = Vec::new();
        let stop = AtomicBool::new(false);
        let results = run_tasks(&tasks, &Options::default(), 1, &stop, |r| {
            seen.push(r.input.clone())
        });
        assert_eq!(seen, ["b", "d", "a", "c"]);
        // The results stay in task order.
        let inputs: Vec<_> = results.iter().flatten().map(|r| r.input.as_str()).collect();
        assert_eq!(inputs, ["a", "b", "c", "d"]);
    }

    #[test]
    fn conflicting_outputs_fail_all_but_the_first_by_input() {
        let task = |input: &str, output: &str| Task {
            input: input.into(),
            source: Source::File(input.into()),
            from: Format::Glb,
            to: Format::Msh,
            output: output.into(),
            folder: None,
        };
        let mut plan = Plan {
            tasks: vec![
                task("m/tank.gltf", "o/tank.msh"),
                task("m/tank.glb", "o/tank.msh"),
                task("m/tank.glb", "o/tank.msh"),
                task("m/gate.glb", "o/gate.msh"),
            ],
            decided: Vec::new(),
        };
        let tasks = order_and_check(&mut plan);
        let inputs: Vec<&str> = tasks.iter().map(|t| t.input.as_str()).collect();
        assert_eq!(inputs, ["m/gate.glb", "m/tank.glb"]);
        assert_eq!(plan.decided.len(), 1);
        assert_eq!(plan.decided[0].input, "m/tank.gltf");
        assert_eq!(plan.decided[0].code.as_deref(), Some("output.conflict"));
    }
}
