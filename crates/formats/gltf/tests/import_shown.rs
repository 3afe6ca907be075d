//! Foreign glTF: the model gets what viewers show (issue 30). Each file is
//! written here, by the spec: instances (`EXT_mesh_gpu_instancing`) become
//! nodes, default morph weights shape the base mesh, the base colour
//! texture's UV set (with its transform) becomes Res5, UVs beyond Res5's
//! range move by whole repeats, and each note comes once with its count.
//! glTF-Transform's `instance` makes the instanced file of one test.

mod common;
mod common_gltf;

use common::gltf_build::Doc;
use common::gltf_sampler::{compose, quat_matrix, M34, V3};
use common::notes;
use mshconv_convert::axes::Axes;
use mshconv_convert::{Axis, Report, Rotation};
use mshconv_gltf::gltf_to_msh;
use mshconv_gltf::ImportOptions;
use serde_json::json;

const AXES: Axes = Axes {
    axis: Axis::YUp,
    rotation: Rotation::Conjugate,
};

fn no_files(_: &str) -> Option<Vec<u8>> {
    None
}

fn import(gltf: &[u8]) -> (Vec<u8>, Report) {
    gltf_to_msh(gltf, &ImportOptions::default(), &no_files).unwrap_or_else(|e| panic!("{e}"))
}

/// World corners (glTF frame) of every triangle of the node named `name`.
fn world_triangles(msh: &[u8], name: &str) -> Vec<[V3; 3]> {
    let opened = msh::open(msh, msh::Mode::Strict).unwrap();
    let view = &opened.view;
    let i = (0..view.nodes.len())
        .find(|&i| view.node_name(i) == Some(name.as_bytes()))
        .unwrap_or_else(|| panic!("no node {name}"));
    let world = msh::pose::world_transforms(view, 0.0, msh::pose::Rotation::Conjugate).unwrap();
    let slot = view.nodes[i].slot(0, 0).expect("geometry at LOD 0 group 0");
    common::slot_triangles(view, slot)
        .into_iter()
        .map(|(_, t)| {
            t.map(|v| AXES.vec(world[i].point(view.positions[v].map(|c| f64::from(c.get())))))
        })
        .collect()
}

fn close(a: V3, b: V3, tol: f64) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tol * b[k].abs().max(1.0))
}

/// A quad in the XY plane, 0..1, two triangles.
fn quad(doc: &mut Doc) -> serde_json::Value {
    let p = doc.floats(
        &[0., 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.],
        3,
        "VEC3",
        true,
    );
    let i = doc.indices(&[0, 1, 2, 0, 2, 3]);
    json!({"attributes": {"POSITION": p}, "indices": i})
}

// ---------------------------------------------------------------- instancing

fn trs_matrix(t: V3, r: [f64; 4], s: V3) -> M34 {
    let m = quat_matrix(r);
    std::array::from_fn(|row| [m[row][0] * s[0], m[row][1] * s[1], m[row][2] * s[2], t[row]])
}

fn apply(m: &M34, p: V3) -> V3 {
    std::array::from_fn(|r| (0..3).map(|k| m[r][k] * p[k]).sum::<f64>() + m[r][3])
}

/// An instance's translation, rotation and scale.
type Trs = (V3, [f64; 4], V3);

