//! The glTF/GLB and OBJ importers never panic, and never allocate more than a
//! bounded multiple of what they are given: every committed foreign file,
//! every export of the fixtures (intact and damaged: cut short, bits flipped,
//! fields set to 2^31), and hand-made "small file, huge claimed count" inputs
//! (`hostile/cases.rs`).
//!
//! The bound: while one input is imported, the bytes allocated stay under
//! **64 KiB + 64 x the input** (the file plus its MTL or side-car). The
//! limit is enforced by the global allocator (`cap`): an allocation past it
//! fails and aborts the process, so this binary holds a single test and
//! nothing else allocates while the limit is tight. Run it with
//! `--nocapture` to see which input was being imported when it aborts.
//! docs/ROBUSTNESS.md has the measured peaks.

#[path = "hostile/cases.rs"]
mod cases;

use cases::{Case, Kind};

#[global_allocator]
static ALLOC: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// Allowance independent of the input (parsed-document and model headers,
/// hash tables, the report).
const CONSTANT: usize = 64 * 1024;
/// Allowance per input byte.
const FACTOR: usize = 64;

/// What an import gave.
enum Outcome {
    /// MSH bytes.
    Converted(Vec<u8>),
    /// A typed error's code.
    Refused(String),
    /// A panic.
    Panicked,
}

/// Imports one input under the allocation limit.
fn import(case: &Case) -> Outcome {
    let before = ALLOC.allocated();
    ALLOC
        .set_limit(before + CONSTANT + FACTOR * case.input_len())
        .unwrap();
    let result = std::panic::catch_unwind(|| match &case.kind {
        Kind::Gltf { side_car } => {
            let resolver = |name: &str| {
                side_car
                    .as_ref()
                    .filter(|(n, _)| n == name)
                    .map(|(_, b)| b.clone())
            };
            mshconv_gltf::gltf_to_msh(&case.bytes, &Default::default(), &resolver)
        }
        Kind::Obj { mtl } => {
            mshconv_obj::obj_to_msh(&case.bytes, mtl.as_deref(), &Default::default())
        }
    });
    let outcome = match result {
        Ok(Ok((msh, _report))) => Outcome::Converted(msh),
        Ok(Err(e)) => Outcome::Refused(e.code().to_string()),
        Err(_) => Outcome::Panicked,
    };
    ALLOC.set_limit(usize::MAX).unwrap();
    outcome
}

