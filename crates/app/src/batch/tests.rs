//! The batch API as a front end uses it: the plan, the events, the outcome.

use super::*;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// How these tests word the game folder's advice (never asked for here).
#[derive(Debug)]
struct NoAdvice;

impl GameDirAdvice for NoAdvice {
    fn option(&self) -> String {
        "game_dir".to_string()
    }

    fn command(&self, dir: &str) -> String {
        format!("again with {dir}")
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small")
}

/// A folder of inputs: three models, an archive of models, and a text file.
fn inputs(dir: &Path) -> PathBuf {
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    for (from, to) in [
        ("models/m037_gate.msh", "m037_gate.msh"),
        ("models/m145_barrel.msh", "sub/m145_barrel.msh"),
        ("models/m127_tank.msh", "m127_tank.msh"),
        ("archives/small.rlb", "small.rlb"),
    ] {
        std::fs::copy(fixtures().join(from), input.join(to)).unwrap();
    }
    std::fs::write(input.join("readme.txt"), "not a model").unwrap();
    input
}

fn request<'a>(
    inputs: &'a [PathBuf],
    out: &'a Path,
    options: &'a Options,
    dry_run: bool,
) -> Request<'a> {
    Request {
        inputs,
        to: Format::Obj,
        out: Some(out),
        into: None,
        add: false,
        include: &[],
        exclude: &[],
        report: None,
        dry_run,
        options,
        game_dir: None,
        new_libraries: false,
        advice: &NoAdvice,
        started: Instant::now(),
    }
}

/// Every file under `dir`, by its path, with its size.
fn written(dir: &Path, found: &mut BTreeMap<String, u64>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            written(&path, found);
        } else {
            let len = std::fs::metadata(&path).unwrap().len();
            found.insert(path.display().to_string(), len);
        }
    }
}

/// The listing's `would write PATH (N bytes)` lines, by path.
fn listed(listing: &str) -> BTreeMap<String, u64> {
    listing
        .lines()
        .map(|line| {
            let rest = line.strip_prefix("would write ").expect(line);
            let (path, size) = rest.rsplit_once(" (").expect(line);
            let size = size.strip_suffix(" bytes)").expect(line);
            (path.to_string(), size.parse().unwrap())
        })
        .collect()
}

#[test]
fn a_dry_run_lists_exactly_the_files_the_run_writes() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [inputs(dir.path())];
    let out = dir.path().join("out");
    let options = Options::default();
    let quiet = &|_: Event<'_>| {};

    let dry = request(&inputs, &out, &options, true);
    let plan_dry = plan(&dry, quiet).unwrap();
    let outcome = run(&dry, plan_dry, 2, &AtomicBool::new(false), quiet).unwrap();
    assert!(!out.exists(), "a dry run creates nothing");
    let listing = listed(outcome.listing.as_deref().unwrap());

    let wet = request(&inputs, &out, &options, false);
    let plan_wet = plan(&wet, quiet).unwrap();
    let done = run(&wet, plan_wet, 2, &AtomicBool::new(false), quiet).unwrap();
    assert!(done.listing.is_none());
    let mut files = BTreeMap::new();
    written(&out, &mut files);

    assert!(
        files.len() > 6,
        "models, their .mtl files, the archive's: {files:?}"
    );
    assert_eq!(listing, files);
    assert_eq!(outcome.summary.converted, done.summary.converted);
}

#[test]
fn the_plan_decides_skips_and_the_run_tells_each_task_once() {
    let dir = tempfile::tempdir().unwrap();
    let folder = inputs(dir.path());
    let inputs = [folder.clone(), folder.join("readme.txt")];
    let out = dir.path().join("out");
    let options = Options::default();
    let events = Mutex::new(Vec::new());
    let tell = |event: Event<'_>| {
        let line = match event {
            Event::Skipped { input, code, .. } => format!("skip {code} {input}"),
            Event::Failed { input, code, .. } => format!("fail {code} {input}"),
            Event::Done => "done".to_string(),
            Event::Note { .. } | Event::Lock(_) => return,
        };
        events.lock().unwrap().push(line);
    };
    let request = request(&inputs, &out, &options, false);
    let plan = plan(&request, &tell).unwrap();
    let tasks = plan.tasks();
    // The folder's text file is not a candidate; named alone, it is skipped.
    assert_eq!(plan.decided().len(), 1);
    assert_eq!(
        plan.decided()[0].code.as_deref(),
        Some(ErrorCode::InputNotConvertible.code())
    );
    assert!(events.lock().unwrap().is_empty(), "planning tells no input");

    let outcome = run(&request, plan, 3, &AtomicBool::new(false), &tell).unwrap();
    let events = events.into_inner().unwrap();
    assert_eq!(events.iter().filter(|e| *e == "done").count(), tasks);
    assert!(
        events[0].starts_with("skip input.not_convertible "),
        "{events:?}"
    );
    assert_eq!(outcome.records.len(), tasks + 1);
    assert_eq!(outcome.summary.converted, tasks);
    let inputs: Vec<&str> = outcome.records.iter().map(|r| r.input.as_str()).collect();
    let mut sorted = inputs.clone();
    sorted.sort_unstable();
    assert_eq!(inputs, sorted, "the records are sorted by input");
}

#[test]
fn a_run_stopped_before_it_starts_converts_nothing_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [inputs(dir.path())];
    let out = dir.path().join("out");
    let options = Options::default();
    let quiet = &|_: Event<'_>| {};
    let request = request(&inputs, &out, &options, false);
    let plan = plan(&request, quiet).unwrap();
    let tasks = plan.tasks();
    let outcome = run(&request, plan, 2, &AtomicBool::new(true), quiet).unwrap();
    assert!(outcome.interrupted());
    assert_eq!(outcome.summary.skipped, tasks);
    assert!(outcome
        .records
        .iter()
        .all(|r| r.code.as_deref() == Some(ErrorCode::RunInterrupted.code())));
    let mut files = BTreeMap::new();
    written(&out, &mut files);
    assert!(files.is_empty(), "{files:?}");
    let json: serde_json::Value = serde_json::from_slice(&outcome.report_json().unwrap()).unwrap();
    assert_eq!(json["summary"]["interrupted"], true);
}