/// A node `Grove` (moved, turned) whose quad is drawn at `count` instances.
fn instanced(count: usize) -> (Vec<u8>, Vec<Trs>) {
    let mut doc = Doc::default();
    let prim = quad(&mut doc);
    let instances: Vec<Trs> = (0..count)
        .map(|i| {
            let a = i as f64 * 0.7;
            let (s, c) = (a / 2.0).sin_cos();
            (
                [i as f64 * 2.0, 0.5, -(i as f64)],
                [0.0, s, 0.0, c],
                [1.0 + 0.25 * (i % 3) as f64, 1.0, 0.5 + 0.5 * (i % 2) as f64],
            )
        })
        .collect();
    let flat = |f: &dyn Fn(&Trs) -> Vec<f64>| -> Vec<f32> {
        instances.iter().flat_map(f).map(|c| c as f32).collect()
    };
    let t = doc.floats(&flat(&|i| i.0.to_vec()), 3, "VEC3", false);
    let r = doc.floats(&flat(&|i| i.1.to_vec()), 4, "VEC4", false);
    let s = doc.floats(&flat(&|i| i.2.to_vec()), 3, "VEC3", false);
    let gltf = doc.finish(json!({
        "extensionsUsed": ["EXT_mesh_gpu_instancing"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{
            "name": "Grove", "mesh": 0, "translation": [1.0, 2.0, 3.0],
            "rotation": [0.0, 0.0, 0.38268343, 0.92387953],
            "extensions": {"EXT_mesh_gpu_instancing": {
                "attributes": {"TRANSLATION": t, "ROTATION": r, "SCALE": s}
            }}
        }],
        "meshes": [{"primitives": [prim]}]
    }));
    (gltf, instances)
}

#[test]
fn instances_become_nodes_where_a_viewer_draws_them() {
    let (gltf, instances) = instanced(7);
    let (msh, report) = import(&gltf);
    assert_eq!(
        notes(&report, "import.instances_expanded"),
        ["7 instances of 1 nodes (EXT_mesh_gpu_instancing) became nodes of their own, each a child of its node holding the mesh"]
    );
    let node = trs_matrix(
        [1.0, 2.0, 3.0],
        [0.0, 0.0, 0.38268343, 0.92387953],
        [1.0; 3],
    );
    let corners: [V3; 4] = [[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]];
    for (i, &(t, r, s)) in instances.iter().enumerate() {
        // The spec: world = node * instance TRS, the mesh in the instance's frame.
        let world = compose(&node, &trs_matrix(t, r, s));
        let got = world_triangles(&msh, &format!("Grove_{i}"));
        let want = [[0, 1, 2], [0, 2, 3]].map(|t| t.map(|k| apply(&world, corners[k])));
        assert_eq!(got.len(), 2, "instance {i}");
        for w in &want {
            assert!(
                got.iter().any(|g| (0..3).any(|rot| (0..3).all(|c| close(
                    g[(c + rot) % 3],
                    w[c],
                    1e-4
                )))),
                "instance {i}: {w:?} not in {got:?}"
            );
        }
    }
    let opened = msh::open(&msh, msh::Mode::Strict).unwrap();
    let grove = (0..opened.view.nodes.len())
        .find(|&i| opened.view.node_name(i) == Some(&b"Grove"[..]))
        .unwrap();
    assert!(
        opened.view.nodes[grove].slot(0, 0).is_none(),
        "the instanced node draws nothing itself"
    );
    // Required as well as used: honoured the same way.
    let mut v: serde_json::Value = serde_json::from_slice(&gltf).unwrap();
    v["extensionsRequired"] = json!(["EXT_mesh_gpu_instancing"]);
    let (again, _) = import(&serde_json::to_vec(&v).unwrap());
    assert_eq!(again, msh);
}

/// Every triangle of the model at frame 0, world corners (glTF frame).
fn all_world_triangles(msh: &[u8]) -> Vec<[V3; 3]> {
    let opened = msh::open(msh, msh::Mode::Strict).unwrap();
    let view = &opened.view;
    (0..view.nodes.len())
        .filter(|&i| view.nodes[i].slot(0, 0).is_some())
        .flat_map(|i| {
            let name = String::from_utf8_lossy(view.node_name(i).unwrap_or(b"")).into_owned();
            world_triangles(msh, &name)
        })
        .collect()
}

