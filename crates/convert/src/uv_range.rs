//! UVs beyond what Res5 holds (`int16 / 1024`: -32 to just under +32) are
//! moved into range by whole texture repeats, one connected piece at a time
//! (the triangles sharing vertices move together, so each triangle keeps its
//! shape in UV space): exact under repeat wrapping, which is how the game
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

/// Moves each connected piece of `uv` (vertices joined by `triangles`) that
/// leaves the range by the whole number of repeats, per axis, nearest 0 that
/// brings it in; `None` when every UV is in range already.
pub fn fit(uv: &[[f32; 2]], triangles: &[[u32; 3]]) -> Option<Fitted> {
    if uv.iter().flatten().all(|&c| in_range(c)) {
        return None;
    }
    let n = uv.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    for t in triangles {
        let [a, b, c] = t.map(|v| v as usize);
        if a.max(b).max(c) >= n {
            continue;
        }
        for (x, y) in [(a, b), (b, c)] {
            let (rx, ry) = (root(&mut parent, x), root(&mut parent, y));
            if rx != ry {
                parent[rx.max(ry)] = rx.min(ry);
            }
        }
    }
    // Per piece (by root): bounds per axis.
    let mut bounds: std::collections::BTreeMap<usize, [[f64; 2]; 2]> = Default::default();
    let mut piece = vec![0usize; n];
    for v in 0..n {
        let r = root(&mut parent, v);
        piece[v] = r;
        let b = bounds
            .entry(r)
            .or_insert([[f64::INFINITY, f64::NEG_INFINITY]; 2]);
        for k in 0..2 {
            let c = f64::from(uv[v][k]);
            b[k] = [b[k][0].min(c), b[k][1].max(c)];
        }
    }
    let mut out = uv.to_vec();
    let mut shifts: std::collections::BTreeMap<usize, [f32; 2]> = Default::default();
    let (mut shifted, mut unfit) = (0, 0);
    for (&r, b) in &bounds {
        let inside = b.iter().all(|&[lo, hi]| lo >= LOW && hi <= HIGH);
        if inside {
            continue;
        }
        let mut shift = [0f32; 2];
        let mut fits = true;
        for k in 0..2 {
            let [lo, hi] = b[k];
            let (s_lo, s_hi) = ((LOW - lo).ceil(), (HIGH - hi).floor());
            if s_lo > s_hi {
                fits = false;
            } else {
                shift[k] = 0f64.clamp(s_lo, s_hi) as f32;
            }
        }
        if fits {
            shifted += 1;
            shifts.insert(r, shift);
        } else {
            unfit += 1;
        }
    }
    for v in 0..n {
        if let Some(s) = shifts.get(&piece[v]) {
            // Subtracting whole numbers from a coordinate that gets smaller is exact.
            out[v] = [out[v][0] + s[0], out[v][1] + s[1]];
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
}
