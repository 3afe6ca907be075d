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

use crate::model::Model;
use crate::raw::{AnimKey24, ModelHeader, Position, Slot68, TriDesc16, NONE};
use crate::report::Code;
use crate::validate::canonical_map_value;
use std::fmt;
use zerocopy::little_endian::{F32, I16, U16};

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

/// `round(q * 32767)` for each of `[x, y, z, w]`, clamped to `[-32767, 32767]` (FORMAT.md section 3).
pub fn quantize_quat(xyzw: [f32; 4]) -> [i16; 4] {
    xyzw.map(|c| {
        if c.is_nan() {
            0
        } else {
            (c as f64 * 32767.0).round().clamp(-32767.0, 32767.0) as i16
        }
    })
}

/// The stored quaternion nearest `[x, y, z, w]` as the engine uses it: of
/// the 16 combinations of each component rounded down or up (`q * 32767`,
/// clamped to `[-32767, 32767]`, FORMAT.md section 3), the one whose
/// rotation matrix (the engine's, which does not normalise) is closest to
/// the unit quaternion's; a tie keeps plain rounding ([`quantize_quat`]).
/// A value that is already a stored one (each component the f32 of
/// `s / 32767`, as an export writes it) comes back as it was. The importers
/// use it for static rotations (a node's one key), where a rounding error
/// is seen at every frame; animated keys keep [`quantize_quat`].
pub fn quantize_quat_nearest(xyzw: [f32; 4]) -> [i16; 4] {
    let scaled = xyzw.map(|c| if c.is_nan() { 0.0 } else { c as f64 * 32767.0 });
    let rounded = scaled.map(|v| v.round().clamp(-32767.0, 32767.0));
    let len = xyzw
        .iter()
        .map(|&c| f64::from(c) * f64::from(c))
        .sum::<f64>()
        .sqrt();
    // A stored value read back (each component exactly the f32 of s / 32767,
    // as the decoder makes it) keeps its s.
    let stored = xyzw
        .iter()
        .zip(&rounded)
        .all(|(&c, &r)| (r as f32) * (1.0f32 / 32767.0) == c || (r / 32767.0) as f32 == c);
    if len.is_nan() || len <= 0.5 || stored {
        return rounded.map(|v| v as i16);
    }
    let unit = xyzw.map(|c| f64::from(c) / len);
    let target = quat_matrix(unit);
    let error = |q: [f64; 4]| -> f64 {
        let m = quat_matrix(q.map(|c| c / 32767.0));
        m.iter().zip(&target).map(|(a, b)| (a - b) * (a - b)).sum()
    };
    let mut best = rounded;
    let mut best_error = error(rounded);
    for bits in 0..16u32 {
        let q: [f64; 4] = std::array::from_fn(|i| {
            let v = if bits >> i & 1 == 1 {
                scaled[i].ceil()
            } else {
                scaled[i].floor()
            };
            v.clamp(-32767.0, 32767.0)
        });
        let e = error(q);
        if e < best_error {
            best = q;
            best_error = e;
        }
    }
    best.map(|v| v as i16)
}

/// The engine's rotation matrix of `[x, y, z, w]` (anim::to_matrix's terms), in f64.
fn quat_matrix([x, y, z, w]: [f64; 4]) -> [f64; 9] {
    [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y + w * z),
        2.0 * (x * z - w * y),
        2.0 * (x * y - w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + w * x),
        2.0 * (x * z + w * y),
        2.0 * (y * z - w * x),
        1.0 - 2.0 * (x * x + y * y),
    ]
}

/// One animation key as a writer supplies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    /// Key time in frames (whole numbers in canonical files).
    pub time: f32,
    /// Translation.
    pub pos: [f32; 3],
    /// Rotation as stored, `[qx, qy, qz, qw]` (see [`quantize_quat`]).
    pub quat: [i16; 4],
}

/// The keys of one node, in time order. One key is a static node; two or more
/// an animated one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Track {
    /// Keys with strictly increasing times.
    pub keys: Vec<Key>,
}

impl Track {
    /// A static track: one key at time 0.
    pub fn fixed(pos: [f32; 3], quat: [i16; 4]) -> Track {
        Track {
            keys: vec![Key {
                time: 0.0,
                pos,
                quat,
            }],
        }
    }
}

/// Why [`write_animation`] could not lay tracks out.
#[derive(Debug, Clone, PartialEq)]
pub enum AnimError {
    /// The number of tracks differs from the number of nodes.
    TrackCount {
        /// Tracks given.
        tracks: usize,
        /// Nodes in the model.
        nodes: usize,
    },
    /// A track has no key (every node needs its fallback key).
    EmptyTrack {
        /// Node index.
        node: usize,
    },
    /// Key times do not strictly increase (or are not finite / negative).
    KeyTimes {
        /// Node index.
        node: usize,
        /// Key index within the track.
        key: usize,
    },
    /// More keys, frames or map words than the u16 fields can address.
    TooLarge(String),
}

