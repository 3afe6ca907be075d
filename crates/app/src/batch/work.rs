//! The conversion step: tasks on `--jobs` threads, each converted in memory
//! and written under a temporary name.

use super::files::{read_file, read_range, write_atomically, write_side};
use super::report::{Record, Status};
use super::{Game, Source, Task, Tell};
use crate::names::model_name;
use crate::{Error, Folder, Names, NoResources, Options};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

/// Runs the tasks on `jobs` threads; `on_done` sees each record as it arrives
/// (on the calling thread). The result holds a record per task, `None` for a
/// task not started because `stop` was set.
///
/// The calling thread is one of the workers: it takes tasks like the others and
/// between two of its own hands on what the others sent. So it is rarely
/// parked on the channel, and a worker's send rarely has to wake it (a wake-up
/// cost as much as a small conversion; with one job no thread is spawned).
pub(super) fn run_tasks(
    tasks: &[Task],
    options: &Options,
    game: &Game,
    jobs: usize,
    stop: &AtomicBool,
    tell: Tell<'_>,
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
                    if sender
                        .send((i, run_task(task, options, game, tell)))
                        .is_err()
                    {
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
            record((i, run_task(task, options, game, tell)));
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
fn run_task(task: &Task, options: &Options, game: &Game, tell: Tell<'_>) -> Record {
    let started = Instant::now();
    let mut record = Record::new(&task.input, Status::Converted);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        convert_task(task, options, game, &mut record, tell)
    }));
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            record.status = Status::Failed;
            record.code = Some(e.code().to_string());
            record.message = Some(e.message().to_string());
            record.output = None;
        }
        Err(_) => {
            record.status = Status::Failed;
            record.code = Some(crate::ErrorCode::Internal.code().to_string());
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

fn convert_task(
    task: &Task,
    options: &Options,
    game: &Game,
    record: &mut Record,
    tell: Tell<'_>,
) -> Result<(), Error> {
    let read;
    let bytes: &[u8] = match &task.source {
        Source::File(path) => {
            read = read_file(path, tell)?;
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
        Source::File(path) => crate::input_format(None, Some(path), bytes)?.0,
        Source::Entry { .. } => task.from,
    };
    let folder = task.folder.as_deref().map(Folder::new);
    let resources: &dyn crate::Resources = match &folder {
        Some(folder) => folder,
        None => &NoResources,
    };
    // With --game-dir: the model's look (the libraries are shared by every task).
    let game_resources;
    let resources: &dyn crate::Resources = match &game.dir {
        Some(dir) => {
            let at = match &task.source {
                Source::File(path) => crate::ModelLocation::File(path.clone()),
                Source::Entry { archive, .. } => crate::ModelLocation::Entry {
                    archive: archive.to_path_buf(),
                    entry: task
                        .input
                        .rsplit_once(':')
                        .map_or_else(String::new, |(_, e)| e.to_string()),
                },
            };
            game_resources = crate::GameResources {
                inner: resources,
                game: Arc::clone(dir),
                at,
            };
            &game_resources
        }
        None => resources,
    };
    let names = Names {
        model: model_name(&task.input),
        file: model_name(&task.output.to_string_lossy()),
    };
    // Into an archive: the entry replaced is a glTF's original.
    let with_original;
    let options = match task.entry.is_some() && from != crate::Format::Msh {
        true => {
            with_original = options
                .clone()
                .or_original(|| super::into::replaced_entry(task));
            &with_original
        }
        false => options,
    };
    // With --game-dir, a model going back to MSH brings its look (planned
    // and written by the main thread once every task is done: batch::look);
    // without it, when the outputs lie in a game folder, the look is read
    // to say whether it differs from the folder's (batch::unwritten). The
    // model and its look come from one parse of the input.
    let output = if (game.dir.is_some() || game.found.is_some())
        && task.to == crate::Format::Msh
        && crate::look_import::brings_look(from)
    {
        let (output, look, notes) =
            crate::convert_bringing_look(bytes, from, options, &names, resources)?;
        record.look = Some(Box::new(look));
        record.notes.extend(notes.notes);
        output
    } else {
        crate::convert(bytes, (from, task.to), options, &names, resources)?
    };
    // Into an archive, the main thread puts it there once every task is done;
    // a model whose look goes back with it is written in the look's
    // transaction, after its WEAR (batch::write), or not at all when the run
    // is refused.
    let held = record.look.is_some()
        && game.dir.is_some()
        && task.to == crate::Format::Msh
        && !task.dry_run;
    if task.entry.is_some() || held {
        let main = output.files.into_iter().next().map(|f| f.bytes);
        record.output = Some(task.output.display().to_string());
        record.bytes_out = main.as_ref().map_or(0, |b| b.len() as u64);
        record.payload = main;
        record.notes.splice(0..0, output.report.notes);
        return Ok(());
    }
    if task.dry_run {
        // Listed, not written: the .mtl (or PNGs) first, as they would be.
        for side in &output.files[1..] {
            let path = task.output.with_file_name(&side.name);
            record
                .would_write
                .push((path.display().to_string(), side.bytes.len()));
        }
        let main = output.main();
        record
            .would_write
            .push((task.output.display().to_string(), main.bytes.len()));
        record.output = Some(task.output.display().to_string());
        record.bytes_out = output.len();
        record.notes.splice(0..0, output.report.notes);
        return Ok(());
    }
    if let Some(parent) = task.output.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::io(format!("cannot create {}", parent.display()), &e))?;
    }
    // The .mtl first: a model is complete once its .obj is there.
    for side in &output.files[1..] {
        write_side(&task.output.with_file_name(&side.name), &side.bytes, tell)?;
    }
    write_atomically(&task.output, &output.main().bytes, tell)?;
    record.output = Some(task.output.display().to_string());
    record.bytes_out = output.len();
    record.notes.splice(0..0, output.report.notes);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;
    use std::path::PathBuf;

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
            entry: None,
            dry_run: false,
        };
        let tasks = [task("a", 10), task("b", 300), task("c", 10), task("d", 20)];
        let mut seen = Vec::new();
        let stop = AtomicBool::new(false);
        let results = run_tasks(
            &tasks,
            &Options::default(),
            &Game::default(),
            1,
            &stop,
            &|_| {},
            |r| seen.push(r.input.clone()),
        );
        assert_eq!(seen, ["b", "d", "a", "c"]);
        // The results stay in task order.
        let inputs: Vec<_> = results.iter().flatten().map(|r| r.input.as_str()).collect();
        assert_eq!(inputs, ["a", "b", "c", "d"]);
    }
}
