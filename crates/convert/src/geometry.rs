//! What every export shows of a model's geometry the same way: the
//! triangles' winding against the stored normals, a batch's indices, the
//! normal shown for a packed one, and the vector arithmetic they use.

use msh::raw::Batch20;
use msh::ModelRef;

/// The indices of a batch, if in range.
pub fn batch_indices<'a>(indices: &'a [u16], b: &Batch20) -> Option<&'a [u16]> {
    let start = b.index_start.get() as usize;
    indices.get(start..start.checked_add(b.index_count.get() as usize)?)
}

/// Majority vote of triangle winding against the stored vertex normals, over
/// every batch: whether the triangles wind clockwise seen from their normals'
/// side (every export then writes them reversed, so all agree). A triangle
/// with a vertex out of range does not vote.
pub fn clockwise(view: &ModelRef<'_>, indices: &[u16]) -> bool {
    let Some(normals) = view.normals else {
        return false;
    };
    let count = view.positions.len().min(normals.len());
    let mut score = 0i64;
    for b in view.batches {
        let Some(idx) = batch_indices(indices, b) else {
            continue;
        };
        let base = b.base_vertex.get() as usize;
        // Per triangle: written out rather than with `array::map`, which was
        // not inlined here (a call per component).
        let position = |v: usize| {
            let [x, y, z] = view.positions[v];
            [x.get() as f64, y.get() as f64, z.get() as f64]
        };
        let normal = |v: usize| {
            let [x, y, z] = normals[v].decode();
            [f64::from(x), f64::from(y), f64::from(z)]
        };
        for t in idx.chunks_exact(3) {
            let [a, b, c] = [
                base + t[0] as usize,
                base + t[1] as usize,
                base + t[2] as usize,
            ];
            if a >= count || b >= count || c >= count {
                continue;
            }
            let p = [position(a), position(b), position(c)];
            let n = [normal(a), normal(b), normal(c)];
            let geo = cross(sub(p[1], p[0]), sub(p[2], p[0]));
            let avg = [
                n[0][0] + n[1][0] + n[2][0],
                n[0][1] + n[1][1] + n[2][1],
                n[0][2] + n[1][2] + n[2][2],
            ];
            let d = dot(geo, avg);
            score += (d > 0.0) as i64 - (d < 0.0) as i64;
        }
    }
    score < 0
}

/// Whether Res15 is shown as a second UV set (glTF `TEXCOORD_1`, USD
/// `primvars:st1`): every record two finite floats.
pub fn stream15_is_uv(s: &[[u8; 8]]) -> bool {
    s.iter().all(|r| {
        let u = f32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        let v = f32::from_le_bytes([r[4], r[5], r[6], r[7]]);
        u.is_finite() && v.is_finite()
    })
}

/// The unit normal the exporter shows for a packed normal (game frame), and
/// whether it was zero (then +Z). The importer compares with it to tell an
/// unedited normal (raw bytes kept) from an edited one.
pub fn shown_normal(n: &msh::raw::PackedNormal) -> ([f32; 3], bool) {
    let [x, y, z] = n.decode();
    let d = [f64::from(x), f64::from(y), f64::from(z)];
    let len = dot(d, d).sqrt();
    if len > 1e-9 {
        let unit = |c: f64| (c / len) as f32;
        ([unit(d[0]), unit(d[1]), unit(d[2])], false)
    } else {
        ([0.0, 0.0, 1.0], true)
    }
}

/// `a - b`.
pub fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a x b`.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a . b`.
pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