impl AnimError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        let code = match self {
            AnimError::TrackCount { .. } => Code::TrackCount,
            AnimError::EmptyTrack { .. } => Code::EmptyTrack,
            AnimError::KeyTimes { .. } => Code::KeyTimesNotIncreasing,
            AnimError::TooLarge(_) => Code::AnimTooLarge,
        };
        code.as_str()
    }
}

impl fmt::Display for AnimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.code())?;
        match self {
            AnimError::TrackCount { tracks, nodes } => {
                write!(f, "{tracks} tracks for {nodes} nodes (one track per node)")
            }
            AnimError::EmptyTrack { node } => write!(f, "node {node} has no key"),
            AnimError::KeyTimes { node, key } => write!(
                f,
                "node {node}: key {key} time must be finite, >= 0 and greater than the previous key's"
            ),
            AnimError::TooLarge(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for AnimError {}

/// Lays tracks out canonically (FORMAT.md section 3, "Track layout" and
/// "Writing animation"): one track per node in node order.
///
/// Sets `anim_keys` (tracks back to back), every node's `fallback_key` (its last
/// key) and `anim_map_start` (0xFFFF for a node with one key, else its block),
/// `anim_map` (`frame_count` words per animated node, back to back, with
/// [`canonical_map_value`]s) and `frame_count` (`max last key time + 1`,
/// `floor` for fractional times; 1 for a model without animated node, whose map
/// is empty). Nothing else changes. A single key at a time other than 0 is kept
/// as given (valid, but not canonical).
pub fn write_animation(model: &mut Model, tracks: &[Track]) -> Result<(), AnimError> {
    if tracks.len() != model.nodes.len() {
        return Err(AnimError::TrackCount {
            tracks: tracks.len(),
            nodes: model.nodes.len(),
        });
    }
    let mut max_end = 0f32;
    let mut total = 0usize;
    let mut animated = 0usize;
    for (node, track) in tracks.iter().enumerate() {
        let Some(last) = track.keys.last() else {
            return Err(AnimError::EmptyTrack { node });
        };
        for (k, key) in track.keys.iter().enumerate() {
            let ok = key.time.is_finite()
                && key.time >= 0.0
                && (k == 0 || key.time > track.keys[k - 1].time);
            if !ok {
                return Err(AnimError::KeyTimes { node, key: k });
            }
        }
        max_end = max_end.max(last.time);
        total += track.keys.len();
        if track.keys.len() > 1 {
            animated += 1;
        }
    }
    if total > NONE as usize + 1 {
        return Err(AnimError::TooLarge(format!(
            "{total} keys, fallback_key addresses at most 65536"
        )));
    }
    let frame_count: u32 = if animated > 0 {
        let end = max_end.floor();
        if end >= 65535.0 {
            return Err(AnimError::TooLarge(format!(
                "last key time {max_end} needs more frames than a map block can hold"
            )));
        }
        end as u32 + 1
    } else {
        1
    };
    let words = animated * frame_count as usize;
    if animated > 0 && (animated - 1) * frame_count as usize >= NONE as usize {
        return Err(AnimError::TooLarge(format!(
            "{animated} animated nodes x {frame_count} frames: a map start must stay below 0xFFFF"
        )));
    }
    let mut keys = Vec::with_capacity(total);
    let mut map = Vec::with_capacity(words);
    let mut times: Vec<f32> = Vec::with_capacity(total);
    for (node, track) in model.nodes.iter_mut().zip(tracks) {
        let start = keys.len();
        for key in &track.keys {
            keys.push(AnimKey24::new(key.pos, key.time, key.quat));
            times.push(key.time);
        }
        let end = keys.len() - 1;
        node.fallback_key = U16::new(end as u16);
        if track.keys.len() > 1 {
            node.anim_map_start = U16::new(map.len() as u16);
            map.extend(
                (0..frame_count).map(|f| U16::new(canonical_map_value(&times, start, end, f))),
            );
        } else {
            node.anim_map_start = U16::new(NONE);
        }
    }
    model.anim_keys = keys;
    model.anim_map = map;
    model.frame_count = frame_count;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    use crate::raw::Node38;
    use zerocopy::FromZeros;

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

    #[test]
    fn quantize() {
        assert_eq!(quantize_quat([0.0, 0.0, 0.0, 1.0]), [0, 0, 0, 32767]);
        assert_eq!(
            quantize_quat([-1.5, 0.5, f32::NAN, 2.0]),
            [-32767, 16384, 0, 32767]
        );
    }

    fn model(nodes: usize) -> Model {
        let mut node = Node38::new_zeroed();
        node.parent = U16::new(NONE);
        node.slots = [U16::new(NONE); crate::raw::SLOTS_PER_NODE];
        let mut m = Model {
            nodes: vec![node; nodes],
            ..Model::default()
        };
        m.canonicalize_entries();
        m
    }

    fn key(time: f32) -> Key {
        Key {
            time,
            pos: [time, 0.0, 0.0],
            quat: [0, 0, 0, 32767],
        }
    }

    #[test]
    fn canonical_animation_layout() {
        let mut m = model(3);
        let tracks = [
            Track::fixed([1.0, 2.0, 3.0], [0, 0, 0, 32767]),
            Track {
                keys: vec![key(0.0), key(2.0), key(5.0)],
            },
            Track {
                keys: vec![key(0.0), key(3.0)],
            },
        ];
        write_animation(&mut m, &tracks).unwrap();
        assert_eq!(m.frame_count, 6);
        assert_eq!(m.anim_keys.len(), 6);
        let fallbacks: Vec<u16> = m.nodes.iter().map(|n| n.fallback_key.get()).collect();
        assert_eq!(fallbacks, [0, 3, 5]);
        let starts: Vec<u16> = m.nodes.iter().map(|n| n.anim_map_start.get()).collect();
        assert_eq!(starts, [NONE, 0, 6]);
        let map: Vec<u16> = m.anim_map.iter().map(|w| w.get()).collect();
        // Node 1 (keys 1..=3 at 0, 2, 5): frames 0-1 -> 1, 2-4 -> 2, 5 -> fallback 3.
        // Node 2 (keys 4..=5 at 0, 3): frames 0-2 -> 4, 3-5 -> fallback 5.
        assert_eq!(map, [1, 1, 2, 2, 2, 3, 4, 4, 4, 5, 5, 5]);
        let report = crate::validate(&m.view());
        assert!(report.is_valid(), "{report:?}");
    }

    #[test]
    fn static_model_and_errors() {
        let mut m = model(2);
        let fixed = Track::fixed([0.0; 3], [0, 0, 0, 32767]);
        write_animation(&mut m, &[fixed.clone(), fixed.clone()]).unwrap();
        assert_eq!(m.frame_count, 1);
        assert!(m.anim_map.is_empty());
        assert!(m.nodes.iter().all(|n| n.anim_map_start.get() == NONE));
        assert_eq!(m.nodes[1].fallback_key.get(), 1);

        let err = write_animation(&mut m, std::slice::from_ref(&fixed)).unwrap_err();
        assert_eq!(err.code(), "anim.track_count");
        let bad = Track {
            keys: vec![key(0.0), key(0.0)],
        };
        let err = write_animation(&mut m, &[fixed.clone(), bad]).unwrap_err();
        assert_eq!(err, AnimError::KeyTimes { node: 1, key: 1 });
        let err = write_animation(&mut m, &[fixed, Track::default()]).unwrap_err();
        assert_eq!(err.code(), "anim.empty_track");
    }

    #[test]
    fn the_nearest_stored_quaternion_keeps_stored_values_and_beats_rounding() {
        // A stored value read back keeps its bits.
        for q in [
            [12345i16, -2, 32767, -301],
            [0, 0, 0, 32767],
            [-23170, 0, 0, 23170],
        ] {
            let f = q.map(|s| s as f32 * (1.0f32 / 32767.0));
            assert_eq!(quantize_quat_nearest(f), q);
        }
        // Any unit quaternion: never farther (as a matrix) than plain rounding.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let matrix_error = |q: [i16; 4], unit: [f64; 4]| -> f64 {
            let m = quat_matrix(q.map(|s| f64::from(s) / 32767.0));
            quat_matrix(unit)
                .iter()
                .zip(&m)
                .map(|(a, b)| (a - b) * (a - b))
                .sum()
        };
        let mut better = 0;
        for _ in 0..2000 {
            let v = [next(), next(), next(), next()];
            let len = v.iter().map(|c| c * c).sum::<f64>().sqrt();
            let unit = v.map(|c| c / len);
            let f = unit.map(|c| c as f32);
            let (near, plain) = (quantize_quat_nearest(f), quantize_quat(f));
            let (a, b) = (matrix_error(near, unit), matrix_error(plain, unit));
            assert!(a <= b + 1e-18, "{near:?} {a} vs {plain:?} {b}");
            better += usize::from(a < b);
        }
        assert!(
            better > 500,
            "nearest beat rounding on only {better} of 2000"
        );
    }
}
