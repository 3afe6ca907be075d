//! Bounds: the box and sphere around points, a slot's bounds and the model
//! header's hull and capsule.

use crate::raw::{ModelHeader, Position, Slot68};
use zerocopy::little_endian::F32;

/// An axis-aligned box and a sphere around a set of points.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    /// Smallest coordinates.
    pub aabb_min: [f32; 3],
    /// Largest coordinates.
    pub aabb_max: [f32; 3],
    /// Sphere centre: the centre of the box.
    pub sphere_center: [f32; 3],
    /// Sphere radius: the largest distance of a point from the centre, rounded up to f32.
    pub sphere_radius: f32,
}

/// Bounds of `points`: the box, and the sphere around the box centre that holds
/// every point. Non-finite coordinates are skipped; no points gives all zeros.
pub fn bounds(points: impl IntoIterator<Item = [f32; 3]>) -> Bounds {
    let points: Vec<[f32; 3]> = points.into_iter().collect();
    bounds_in_two_passes(points.iter().copied())
}

/// [`bounds`] over points that can be walked twice (the box, then the radius).
fn bounds_in_two_passes(points: impl Iterator<Item = [f32; 3]> + Clone) -> Bounds {
    let finite = points.filter(|p| p.iter().all(|c| c.is_finite()));
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    let mut any = false;
    for p in finite.clone() {
        any = true;
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    if !any {
        return Bounds::default();
    }
    let center: [f32; 3] = std::array::from_fn(|i| ((lo[i] as f64 + hi[i] as f64) / 2.0) as f32);
    // sqrt is monotonic and correctly rounded: the largest distance is the root
    // of the largest squared distance.
    let radius = finite
        .map(|p| dist2(p, center))
        .fold(0.0f64, f64::max)
        .sqrt();
    Bounds {
        aabb_min: lo,
        aabb_max: hi,
        sphere_center: center,
        sphere_radius: round_up(radius),
    }
}

/// [`bounds`] of the positions that batches reference, each batch given as
/// its base vertex and its indices (a vertex `base + index` past `positions`
/// is skipped). Each distinct vertex is taken once: the same result as over
/// every reference (the box and the largest distance do not change with
/// repeats or order), at the cost of the distinct vertices.
pub fn bounds_of_batches<I: IntoIterator<Item = u16>>(
    positions: &[Position],
    batches: impl IntoIterator<Item = (u32, I)>,
) -> Bounds {
    let mut refs: Vec<u32> = Vec::new();
    for (base, indices) in batches {
        let indices = indices.into_iter();
        refs.reserve(indices.size_hint().0);
        for i in indices {
            let v = base.saturating_add(u32::from(i));
            if (v as usize) < positions.len() {
                refs.push(v);
            }
        }
    }
    let (Some(&lo), Some(&hi)) = (refs.iter().min(), refs.iter().max()) else {
        return Bounds::default();
    };
    let point = |v: u32| positions[v as usize].map(|c| c.get());
    let span = (hi - lo) as usize + 1;
    if span <= refs.len().saturating_mul(4).saturating_add(1024) {
        // Dense: one mark per vertex of the span.
        let mut seen = vec![false; span];
        for &v in &refs {
            seen[(v - lo) as usize] = true;
        }
        bounds_in_two_passes(
            seen.iter()
                .enumerate()
                .filter(|(_, &s)| s)
                .map(|(i, _)| point(lo + i as u32)),
        )
    } else {
        let mut distinct = refs;
        distinct.sort_unstable();
        distinct.dedup();
        bounds_in_two_passes(distinct.iter().map(|&v| point(v)))
    }
}

/// Writes bounds into a slot's node-local box and sphere (ranges and opaque fields untouched).
pub fn set_slot_bounds(slot: &mut Slot68, b: &Bounds) {
    slot.aabb_min = b.aabb_min.map(F32::new);
    slot.aabb_max = b.aabb_max.map(F32::new);
    slot.sphere_center = b.sphere_center.map(F32::new);
    slot.sphere_radius = F32::new(b.sphere_radius);
}

/// The Res2 model header for points given in model (world) space.
///
/// - hull: the 8 corners of the box, corner `i` taking x from `max` when bit 0
///   of `i` is set (else `min`), y by bit 1, z by bit 2;
/// - sphere: as [`bounds`];
/// - capsule: the segment through the box centre along the box's longest axis
///   (the first of equal ones), from the box's `min` to its `max` on that axis,
///   with the largest distance of a point from that segment as radius.
pub fn model_header(world_points: impl IntoIterator<Item = [f32; 3]>) -> ModelHeader {
    let points: Vec<[f32; 3]> = world_points
        .into_iter()
        .filter(|p| p.iter().all(|c| c.is_finite()))
        .collect();
    let b = bounds(points.iter().copied());
    let hull = std::array::from_fn(|i| {
        std::array::from_fn(|axis| {
            F32::new(if i >> axis & 1 == 1 {
                b.aabb_max[axis]
            } else {
                b.aabb_min[axis]
            })
        })
    });
    let extent: [f32; 3] = std::array::from_fn(|i| b.aabb_max[i] - b.aabb_min[i]);
    let mut axis = 0;
    for i in 1..3 {
        if extent[i] > extent[axis] {
            axis = i;
        }
    }
    let mut a = b.sphere_center;
    let mut c = b.sphere_center;
    a[axis] = b.aabb_min[axis];
    c[axis] = b.aabb_max[axis];
    let radius = points
        .iter()
        .map(|p| segment_dist(*p, a, c))
        .fold(0.0f64, f64::max);
    ModelHeader {
        hull,
        sphere_center: b.sphere_center.map(F32::new),
        sphere_radius: F32::new(b.sphere_radius),
        capsule_a: a.map(F32::new),
        capsule_b: c.map(F32::new),
        capsule_radius: F32::new(round_up(radius)),
    }
}

#[cfg(test)]
fn dist(p: [f32; 3], c: [f32; 3]) -> f64 {
    dist2(p, c).sqrt()
}

fn dist2(p: [f32; 3], c: [f32; 3]) -> f64 {
    let d: [f64; 3] = std::array::from_fn(|i| p[i] as f64 - c[i] as f64);
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

fn segment_dist(p: [f32; 3], a: [f32; 3], b: [f32; 3]) -> f64 {
    let ab: [f64; 3] = std::array::from_fn(|i| b[i] as f64 - a[i] as f64);
    let ap: [f64; 3] = std::array::from_fn(|i| p[i] as f64 - a[i] as f64);
    let len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    let t = if len2 > 0.0 {
        ((ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let d: [f64; 3] = std::array::from_fn(|i| ap[i] - ab[i] * t);
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// The smallest f32 that is not below `v` (so a sphere of this radius holds every point).
fn round_up(v: f64) -> f32 {
    let f = v as f32;
    if (f as f64) < v && f.is_finite() {
        f32::from_bits(f.to_bits() + 1)
    } else {
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::FromZeros;

    #[test]
    fn bounds_and_header() {
        let pts = [[0.0, 0.0, 0.0], [4.0, 1.0, 2.0], [2.0, -1.0, 0.0]];
        let b = bounds(pts);
        assert_eq!(b.aabb_min, [0.0, -1.0, 0.0]);
        assert_eq!(b.aabb_max, [4.0, 1.0, 2.0]);
        assert_eq!(b.sphere_center, [2.0, 0.0, 1.0]);
        assert!(pts
            .iter()
            .all(|p| dist(*p, b.sphere_center) <= b.sphere_radius as f64));
        assert_eq!(bounds(std::iter::empty()), Bounds::default());

        let mut slot = Slot68::new_zeroed();
        slot.opaque[2] = 7.into();
        set_slot_bounds(&mut slot, &b);
        assert_eq!(slot.aabb_max.map(F32::get), [4.0, 1.0, 2.0]);
        assert_eq!(slot.opaque[2].get(), 7);

        let h = model_header(pts);
        assert_eq!(h.hull[0].map(F32::get), [0.0, -1.0, 0.0]);
        assert_eq!(h.hull[7].map(F32::get), [4.0, 1.0, 2.0]);
        assert_eq!(h.hull[1].map(F32::get), [4.0, -1.0, 0.0]);
        // Longest axis is x: the capsule runs from x=0 to x=4 through the centre.
        assert_eq!(h.capsule_a.map(F32::get), [0.0, 0.0, 1.0]);
        assert_eq!(h.capsule_b.map(F32::get), [4.0, 0.0, 1.0]);
        let r = h.capsule_radius.get() as f64;
        assert!(pts
            .iter()
            .all(|p| segment_dist(*p, [0.0, 0.0, 1.0], [4.0, 0.0, 1.0]) <= r));
        assert!((r - 2f64.sqrt()).abs() < 1e-6, "{r}");
    }
}
