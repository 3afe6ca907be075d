//! Derived tables: triangle descriptors, bounds, the model header, canonical animation.
//!
//! Everything a writer has to compute rather than copy: the fixture generator
//! and the glTF/OBJ importers build models through these functions, so every
//! table they produce follows the same rules. All functions are deterministic
//! (no hash-map iteration order leaks into the output).
//!
//! ```
//! use msh::derive::{bounds, tri_descs};
//! use zerocopy::little_endian::F32;
//!
//! let p = |x: f32, y: f32, z: f32| [F32::new(x), F32::new(y), F32::new(z)];
//! let positions = [p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0), p(1.0, 1.0, 0.0)];
//! // Two triangles sharing the edge 1-2, both counter-clockwise seen from +Z.
//! let descs = tri_descs(&positions, &[[0, 1, 2], [1, 3, 2]], 0);
//! assert_eq!(descs[0].links[1].get(), 1); // edge (1, 2) of triangle 0 borders triangle 1
//! assert_eq!(descs[0].normal[2].get(), 32767); // face normal +Z
//! let b = bounds(positions.iter().map(|p| p.map(F32::get)));
//! assert_eq!(b.aabb_max, [1.0, 1.0, 0.0]);
//! ```
//!
//! The functions live in three files, all re-exported here: the triangle
//! descriptors (this one), `bounds.rs` (boxes, spheres, the model header) and
//! `anim.rs` (stored quaternions and the canonical animation layout).

mod anim;
mod bounds;

pub use anim::{quantize_quat, quantize_quat_nearest, write_animation, AnimError, Key, Track};
pub use bounds::{bounds, bounds_of_batches, model_header, set_slot_bounds, Bounds};

use crate::raw::{Position, TriDesc16, NONE};
use zerocopy::little_endian::{I16, U16};

/// `sel_packed` written by [`tri_descs`]: all three 2-bit selectors are 3, which
/// the engine reads as "none" (0xFFFF). Their meaning is unknown (FORMAT.md
/// section 6), so the neutral value is the only one a writer can justify.
pub const SEL_NONE: u16 = 0x3F;

