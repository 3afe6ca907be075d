//! Reader and writer are symmetric: archive -> bytes -> archive is equal, and
//! bytes -> archive -> bytes is identical in lossless mode.

use nres::{Archive, Name, OwnedArchive, OwnedEntry, WriteMode};
use proptest::prelude::*;

fn entry_strategy() -> impl Strategy<Value = OwnedEntry> {
    (
        any::<u32>(),
        any::<[u32; 3]>(),
        "[a-zA-Z0-9_.]{0,35}",
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(type_id, attrs, name, data)| OwnedEntry {
            type_id,
            attr1: attrs[0],
            attr2: attrs[1],
            attr3: attrs[2],
            name: Name::new(&name).unwrap(),
            sort_index: 0,
            data,
            filler: None,
            offset_hint: None,
        })
}

proptest! {
    #[test]
    fn canonical_write_parses_back_to_the_same_entries(entries in proptest::collection::vec(entry_strategy(), 0..12)) {
        let archive = OwnedArchive { entries, ..OwnedArchive::default() };
        let bytes = archive.write(WriteMode::Canonical).unwrap();
        let parsed = Archive::parse(&bytes).unwrap();
        prop_assert_eq!(parsed.len(), archive.entries.len());
        for (e, original) in parsed.entries().zip(&archive.entries) {
            prop_assert_eq!(e.type_id(), original.type_id);
            prop_assert_eq!([e.attr1(), e.attr2(), e.attr3()], [original.attr1, original.attr2, original.attr3]);
            prop_assert_eq!(e.name_field(), original.name);
            prop_assert_eq!(e.data(), &original.data[..]);
            prop_assert_eq!(e.data_offset() % 8, 0);
        }
        // Every name can be found through the sort_index binary search.
        for original in &archive.entries {
            let found = parsed.find_by_name(&original.name.to_string_lossy()).unwrap();
            prop_assert!(nres::cmp_names(found.name_bytes(), original.name.as_bytes()).is_eq());
        }
        // Lossless re-write of a parsed archive is byte-identical; canonical re-write of a canonical file too.
        let owned = OwnedArchive::from_archive(&parsed);
        prop_assert_eq!(&owned.write(WriteMode::Lossless).unwrap(), &bytes);
        prop_assert_eq!(&owned.write(WriteMode::Canonical).unwrap(), &bytes);
    }

    #[test]
    fn lossless_keeps_gaps_order_and_sort_index(
        entries in proptest::collection::vec(entry_strategy(), 1..8),
        gaps in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..13), 8),
        leading in proptest::collection::vec(any::<u8>(), 0..9),
        reverse in any::<bool>(),
        sort_seed in any::<u32>(),
    ) {
        let n = entries.len();
        let mut archive = OwnedArchive { entries, ..OwnedArchive::default() };
        for (i, e) in archive.entries.iter_mut().enumerate() {
            e.filler = Some(nres::Filler { payload_len: e.data.len(), bytes: gaps[i].clone() });
            e.sort_index = sort_seed.wrapping_mul(i as u32 + 1) % (n as u32 + 2);
        }
        archive.leading = leading;
        archive.physical_order = Some(if reverse { (0..n).rev().collect() } else { (0..n).collect() });
        archive.keep_sort_index = true;
        let bytes = archive.write(WriteMode::Lossless).unwrap();
        let parsed = Archive::parse(&bytes).unwrap();
        let again = OwnedArchive::from_archive(&parsed);
        prop_assert_eq!(&again.write(WriteMode::Lossless).unwrap(), &bytes);
        for (e, original) in parsed.entries().zip(&archive.entries) {
            prop_assert_eq!(e.sort_index(), original.sort_index);
            prop_assert_eq!(e.data(), &original.data[..]);
        }
        // Payloads given beside the entries (their `data` emptied, so it is
        // not what gets written) make the same file, in both modes.
        let mut hollow = archive.clone();
        for e in &mut hollow.entries {
            e.data = Vec::new();
        }
        for mode in [WriteMode::Lossless, WriteMode::Canonical] {
            let beside = hollow.write_payloads(mode, |i| &archive.entries[i].data[..]).unwrap();
            prop_assert_eq!(&beside, &archive.write(mode).unwrap());
        }
    }
}

