//! The small linear algebra of the glTF import: 3x3 maps, affine maps (3x4,
//! rows), quaternions as `[x, y, z, w]`, all in f64.

/// A 3x3 linear map, rows.
pub(super) type M3 = [[f64; 3]; 3];
/// An affine map: a 3x3 linear part and a translation column, rows.
pub(super) type Affine = [[f64; 4]; 3];
/// The identity map.
pub(super) const IDENTITY: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
/// The identity affine map.
pub(super) const IDENTITY_AFFINE: Affine = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// Whether `m` is the identity within 1e-6.
pub(super) fn is_identity(m: &M3) -> bool {
    (0..3).all(|i| (0..3).all(|j| (m[i][j] - IDENTITY[i][j]).abs() < 1e-6))
}

/// The product `a b`.
pub(super) fn mul(a: &M3, b: &M3) -> M3 {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

/// The transpose.
pub(super) fn transpose(a: &M3) -> M3 {
    std::array::from_fn(|i| std::array::from_fn(|j| a[j][i]))
}

/// The diagonal map of `s`.
pub(super) fn diag(s: [f64; 3]) -> M3 {
    [[s[0], 0.0, 0.0], [0.0, s[1], 0.0], [0.0, 0.0, s[2]]]
}

/// `m v`.
pub(super) fn apply(m: &M3, v: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| (0..3).map(|k| m[i][k] * v[k]).sum())
}

/// The affine map of linear part `m` and translation `t`.
pub(super) fn affine_of(m: &M3, t: [f64; 3]) -> Affine {
    std::array::from_fn(|i| [m[i][0], m[i][1], m[i][2], t[i]])
}

/// The affine map `a` after `b`.
pub(super) fn compose(a: &Affine, b: &Affine) -> Affine {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            (0..3).map(|k| a[i][k] * b[k][j]).sum::<f64>() + if j == 3 { a[i][3] } else { 0.0 }
        })
    })
}

/// `m` applied to the point `v`.
pub(super) fn apply_affine(m: &Affine, v: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| (0..3).map(|k| m[i][k] * v[k]).sum::<f64>() + m[i][3])
}

/// The determinant.
pub(super) fn det3(m: &M3) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

/// The inverse transpose (for normals); a singular map gives the map itself.
pub(super) fn inverse_transpose(m: &M3) -> M3 {
    let d = det3(m);
    if d.abs() < 1e-30 {
        return *m;
    }
    let c = |r: usize, c: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
        m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]
    };
    std::array::from_fn(|i| std::array::from_fn(|j| c(i, j) / d))
}

