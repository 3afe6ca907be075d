//! Hand-made variants of the foreign files: side-car buffers, buffer URIs
//! outside the folder, strips and fans, and several animations at once.

use super::*;

// ---------------------------------------------------------------- .gltf with side-car buffers

/// Splits a GLB into its JSON (as a value) and BIN chunk.
fn split_glb(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let u32_at = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    assert_eq!(&glb[bin_at + 4..bin_at + 8], b"BIN\0");
    let bin = glb[bin_at + 8..bin_at + 8 + u32_at(bin_at)].to_vec();
    (json, bin)
}

fn with_uri(json: &serde_json::Value, uri: &str) -> Vec<u8> {
    let mut json = json.clone();
    json["buffers"][0]["uri"] = serde_json::Value::String(uri.to_string());
    serde_json::to_vec_pretty(&json).unwrap()
}

#[test]
fn gltf_with_a_side_car_buffer_imports_like_the_glb() {
    for glb_name in ["blender_scene.glb", "threejs_scene.glb"] {
        let glb = read(glb_name);
        let (json, bin) = split_glb(&glb);
        let folder = tempfile::tempdir().unwrap();
        let bin_name = glb_name.replace(".glb", ".bin");
        let gltf = with_uri(&json, &bin_name);
        std::fs::write(folder.path().join(&bin_name), &bin).unwrap();
        std::fs::write(folder.path().join("scene.gltf"), &gltf).unwrap();
        let asked = RefCell::new(Vec::new());
        let resolver = |name: &str| {
            asked.borrow_mut().push(name.to_string());
            std::fs::read(folder.path().join(name)).ok()
        };
        let text = std::fs::read(folder.path().join("scene.gltf")).unwrap();
        let (from_gltf, _) = gltf_to_msh(&text, &ImportOptions::default(), &resolver).unwrap();
        let (from_glb, _) = import(&glb);
        assert_eq!(
            from_gltf, from_glb,
            "{glb_name}: .gltf + .bin gives the GLB's model"
        );
        assert_eq!(
            asked.borrow().as_slice(),
            std::slice::from_ref(&bin_name),
            "{glb_name}: asked once, by plain name"
        );

        // A missing side-car file is a typed error, after one question.
        asked.borrow_mut().clear();
        let none = |name: &str| {
            asked.borrow_mut().push(name.to_string());
            None
        };
        let e = gltf_to_msh(&gltf, &ImportOptions::default(), &none).unwrap_err();
        assert_eq!(e.code(), "gltf.missing_buffer", "{e}");
        assert_eq!(asked.borrow().len(), 1);
    }
}

#[test]
fn buffer_uris_outside_the_folder_are_refused_without_asking_the_resolver() {
    let (json, _) = split_glb(&read("threejs_scene.glb"));
    for uri in [
        "../x.bin",
        "/etc/passwd",
        "http://example.com/x.bin",
        "https://example.com/x.bin",
        "file:///etc/passwd",
        "sub/x.bin",
        "..%2Fx.bin",
        "%2Fetc%2Fpasswd",
        "C:\\x.bin",
        "\\\\server\\share\\x.bin",
        "..",
        ".hidden.bin",
    ] {
        let calls = RefCell::new(0usize);
        let resolver = |_: &str| {
            *calls.borrow_mut() += 1;
            Some(Vec::new())
        };
        let e = gltf_to_msh(&with_uri(&json, uri), &ImportOptions::default(), &resolver)
            .expect_err(uri);
        assert_eq!(e.code(), "gltf.uri_refused", "{uri}: {e}");
        assert_eq!(*calls.borrow(), 0, "{uri}: the resolver was called");
    }
}

// ---------------------------------------------------------------- strips and fans

/// A tiny .gltf with one mesh whose primitives use `modes`, over 6 vertices on a
/// zig-zag in the XY plane (all facing +Z when wound as glTF says).
fn strip_fan_gltf(modes: &[u32], indexed: bool) -> Vec<u8> {
    use base64::Engine as _;
    let positions: [[f32; 3]; 6] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 2.0, 0.0],
        [1.0, 2.0, 0.0],
    ];
    let mut bin: Vec<u8> = positions
        .iter()
        .flatten()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let indices: [u16; 6] = [0, 1, 2, 3, 4, 5];
    bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let primitives: Vec<serde_json::Value> = modes
        .iter()
        .map(|&mode| {
            let mut p = serde_json::json!({"attributes": {"POSITION": 0}, "mode": mode});
            if indexed {
                p["indices"] = serde_json::json!(1);
            }
            p
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Strip", "mesh": 0}],
        "meshes": [{"primitives": primitives}],
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 72},
            {"buffer": 0, "byteOffset": 72, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 6, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 2.0, 0.0]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ]
    }))
    .unwrap()
}

