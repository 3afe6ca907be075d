//! The USD export read back with Pixar's USD (PyPI `usd-core`, installed into
//! `.venv-usd` by `scripts/setup-usd.sh`): every fixture model exports, passes
//! usd-core's `ComplianceChecker`, and its prim tree, points, normals and UVs
//! equal our own GLB export's; every node's world transform at every frame
//! equals the engine's pose (`msh::pose`), which the glTF export's animation
//! equals too (export_animation.rs). One Python process reads every file.

#[path = "../../gltf/tests/common/mod.rs"]
mod common;
#[path = "data/usd/read_back.rs"]
mod usd_read;

use mshconv_convert::axes::Axes;
use mshconv_convert::{Axis, ClipList, Rotation};
use mshconv_gltf::msh_to_gltf;
use mshconv_gltf::ExportOptions;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One export to compare: the model, the options and the output file's name.
struct Case {
    name: String,
    msh: Vec<u8>,
    options: ExportOptions,
}

/// Every valid fixture with the default options, and the animated ones with
/// the other axis, rotation reading, fps, LOD/group and clips.
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let fixtures = common::valid_fixtures();
    for (name, msh) in &fixtures {
        cases.push(Case {
            name: file_stem(name),
            msh: msh.clone(),
            options: ExportOptions::default(),
        });
    }
    let tank = std::fs::read(common::root().join("fixtures/small/models/m127_tank.msh")).unwrap();
    cases.push(Case {
        name: "m127_tank_clockwise".to_string(),
        msh: clockwise_variant(&tank),
        options: ExportOptions::default(),
    });
    let animated = fixtures
        .iter()
        .filter(|(_, b)| {
            msh::open(b, msh::Mode::Strict).is_ok_and(|o| {
                o.view.is_animated()
                    && o.view.kind == Some(msh::ModelKind::Standard)
                    && o.view.frame_count >= 8
            })
        })
        .take(3);
    for (name, msh) in animated {
        let fc = msh::open(msh, msh::Mode::Strict).unwrap().view.frame_count;
        let clips: ClipList = format!("walk=1..{}:loop,\"odd\" name=3..3:once", fc / 2)
            .parse()
            .unwrap();
        cases.push(Case {
            name: format!("{}__zup_stored_30_lod1", file_stem(name)),
            msh: msh.clone(),
            options: ExportOptions {
                axis: Axis::ZUp,
                rotation: Rotation::Stored,
                fps: 30.0,
                lod: 1,
                group: 0,
                clips: Some(clips),
                name: "tank \"7\"".to_string(),
                ..ExportOptions::default()
            },
        });
    }
    cases
}

/// The model with every triangle of every batch reversed: its triangles wind
/// clockwise seen from their normals, which both exports write reversed.
fn clockwise_variant(bytes: &[u8]) -> Vec<u8> {
    let mut model = msh::Model::from_bytes(bytes).unwrap();
    for b in model.batches.clone() {
        let start = b.index_start.get() as usize;
        let count = b.index_count.get() as usize / 3 * 3;
        for t in model.indices[start..start + count].chunks_exact_mut(3) {
            t.swap(1, 2);
        }
    }
    model.write(nres::WriteMode::Lossless).unwrap()
}

fn file_stem(fixture: &str) -> String {
    fixture.trim_end_matches(".msh").replace('/', "__")
}

#[test]
fn every_fixture_reads_back_in_usd_core_as_our_gltf_export() {
    let dir = tempfile::tempdir().unwrap();
    let mut exported = Vec::new();
    let mut failures = Vec::new();
    for case in cases() {
        match mshconv_usd::export(&case.msh, &(&case.options).into()) {
            Ok((usda, _)) => {
                std::fs::write(dir.path().join(format!("{}.usda", case.name)), usda).unwrap();
                exported.push(case);
            }
            Err(e) => {
                // Refused as the glTF export refuses it, or a terrain model.
                let gltf = msh_to_gltf(&case.msh, &case.options).err();
                if e.code() != "usd.terrain" && gltf.as_ref().map(|g| g.code()) != Some(e.code()) {
                    failures.push(format!("{}: {} {}", case.name, e.code(), e.message()));
                }
            }
        }
    }
    assert!(exported.len() > 40, "only {} exported", exported.len());
    let docs = usd_read::read_back(dir.path());
    let mut frames = 0;
    for case in &exported {
        let file = format!("{}.usda", case.name);
        let Some(doc) = docs.get(&file) else {
            failures.push(format!("{file}: not read back"));
            continue;
        };
        failures.extend(usd_read::findings(&file, doc));
        frames += compare(&file, case, doc, &mut failures);
    }
    assert!(frames > 1000, "only {frames} node poses compared");
    common::fail_if_any("usd", failures);
}

