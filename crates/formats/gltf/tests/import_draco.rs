//! `KHR_draco_mesh_compression` files made by a real tool, glTF-Transform's
//! CLI (npm `@gltf-transform/cli`, pinned in tools/gltf-transform, which
//! encodes with Google's draco3dgltf): our exports of committed fixtures,
//! compressed with the connectivity methods, encoder speeds (and so prediction
//! schemes) and quantization settings the CLI offers.
//!
//! Each Draco file is imported twice: by mshconv (its own Draco decoding) and,
//! as the reference, after Google's decoder (draco3dgltf, through
//! glTF-Transform) wrote it back uncompressed. The two must agree value for
//! value. Each is also held against the plain file: the same triangles per
//! node and material, positions within the quantization step.

mod common;
mod common_gltf;

use common::obj::{compare, Geometry};
use common_gltf::draco::{first_stream, grid};
use common_gltf::gltf_transform::{exports, glb_json, import, run, span, transform};
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// Rewrites INPUT (argv[1]) as OUTPUT (argv[2]) with every Draco primitive
/// decoded by Google's decoder and stored as plain accessors.
const DRACO_DECODE: &str = r#"
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
const io = new NodeIO()
  .registerExtensions(ALL_EXTENSIONS)
  .registerDependencies({ 'draco3d.decoder': await draco3d.createDecoderModule() });
const doc = await io.read(process.argv[1]);
for (const ext of doc.getRoot().listExtensionsUsed()) {
  if (ext.extensionName === 'KHR_draco_mesh_compression') ext.dispose();
}
await io.write(process.argv[2], doc);
"#;

/// The encoder settings tested on the fixtures: a name and the
/// `gltf-transform` arguments. Draco's encoder picks its prediction schemes
/// by speed (the larger of the two): at 5, the default, parallelogram for
/// positions and UVs and differences for normals; below 4, portable texture
/// coordinates and geometric normals; below 2, constrained multi-parallelogram
/// positions (a primitive of 40 points or more); at 10, differences only.
/// Edgebreaker's valence variant needs 1,000 faces in one primitive, more
/// than these fixtures' primitives have: the grid test below covers it.
/// `quantized` compresses the output of `gltf-transform quantize`: its
/// integer and normalized attributes (`KHR_mesh_quantization`) go through
/// Draco as integers.
const SETTINGS: [(&str, &[&str]); 8] = [
    ("default", &["draco"]),
    ("quantized", &["draco"]),
    ("sequential", &["draco", "--method", "sequential"]),
    (
        "speed0",
        &["draco", "--encode-speed", "0", "--decode-speed", "0"],
    ),
    (
        "speed3",
        &["draco", "--encode-speed", "3", "--decode-speed", "3"],
    ),
    (
        "speed10",
        &["draco", "--encode-speed", "10", "--decode-speed", "10"],
    ),
    (
        "fine",
        &[
            "draco",
            "--quantize-position",
            "16",
            "--quantize-normal",
            "12",
            "--quantize-texcoord",
            "16",
        ],
    ),
    (
        "coarse-scene",
        &[
            "draco",
            "--quantize-position",
            "11",
            "--quantize-normal",
            "7",
            "--quantize-texcoord",
            "10",
            "--quantization-volume",
            "scene",
        ],
    ),
];

/// Rewrites a Draco file with Google's decoder, uncompressed.
fn google_decode(input: &Path, output: &Path) {
    let mut c = Command::new("node");
    c.current_dir(common_gltf::gltf_transform::dir())
        .args(["--input-type=module", "-e", DRACO_DECODE])
        .arg(input)
        .arg(output);
    run(c, "draco3dgltf decode");
}

fn import_file(path: &Path) -> Geometry {
    import(&std::fs::read(path).unwrap())
}

/// The `--quantize-*` bits of a setting, glTF-Transform's default when absent.
fn bits(args: &[&str], option: &str, default: i32) -> i32 {
    args.iter()
        .position(|a| *a == option)
        .map_or(default, |i| args[i + 1].parse().unwrap())
}

