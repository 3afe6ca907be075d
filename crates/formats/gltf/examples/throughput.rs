//! In-process conversion rate of one file, the reference for the service
//! benchmark (bench/run.sh): converts `<file>` to GLB on `<threads>` threads for
//! `<seconds>` seconds and prints conversions per second.
//!
//! `cargo run --release -p mshconv-gltf --example throughput -- model.msh 2 10`
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), threads, seconds) = (
        args.get(1),
        args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1usize),
        args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5u64),
    ) else {
        eprintln!("usage: throughput <file.msh> [threads] [seconds]");
        std::process::exit(2);
    };
    let bytes = std::fs::read(path).expect("read the input");
    let options = mshconv_gltf::ExportOptions::default();
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let (glb, _) = mshconv_gltf::msh_to_gltf(&bytes, &options).expect("export");
                    std::hint::black_box(glb);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        std::thread::sleep(Duration::from_secs(seconds));
        stop.store(true, Ordering::Relaxed);
    });
    let elapsed = start.elapsed().as_secs_f64();
    let n = done.load(Ordering::Relaxed);
    println!("{:.1}", n as f64 / elapsed);
}