/// Compares one file read back with the GLB export and the engine; returns
/// how many node poses were compared.
fn compare(file: &str, case: &Case, doc: &Value, failures: &mut Vec<String>) -> usize {
    let options = &case.options;
    let view = msh::open(&case.msh, msh::Mode::Strict).unwrap().view;
    let mut fail = |what: String| failures.push(format!("{file}: {what}"));
    // The layer.
    let up = match options.axis {
        Axis::YUp => "Y",
        Axis::ZUp => "Z",
    };
    if doc["up_axis"] != up || doc["meters_per_unit"] != 1.0 {
        fail(format!(
            "upAxis {} metersPerUnit {}",
            doc["up_axis"], doc["meters_per_unit"]
        ));
    }
    if doc["time_codes_per_second"].as_f64() != Some(options.fps as f64) {
        fail(format!(
            "timeCodesPerSecond {}",
            doc["time_codes_per_second"]
        ));
    }
    let animated = view.is_animated() && view.kind == Some(msh::ModelKind::Standard);
    if animated && (doc["start"] != 0.0 || doc["end"].as_f64() != Some(view.frame_count as f64)) {
        fail(format!("time codes {}..{}", doc["start"], doc["end"]));
    }
    match &options.clips {
        Some(list) => {
            let got = &doc["custom_layer_data"]["mshconv"]["animationClips"];
            for (order, clip) in list.clips().iter().enumerate() {
                let c = &got[clip.name.as_str()];
                if c["startTimeCode"].as_f64() != Some(clip.first as f64)
                    || c["endTimeCode"].as_f64() != Some(clip.last as f64)
                    || c["loopMode"] != clip.mode.as_str()
                    || c["order"].as_u64() != Some(order as u64)
                {
                    fail(format!("clip {:?}: {c}", clip.name));
                }
            }
        }
        None => {
            if doc["custom_layer_data"].get("mshconv").is_some() {
                fail("clips written without --clips".to_string());
            }
        }
    }
    // The GLB the same options give.
    let (glb, _) = msh_to_gltf(&case.msh, options).unwrap();
    let gltf = gltf::Gltf::from_slice(&glb).unwrap();
    let blob = gltf.blob.as_deref();
    let nodes: Vec<gltf::Node> = gltf.document.nodes().collect();
    let mut parent = vec![None; nodes.len()];
    for n in &nodes {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    let prims = doc["prims"].as_array().unwrap();
    let by_path: BTreeMap<&str, &Value> = prims
        .iter()
        .map(|p| (p["path"].as_str().unwrap(), p))
        .collect();
    let owner = |p: &Value| -> Option<u64> {
        let path = p["path"].as_str()?;
        let up = &path[..path.rfind('/')?];
        by_path.get(up)?["custom"]["mshNode"].as_u64()
    };
    let axes = Axes {
        axis: options.axis,
        rotation: options.rotation,
    };
    let standard = view.kind == Some(msh::ModelKind::Standard);
    let (mut node_prims, mut slot_prims) = (0, 0);
    let mut compared = 0;
    for p in prims {
        let custom = &p["custom"];
        if let Some(i) = custom["mshNode"].as_u64() {
            node_prims += 1;
            let node = &nodes[i as usize];
            if p["display_name"] != node.name().unwrap_or("")
                || owner(p) != parent[i as usize].map(|x| x as u64)
            {
                fail(format!(
                    "node {i}: {} under {:?}",
                    p["display_name"],
                    owner(p)
                ));
            }
            // The rest pose: glTF's TRS as a viewer composes it (not normalised).
            let (t, r, _) = node.transform().decomposed();
            let [x, y, z, w] = r.map(f64::from);
            let cols = [
                [
                    1.0 - 2.0 * (y * y + z * z),
                    2.0 * (x * y + z * w),
                    2.0 * (x * z - y * w),
                ],
                [
                    2.0 * (x * y - z * w),
                    1.0 - 2.0 * (x * x + z * z),
                    2.0 * (y * z + x * w),
                ],
                [
                    2.0 * (x * z + y * w),
                    2.0 * (y * z - x * w),
                    1.0 - 2.0 * (x * x + y * y),
                ],
                t.map(f64::from),
            ];
            let local: Vec<f64> = numbers(&p["local"]);
            let near = (0..4).all(|j| {
                (0..3).all(|r| {
                    (local[j * 4 + r] - cols[j][r]).abs() <= 1e-6 * (1.0 + cols[j][r].abs())
                })
            });
            if !near {
                fail(format!(
                    "node {i}: rest transform {local:?} vs glTF {t:?} {r:?}"
                ));
            }
            let animated = view.nodes[i as usize].map_start().is_some() && standard;
            let samples = p["samples"].as_u64().unwrap_or(0);
            if p["order"] != serde_json::json!(["xformOp:transform"])
                || samples
                    != if animated {
                        u64::from(view.frame_count) + 1
                    } else {
                        0
                    }
            {
                fail(format!(
                    "node {i}: xformOpOrder {}, {samples} time samples",
                    p["order"]
                ));
            }
            compared += compare_world(&view, &axes, i as usize, p, &mut fail);
        } else if let Some(slot) = custom["mshSlot"].as_u64() {
            if !standard {
                continue;
            }
            slot_prims += 1;
            // The glTF slot node of the same name under the same MSH node.
            let name = p["display_name"].as_str().unwrap_or("");
            let Some(g) = nodes.iter().find(|n| n.name() == Some(name)) else {
                fail(format!("slot prim {name}: no glTF node of that name"));
                continue;
            };
            if parent[g.index()].map(|x| x as u64) != owner(p) {
                fail(format!("slot prim {name}: under {:?}", owner(p)));
            }
            let hidden = g.transform().decomposed().2 == [0.0; 3];
            if (p["visibility"] == "invisible") != hidden {
                fail(format!("slot prim {name}: visibility {}", p["visibility"]));
            }
            let lod_group = (custom["lod"].as_u64(), custom["group"].as_u64());
            if lod_group.0.is_none() || lod_group.1.is_none() || slot as usize >= view.slots.len() {
                fail(format!("slot prim {name}: customData {custom}"));
            }
            match g.mesh() {
                Some(mesh) => compare_mesh(name, &mesh, blob, p, &mut fail),
                None if p["type"] != "Xform" => fail(format!(
                    "slot prim {name}: a {} for a slot without a mesh",
                    p["type"]
                )),
                None => {}
            }
        }
    }
    if standard {
        let slot_nodes = nodes.len().saturating_sub(view.nodes.len());
        if node_prims != view.nodes.len() || (!view.nodes.is_empty() && slot_prims != slot_nodes) {
            fail(format!(
                "{node_prims} node prims and {slot_prims} slot prims for {} nodes and {slot_nodes} slot nodes",
                view.nodes.len()
            ));
        }
    }
    compared
}

/// A slot prim's mesh against the glTF mesh: points, normals and UVs (V
/// flipped) are the primitives' attributes one after the other, bit for bit;
/// faces are triangles with the primitives' indices; one subset per primitive.
fn compare_mesh(
    name: &str,
    mesh: &gltf::Mesh,
    blob: Option<&[u8]>,
    p: &Value,
    fail: &mut impl FnMut(String),
) {
    let (mut points, mut normals, mut st, mut indices) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut st1, mut color, mut opacity) = (Vec::new(), Vec::new(), Vec::new());
    let mut subsets = 0;
    for prim in mesh.primitives() {
        let reader = prim.reader(|_| blob);
        let base = points.len() as u32 / 3;
        points.extend(reader.read_positions().unwrap().flatten());
        if let Some(n) = reader.read_normals() {
            normals.extend(n.flatten());
        }
        if let Some(t) = reader.read_tex_coords(0) {
            st.extend(t.into_f32().flat_map(|[u, v]| [u, 1.0 - v]));
        }
        if let Some(t) = reader.read_tex_coords(1) {
            st1.extend(t.into_f32().flat_map(|[u, v]| [u, 1.0 - v]));
        }
        if let Some(c) = reader.read_colors(0) {
            for [r, g, b, a] in c.into_rgba_u8() {
                color.extend([r, g, b].map(|x| f32::from(x) / 255.0));
                opacity.push(f32::from(a) / 255.0);
            }
        }
        indices.extend(reader.read_indices().unwrap().into_u32().map(|i| i + base));
        subsets += 1;
    }
    let as_f32 = |v: &Value| -> Vec<u32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| (c.as_f64().unwrap_or(f64::NAN) as f32).to_bits())
            .collect()
    };
    let bits = |v: &[f32]| -> Vec<u32> { v.iter().map(|c| c.to_bits()).collect() };
    if as_f32(&p["points"]) != bits(&points) {
        fail(format!("{name}: points differ from the glTF mesh's"));
    }
    if as_f32(&p["normals"]) != bits(&normals)
        || (!normals.is_empty() && p["normals_interpolation"] != "vertex")
    {
        fail(format!("{name}: normals differ from the glTF mesh's"));
    }
    let got = as_f32(&p["st"]);
    if got != bits(&st) || (!st.is_empty() && p["st_interpolation"] != "vertex") {
        let at = got.iter().zip(bits(&st)).position(|(a, b)| *a != b);
        fail(format!(
            "{name}: st differ from the glTF mesh's TEXCOORD_0 (V flipped): {} vs {} values, first at {at:?}: {:?} vs {:?}",
            got.len(),
            st.len(),
            at.map(|k| f32::from_bits(got[k])),
            at.map(|k| st[k])
        ));
    }
    for (key, expected) in [
        ("st1", &st1),
        ("display_color", &color),
        ("display_opacity", &opacity),
    ] {
        if as_f32(&p[key]) != bits(expected) {
            fail(format!("{name}: {key} differs from the glTF mesh's"));
        }
    }
    let counts = p["counts"].as_array().unwrap();
    if counts.len() * 3 != indices.len() || counts.iter().any(|c| c != 3) {
        fail(format!("{name}: faces are not the glTF triangles"));
    }
    let usd_indices: Vec<u64> = p["indices"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    // The glTF export reverses triangles only for a clockwise model (none in the corpus).
    if usd_indices != indices.iter().map(|&i| u64::from(i)).collect::<Vec<_>>() {
        fail(format!(
            "{name}: face vertex indices differ from the glTF indices"
        ));
    }
    if p["subsets"].as_array().map_or(0, Vec::len) != subsets {
        fail(format!(
            "{name}: {} subsets for {subsets} primitives",
            p["subsets"]
        ));
    }
}