/// The codes some hand-made inputs must be refused with (a substring of the
/// label, the code).
const EXPECTED: &[(&str, &str)] = &[
    ("POSITION accessor count", "gltf.accessor_out_of_range"),
    ("index accessor count", "gltf.accessor_out_of_range"),
    ("strided accessor count", "gltf.accessor_out_of_range"),
    ("bufferView byteLength 2^", "gltf.view_out_of_range"),
    ("bufferView byteOffset", "gltf.view_out_of_range"),
    // Sparse accessors are read (issue 24): a count no file of this size can fill is refused.
    ("sparse POSITION", "gltf.accessor_too_large"),
    ("over a 44-byte BIN chunk", "gltf.buffer_short"),
    ("data: URI of 44 bytes claiming", "gltf.buffer_short"),
    ("side-car of 44 bytes claiming", "gltf.buffer_short"),
    ("buffer URI \"/etc/passwd\"", "gltf.uri_refused"),
    ("buffer URI \"../../etc/passwd\"", "gltf.uri_refused"),
    ("buffer URI \"file:///etc/passwd\"", "gltf.uri_refused"),
    (
        "buffer URI \"http://127.0.0.1:9/buffer.bin\"",
        "gltf.uri_refused",
    ),
    ("buffer URI \"%2e%2e%2fetc%2fpasswd\"", "gltf.uri_refused"),
    ("buffer URI \"side.bin\"", "gltf.missing_buffer"),
    ("GLB total length 2147483648", "glb.malformed"),
    ("GLB JSON chunk length 4294967295", "glb.malformed"),
    ("GLB BIN chunk length 4294967295", "glb.malformed"),
    (
        "2001 buffers naming one 1 MiB BIN chunk",
        "gltf.missing_uri",
    ),
    ("key time 3.4e38", "anim.too_long"),
    ("key time 1e9", "anim.too_long"),
    ("key time infinity", "gltf.non_finite"),
    ("1000 channels sharing", "gltf.data_reused"),
    ("a chain of 70000 nodes", "model.too_many_nodes"),
    ("each other's child", "gltf.node_cycle"),
    ("its own child", "gltf.node_cycle"),
    ("a node with two parents", "gltf.node_cycle"),
    ("naming one node 1000 times", "gltf.node_cycle"),
    ("a child index past the nodes", "gltf.invalid"),
    ("100000 more nodes", "gltf.json_too_large"),
    ("100000 more materials", "gltf.json_too_large"),
    ("100000 more images", "gltf.json_too_large"),
    ("100000 more scenes", "gltf.json_too_large"),
    ("a 50000-vertex mesh on 2000 nodes", "gltf.data_reused"),
    ("2000 primitives sharing", "gltf.data_reused"),
    ("2000 accessors aliasing", "gltf.data_reused"),
    ("2000 primitives with every attribute", "gltf.data_reused"),
    ("over 50000 u8 indices", "gltf.data_reused"),
    (
        "extras counts.vertices and POSITION counts",
        "gltf.accessor_out_of_range",
    ),
    ("face corner 2147483648", "obj.bad_index"),
    ("face corner -1000000", "obj.bad_index"),
    ("face corner 1/4294967296", "obj.bad_index"),
    ("a face of 100000 corners -1", "model.too_many_triangles"),
    ("200000 triangles", "model.too_many_triangles"),
    ("200000 degenerate triangles", "model.too_many_triangles"),
    ("a 4 MiB number", "obj.non_finite"),
];

#[test]
fn hostile_gltf_and_obj_imports_stay_within_bounded_memory() {
    let mut all: Vec<Case> = cases::foreign();
    let mut rng = cases::Rng::new(0x1251_2026);
    let models = cases::fixture_models();
    let mut exported = 0;
    for (label, msh) in &models {
        for export in cases::exports(label, msh) {
            exported += 1;
            // Damaged copies of the small exports (the larger ones are intact only).
            if export.bytes.len() <= 64 * 1024 {
                all.extend(cases::damaged(&export, &mut rng, 12));
            }
            all.push(export);
        }
    }
    let barrel = &models
        .iter()
        .find(|(l, _)| l.ends_with("m145_barrel.msh"))
        .expect("the barrel fixture")
        .1;
    all.extend(cases::extras_claims(barrel));
    all.extend(cases::gltf_claims());
    all.extend(cases::obj_claims());
    assert!(
        models.len() > 150 && exported > 150,
        "expected the committed fixture set: {} models, {exported} exports",
        models.len()
    );

    let mut failures = Vec::new();
    let (mut converted, mut refused) = (0usize, 0usize);
    for case in &all {
        println!("importing {} ({} bytes)", case.label, case.input_len());
        match import(case) {
            Outcome::Panicked => failures.push(format!("{}: panicked", case.label)),
            Outcome::Converted(msh) => {
                converted += 1;
                if let Err(e) = msh::open(&msh, msh::Mode::Strict) {
                    failures.push(format!("{}: an invalid MSH came out: {e}", case.label));
                }
                if let Some((_, code)) = EXPECTED.iter().find(|(l, _)| case.label.contains(l)) {
                    failures.push(format!("{}: converted, expected {code}", case.label));
                }
            }
            Outcome::Refused(code) => {
                refused += 1;
                if let Some((_, want)) = EXPECTED.iter().find(|(l, _)| case.label.contains(l)) {
                    if code != *want {
                        failures.push(format!("{}: {code}, expected {want}", case.label));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs misbehaved:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
    // Both outcomes occur: the inputs exercise the importers, not just their first check.
    assert!(
        converted > 300 && refused > 300,
        "{converted} converted, {refused} refused"
    );
    for (label, _) in EXPECTED {
        assert!(
            all.iter().any(|c| c.label.contains(label)),
            "no input is labelled {label:?}"
        );
    }
}
