//! glTF building blocks of the hand-made cases: GLB and data-URI `.gltf`
//! writers, a triangle, an animated triangle, and both forms of a document.

use super::Case;
use base64::Engine as _;
use serde_json::{json, Value};

/// A GLB of `json` and an optional BIN chunk (both padded as the spec says).
pub fn glb(json: &Value, bin: Option<&[u8]>) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // total, set below
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if let Some(bin) = bin {
        let mut bin = bin.to_vec();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    let total = out.len() as u32;
    out[8..12].copy_from_slice(&total.to_le_bytes());
    out
}

pub(super) fn data_uri(bytes: &[u8]) -> String {
    format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A `.gltf` with its buffer 0 as a data: URI.
fn embedded(mut json: Value, bin: &[u8]) -> Vec<u8> {
    json["buffers"][0]["uri"] = json!(data_uri(bin));
    serde_json::to_vec(&json).unwrap()
}

/// The bytes of `n` vertices on a circle (VEC3 float), then `indices` (u16).
pub(super) fn geometry(n: usize, indices: &[u16]) -> (Vec<u8>, usize) {
    let mut bin = Vec::new();
    for i in 0..n {
        let a = i as f32 / n.max(1) as f32 * std::f32::consts::TAU;
        for c in [a.cos(), a.sin(), 0.0f32] {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    let positions = bin.len();
    for i in indices {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    (bin, positions)
}

/// One triangle (3 vertices, 3 u16 indices) in one mesh on one node, and its buffer.
pub fn triangle() -> (Value, Vec<u8>) {
    let (bin, positions) = geometry(3, &[0, 1, 2]);
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": positions},
            {"buffer": 0, "byteOffset": positions, "byteLength": 6}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [-1.0, -1.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}
        ]
    });
    (json, bin)
}

/// A triangle whose node is animated by a sampler with `keys` keys over `times`.
pub(super) fn animated(times: &[f32]) -> (Value, Vec<u8>) {
    let (mut json, mut bin) = triangle();
    let t_at = bin.len();
    for t in times {
        bin.extend_from_slice(&t.to_le_bytes());
    }
    let v_at = bin.len();
    for k in 0..times.len() {
        for c in [k as f32, 0.0, 0.0] {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    json["buffers"][0]["byteLength"] = json!(bin.len());
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": t_at, "byteLength": v_at - t_at}));
    views.push(json!({"buffer": 0, "byteOffset": v_at, "byteLength": bin.len() - v_at}));
    let (lo, hi) = times
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &t| {
            (a.min(t), b.max(t))
        });
    let accessors = json["accessors"].as_array_mut().unwrap();
    accessors.push(
        json!({"bufferView": 2, "componentType": 5126, "count": times.len(),
        "type": "SCALAR", "min": [lo], "max": [hi]}),
    );
    accessors.push(
        json!({"bufferView": 3, "componentType": 5126, "count": times.len(), "type": "VEC3"}),
    );
    json["animations"] = json!([{
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
        "samplers": [{"input": 2, "output": 3, "interpolation": "LINEAR"}]
    }]);
    (json, bin)
}

/// Both a GLB and a `.gltf` (data: URI) of each document.
pub(super) fn both(out: &mut Vec<Case>, label: &str, json: &Value, bin: &[u8]) {
    out.push(Case::gltf(format!("{label} (glb)"), glb(json, Some(bin))));
    out.push(Case::gltf(
        format!("{label} (gltf)"),
        embedded(json.clone(), bin),
    ));
}
