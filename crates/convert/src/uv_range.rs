//! UVs beyond what Res5 holds (`int16 / 1024`: -32 to just under +32) are
//! moved into range by whole texture repeats, one connected piece at a time
//! (vertices joined by triangles or by equal UVs move together, so each
//! triangle keeps its shape in UV space): exact under repeat wrapping, which is how the game
//! samples its textures. A piece wider than the range cannot be moved in;
//! it is clamped as before, and counted for a note.

/// The smallest coordinate Res5 holds.
const LOW: f64 = -32768.0 / 1024.0;
/// Just under the largest coordinate that rounds to 32767.
const HIGH: f64 = 32767.499 / 1024.0;

/// UVs of one batch after [`fit`].
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The UVs, each out-of-range piece moved.
    pub uv: Vec<[f32; 2]>,
    /// Pieces moved by whole repeats.
    pub shifted: usize,
    /// Pieces too wide to fit (left to clamp).
    pub unfit: usize,
}

fn in_range(c: f32) -> bool {
    let e = (f64::from(c) * 1024.0).round();
    (-32768.0..=32767.0).contains(&e)
}

/// The roots of a union-find forest after joining each pair of `pairs`.
fn components(n: usize, pairs: impl Iterator<Item = (usize, usize)>) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    for (x, y) in pairs {
        let (rx, ry) = (root(&mut parent, x), root(&mut parent, y));
        if rx != ry {
            parent[rx.max(ry)] = rx.min(ry);
        }
    }
    (0..n).map(|v| root(&mut parent, v)).collect()
}

/// The vertices of each component, by root.
fn members(roots: &[usize], of: &[usize]) -> std::collections::BTreeMap<usize, Vec<usize>> {
    let mut out: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for &v in of {
        out.entry(roots[v]).or_default().push(v);
    }
    out
}

/// The whole repeats, per axis and nearest 0, that bring the UVs of
/// `vertices` into range (`[0, 0]` when they are in it); `None` when the
/// piece is wider than the range.
fn shift_of(uv: &[[f32; 2]], vertices: &[usize]) -> Option<[f32; 2]> {
    let mut shift = [0f32; 2];
    for (k, s) in shift.iter_mut().enumerate() {
        let (lo, hi) = vertices
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                let c = f64::from(uv[v][k]);
                (lo.min(c), hi.max(c))
            });
        let (s_lo, s_hi) = ((LOW - lo).ceil(), (HIGH - hi).floor());
        if s_lo > s_hi {
            return None;
        }
        *s = 0f64.clamp(s_lo, s_hi) as f32;
    }
    Some(shift)
}

/// Moves each connected piece of `uv` that leaves the range by the whole
/// number of repeats, per axis, nearest 0 that brings it in; `None` when
/// every UV is in range already. A piece is the vertices joined by
/// `triangles` and by equal UVs (an island in UV space moves as one); one
/// too wide for the range is tried again as its pieces joined by triangles
/// alone (each triangle keeps its shape in UV space either way).
pub fn fit(uv: &[[f32; 2]], triangles: &[[u32; 3]]) -> Option<Fitted> {
    if uv.iter().flatten().all(|&c| in_range(c)) {
        return None;
    }
    let n = uv.len();
    let edges = triangles
        .iter()
        .map(|t| t.map(|v| v as usize))
        .filter(|t| t.iter().all(|&v| v < n))
        .flat_map(|[a, b, c]| [(a, b), (b, c)]);
    let by_triangles = components(n, edges.clone());
    let mut first_at: std::collections::HashMap<[u32; 2], usize> = Default::default();
    let same_uv = (0..n).filter_map(|v| {
        let at = *first_at.entry(uv[v].map(f32::to_bits)).or_insert(v);
        (at != v).then_some((at, v))
    });
    let islands = components(n, edges.chain(same_uv.collect::<Vec<_>>()));
    let mut out = uv.to_vec();
    let (mut shifted, mut unfit) = (0, 0);
    let mut apply = |vertices: &[usize], s: [f32; 2], out: &mut Vec<[f32; 2]>| {
        if s != [0.0, 0.0] {
            shifted += 1;
            for &v in vertices {
                // Adding a whole number that brings a coordinate nearer 0 is exact.
                out[v] = [out[v][0] + s[0], out[v][1] + s[1]];
            }
        }
    };
    let all: Vec<usize> = (0..n).collect();
    for vertices in members(&islands, &all).values() {
        match shift_of(uv, vertices) {
            Some(s) => apply(vertices, s, &mut out),
            None => {
                for part in members(&by_triangles, vertices).values() {
                    match shift_of(uv, part) {
                        Some(s) => apply(part, s, &mut out),
                        None => unfit += 1,
                    }
                }
            }
        }
    }
    Some(Fitted {
        uv: out,
        shifted,
        unfit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_move_by_whole_repeats_and_wide_ones_are_counted() {
        // Piece A (0, 1, 2) at u 40.25..41, v -40.75..0.5: moved by -10 in u
        // (41 - 9 = 32 would round past 32767 / 1024) and +9 in v;
        // piece B (3, 4, 5) in range: untouched; piece C (6, 7, 8) spans 70.
        let uv = vec![
            [40.25, 0.5],
            [41.0, 0.5],
            [40.5, -40.75],
            [0.5, 0.5],
            [1.0, 0.5],
            [0.5, 1.0],
            [-35.0, 0.0],
            [35.0, 0.0],
            [0.0, 1.0],
        ];
        let tris = [[0, 1, 2], [3, 4, 5], [6, 7, 8]];
        let f = fit(&uv, &tris).unwrap();
        assert_eq!((f.shifted, f.unfit), (1, 1));
        assert_eq!(f.uv[0], [30.25, 9.5]);
        assert_eq!(f.uv[1], [31.0, 9.5]);
        assert_eq!(f.uv[2], [30.5, -31.75]);
        assert_eq!(&f.uv[3..6], &uv[3..6]);
        assert_eq!(&f.uv[6..], &uv[6..]);
        // Every moved coordinate differs by a whole number: the same texel under wrapping.
        for (a, b) in f.uv.iter().zip(&uv) {
            for k in 0..2 {
                assert_eq!((a[k] - b[k]).fract(), 0.0);
            }
        }
        assert!(fit(&uv[3..6], &[[0, 1, 2]]).is_none());
    }

    #[test]
    fn an_island_joined_by_equal_uvs_moves_as_one_unless_too_wide() {
        // Two triangles without a shared vertex, touching at UV (40, 0):
        // one island, one shift (-9 would leave 40.5 at 31.5; -10 is nearest
        // 0 for the whole island).
        let uv = vec![
            [39.0, 0.0],
            [40.0, 0.0],
            [39.5, 1.0],
            [40.0, 0.0],
            [41.0, 0.0],
            [40.5, 1.0],
        ];
        let f = fit(&uv, &[[0, 1, 2], [3, 4, 5]]).unwrap();
        assert_eq!((f.shifted, f.unfit), (1, 0));
        assert_eq!(f.uv[1], f.uv[3], "the shared UV stays shared");
        assert_eq!(f.uv[4], [31.0, 0.0]);
        // Joined by an equal UV but 80 wide together: each triangle alone.
        let mut wide = uv.clone();
        wide[0] = [-39.0, 0.0];
        wide[2] = [-39.5, 1.0];
        wide[1] = [40.0, 0.0];
        let f = fit(&wide, &[[0, 1, 2], [3, 4, 5]]).unwrap();
        assert_eq!((f.shifted, f.unfit), (1, 1));
        assert_eq!(f.uv[4], [31.0, 0.0]);
    }
}
