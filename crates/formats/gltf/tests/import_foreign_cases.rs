//! Foreign glTF cases the sample models left (issue 42): each a small
//! hand-made file the Khronos validator calls valid, imported as what a
//! viewer shows, with the note it owes. The oracle of each is independent of
//! the importer: the file's plain equivalent (the same content without the
//! case), and the world triangles computed here from the glTF by hand.

mod common;

use common::gltf_build::Doc;
use common::obj::{posed_triangles, Names};
use serde_json::{json, Value};

/// A unit quad in the glTF XY plane (two triangles).
const QUAD: [f32; 12] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
const QUAD_INDICES: [u16; 6] = [0, 1, 2, 0, 2, 3];

/// Imports a glTF, or the error's code.
fn import(bytes: &[u8]) -> Result<(Vec<u8>, mshconv_convert::Report), String> {
    mshconv_gltf::gltf_to_msh(bytes, &Default::default(), &|_| None).map_err(|e| {
        assert!(!e.code().is_empty());
        e.code().to_string()
    })
}

/// The Khronos validator's error count of each file, failing on any error.
fn validator_clean(files: &[(&str, &[u8])]) {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.path().join(format!("{name}.gltf")), bytes).unwrap();
    }
    let results = common::validate_dir(dir.path());
    assert_eq!(results.len(), files.len(), "the validator saw every file");
    let bad: Vec<String> = results
        .iter()
        .filter(|r| r.errors > 0)
        .map(|r| format!("{}: {:?}", r.file, r.messages))
        .collect();
    common::fail_if_any("validator errors", bad);
}

/// A document of quads: one mesh (one primitive) per entry of `nodes`, each
/// node translated by its `[x, y, z]`; `doc` holds the rest.
fn quads(nodes: &[(&str, [f32; 3], Option<usize>)]) -> (Value, Doc) {
    let mut d = Doc::default();
    let p = d.floats(&QUAD, 3, "VEC3", true);
    let i = d.indices(&QUAD_INDICES);
    let mut json_nodes = Vec::new();
    let mut roots = Vec::new();
    for (k, (name, t, parent)) in nodes.iter().enumerate() {
        json_nodes.push(json!({"name": name, "mesh": 0, "translation": t}));
        match parent {
            Some(p) => {
                let children = json_nodes[*p]
                    .as_object_mut()
                    .unwrap()
                    .entry("children")
                    .or_insert(json!([]));
                children.as_array_mut().unwrap().push(json!(k));
            }
            None => roots.push(k),
        }
    }
    let doc = json!({
        "scene": 0,
        "scenes": [{"nodes": roots}],
        "nodes": json_nodes,
        "meshes": [{"name": "quad", "primitives": [{"attributes": {"POSITION": p}, "indices": i}]}],
    });
    (doc, d)
}

/// The world position of glTF point `p` in the game frame (`--axis y-up`:
/// glTF `(x, y, z)` is game `(x, -z, y)`).
fn game(p: [f32; 3]) -> [f32; 3] {
    [p[0], -p[2], p[1]]
}

/// Every triangle corner of an imported model, posed at rest, sorted.
fn corners(msh: &[u8]) -> Vec<[i64; 3]> {
    let geometry = posed_triangles(msh, 0, 0, Default::default(), Names::Raw);
    let mut out: Vec<[i64; 3]> = geometry
        .values()
        .flatten()
        .flatten()
        .map(|c| c.0.map(|v| (v * 1e4).round() as i64))
        .collect();
    out.sort();
    out
}

/// The corners of the quads at these glTF world translations, by hand.
fn expected_corners(translations: &[[f32; 3]]) -> Vec<[i64; 3]> {
    let mut out: Vec<[i64; 3]> = translations
        .iter()
        .flat_map(|t| {
            QUAD_INDICES.iter().map(move |&i| {
                let v = &QUAD[3 * i as usize..3 * i as usize + 3];
                game([v[0] + t[0], v[1] + t[1], v[2] + t[2]]).map(|c| (c * 1e4).round() as i64)
            })
        })
        .collect();
    out.sort();
    out
}

