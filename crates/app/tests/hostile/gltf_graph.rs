//! Hand-made glTF files whose node graph, reuse of accessors and buffers, or
//! extras claim more than they hold.

use super::gltf_build::{both, geometry, glb, triangle};
use super::Case;
use serde_json::{json, Value};

/// Node graphs: long chains, cycles, shared children, huge arrays.
pub(super) fn graph_claims(out: &mut Vec<Case>) {
    let (base, bin) = triangle();
    for n in [60_000usize, 70_000] {
        let mut j = base.clone();
        j["nodes"] = json!((0..n)
            .map(|i| {
                let mut node = json!({"children": [i + 1]});
                if i + 1 == n {
                    node = json!({"mesh": 0});
                }
                node
            })
            .collect::<Vec<_>>());
        out.push(Case::gltf(
            format!("a chain of {n} nodes"),
            glb(&j, Some(&bin)),
        ));
    }
    for (label, nodes, scene) in [
        (
            "two nodes that are each other's child",
            json!([{"mesh": 0, "children": [1]}, {"children": [0]}]),
            json!([0]),
        ),
        (
            "a node that is its own child",
            json!([{"mesh": 0, "children": [0]}]),
            json!([0]),
        ),
        (
            "a cycle no scene reaches",
            json!([{"mesh": 0, "children": [1]}, {"children": [0]}]),
            json!([]),
        ),
        (
            "a node with two parents",
            json!([{"children": [2]}, {"children": [2]}, {"mesh": 0}]),
            json!([0, 1]),
        ),
        (
            "a scene naming one node 1000 times",
            json!([{"mesh": 0}]),
            json!(vec![0; 1000]),
        ),
        (
            "a child index past the nodes",
            json!([{"mesh": 0, "children": [4_000_000_000u64]}]),
            json!([0]),
        ),
        (
            "a scene node index past the nodes",
            json!([{"mesh": 0}]),
            json!([1u64 << 40]),
        ),
    ] {
        let mut j = base.clone();
        j["nodes"] = nodes;
        j["scenes"][0]["nodes"] = scene;
        both(out, label, &j, &bin);
    }
    let mut j = base.clone();
    j.as_object_mut().unwrap().remove("scene");
    j.as_object_mut().unwrap().remove("scenes");
    j["nodes"] = json!([{"mesh": 0, "children": [1]}, {"children": [0]}]);
    both(out, "a cycle in a file without scenes", &j, &bin);
    // Huge arrays of empty objects.
    for key in [
        "nodes",
        "materials",
        "scenes",
        "samplers",
        "images",
        "meshes",
    ] {
        let mut j = base.clone();
        let item = match key {
            "meshes" => json!({"primitives": [{"attributes": {"POSITION": 0}}]}),
            _ => json!({}),
        };
        let mut items = j[key].as_array().cloned().unwrap_or_default();
        items.extend(std::iter::repeat_n(item, 100_000));
        j[key] = json!(items);
        out.push(Case::gltf(
            format!("100000 more {key}"),
            glb(&j, Some(&bin)),
        ));
    }
    // 100000 primitives in one mesh.
    let mut j = base.clone();
    let prim = j["meshes"][0]["primitives"][0].clone();
    j["meshes"][0]["primitives"] = json!(vec![prim; 100_000]);
    out.push(Case::gltf("100000 primitives", glb(&j, Some(&bin))));
}