/// glTF-Transform's `instance` turns twelve nodes sharing a mesh into one
/// node with `EXT_mesh_gpu_instancing`: the import draws the same triangles
/// at the same places as the import of the twelve nodes.
#[test]
fn gltf_transform_instances_import_as_the_nodes_they_were() {
    let mut doc = Doc::default();
    let prim = quad(&mut doc);
    let nodes: Vec<serde_json::Value> = (0..12)
        .map(|i| {
            let a = f64::from(i) * 0.4;
            json!({
                "name": format!("Post{i}"), "mesh": 0,
                "translation": [f64::from(i), 0.0, f64::from(i % 4)],
                "rotation": [(a / 2.0).sin(), 0.0, 0.0, (a / 2.0).cos()],
                "scale": [1.0 + f64::from(i % 3), 1.0, 0.5]
            })
        })
        .collect();
    let gltf = doc.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": (0..12).collect::<Vec<_>>()}],
        "nodes": nodes,
        "meshes": [{"primitives": [prim]}]
    }));
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("posts.gltf"), dir.path().join("posts.glb"));
    std::fs::write(&input, &gltf).unwrap();
    common_gltf::gltf_transform::transform(&["instance"], &input, &output);
    let instanced = std::fs::read(&output).unwrap();
    let json = common_gltf::gltf_transform::glb_json(&instanced);
    assert_eq!(json["extensionsUsed"], json!(["EXT_mesh_gpu_instancing"]));
    let (msh, report) = import(&instanced);
    assert_eq!(
        notes(&report, "import.instances_expanded").len(),
        1,
        "{report:?}"
    );
    let (want, got) = (
        all_world_triangles(&import(&gltf).0),
        all_world_triangles(&msh),
    );
    assert_eq!(want.len(), 24);
    assert_eq!(got.len(), 24);
    for w in &want {
        assert!(
            got.iter().any(|g| (0..3).any(|rot| (0..3).all(|c| close(
                g[(c + rot) % 3],
                w[c],
                1e-5
            )))),
            "{w:?} is not drawn by the instances"
        );
    }
}

#[test]
fn instances_past_the_format_limits_are_refused_with_a_code() {
    // 40,000 instances of two triangles: 80,000 triangles, 40,001 nodes.
    let (gltf, _) = instanced(40_000);
    let e = gltf_to_msh(&gltf, &ImportOptions::default(), &no_files).unwrap_err();
    assert_eq!(e.code(), "gltf.instances_too_many", "{e}");
    assert!(e
        .to_string()
        .contains("/nodes/0/extensions/EXT_mesh_gpu_instancing"));
    // Attributes of different counts are a malformed extension.
    let mut v: serde_json::Value = serde_json::from_slice(&instanced(3).0).unwrap();
    let attrs = &mut v["nodes"][0]["extensions"]["EXT_mesh_gpu_instancing"]["attributes"];
    attrs["SCALE"] = attrs["TRANSLATION"].clone();
    let t = attrs["TRANSLATION"].as_u64().unwrap() as usize;
    v["accessors"][t]["count"] = json!(2);
    let e = gltf_to_msh(
        &serde_json::to_vec(&v).unwrap(),
        &ImportOptions::default(),
        &no_files,
    )
    .unwrap_err();
    assert_eq!(e.code(), "gltf.instancing_invalid", "{e}");
}

// ---------------------------------------------------------------- morph weights

