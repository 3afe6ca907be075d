//! Damaged models never panic and never allocate more than a small multiple of
//! their size: every damaged and edge fixture, plus "small file, huge claimed
//! count" inputs. One test in this binary: the allocation limit is global.

use msh::{Mode, Model};
use std::path::Path;

#[global_allocator]
static ALLOC: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// Every path the library offers a file, run under an allocation limit of
/// 64 KiB + 8 x the input: exceeding it aborts the test process.
fn exercise(bytes: &[u8]) {
    let before = ALLOC.allocated();
    ALLOC
        .set_limit(before + 64 * 1024 + 8 * bytes.len())
        .unwrap();
    let _ = msh::validate_bytes(bytes);
    if let Ok(opened) = msh::open(bytes, Mode::Tolerant) {
        for t in [-1.0f32, 0.0, 2.5, 1e6] {
            let _ = msh::pose::local_poses(&opened.view, t);
        }
    }
    let _ = msh::open(bytes, Mode::Strict);
    ALLOC.set_limit(usize::MAX).unwrap();
    // The owned model copies every payload (and the writer builds a second copy),
    // so it gets its own, larger bound.
    ALLOC
        .set_limit(ALLOC.allocated() + 64 * 1024 + 16 * bytes.len())
        .unwrap();
    if let Ok(model) = Model::from_bytes(bytes) {
        let _ = model.to_bytes();
    }
    ALLOC.set_limit(usize::MAX).unwrap();
}

#[test]
fn damaged_and_hostile_models_stay_within_bounded_memory() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small");
    let mut seen = 0;
    for dir in ["damaged", "edge", "models"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for path in paths
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "msh"))
        {
            exercise(&std::fs::read(&path).unwrap());
            seen += 1;
        }
    }
    assert!(
        seen > 150,
        "expected the committed fixture set, found {seen} files"
    );

    // Small files whose tables claim huge counts: node count, names, map starts.
    let base = std::fs::read(root.join("models/m127_tank.msh")).unwrap();
    let archive = nres::Archive::parse(&base).unwrap();
    let dir = archive.directory_offset();
    for (index, entry) in archive.entries().enumerate() {
        for (field, value) in [(4usize, u32::MAX), (4, 1 << 31), (8, u32::MAX), (16, 24)] {
            let mut b = base.clone();
            let at = dir + index * 64 + field;
            b[at..at + 4].copy_from_slice(&value.to_le_bytes());
            exercise(&b);
        }
        // Claimed lengths inside payloads: the first u32 of every payload set to 2^31.
        if entry.data().len() >= 4 {
            let mut b = base.clone();
            let at = entry.data_offset() as usize;
            b[at..at + 4].copy_from_slice(&(1u32 << 31).to_le_bytes());
            exercise(&b);
        }
    }
}
