//! Polygon triangulation for OBJ faces: quads and n-gons become `n - 2`
//! triangles with the polygon's winding.
//!
//! The polygon is projected onto the plane of its Newell normal. A convex
//! polygon is cut as a fan from its first corner; any other is cut by ear
//! clipping (proper ears first, then zero-area ones at collinear corners). Ear
//! clipping has a work budget per face; a face it cannot finish within the
//! budget (or a self-intersecting one with no ear left) has its remainder cut
//! as a fan, and the caller is told so.

/// Corners above which a non-convex polygon is cut as a fan without trying ears.
pub(crate) const MAX_EAR_CLIPPING: usize = 1024;

/// Triangles of one polygon as corner positions `0..n`, and whether a fan had to
/// stand in for ear clipping on a non-convex polygon.
pub(crate) fn triangulate(points: &[[f64; 3]]) -> (Vec<[usize; 3]>, bool) {
    let n = points.len();
    if n < 3 {
        return (Vec::new(), false);
    }
    if n == 3 {
        return (vec![[0, 1, 2]], false);
    }
    let normal = newell(points);
    let len2 = normal.iter().map(|c| c * c).sum::<f64>();
    if len2 <= 0.0 || !len2.is_finite() {
        // No plane (degenerate polygon): any cut gives zero-area triangles.
        return (fan(&(0..n).collect::<Vec<_>>()), false);
    }
    // Drop the dominant axis; keep the orientation so the polygon winds counter-clockwise in 2D.
    let axis = (0..3)
        .max_by(|&a, &b| normal[a].abs().total_cmp(&normal[b].abs()))
        .unwrap_or(2);
    let (u, v) = match axis {
        0 => (1, 2),
        1 => (2, 0),
        _ => (0, 1),
    };
    let sign = if normal[axis] < 0.0 { -1.0 } else { 1.0 };
    let p: Vec<[f64; 2]> = points.iter().map(|q| [q[u], q[v] * sign]).collect();
    let scale = p
        .iter()
        .flat_map(|q| q.iter().map(|c| c.abs()))
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let eps = scale * scale * 1e-12;
    let ring: Vec<usize> = (0..n).collect();
    let convex =
        (0..n).all(|i| turn(&p, ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]) >= -eps);
    if convex {
        return (fan(&ring), false);
    }
    if n > MAX_EAR_CLIPPING {
        return (fan(&ring), true);
    }
    ear_clip(&p, ring, eps)
}

fn ear_clip(p: &[[f64; 2]], mut ring: Vec<usize>, eps: f64) -> (Vec<[usize; 3]>, bool) {
    let mut out = Vec::with_capacity(ring.len() - 2);
    let mut budget = 32usize
        .saturating_mul(ring.len())
        .saturating_mul(ring.len());
    let mut start = 0usize;
    while ring.len() > 3 {
        let m = ring.len();
        let mut chosen = None;
        // Proper ears first; a zero-area ear (collinear corner) only when none is left.
        'pass: for proper in [true, false] {
            for k in 0..m {
                let i = (start + k) % m;
                let (a, b, c) = (ring[(i + m - 1) % m], ring[i], ring[(i + 1) % m]);
                let t = turn(p, a, b, c);
                let ok = if proper { t > eps } else { t.abs() <= eps };
                if !ok {
                    continue;
                }
                budget = budget.saturating_sub(m);
                if budget == 0 {
                    break 'pass;
                }
                let empty = !ring.iter().any(|&q| {
                    q != a
                        && q != b
                        && q != c
                        && p[q] != p[a]
                        && p[q] != p[b]
                        && p[q] != p[c]
                        && inside(p, a, b, c, q, eps)
                });
                if empty || !proper {
                    chosen = Some(i);
                    break 'pass;
                }
            }
        }
        let Some(i) = chosen else {
            out.extend(fan(&ring));
            return (out, true);
        };
        out.push([ring[(i + m - 1) % m], ring[i], ring[(i + 1) % m]]);
        ring.remove(i);
        start = i.saturating_sub(1);
    }
    out.push([ring[0], ring[1], ring[2]]);
    (out, false)
}