#[test]
fn edited_payload_gets_canonical_padding_instead_of_stale_filler() {
    let mut archive = OwnedArchive::new();
    archive.push(OwnedEntry::new(1, "a", vec![1, 2, 3]).unwrap());
    archive.push(OwnedEntry::new(2, "b", vec![4; 9]).unwrap());
    archive.entries[0].filler = Some(nres::Filler {
        payload_len: 3,
        bytes: vec![0xAA; 5],
    });
    let bytes = archive.write(WriteMode::Lossless).unwrap();
    assert_eq!(&bytes[16 + 3..16 + 8], &[0xAA; 5]);
    archive.entries[0].data.push(9);
    let bytes = archive.write(WriteMode::Lossless).unwrap();
    assert_eq!(&bytes[16 + 4..16 + 8], &[0; 4]);
    assert_eq!(
        Archive::parse(&bytes)
            .unwrap()
            .entry(1)
            .unwrap()
            .data_offset(),
        24
    );
}

#[test]
fn out_of_range_sort_index_falls_back_to_a_linear_scan() {
    let mut archive = OwnedArchive::new();
    for name in ["Zeta", "alpha", "Mid"] {
        archive.push(OwnedEntry::new(0, name, vec![]).unwrap());
    }
    archive.recompute_sort_index();
    assert_eq!(
        archive
            .entries
            .iter()
            .map(|e| e.sort_index)
            .collect::<Vec<_>>(),
        [1, 2, 0]
    );
    archive.entries[1].sort_index = 77;
    let bytes = archive.write(WriteMode::Lossless).unwrap();
    let parsed = Archive::parse(&bytes).unwrap();
    assert_eq!(parsed.find_by_name("MID").unwrap().index(), 2);
    assert_eq!(parsed.find_by_name("zeta").unwrap().index(), 0);
}

#[test]
fn nested_models_are_found_by_name_suffix() {
    let mut inner = OwnedArchive::new();
    inner.push(OwnedEntry::new(3, "res03", vec![0; 12]).unwrap());
    let inner = inner.write(WriteMode::Canonical).unwrap();
    let mut outer = OwnedArchive::new();
    outer.push(OwnedEntry::new(0, "TANK.MSH", inner.clone()).unwrap());
    outer.push(OwnedEntry::new(0, "readme.txt", b"hi".to_vec()).unwrap());
    outer.push(OwnedEntry::new(0, "broken.msh", b"NRes junk".to_vec()).unwrap());
    let bytes = outer.write(WriteMode::Canonical).unwrap();
    let parsed = Archive::parse(&bytes).unwrap();
    let models: Vec<_> = parsed.nested_models().collect();
    assert_eq!(models.len(), 2);
    assert_eq!(models[0].name(), "TANK.MSH");
    assert_eq!(
        Archive::parse(models[0].data())
            .unwrap()
            .find_by_type(3)
            .unwrap()
            .data()
            .len(),
        12
    );
    assert!(Archive::parse(models[1].data()).is_err());
    assert_eq!(parsed.payload_total(), (inner.len() + 2 + 9) as u64);
}

#[test]
fn an_empty_payload_keeps_its_offset_even_inside_another_payload() {
    let mut archive = OwnedArchive::new();
    archive.push(OwnedEntry::new(1, "big", vec![7; 40]).unwrap());
    archive.push(OwnedEntry::new(2, "empty", Vec::new()).unwrap());
    archive.entries[1].offset_hint = Some(30); // inside "big" (16..56)
    let bytes = archive.write(WriteMode::Lossless).unwrap();
    let parsed = Archive::parse(&bytes).unwrap();
    assert_eq!(parsed.entry(1).unwrap().data_offset(), 30);
    assert!(
        parsed.layout().overlaps.is_empty(),
        "an empty payload overlaps nothing"
    );
    assert_eq!(
        OwnedArchive::from_archive(&parsed)
            .write(WriteMode::Lossless)
            .unwrap(),
        bytes
    );
    // Canonically it sits where the writer is.
    let canonical = archive.write(WriteMode::Canonical).unwrap();
    assert_eq!(
        Archive::parse(&canonical)
            .unwrap()
            .entry(1)
            .unwrap()
            .data_offset(),
        56
    );
    // A hint past the directory is not followed.
    archive.entries[1].offset_hint = Some(10_000);
    let bytes = archive.write(WriteMode::Lossless).unwrap();
    assert_eq!(
        Archive::parse(&bytes)
            .unwrap()
            .entry(1)
            .unwrap()
            .data_offset(),
        56
    );
}