/// Small files that name the same large data many times.
pub(super) fn reuse_claims(out: &mut Vec<Case>) {
    // 50000 vertices, one triangle.
    let n = 50_000;
    let (bin, positions) = geometry(n, &[0, 1, 2]);
    let (mut base, _) = triangle();
    base["buffers"][0]["byteLength"] = json!(bin.len());
    base["bufferViews"][0]["byteLength"] = json!(positions);
    base["bufferViews"][1]["byteOffset"] = json!(positions);
    base["accessors"][0]["count"] = json!(n);

    // One mesh on 2000 nodes.
    let mut j = base.clone();
    let count = 2000;
    j["nodes"] = json!(vec![json!({"mesh": 0}); count]);
    j["scenes"][0]["nodes"] = json!((0..count).collect::<Vec<_>>());
    out.push(Case::gltf(
        "a 50000-vertex mesh on 2000 nodes",
        glb(&j, Some(&bin)),
    ));
    // 2000 primitives sharing its accessors.
    let mut j = base.clone();
    let prim = j["meshes"][0]["primitives"][0].clone();
    j["meshes"][0]["primitives"] = json!(vec![prim; count]);
    out.push(Case::gltf(
        "2000 primitives sharing a 50000-vertex accessor",
        glb(&j, Some(&bin)),
    ));
    // 2000 accessors over the same view, one per primitive.
    let mut j = base.clone();
    let accessor = j["accessors"][0].clone();
    let mut accessors = vec![accessor; count];
    accessors.push(j["accessors"][1].clone());
    j["accessors"] = json!(accessors);
    j["meshes"][0]["primitives"] = json!((0..count)
        .map(|a| json!({"attributes": {"POSITION": a}, "indices": count}))
        .collect::<Vec<_>>());
    out.push(Case::gltf(
        "2000 accessors aliasing one 50000-vertex view",
        glb(&j, Some(&bin)),
    ));
    // Every attribute of 2000 primitives on one accessor of VEC3 floats.
    let mut j = base.clone();
    j["meshes"][0]["primitives"] = json!(vec![
        json!({"attributes": {"POSITION": 0, "NORMAL": 0, "COLOR_0": 0}, "indices": 1});
        count
    ]);
    out.push(Case::gltf(
        "2000 primitives with every attribute on one accessor",
        glb(&j, Some(&bin)),
    ));
    // Triangle strips and fans over 50000 u8 indices (all degenerate after the first).
    for mode in [5, 6] {
        let mut j = base.clone();
        let mut b = bin.clone();
        let at = b.len();
        b.extend(std::iter::repeat_n(0u8, 50_000));
        b[at + 1] = 1;
        b[at + 2] = 2;
        j["buffers"][0]["byteLength"] = json!(b.len());
        j["bufferViews"][1] = json!({"buffer": 0, "byteOffset": at, "byteLength": 50_000});
        j["accessors"][1] =
            json!({"bufferView": 1, "componentType": 5121, "count": 50_000, "type": "SCALAR"});
        j["meshes"][0]["primitives"][0]["mode"] = json!(mode);
        let prim = j["meshes"][0]["primitives"][0].clone();
        j["meshes"][0]["primitives"] = json!(vec![prim; 200]);
        out.push(Case::gltf(
            format!("200 primitives of mode {mode} over 50000 u8 indices"),
            glb(&j, Some(&b)),
        ));
    }
}

/// Exports of a small model whose `msh` extras claim huge tables: the exact
/// rebuild sizes its tables from these counts.
pub fn extras_claims(msh: &[u8]) -> Vec<Case> {
    let options = mshconv_gltf::ExportOptions {
        format: mshconv_gltf::GltfFormat::Gltf,
        ..Default::default()
    };
    let (gltf, _) = mshconv_gltf::msh_to_gltf(msh, &options).unwrap();
    let doc: Value = serde_json::from_slice(&gltf).unwrap();
    let mut out = Vec::new();
    let mut push = |label: String, mutate: &dyn Fn(&mut Value)| {
        let mut j = doc.clone();
        mutate(&mut j);
        out.push(Case::gltf(label, serde_json::to_vec(&j).unwrap()));
    };
    for value in [1u64 << 31, u32::MAX as u64] {
        for field in [
            "vertices",
            "indices",
            "tri_descs",
            "batches",
            "slots",
            "keys",
            "map_words",
        ] {
            push(format!("extras counts.{field} = {value}"), &|j| {
                j["scenes"][0]["extras"]["msh"]["counts"][field] = json!(value);
                if field == "tri_descs" {
                    // Derived (not raw) Res7, sized by the count.
                    if let Some(raw) = j["scenes"][0]["extras"]["msh"]["raw"].as_object_mut() {
                        raw.remove("tri_descs");
                    }
                }
            });
        }
        push(
            format!("extras counts.vertices and POSITION counts = {value}"),
            &|j| {
                j["scenes"][0]["extras"]["msh"]["counts"]["vertices"] = json!(value);
                let positions: Vec<u64> = j["meshes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|m| m["primitives"].as_array().unwrap().iter())
                    .filter_map(|p| p["attributes"]["POSITION"].as_u64())
                    .collect();
                for a in positions {
                    j["accessors"][a as usize]["count"] = json!(value);
                }
            },
        );
        for gaps in ["vertex_gaps", "index_gaps", "batch_gaps"] {
            push(format!("extras {gaps} of {value} records"), &|j| {
                j["scenes"][0]["extras"]["msh"][gaps] =
                    json!([{"start": 0, "count": value, "data": "AAAA"}]);
            });
        }
        push(format!("extras frame_count = {value}"), &|j| {
            j["scenes"][0]["extras"]["msh"]["frame_count"] = json!(value);
        });
        push(format!("extras entry filler length {value}"), &|j| {
            j["scenes"][0]["extras"]["msh"]["entries"][0]["filler"] = json!([value, "AAAA"]);
        });
        push(format!("node extras index {value}"), &|j| {
            j["nodes"][0]["extras"]["msh"]["node"] = json!(value);
        });
        push(format!("slot extras index {value}"), &|j| {
            j["meshes"][0]["extras"]["msh"]["slot"] = json!(value);
        });
    }
    out
}
