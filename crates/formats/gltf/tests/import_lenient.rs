//! What the glTF 2.0 specification allows and `gltf-json` alone refused
//! (issue 24): each case is a small hand-made file the Khronos validator calls
//! valid, and it imports to exactly the model its plain equivalent (the same
//! content written the ordinary way) imports to, with the notes it owes.

mod common;

use base64::Engine as _;
use common::obj::{posed_triangles, Geometry, Names};
use serde_json::{json, Value};

/// A 1x1 lossless WebP.
const WEBP: &str = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==";

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const POSITIONS: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 2.0, 0.0],
    [0.0, 2.0, 0.5],
];
const UVS: [[f32; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
const INDICES: [u16; 6] = [0, 1, 2, 0, 2, 3];

fn bytes_of<const N: usize>(items: &[[f32; N]]) -> Vec<u8> {
    items
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect()
}

/// Buffer views (offset, length) appended to one buffer, 4-byte aligned.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
}

impl Bin {
    fn view(&mut self, data: &[u8]) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len()}));
        self.bytes.extend_from_slice(data);
        self.views.len() - 1
    }
}

fn bounds(p: &[[f32; 3]]) -> (Value, Value) {
    let min: Vec<f32> = (0..3)
        .map(|k| p.iter().map(|v| v[k]).fold(f32::INFINITY, f32::min))
        .collect();
    let max: Vec<f32> = (0..3)
        .map(|k| p.iter().map(|v| v[k]).fold(f32::NEG_INFINITY, f32::max))
        .collect();
    (json!(min), json!(max))
}

