//! The measurements behind the crate choices in docs/OBJ.md: `obj-exporter`
//! against the plain writer, `tobj` against the plain parser, on a corpus of
//! models. Not part of the normal test run:
//!
//! ```sh
//! cargo run -p mshconv-fixtures --release -- full --out /tmp/corpus   # 435 models
//! MSHCONV_CORPUS=/tmp/corpus/models cargo test -p mshconv-obj --release --lib \
//!     obj::bench -- --ignored --nocapture --test-threads 1
//! ```
//!
//! Without `MSHCONV_CORPUS` the committed `fixtures/small/models` are used.

use super::export::{pose, write_obj, ObjMesh};
use super::import::to_scene;
use super::{ObjExportOptions, ObjImportOptions};
use crate::names;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn corpus() -> Vec<(String, Vec<ObjMesh>)> {
    let dir = std::env::var_os("MSHCONV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../fixtures/small/models")
        });
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "msh"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            let posed = pose(&bytes, &ObjExportOptions::default()).ok()?;
            Some((p.display().to_string(), posed.meshes))
        })
        .collect()
}

/// The same objects as `obj-exporter`'s data model (one `Geometry` per material run).
fn to_obj_set(meshes: &[ObjMesh]) -> obj_exporter::ObjSet {
    use obj_exporter::{Geometry, Object, Primitive, Shape, TVertex, Vertex};
    obj_exporter::ObjSet {
        material_library: Some("model.mtl".to_string()),
        objects: meshes
            .iter()
            .map(|m| Object {
                name: m.name.clone(),
                vertices: m
                    .positions
                    .iter()
                    .map(|p| Vertex {
                        x: p[0] as f64,
                        y: p[1] as f64,
                        z: p[2] as f64,
                    })
                    .collect(),
                tex_vertices: m
                    .uvs
                    .iter()
                    .flatten()
                    .map(|t| TVertex {
                        u: t[0] as f64,
                        v: t[1] as f64,
                        w: 0.0,
                    })
                    .collect(),
                normals: m
                    .normals
                    .iter()
                    .flatten()
                    .map(|n| Vertex {
                        x: n[0] as f64,
                        y: n[1] as f64,
                        z: n[2] as f64,
                    })
                    .collect(),
                geometry: m
                    .runs
                    .iter()
                    .map(|(material, tris)| Geometry {
                        material_name: Some(names::material_name(*material, 0)),
                        shapes: tris
                            .iter()
                            .map(|t| {
                                let c = |k: usize| {
                                    let i = t[k] as usize;
                                    (i, m.uvs.as_ref().map(|_| i), m.normals.as_ref().map(|_| i))
                                };
                                Shape {
                                    primitive: Primitive::Triangle(c(0), c(1), c(2)),
                                    groups: Vec::new(),
                                    smoothing_groups: Vec::new(),
                                }
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("reps > 0"))
}

#[test]
#[ignore = "measurement for docs/OBJ.md; run with --ignored --nocapture in release"]
fn obj_exporter_against_the_plain_writer() {
    let corpus = corpus();
    let all: Vec<ObjMesh> = corpus.iter().flat_map(|(_, m)| m.iter().cloned()).collect();
    let vertices: usize = all.iter().map(|m| m.positions.len()).sum();
    let triangles: usize = all
        .iter()
        .map(|m| m.runs.iter().map(|r| r.1.len()).sum::<usize>())
        .sum();
    println!(
        "corpus: {} models, {} objects, {vertices} vertices, {triangles} triangles",
        corpus.len(),
        all.len()
    );
    let header = "# bench\n";
    let (plain, plain_out) = best_of(5, || {
        corpus
            .iter()
            .map(|(_, m)| write_obj(m, header, "model.mtl").len())
            .sum::<usize>()
    });
    let (convert_only, sets) = best_of(5, || {
        corpus
            .iter()
            .map(|(_, m)| to_obj_set(m))
            .collect::<Vec<_>>()
    });
    let (export_only, crate_out) = best_of(5, || {
        sets.iter()
            .map(|s| {
                let mut out = Vec::new();
                obj_exporter::export(s, &mut out).unwrap();
                out
            })
            .collect::<Vec<_>>()
    });
    let crate_bytes: usize = crate_out.iter().map(Vec::len).sum();
    println!(
        "plain writer:  {:>8.1} ms, {plain_out} bytes",
        plain.as_secs_f64() * 1e3
    );
    println!(
        "obj-exporter:  {:>8.1} ms writing + {:.1} ms building its ObjSet = {:.2}x the plain writer, {crate_bytes} bytes",
        export_only.as_secs_f64() * 1e3,
        convert_only.as_secs_f64() * 1e3,
        (export_only + convert_only).as_secs_f64() / plain.as_secs_f64()
    );
    // Precision: read its `v` lines back as f32.
    let (mut exact, mut total, mut max_abs, mut max_rel) = (0usize, 0usize, 0f64, 0f64);
    for (set, text) in sets.iter().zip(&crate_out) {
        let text = std::str::from_utf8(text).unwrap();
        let originals = set.objects.iter().flat_map(|o| o.vertices.iter());
        let written = text.lines().filter_map(|l| l.strip_prefix("v "));
        for (o, w) in originals.zip(written) {
            for (a, b) in [o.x, o.y, o.z].into_iter().zip(w.split(' ')) {
                let back: f32 = b.parse().unwrap();
                let d = (back as f64 - a).abs();
                total += 1;
                exact += (back as f64 == a) as usize;
                max_abs = max_abs.max(d);
                if a != 0.0 {
                    max_rel = max_rel.max(d / a.abs());
                }
            }
        }
    }
    println!(
        "obj-exporter precision ({{:.6}}): {exact} of {total} coordinates read back bit-exact; max error {max_abs:.3e} absolute, {max_rel:.3e} relative"
    );
    let usemtl = crate_out
        .iter()
        .map(|t| {
            std::str::from_utf8(t)
                .unwrap()
                .lines()
                .filter(|l| l.starts_with("usemtl"))
                .count()
        })
        .sum::<usize>();
    let mtllib = crate_out
        .iter()
        .filter(|t| std::str::from_utf8(t).unwrap().contains("mtllib"))
        .count();
    println!("obj-exporter wrote {usemtl} `usemtl` and {mtllib} `mtllib` lines (materials were set on every Geometry)");
    let again: Vec<Vec<u8>> = sets
        .iter()
        .map(|s| {
            let mut out = Vec::new();
            obj_exporter::export(s, &mut out).unwrap();
            out
        })
        .collect();
    println!("obj-exporter deterministic: {}", again == crate_out);
}

#[test]
#[ignore = "measurement for docs/OBJ.md; run with --ignored --nocapture in release"]
fn tobj_against_the_plain_parser() {
    let corpus = corpus();
    let texts: Vec<Vec<u8>> = corpus
        .iter()
        .map(|(_, m)| write_obj(m, "# bench\n", "model.mtl"))
        .collect();
    let bytes: usize = texts.iter().map(Vec::len).sum();
    println!("corpus: {} OBJ files, {bytes} bytes", texts.len());
    let options = tobj::LoadOptions {
        single_index: true,
        triangulate: true,
        ..Default::default()
    };
    let no_mtl =
        |_: &std::path::Path| -> tobj::MTLLoadResult { Err(tobj::LoadError::OpenFileFailed) };
    let (t_tobj, tris_tobj) = best_of(5, || {
        texts
            .iter()
            .map(|t| {
                let (models, _) = tobj::load_obj_buf(&mut &t[..], &options, no_mtl).unwrap();
                models
                    .iter()
                    .map(|m| m.mesh.indices.len() / 3)
                    .sum::<usize>()
            })
            .sum::<usize>()
    });
    let (t_ours, tris_ours) = best_of(5, || {
        texts
            .iter()
            .map(|t| {
                let (scene, _) = to_scene(t, None, &ObjImportOptions::default()).unwrap();
                scene
                    .nodes
                    .iter()
                    .flat_map(|n| n.slots.iter().flat_map(|s| s.batches.iter()))
                    .map(|b| b.triangles.len())
                    .sum::<usize>()
            })
            .sum::<usize>()
    });
    println!(
        "tobj 4 (single_index, triangulate): {:>8.1} ms, {tris_tobj} triangles",
        t_tobj.as_secs_f64() * 1e3
    );
    println!(
        "plain parser + scene building:     {:>8.1} ms, {tris_ours} triangles ({:.2}x tobj)",
        t_ours.as_secs_f64() * 1e3,
        t_ours.as_secs_f64() / t_tobj.as_secs_f64()
    );

    // Behaviours that rule it out, on tiny inputs.
    let load = |text: &str| tobj::load_obj_buf(&mut text.as_bytes(), &options, no_mtl);
    let named = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl mat3\nf 1 2 3\n").unwrap();
    println!(
        "`usemtl mat3` without an MTL: material_id {:?}; the name is not kept anywhere",
        named.0[0].mesh.material_id
    );
    let grouped = load("o Hull\nv 0 0 0\nv 1 0 0\nv 0 1 0\ng Hull_Steel\nf 1 2 3\n").unwrap();
    println!(
        "`o Hull` then `g Hull_Steel`: model named {:?} (o and g are treated alike)",
        grouped
            .0
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
    );
    let err = load("v 0 0 0\nv 1 0 0\nv 0 1 0\n\n\nf 1 2 9\n").unwrap_err();
    println!("out-of-range index on line 6: error {err:?} ({err}), no line number");
    let zero_vt = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/0 2/1 3/1\n");
    println!(
        "texture index 0: {}",
        match zero_vt {
            Ok(_) => "accepted (0 - 1 wraps to its 'missing' marker)".to_string(),
            Err(e) => format!("{e:?}"),
        }
    );
    let nan = load("v NaN 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    println!(
        "NaN position: {}",
        if nan.is_ok() { "accepted" } else { "rejected" }
    );
    let panicked = std::panic::catch_unwind(|| {
        let _ = tobj::load_obj_buf(
            &mut "v 0 0 0\nvn 0 0 1\nf 1//1 1//1 1//-5\n".as_bytes(),
            &options,
            no_mtl,
        );
    })
    .is_err();
    println!(
        "normal index -5 with 1 normal: {} ({} build)",
        if panicked {
            "panics (usize overflow)"
        } else {
            "no panic"
        },
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
}