// ---------------------------------------------------------------- KHR_node_visibility

#[test]
fn nodes_hidden_by_khr_node_visibility_are_not_drawn() {
    // "shown" is drawn; "hidden" is not, nor its child "under" (hidden with its
    // parent), nor "visible_under", whose own visible: true does not show it
    // under a hidden parent (the extension's rule).
    let nodes = [
        ("shown", [0.0, 0.0, 0.0], None),
        ("hidden", [2.0, 0.0, 0.0], None),
        ("under", [0.0, 2.0, 0.0], Some(1)),
        ("visible_under", [0.0, 4.0, 0.0], Some(1)),
    ];
    let (mut doc, d) = quads(&nodes);
    doc["extensionsUsed"] = json!(["KHR_node_visibility"]);
    doc["nodes"][1]["extensions"] = json!({"KHR_node_visibility": {"visible": false}});
    doc["nodes"][3]["extensions"] = json!({"KHR_node_visibility": {"visible": true}});
    let file = d.finish(doc);
    // The plain equivalent: the hidden nodes without their mesh.
    let mut plain: Value = serde_json::from_slice(&file).unwrap();
    plain.as_object_mut().unwrap().remove("extensionsUsed");
    for n in 1..4 {
        let node = plain["nodes"][n].as_object_mut().unwrap();
        node.remove("mesh");
        node.remove("extensions");
    }
    let plain = serde_json::to_vec(&plain).unwrap();
    validator_clean(&[("hidden", &file), ("plain", &plain)]);

    let (msh, report) = import(&file).unwrap();
    assert_eq!(corners(&msh), expected_corners(&[[0.0; 3]]));
    let (want, _) = import(&plain).unwrap();
    assert_eq!(msh, want, "imports as its plain equivalent");
    let notes = common::notes(&report, "import.node_hidden");
    assert_eq!(notes.len(), 1, "{report:?}");
    assert!(
        notes[0].starts_with("3 nodes hidden")
            && ["\"hidden\"", "\"under\"", "\"visible_under\""]
                .iter()
                .all(|n| notes[0].contains(n)),
        "{}",
        notes[0]
    );

    // A file that requires the extension is read too.
    let mut required: Value = serde_json::from_slice(&file).unwrap();
    required["extensionsRequired"] = json!(["KHR_node_visibility"]);
    let (required, _) = import(&serde_json::to_vec(&required).unwrap()).unwrap();
    assert_eq!(required, msh);
}

// ---------------------------------------------------------------- valid files once refused