#[test]
fn default_morph_weights_shape_the_base_mesh() {
    let mut doc = Doc::default();
    let mut prim = quad(&mut doc);
    // Target 0 lifts corner 2 along +Z and bends its normal; target 1 moves everything in X.
    let vec3 = |doc: &mut Doc, v: &[f32]| doc.floats(v, 3, "VEC3", true);
    let normals = vec3(&mut doc, &[0., 0., 1., 0., 0., 1., 0., 0., 1., 0., 0., 1.]);
    let lift = vec3(&mut doc, &[0., 0., 0., 0., 0., 0., 0., 0., 2., 0., 0., 0.]);
    let bend = vec3(&mut doc, &[0., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0.]);
    let shift = vec3(&mut doc, &[4., 0., 0., 4., 0., 0., 4., 0., 0., 4., 0., 0.]);
    prim["attributes"]["NORMAL"] = json!(normals);
    prim["targets"] = json!([{"POSITION": lift, "NORMAL": bend}, {"POSITION": shift}]);
    let gltf = doc.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "MeshWeights", "mesh": 0},
            {"name": "NodeWeights", "mesh": 0, "weights": [1.0, 0.0], "translation": [0.0, 5.0, 0.0]}
        ],
        "meshes": [{"primitives": [prim], "weights": [0.5, 0.25]}]
    }));
    let (msh, report) = import(&gltf);
    assert_eq!(
        notes(&report, "import.morph_weights_applied").len(),
        1,
        "{report:?}"
    );
    assert_eq!(notes(&report, "import.morph_targets_dropped").len(), 1);
    // Mesh weights 0.5, 0.25: corner 2 at (1 + 1, 1, 1), the others moved by
    // 1 in X; the node's weights override the mesh's: corner 2 at (1, 1, 2)
    // (node at y 5), no shift.
    for (node, corners) in [
        ("MeshWeights", [[2.0, 1.0, 1.0], [1.0, 0.0, 0.0]]),
        ("NodeWeights", [[1.0, 6.0, 2.0], [0.0, 5.0, 0.0]]),
    ] {
        let got = world_triangles(&msh, node);
        for want in corners {
            assert!(
                got.iter().flatten().any(|c| close(*c, want, 1e-6)),
                "{node}: {want:?} in {got:?}"
            );
        }
    }
    // Corner 2's normal is (1, 0, 1) normalised on NodeWeights, (0.5, 0, 1) on MeshWeights.
    let opened = msh::open(&msh, msh::Mode::Strict).unwrap();
    let view = &opened.view;
    let normals: Vec<V3> = view
        .normals
        .unwrap()
        .iter()
        .map(|n| AXES.vec(n.decode().map(f64::from)))
        .collect();
    for want in [[0.5f64, 0.0, 1.0], [1.0, 0.0, 1.0]] {
        let l = (want[0] * want[0] + want[2] * want[2]).sqrt();
        let want = want.map(|c| c / l);
        assert!(
            normals.iter().any(|n| close(*n, want, 2e-2)),
            "{want:?} in {normals:?}"
        );
    }
}

// ---------------------------------------------------------------- the base colour's UV set

/// The model's Res5 UVs, decoded.
fn res5(msh: &[u8]) -> Vec<[f32; 2]> {
    let opened = msh::open(msh, msh::Mode::Strict).unwrap();
    opened
        .view
        .uv0
        .unwrap()
        .iter()
        .map(|u| u.decode())
        .collect()
}

