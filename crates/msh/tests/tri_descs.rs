//! `msh::derive::tri_descs` against a direct reading of its documentation: for
//! every edge, scan all other triangles (quadratic, obviously right), on random
//! meshes with shared, duplicated and out-of-range vertices.

use msh::derive::{face_normal, tri_descs, SEL_NONE};
use msh::raw::{Position, NONE};
use proptest::prelude::*;
use zerocopy::little_endian::F32;

/// The welding key of a vertex: its position bits, `-0.0` as `0.0`.
fn key(positions: &[Position], v: u32) -> Option<[u32; 3]> {
    positions.get(v as usize).map(|p| {
        p.map(|c| {
            let f = c.get();
            if f == 0.0 {
                0
            } else {
                f.to_bits()
            }
        })
    })
}

fn reference(positions: &[Position], triangles: &[[u32; 3]], first_id: usize) -> Vec<[u16; 3]> {
    let edge = |t: usize, k: usize| -> Option<([u32; 3], [u32; 3])> {
        let a = key(positions, triangles[t][k])?;
        let b = key(positions, triangles[t][(k + 1) % 3])?;
        (a != b).then_some((a, b))
    };
    let id_of = |local: usize| -> u16 {
        let id = first_id + local;
        if id < NONE as usize {
            id as u16
        } else {
            NONE
        }
    };
    (0..triangles.len())
        .map(|t| {
            std::array::from_fn(|k| {
                let Some((a, b)) = edge(t, k) else {
                    return NONE;
                };
                let runs = |from: [u32; 3], to: [u32; 3]| {
                    (0..triangles.len())
                        .find(|&o| o != t && (0..3).any(|j| edge(o, j) == Some((from, to))))
                };
                runs(b, a).or_else(|| runs(a, b)).map_or(NONE, id_of)
            })
        })
        .collect()
}

fn mesh() -> impl Strategy<Value = (Vec<Position>, Vec<[u32; 3]>, usize)> {
    // Few distinct coordinates, so many vertices weld; -0.0 among them.
    let coord = prop::sample::select(vec![0.0f32, -0.0, 1.0, 2.5, -3.0]);
    let position = [coord.clone(), coord.clone(), coord].prop_map(|p| p.map(F32::new));
    (prop::collection::vec(position, 1..24), 0usize..70_000).prop_flat_map(|(positions, first)| {
        let n = positions.len() as u32;
        // Indices up to n + 2: some corners point past the table.
        let tri = [0..n + 3, 0..n + 3, 0..n + 3];
        (
            Just(positions),
            prop::collection::vec(tri, 0..40),
            Just(first.min(65_530)),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn links_and_normals_follow_the_definition((positions, triangles, first) in mesh()) {
        let descs = tri_descs(&positions, &triangles, first);
        prop_assert_eq!(descs.len(), triangles.len());
        let expected = reference(&positions, &triangles, first);
        for (t, d) in descs.iter().enumerate() {
            prop_assert_eq!(d.links.map(|l| l.get()), expected[t], "triangle {}", t);
            prop_assert_eq!(d.normal.map(|n| n.get()), face_normal(&positions, triangles[t]));
            prop_assert_eq!(d.tri_flags.get(), 0);
            prop_assert_eq!(d.sel_packed.get(), SEL_NONE);
        }
    }
}

#[test]
fn sparse_vertex_indices_weld_like_dense_ones() {
    // Two triangles sharing an edge, far apart in the index space (the sparse path).
    let p = |x: f32, y: f32| [F32::new(x), F32::new(y), F32::new(0.0)];
    let mut positions = vec![p(9.0, 9.0); 100_000];
    positions[0] = p(0.0, 0.0);
    positions[1] = p(1.0, 0.0);
    positions[2] = p(0.0, 1.0);
    positions[99_990] = p(1.0, 0.0); // same position as vertex 1
    positions[99_991] = p(1.0, 1.0);
    positions[99_992] = p(0.0, 1.0); // same position as vertex 2
    let triangles = [[0, 1, 2], [99_990, 99_991, 99_992]];
    let descs = tri_descs(&positions, &triangles, 10);
    assert_eq!(descs[0].links.map(|l| l.get()), [NONE, 11, NONE]);
    assert_eq!(descs[1].links.map(|l| l.get()), [NONE, NONE, 10]);
    assert_eq!(
        reference(&positions, &triangles, 10),
        vec![[NONE, 11, NONE], [NONE, NONE, 10]]
    );
}
