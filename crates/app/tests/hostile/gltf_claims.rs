//! Hand-made glTF/GLB files that claim far more than they hold: huge counts,
//! lengths and offsets, GLB headers and chunk lengths that lie, animation
//! samplers with huge key counts.

use super::gltf_build::{animated, both, data_uri, glb, triangle};
use super::gltf_graph::{graph_claims, reuse_claims};
use super::{Case, Kind};
use base64::Engine as _;
use serde_json::{json, Value};

/// Hand-made glTF/GLB files that claim far more than they hold.
pub fn gltf_claims() -> Vec<Case> {
    let mut out = Vec::new();
    let (base, bin) = triangle();
    both(&mut out, "the plain triangle", &base, &bin);

    let huge: [(&str, u64); 5] = [
        ("2^31", 1 << 31),
        ("4e9", 4_000_000_000),
        ("2^32", 1 << 32),
        ("2^53", 1 << 53),
        ("2^63", 1 << 63),
    ];
    // Accessor counts.
    for (name, n) in huge {
        for (accessor, what) in [(0, "POSITION"), (1, "index")] {
            let mut j = base.clone();
            j["accessors"][accessor]["count"] = json!(n);
            both(&mut out, &format!("{what} accessor count {name}"), &j, &bin);
        }
        // Strided: a large byteStride times a huge count.
        let mut j = base.clone();
        j["accessors"][0]["count"] = json!(n);
        j["bufferViews"][0]["byteStride"] = json!(252);
        both(
            &mut out,
            &format!("strided accessor count {name}"),
            &j,
            &bin,
        );
        // Offsets.
        let mut j = base.clone();
        j["accessors"][0]["byteOffset"] = json!(n);
        both(&mut out, &format!("accessor byteOffset {name}"), &j, &bin);
        // Views and buffers.
        let mut j = base.clone();
        j["bufferViews"][0]["byteLength"] = json!(n);
        both(&mut out, &format!("bufferView byteLength {name}"), &j, &bin);
        let mut j = base.clone();
        j["bufferViews"][0]["byteOffset"] = json!(n);
        both(&mut out, &format!("bufferView byteOffset {name}"), &j, &bin);
        let mut j = base.clone();
        j["buffers"][0]["byteLength"] = json!(n);
        both(&mut out, &format!("buffer byteLength {name}"), &j, &bin);
        // Accessors without a view (all zeros, as the spec allows), plain and sparse.
        let mut j = base.clone();
        j["accessors"][0]
            .as_object_mut()
            .unwrap()
            .remove("bufferView");
        j["accessors"][0]["count"] = json!(n);
        both(
            &mut out,
            &format!("POSITION without a view, count {name}"),
            &j,
            &bin,
        );
        for with_view in [true, false] {
            let mut j = base.clone();
            if !with_view {
                j["accessors"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("bufferView");
            }
            j["accessors"][0]["count"] = json!(n);
            j["accessors"][0]["sparse"] = json!({
                "count": n,
                "indices": {"bufferView": 1, "componentType": 5123},
                "values": {"bufferView": 0}
            });
            both(
                &mut out,
                &format!("sparse POSITION count {name}, view {with_view}"),
                &j,
                &bin,
            );
        }
        // Animation input and output counts.
        let (anim, abin) = animated(&[0.0, 1.0]);
        for accessor in [2, 3] {
            let mut j = anim.clone();
            j["accessors"][accessor]["count"] = json!(n);
            both(
                &mut out,
                &format!("animation accessor {accessor} count {name}"),
                &j,
                &abin,
            );
        }
    }
    // A tiny BIN chunk under a buffer that claims a huge length, and a missing one.
    for n in [1u64 << 31, u32::MAX as u64, 1 << 40] {
        let mut j = base.clone();
        j["buffers"][0]["byteLength"] = json!(n);
        out.push(Case::gltf(
            format!("buffer byteLength {n} over a 44-byte BIN chunk"),
            glb(&j, Some(&bin)),
        ));
        out.push(Case::gltf(
            format!("buffer byteLength {n} with no BIN chunk"),
            glb(&j, None),
        ));
        let mut j = base.clone();
        j["buffers"][0]["byteLength"] = json!(n);
        j["buffers"][0]["uri"] = json!(data_uri(&bin));
        out.push(Case::gltf(
            format!("data: URI of 44 bytes claiming {n}"),
            serde_json::to_vec(&j).unwrap(),
        ));
    }
    // data: URIs that are not what they claim.
    for (label, uri) in [
        (
            "data: URI without base64",
            "data:application/octet-stream,AAAA".to_string(),
        ),
        ("data: URI with bad base64", "data:;base64,****".to_string()),
        (
            "data: URI with a huge fake length prefix",
            format!(
                "data:application/octet-stream;length=99999999999;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&bin)
            ),
        ),
        ("empty data: URI", "data:;base64,".to_string()),
    ] {
        let mut j = base.clone();
        j["buffers"][0]["uri"] = json!(uri);
        out.push(Case::gltf(label, serde_json::to_vec(&j).unwrap()));
    }
    // URIs that point at files or the network: never followed.
    for uri in [
        "/etc/passwd",
        "../../etc/passwd",
        "..\\..\\windows\\win.ini",
        "file:///etc/passwd",
        "http://127.0.0.1:9/buffer.bin",
        "side.bin",
        "%2e%2e%2fetc%2fpasswd",
        "",
    ] {
        let mut j = base.clone();
        j["buffers"][0]["uri"] = json!(uri);
        out.push(Case::gltf(
            format!("buffer URI {uri:?}"),
            serde_json::to_vec(&j).unwrap(),
        ));
    }
    // A side-car the resolver hands out, shorter than the buffer claims.
    let mut j = base.clone();
    j["buffers"][0]["uri"] = json!("side.bin");
    j["buffers"][0]["byteLength"] = json!(1u64 << 40);
    out.push(Case {
        label: "side-car of 44 bytes claiming 2^40".into(),
        bytes: serde_json::to_vec(&j).unwrap(),
        kind: Kind::Gltf {
            side_car: Some(("side.bin".into(), bin.clone())),
        },
    });
    // Images are never read, whatever they name.
    let mut j = base.clone();
    j["images"] = json!([{"uri": "file:///etc/passwd"}, {"uri": "/dev/zero"}]);
    j["textures"] = json!([{"source": 0}, {"source": 1}]);
    both(&mut out, "images naming files", &j, &bin);

    glb_header_lies(&mut out, &base, &bin);
    animation_claims(&mut out);
    graph_claims(&mut out);
    reuse_claims(&mut out);
    out
}

/// GLB headers and chunk lengths that lie.
fn glb_header_lies(out: &mut Vec<Case>, json: &Value, bin: &[u8]) {
    let good = glb(json, Some(bin));
    let json_len = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    let bin_header = 20 + json_len;
    let set = |at: usize, value: u32| {
        let mut b = good.clone();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        b
    };
    for value in [0u32, 1, 11, 12, 13, 1 << 31, u32::MAX] {
        out.push(Case::gltf(
            format!("GLB total length {value}"),
            set(8, value),
        ));
        out.push(Case::gltf(
            format!("GLB JSON chunk length {value}"),
            set(12, value),
        ));
        out.push(Case::gltf(
            format!("GLB BIN chunk length {value}"),
            set(bin_header, value),
        ));
    }
    for version in [0u32, 1, 3, u32::MAX] {
        out.push(Case::gltf(
            format!("GLB version {version}"),
            set(4, version),
        ));
    }
    // The BIN chunk first, two JSON chunks, thousands of empty unknown chunks.
    let mut b = good[..12].to_vec();
    for _ in 0..10_000 {
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(b"XXXX");
    }
    b.extend_from_slice(&good[12..]);
    let total = b.len() as u32;
    b[8..12].copy_from_slice(&total.to_le_bytes());
    out.push(Case::gltf("GLB with 10000 empty unknown chunks", b));
    for len in [0usize, 4, 11, 12, 19, 20] {
        out.push(Case::gltf(
            format!("GLB cut to {len} bytes"),
            good[..len.min(good.len())].to_vec(),
        ));
    }
    // Many buffers that all name the BIN chunk (only buffer 0 may).
    let big = vec![0u8; 1 << 20];
    let mut j = json.clone();
    let mut buffers = vec![json!({"byteLength": big.len()})];
    buffers.extend((0..2000).map(|_| json!({"byteLength": 1})));
    j["buffers"] = json!(buffers);
    let mut payload = bin.to_vec();
    payload.extend_from_slice(&big[bin.len()..]);
    out.push(Case::gltf(
        "2001 buffers naming one 1 MiB BIN chunk",
        glb(&j, Some(&payload)),
    ));
}

/// Animations with huge key counts, times and channel counts.
fn animation_claims(out: &mut Vec<Case>) {
    for (label, times) in [
        ("key time 3.4e38", vec![0.0, 3.4e38]),
        ("key time 1e9", vec![0.0, 1e9]),
        ("key times decreasing", vec![5.0, 1.0]),
        ("key time -3.4e38", vec![-3.4e38, 0.0]),
        (
            "key time 2730.6 (65535 frames at 24 fps)",
            vec![0.0, 2730.6],
        ),
        ("key time infinity", vec![0.0, f32::INFINITY]),
        ("key time NaN", vec![0.0, f32::NAN]),
    ] {
        let (j, bin) = animated(&times);
        both(out, label, &j, &bin);
    }
    // 100k keys within one second: a real (long) sampler.
    let times: Vec<f32> = (0..100_000).map(|k| k as f32 / 100_000.0).collect();
    let (j, bin) = animated(&times);
    out.push(Case::gltf("100000 keys in one second", glb(&j, Some(&bin))));
    // 1000 nodes whose channels all share one sampler of 20000 keys.
    let times: Vec<f32> = (0..20_000).map(|k| k as f32 / 20_000.0).collect();
    let (mut j, bin) = animated(&times);
    let n = 1000;
    j["nodes"] = json!((0..n)
        .map(|i| if i == 0 {
            json!({"mesh": 0})
        } else {
            json!({})
        })
        .collect::<Vec<_>>());
    j["scenes"][0]["nodes"] = json!((0..n).collect::<Vec<_>>());
    j["animations"][0]["channels"] = json!((0..n)
        .map(|i| json!({"sampler": 0, "target": {"node": i, "path": "translation"}}))
        .collect::<Vec<_>>());
    out.push(Case::gltf(
        "1000 channels sharing a 20000-key sampler",
        glb(&j, Some(&bin)),
    ));
    // 2000 animations of one node, each with that sampler: clips laid end to end.
    let (mut j, bin) = animated(&times);
    let anim = j["animations"][0].clone();
    j["animations"] = json!(vec![anim; 2000]);
    out.push(Case::gltf(
        "2000 animations sharing a 20000-key sampler",
        glb(&j, Some(&bin)),
    ));
}