fn fan(ring: &[usize]) -> Vec<[usize; 3]> {
    (1..ring.len().saturating_sub(1))
        .map(|i| [ring[0], ring[i], ring[i + 1]])
        .collect()
}

/// Twice the signed area of `a, b, c` (positive: counter-clockwise).
fn turn(p: &[[f64; 2]], a: usize, b: usize, c: usize) -> f64 {
    let (a, b, c) = (p[a], p[b], p[c]);
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// True when `q` is inside or on the counter-clockwise triangle `a, b, c`.
fn inside(p: &[[f64; 2]], a: usize, b: usize, c: usize, q: usize, eps: f64) -> bool {
    turn(p, a, b, q) >= -eps && turn(p, b, c, q) >= -eps && turn(p, c, a, q) >= -eps
}

/// The polygon's Newell normal (length: twice its area).
fn newell(points: &[[f64; 3]]) -> [f64; 3] {
    let mut n = [0.0; 3];
    for (i, a) in points.iter().enumerate() {
        let b = points[(i + 1) % points.len()];
        n[0] += (a[1] - b[1]) * (a[2] + b[2]);
        n[1] += (a[2] - b[2]) * (a[0] + b[0]);
        n[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(points: &[[f64; 3]], tris: &[[usize; 3]]) -> f64 {
        tris.iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| points[i]);
                0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
            })
            .sum()
    }

    #[test]
    fn convex_polygons_are_fans_with_their_winding() {
        let quad = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        let (t, fell_back) = triangulate(&quad);
        assert_eq!(t, vec![[0, 1, 2], [0, 2, 3]]);
        assert!(!fell_back);
        let cw: Vec<[f64; 3]> = quad.iter().rev().copied().collect();
        let (t, _) = triangulate(&cw);
        assert!(
            (area(&cw, &t) + 1.0).abs() < 1e-12,
            "clockwise stays clockwise"
        );
    }

    #[test]
    fn concave_polygons_are_ear_clipped_without_overlap() {
        // An L shape (6 corners) in the XZ plane and a star-like dent; area is kept.
        let l = [
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [2.0, 0.0, 1.0],
            [1.0, 0.0, 1.0],
            [1.0, 0.0, 2.0],
            [0.0, 0.0, 2.0],
        ];
        let (t, fell_back) = triangulate(&l);
        assert_eq!(t.len(), 4);
        assert!(!fell_back);
        let flat: Vec<[f64; 3]> = l.iter().map(|q| [q[0], q[2], 0.0]).collect();
        // Unsigned area of the pieces equals the polygon's area (3): no overlap.
        let total: f64 = t.iter().map(|tri| area(&flat, &[*tri]).abs()).sum();
        assert!((total - 3.0).abs() < 1e-12, "{total}");
        let arrow = [
            [0.0, 0.0, 0.0],
            [4.0, 2.0, 0.0],
            [0.0, 4.0, 0.0],
            [1.0, 2.0, 0.0],
        ];
        let (t, _) = triangulate(&arrow);
        assert_eq!(t.len(), 2);
        let total: f64 = t.iter().map(|tri| area(&arrow, &[*tri]).abs()).sum();
        assert!((total - 6.0).abs() < 1e-12, "{total}");
    }

    #[test]
    fn collinear_and_degenerate_polygons_still_give_n_minus_2() {
        let with_midpoint = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [2.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        assert_eq!(triangulate(&with_midpoint).0.len(), 3);
        let line = [[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]];
        assert_eq!(triangulate(&line).0.len(), 2);
        let bowtie = [
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        assert_eq!(triangulate(&bowtie).0.len(), 2);
    }
}