/// Node `i`'s world transform read back at every frame against the engine's
/// world pose in the output frame: translation within 1e-5 (relative),
/// rotation block within 1e-4. Returns the frames compared.
fn compare_world(
    view: &msh::ModelRef<'_>,
    axes: &Axes,
    i: usize,
    p: &Value,
    fail: &mut impl FnMut(String),
) -> usize {
    let world = p["world"].as_array().unwrap();
    let mut compared = 0;
    for (f, m) in world.iter().enumerate() {
        let m = numbers(m);
        let engine = msh::pose::world_transforms(view, f as f32, axes.rotation).unwrap();
        // Skip nodes whose chain holds a degenerate quaternion (shown normalised by design).
        let local = msh::pose::local_poses(view, f as f32).unwrap();
        let mut chain = Some(i);
        let mut degenerate = false;
        while let Some(c) = chain {
            let q = local[c].rotation;
            degenerate |= (q.iter().map(|x| x * x).sum::<f32>().sqrt() - 1.0).abs() > 0.005;
            chain = view.nodes[c].parent().map(usize::from).filter(|&x| x < c);
        }
        if degenerate {
            continue;
        }
        compared += 1;
        let e = engine[i].0;
        let et = axes.vec([e[0][3], e[1][3], e[2][3]]);
        // USD: row vectors, translation in row 3.
        let ut = [m[12], m[13], m[14]];
        let scale = et.iter().map(|c| c.abs()).fold(1.0f64, f64::max);
        if (0..3).any(|k| (ut[k] - et[k]).abs() > 1e-5 * scale) {
            fail(format!(
                "node {i} frame {f}: translation {ut:?} vs engine {et:?}"
            ));
        }
        // The engine's block in the output frame, column j = C (R (C^T e_j)); USD's column j is its row j.
        for j in 0..3 {
            let ej = axes.vec_back(std::array::from_fn::<f64, 3, _>(|k| {
                if k == j {
                    1.0
                } else {
                    0.0
                }
            }));
            let col = axes.vec(std::array::from_fn::<f64, 3, _>(|r| {
                (0..3).map(|c| e[r][c] * ej[c]).sum()
            }));
            if (0..3).any(|r| (m[j * 4 + r] - col[r]).abs() > 1e-4) {
                fail(format!(
                    "node {i} frame {f}: rotation column {j} {:?} vs engine {col:?}",
                    &m[j * 4..j * 4 + 3]
                ));
            }
        }
    }
    compared
}

