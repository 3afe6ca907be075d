//! `msh::derive::bounds_of_batches` (distinct vertices only) against `bounds`
//! over every reference, on random tables with repeated, out-of-range,
//! non-finite and widely spread vertices (both the dense and the sparse path).

use msh::derive::{bounds, bounds_of_batches};
use msh::raw::Position;
use proptest::prelude::*;
use zerocopy::little_endian::F32;

fn coordinate() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -1000.0f32..1000.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(-0.0f32),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn distinct_vertices_give_the_bounds_of_all_references(
        points in prop::collection::vec([coordinate(), coordinate(), coordinate()], 0..200),
        refs in prop::collection::vec(0u32..220, 0..400),
        spread in prop::sample::select(vec![1u32, 1, 97]),
        cut in 0usize..400,
    ) {
        // `spread` 97 scatters the references over a span the dense table refuses.
        let mut positions: Vec<Position> = Vec::new();
        for p in &points {
            for _ in 0..spread {
                positions.push(p.map(F32::new));
            }
        }
        let refs: Vec<u32> = refs.iter().map(|&v| v * spread).collect();
        let all = bounds(
            refs.iter()
                .filter_map(|&v| positions.get(v as usize))
                .map(|p| p.map(F32::get)),
        );
        // The same references as batches: the first at base 0 with every index,
        // then split at `cut` with the second half based at its first reference.
        let distinct = bounds_of_batches(
            &positions,
            [(0u32, refs.iter().map(|&v| v as u16).collect::<Vec<_>>())],
        );
        prop_assert_eq!(distinct, all);
        let cut = cut.min(refs.len());
        let base = refs[cut..].iter().copied().min().unwrap_or(0);
        let split = bounds_of_batches(
            &positions,
            [
                (0u32, refs[..cut].iter().map(|&v| v as u16).collect::<Vec<_>>()),
                (base, refs[cut..].iter().map(|&v| (v - base) as u16).collect()),
            ],
        );
        prop_assert_eq!(split, all);
    }
}
