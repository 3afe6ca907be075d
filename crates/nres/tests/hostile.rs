//! Hostile containers never panic and allocate nothing proportional to a claimed
//! count. This binary holds a single test: the allocation limit is global, so
//! nothing else may allocate while it is tight.

use nres::{Archive, ErrorKind, OwnedArchive, OwnedEntry, WriteMode};

#[global_allocator]
static ALLOC: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

fn sample() -> Vec<u8> {
    let mut a = OwnedArchive::new();
    a.push(OwnedEntry::new(1, "nodes", vec![1; 38 * 3]).unwrap());
    a.push(OwnedEntry::new(3, "positions", vec![2; 12 * 5]).unwrap());
    a.push(OwnedEntry::new(10, "names", vec![]).unwrap());
    a.push(OwnedEntry::new(6, "indices", vec![3; 6]).unwrap());
    a.write(WriteMode::Canonical).unwrap()
}

/// One test function for everything that measures allocation, so no other
/// test allocates in parallel while the limit is tight.
#[test]
fn hostile_inputs_give_typed_errors_within_bounded_memory() {
    // A 1 KB file claiming 2^31 - 1 entries: an error, and parsing it allocates
    // (almost) nothing: the limit would abort the process otherwise.
    let mut claim = vec![0u8; 1024];
    claim[..4].copy_from_slice(b"NRes");
    claim[4..8].copy_from_slice(&0x100u32.to_le_bytes());
    claim[8..12].copy_from_slice(&i32::MAX.to_le_bytes());
    claim[12..16].copy_from_slice(&1024u32.to_le_bytes());
    let before = ALLOC.allocated();
    ALLOC.set_limit(before + 64 * 1024).unwrap();
    let err = Archive::parse(&claim).unwrap_err();
    let tolerant = Archive::parse_tolerant(&claim).unwrap_err();
    ALLOC.set_limit(usize::MAX).unwrap();
    assert_eq!(err.kind(), ErrorKind::DirectoryOutOfRange);
    assert_eq!(tolerant.kind(), ErrorKind::DirectoryOutOfRange);
    assert_eq!(err.offset(), Some(8));

    // Every mutation of a real file: typed error or a valid parse, never a panic,
    // and memory bounded by a small multiple of the input.
    let base = sample();
    let mut failures = Vec::new();
    for (label, bytes) in mutations(&base) {
        let before = ALLOC.allocated();
        ALLOC
            .set_limit(before + 64 * 1024 + 8 * bytes.len())
            .unwrap();
        let strict = Archive::parse(&bytes);
        let tolerant = Archive::parse_tolerant(&bytes);
        if let Ok(a) = &strict {
            for e in a.entries() {
                let _ = e.data();
            }
            let _ = OwnedArchive::from_archive(a).write(WriteMode::Lossless);
        }
        if let Ok((a, _)) = &tolerant {
            let _ = a.layout();
            let _ = a.find_by_name("names");
        }
        ALLOC.set_limit(usize::MAX).unwrap();
        if let Err(e) = &strict {
            if e.offset().is_none() {
                failures.push(format!("{label}: error without an offset: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mutations misbehaved:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn mutations(base: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for len in 0..base.len() {
        out.push((format!("truncated to {len}"), base[..len].to_vec()));
    }
    for pos in 0..base.len() {
        for bit in [0u8, 3, 7] {
            let mut b = base.to_vec();
            b[pos] ^= 1 << bit;
            out.push((format!("bit {bit} of byte {pos} flipped"), b));
        }
    }
    let dir = base.len() - 4 * 64;
    let fields: Vec<(String, usize)> = [
        (String::from("entry_count"), 8),
        (String::from("total_size"), 12),
    ]
    .into_iter()
    .chain((0..4).flat_map(|i| {
        [("size", 12), ("data_offset", 56), ("sort_index", 60)]
            .map(|(n, o)| (format!("entry {i} {n}"), dir + i * 64 + o))
    }))
    .collect();
    for (name, at) in fields {
        for value in [
            0u32,
            1,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
            base.len() as u32,
            17,
        ] {
            let mut b = base.to_vec();
            b[at..at + 4].copy_from_slice(&value.to_le_bytes());
            out.push((format!("{name} = {value:#x}"), b));
        }
    }
    // Overlapping payloads: entry 1 pointed into entry 0.
    let mut b = base.to_vec();
    b[dir + 64 + 56..dir + 64 + 60].copy_from_slice(&20u32.to_le_bytes());
    out.push(("entry 1 overlaps entry 0".into(), b));
    out
}