/// Res7 descriptors for the triangles of ONE slot.
///
/// `triangles` holds absolute vertex indices (`base_vertex + index`) in slot
/// order: the slot's batches in order, each batch's triangles in index order.
/// Triangle `local` gets the global id `first_id + local` (the slot's
/// `tri_start` plus its position).
///
/// - `links[k]` names the triangle across edge `k` (vertices `k` and `k+1 mod 3`).
///   Vertices are welded by their exact position bits (`-0.0` counts as `0.0`),
///   so vertices split by normal or UV still share an edge. Among the other
///   triangles of the slot with the same edge, one that runs the edge the other
///   way (the consistent-winding neighbour) is preferred, then the lowest id.
///   A link is 0xFFFF when there is no neighbour, when the edge is degenerate, or
///   when the neighbour's id does not fit below 0xFFFF. Links never leave the slot.
/// - `normal` is `normalize(cross(b - a, c - a))` encoded `round(n * 32767)`;
///   zero for a degenerate triangle (or a vertex index past `positions`).
/// - `tri_flags` is 0 and `sel_packed` is [`SEL_NONE`]: both are unknown fields.
pub fn tri_descs(
    positions: &[Position],
    triangles: &[[u32; 3]],
    first_id: usize,
) -> Vec<TriDesc16> {
    let (welded, ids) = weld(positions, triangles);
    // Every non-degenerate edge as (smaller welded id, larger id, code) with
    // code = `triangle << 3 | k << 1 | direction` (direction 1 when the edge runs
    // from the smaller id to the larger), in triangle order.
    let mut edges: Vec<(u32, u32, usize)> = Vec::with_capacity(triangles.len().saturating_mul(3));
    for (t, w) in welded.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (w[k], w[(k + 1) % 3]);
            if a != UNWELDED && b != UNWELDED && a != b {
                edges.push((a.min(b), a.max(b), t << 3 | k << 1 | (a < b) as usize));
            }
        }
    }
    // Bucketed by the smaller id (a counting sort: linear, no comparison sort
    // over all edges); each bucket stays in triangle order.
    let mut start = vec![0usize; ids + 1];
    for &(lo, _, _) in &edges {
        start[lo as usize + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut next = start.clone();
    let mut entries = vec![(0u32, 0usize); edges.len()];
    for &(lo, hi, code) in &edges {
        let at = &mut next[lo as usize];
        entries[*at] = (hi, code);
        *at += 1;
    }
    drop(edges);
    let id_of = |local: usize| -> u16 {
        match first_id.checked_add(local) {
            Some(id) if id < NONE as usize => id as u16,
            _ => NONE,
        }
    };
    let mut links = vec![[NONE; 3]; triangles.len()];
    for bucket in start.windows(2) {
        let bucket = &mut entries[bucket[0]..bucket[1]];
        // Stable: equal edges stay in triangle order.
        bucket.sort_by_key(|e| e.0);
        for group in bucket.chunk_by(|x, y| x.0 == y.0) {
            // Per direction: the first triangle, and the first one after it that differs.
            let mut first = [[None::<usize>; 2]; 2];
            for &(_, code) in group {
                let (t, d) = (code >> 3, code & 1);
                match first[d] {
                    [None, _] => first[d][0] = Some(t),
                    [Some(f), None] if f != t => first[d][1] = Some(t),
                    _ => {}
                }
            }
            let pick = |d: usize, t: usize| match first[d] {
                [Some(f), _] if f != t => Some(f),
                [_, second] => second,
            };
            for &(_, code) in group {
                let (t, d) = (code >> 3, code & 1);
                let linked = pick(1 - d, t).or_else(|| pick(d, t));
                links[t][(code >> 1) & 3] = linked.map_or(NONE, id_of);
            }
        }
    }
    triangles
        .iter()
        .zip(&links)
        .map(|(&tri, l)| TriDesc16 {
            tri_flags: U16::new(0),
            links: l.map(U16::new),
            normal: face_normal(positions, tri).map(I16::new),
            sel_packed: U16::new(SEL_NONE),
        })
        .collect()
}

/// The welded id of a vertex index past `positions`.
const UNWELDED: u32 = u32::MAX;

/// Per triangle corner, an id in `0..ids` shared by every vertex with the same
/// position bits (`-0.0` counts as `0.0`), and `ids`; [`UNWELDED`] for an index
/// past `positions`. Ids only compare for equality. Vertices are sorted by their
/// position bits and index packed in one `u128` (no hash map: no allocation per
/// vertex and no hash-flooding input); a dense table over the referenced index
/// span when it is compact, else a binary search.
fn weld(positions: &[Position], triangles: &[[u32; 3]]) -> (Vec<[u32; 3]>, usize) {
    let keyed = |v: u32| -> u128 {
        let bits = positions[v as usize].map(|c| {
            let f = c.get();
            if f == 0.0 {
                0
            } else {
                f.to_bits()
            }
        });
        (u128::from(bits[0]) << 96)
            | (u128::from(bits[1]) << 64)
            | (u128::from(bits[2]) << 32)
            | u128::from(v)
    };
    // Gives ids in key order to sorted `keyed` values; `set(vertex, id)`.
    fn assign(sorted: &[u128], mut set: impl FnMut(u32, u32)) -> usize {
        let mut id = 0u32;
        for (i, &k) in sorted.iter().enumerate() {
            if i > 0 && sorted[i - 1] >> 32 != k >> 32 {
                id += 1;
            }
            set(k as u32, id);
        }
        if sorted.is_empty() {
            0
        } else {
            id as usize + 1
        }
    }
    let in_range = |v: &u32| (*v as usize) < positions.len();
    let corners = || triangles.iter().flatten().copied().filter(in_range);
    let (Some(lo), Some(hi)) = (corners().min(), corners().max()) else {
        return (vec![[UNWELDED; 3]; triangles.len()], 0);
    };
    let span = (hi - lo) as usize + 1;
    if span <= triangles.len().saturating_mul(12).saturating_add(1024) {
        let mut dense = vec![UNWELDED; span];
        for v in corners() {
            dense[(v - lo) as usize] = 0;
        }
        let mut sorted: Vec<u128> = (lo..=hi)
            .filter(|&v| dense[(v - lo) as usize] == 0)
            .map(keyed)
            .collect();
        sorted.sort_unstable();
        let ids = assign(&sorted, |v, id| dense[(v - lo) as usize] = id);
        let at = |v: u32| -> u32 {
            v.checked_sub(lo)
                .and_then(|d| dense.get(d as usize))
                .copied()
                .unwrap_or(UNWELDED)
        };
        return (triangles.iter().map(|t| t.map(at)).collect(), ids);
    }
    // Sparse indices: (vertex, id) sorted by vertex, binary-searched.
    let mut used: Vec<u32> = corners().collect();
    used.sort_unstable();
    used.dedup();
    let mut sorted: Vec<u128> = used.iter().map(|&v| keyed(v)).collect();
    sorted.sort_unstable();
    let mut weld_of: Vec<(u32, u32)> = Vec::with_capacity(sorted.len());
    let ids = assign(&sorted, |v, id| weld_of.push((v, id)));
    weld_of.sort_unstable();
    let at = |v: u32| -> u32 {
        weld_of
            .binary_search_by_key(&v, |&(x, _)| x)
            .map_or(UNWELDED, |i| weld_of[i].1)
    };
    (triangles.iter().map(|t| t.map(at)).collect(), ids)
}

/// The encoded face normal of one triangle (`round(n * 32767)`), zero when degenerate.
pub fn face_normal(positions: &[Position], tri: [u32; 3]) -> [i16; 3] {
    let p = |v: u32| positions.get(v as usize).map(|p| p.map(|c| c.get() as f64));
    let (Some(a), Some(b), Some(c)) = (p(tri[0]), p(tri[1]), p(tri[2])) else {
        return [0; 3];
    };
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if !(len > 0.0 && len.is_finite()) {
        return [0; 3];
    }
    n.map(|c| round_half_away(c / len * 32767.0).clamp(-32767.0, 32767.0) as i16)
}

/// `x.round()` for `|x| < 2^52` without a libm call: truncation by conversion,
/// then the exact fraction decides (ties away from zero, as `f64::round`).
fn round_half_away(x: f64) -> f64 {
    let t = x as i64 as f64;
    let f = x - t;
    if f >= 0.5 {
        t + 1.0
    } else if f <= -0.5 {
        t - 1.0
    } else {
        t.copysign(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::little_endian::F32;

    #[test]
    fn round_half_away_is_f64_round() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut values = vec![
            0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 32766.5, -32766.5, 32767.0,
        ];
        values.extend([
            0.49999999999999994,
            -0.49999999999999994,
            4503599627370495.5,
        ]);
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push((x >> 11) as f64 / (1u64 << 53) as f64 * 70_000.0 - 35_000.0);
        }
        for v in values {
            assert_eq!(round_half_away(v).to_bits(), v.round().to_bits(), "{v}");
        }
    }

    fn pos(p: [f32; 3]) -> Position {
        p.map(F32::new)
    }

    /// A unit cube with split vertices (4 per face, 24 in all), counter-clockwise from outside.
    fn cube() -> (Vec<Position>, Vec<[u32; 3]>) {
        let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
            ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
            ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
            ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
            ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
            ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
            ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
        ];
        let mut p = Vec::new();
        let mut t = Vec::new();
        for (n, u, v) in faces {
            let base = p.len() as u32;
            for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                p.push(pos(std::array::from_fn(|i| n[i] + su * u[i] + sv * v[i])));
            }
            t.push([base, base + 1, base + 2]);
            t.push([base, base + 2, base + 3]);
        }
        (p, t)
    }

    #[test]
    fn cube_adjacency_is_complete_and_symmetric() {
        let (p, t) = cube();
        let d = tri_descs(&p, &t, 100);
        assert_eq!(d.len(), 12);
        for (i, desc) in d.iter().enumerate() {
            for k in 0..3 {
                let l = desc.links[k].get();
                assert!((100..112).contains(&l), "triangle {i} edge {k}: {l}");
                assert_ne!(l as usize, 100 + i);
                // The neighbour links back.
                let back = &d[l as usize - 100];
                assert!(back.links.iter().any(|b| b.get() as usize == 100 + i));
            }
            assert_eq!(desc.sel_packed.get(), SEL_NONE);
            assert_eq!(desc.tri_flags.get(), 0);
        }
        // Triangles 0 and 1 share their diagonal: edge 2 of the first, edge 0 of the second.
        assert_eq!(d[0].links[2].get(), 101);
        assert_eq!(d[1].links[0].get(), 100);
        // Face normals point outward: face 0 is +X.
        assert_eq!(d[0].normal.map(I16::get), [32767, 0, 0]);
        assert_eq!(d[11].normal.map(I16::get), [0, 0, -32767]);
    }

    #[test]
    fn links_past_0xfffe_and_open_edges_are_none() {
        let (p, t) = cube();
        let d = tri_descs(&p, &t, 0xFFF8);
        // Ids 0xFFF8..0xFFFE fit, 0xFFFF and beyond do not.
        let max = d
            .iter()
            .flat_map(|x| x.links)
            .map(U16::get)
            .filter(|&l| l != NONE)
            .max();
        assert_eq!(max, Some(0xFFFE));
        let single = tri_descs(&p, &t[..1], 0);
        assert!(single[0].links.iter().all(|l| l.get() == NONE));
        let degenerate = tri_descs(&p, &[[0, 0, 1]], 0);
        assert_eq!(degenerate[0].normal.map(I16::get), [0, 0, 0]);
        assert_eq!(degenerate[0].links[0].get(), NONE);
    }
}
