//! The inputs of `tests/hostile.rs`: the committed foreign files, exports of
//! the fixtures (intact and damaged), and hand-made "small file, huge claimed
//! count" glTF/GLB and OBJ files. Kept apart from the test so that the file
//! with the global allocator stays short.
//!
//! The hand-made files are made by topic: [`gltf_build`] (the building blocks),
//! [`gltf_claims`], [`gltf_graph`] and [`obj_claims`].

mod gltf_build;
mod gltf_claims;
mod gltf_graph;
mod obj_claims;

// Each of the two test binaries including this file uses some of them.
#[allow(unused_imports)]
pub use self::{
    gltf_build::{glb, triangle},
    gltf_claims::gltf_claims,
    gltf_graph::extras_claims,
    obj_claims::obj_claims,
};

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
