//! A batch: many conversions in parallel (`mshconv batch INPUT... --to F --out DIR`).
//!
//! The run has three steps:
//! 1. **Plan** ([`plan`], one thread): check the request, walk the folders,
//!    read the archives' directories, name every output, and decide what is
//!    skipped or cannot be converted at all (a damaged archive, two inputs
//!    with one output). A front end shows the plan's size before the run.
//! 2. **Convert** ([`run`], `jobs` threads, the calling thread one of them):
//!    each worker takes the next task (the largest inputs first) from a shared
//!    counter, converts it in memory, writes the output under a temporary name
//!    and renames it. Results go to the calling thread over a channel.
//! 3. **Sum up**: the looks brought back and the `--into` archive written as
//!    one transaction (or, with `dry_run`, listed), the records sorted by
//!    input, the totals ([`Outcome`]).
//!
//! A front end sees what happens as it happens through a [`Tell`] (the
//! failures, skips and notes as they come, each task's end, a lock's wait)
//! and turns the [`Outcome`] into its exit code and report. A set `stop`
//! flag (SIGINT) makes the workers take no new task: the run sums up what
//! was done. A file is either written whole under its name or not at all.

pub mod files;
pub mod filter;
mod into;
mod look;
mod plan;
pub mod report;
mod unwritten;
mod work;
mod write;

pub use filter::{BadGlob, Filter};
pub use into::{edited, HOW_TO_ADD};
pub use report::{summarize, summary_line, Record, Report, Status, Summary};
pub use write::backup_notes;