#[test]
fn a_primitive_without_position_is_left_out_and_the_others_draw() {
    let (mut doc, mut d) = quads(&[("quad", [0.0, 0.0, 1.0], None)]);
    let normals: Vec<f32> = (0..4).flat_map(|_| [0.0, 0.0, 1.0]).collect();
    let n = d.floats(&normals, 3, "VEC3", false);
    let plain = {
        let d2 = Doc {
            bin: d.bin.clone(),
            views: d.views.clone(),
            accessors: d.accessors.clone(),
        };
        d2.finish(doc.clone())
    };
    doc["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(json!({"attributes": {"NORMAL": n}}));
    let file = d.finish(doc);
    validator_clean(&[("no_position", &file), ("plain", &plain)]);

    let (msh, report) = import(&file).expect("a valid file imports");
    assert_eq!(corners(&msh), expected_corners(&[[0.0, 0.0, 1.0]]));
    assert_eq!(msh, import(&plain).unwrap().0);
    let notes = common::notes(&report, "import.primitive_skipped");
    assert_eq!(
        notes,
        ["1 primitives without POSITION were left out (they draw nothing), of 1 meshes: \"quad\""]
    );
}

/// Each case: (name, a change to an object nothing uses, its JSON pointer).
type Unused = (&'static str, fn(&mut Value), &'static str);

fn unused_cases() -> Vec<Unused> {
    fn push(doc: &mut Value, key: &str, v: Value) {
        doc.as_object_mut()
            .unwrap()
            .entry(key)
            .or_insert(json!([]))
            .as_array_mut()
            .unwrap()
            .push(v);
    }
    vec![
        (
            "sampler filter",
            |d| push(d, "samplers", json!({"magFilter": 1234})),
            "/samplers/0/magFilter",
        ),
        (
            "sampler wrap",
            |d| push(d, "samplers", json!({"wrapS": 5})),
            "/samplers/0/wrapS",
        ),
        (
            "accessor component type",
            |d| {
                push(
                    d,
                    "accessors",
                    json!({"bufferView": 0, "componentType": 5130, "count": 3, "type": "SCALAR"}),
                )
            },
            "/accessors/2/componentType",
        ),
        (
            "accessor type",
            |d| {
                push(
                    d,
                    "accessors",
                    json!({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC7"}),
                )
            },
            "/accessors/2/type",
        ),
        (
            "material alpha mode",
            |d| push(d, "materials", json!({"alphaMode": "FOO"})),
            "/materials/0/alphaMode",
        ),
        (
            "buffer view target",
            |d| {
                push(
                    d,
                    "bufferViews",
                    json!({"buffer": 0, "byteLength": 4, "target": 1}),
                )
            },
            "/bufferViews/2/target",
        ),
        (
            "camera type",
            |d| push(d, "cameras", json!({"type": "fisheye"})),
            "/cameras/0/type",
        ),
    ]
}

#[test]
fn objects_nothing_uses_are_ignored_with_a_note() {
    let (doc, d) = quads(&[("quad", [0.0, 0.0, 0.0], None)]);
    let plain = d.finish(doc);
    let base: Value = serde_json::from_slice(&plain).unwrap();
    let (want, _) = import(&plain).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = unused_cases()
        .into_iter()
        .map(|(name, change, pointer)| {
            let mut doc = base.clone();
            change(&mut doc);
            (name, serde_json::to_vec(&doc).unwrap(), pointer)
        })
        .collect();
    let files: Vec<(&str, &[u8])> = cases.iter().map(|(n, f, _)| (*n, f.as_slice())).collect();
    validator_clean(&files);
    for (name, file, pointer) in &cases {
        let (msh, report) = import(file).unwrap_or_else(|e| panic!("{name}: refused ({e})"));
        assert_eq!(&msh, &want, "{name}: imports as the file without it");
        let notes = common::notes(&report, "import.unused_ignored");
        assert_eq!(
            notes,
            [format!("1 object nothing uses holds values outside the glTF lists (the Khronos validator warns of them), ignored: {pointer}")],
            "{name}"
        );
    }
}

#[test]
fn a_used_object_with_such_a_value_is_still_refused() {
    let (mut doc, d) = quads(&[("quad", [0.0, 0.0, 0.0], None)]);
    doc["materials"] = json!([{"alphaMode": "FOO"}]);
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    assert_eq!(import(&d.finish(doc)).unwrap_err(), "gltf.invalid");
}

// ---------------------------------------------------------------- texture coordinates and materials

/// A 1x1 PNG (a grey pixel).
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const UV0: [f32; 8] = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
const UV1: [f32; 8] = [0.125, 0.25, 0.75, 0.25, 0.75, 0.5, 0.125, 0.5];

/// One textured quad with two UV sets and the material `material`.
fn textured(material: Value) -> Vec<u8> {
    let (mut doc, mut d) = quads(&[("quad", [0.0; 3], None)]);
    let t0 = d.floats(&UV0, 2, "VEC2", false);
    let t1 = d.floats(&UV1, 2, "VEC2", false);
    doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = json!(t0);
    doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"] = json!(t1);
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    doc["materials"] = json!([material]);
    doc["textures"] = json!([{"source": 0}]);
    doc["images"] = json!([{"uri": format!("data:image/png;base64,{PNG}")}]);
    d.finish(doc)
}

/// Per vertex of the imported quad: (Res5 UV, Res15 as two floats).
fn uv_streams(msh: &[u8]) -> Vec<([f32; 2], [f32; 2])> {
    let view = msh::open(msh, msh::Mode::Strict).unwrap().view;
    let uv0 = view.uv0.expect("Res5");
    let s15 = view.stream15.expect("Res15");
    let f = |b: &[u8]| f32::from_le_bytes(b.try_into().unwrap());
    uv0.iter()
        .zip(s15)
        .map(|(u, r)| (u.decode(), [f(&r[0..4]), f(&r[4..8])]))
        .collect()
}

#[test]
fn texcoord_1_stays_in_res15_when_the_base_colour_reads_it_through_a_transform() {
    let transform = json!({"KHR_texture_transform": {"offset": [0.5, 0.25], "scale": [2.0, 3.0]}});
    let file = textured(json!({
        "name": "mat3",
        "pbrMetallicRoughness": {"baseColorTexture": {"index": 0, "texCoord": 1, "extensions": transform}}
    }));
    let mut doc: Value = serde_json::from_slice(&file).unwrap();
    doc["extensionsUsed"] = json!(["KHR_texture_transform"]);
    let file = serde_json::to_vec(&doc).unwrap();
    validator_clean(&[("transform", &file)]);
    let (msh, report) = import(&file).unwrap();
    assert!(report.has("import.texture_transform_baked"), "{report:?}");
    let streams = uv_streams(&msh);
    assert_eq!(streams.len(), 4);
    // The quad's vertices keep their order; UVs are compared as sets of pairs
    // to stay independent of it.
    let mut got: Vec<[i64; 4]> = streams
        .iter()
        .map(|(a, b)| [a[0], a[1], b[0], b[1]].map(|c| (c * 1024.0).round() as i64))
        .collect();
    let mut want: Vec<[i64; 4]> = UV1
        .chunks_exact(2)
        .map(|t| {
            // The extension's T * R * S with no rotation, by hand.
            let res5 = [2.0 * t[0] + 0.5, 3.0 * t[1] + 0.25];
            [res5[0], res5[1], t[0], t[1]].map(|c| (c * 1024.0).round() as i64)
        })
        .collect();
    got.sort();
    want.sort();
    assert_eq!(
        got, want,
        "Res5 = the transformed TEXCOORD_1, Res15 = TEXCOORD_1 as it is"
    );
}

#[test]
fn a_spec_gloss_diffuse_texture_is_the_base_colour() {
    let spec_gloss = json!({"KHR_materials_pbrSpecularGlossiness": {
        "diffuseTexture": {"index": 0, "texCoord": 1},
        "diffuseFactor": [0.5, 0.25, 1.0, 1.0],
        "specularFactor": [0.2, 0.2, 0.2],
        "glossinessFactor": 0.5
    }});
    let mut doc: Value =
        serde_json::from_slice(&textured(json!({"name": "mat3", "extensions": spec_gloss})))
            .unwrap();
    doc["extensionsUsed"] = json!(["KHR_materials_pbrSpecularGlossiness"]);
    let file = serde_json::to_vec(&doc).unwrap();
    // The same base colour written the metallic-roughness way.
    let plain = textured(json!({"name": "mat3", "pbrMetallicRoughness": {
        "baseColorTexture": {"index": 0, "texCoord": 1},
        "baseColorFactor": [0.5, 0.25, 1.0, 1.0]
    }}));
    validator_clean(&[("spec_gloss", &file), ("plain", &plain)]);

    let (msh, report) = import(&file).unwrap();
    assert_eq!(
        msh,
        import(&plain).unwrap().0,
        "the geometry reads TEXCOORD_1 as the plain file"
    );
    let notes = common::notes(&report, "import.extension_ignored");
    assert_eq!(
        notes,
        ["KHR_materials_pbrSpecularGlossiness: the diffuse texture and factor were read as the base colour; specular and glossiness are not kept (MSH materials are the game's)"]
    );
    let look = mshconv_gltf::import::look::read_look(&file, &|_| None).unwrap();
    let want = mshconv_gltf::import::look::read_look(&plain, &|_| None).unwrap();
    let (m, w) = (&look.materials[&3], &want.materials[&3]);
    let image = m
        .image
        .as_ref()
        .expect("the diffuse texture is the material's image");
    let want_image = w.image.as_ref().unwrap();
    assert_eq!(
        (
            image.pixels.width,
            image.pixels.height,
            &image.pixels.pixels
        ),
        (
            want_image.pixels.width,
            want_image.pixels.height,
            &want_image.pixels.pixels
        )
    );
    assert_eq!(m.base_color, [0.5, 0.25, 1.0, 1.0]);
    let dropped: Vec<&str> = look
        .notes
        .iter()
        .filter(|n| n.code == "look.base_color_dropped")
        .map(|n| n.message.as_str())
        .collect();
    assert_eq!(
        dropped,
        ["1 material has a base colour factor other than white: the game's materials do not hold one, so it was dropped (the texture, if any, is kept as it is): \"mat3\" (0.5, 0.25, 1, 1)"]
    );
}

#[test]
fn a_base_colour_reading_set_1_is_read_without_any_extension() {
    let file = textured(json!({"name": "mat3", "pbrMetallicRoughness": {
        "baseColorTexture": {"index": 0, "texCoord": 1}
    }}));
    assert!(!serde_json::from_slice::<Value>(&file)
        .unwrap()
        .as_object()
        .unwrap()
        .contains_key("extensionsUsed"));
    validator_clean(&[("set1", &file)]);
    let (msh, _) = import(&file).unwrap();
    let mut got: Vec<[i64; 4]> = uv_streams(&msh)
        .iter()
        .map(|(a, b)| [a[0], a[1], b[0], b[1]].map(|c| (c * 1024.0).round() as i64))
        .collect();
    let mut want: Vec<[i64; 4]> = UV1
        .chunks_exact(2)
        .map(|t| [t[0], t[1], t[0], t[1]].map(|c| (c * 1024.0).round() as i64))
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "Res5 and Res15 are both TEXCOORD_1");
}

// ---------------------------------------------------------------- animation under a mirror

/// The rotation matrix of `angle` radians about the unit `axis` (Rodrigues).
fn axis_angle(axis: [f64; 3], angle: f64) -> [[f64; 3]; 3] {
    let (s, c) = angle.sin_cos();
    let [x, y, z] = axis;
    let k = [[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]];
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let kk: f64 = (0..3).map(|m| k[i][m] * k[m][j]).sum();
            f64::from(i == j) + s * k[i][j] + (1.0 - c) * kk
        })
    })
}

