//! Reader and writer are symmetric for the owned model: model -> bytes -> model
//! is equal (proptest over arbitrary tables), bytes -> model -> bytes identical.

use msh::raw::{
    AnimKey24, Batch20, ModelHeader, Node38, PackedNormal, PackedUv, Slot68, TriDesc16,
};
use msh::{resource as res, Container, Model};
use proptest::prelude::*;
use zerocopy::FromBytes;

/// `n` records of `T` from arbitrary bytes.
fn records<T: FromBytes + zerocopy::Immutable + zerocopy::KnownLayout + Clone>(
    bytes: &[u8],
) -> Vec<T> {
    let n = bytes.len() / core::mem::size_of::<T>();
    <[T]>::ref_from_prefix_with_elems(bytes, n)
        .unwrap()
        .0
        .to_vec()
}

fn model_strategy() -> impl Strategy<Value = Model> {
    let blob = |max: usize| proptest::collection::vec(any::<u8>(), 0..max);
    (
        (
            blob(38 * 6),
            blob(68 * 4),
            blob(12 * 16),
            blob(4 * 16),
            blob(4 * 16),
        ),
        (
            blob(2 * 48),
            blob(16 * 8),
            blob(24 * 10),
            blob(2 * 20),
            blob(20 * 6),
        ),
        (
            proptest::collection::vec(proptest::option::of("[a-z ]{0,12}"), 0..6),
            any::<u32>(),
            any::<[u8; 140]>(),
        ),
        (any::<bool>(), any::<bool>(), blob(40)),
    )
        .prop_map(
            |(
                (n, s, p, nm, uv),
                (ix, tr, ak, am, ba),
                (names, frames, header),
                (with15, with18, extra),
            )| {
                let mut m = Model {
                    nodes: records::<Node38>(&n),
                    header: ModelHeader::read_from_bytes(&header).unwrap(),
                    slots: records::<Slot68>(&s),
                    positions: records(&p),
                    normals: records::<PackedNormal>(&nm),
                    uv0: records::<PackedUv>(&uv),
                    indices: records(&ix),
                    tri_descs: records::<TriDesc16>(&tr),
                    anim_keys: records::<AnimKey24>(&ak),
                    anim_map: records(&am),
                    frame_count: frames,
                    batches: records::<Batch20>(&ba),
                    ..Model::default()
                };
                let count = m.nodes.len();
                m.names = names
                    .into_iter()
                    .map(|n| n.filter(|s| !s.is_empty()).map(String::into_bytes))
                    .collect();
                m.names.resize(count, None);
                if with15 {
                    m.stream15 = vec![[7u8; 8]; m.positions.len()];
                }
                if with18 {
                    m.stream18 = vec![[1, 2, 3, 4]; m.positions.len()];
                }
                m.canonicalize_entries();
                m.entries
                    .push(msh::EntryMeta::raw(res::SERVICE, [1, 2, 3], extra));
                m
            },
        )
}

/// The content the model holds (tables, entry list), ignoring read-only layout facts.
fn content(m: &Model) -> impl PartialEq + std::fmt::Debug {
    let entries: Vec<_> = m
        .entries
        .iter()
        .map(|e| {
            (
                e.type_id,
                e.name,
                e.raw.clone(),
                m.derived_attrs(e.type_id),
                e.attrs,
            )
        })
        .collect();
    (
        (
            m.nodes.clone(),
            m.header,
            m.slots.clone(),
            m.positions.clone(),
            m.normals.clone(),
            m.uv0.clone(),
        ),
        (
            m.indices.clone(),
            m.tri_descs.clone(),
            m.anim_keys.clone(),
            m.anim_map.clone(),
            m.frame_count,
        ),
        (
            m.names.clone(),
            m.batches.clone(),
            m.stream15.clone(),
            m.stream18.clone(),
        ),
        entries,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn model_to_bytes_to_model_is_equal(model in model_strategy()) {
        let bytes = model.to_bytes().unwrap();
        let back = Model::from_bytes(&bytes).unwrap();
        prop_assert_eq!(content(&back), content(&model));
        // And the bytes are a fixed point: bytes -> model -> bytes is identical.
        prop_assert_eq!(back.to_bytes().unwrap(), bytes);
    }
}

#[test]
fn an_edited_table_gets_derived_attributes_and_canonical_padding() {
    let mut model = Model {
        positions: vec![[1.0f32, 2.0, 3.0].map(Into::into)],
        ..Model::default()
    };
    model.canonicalize_entries();
    let bytes = model.to_bytes().unwrap();
    let mut read = Model::from_bytes(&bytes).unwrap();
    read.positions.push([4.0f32, 5.0, 6.0].map(Into::into));
    let edited = read.to_bytes().unwrap();
    let archive = nres::Archive::parse(&edited).unwrap();
    let positions = archive.find_by_type(res::POSITIONS).unwrap();
    assert_eq!(positions.attr1(), 2, "attr1 follows the edit");
    assert_eq!(positions.data().len(), 24);
    for e in archive.entries() {
        assert_eq!(
            e.data_offset() % 8,
            0,
            "entry {} misaligned after the edit",
            e.index()
        );
    }
}

/// The container facts the exporter reads without the tables are the ones the
/// owned model reads with them, for every committed model (valid, edge and
/// damaged).
#[test]
fn a_container_has_the_facts_of_its_model() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small");
    let mut seen = 0;
    for dir in ["damaged", "edge", "models"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "msh") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let Ok(archive) = nres::Archive::parse(&bytes) else {
                continue;
            };
            let model = Model::from_archive(&archive).unwrap();
            let container = Container::of(&archive);
            let name = path.display();
            assert_eq!(container.header, model.header, "{name}");
            assert_eq!(container.frame_count, model.frame_count, "{name}");
            assert_eq!(container.entries, model.entries, "{name}");
            assert_eq!(container.leading, model.leading, "{name}");
            assert_eq!(container.physical_order, model.physical_order, "{name}");
            assert_eq!(container.keep_sort_index, model.keep_sort_index, "{name}");
            assert_eq!(container.kind(), model.kind(), "{name}");
            for t in 0..=20 {
                assert_eq!(container.has(t), model.has(t), "{name} {t}");
                assert_eq!(container.has_typed(t), model.has_typed(t), "{name} {t}");
            }
            seen += 1;
        }
    }
    assert!(seen > 100, "expected the committed fixtures, found {seen}");
}