use crate::codes::ErrorCode;
use crate::look_import::advice::GameDirAdvice;
use crate::{Error, Format, GameDir, Options};
use mshconv_convert::Note;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What a batch tells as it runs, in the order it happens (a front end prints
/// it, or counts it).
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A lock's wait, or an interrupted run finished (told by any worker).
    Lock(crate::txn::Event<'a>),
    /// An input failed: its code and why.
    Failed {
        /// The input (a path, or `ARCHIVE:ENTRY`).
        input: &'a str,
        /// The stable code.
        code: &'a str,
        /// Why, for a person.
        message: &'a str,
    },
    /// An input was skipped while planning: its code and why.
    Skipped {
        /// The input.
        input: &'a str,
        /// The stable code.
        code: &'a str,
        /// Why, for a person.
        message: &'a str,
    },
    /// A note about an input (`about`), or about the run (a library's backup).
    Note {
        /// The input the note is about.
        about: Option<&'a str>,
        /// The note.
        note: &'a Note,
    },
    /// A task ended (after its failure or notes were told).
    Done,
}

/// Where a batch tells its [`Event`]s; called from the workers too.
pub type Tell<'t> = &'t (dyn Fn(Event<'_>) + Sync);

/// What a front end asks of a batch.
#[derive(Debug)]
pub struct Request<'a> {
    /// The inputs: files, folders, archives, `ARCHIVE:ENTRY`.
    pub inputs: &'a [PathBuf],
    /// The output format.
    pub to: Format,
    /// The output folder (`None`: the current folder; with `into`, none is written).
    pub out: Option<&'a Path>,
    /// Put the converted models into this archive instead.
    pub into: Option<&'a Path>,
    /// With `into`: add the entries the archive lacks.
    pub add: bool,
    /// Take only the paths matching one of these patterns ([`Filter`]).
    pub include: &'a [String],
    /// Leave out the paths matching one of these patterns.
    pub exclude: &'a [String],
    /// Where the JSON report goes, checked before any conversion.
    pub report: Option<&'a Path>,
    /// Convert and list, write nothing.
    pub dry_run: bool,
    /// The conversion's options.
    pub options: &'a Options,
    /// The game folder (`--game-dir`): the looks go back into it.
    pub game_dir: Option<Arc<GameDir>>,
    /// Make the game folder's libraries when it has none.
    pub new_libraries: bool,
    /// How the front end says to give the game folder (`look.not_written`).
    pub advice: &'a dyn GameDirAdvice,
    /// When the batch started (the summary's time).
    pub started: Instant,
}

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

/// The game folder of a batch, decided before the tasks run and handed to
/// each of them.
#[derive(Debug, Default)]
struct Game {
    /// The game folder of `--game-dir` (its libraries shared by every task);
    /// `None` without one.
    dir: Option<Arc<GameDir>>,
    /// Without `--game-dir`, with `--to msh`: the game folder the outputs lie
    /// in (`look_import::find_game_dir`), `None` when there is none.
    found: Option<PathBuf>,
}

/// What the planning step found: the tasks to run and the inputs decided
/// already (skipped, or failed before any conversion).
#[derive(Debug, Default)]
pub struct Plan {
    tasks: Vec<Task>,
    decided: Vec<Record>,
    game: Game,
}

impl Plan {
    /// How many conversions the run does.
    pub fn tasks(&self) -> usize {
        self.tasks.len()
    }

    /// The inputs decided while planning.
    pub fn decided(&self) -> &[Record] {
        &self.decided
    }
}

/// How a batch ended.
#[derive(Debug)]
pub struct Outcome {
    /// A record per input, sorted by input, with every note.
    pub records: Vec<Record>,
    /// The totals.
    pub summary: Summary,
    /// With `dry_run`: what the run would write, a line each (the models'
    /// files or archive entries, then the look's libraries, WEARs and
    /// library entries).
    pub listing: Option<String>,
}

impl Outcome {
    /// Whether the `stop` flag ended the run early.
    pub fn interrupted(&self) -> bool {
        self.summary.interrupted
    }

    /// The JSON report (`--report`).
    pub fn report_json(&self) -> Result<Vec<u8>, Error> {
        Report {
            summary: &self.summary,
            files: &self.records,
        }
        .json()
    }
}

/// Checks a batch's request and plans it: everything a wrong option or a
/// typo costs is found here, before any conversion (the game folder's
/// libraries, the filter, the inputs, the report's place, the `into`
/// archive, the put rule of each of its entries). Creates OUT (unless
/// `dry_run`).
pub fn plan(request: &Request<'_>, tell: Tell<'_>) -> Result<Plan, Error> {
    let to = request.to;
    let mut game = Game {
        dir: request.game_dir.clone(),
        found: None,
    };
    if let Some(dir) = &game.dir {
        if to == Format::Msh {
            // Checked before any conversion: a wrong folder costs nothing.
            crate::look_import::check_libraries(dir.dir(), request.new_libraries)?;
        }
    }
    let filter =
        Filter::new(request.include, request.exclude).map_err(|e| Error::bad_option(e.0))?;
    for input in request.inputs {
        if plan::archive_entry(input).is_none() {
            std::fs::metadata(input)
                .map_err(|e| Error::io(format!("cannot read {}", input.display()), &e))?;
        }
    }
    if let Some(report) = request.report {
        check_report_path(report)?;
    }
    if let Some(archive) = request.into {
        into::check_into(archive, to, tell)?;
    }
    let out = request.out.map(Path::to_path_buf).unwrap_or_default();
    if game.dir.is_none() && to == Format::Msh {
        // Without --game-dir: the game folder the outputs lie in, if any.
        let place = request
            .into
            .map_or_else(|| out.join("model.msh"), Path::to_path_buf);
        game.found = crate::look_import::find_game_dir(&place);
    }
    // Folders are walked without entering OUT (it may lie inside an input folder).
    let out_dir = match request.out {
        // A dry run creates nothing: OUT is only left out of the walk when it is there.
        Some(dir) if request.dry_run => std::fs::canonicalize(dir).ok(),
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("cannot create {}", dir.display()), &e))?;
            Some(
                std::fs::canonicalize(dir)
                    .map_err(|e| Error::io(format!("cannot read {}", dir.display()), &e))?,
            )
        }
        None => None,
    };
    let mut plan = Plan {
        game,
        ..Plan::default()
    };
    for input in request.inputs {
        plan::plan_input(
            input,
            to,
            &out,
            out_dir.as_deref(),
            &filter,
            &mut plan,
            tell,
        );
    }
    if let Some(archive) = request.into {
        into::into_entries(&mut plan, archive, request.add, tell)?;
    }
    let mut tasks = plan::order_and_check(&mut plan);
    for task in &mut tasks {
        task.dry_run = request.dry_run;
    }
    plan.tasks = tasks;
    Ok(plan)
}

