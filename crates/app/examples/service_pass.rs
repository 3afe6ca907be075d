//! One pass of the service's conversions in process, for `bench/icount.sh`'s
//! instruction counts: every `.msh` file directly in `<folder>` (sorted by
//! name) converted to GLB through [`mshconv_app::convert`], the entry point a
//! service job runs for `POST /v1/convert?to=glb`, and that GLB back to MSH
//! the same way (`?to=msh`), with default options and no resources, on one
//! thread. No HTTP, no zip: what the job itself costs.
//!
//! Prints the model count and the bytes written; exits 1 when a conversion
//! fails (the pass measures working conversions only).
//!
//! `cargo run --release -p mshconv-app --example service_pass -- models/`
use mshconv_app::{convert, Format, GivenMtl, Names, Options};
use std::path::PathBuf;

fn main() {
    let Some(folder) = std::env::args().nth(1) else {
        eprintln!("usage: service_pass <folder of .msh files>");
        std::process::exit(2);
    };
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&folder) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("msh")))
            .collect(),
        Err(e) => {
            eprintln!("service_pass: cannot read {folder}: {e}");
            std::process::exit(2);
        }
    };
    paths.sort();
    let options = Options::default();
    let none = GivenMtl(None);
    let (mut glb_bytes, mut msh_bytes) = (0u64, 0u64);
    for path in &paths {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let names = Names::same(stem.as_deref().unwrap_or("model"));
        let pass = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|msh| {
                let glb = convert(&msh, (Format::Msh, Format::Glb), &options, &names, &none)
                    .map_err(|e| e.to_string())?;
                let back = convert(
                    &glb.main().bytes,
                    (Format::Glb, Format::Msh),
                    &options,
                    &names,
                    &none,
                )
                .map_err(|e| e.to_string())?;
                Ok((glb.len(), back.len()))
            });
        match pass {
            Ok((glb, msh)) => {
                glb_bytes += glb;
                msh_bytes += msh;
            }
            Err(e) => {
                eprintln!("service_pass: {}: {e}", path.display());
                std::process::exit(1);
            }
        }
    }
    println!(
        "{} models: {glb_bytes} bytes of GLB, {msh_bytes} bytes of MSH back",
        paths.len()
    );
}