/// The rotation matrix of a unit quaternion `[x, y, z, w]`.
pub(super) fn quat_matrix(q: [f64; 4]) -> M3 {
    let [x, y, z, w] = q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// A quaternion scaled to unit length (the identity when it has none).
pub(super) fn normalize(q: [f64; 4]) -> [f64; 4] {
    let len = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    if len > 0.0 && len.is_finite() {
        q.map(|c| c / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// A vector scaled to unit length (+Z when it has none).
pub(super) fn normalize3(v: [f64; 3]) -> [f64; 3] {
    let len = v.iter().map(|c| c * c).sum::<f64>().sqrt();
    if len > 0.0 && len.is_finite() {
        v.map(|c| c / len)
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// Componentwise linear interpolation.
pub(super) fn lerp(a: [f64; 4], b: [f64; 4], t: f64) -> [f64; 4] {
    std::array::from_fn(|k| a[k] + (b[k] - a[k]) * t)
}

/// Spherical linear interpolation of unit quaternions (the shorter way).
pub(super) fn slerp(p: [f64; 4], mut q: [f64; 4], t: f64) -> [f64; 4] {
    let mut d: f64 = (0..4).map(|k| p[k] * q[k]).sum();
    if d < 0.0 {
        d = -d;
        q = q.map(|c| -c);
    }
    if d > 1.0 - 1e-12 {
        return normalize(lerp(p, q, t));
    }
    let th = d.min(1.0).acos();
    let (w0, w1) = (((1.0 - t) * th).sin() / th.sin(), (t * th).sin() / th.sin());
    std::array::from_fn(|k| w0 * p[k] + w1 * q[k])
}

/// The Hamilton product `a b` of quaternions `[x, y, z, w]`.
pub(super) fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The unit quaternion of a rotation matrix (Shepperd's method: the largest
/// of the four diagonal combinations, for precision).
pub(super) fn matrix_quat(m: &M3) -> [f64; 4] {
    let trace = m[0][0] + m[1][1] + m[2][2];
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        [
            (m[2][1] - m[1][2]) / s,
            (m[0][2] - m[2][0]) / s,
            (m[1][0] - m[0][1]) / s,
            0.25 * s,
        ]
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        let s = (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt() * 2.0;
        [
            0.25 * s,
            (m[0][1] + m[1][0]) / s,
            (m[0][2] + m[2][0]) / s,
            (m[2][1] - m[1][2]) / s,
        ]
    } else if m[1][1] > m[2][2] {
        let s = (1.0 + m[1][1] - m[0][0] - m[2][2]).sqrt() * 2.0;
        [
            (m[0][1] + m[1][0]) / s,
            0.25 * s,
            (m[1][2] + m[2][1]) / s,
            (m[0][2] - m[2][0]) / s,
        ]
    } else {
        let s = (1.0 + m[2][2] - m[0][0] - m[1][1]).sqrt() * 2.0;
        [
            (m[0][2] + m[2][0]) / s,
            (m[1][2] + m[2][1]) / s,
            0.25 * s,
            (m[1][0] - m[0][1]) / s,
        ]
    };
    normalize(q)
}

/// When `k` is a uniform scale times an orthogonal map (a mirror, a
/// half-turn of two mirrors), the rotation `Q` with `k = s Q` or `k = -s Q`
/// (`s > 0`): then `k R = (Q R Q^T) k` for every rotation `R`. `None` for
/// any other map.
pub(super) fn similarity_rotation(k: &M3) -> Option<M3> {
    let d = det3(k);
    if !d.is_finite() || d.abs() < 1e-12 {
        return None;
    }
    let s = d.abs().cbrt();
    let m = k.map(|row| row.map(|c| c / s));
    if !is_identity(&mul(&m, &transpose(&m))) {
        return None;
    }
    Some(if d < 0.0 {
        m.map(|row| row.map(|c| -c))
    } else {
        m
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_quat_inverts_quat_matrix() {
        for q in [
            [0.0, 0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.5, -0.5, 0.5, 0.5],
            [0.1, 0.7, -0.3, -0.2],
        ] {
            let q = normalize(q);
            let back = matrix_quat(&quat_matrix(q));
            let same = (0..4).all(|k| (back[k] - q[k]).abs() < 1e-12)
                || (0..4).all(|k| (back[k] + q[k]).abs() < 1e-12);
            assert!(same, "{q:?} -> {back:?}");
        }
    }

    #[test]
    fn a_mirror_conjugates_rotations_through_its_rotation() {
        let mirror = diag([-2.0, 2.0, 2.0]);
        let q = similarity_rotation(&mirror).unwrap();
        let r = quat_matrix(normalize([0.3, 0.4, -0.2, 0.8]));
        // k R = (Q R Q^T) k
        let left = mul(&mirror, &r);
        let right = mul(&mul(&mul(&q, &r), &transpose(&q)), &mirror);
        assert!((0..3).all(|i| (0..3).all(|j| (left[i][j] - right[i][j]).abs() < 1e-12)));
        assert!(similarity_rotation(&diag([1.0, 2.0, 1.0])).is_none());
        assert!(similarity_rotation(&diag([0.0, 1.0, 1.0])).is_none());
    }
}
