//! The file-system work of `mshconv batch` with the conversion taken out: every
//! input read into memory (`std::fs::read`, as `batch` reads), every output
//! written as `batch` writes it (a temporary file in the destination folder,
//! one `write_all`, a rename), on `<jobs>` threads. What is left of a batch's
//! time budget after this is what the conversion may spend: `bench/run.sh`
//! puts the two side by side.
//!
//! The outputs are the files of a finished batch (`<outputs>`), loaded into
//! memory before the clock starts; `<dest>` is emptied before every round.
//!
//! `cargo run --release -p mshconv --example io_floor -- CORPUS GLB_FOLDER DEST 2 5`
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Every file under `dir`, relative to `root`, in a stable order.
fn files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files(root, &path, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_path_buf());
        }
    }
}

/// One round: inputs read and outputs written, file `i` by thread `i % jobs`.
/// Returns the bytes read (so the reads cannot be left out).
fn round(inputs: &[PathBuf], outputs: &[(PathBuf, Vec<u8>)], dest: &Path, jobs: usize) -> u64 {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|j| {
                scope.spawn(move || {
                    let mut read = 0u64;
                    for path in inputs.iter().skip(j).step_by(jobs) {
                        read += std::fs::read(path).map_or(0, |b| b.len() as u64);
                    }
                    for (rel, bytes) in outputs.iter().skip(j).step_by(jobs) {
                        let path = dest.join(rel);
                        let dir = path.parent().unwrap_or(dest);
                        if std::fs::create_dir_all(dir).is_err() {
                            continue;
                        }
                        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                        let tmp = dir.join(format!(".{}.tmp", name.unwrap_or_default()));
                        let written = std::fs::File::create(&tmp)
                            .and_then(|mut f| f.write_all(bytes))
                            .and_then(|()| std::fs::rename(&tmp, &path));
                        if let Err(e) = written {
                            eprintln!("io_floor: {}: {e}", path.display());
                        }
                    }
                    read
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(input_dir), Some(output_dir), Some(dest)) = (args.get(1), args.get(2), args.get(3))
    else {
        eprintln!("usage: io_floor <inputs> <outputs> <dest> [jobs] [rounds]");
        std::process::exit(2);
    };
    let jobs = args
        .get(4)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2usize)
        .max(1);
    let rounds = args
        .get(5)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3usize)
        .max(1);
    let (input_dir, output_dir, dest) =
        (Path::new(input_dir), Path::new(output_dir), Path::new(dest));
    let mut inputs = Vec::new();
    files(input_dir, input_dir, &mut inputs);
    let inputs: Vec<PathBuf> = inputs.into_iter().map(|p| input_dir.join(p)).collect();
    let mut names = Vec::new();
    files(output_dir, output_dir, &mut names);
    let outputs: Vec<(PathBuf, Vec<u8>)> = names
        .into_iter()
        .filter_map(|rel| Some((rel.clone(), std::fs::read(output_dir.join(&rel)).ok()?)))
        .collect();
    let written: usize = outputs.iter().map(|(_, b)| b.len()).sum();
    let mut best = f64::INFINITY;
    let mut read = 0;
    for _ in 0..rounds {
        let _ = std::fs::remove_dir_all(dest);
        let start = Instant::now();
        read = round(&inputs, &outputs, dest, jobs);
        best = best.min(start.elapsed().as_secs_f64());
    }
    let _ = std::fs::remove_dir_all(dest);
    let mib = |b: f64| b / 1_048_576.0;
    println!(
        "{} inputs read ({:.1} MiB), {} outputs written ({:.1} MiB), {jobs} thread(s); best of {rounds}: {best:.3} s",
        inputs.len(),
        mib(read as f64),
        outputs.len(),
        mib(written as f64),
    );
}