/// Runs a plan on `jobs` threads (the decided inputs told first, then each
/// task's end as it comes), then brings the looks back and writes the
/// `into` archive (or lists it all with `dry_run`). A set `stop` leaves the
/// tasks not started `run.interrupted`. The error is the dry run's only: its
/// `into` archive could not be read for the listing.
pub fn run(
    request: &Request<'_>,
    plan: Plan,
    jobs: usize,
    stop: &AtomicBool,
    tell: Tell<'_>,
) -> Result<Outcome, Error> {
    let Plan {
        tasks,
        decided,
        game,
    } = plan;
    for record in &decided {
        tell_decided(record, tell);
    }
    let done = work::run_tasks(&tasks, request.options, &game, jobs, stop, tell, |record| {
        tell_record(record, tell);
        tell(Event::Done);
    });

    let interrupted = stop.load(Ordering::SeqCst);
    let mut records = decided;
    for (task, record) in tasks.iter().zip(done) {
        records.push(record.unwrap_or_else(|| {
            Record::skipped(
                &task.input,
                ErrorCode::RunInterrupted.code(),
                "not converted: the batch was interrupted",
            )
        }));
    }
    records.sort_by(|a, b| (&a.input, &a.output).cmp(&(&b.input, &b.output)));
    let into = request.into;
    if let Some(archive) = into {
        into::note_losses(archive, &mut records, tell);
    }
    // Without --game-dir, in a game folder: the looks that are not written.
    if let Some(dir) = &game.found {
        unwritten::note(dir, &mut records, into, request.advice, tell);
    }
    // With --game-dir, the looks of the models going back to MSH; with
    // --into, the archive: one transaction (or, with --dry-run, a listing).
    let game = game.dir.as_deref().filter(|_| request.to == Format::Msh);
    let listing = if request.dry_run {
        let mut listing = Vec::new();
        let wears: Vec<(String, Vec<u8>)> = match game {
            Some(game) => look::bring_back(game, &mut records, into, Some(&mut listing), tell)
                .wears
                .into_iter()
                .filter(|_| into.is_some())
                .map(|(_, _, name, wear)| (name, wear))
                .collect(),
            None => Vec::new(),
        };
        Some(dry_run_listing(&records, into, &wears, listing, tell)?)
    } else {
        write::write(game, &mut records, into, tell);
        None
    };
    let summary = summarize(&records, request.to, request.started, interrupted);
    Ok(Outcome {
        records,
        summary,
        listing,
    })
}

/// Tells a record decided while planning: its failure, or why it was skipped.
fn tell_decided(record: &Record, tell: Tell<'_>) {
    let code = record.code.as_deref().unwrap_or("");
    let message = record.message.as_deref().unwrap_or("");
    match record.status {
        Status::Failed => tell_failed(record, tell),
        Status::Skipped => tell(Event::Skipped {
            input: &record.input,
            code: if code.is_empty() { "skipped" } else { code },
            message,
        }),
        Status::Converted => {}
    }
}

/// Tells a task's record: its failure, or its notes.
fn tell_record(record: &Record, tell: Tell<'_>) {
    if record.status == Status::Failed {
        tell_failed(record, tell);
    } else {
        for note in &record.notes {
            tell_note(&record.input, note, tell);
        }
    }
}

/// Tells a record's failure (`internal` when it has no code).
fn tell_failed(record: &Record, tell: Tell<'_>) {
    tell(Event::Failed {
        input: &record.input,
        code: record.code.as_deref().unwrap_or(ErrorCode::Internal.code()),
        message: record.message.as_deref().unwrap_or(""),
    });
}

/// Tells a note about `input`.
fn tell_note(input: &str, note: &Note, tell: Tell<'_>) {
    tell(Event::Note {
        about: Some(input),
        note,
    });
}

/// `dry_run`: what the run would write: each converted model's files (or
/// archive entry), then the look's libraries and WEARs (`look_lines`, the
/// WEAR entries `wears` with `into`) and library entries.
fn dry_run_listing(
    records: &[Record],
    into: Option<&Path>,
    wears: &[(String, Vec<u8>)],
    look_lines: Vec<String>,
    tell: Tell<'_>,
) -> Result<String, Error> {
    let mut text = String::new();
    // With --into: what each put would do (the put rule refused, while
    // planning, every entry the archive lacks without --add).
    let directory = into.map(|a| files::read_directory(a, tell)).transpose()?;
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
    Ok(text)
}

/// The report goes into an existing folder and is not a folder itself; checked
/// before any conversion, so a typo does not cost a whole batch.
fn check_report_path(path: &Path) -> Result<(), Error> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let meta = std::fs::metadata(parent)
        .map_err(|e| Error::io(format!("cannot write the report {}", path.display()), &e))?;
    if !meta.is_dir() || path.is_dir() {
        return Err(Error::new(
            crate::Kind::Io,
            ErrorCode::IoNotADirectory,
            format!(
                "cannot write the report {}: not a file in a folder",
                path.display()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
