//! Quantized (`KHR_mesh_quantization`), meshopt-compressed
//! (`EXT_meshopt_compression`) and Draco-compressed
//! (`KHR_draco_mesh_compression`) files made by a real tool, glTF-Transform's
//! CLI (npm `@gltf-transform/cli`, pinned in tools/gltf-transform): our exports
//! of committed fixtures, rewritten by `gltf-transform copy` (the reference:
//! the same content, plain), `quantize`, `meshopt` and `draco`, import to the
//! same triangles per node and material, positions within the quantization's
//! error.

mod common;
mod common_gltf;

use common::obj::{Corner, Geometry};
use common_gltf::gltf_transform::{exports, glb_json, import, run, span, transform};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// Writes a meshopt-compressed file's views uncompressed, decoded by
/// meshoptimizer's own (JavaScript/WebAssembly) decoder.
fn decompress(input: &Path, output: &Path) {
    let mut c = Command::new("node");
    c.arg(common::root().join("tools/gltf-transform/decompress.mjs"))
        .arg(input)
        .arg(output);
    run(c, "decompress.mjs");
    let json = glb_json(&std::fs::read(output).unwrap());
    assert!(!json["extensionsUsed"]
        .to_string()
        .contains("EXT_meshopt_compression"));
}

/// Tolerances of a comparison: positions, texture coordinates, normals.
#[derive(Clone, Copy, Debug)]
struct Tolerance {
    position: f32,
    uv: f32,
    normal: f32,
}

/// Whether two triangles have the same corners in the same winding (any
/// rotation), each attribute within its tolerance.
fn same(a: &[Corner; 3], b: &[Corner; 3], tol: Tolerance) -> bool {
    (0..3).any(|r| {
        (0..3).all(|k| {
            let (p, q) = (&a[k], &b[(k + r) % 3]);
            (0..3).all(|j| (p.0[j] - q.0[j]).abs() <= tol.position)
                && (0..2).all(|j| (p.1[j] - q.1[j]).abs() <= tol.uv)
                && match (p.2, q.2) {
                    (Some(n), Some(m)) => (0..3).all(|j| (n[j] - m[j]).abs() <= tol.normal),
                    (n, m) => n.is_some() == m.is_some(),
                }
        })
    })
}

/// The largest position difference of two triangles' corners, over rotations.
fn far(a: &[Corner; 3], b: &[Corner; 3]) -> f32 {
    (0..3)
        .map(|r| {
            (0..3)
                .flat_map(|k| (0..3).map(move |j| (a[k].0[j] - b[(k + r) % 3].0[j]).abs()))
                .fold(0.0, f32::max)
        })
        .fold(f32::INFINITY, f32::min)
}

/// Differences between the reference and the decoded geometry: the same keys,
/// the same number of triangles under each, and each decoded triangle matched
/// to a distinct reference one.
fn compare(want: &Geometry, got: &Geometry, tol: Tolerance) -> Vec<String> {
    if want.keys().collect::<Vec<_>>() != got.keys().collect::<Vec<_>>() {
        return vec![format!(
            "node/material keys differ: {} vs {}",
            want.len(),
            got.len()
        )];
    }
    let cell = (4.0 * tol.position).max(1e-4);
    let at = |t: &[Corner; 3]| -> [i64; 3] {
        std::array::from_fn(|j| ((t[0].0[j] + t[1].0[j] + t[2].0[j]) / 3.0 / cell).floor() as i64)
    };
    let mut problems = Vec::new();
    for (key, w) in want {
        let g = &got[key];
        if w.len() != g.len() {
            problems.push(format!(
                "{key:?}: {} triangles expected, {} found",
                w.len(),
                g.len()
            ));
            continue;
        }
        let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
        for (i, t) in w.iter().enumerate() {
            grid.entry(at(t)).or_default().push(i);
        }
        let mut used = vec![false; w.len()];
        for t in g {
            let c = at(t);
            let found = (-1..=1)
                .flat_map(|x| (-1..=1).flat_map(move |y| (-1..=1).map(move |z| [x, y, z])))
                .filter_map(|d| grid.get(&[c[0] + d[0], c[1] + d[1], c[2] + d[2]]))
                .flatten()
                .copied()
                .find(|&i| !used[i] && same(&w[i], t, tol));
            match found {
                Some(i) => used[i] = true,
                None => {
                    // The nearest reference triangle by position, to show what differs.
                    let nearest = w.iter().min_by(|a, b| far(a, t).total_cmp(&far(b, t)));
                    problems.push(format!(
                        "{key:?}: no reference triangle for {t:?}; nearest {nearest:?}"
                    ));
                    break;
                }
            }
        }
    }
    problems
}

#[test]
fn quantized_and_meshopt_files_import_as_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, stem, glb) in exports(&["m012_walker", "m127_tank", "m037_gate"]) {
        let path = |what: &str| dir.path().join(format!("{stem}.{what}.glb"));
        std::fs::write(path("export"), &glb).unwrap();
        for command in ["copy", "quantize", "meshopt", "draco"] {
            transform(&[command], &path("export"), &path(command));
        }
        let reference = import(&std::fs::read(path("copy")).unwrap());
        let size = span(&reference, |c| c.0);
        // meshoptimizer's own decoder (through glTF-Transform) gives the
        // reference for the meshopt file: the codecs are lossless, so mshconv's
        // import of the compressed file must match it to float noise. Normals
        // go through the octahedral filter, whose rounding may differ by one
        // step of 8 bits between meshoptimizer 1.3 (the `meshopt` crate) and
        // 1.2 (glTF-Transform's decoder).
        decompress(&path("meshopt"), &path("decoded"));
        let exact = Tolerance {
            position: 1e-5 * size.max(1.0),
            uv: 1e-6,
            normal: 1.5 / 127.0,
        };
        // Against the plain file: 14-bit positions over each mesh's bounds
        // (glTF-Transform's default) and 12-bit texture coordinates; normals
        // are quantized to 8-10 bits. The meshopt file also stores animation
        // tracks with the lossy exponential filter (about 1/512 of a unit here).
        let quantized = Tolerance {
            position: size / 16383.0 * 2.0 + 1e-5,
            uv: 2.0 / 4095.0,
            normal: 0.02,
        };
        let filtered = Tolerance {
            position: size / 512.0,
            ..quantized
        };
        for (command, extension, want, tol) in [
            ("quantize", "KHR_mesh_quantization", "copy", quantized),
            ("meshopt", "EXT_meshopt_compression", "decoded", exact),
            ("meshopt", "EXT_meshopt_compression", "copy", filtered),
            // Draco's defaults: 14-bit positions, 10-bit normals, 12-bit UVs
            // over the attribute's whole range (these UVs span several units).
            (
                "draco",
                "KHR_draco_mesh_compression",
                "copy",
                Tolerance {
                    uv: quantized.uv.max(span(&reference, |c| c.1) / 4095.0 * 1.01),
                    ..quantized
                },
            ),
        ] {
            let bytes = std::fs::read(path(command)).unwrap();
            let used = glb_json(&bytes)["extensionsRequired"].to_string();
            if !used.contains(extension) {
                failures.push(format!(
                    "{name} {command}: {extension} is not used ({used})"
                ));
            }
            let want = import(&std::fs::read(path(want)).unwrap());
            for p in compare(&want, &import(&bytes), tol) {
                failures.push(format!("{name} {command} ({tol:?}): {p}"));
            }
        }
    }
    common::fail_if_any("compressed imports", failures);
}