/// The plain document: one textured quad on one node, every accessor in a view.
fn plain_with(uvs: &[[f32; 2]; 4]) -> (Value, Bin) {
    let mut bin = Bin::default();
    let p = bin.view(&bytes_of(&POSITIONS));
    let t = bin.view(&bytes_of(uvs));
    let i = bin.view(
        &INDICES
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    let (min, max) = bounds(&POSITIONS);
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "quad", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
        "materials": [{"name": "mat3", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}],
        "images": [{"uri": format!("data:image/png;base64,{PNG}")}],
        "accessors": [
            {"bufferView": p, "componentType": 5126, "count": 4, "type": "VEC3", "min": min, "max": max},
            {"bufferView": t, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": i, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ],
    });
    (doc, bin)
}

fn plain() -> (Value, Bin) {
    plain_with(&UVS)
}

/// The document as a `.gltf` with its buffer embedded.
fn finish(mut doc: Value, bin: Bin) -> Vec<u8> {
    doc["bufferViews"] = json!(bin.views);
    doc["buffers"] = json!([{
        "byteLength": bin.bytes.len(),
        "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin.bytes)),
    }]);
    serde_json::to_vec_pretty(&doc).unwrap()
}

fn import(bytes: &[u8]) -> (Geometry, Vec<&'static str>) {
    let (msh, report) = mshconv_gltf::gltf_to_msh(bytes, &Default::default(), &|_| None)
        .unwrap_or_else(|e| panic!("import failed: {e}"));
    let geometry = posed_triangles(&msh, 0, 0, Default::default(), Names::Raw);
    (geometry, report.notes.iter().map(|n| n.code).collect())
}

/// (name, the lenient file, its plain equivalent, a note code it must raise).
type Case = (&'static str, Vec<u8>, Vec<u8>, Option<&'static str>);

fn cases() -> Vec<Case> {
    let reference = {
        let (doc, bin) = plain();
        finish(doc, bin)
    };
    let mut out: Vec<Case> = Vec::new();

    // POSITION without a view, all of it given by a sparse accessor.
    let (mut doc, mut bin) = plain();
    let idx = bin.view(&[0u8, 1, 2, 3]);
    let val = bin.view(&bytes_of(&POSITIONS));
    let a = doc["accessors"][0].as_object_mut().unwrap();
    a.remove("bufferView");
    a.insert(
        "sparse".into(),
        json!({"count": 4, "indices": {"bufferView": idx, "componentType": 5121}, "values": {"bufferView": val}}),
    );
    out.push((
        "sparse without a view",
        finish(doc, bin),
        reference.clone(),
        None,
    ));

    // A sparse accessor over a view whose two last vertices are wrong.
    let (mut doc, mut bin) = plain();
    let mut wrong = POSITIONS;
    wrong[2] = [9.0, 9.0, 9.0];
    wrong[3] = [-9.0, 9.0, 9.0];
    let base = bin.view(&bytes_of(&wrong));
    let idx = bin.view(
        &[2u16, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    let val = bin.view(&bytes_of(&POSITIONS[2..]));
    doc["accessors"][0]["bufferView"] = json!(base);
    doc["accessors"][0]["sparse"] = json!({"count": 2, "indices": {"bufferView": idx, "componentType": 5123}, "values": {"bufferView": val}});
    out.push((
        "sparse over a view",
        finish(doc, bin),
        reference.clone(),
        None,
    ));

    // TEXCOORD_0 without a view: zeros.
    let (mut doc, bin) = plain();
    doc["accessors"][1]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let zeros = {
        let (doc, bin) = plain_with(&[[0.0; 2]; 4]);
        finish(doc, bin)
    };
    out.push(("zeros without a view", finish(doc, bin), zeros, None));

    // Integral numbers written as floats where integers belong.
    let (doc, bin) = plain();
    let text = String::from_utf8(finish(doc, bin)).unwrap();
    let floats = text
        .replace("\"count\": 4,", "\"count\": 4.0,")
        .replace("\"componentType\": 5126", "\"componentType\": 5126.0")
        .replace("\"mesh\": 0", "\"mesh\": 0.0")
        .replace("\"scene\": 0", "\"scene\": 0.0");
    assert_ne!(floats, text);
    out.push((
        "floats as integers",
        floats.into_bytes(),
        reference.clone(),
        None,
    ));

    // A second scene without nodes.
    let (mut doc, bin) = plain();
    doc["scenes"] = json!([{"nodes": [0]}, {"name": "empty"}]);
    out.push((
        "scene without nodes",
        finish(doc, bin),
        reference.clone(),
        None,
    ));

    // Textures without source: one WebP (EXT_texture_webp), one without any image.
    let (mut doc, bin) = plain();
    doc["extensionsUsed"] = json!(["EXT_texture_webp"]);
    doc["images"] = json!([{"uri": format!("data:image/webp;base64,{WEBP}")}]);
    doc["textures"] = json!([{"extensions": {"EXT_texture_webp": {"source": 0}}}, {}]);
    doc["materials"][0]["normalTexture"] = json!({"index": 1});
    out.push((
        "textures without source",
        finish(doc, bin),
        reference.clone(),
        Some("import.texture_without_image"),
    ));

    // An animation channel that targets a pointer, not a node.
    let (mut doc, mut bin) = plain();
    let times = bin.view(&bytes_of(&[[0.0f32], [1.0]]));
    let values = bin.view(&bytes_of(&[[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0]]));
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors.push(json!({"bufferView": times, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]}));
    accessors
        .push(json!({"bufferView": values, "componentType": 5126, "count": 2, "type": "VEC3"}));
    doc["extensionsUsed"] = json!(["KHR_animation_pointer"]);
    doc["animations"] = json!([{
        "channels": [{"sampler": 0, "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": "/nodes/0/translation"}}}}],
        "samplers": [{"input": 3, "output": 4}]
    }]);
    out.push((
        "animation pointer",
        finish(doc, bin),
        reference.clone(),
        Some("import.channel_ignored"),
    ));

    // KHR_mesh_quantization as gltfpack writes it: integer (not normalized)
    // u16 positions under a node scale, normalized u8 texture coordinates.
    let (mut doc, mut bin) = plain();
    let q: Vec<u8> = POSITIONS
        .iter()
        .flat_map(|p| [p[0], p[1], p[2], 0.0].map(|c| (c * 4.0) as u16))
        .flat_map(u16::to_le_bytes)
        .collect();
    let p = bin.view(&q);
    // Vertex attributes are 4-byte aligned: each u8 pair padded to 4 bytes.
    let t = bin.view(
        &UVS.iter()
            .flat_map(|uv| [uv[0], uv[1], 0.0, 0.0].map(|c| (c * 255.0) as u8))
            .collect::<Vec<_>>(),
    );
    bin.views[p]["byteStride"] = json!(8);
    bin.views[t]["byteStride"] = json!(4);
    let (min, max) = bounds(&POSITIONS.map(|v| v.map(|c| c * 4.0)));
    doc["accessors"][0] = json!({"bufferView": p, "componentType": 5123, "count": 4, "type": "VEC3", "min": min, "max": max});
    doc["accessors"][1] = json!({"bufferView": t, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC2"});
    doc["nodes"][0]["scale"] = json!([0.25, 0.25, 0.25]);
    doc["extensionsUsed"] = json!(["KHR_mesh_quantization"]);
    doc["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    out.push(("quantized", finish(doc, bin), reference.clone(), None));

    // KHR_texture_transform: baked into the UVs.
    let (mut doc, bin) = plain();
    doc["extensionsUsed"] = json!(["KHR_texture_transform"]);
    doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["extensions"] = json!({"KHR_texture_transform": {"offset": [0.5, 0.25], "scale": [2.0, 0.5], "rotation": 0.0}});
    let moved = {
        let uvs = UVS.map(|[u, v]| [2.0 * u + 0.5, 0.5 * v + 0.25]);
        let (doc, bin) = plain_with(&uvs);
        finish(doc, bin)
    };
    out.push((
        "texture transform",
        finish(doc, bin),
        moved,
        Some("import.texture_transform_baked"),
    ));

    // Material extensions, lights, cameras, variants: ignored with a note each.
    let (mut doc, bin) = plain();
    doc["extensionsUsed"] = json!([
        "KHR_materials_emissive_strength",
        "KHR_lights_punctual",
        "KHR_materials_variants"
    ]);
    doc["materials"][0]["emissiveFactor"] = json!([1.0, 1.0, 1.0]);
    doc["materials"][0]["extensions"] =
        json!({"KHR_materials_emissive_strength": {"emissiveStrength": 2.0}});
    doc["extensions"] = json!({
        "KHR_lights_punctual": {"lights": [{"type": "point"}]},
        "KHR_materials_variants": {"variants": [{"name": "red"}]}
    });
    doc["cameras"] = json!([{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1}}]);
    doc["nodes"] = json!([
        {"name": "quad", "mesh": 0},
        {"name": "lamp", "extensions": {"KHR_lights_punctual": {"light": 0}}},
        {"name": "eye", "camera": 0}
    ]);
    doc["scenes"] = json!([{"nodes": [0, 1, 2]}]);
    doc["meshes"][0]["primitives"][0]["extensions"] =
        json!({"KHR_materials_variants": {"mappings": [{"material": 0, "variants": [0]}]}});
    let (mut eq, eq_bin) = plain();
    eq["nodes"] = json!([{"name": "quad", "mesh": 0}, {"name": "lamp"}, {"name": "eye"}]);
    eq["scenes"] = json!([{"nodes": [0, 1, 2]}]);
    out.push((
        "ignored extensions",
        finish(doc, bin),
        finish(eq, eq_bin),
        Some("import.extension_ignored"),
    ));
    out
}

#[test]
fn every_lenient_case_is_valid_and_imports_as_its_plain_equivalent() {
    let cases = cases();
    let dir = tempfile::tempdir().unwrap();
    for (k, (_, lenient, plain, _)) in cases.iter().enumerate() {
        std::fs::write(dir.path().join(format!("{k}a.gltf")), lenient).unwrap();
        std::fs::write(dir.path().join(format!("{k}b.gltf")), plain).unwrap();
    }
    let mut failures = Vec::new();
    for r in common::validate_dir(dir.path()) {
        if r.errors > 0 {
            failures.push(format!(
                "{}: {} validator errors: {:?}",
                r.file, r.errors, r.messages
            ));
        }
    }
    for (name, lenient, plain, note) in &cases {
        let (want, _) = import(plain);
        let (got, notes) = import(lenient);
        let problems = common::obj::compare(&want, &got, 0.0, 0.0, 0.0);
        if !problems.is_empty() {
            failures.push(format!("{name}: {problems:?}"));
        }
        if let Some(code) = note {
            if !notes.contains(code) {
                failures.push(format!("{name}: no note {code} in {notes:?}"));
            }
        }
    }
    common::fail_if_any("lenient imports", failures);
}

#[test]
fn the_ignored_extensions_are_noted_one_each() {
    let (_, lenient, _, _) = cases()
        .into_iter()
        .find(|c| c.0 == "ignored extensions")
        .unwrap();
    let (_, report) = mshconv_gltf::gltf_to_msh(&lenient, &Default::default(), &|_| None).unwrap();
    let ignored: Vec<&str> = report
        .notes
        .iter()
        .filter(|n| n.code == "import.extension_ignored")
        .map(|n| n.message.split(':').next().unwrap())
        .collect();
    assert_eq!(
        ignored,
        [
            "KHR_materials_emissive_strength",
            "KHR_lights_punctual",
            "KHR_materials_variants"
        ]
    );
    let cameras = report
        .notes
        .iter()
        .filter(|n| n.code == "import.cameras_ignored")
        .count();
    assert_eq!(cameras, 1, "{report:?}");
}

#[test]
fn a_required_extension_the_importer_cannot_honour_is_refused_by_name() {
    // (EXT_mesh_gpu_instancing is honoured since issue 30: tests/import_shown.rs.)
    for name in ["EXT_not_an_extension", "EXT_mesh_gpu_instancing_v2"] {
        let (mut doc, bin) = plain();
        doc["extensionsUsed"] = json!([name]);
        doc["extensionsRequired"] = json!([name]);
        let e = mshconv_gltf::gltf_to_msh(&finish(doc, bin), &Default::default(), &|_| None)
            .unwrap_err();
        assert_eq!(e.code(), "gltf.extension_required");
        assert!(e.to_string().contains(name), "{e}");
    }
}

#[test]
fn a_sparse_index_past_the_accessor_is_refused_with_its_place() {
    let (mut doc, mut bin) = plain();
    let idx = bin.view(&[0u8, 7]);
    let val = bin.view(&bytes_of(&POSITIONS[..2]));
    doc["accessors"][0]["sparse"] = json!({"count": 2, "indices": {"bufferView": idx, "componentType": 5121}, "values": {"bufferView": val}});
    let e =
        mshconv_gltf::gltf_to_msh(&finish(doc, bin), &Default::default(), &|_| None).unwrap_err();
    assert_eq!(e.code(), "gltf.sparse_out_of_range");
    assert!(e.to_string().contains("/accessors/0/sparse/indices"), "{e}");
}
