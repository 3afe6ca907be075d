//! Damaged containers give typed errors naming the entry and byte offset.

use nres::{Archive, ErrorKind, OwnedArchive, OwnedEntry, WriteMode};

fn sample() -> Vec<u8> {
    let mut a = OwnedArchive::new();
    a.push(OwnedEntry::new(1, "nodes", vec![1; 38 * 3]).unwrap());
    a.push(OwnedEntry::new(3, "positions", vec![2; 12 * 5]).unwrap());
    a.push(OwnedEntry::new(10, "names", vec![]).unwrap());
    a.push(OwnedEntry::new(6, "indices", vec![3; 6]).unwrap());
    a.write(WriteMode::Canonical).unwrap()
}

#[test]
fn overlapping_payloads_are_reported_in_the_layout() {
    let base = sample();
    let dir = base.len() - 4 * 64;
    let mut b = base.clone();
    b[dir + 64 + 56..dir + 64 + 60].copy_from_slice(&20u32.to_le_bytes());
    let a = Archive::parse(&b).unwrap();
    let layout = a.layout();
    assert_eq!(layout.overlaps, vec![(0, 1)]);
    assert!(layout.physical_order.is_none());
    // Written back canonically it is a clean file again.
    let clean = OwnedArchive::from_archive(&a)
        .write(WriteMode::Lossless)
        .unwrap();
    assert!(Archive::parse(&clean).unwrap().layout().overlaps.is_empty());
}

#[test]
fn errors_name_entry_and_offset() {
    let base = sample();
    let dir = base.len() - 4 * 64;
    let mut b = base.clone();
    b[dir + 2 * 64 + 20..dir + 2 * 64 + 56].fill(b'x');
    let e = Archive::parse(&b).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadName);
    assert_eq!(e.entry_index(), Some(2));
    assert_eq!(e.offset(), Some((dir + 2 * 64 + 20) as u64));
    assert!(e.to_string().contains("directory entry 2"), "{e}");

    let mut b = base.clone();
    b[0] = b'X';
    assert_eq!(Archive::parse(&b).unwrap_err().kind(), ErrorKind::BadMagic);
    let mut b = base.clone();
    b[5] = 2;
    assert_eq!(
        Archive::parse(&b).unwrap_err().kind(),
        ErrorKind::BadVersion
    );
    let mut b = base.clone();
    b[8..12].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(
        Archive::parse(&b).unwrap_err().kind(),
        ErrorKind::NegativeCount
    );
    let mut b = base.clone();
    b.push(0);
    assert_eq!(
        Archive::parse(&b).unwrap_err().kind(),
        ErrorKind::SizeMismatch
    );
    assert_eq!(
        Archive::parse(&base[..10]).unwrap_err().kind(),
        ErrorKind::Truncated
    );
}

#[test]
fn codes_are_unique_namespaced_and_documented() {
    let mut codes: Vec<_> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
    assert!(codes.iter().all(|c| c.starts_with("nres.")), "{codes:?}");
    let format = include_str!("../../../docs/FORMAT.md");
    for code in &codes {
        assert!(
            format.contains(&format!("| `{code}` |")),
            "docs/FORMAT.md does not list {code}"
        );
    }
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), ErrorKind::ALL.len(), "a code is given twice");
}