/// A JSON array of numbers (NaN for anything else).
fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().map_or(Vec::new(), |a| {
        a.iter().map(|c| c.as_f64().unwrap_or(f64::NAN)).collect()
    })
}

#[test]
fn terrain_is_refused_with_its_code() {
    let bytes = std::fs::read(common::root().join("fixtures/small/edge/terrain_land.msh")).unwrap();
    let e = mshconv_usd::export(&bytes, &Default::default()).unwrap_err();
    assert_eq!(e.code(), "usd.terrain");
}

/// Every damaged fixture is refused as the glTF export refuses it (both open
/// the model strictly first), never with a panic.
#[test]
fn damaged_models_are_refused_with_the_gltf_exports_code() {
    let dir = common::root().join("fixtures/small/damaged");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "msh"))
        .collect();
    paths.sort();
    assert!(paths.len() > 100, "only {} damaged files", paths.len());
    let mut failures = Vec::new();
    for p in paths {
        let bytes = std::fs::read(&p).unwrap();
        let usd = mshconv_usd::export(&bytes, &Default::default());
        let gltf = msh_to_gltf(&bytes, &ExportOptions::default());
        match (usd, gltf) {
            (Err(u), Err(g)) if u.code() == g.code() => {}
            (u, g) => failures.push(format!(
                "{}: usd {:?} vs gltf {:?}",
                p.display(),
                u.map(|_| ()).map_err(|e| e.code().to_string()),
                g.map(|_| ()).map_err(|e| e.code().to_string())
            )),
        }
    }
    common::fail_if_any("damaged", failures);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Bytes of a fixture changed at random: the USD export never panics, and
    /// exports whatever the glTF export exports (terrain aside).
    #[test]
    fn changed_bytes_never_panic(
        which in 0usize..1000,
        changes in proptest::collection::vec((0usize..usize::MAX, proptest::num::u8::ANY), 1..8),
    ) {
        let fixtures = fixtures_once();
        let (_, original) = &fixtures[which % fixtures.len()];
        let mut bytes = original.clone();
        for (at, byte) in changes {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
        let usd = mshconv_usd::export(&bytes, &Default::default());
        let gltf = msh_to_gltf(&bytes, &ExportOptions::default());
        if gltf.is_ok() {
            proptest::prop_assert!(
                usd.as_ref().is_ok_and(|(t, _)| t.starts_with(b"#usda 1.0\n"))
                    || usd.as_ref().is_err_and(|e| e.code() == "usd.terrain"),
                "glTF exports, USD: {:?}",
                usd.map(|_| ()).map_err(|e| e.code().to_string())
            );
        }
    }
}

