//! The inputs of `tests/hostile.rs`: the committed foreign files, exports of
//! the fixtures (intact and damaged), and hand-made "small file, huge claimed
//! count" glTF/GLB and OBJ files. Kept apart from the test so that the file
//! with the global allocator stays short.

use base64::Engine as _;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// What an input is imported as.
pub enum Kind {
    /// `mshconv_gltf::gltf_to_msh`; a side-car file the resolver hands out by name.
    Gltf {
        /// `(file name, bytes)` the resolver answers for, if any.
        side_car: Option<(String, Vec<u8>)>,
    },
    /// `mshconv_obj::obj_to_msh`, with an MTL if given.
    Obj {
        /// The MTL.
        mtl: Option<Vec<u8>>,
    },
}

/// One input.
pub struct Case {
    /// What it is (shown when it misbehaves).
    pub label: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// How it is imported.
    pub kind: Kind,
}

impl Case {
    fn gltf(label: impl Into<String>, bytes: Vec<u8>) -> Case {
        Case {
            label: label.into(),
            bytes,
            kind: Kind::Gltf { side_car: None },
        }
    }

    fn obj(label: impl Into<String>, bytes: Vec<u8>) -> Case {
        Case {
            label: label.into(),
            bytes,
            kind: Kind::Obj { mtl: None },
        }
    }

    /// Every byte the importer is given: the file, its side-car or MTL.
    pub fn input_len(&self) -> usize {
        self.bytes.len()
            + match &self.kind {
                Kind::Gltf { side_car } => side_car.as_ref().map_or(0, |(_, b)| b.len()),
                Kind::Obj { mtl } => mtl.as_ref().map_or(0, Vec::len),
            }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sorted_files(dir: &Path, ext: &[&str]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| ext.iter().any(|x| e == std::ffi::OsStr::new(x)))
        })
        .collect();
    paths.sort();
    paths
}

fn name_of(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Every committed foreign glTF/GLB and OBJ (each OBJ with and without its MTL).
pub fn foreign() -> Vec<Case> {
    let mut out = Vec::new();
    for p in sorted_files(&root().join("fixtures/foreign/gltf"), &["glb", "gltf"]) {
        out.push(Case::gltf(
            format!("foreign {}", name_of(&p)),
            std::fs::read(&p).unwrap(),
        ));
    }
    for dir in ["fixtures/foreign/obj", "fixtures/foreign/gltf"] {
        for p in sorted_files(&root().join(dir), &["obj"]) {
            let bytes = std::fs::read(&p).unwrap();
            let mtl = std::fs::read(p.with_extension("mtl")).ok();
            out.push(Case::obj(format!("foreign {}", name_of(&p)), bytes.clone()));
            out.push(Case {
                label: format!("foreign {} with its MTL", name_of(&p)),
                bytes,
                kind: Kind::Obj { mtl },
            });
        }
    }
    out
}

/// Every committed fixture model (valid, edge and damaged), by path.
pub fn fixture_models() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in ["models", "edge", "damaged"] {
        for p in sorted_files(&root().join("fixtures/small").join(dir), &["msh"]) {
            out.push((format!("{dir}/{}", name_of(&p)), std::fs::read(&p).unwrap()));
        }
    }
    out
}

/// The `.glb`, `.gltf` and `.obj` exports of a model (those the exporter makes:
/// damaged models are refused by the strict exporter).
pub fn exports(label: &str, msh: &[u8]) -> Vec<Case> {
    let mut out = Vec::new();
    for (format, ext) in [
        (mshconv_gltf::GltfFormat::Glb, "glb"),
        (mshconv_gltf::GltfFormat::Gltf, "gltf"),
    ] {
        let options = mshconv_gltf::ExportOptions {
            format,
            ..Default::default()
        };
        if let Ok((bytes, _)) = mshconv_gltf::msh_to_gltf(msh, &options) {
            out.push(Case::gltf(format!("export of {label} as .{ext}"), bytes));
        }
    }
    if let Ok((files, _)) = mshconv_obj::msh_to_obj(msh, &Default::default()) {
        out.push(Case {
            label: format!("export of {label} as .obj"),
            bytes: files.obj,
            kind: Kind::Obj {
                mtl: Some(files.mtl),
            },
        });
    }
    out
}

/// SplitMix64: a fixed sequence, so every run damages the same bytes.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Damaged copies of an export: cut short at a few places, single bits
/// flipped, and 4-byte little-endian fields set to 2^31 or 0xFFFFFFFF.
pub fn damaged(case: &Case, rng: &mut Rng, flips: usize) -> Vec<Case> {
    let mut out = Vec::new();
    let b = &case.bytes;
    let make = |label: String, bytes: Vec<u8>| Case {
        label,
        bytes,
        kind: match &case.kind {
            Kind::Gltf { .. } => Kind::Gltf { side_car: None },
            Kind::Obj { mtl } => Kind::Obj { mtl: mtl.clone() },
        },
    };
    for k in 1..8 {
        let len = b.len() * k / 8;
        out.push(make(
            format!("{} cut to {len} bytes", case.label),
            b[..len].to_vec(),
        ));
    }
    for _ in 0..flips {
        let at = rng.below(b.len());
        let bit = rng.below(8);
        let mut m = b.clone();
        m[at] ^= 1 << bit;
        out.push(make(
            format!("{} with bit {bit} of byte {at} flipped", case.label),
            m,
        ));
    }
    if b.len() >= 4 {
        for value in [1u32 << 31, u32::MAX] {
            for _ in 0..flips / 4 {
                let at = rng.below(b.len() - 3);
                let mut m = b.clone();
                m[at..at + 4].copy_from_slice(&value.to_le_bytes());
                out.push(make(
                    format!(
                        "{} with bytes {at}..{} set to {value:#x}",
                        case.label,
                        at + 4
                    ),
                    m,
                ));
            }
        }
    }
    out
}

