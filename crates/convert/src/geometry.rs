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
/// every batch (the glTF export's rule, so both exports agree; the USD export
/// uses it too).
pub fn clockwise(view: &ModelRef<'_>, indices: &[u16]) -> bool {
    let Some(normals) = view.normals else {
        return false;
    };
    let mut score = 0i64;
    for b in view.batches {
        let base = b.base_vertex.get();
        for t in batch_indices(indices, b).unwrap_or(&[]).chunks_exact(3) {
            let v = [0, 1, 2].map(|k| base.saturating_add(t[k] as u32) as usize);
            if v.iter()
                .any(|&v| v >= view.positions.len() || v >= normals.len())
            {
                continue;
            }
            let p = v.map(|v| view.positions[v].map(|c| c.get() as f64));
            let n = v.map(|v| normals[v].decode().map(f64::from));
            let geo = cross(sub(p[1], p[0]), sub(p[2], p[0]));
            let avg = [0, 1, 2].map(|k| n[0][k] + n[1][k] + n[2][k]);
            let d = dot(geo, avg);
            score += (d > 0.0) as i64 - (d < 0.0) as i64;
        }
    }
    score < 0
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