/// The valid fixtures, read once for every proptest case.
fn fixtures_once() -> &'static [(String, Vec<u8>)] {
    static FIXTURES: std::sync::OnceLock<Vec<(String, Vec<u8>)>> = std::sync::OnceLock::new();
    FIXTURES.get_or_init(common::valid_fixtures)
}

#[test]
fn degenerate_quaternions_are_shown_normalised_with_a_note() {
    let bytes = std::fs::read(common::root().join("fixtures/small/edge/quat_zero_and_nonunit.msh"))
        .unwrap();
    let (_, report) = mshconv_usd::export(&bytes, &Default::default()).unwrap();
    assert!(report.has("usd.degenerate_quaternion"), "{report:?}");
}

#[test]
fn a_clockwise_model_is_written_reversed_with_a_note() {
    let tank = std::fs::read(common::root().join("fixtures/small/models/m127_tank.msh")).unwrap();
    let options = ExportOptions::default();
    let (plain, report) = mshconv_usd::export(&tank, &(&options).into()).unwrap();
    assert!(!report.has("usd.winding_flipped"));
    let (flipped, report) =
        mshconv_usd::export(&clockwise_variant(&tank), &(&options).into()).unwrap();
    assert!(report.has("usd.winding_flipped"), "{report:?}");
    // Reversed back, the faces are the original model's.
    assert_eq!(
        String::from_utf8(flipped).unwrap(),
        String::from_utf8(plain).unwrap()
    );
}