// --- glTF ------------------------------------------------------------------

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

fn data_uri(bytes: &[u8]) -> String {
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
fn geometry(n: usize, indices: &[u16]) -> (Vec<u8>, usize) {
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
fn animated(times: &[f32]) -> (Value, Vec<u8>) {
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
fn both(out: &mut Vec<Case>, label: &str, json: &Value, bin: &[u8]) {
    out.push(Case::gltf(format!("{label} (glb)"), glb(json, Some(bin))));
    out.push(Case::gltf(
        format!("{label} (gltf)"),
        embedded(json.clone(), bin),
    ));
}

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

/// Node graphs: long chains, cycles, shared children, huge arrays.
fn graph_claims(out: &mut Vec<Case>) {
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
fn reuse_claims(out: &mut Vec<Case>) {
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

// --- OBJ -------------------------------------------------------------------

/// Hand-made OBJ files: huge indices, huge faces, long lines, many faces.
pub fn obj_claims() -> Vec<Case> {
    let mut out = Vec::new();
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
    for index in [
        "2147483648",
        "4294967296",
        "-2147483648",
        "-4294967296",
        "9223372036854775807",
        "-9223372036854775808",
        "99999999999999999999999",
        "-1000000",
        "0",
    ] {
        for corner in [
            format!("{index} 2 3"),
            format!("1/{index} 2/1 3/1"),
            format!("1//{index} 2//1 3//1"),
        ] {
            out.push(Case::obj(
                format!("face corner {corner}"),
                format!("{tri}f {corner}\n").into_bytes(),
            ));
        }
    }
    // Faces with thousands of corners: convex, concave (ear clipping), past the ear-clipping limit.
    for n in [3000usize, 1000, 20_000] {
        for concave in [false, true] {
            let mut s = String::new();
            for i in 0..n {
                let a = i as f64 / n as f64 * std::f64::consts::TAU;
                let r = if concave && i % 2 == 1 { 0.5 } else { 1.0 };
                s.push_str(&format!("v {} {} 0\n", r * a.cos(), r * a.sin()));
            }
            s.push('f');
            for i in 1..=n {
                s.push_str(&format!(" {i}"));
            }
            s.push('\n');
            out.push(Case::obj(
                format!("a face of {n} corners, concave {concave}"),
                s.into_bytes(),
            ));
        }
    }
    // Faces of one repeated corner and of negative indices.
    let mut s = tri.to_string();
    s.push('f');
    s.push_str(&" -1".repeat(100_000));
    s.push('\n');
    out.push(Case::obj("a face of 100000 corners -1", s.into_bytes()));
    // More triangles than an MSH model holds, and many vertices.
    let mut s = tri.to_string();
    s.push_str(&"f 1 2 3\n".repeat(200_000));
    out.push(Case::obj("200000 triangles", s.into_bytes()));
    let mut s = tri.to_string();
    s.push_str(&"f 1 1 1\n".repeat(200_000));
    out.push(Case::obj("200000 degenerate triangles", s.into_bytes()));
    let mut s = "v 0 0 0 1 1 1\n".repeat(200_000);
    s.push_str("f 1 2 3\n");
    out.push(Case::obj("200000 coloured vertices", s.into_bytes()));
    let mut s = tri.to_string();
    for k in 0..20_000 {
        s.push_str(&format!("o n{k}\nusemtl m{k}\nf 1 2 3\n"));
    }
    out.push(Case::obj("20000 objects and materials", s.into_bytes()));
    // Very long lines.
    let long = "x".repeat(4 << 20);
    for (label, text) in [
        ("a 4 MiB comment", format!("#{long}\n{tri}f 1 2 3\n")),
        ("a 4 MiB object name", format!("{tri}o {long}\nf 1 2 3\n")),
        (
            "a 4 MiB material name",
            format!("{tri}usemtl {long}\nf 1 2 3\n"),
        ),
        ("a 4 MiB unknown keyword", format!("{long}\n{tri}f 1 2 3\n")),
        (
            "a 4 MiB number",
            format!("v 1{} 0 0\n", "0".repeat(4 << 20)),
        ),
        (
            "a 4 MiB fraction",
            format!("v 0.{} 0 0\n{tri}f 1 2 3\n", "1".repeat(4 << 20)),
        ),
        (
            "a group of 1 million names",
            format!("{tri}g {}\nf 1 2 3\n", "a ".repeat(1 << 20)),
        ),
        (
            "100000 continued lines",
            format!("{tri}f 1 \\\n{}2 3\n", " \\\n".repeat(100_000)),
        ),
        (
            "1 million empty lines",
            format!("{tri}{}f 1 2 3\n", "\n".repeat(1 << 20)),
        ),
        (
            "1 million CRs",
            format!("{tri}{}f 1 2 3\n", "\r".repeat(1 << 20)),
        ),
    ] {
        out.push(Case::obj(label, text.into_bytes()));
    }
    // A huge MTL.
    out.push(Case {
        label: "an MTL of 200000 materials".into(),
        bytes: format!("{tri}usemtl m1\nf 1 2 3\n").into_bytes(),
        kind: Kind::Obj {
            mtl: Some("newmtl m1\n".repeat(200_000).into_bytes()),
        },
    });
    out
}