#[test]
fn draco_files_decode_as_googles_decoder_and_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, stem, glb) in exports(&["m145_barrel", "m277_turret", "m012_walker"]) {
        let path = |what: &str| dir.path().join(format!("{stem}.{what}.glb"));
        std::fs::write(path("export"), &glb).unwrap();
        transform(&["copy"], &path("export"), &path("plain"));
        let plain = import_file(&path("plain"));
        for (setting, args) in SETTINGS {
            let draco = path(setting);
            let input = if setting == "quantized" {
                transform(&["quantize"], &path("export"), &path("quantize"));
                path("quantize")
            } else {
                path("export")
            };
            transform(args, &input, &draco);
            let json = glb_json(&std::fs::read(&draco).unwrap());
            if !json["extensionsRequired"]
                .to_string()
                .contains("KHR_draco_mesh_compression")
            {
                failures.push(format!("{name} {setting}: no Draco primitive was written"));
                continue;
            }
            let ours = import_file(&draco);
            google_decode(&draco, &path(&format!("{setting}.google")));
            let google = import_file(&path(&format!("{setting}.google")));
            for p in compare(&google, &ours, 1e-6, 1e-6, 1e-6) {
                failures.push(format!("{name} {setting} against Google's decoder: {p}"));
            }
            // Draco quantizes each attribute over its bounding cube: one step
            // is the largest extent over 2^bits - 1 (positions over the mesh
            // or, with `scene`, the scene: twice the mesh's at most here).
            let scene = if args.contains(&"scene") { 2.0 } else { 1.0 };
            let step = |extent: f32, b: i32| extent * scene / ((1 << b) - 1) as f32;
            let position = step(span(&plain, |c| c.0), bits(args, "--quantize-position", 14));
            let uv = step(span(&plain, |c| c.1), bits(args, "--quantize-texcoord", 12));
            // Octahedral normals: up to about 8 / 2^bits per component, then
            // one step of the MSH's 8-bit normals (c / 127) either way.
            let normal = 8.0 / (1 << bits(args, "--quantize-normal", 10)) as f32 + 1.0 / 127.0;
            if bits(args, "--quantize-position", 14) < 14 {
                // Coarser grids reorder `compare`'s sorted triangles: only the
                // counts per node and material are held.
                let counts = |g: &Geometry| {
                    g.iter()
                        .map(|(k, t)| (k.clone(), t.len()))
                        .collect::<Vec<_>>()
                };
                if counts(&plain) != counts(&ours) {
                    failures.push(format!(
                        "{name} {setting}: triangle counts differ from the plain file's"
                    ));
                }
                continue;
            }
            // `compare` takes positions relative above 1; the step is absolute.
            for p in compare(&plain, &ours, position + 1e-5, uv + 1e-6, normal) {
                failures.push(format!("{name} {setting} against the plain file: {p}"));
            }
        }
    }
    common::fail_if_any("Draco imports", failures);
}

/// Draco's dequantized value of `v` on a `bits` grid from `min` over `range`
/// (the bitstream specification's quantization, recomputed by hand).
fn on_grid(v: f32, min: f32, range: f32, bits: u32) -> f32 {
    let max = ((1u32 << bits) - 1) as f32;
    let q = ((v - min) / range * max + 0.5).floor();
    min + q * (range / max)
}

/// A mesh of 1,000 faces or more, which Draco's encoder needs before it
/// chooses Edgebreaker's valence variant (speeds below 5) and constrained
/// multi-parallelogram prediction (below 2): decoded as Google's decoder does.
#[test]
fn a_large_wavy_grid_decodes_as_googles_decoder_with_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("grid.gltf");
    std::fs::write(&plain, grid(24, 0.1).gltf).unwrap();
    // (name, arguments, Draco method byte: 0 sequential, 1 Edgebreaker;
    // Edgebreaker's variant byte: 0 standard, 2 valence).
    let settings: [(&str, &[&str], u8, Option<u8>); 5] = [
        ("default", &["draco"], 1, Some(0)),
        (
            "speed0",
            &["draco", "--encode-speed", "0", "--decode-speed", "0"],
            1,
            Some(2),
        ),
        (
            "speed3",
            &["draco", "--encode-speed", "3", "--decode-speed", "3"],
            1,
            Some(2),
        ),
        (
            "speed10",
            &["draco", "--encode-speed", "10", "--decode-speed", "10"],
            1,
            Some(0),
        ),
        ("sequential", &["draco", "--method", "sequential"], 0, None),
    ];
    let mut failures = Vec::new();
    for (name, args, method, variant) in settings {
        let draco = dir.path().join(format!("{name}.glb"));
        let google = dir.path().join(format!("{name}.google.glb"));
        transform(args, &plain, &draco);
        let bytes = std::fs::read(&draco).unwrap();
        let (stream, _) = first_stream(&bytes);
        let stream = &bytes[stream];
        assert_eq!(&stream[..5], b"DRACO");
        let header = (stream[8], (method == 1).then(|| stream[11]));
        if header != (method, variant) {
            failures.push(format!(
                "{name}: method and variant {header:?}, not the intended {:?}",
                (method, variant)
            ));
        }
        google_decode(&draco, &google);
        for p in compare(
            &import_file(&google),
            &import_file(&draco),
            1e-6,
            1e-6,
            1e-6,
        ) {
            failures.push(format!("{name} against Google's decoder: {p}"));
        }
    }
    common::fail_if_any("Draco grid imports", failures);
}