/// The quaternion `[x, y, z, w]` of `angle` about the unit `axis`.
fn axis_quat(axis: [f64; 3], angle: f64) -> [f32; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c].map(|v| v as f32)
}

const FPS: f64 = 24.0;
/// The arm's rotation at frame `f`: 90 degrees about +Y over the first 24
/// frames, then 180 degrees about (1, 1, 0)/sqrt 2 over the next 24.
fn arm_rotation(f: u32) -> ([f64; 3], f64) {
    let r = std::f64::consts::FRAC_1_SQRT_2;
    if f <= 24 {
        (
            [0.0, 1.0, 0.0],
            std::f64::consts::FRAC_PI_2 * f64::from(f) / 24.0,
        )
    } else {
        ([r, r, 0.0], std::f64::consts::PI * f64::from(f - 24) / 24.0)
    }
}

/// The worst distance between where the imported model draws the arm's
/// corners and where the glTF puts them (this file's own matrices), at every
/// frame, over the model's diagonal; and that distance at frame 24 (90
/// degrees); the worst distance itself, and the import's report. `paired`:
/// corners compared in order (else each with the nearest, as a mirror turns
/// the triangles over).
fn arm_error(parent_scale: [f32; 3], paired: bool) -> (f64, f64, f64, mshconv_convert::Report) {
    let (mut doc, mut d) = quads(&[
        ("mirror", [0.0; 3], None),
        ("arm", [1.0, 0.5, 0.0], Some(0)),
    ]);
    doc["nodes"][0]["scale"] = json!(parent_scale);
    doc["nodes"][0].as_object_mut().unwrap().remove("mesh");
    let times: Vec<f32> = (0..=48).map(|f| (f64::from(f) / FPS) as f32).collect();
    let rotations: Vec<f32> = (0..=48)
        .flat_map(|f| {
            let (axis, angle) = arm_rotation(f);
            axis_quat(axis, angle)
        })
        .collect();
    let input = d.floats(&times, 1, "SCALAR", true);
    let output = d.floats(&rotations, 4, "VEC4", false);
    doc["animations"] = json!([{
        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}],
        "samplers": [{"input": input, "output": output}]
    }]);
    let file = d.finish(doc);
    validator_clean(&[("mirror", &file)]);
    let (msh, report) = import(&file).unwrap();
    let view = msh::open(&msh, msh::Mode::Strict).unwrap().view;
    let arm = (0..view.nodes.len())
        .find(|&i| view.node_name(i) == Some(b"arm".as_slice()))
        .unwrap();
    let slot = view.nodes[arm].slot(0, 0).unwrap();
    let axes = mshconv_convert::axes::Axes {
        axis: mshconv_convert::Axis::YUp,
        rotation: mshconv_convert::Rotation::Conjugate,
    };
    let s = parent_scale.map(f64::from);
    let mut diagonal = 1.0;
    let mut absolute = 0f64;
    let (mut worst, mut at_90) = (0f64, 0f64);
    for f in 0..=48 {
        let (axis, angle) = arm_rotation(f);
        let r = axis_angle(axis, angle);
        // glTF: world = S_parent (T_arm R(t) v).
        let want: Vec<[f64; 3]> = QUAD_INDICES
            .iter()
            .map(|&i| {
                let v = &QUAD[3 * i as usize..3 * i as usize + 3];
                let rv: [f64; 3] =
                    std::array::from_fn(|k| (0..3).map(|m| r[k][m] * f64::from(v[m])).sum());
                let local = [rv[0] + 1.0, rv[1] + 0.5, rv[2]];
                std::array::from_fn(|k| s[k] * local[k])
            })
            .collect();
        let world = common::gltf_sampler::engine_world(&view, f)[arm];
        let got: Vec<[f64; 3]> = common::slot_triangles(&view, slot)
            .iter()
            .flat_map(|(_, t)| t.map(|v| v))
            .map(|v| {
                let p = axes.vec(view.positions[v].map(|c| f64::from(c.get())));
                std::array::from_fn(|k| {
                    (0..3).map(|m| world[k][m] * p[m]).sum::<f64>() + world[k][3]
                })
            })
            .collect();
        assert_eq!(got.len(), want.len());
        let distance =
            |g: &[f64; 3], w: &[f64; 3]| (0..3).map(|k| (g[k] - w[k]).powi(2)).sum::<f64>().sqrt();
        // Each corner against its own (or the nearest) wanted one, then the worst.
        let error = got
            .iter()
            .enumerate()
            .map(|(c, g)| match paired {
                true => distance(g, &want[c]),
                false => want
                    .iter()
                    .map(|w| distance(g, w))
                    .fold(f64::INFINITY, f64::min),
            })
            .fold(0.0, f64::max);
        absolute = absolute.max(error);
        if f == 0 {
            // The model's diagonal: its bounding box at rest.
            let (lo, hi) = want.iter().fold(
                ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
                |(lo, hi), p| {
                    (
                        std::array::from_fn(|k| lo[k].min(p[k])),
                        std::array::from_fn(|k| hi[k].max(p[k])),
                    )
                },
            );
            diagonal = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
        }
        let error = error / diagonal;
        worst = worst.max(error);
        if f == 24 {
            at_90 = error;
        }
    }
    assert_eq!(report.has("import.scale_baked"), parent_scale != [1.0; 3]);
    (worst, at_90, absolute, report)
}