#[test]
fn strips_and_fans_become_triangles_with_their_winding() {
    // glTF: strip triangle i is (i, i+1, i+2) for even i and (i+1, i, i+2) for
    // odd i; fan triangle i is (0, i+1, i+2). Compared as world triangles with
    // their winding (cyclic rotations only).
    let p = |k: u32| [f64::from(k % 2), f64::from(k / 2), 0.0];
    let strip: Vec<[u32; 3]> = (0..4)
        .map(|i| {
            if i % 2 == 0 {
                [i, i + 1, i + 2]
            } else {
                [i + 1, i, i + 2]
            }
        })
        .collect();
    let fan: Vec<[u32; 3]> = (0..4).map(|i| [0, i + 1, i + 2]).collect();
    for (t, _) in strip.iter().map(|t| (t.map(p), ())) {
        let n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
        assert!(n[2] > 0.0, "the zig-zag strip faces +Z throughout: {t:?}");
    }
    for indexed in [true, false] {
        for (mode, tris) in [(5u32, &strip), (6, &fan)] {
            let m = open(&import(&strip_fan_gltf(&[mode], indexed)).0);
            let got = &m.triangles[m.node("Strip").unwrap()];
            let want: Vec<(u16, Tri)> = tris.iter().map(|t| (0, t.map(p))).collect();
            let mut failures = Vec::new();
            match_triangles(
                &format!("mode {mode}, indexed {indexed}"),
                &want,
                got,
                &mut failures,
            );
            common::fail_if_any("strips and fans", failures);
        }
    }
}

// ---------------------------------------------------------------- several animations

/// Two empty nodes A and B and three LINEAR translation animations:
/// `a1` moves A along +X over 1 s, `b1` moves B along +Y over 0.5 s, `a2` moves A along +Z over 1 s.
fn three_animations() -> Vec<u8> {
    use base64::Engine as _;
    // Accessor data, 8 or 24 bytes each, back to back.
    let sections: [&[f32]; 5] = [
        &[0.0, 1.0],
        &[0.0, 0.5],
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        &[0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
        &[0.0, 0.0, 0.0, 0.0, 0.0, 3.0],
    ];
    let bin: Vec<u8> = sections
        .iter()
        .flat_map(|s| s.iter())
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut at = 0;
    for (k, s) in sections.iter().enumerate() {
        views.push(serde_json::json!({"buffer": 0, "byteOffset": at, "byteLength": 4 * s.len()}));
        accessors.push(if k < 2 {
            serde_json::json!({"bufferView": k, "componentType": 5126, "count": 2, "type": "SCALAR",
                               "min": [s[0]], "max": [s[1]]})
        } else {
            serde_json::json!({"bufferView": k, "componentType": 5126, "count": 2, "type": "VEC3"})
        });
        at += 4 * s.len();
    }
    let anim = |name: &str, node: usize, input: usize, output: usize| {
        serde_json::json!({
            "name": name,
            "channels": [{"sampler": 0, "target": {"node": node, "path": "translation"}}],
            "samplers": [{"input": input, "output": output, "interpolation": "LINEAR"}]
        })
    };
    serde_json::to_vec(&serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "A"}, {"name": "B"}],
        "buffers": [{"byteLength": bin.len(), "uri": format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bin)
        )}],
        "bufferViews": views,
        "accessors": accessors,
        "animations": [anim("a1", 0, 0, 2), anim("b1", 1, 1, 3), anim("a2", 0, 0, 4)]
    }))
    .unwrap()
}

#[test]
fn animations_on_different_nodes_play_together_and_the_others_follow() {
    let gltf = three_animations();
    let (bytes, report) = import(&gltf);
    let m = open(&bytes);
    let (a, b) = (m.node("A").unwrap(), m.node("B").unwrap());
    // a1 + b1 play together on frames 0..=24, then a2 on frames 25..=49.
    assert_eq!(m.frame_count, 50, "{:?}", report.notes);
    assert!(report.has("import.animations_merged"), "{:?}", report.notes);
    let clips = report
        .notes
        .iter()
        .find(|n| n.code == "import.clips")
        .expect("clip ranges are reported");
    assert!(
        clips.message.contains("\"a1\" + \"b1\" frames 0..=24")
            && clips.message.contains("\"a2\" frames 25..=49"),
        "{}",
        clips.message
    );
    let at = |node: usize, f: usize| translation_of(&m.world[f][node]);
    for (node, f, want) in [
        (a, 0, [0.0, 0.0, 0.0]),
        (a, 12, [0.5, 0.0, 0.0]),
        (a, 24, [1.0, 0.0, 0.0]),
        (b, 6, [0.0, 1.0, 0.0]),
        (b, 12, [0.0, 2.0, 0.0]),
        (b, 24, [0.0, 2.0, 0.0]),
        (a, 37, [0.0, 0.0, 1.5]),
        (a, 49, [0.0, 0.0, 3.0]),
        (b, 37, [0.0, 0.0, 0.0]),
    ] {
        let got = at(node, f);
        assert!(
            abs_diff(got, want) < 1e-5,
            "{} at frame {f}: {got:?}, want {want:?}",
            m.names[node]
        );
    }
    // One animation chosen by index or name: only it, from frame 0.
    for choice in [
        mshconv_gltf::AnimationChoice::Index(1),
        mshconv_gltf::AnimationChoice::Name("b1".into()),
    ] {
        let options = ImportOptions {
            animation: choice.clone(),
            ..Default::default()
        };
        let (bytes, report) = gltf_to_msh(&gltf, &options, &no_files).unwrap();
        let m = open(&bytes);
        assert_eq!(m.frame_count, 13, "{choice:?}: {:?}", report.notes);
        assert!(!report.has("import.clips") && !report.has("import.animations_merged"));
        let (a, b) = (m.node("A").unwrap(), m.node("B").unwrap());
        assert!(abs_diff(translation_of(&m.world[6][b]), [0.0, 1.0, 0.0]) < 1e-5);
        assert!(abs_diff(translation_of(&m.world[6][a]), [0.0, 0.0, 0.0]) < 1e-5);
    }
}
