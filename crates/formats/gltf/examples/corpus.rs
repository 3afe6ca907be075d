//! In-memory conversion time of a whole folder, without file-system costs: the
//! CPU side of `bench/run.sh`'s batch numbers, and the thing to profile.
//!
//! Reads every `.msh` under `<folder>` (and every `.msh` entry of its `.rlb`
//! archives) into memory, then converts all of them `<rounds>` times to GLB
//! (`glb`), or their GLB exports back to MSH (`msh`), on one thread, and prints
//! the input MiB, seconds of the best round and MiB/s.
//!
//! `cargo run --release -p mshconv-gltf --example corpus -- glb corpus/ 5`
use std::path::Path;
use std::time::Instant;

fn collect(dir: &Path, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if path.is_dir() {
            collect(&path, out);
        } else if ext.as_deref() == Some("msh") {
            out.extend(std::fs::read(&path).ok());
        } else if ext.as_deref() == Some("rlb") {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let Ok(archive) = nres::Archive::parse(&bytes) else {
                continue;
            };
            for entry in archive.entries() {
                if entry.name().to_ascii_lowercase().ends_with(".msh") {
                    out.push(entry.data().to_vec());
                }
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(direction), Some(folder), rounds) = (
        args.get(1),
        args.get(2),
        args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3usize),
    ) else {
        eprintln!("usage: corpus glb|msh <folder> [rounds]");
        std::process::exit(2);
    };
    let mut models = Vec::new();
    collect(Path::new(folder), &mut models);
    let export = mshconv_gltf::ExportOptions::default();
    let import = mshconv_gltf::ImportOptions::default();
    let resolver = |_: &str| -> Option<Vec<u8>> { None };
    // The inputs of the measured direction: the models themselves, or their GLBs.
    let inputs: Vec<Vec<u8>> = match direction.as_str() {
        "glb" => models
            .into_iter()
            .filter(|m| mshconv_gltf::msh_to_gltf(m, &export).is_ok())
            .collect(),
        "msh" => models
            .iter()
            .filter_map(|m| mshconv_gltf::msh_to_gltf(m, &export).ok())
            .map(|(glb, _)| glb)
            .collect(),
        _ => {
            eprintln!("direction must be glb or msh");
            std::process::exit(2);
        }
    };
    let bytes: usize = inputs.iter().map(Vec::len).sum();
    let mut best = f64::INFINITY;
    let mut out_bytes = 0usize;
    for _ in 0..rounds {
        let start = Instant::now();
        out_bytes = 0;
        for input in &inputs {
            out_bytes += match direction.as_str() {
                "glb" => mshconv_gltf::msh_to_gltf(input, &export).map(|(o, _)| o.len()),
                _ => mshconv_gltf::gltf_to_msh(input, &import, &resolver).map(|(o, _)| o.len()),
            }
            .unwrap_or(0);
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let mib = bytes as f64 / (1024.0 * 1024.0);
    println!(
        "{} inputs, {mib:.1} MiB in, {:.1} MiB out; best of {rounds}: {best:.3} s, {:.1} MiB/s",
        inputs.len(),
        out_bytes as f64 / (1024.0 * 1024.0),
        mib / best
    );
}
