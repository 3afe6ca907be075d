//! Conversion speed on the smallest, a typical and the largest committed
//! fixture model: parse + validate, MSH -> GLB, GLB -> MSH, MSH -> OBJ, OBJ -> MSH.
//! Run: `cargo bench -p mshconv-app --bench convert` (results in target/criterion/).

#![allow(missing_docs)] // criterion_group! generates an undocumented function.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::path::Path;

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small/models");
    let mut models: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "msh"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .filter(|(_, b)| {
            msh::open(b, msh::Mode::Strict)
                .is_ok_and(|o| o.view.kind == Some(msh::ModelKind::Standard))
        })
        .collect();
    models.sort_by_key(|(_, b)| b.len());
    let (small, large) = (models[0].clone(), models[models.len() - 1].clone());
    let typical = models[models.len() / 2].clone();
    vec![
        (format!("small/{}", small.0), small.1),
        (format!("typical/{}", typical.0), typical.1),
        (format!("largest/{}", large.0), large.1),
    ]
}

fn bench(c: &mut Criterion) {
    let none = |_: &str| -> Option<Vec<u8>> { None };
    for (name, bytes) in fixtures() {
        let (glb, _) = mshconv_gltf::msh_to_gltf(&bytes, &Default::default()).unwrap();
        let (obj, _) = mshconv_obj::msh_to_obj(&bytes, &Default::default()).unwrap();
        let mut g = c.benchmark_group("convert");
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new("parse_validate", &name), &bytes, |b, m| {
            b.iter(|| msh::open(m, msh::Mode::Strict).unwrap().view.nodes.len())
        });
        g.bench_with_input(BenchmarkId::new("msh_to_glb", &name), &bytes, |b, m| {
            b.iter(|| {
                mshconv_gltf::msh_to_gltf(m, &Default::default())
                    .unwrap()
                    .0
                    .len()
            })
        });
        g.bench_with_input(BenchmarkId::new("glb_to_msh", &name), &glb, |b, m| {
            b.iter(|| {
                mshconv_gltf::gltf_to_msh(m, &Default::default(), &none)
                    .unwrap()
                    .0
                    .len()
            })
        });
        g.bench_with_input(BenchmarkId::new("msh_to_obj", &name), &bytes, |b, m| {
            b.iter(|| {
                mshconv_obj::msh_to_obj(m, &Default::default())
                    .unwrap()
                    .0
                    .obj
                    .len()
            })
        });
        g.bench_with_input(BenchmarkId::new("obj_to_msh", &name), &obj.obj, |b, m| {
            b.iter(|| {
                mshconv_obj::obj_to_msh(m, None, &Default::default())
                    .unwrap()
                    .0
                    .len()
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
