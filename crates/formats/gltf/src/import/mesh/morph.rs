//! Morph targets at their default weights (mesh `weights`, or the node's,
//! which override them): the shape a viewer shows before any weight
//! animation, applied to a primitive's base positions and normals.

use super::super::linear::normalize3;
use super::super::read::Source;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};

/// The code of a morph target that does not match its primitive.
pub const INVALID: &str = Code::GltfMorphInvalid.code();

/// Adds `weights[k]` times target `k`'s (of primitive `prim` of mesh `mesh`) displacements to `positions` (and to
/// `normals`, renormalised, where the target has normals); weights past the
/// targets and zero weights change nothing. Returns whether anything moved.
pub(super) fn apply(
    src: &Source<'_>,
    mesh: usize,
    prim: &gltf::Primitive<'_>,
    weights: &[f32],
    positions: &mut [[f32; 3]],
    normals: Option<&mut Vec<[f32; 3]>>,
) -> Result<bool> {
    let n = positions.len();
    let what = |k: usize| format!("/meshes/{mesh}/primitives/{}/targets/{k}", prim.index());
    let read = |k: usize, a: Option<gltf::Accessor<'_>>| -> Result<Option<Vec<[f32; 3]>>> {
        let Some(a) = a else { return Ok(None) };
        let d = src.floats::<3>(&a)?;
        if d.len() != n {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                INVALID,
                format!("{}: {} displacements for {n} vertices", what(k), d.len()),
            ));
        }
        Ok(Some(d))
    };
    let mut moved = false;
    let mut normal_sum: Option<Vec<[f64; 3]>> = None;
    for (k, target) in prim.morph_targets().enumerate() {
        let w = weights.get(k).copied().unwrap_or(0.0);
        if w == 0.0 {
            continue;
        }
        if !w.is_finite() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                Code::GltfNonFinite.code(),
                format!("the weight of {} is not a finite number", what(k)),
            ));
        }
        if let Some(d) = read(k, target.positions())? {
            for (p, d) in positions.iter_mut().zip(&d) {
                (0..3).for_each(|c| p[c] += w * d[c]);
            }
            moved = true;
        }
        if normals.is_some() {
            if let Some(d) = read(k, target.normals())? {
                let sum = normal_sum.get_or_insert_with(|| vec![[0.0; 3]; n]);
                for (s, d) in sum.iter_mut().zip(&d) {
                    (0..3).for_each(|c| s[c] += f64::from(w) * f64::from(d[c]));
                }
            }
        }
    }
    if let (Some(normals), Some(sum)) = (normals, normal_sum) {
        for (v, s) in normals.iter_mut().zip(&sum) {
            let bent: [f64; 3] = std::array::from_fn(|c| f64::from(v[c]) + s[c]);
            *v = normalize3(bent).map(|c| c as f32);
        }
        moved = true;
    }
    Ok(moved)
}