#[test]
fn the_base_colour_texture_set_and_its_transform_become_res5() {
    let mut doc = Doc::default();
    let mut prim = quad(&mut doc);
    let uv0 = doc.floats(&[0.; 8], 2, "VEC2", false);
    let uv1 = doc.floats(&[0., 0., 1., 0., 1., 1., 0., 1.], 2, "VEC2", false);
    prim["attributes"]["TEXCOORD_0"] = json!(uv0);
    prim["attributes"]["TEXCOORD_1"] = json!(uv1);
    prim["material"] = json!(0);
    let gltf = doc.finish(json!({
        "extensionsUsed": ["KHR_texture_transform"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Sign", "mesh": 0}],
        "meshes": [{"primitives": [prim]}],
        "materials": [{"name": "mat2", "pbrMetallicRoughness": {"baseColorTexture": {
            "index": 0, "texCoord": 1,
            "extensions": {"KHR_texture_transform": {"offset": [0.5, 0.25], "scale": [2.0, 3.0]}}
        }}}],
        "textures": [{"source": 0}],
        "images": [{"uri": "sign.png"}]
    }));
    let (msh, report) = import(&gltf);
    assert_eq!(notes(&report, "import.uv_set").len(), 1, "{report:?}");
    let got = res5(&msh);
    // uv' = offset + scale * uv1.
    assert_eq!(got, [[0.5, 0.25], [2.5, 0.25], [2.5, 3.25], [0.5, 3.25]]);
}

// ---------------------------------------------------------------- UVs beyond the range

#[test]
fn uvs_beyond_the_range_move_by_whole_repeats_or_are_counted() {
    let mut doc = Doc::default();
    // Two quads: one at u 100.25..101.25 (moves), one spanning u -40..40 (cannot).
    let p = doc.floats(
        &[
            0., 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0., //
            2., 0., 0., 3., 0., 0., 3., 1., 0., 2., 1., 0.,
        ],
        3,
        "VEC3",
        true,
    );
    let uvs = [
        100.25, 0.5, 101.25, 0.5, 101.25, -0.5, 100.25, -0.5, //
        -40.0, 0.0, 40.0, 0.0, 40.0, 1.0, -40.0, 1.0,
    ];
    let uv = doc.floats(&uvs, 2, "VEC2", false);
    let i = doc.indices(&[0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7]);
    let gltf = doc.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Tiles", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": p, "TEXCOORD_0": uv}, "indices": i}]}]
    }));
    let (msh, report) = import(&gltf);
    assert_eq!(
        notes(&report, "import.uvs_shifted"),
        ["1 pieces of texture coordinates beyond Res5's range (-32 to +32) were moved by whole texture repeats into it (the same texels under repeat wrapping)"]
    );
    assert_eq!(notes(&report, "import.uvs_clamped").len(), 1);
    let got = res5(&msh);
    // 101.25 - 70 = 31.25 (the shift nearest 0 that fits): exact, whole repeats.
    assert_eq!(
        &got[..4],
        [[30.25, 0.5], [31.25, 0.5], [31.25, -0.5], [30.25, -0.5]]
    );
    for (g, w) in got[..4].iter().zip(uvs.chunks(2)) {
        assert_eq!((f64::from(g[0]) - f64::from(w[0])).fract(), 0.0);
        assert_eq!(g[1], w[1]);
    }
}

// ---------------------------------------------------------------- each note once

#[test]
fn each_note_comes_once_with_its_count() {
    let mut doc = Doc::default();
    let prim = quad(&mut doc);
    let times = doc.floats(&[0.0, 1.0], 1, "SCALAR", true);
    let scales = doc.floats(&[1., 1., 1., 2., 2., 2.], 3, "VEC3", false);
    let points = doc.floats(&[0., 0., 0.], 3, "VEC3", true);
    let n = 19;
    let nodes: Vec<serde_json::Value> = (0..n)
        .map(|k| json!({"name": format!("N{k}"), "mesh": k % 3}))
        .collect();
    let channels: Vec<serde_json::Value> = (0..n)
        .map(|k| json!({"sampler": 0, "target": {"node": k, "path": "scale"}}))
        .collect();
    let with_points = |name: &str| json!({"name": name, "primitives": [prim.clone(), {"attributes": {"POSITION": points}, "mode": 0}]});
    let gltf = doc.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": (0..n).collect::<Vec<_>>()}],
        "nodes": nodes,
        "meshes": [with_points("a"), with_points("b"), with_points("c")],
        "animations": [{"channels": channels,
            "samplers": [{"input": times, "output": scales, "interpolation": "LINEAR"}]}]
    }));
    let (_, report) = import(&gltf);
    assert_eq!(
        notes(&report, "import.scale_animation_ignored"),
        ["scale animation ignored on 19 nodes: MSH nodes cannot hold it"]
    );
    let skipped = notes(&report, "import.primitive_skipped");
    assert_eq!(skipped.len(), 1, "{report:?}");
    assert!(
        skipped[0].starts_with("19 primitives that are not triangles"),
        "{}",
        skipped[0]
    );
    let mut codes: Vec<&str> = report.notes.iter().map(|n| n.code).collect();
    let all = codes.len();
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), all, "a code noted twice: {report:?}");
}
