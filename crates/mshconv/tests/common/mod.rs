//! Shared helpers: run the real binary, build small models and archives in memory.

#![allow(dead_code)] // Each test binary uses a different subset.

use msh::raw::{AnimKey24, Batch20, Node38, PackedNormal, PackedUv, Slot68, TriDesc16, NONE};
use msh::Model;
use nres::{OwnedArchive, OwnedEntry, WriteMode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use zerocopy::little_endian::{F32, U16, U32};
use zerocopy::FromZeros;

pub mod by_bytes;

/// Every file under `dir` (hidden ones too), by relative path, with its bytes.
pub fn files(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap_or_default(),
                );
            }
        }
    }
    out
}

/// The fixture game folder (`fixtures/small/game`, see its expected.json).
pub fn game() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small/game")
}

/// A copy of the fixture game folder in `to`.
pub fn copy_game(to: &Path) {
    copy_tree(&game(), to);
}

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mshconv");

/// Result of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(output: Output) -> Run {
        Run {
            code: output
                .status
                .code()
                .expect("the binary was killed by a signal"),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }

    /// Panics with the whole output unless the exit code is `code`; checks that
    /// the binary never panicked.
    pub fn expect(self, code: i32) -> Run {
        assert!(
            !self.stderr.contains("panicked"),
            "the binary panicked:\n{}",
            self.stderr
        );
        assert_eq!(
            self.code, code,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// Runs the binary in `dir` with `args`.
pub fn run(dir: &Path, args: &[&str]) -> Run {
    Run::from(
        Command::new(BIN)
            .args(args)
            .current_dir(dir)
            .output()
            .expect("the binary runs"),
    )
}

fn node(parent: u16, map_start: u16, fallback: u16, slots: &[(usize, u16)]) -> Node38 {
    let mut n = Node38 {
        hdr0: U16::new(0),
        parent: U16::new(parent),
        anim_map_start: U16::new(map_start),
        fallback_key: U16::new(fallback),
        slots: [U16::new(NONE); 15],
    };
    for &(k, s) in slots {
        n.slots[k] = U16::new(s);
    }
    n
}

fn slot(tri_start: u16, tri_count: u16, batch_start: u16, batch_count: u16) -> Slot68 {
    let mut s = Slot68::new_zeroed();
    s.tri_start = U16::new(tri_start);
    s.tri_count = U16::new(tri_count);
    s.batch_start = U16::new(batch_start);
    s.batch_count = U16::new(batch_count);
    s.aabb_max = [F32::new(1.0); 3];
    s.sphere_radius = F32::new(1.75);
    s
}

fn batch(material: u16, index_start: u32, index_count: u16, base_vertex: u32) -> Batch20 {
    Batch20 {
        batch_flags: U16::new(0),
        material_index: U16::new(material),
        opaque4: U16::new(0),
        opaque6: U16::new(0),
        index_count: U16::new(index_count),
        index_start: U32::new(index_start),
        opaque14: U16::new(0),
        base_vertex: U32::new(base_vertex),
    }
}

fn tri() -> TriDesc16 {
    let mut t = TriDesc16::new_zeroed();
    t.links = [U16::new(NONE); 3];
    t
}

/// Keys of the animated node (node 1): times 0, 5, 10; identity, 90 and 180 degrees about z.
pub const TURRET_KEYS: [(f32, [f32; 3], [i16; 4]); 3] = [
    (0.0, [0.0, 0.0, 1.5], [0, 0, 0, 32767]),
    (5.0, [0.25, 0.0, 1.5], [0, 0, 23170, 23170]),
    (10.0, [0.5, -0.125, 1.5], [0, 0, 32767, 0]),
];

/// Three nodes ("central", "turret" animated over 11 frames, an unnamed static
/// child), three slots, a cube's 8 vertices, 8 triangles in 3 batches. Strictly
/// valid and canonical.
pub fn sample_model() -> Model {
    let mut m = Model {
        nodes: vec![
            node(NONE, NONE, 0, &[(0, 0), (5, 1)]),
            node(0, 0, 3, &[(0, 2)]),
            node(1, NONE, 4, &[]),
        ],
        slots: vec![slot(0, 4, 0, 1), slot(4, 2, 1, 1), slot(6, 2, 2, 1)],
        ..Model::default()
    };
    m.nodes[1].hdr0 = U16::new(0x0040);
    for i in 0..8u8 {
        let c = |bit: u8| if i & bit != 0 { 1.0 } else { -1.0 };
        m.positions
            .push([F32::new(c(1)), F32::new(c(2)), F32::new(c(4))]);
        m.normals.push(PackedNormal::encode(
            [c(1) * 0.577, c(2) * 0.577, c(4) * 0.577],
            0,
        ));
        m.uv0
            .push(PackedUv::encode([(i % 2) as f32, (i / 4) as f32]));
    }
    let faces: [u16; 24] = [
        0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, // slot 0: 4 triangles
        0, 4, 5, 0, 5, 1, // slot 1: 2 triangles
        0, 2, 3, 0, 3, 1, // slot 2: 2 triangles, base vertex 4
    ];
    m.indices = faces.iter().map(|&i| U16::new(i)).collect();
    m.batches = vec![batch(0, 0, 12, 0), batch(1, 12, 6, 0), batch(2, 18, 6, 4)];
    m.tri_descs = (0..8).map(|_| tri()).collect();
    m.anim_keys
        .push(AnimKey24::new([0.0; 3], 0.0, [0, 0, 0, 32767]));
    for (t, p, q) in TURRET_KEYS {
        m.anim_keys.push(AnimKey24::new(p, t, q));
    }
    m.anim_keys
        .push(AnimKey24::new([0.0, 1.0, 0.0], 0.0, [0, 0, 0, 32767]));
    // Canonical map for keys 1..=3 at times 0, 5, 10 over 11 frames.
    m.anim_map = (0..11u16)
        .map(|f| {
            U16::new(if f < 5 {
                1
            } else if f < 10 {
                2
            } else {
                3
            })
        })
        .collect();
    m.frame_count = 11;
    m.names = vec![Some(b"central".to_vec()), Some(b"turret".to_vec()), None];
    m.canonicalize_entries();
    m
}

/// The sample model's file bytes.
pub fn sample_bytes() -> Vec<u8> {
    sample_model().to_bytes().expect("the sample model writes")
}

/// A model with `n` static unnamed nodes and one slot (large text output).
pub fn many_nodes(n: usize) -> Vec<u8> {
    let mut m = sample_model();
    m.nodes = (0..n)
        .map(|i| node(if i == 0 { NONE } else { 0 }, NONE, i as u16, &[]))
        .collect();
    m.anim_keys = (0..n)
        .map(|_| AnimKey24::new([0.0; 3], 0.0, [0, 0, 0, 32767]))
        .collect();
    m.anim_map.clear();
    m.frame_count = 1;
    m.names = vec![None; n];
    m.to_bytes().expect("writes")
}

/// An NRes archive of named payloads, canonical layout.
pub fn archive(entries: &[(&str, u32, Vec<u8>)]) -> Vec<u8> {
    let mut a = OwnedArchive::new();
    for (name, type_id, data) in entries {
        a.push(OwnedEntry::new(*type_id, name, data.clone()).expect("name fits"));
    }
    a.write(WriteMode::Canonical).expect("archive writes")
}

/// The sample model's container with the node table replaced by a legacy
/// 24-byte-record table (as in `MTCHECK.MSH`).
pub fn legacy_bytes() -> Vec<u8> {
    let mut a = OwnedArchive::parse(&sample_bytes()).expect("parses");
    let nodes = a.entries.iter_mut().find(|e| e.type_id == 1).expect("Res1");
    nodes.data = (0..72u8).collect();
    nodes.attr1 = 3;
    nodes.attr3 = 24;
    nodes.filler = None;
    a.write(WriteMode::Canonical).expect("writes")
}

/// A terrain-like container: Res1, Res2, Res3, Res11, Res21 and no Res6/Res13.
pub fn terrain_bytes() -> Vec<u8> {
    let mut a = OwnedArchive::new();
    let mut push = |type_id: u32, data: Vec<u8>, attr1: u32, attr3: u32| {
        let mut e = OwnedEntry::new(type_id, &format!("res{type_id:02}"), data).unwrap();
        e.attr1 = attr1;
        e.attr3 = attr3;
        a.push(e);
    };
    push(1, vec![0; 38 * 2], 2, 38);
    push(2, vec![0; 0x8C], 0, 68);
    push(3, vec![0; 12 * 3], 3, 12);
    push(21, vec![0; 28 * 5], 5, 28);
    push(11, vec![0; 4 * 5], 5, 4);
    a.write(WriteMode::Canonical).expect("writes")
}

/// Overwrites `len` bytes of the first entry of `type_id` at `at` inside its payload.
pub fn patch(bytes: &[u8], type_id: u32, at: usize, new: &[u8]) -> Vec<u8> {
    let archive = nres::Archive::parse(bytes).expect("parses");
    let entry = archive.find_by_type(type_id).expect("entry exists");
    let start = entry.data_offset() as usize + at;
    let mut out = bytes.to_vec();
    out[start..start + new.len()].copy_from_slice(new);
    out
}

/// Every file under `dir`, by path relative to it, with its bytes.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files(dir)
}

/// A copy of every file under `from` at `to` (folders made as needed).
pub fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

/// Name, type, attributes and payload of every entry of an archive's
/// bytes, in directory order.
pub fn entry_rows(bytes: &[u8]) -> Vec<(String, u32, [u32; 3], Vec<u8>)> {
    let a = nres::Archive::parse(bytes).expect("a whole archive");
    a.entries()
        .map(|e| {
            (
                e.name(),
                e.type_id(),
                [e.attr1(), e.attr2(), e.attr3()],
                e.data().to_vec(),
            )
        })
        .collect()
}

/// `image` written as an RGBA PNG at `path`.
pub fn write_png(path: &Path, image: &mshconv_material::texm::Rgba8Image) {
    let file = std::fs::File::create(path).unwrap();
    let mut e = png::Encoder::new(file, image.width, image.height);
    e.set_color(png::ColorType::Rgba);
    e.set_depth(png::BitDepth::Eight);
    let mut w = e.write_header().unwrap();
    w.write_image_data(&image.pixels).unwrap();
}

/// A solid picture of the size of the PNG at `path`, written over it.
pub fn paint(path: &Path, rgba: [u8; 4]) -> mshconv_material::texm::Rgba8Image {
    let old = mshconv_convert::raster::decode(&std::fs::read(path).unwrap(), "png").unwrap();
    let image = mshconv_material::texm::Rgba8Image {
        width: old.width,
        height: old.height,
        pixels: rgba.repeat((old.width * old.height) as usize),
    };
    write_png(path, &image);
    image
}

/// Real Blender (bpy, `scripts/setup-blender.sh`): the Python that has it.
pub fn blender_python() -> PathBuf {
    if let Ok(p) = std::env::var("MSHCONV_BLENDER_PYTHON") {
        return PathBuf::from(p);
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv-blender/bin/python");
    assert!(
        p.exists(),
        "real Blender (bpy) is not installed: run scripts/setup-blender.sh (scripts/test.sh does)"
    );
    p
}

/// Every `.glb` of `input` imported by Blender and exported again into
/// `output` with `profile` (tools/blender/roundtrip.py).
pub fn blender_round_trip(input: &Path, output: &Path, profile: &str) {
    let run = Command::new(blender_python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/blender/roundtrip.py"))
        .args([input, output])
        .arg(profile)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "Blender failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// A GLB with its JSON chunk passed through `edit`.
pub fn edit_glb(glb: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut doc: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    edit(&mut doc);
    let mut json = serde_json::to_vec(&doc).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let rest = &glb[20 + json_len..];
    let mut out = Vec::new();
    out.extend_from_slice(&glb[..8]);
    out.extend_from_slice(&((12 + 8 + json.len() + rest.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(rest);
    out
}
