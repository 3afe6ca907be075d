//! Hostile inputs never panic and allocate nothing proportional to a claimed
//! count or size. This binary holds a single test: the allocation limit is
//! global, so nothing else may allocate while it is tight.

use mshconv_material::{samples, Mat0, Texm, Wear};

#[global_allocator]
static ALLOC: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

fn header(width: u32, height: u32, mips: u32, format: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for v in [0x6D78_6554, width, height, mips, 0, 0, 0, format] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Runs `f` with at most `extra` bytes of new allocation allowed.
fn bounded<T>(extra: usize, f: impl FnOnce() -> T) -> T {
    let before = ALLOC.allocated();
    ALLOC.set_limit(before + extra).unwrap();
    let out = f();
    ALLOC.set_limit(usize::MAX).unwrap();
    out
}

#[test]
fn hostile_inputs_give_typed_errors_within_bounded_memory() {
    // A 32-byte Texm claiming 65535 x 65535 pixels (16 GiB as 8888): an
    // error, and parsing it allocates (almost) nothing.
    for format in [0, 565, 8888] {
        let claim = header(65535, 65535, 1, format);
        assert_eq!(claim.len(), 32);
        let err = bounded(4096, || Texm::parse(&claim).unwrap_err());
        assert_eq!(err.code(), "texm.truncated");
        assert_eq!(err.offset(), Some(32));
    }
    // So many mip levels (each at least a byte) that the walk must stop at the input's end.
    let mut levels = header(1, 1, u32::MAX, 8888);
    levels.extend_from_slice(&[0; 64]);
    let err = bounded(4096, || Texm::parse(&levels).unwrap_err());
    assert_eq!((err.code(), err.offset()), ("texm.truncated", Some(96)));
    // A Page chunk claiming 2^32 - 1 rectangles.
    let mut page = header(1, 1, 1, 8888);
    page.extend_from_slice(&[0; 4]);
    page.extend_from_slice(b"Page");
    page.extend_from_slice(&u32::MAX.to_le_bytes());
    let err = bounded(4096, || Texm::parse(&page).unwrap_err());
    assert_eq!(err.code(), "texm.bad_page_size");
    // A MAT0 claiming 65535 phases, and one claiming 65535 keys, in a few bytes.
    let err = bounded(4096, || {
        Mat0::parse(&[0xFF, 0xFF, 0, 0, 1, 2, 3], 0).unwrap_err()
    });
    assert_eq!((err.code(), err.offset()), ("mat0.truncated", Some(4)));
    let err = bounded(4096, || {
        Mat0::parse(&[0, 0, 1, 0, 0, 0, 0, 0, 0xFF, 0xFF], 0).unwrap_err()
    });
    assert_eq!((err.code(), err.offset()), ("mat0.truncated", Some(10)));
    // A WEAR claiming 999,999,999 rows.
    let err = bounded(4096, || Wear::parse(b"999999999\r\n0 A\r\n").unwrap_err());
    assert_eq!((err.code(), err.offset()), ("wear.missing_row", Some(16)));

    // Every truncation and byte flip of every sample: a typed error with an
    // offset, or a value that writes back to the input; memory bounded by a
    // small multiple of the input.
    let mut failures = Vec::new();
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, bytes) in samples::texm() {
        inputs.push((format!("texm {name}"), bytes));
    }
    for (name, version, bytes) in samples::mat0() {
        let mut b = vec![version as u8];
        b.extend_from_slice(&bytes);
        inputs.push((format!("mat0 {name}"), b));
    }
    for (name, bytes) in samples::wear() {
        inputs.push((format!("wear {name}"), bytes));
    }
    for (label, base) in inputs {
        let mut variants = Vec::new();
        for len in 0..base.len() {
            variants.push(base[..len].to_vec());
        }
        for pos in 0..base.len().min(80) {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut v = base.clone();
                v[pos] ^= flip;
                variants.push(v);
            }
        }
        for bytes in variants {
            let limit = 64 * 1024 + 64 * bytes.len();
            let verdict = bounded(limit, || -> Result<Vec<u8>, mshconv_material::Error> {
                if label.starts_with("texm") {
                    let t = Texm::parse(&bytes)?;
                    let _ = t.decode_rgba8()?;
                    t.write()
                } else if label.starts_with("mat0") {
                    let m = Mat0::parse(
                        &bytes[1.min(bytes.len())..],
                        u32::from(bytes.first().copied().unwrap_or(0)),
                    )?;
                    let mut out = vec![bytes[0]];
                    out.extend(m.write()?);
                    Ok(out)
                } else {
                    Wear::parse(&bytes)?.write()
                }
            });
            match verdict {
                Ok(out) if out != bytes => failures.push(format!("{label}: does not write back")),
                Err(e) if e.offset().is_none() || e.offset().unwrap() > bytes.len() as u64 => {
                    failures.push(format!("{label}: badly located error {e}"))
                }
                _ => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