#[test]
fn a_rotation_animated_under_a_mirror_turns_the_way_the_file_says() {
    for scale in [
        [-1.0, 1.0, 1.0],
        [1.0, 1.0, -1.0],
        [-2.0, 2.0, 2.0],
        [1.0, 1.0, 1.0],
    ] {
        let (worst, at_90, _, report) = arm_error(scale, false);
        assert!(!report.has("import.scale_sheared"), "{report:?}");
        eprintln!(
            "parent scale {scale:?}: worst {worst:.3e} of the diagonal, {at_90:.3e} at 90 degrees"
        );
        assert!(
            worst < 1e-3,
            "parent scale {scale:?}: {worst} of the diagonal"
        );
    }
}

// ---------------------------------------------------------------- notes that count what a user counts

#[test]
fn notes_count_meshes_nodes_and_materials_and_name_a_few() {
    // One mesh of two primitives (no normals, no UVs) on twelve nodes, each
    // primitive with its own of five materials none of which has an MSH index.
    let nodes: Vec<(String, [f32; 3], Option<usize>)> = (0..12)
        .map(|k| (format!("n{k}"), [k as f32 * 2.0, 0.0, 0.0], None))
        .collect();
    let nodes: Vec<(&str, [f32; 3], Option<usize>)> =
        nodes.iter().map(|(n, t, p)| (n.as_str(), *t, *p)).collect();
    let (mut doc, d) = quads(&nodes);
    let prim = doc["meshes"][0]["primitives"][0].clone();
    doc["meshes"][0]["primitives"] = json!([prim.clone(), prim]);
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    doc["meshes"][0]["primitives"][1]["material"] = json!(4);
    doc["materials"] = json!([{"name": "Steel"}, {"name": "Paint"}, {"name": "Glass"}, {"name": "Rubber"}, {"name": "Chrome"}]);
    let file = d.finish(doc);
    validator_clean(&[("counts", &file)]);
    let (msh, report) = import(&file).unwrap();
    assert_eq!(corners(&msh).len(), 12 * 2 * 6);
    let one = |code: &str| {
        let notes = common::notes(&report, code);
        assert_eq!(notes.len(), 1, "{code}: {notes:?}");
        notes[0].to_string()
    };
    assert_eq!(
        one("import.normals_computed"),
        "vertex normals were missing on 1 mesh and were computed from the faces: \"quad\""
    );
    assert_eq!(
        one("import.uvs_zero"),
        "1 mesh has no texture coordinates; they were set to 0: \"quad\""
    );
    assert_eq!(
        one("import.material_assigned"),
        "5 materials have no MSH index (no `mat<k>` name, no extras); each gets the lowest free index: \"Steel\" gets 0, \"Paint\" gets 1, \"Glass\" gets 2 and 2 more"
    );
    assert!(
        report.notes.iter().all(|n| n.message.len() < 300),
        "{report:?}"
    );
}

#[test]
fn a_rotation_animated_under_a_non_uniform_scale_is_noted_with_its_worst_error() {
    let (_, at_90, absolute, report) = arm_error([2.0, 1.0, 0.5], true);
    let notes = common::notes(&report, "import.scale_sheared");
    assert_eq!(notes.len(), 1, "{report:?}");
    let (text, figure) = notes[0].rsplit_once("largest position error ").unwrap();
    assert!(
        text.starts_with("1 rotation is animated under a non-uniformly scaled node")
            && text.contains("\"arm\""),
        "{}",
        notes[0]
    );
    let figure: f64 = figure.split(' ').next().unwrap().parse().unwrap();
    eprintln!("worst error: note {figure}, this test's evaluation {absolute}, at 90 degrees {at_90:.3} of the diagonal");
    assert!(absolute > 0.1, "the case must be off: {absolute}");
    // The note measures the rigid nodes before the keys are reduced; the
    // model drawn here carries the reduction's error too (about 4e-5 here).
    assert!(
        (figure - absolute).abs() < 1e-4,
        "note {figure}, evaluated {absolute}"
    );
}
