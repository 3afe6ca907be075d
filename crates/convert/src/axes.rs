//! The coordinate axes of the output: which way is up, and which way a stored
//! rotation turns (the options `axis` and `rotation`). This is the change of
//! coordinate frame between the game and glTF/OBJ, not an animation frame.
//! Both parts are signed permutations of components, so nothing is rounded
//! and the way back is exact (FORMAT.md, "Which way the stored rotation turns").

use crate::options::{Axis, Rotation};

/// The output's coordinate axes and rotation reading: maps vectors and
/// quaternions between the game's coordinates and the output's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axes {
    /// Up axis of the output.
    pub axis: Axis,
    /// Rotation reading.
    pub rotation: Rotation,
}

impl Axes {
    /// Game vector to output vector: Y up is `(x, z, -y)`.
    pub fn vec<T: Copy + std::ops::Neg<Output = T>>(&self, v: [T; 3]) -> [T; 3] {
        match self.axis {
            Axis::YUp => [v[0], v[2], -v[1]],
            Axis::ZUp => v,
        }
    }

    /// Output vector back to the game frame.
    pub fn vec_back<T: Copy + std::ops::Neg<Output = T>>(&self, v: [T; 3]) -> [T; 3] {
        match self.axis {
            Axis::YUp => [v[0], -v[2], v[1]],
            Axis::ZUp => v,
        }
    }

    /// A stored quaternion, components as in Res8 (`[x, y, z, w]`), to the glTF
    /// rotation `[x, y, z, w]` of the node in the output frame. Works on raw
    /// `i16` as on floats: only signs and places change.
    pub fn quat<T: Copy + std::ops::Neg<Output = T>>(&self, q: [T; 4]) -> [T; 4] {
        let [x, y, z, w] = q;
        let v = match self.rotation {
            Rotation::Conjugate => [-x, -y, -z],
            Rotation::Stored => [x, y, z],
        };
        let [a, b, c] = self.vec(v);
        [a, b, c, w]
    }

    /// A glTF rotation `[x, y, z, w]` back to stored components `[x, y, z, w]`.
    pub fn quat_back<T: Copy + std::ops::Neg<Output = T>>(&self, q: [T; 4]) -> [T; 4] {
        let [a, b, c, w] = q;
        let [x, y, z] = self.vec_back([a, b, c]);
        match self.rotation {
            Rotation::Conjugate => [-x, -y, -z, w],
            Rotation::Stored => [x, y, z, w],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_are_exact_both_ways() {
        for axis in [Axis::YUp, Axis::ZUp] {
            for rotation in [Rotation::Conjugate, Rotation::Stored] {
                let f = Axes { axis, rotation };
                let v = [1.5f32, -2.25, 3.0];
                assert_eq!(f.vec_back(f.vec(v)), v);
                let q = [1i16, -2, 32767, -32767];
                assert_eq!(f.quat_back(f.quat(q)), q);
            }
        }
        let y = Axes {
            axis: Axis::YUp,
            rotation: Rotation::Stored,
        };
        assert_eq!(
            y.vec([0.0f32, 0.0, 1.0]),
            [0.0, 1.0, -0.0],
            "game up is glTF +Y"
        );
        assert_eq!(
            y.vec([0.0f32, 1.0, 0.0]),
            [0.0, 0.0, -1.0],
            "game forward (+Y) is glTF -Z"
        );
    }
}