#[test]
fn a_tiny_quad_decodes_value_for_value() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("quad.gltf");
    let draco = dir.path().join("quad.glb");
    let quad = grid(1, 0.0);
    std::fs::write(&plain, &quad.gltf).unwrap();
    transform(&["draco", "--method", "sequential"], &plain, &draco);
    let bytes = std::fs::read(&draco).unwrap();
    let (stream, ext) = first_stream(&bytes);
    let stream = &bytes[stream];
    let mesh = mshconv_gltf::import::draco::decode(stream, 1 << 20).unwrap();
    assert_eq!(mesh.points, 4);
    let attribute = |name: &str| {
        let id = ext["attributes"][name].as_u64().unwrap() as u32;
        let (components, values) = &mesh.attributes[&id];
        values
            .chunks(*components)
            .map(<[f32]>::to_vec)
            .collect::<Vec<_>>()
    };
    let (positions, normals, uvs) = (
        attribute("POSITION"),
        attribute("NORMAL"),
        attribute("TEXCOORD_0"),
    );
    assert_eq!((uvs.len(), normals.len()), (4, 4));
    // Positions: 14 bits over the bounding cube (origin 0, side 2); each
    // decoded point is one of the quad's corners on that grid.
    let found: Vec<usize> = positions
        .iter()
        .map(|p| {
            quad.positions
                .iter()
                .position(|w| (0..3).all(|j| (on_grid(w[j], 0.0, 2.0, 14) - p[j]).abs() <= 1e-6))
                .unwrap_or_else(|| {
                    panic!("decoded position {p:?} is not a corner of the quad on the grid")
                })
        })
        .collect();
    let mut sorted = found.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 1, 2, 3], "each corner decoded once");
    // Texture coordinates: 12 bits over (0, 1); normals exactly +Z.
    for (point, &i) in found.iter().enumerate() {
        for j in 0..2 {
            let want = on_grid(quad.uvs[i][j], 0.0, 1.0, 12);
            assert!((uvs[point][j] - want).abs() <= 1e-6, "{uvs:?}");
        }
        assert!(
            normals[point][0].abs() <= 1e-6 && (normals[point][2] - 1.0).abs() <= 1e-6,
            "{normals:?}"
        );
    }
    // The two triangles, as corner sets in the source's winding.
    let canonical = |t: [usize; 3]| {
        let r = (0..3).min_by_key(|&k| t[k]).unwrap();
        [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]
    };
    let mut got: Vec<[usize; 3]> = mesh
        .faces
        .iter()
        .map(|f| canonical(f.map(|p| found[p as usize])))
        .collect();
    let mut want: Vec<[usize; 3]> = quad
        .triangles
        .iter()
        .map(|t| canonical(t.map(usize::from)))
        .collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
}

/// A Draco object that does not match its primitive's accessors (counts,
/// attribute ids, buffer view) is refused with `gltf.draco_invalid`, naming
/// the extension object; the intact file imports.
#[test]
fn draco_objects_that_do_not_match_their_accessors_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("grid.gltf");
    let draco = dir.path().join("grid.draco.gltf");
    std::fs::write(&plain, grid(4, 0.1).gltf).unwrap();
    transform(&["draco"], &plain, &draco);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&draco).unwrap()).unwrap();
    let bin_name = json["buffers"][0]["uri"].as_str().unwrap().to_string();
    let bin = std::fs::read(dir.path().join(&bin_name)).unwrap();
    let import = |json: &serde_json::Value| {
        let resolver = |name: &str| (name == bin_name).then(|| bin.clone());
        mshconv_gltf::gltf_to_msh(
            &serde_json::to_vec(json).unwrap(),
            &Default::default(),
            &resolver,
        )
        .map(|_| ())
        .map_err(|e| (e.code().to_string(), e.message().to_string()))
    };
    assert_eq!(import(&json), Ok(()), "the intact file imports");
    let primitive = "/meshes/0/primitives/0";
    // The count of the accessor a primitive field names.
    let count = |field: &str| {
        let index = json.pointer(&format!("{primitive}/{field}")).unwrap();
        format!("/accessors/{}/count", index.as_u64().unwrap())
    };
    let extension = format!("{primitive}/extensions/KHR_draco_mesh_compression");
    let cases: [(&str, String, serde_json::Value); 5] = [
        (
            "POSITION count + 1",
            count("attributes/POSITION"),
            json!(26),
        ),
        ("NORMAL count - 1", count("attributes/NORMAL"), json!(24)),
        ("indices count - 3", count("indices"), json!(93)),
        (
            "POSITION's Draco id",
            format!("{extension}/attributes/POSITION"),
            json!(99),
        ),
        (
            "the buffer view",
            format!("{extension}/bufferView"),
            json!(99),
        ),
    ];
    for (what, pointer, value) in cases {
        let mut damaged = json.clone();
        *damaged
            .pointer_mut(&pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value;
        match import(&damaged) {
            Err((code, message)) => {
                assert_eq!(code, "gltf.draco_invalid", "{what}: {message}");
                assert!(message.contains(&extension), "{what}: {message}");
            }
            Ok(()) => panic!("{what}: imported"),
        }
    }
}
