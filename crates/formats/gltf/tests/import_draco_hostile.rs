//! Damaged Draco streams never panic and stay within the glTF importer's
//! allocation bound (64 KiB + 64 x the input, docs/ROBUSTNESS.md): small
//! Draco files made by glTF-Transform (a quad and a 4 x 4 grid, Edgebreaker
//! and sequential), each byte of the stream from the header on overwritten by
//! a varint claiming 2^28, 2^16 or 2^14 (counts, sizes, symbol tables), or
//! the stream cut short. Each import is a typed error or a model.
//!
//! As in hostile.rs, the bound is enforced by the global allocator (`cap`):
//! an allocation past it aborts the process, so this binary holds one test.

mod common;
mod common_gltf;

use common_gltf::draco::{first_stream, grid};
use common_gltf::gltf_transform::transform;

#[global_allocator]
static ALLOC: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// The varints written over the stream: about 2^28, 2^16 and 2^14.
const CLAIMS: [&[u8]; 3] = [
    &[0xff, 0xff, 0xff, 0x7f],
    &[0xff, 0xff, 0x03],
    &[0xff, 0x7f],
];

/// The codes a damaged stream may be refused with.
const CODES: [&str; 3] = [
    "gltf.draco_invalid",
    "gltf.non_finite",
    "gltf.decoded_too_large",
];

/// Imports `bytes` under the bound: `Ok(None)` for a model, `Ok(Some(code))`
/// for a typed error, `Err` for a panic.
fn import(bytes: &[u8]) -> Result<Option<String>, ()> {
    let before = ALLOC.allocated();
    ALLOC
        .set_limit(before + 64 * 1024 + 64 * bytes.len())
        .unwrap();
    let result = std::panic::catch_unwind(|| {
        mshconv_gltf::gltf_to_msh(bytes, &Default::default(), &|_| None)
    });
    ALLOC.set_limit(usize::MAX).unwrap();
    match result {
        Ok(Ok(_)) => Ok(None),
        Ok(Err(e)) => Ok(Some(e.code().to_string())),
        Err(_) => Err(()),
    }
}

#[test]
fn damaged_draco_streams_are_typed_errors_within_the_allocation_bound() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut refused = 0;
    for (n, wave) in [(1, 0.0), (4, 0.1)] {
        let plain = dir.path().join(format!("grid{n}.gltf"));
        std::fs::write(&plain, grid(n, wave).gltf).unwrap();
        for (method, args) in [
            ("edgebreaker", &["draco"][..]),
            ("sequential", &["draco", "--method", "sequential"][..]),
        ] {
            let path = dir.path().join(format!("grid{n}.{method}.glb"));
            transform(args, &plain, &path);
            let intact = std::fs::read(&path).unwrap();
            assert_eq!(import(&intact), Ok(None), "grid {n} {method} imports");
            let (stream, _) = first_stream(&intact);
            let mut cases = Vec::new();
            // From the version bytes on: the magic is checked first anyway.
            for at in stream.start + 5..stream.end {
                for claim in CLAIMS {
                    let mut bytes = intact.clone();
                    let end = (at + claim.len()).min(stream.end);
                    bytes[at..end].copy_from_slice(&claim[..end - at]);
                    cases.push((
                        format!("{claim:02x?} at stream byte {}", at - stream.start),
                        bytes,
                    ));
                }
            }
            // Cut short: the stream's tail zeroed (the GLB keeps its length).
            for keep in [11, stream.len() / 2, stream.len() - 1] {
                let mut bytes = intact.clone();
                bytes[stream.start + keep..stream.end].fill(0);
                cases.push((format!("zeroed after stream byte {keep}"), bytes));
            }
            for (label, bytes) in cases {
                match import(&bytes) {
                    Err(()) => failures.push(format!("grid {n} {method}, {label}: panicked")),
                    Ok(Some(code)) if !CODES.contains(&code.as_str()) => {
                        failures.push(format!("grid {n} {method}, {label}: refused with {code}"))
                    }
                    Ok(Some(_)) => refused += 1,
                    Ok(None) => {}
                }
            }
        }
    }
    common::fail_if_any("damaged Draco imports", failures);
    assert!(refused > 100, "only {refused} damaged streams were refused");
}
