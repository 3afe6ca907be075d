//! Running glTF-Transform's CLI (npm `@gltf-transform/cli`, pinned in
//! tools/gltf-transform, installed by scripts/test.sh) on our exports of
//! committed fixtures, and reading its outputs back.

use crate::common::obj::{posed_triangles, Corner, Geometry, Names};
use std::path::{Path, PathBuf};
use std::process::Command;

/// tools/gltf-transform, where the CLI and its node modules are installed.
pub fn dir() -> PathBuf {
    let dir = crate::common::root().join("tools/gltf-transform");
    assert!(
        dir.join("node_modules/.bin/gltf-transform").exists(),
        "glTF-Transform's CLI is not installed: run `npm ci --prefix tools/gltf-transform` (scripts/test.sh does)"
    );
    dir
}

/// Runs a command that writes a file, failing the test with its stderr.
pub fn run(mut command: Command, what: &str) {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e} (node must be on PATH)"));
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `gltf-transform ARGS INPUT OUTPUT`.
pub fn transform(args: &[&str], input: &Path, output: &Path) {
    let mut c = Command::new(dir().join("node_modules/.bin/gltf-transform"));
    c.args(args).arg(input).arg(output);
    run(c, &format!("gltf-transform {args:?}"));
}

/// The JSON chunk of a GLB.
pub fn glb_json(bytes: &[u8]) -> serde_json::Value {
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[20..20 + len]).unwrap()
}

/// The triangles mshconv imports from a glTF, posed, per node and material.
pub fn import(bytes: &[u8]) -> Geometry {
    let (msh, _) = mshconv_gltf::gltf_to_msh(bytes, &Default::default(), &|_| None)
        .unwrap_or_else(|e| panic!("import failed: {e}"));
    posed_triangles(&msh, 0, 0, Default::default(), Names::Raw)
}

/// A GLB without the original MSH its scene extras carry
/// (`extras.msh.original`): its import then reads what the file holds, as
/// these tests of the decoders want, instead of recognising the original
/// in a file another tool rewrote.
pub fn without_original(glb: &[u8]) -> Vec<u8> {
    let mut json = glb_json(glb);
    if let Some(msh) = json["scenes"][0]["extras"]["msh"].as_object_mut() {
        msh.remove("original");
    }
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let rest = &glb[20 + len..];
    let mut out = Vec::with_capacity(glb.len());
    out.extend_from_slice(&glb[..8]);
    out.extend_from_slice(&((12 + 8 + text.len() + rest.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(&glb[16..20]);
    out.extend_from_slice(&text);
    out.extend_from_slice(rest);
    out
}

/// Our GLB exports of the committed fixtures whose names contain one of
/// `chosen`, as (name, file stem, GLB without the original it carries:
/// [`without_original`]); each of `chosen` must match one.
pub fn exports(chosen: &[&str]) -> Vec<(String, String, Vec<u8>)> {
    let out: Vec<_> = crate::common::valid_fixtures()
        .into_iter()
        .filter(|(n, _)| chosen.iter().any(|c| n.contains(c)))
        .map(|(name, msh)| {
            let (glb, _) = mshconv_gltf::msh_to_gltf(&msh, &Default::default()).unwrap();
            let stem = name.replace('/', "_");
            (name, stem, without_original(&glb))
        })
        .collect();
    assert_eq!(out.len(), chosen.len(), "the chosen fixtures exist");
    out
}

/// The largest extent of one attribute of a geometry's corners over its components.
pub fn span<const N: usize>(g: &Geometry, get: fn(&Corner) -> [f32; N]) -> f32 {
    let corners = || g.values().flatten().flatten().map(get);
    (0..N)
        .map(|j| {
            let lo = corners().map(|c| c[j]).fold(f32::INFINITY, f32::min);
            let hi = corners().map(|c| c[j]).fold(f32::NEG_INFINITY, f32::max);
            hi - lo
        })
        .fold(0.0, f32::max)
}
