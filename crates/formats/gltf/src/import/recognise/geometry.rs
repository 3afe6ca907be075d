//! A slot of the original model against the batches another tool wrote back:
//! the same triangles corner for corner (Blender keeps the triangle order and
//! each triangle's first corner, but splits and renumbers vertices), or the
//! same triangles with some vertices moved (patched in place), or changed.

use super::fan::OwnNormals;
use super::lnor::Fans;
use crate::export::shown_normal;
use crate::scene::{SceneBatch, SceneSlot};
use msh::derive;
use msh::raw::{PackedNormal, PackedUv};
use msh::Model;
use std::collections::BTreeMap;
use zerocopy::little_endian::F32;

/// What came back for one vertex of the original: position, normal, UV (as
/// the scene holds them, in the game's frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Corner {
    pub position: [f32; 3],
    pub normal: Option<[f32; 3]>,
    pub uv: Option<[f32; 2]>,
}

/// How one slot compares.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum SlotState {
    /// Every triangle is the original's at the game's precision.
    Same,
    /// The same triangles with the same materials; these original vertices
    /// came back elsewhere (or with another normal or UV).
    Moved(BTreeMap<u32, Corner>),
    /// Triangles, batches or materials differ: the geometry is rebuilt.
    Changed,
}

/// A drawable batch of the original: material and triangles (absolute vertex
/// indices), as the export wrote its primitive (a trailing partial triangle left out).
pub(super) struct OriginalBatch {
    pub material: u16,
    pub triangles: Vec<[u32; 3]>,
}

/// The drawable batches of slot `slot` of `m`, in order.
pub(super) fn original_batches(m: &Model, slot: usize) -> Vec<OriginalBatch> {
    let Some(s) = m.slots.get(slot) else {
        return Vec::new();
    };
    let start = s.batch_start.get() as usize;
    let end = start + s.batch_count.get() as usize;
    m.batches
        .get(start..end)
        .unwrap_or(&[])
        .iter()
        .filter_map(|b| {
            let is = b.index_start.get() as usize;
            let idx = m.indices.get(is..is + b.index_count.get() as usize)?;
            let base = b.base_vertex.get();
            let triangles: Vec<[u32; 3]> = idx
                .chunks_exact(3)
                .map(|t| [0, 1, 2].map(|k| base + u32::from(t[k].get())))
                .collect();
            (!triangles.is_empty()).then_some(OriginalBatch {
                material: b.material_index.get(),
                triangles,
            })
        })
        .collect()
}

/// Whether two positions are one at the precision that survives another
/// tool: single-precision noise of recomposed transforms, far below an edit.
/// The noise of a transformed point scales with its largest coordinate
/// (Blender's axis matrices hold 6e-17 for 0: a small coordinate beside one
/// of 1e28 comes back off by 1e12), so the tolerance is relative to it.
fn near3(a: [f32; 3], b: [f32; 3], tolerance: f32) -> bool {
    let scale = (0..3)
        .map(|k| a[k].abs().max(b[k].abs()))
        .fold(1.0f32, f32::max);
    (0..3).all(|k| (a[k] - b[k]).abs() <= tolerance * scale || a[k].to_bits() == b[k].to_bits())
}

/// Relative tolerance of positions.
const POSITION: f32 = 1e-5;
/// Tolerance of unit normals: one step of a packed normal (1/127). Blender
/// rewrites custom normals by up to 0.0045 per component (0.26 degrees)
/// where faces meet at a vertex (measured on the generated corpus).
const NORMAL: f32 = 1.0 / 127.0;
/// Tolerance of UVs (a packed UV's step is 1/1024).
const UV: f32 = 1e-4;

/// The original's values of vertex `v`, as the export showed them.
fn original_corner(m: &Model, v: u32) -> Option<Corner> {
    let v = v as usize;
    let p = m.positions.get(v)?;
    Some(Corner {
        position: p.map(|c| c.get()),
        normal: m.normals.get(v).map(|n| shown_normal(n).0),
        uv: m.uv0.get(v).map(PackedUv::decode),
    })
}

/// Whether what came back for a vertex is its original value.
pub(super) fn same_corner(original: &Corner, back: &Corner) -> bool {
    near3(original.position, back.position, POSITION)
        && match (original.normal, back.normal) {
            (Some(a), Some(b)) => near3(a, b, NORMAL),
            _ => true,
        }
        && match (original.uv, back.uv) {
            (Some(a), Some(b)) => (0..2).all(|k| (a[k] - b[k]).abs() <= UV),
            _ => true,
        }
}

pub(super) fn corner_of(batch: &SceneBatch, i: u32) -> Option<Corner> {
    let i = i as usize;
    Some(Corner {
        position: *batch.positions.get(i)?,
        // A normal that is not finite is one the file does not know (Blender
        // writes NaN where its face normals overflow): not compared.
        normal: match &batch.normals {
            Some(n) => Some(*n.get(i)?).filter(|n| n.iter().all(|c| c.is_finite())),
            None => None,
        },
        uv: match &batch.uv0 {
            Some(uv) => Some(*uv.get(i)?),
            None => None,
        },
    })
}

/// The triangles Blender keeps of a batch: not those that name one vertex
/// twice, nor a second face over the same three vertices (a Blender mesh
/// holds neither; faces of zero area between distinct vertices stay).
pub(super) fn blender_faces(triangles: &[[u32; 3]]) -> Vec<[u32; 3]> {
    let mut seen = std::collections::HashSet::new();
    triangles
        .iter()
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .filter(|t| {
            let mut set = **t;
            set.sort_unstable();
            seen.insert(set)
        })
        .copied()
        .collect()
}

/// Whether triangle `t` of the original has zero area as stored: two
/// corners at one point, or three on a line (within f32 precision: the
/// cross product of its edges is below 1e-6 of their lengths' product).
pub(super) fn zero_area(m: &Model, t: &[u32; 3]) -> bool {
    let p = |k: usize| {
        m.positions
            .get(t[k] as usize)
            .map(|p| p.map(|c| f64::from(c.get())))
    };
    let (Some(a), Some(b), Some(c)) = (p(0), p(1), p(2)) else {
        return false;
    };
    let u: [f64; 3] = std::array::from_fn(|i| b[i] - a[i]);
    let v: [f64; 3] = std::array::from_fn(|i| c[i] - a[i]);
    let cross = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let len = |w: [f64; 3]| (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    len(cross) <= 1e-6 * len(u) * len(v)
}

/// Whether the moved corner of vertex `v` has another position than the
/// original's (rather than only another normal or UV).
pub(super) fn position_moved(m: &Model, v: u32, now: &Corner) -> bool {
    original_corner(m, v).is_none_or(|before| !near3(before.position, now.position, POSITION))
}

/// The corners of original triangle `ta` and back triangle `tb` of batch `b`
/// as the comparison takes them: the original's values and what came back,
/// without what the original has no table for (normals, UVs: the other tool
/// made them up) nor the normals of a zero-area face (Blender cannot keep
/// them: docs/BLENDER.md, "What Blender changes"). `None` when a vertex is
/// missing.
fn corner_pairs(
    m: &Model,
    ta: &[u32; 3],
    b: &SceneBatch,
    tb: &[u32; 3],
) -> Option<[(Corner, Corner); 3]> {
    let flat = zero_area(m, ta);
    let mut out = [(ZERO, ZERO); 3];
    for k in 0..3 {
        let before = original_corner(m, ta[k])?;
        let mut now = corner_of(b, tb[k])?;
        now.normal = now.normal.filter(|_| before.normal.is_some() && !flat);
        now.uv = now.uv.filter(|_| before.uv.is_some());
        out[k] = (before, now);
    }
    Some(out)
}

const ZERO: Corner = Corner {
    position: [0.0; 3],
    normal: None,
    uv: None,
};

/// The original triangles of a batch paired with the triangles Blender gave
/// back for it, found by their values: Blender drops a triangle that names a
/// vertex twice and keeps one face of several over the same three vertices
/// (which one is not fixed: its validation sorts faces unstably), keeping
/// the order of the faces it keeps and each face's first corner. Each back
/// triangle is paired with the next original one (in order, not dropped, its
/// vertex set not paired yet) whose three corners have the original's values
/// corner for corner (without the normals unless `normals`: Blender may
/// change a normal, the comparison then finds it); every vertex set must be
/// paired once. `None` when no such pairing exists (an edit, or a soup this
/// walk cannot place): the caller pairs by position then.
pub(super) fn paired_by_values(
    m: &Model,
    original: &[[u32; 3]],
    back: &SceneBatch,
    normals: bool,
) -> Option<Vec<([u32; 3], [u32; 3])>> {
    let mut sets: std::collections::HashMap<[u32; 3], usize> = std::collections::HashMap::new();
    let set_of: Vec<Option<usize>> = original
        .iter()
        .map(|t| {
            (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]).then(|| {
                let mut key = *t;
                key.sort_unstable();
                let next = sets.len();
                *sets.entry(key).or_insert(next)
            })
        })
        .collect();
    if sets.len() != back.triangles.len() {
        return None;
    }
    let mut used = vec![false; sets.len()];
    let mut pairs = Vec::with_capacity(back.triangles.len());
    let mut next = 0;
    for tb in &back.triangles {
        let found = (next..original.len()).find(|&p| {
            set_of[p].is_some_and(|s| !used[s])
                && corner_pairs(m, &original[p], back, tb).is_some_and(|c| {
                    c.iter().all(|(a, b)| {
                        let b = Corner {
                            normal: b.normal.filter(|_| normals),
                            ..*b
                        };
                        same_corner(a, &b)
                    })
                })
        })?;
        used[set_of[found]?] = true;
        pairs.push((original[found], *tb));
        next = found + 1;
    }
    // Every set paired once (the counts agree, each pairing used a new set).
    Some(pairs)
}

/// The original triangles of a batch paired with the back triangles by
/// position: all of them when the counts agree, else those [`blender_faces`]
/// keeps (`None` when the counts still differ).
fn paired_in_order(original: &[[u32; 3]], back: &SceneBatch) -> Option<Vec<([u32; 3], [u32; 3])>> {
    let kept;
    let triangles = if original.len() == back.triangles.len() {
        original
    } else {
        kept = blender_faces(original);
        if kept.len() != back.triangles.len() {
            return None;
        }
        &kept
    };
    Some(
        triangles
            .iter()
            .copied()
            .zip(back.triangles.iter().copied())
            .collect(),
    )
}

/// Compares a slot of the original (its drawable batches: [`original_batches`])
/// with what came back for it.
pub(super) fn compare(m: &Model, original: &[OriginalBatch], back: &SceneSlot) -> SlotState {
    let back: Vec<&SceneBatch> = back
        .batches
        .iter()
        .filter(|b| !b.triangles.is_empty())
        .collect();
    // A batch of triangles that all name a vertex twice has no face in
    // Blender: its primitive does not come back.
    let kept: Vec<&OriginalBatch>;
    let original: Vec<&OriginalBatch> = original.iter().collect();
    let original = if original.len() == back.len() {
        original
    } else {
        kept = original
            .into_iter()
            .filter(|a| !blender_faces(&a.triangles).is_empty())
            .collect();
        if kept.len() != back.len() {
            return SlotState::Changed;
        }
        kept
    };
    if original
        .iter()
        .zip(&back)
        .any(|(a, b)| a.material != b.material)
    {
        return SlotState::Changed;
    }
    // The same triangles by all their values (unedited); else by positions
    // and UVs (normals changed: what that pairing finds stands, a pairing
    // by position could only move vertices onto others); else paired by
    // position, and what differs is an edit.
    for normals in [true, false] {
        let by_values: Option<Vec<_>> = original
            .iter()
            .zip(&back)
            .map(|(a, b)| paired_by_values(m, &a.triangles, b, normals))
            .collect();
        match by_values.map(|pairs| compare_pairs(m, &back, &pairs)) {
            Some(SlotState::Same) => return SlotState::Same,
            Some(state) if !normals => return state,
            _ => {}
        }
    }
    let in_order: Option<Vec<_>> = original
        .iter()
        .zip(&back)
        .map(|(a, b)| paired_in_order(&a.triangles, b))
        .collect();
    match in_order {
        Some(pairs) => compare_pairs(m, &back, &pairs),
        None => SlotState::Changed,
    }
}

/// Blender's own normals at the faces it kept of batch `b` (fan.rs), made
/// from the original's positions and from those Blender wrote back: under a
/// far node Blender's rounding moves a vertex within the tolerance, yet a
/// face's normal made from its positions may overflow (or not) where the
/// original's does not (measured with bpy 4.2 on seed 4, g0014,
/// `Objects.RLB:W14_0.MSH`: both frames give normals Blender wrote there).
fn own_normals(m: &Model, b: &SceneBatch, pairs: &[([u32; 3], [u32; 3])]) -> [OwnNormals; 2] {
    let faces: Vec<[u32; 3]> = pairs.iter().map(|(ta, _)| *ta).collect();
    let mut back: BTreeMap<u32, [f32; 3]> = BTreeMap::new();
    for (ta, tb) in pairs {
        for k in 0..3 {
            if let Some(p) = b.positions.get(tb[k] as usize) {
                back.entry(ta[k]).or_insert(*p);
            }
        }
    }
    [
        OwnNormals::of(m, &faces),
        OwnNormals::at(|v| back.get(&v).copied(), &faces),
    ]
}

/// Compares paired triangles corner for corner (per back batch, its pairs).
fn compare_pairs(
    m: &Model,
    back: &[&SceneBatch],
    pairs: &[Vec<([u32; 3], [u32; 3])>],
) -> SlotState {
    let mut moved: BTreeMap<u32, Corner> = BTreeMap::new();
    let mut seen: BTreeMap<u32, Corner> = BTreeMap::new();
    for (b, pairs) in back.iter().zip(pairs) {
        let mut own: Option<[OwnNormals; 2]> = None;
        let mut fans: Option<Fans> = None;
        for (ta, tb) in pairs {
            let Some(corners) = corner_pairs(m, ta, b, tb) else {
                return SlotState::Changed;
            };
            for (k, (before, mut now)) in corners.into_iter().enumerate() {
                // Where Blender cannot keep a custom normal it writes its own
                // (fan.rs), or turns it onto an edge's plane (lnor.rs).
                now.normal = now.normal.filter(|n| {
                    before.normal.is_none_or(|a| {
                        near3(a, *n, NORMAL)
                            || !(own
                                .get_or_insert_with(|| own_normals(m, b, pairs))
                                .iter()
                                .any(|own| own.is_blenders(ta[k], *n, a, f64::from(NORMAL)))
                                || fans.get_or_insert_with(|| Fans::of(b, pairs)).is_snapped(
                                    m,
                                    ta[k],
                                    a,
                                    *n,
                                    f64::from(NORMAL),
                                ))
                    })
                });
                // One original vertex must come back as one value at all its
                // corners; a corner with a normal speaks for one without.
                match seen.get(&ta[k]) {
                    Some(first) if !same_corner(first, &now) => return SlotState::Changed,
                    Some(first) if first.normal.is_some() || now.normal.is_none() => {}
                    _ => {
                        seen.insert(ta[k], now);
                        if same_corner(&before, &now) {
                            moved.remove(&ta[k]);
                        } else {
                            moved.insert(ta[k], now);
                        }
                    }
                }
            }
        }
    }
    if moved.is_empty() {
        SlotState::Same
    } else {
        SlotState::Moved(moved)
    }
}

/// The vertices slot `slot` of `m` draws.
pub(super) fn vertices(m: &Model, slot: usize) -> impl Iterator<Item = u32> + '_ {
    original_batches(m, slot)
        .into_iter()
        .flat_map(|b| b.triangles.into_iter().flatten())
}

/// Writes the moved vertices into `m`: what stayed at the original's precision
/// keeps its stored bits (the fourth byte of a packed normal always).
pub(super) fn patch_vertices(m: &mut Model, moved: &BTreeMap<u32, Corner>) {
    for (&v, now) in moved {
        let Some(before) = original_corner(m, v) else {
            continue;
        };
        let v = v as usize;
        if !near3(before.position, now.position, POSITION) {
            m.positions[v] = now.position.map(F32::new);
        }
        if let (Some(a), Some(b), Some(stored)) = (before.normal, now.normal, m.normals.get_mut(v))
        {
            if !near3(a, b, NORMAL) {
                *stored = PackedNormal::encode(b, stored.0[3]);
            }
        }
        if let (Some(a), Some(b), Some(stored)) = (before.uv, now.uv, m.uv0.get_mut(v)) {
            if (0..2).any(|k| (a[k] - b[k]).abs() > UV) {
                *stored = PackedUv::encode(b);
            }
        }
    }
}

/// Derives slot `slot`'s triangle records (Res7: adjacency and face normals,
/// the unknown fields kept) and its bounds again from the patched positions.
pub(super) fn rederive_slot(m: &mut Model, slot: usize) {
    let triangles: Vec<[u32; 3]> = original_batches(m, slot)
        .into_iter()
        .flat_map(|b| b.triangles)
        .collect();
    let s = m.slots[slot];
    let (start, count) = (s.tri_start.get() as usize, s.tri_count.get() as usize);
    if count == triangles.len() && start + count <= m.tri_descs.len() {
        let fresh = derive::tri_descs(&m.positions, &triangles, start);
        for (stored, new) in m.tri_descs[start..start + count].iter_mut().zip(fresh) {
            stored.links = new.links;
            stored.normal = new.normal;
        }
    }
    let points = triangles
        .iter()
        .flatten()
        .filter_map(|&v| m.positions.get(v as usize))
        .map(|p| p.map(|c| c.get()));
    derive::set_slot_bounds(&mut m.slots[slot], &derive::bounds(points));
}

#[cfg(test)]
mod tests {
    use super::*;
    use msh::raw::{Batch20, Slot68};
    use zerocopy::little_endian::{U16, U32};
    use zerocopy::FromZeros;

    /// Vertices 0 and 3 at one point, every normal +Z; triangles `[0, 1, 2]`
    /// and the zero-area `[0, 3, 1]`, one batch, one slot.
    fn model() -> Model {
        let mut m = Model::default();
        let points = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0],
        ];
        m.positions = points.iter().map(|p: &[f32; 3]| p.map(F32::new)).collect();
        m.normals = vec![PackedNormal::encode([0.0, 0.0, 1.0], 0); 4];
        m.uv0 = vec![PackedUv::encode([0.0, 0.0]); 4];
        m.indices = [0u16, 1, 2, 0, 3, 1].map(U16::new).to_vec();
        let mut b = Batch20::new_zeroed();
        b.index_count = U16::new(6);
        b.index_start = U32::new(0);
        m.batches.push(b);
        let mut s = Slot68::new_zeroed();
        s.batch_count = U16::new(1);
        m.slots.push(s);
        m
    }

    /// What Blender gives back: every corner its own vertex, the zero-area
    /// face's corners with Blender's normal (+X here), `top` at vertex 2.
    fn back(top: [f32; 3]) -> SceneSlot {
        let p = |i: usize| model().positions[i].map(|c| c.get());
        let z = [0.0, 0.0, 1.0];
        let x = [1.0, 0.0, 0.0];
        SceneSlot {
            batches: vec![SceneBatch {
                positions: vec![p(0), p(1), p(2), p(0), p(3), p(1)],
                normals: Some(vec![z, z, top, x, x, x]),
                uv0: Some(vec![[0.0, 0.0]; 6]),
                triangles: vec![[0, 1, 2], [3, 4, 5]],
                ..SceneBatch::default()
            }],
            ..SceneSlot::default()
        }
    }

    /// A triangle soup (issue 40, class `rebuilt`): five vertices, each its
    /// own point and UV, normals +Z; `[0, 1, 2]`, `[1, 3, 2]`, `[2, 0, 1]`
    /// (the first's vertices again), `[3, 3, 4]` (a vertex twice), `[0, 1, 4]`
    /// and `[4, 0, 1]` (the fifth's vertices again).
    const SOUP_POINTS: [[f32; 3]; 5] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.5, 0.5, 1.0],
    ];
    const SOUP_UVS: [[f32; 2]; 5] = [
        [0.0, 0.0],
        [0.25, 0.0],
        [0.0, 0.25],
        [0.5, 0.5],
        [0.75, 0.5],
    ];
    const SOUP: [[u32; 3]; 6] = [
        [0, 1, 2],
        [1, 3, 2],
        [2, 0, 1],
        [3, 3, 4],
        [0, 1, 4],
        [4, 0, 1],
    ];

    fn soup() -> Model {
        let mut m = Model {
            positions: SOUP_POINTS.iter().map(|p| p.map(F32::new)).collect(),
            normals: vec![PackedNormal::encode([0.0, 0.0, 1.0], 0); 5],
            uv0: SOUP_UVS.iter().map(|&uv| PackedUv::encode(uv)).collect(),
            indices: SOUP.iter().flatten().map(|&i| U16::new(i as u16)).collect(),
            ..Model::default()
        };
        let mut b = Batch20::new_zeroed();
        b.index_count = U16::new(18);
        m.batches.push(b);
        let mut s = Slot68::new_zeroed();
        s.batch_count = U16::new(1);
        m.slots.push(s);
        m
    }

    /// What Blender gives back for the soup triangles `faces` (vertex
    /// indices of the original), every corner its own vertex with the
    /// original's values, vertex `v`'s normal `normal_of(v)`.
    fn soup_back(faces: &[[u32; 3]], normal_of: impl Fn(u32) -> [f32; 3]) -> SceneSlot {
        let corners: Vec<u32> = faces.iter().flatten().copied().collect();
        SceneSlot {
            batches: vec![SceneBatch {
                positions: corners.iter().map(|&v| SOUP_POINTS[v as usize]).collect(),
                normals: Some(corners.iter().map(|&v| normal_of(v)).collect()),
                uv0: Some(corners.iter().map(|&v| SOUP_UVS[v as usize]).collect()),
                triangles: (0..faces.len() as u32)
                    .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
                    .collect(),
                ..SceneBatch::default()
            }],
            ..SceneSlot::default()
        }
    }

    #[test]
    fn an_unedited_soup_is_the_same_whichever_copy_blender_keeps() {
        let m = soup();
        let original = original_batches(&m, 0);
        let z = |_| [0.0, 0.0, 1.0];
        // Blender drops [3, 3, 4] and keeps one face of each vertex set, in
        // order: the later copies (as measured), the earlier ones, or mixed.
        for kept in [
            vec![[1, 3, 2], [2, 0, 1], [4, 0, 1]],
            vec![[0, 1, 2], [1, 3, 2], [0, 1, 4]],
            vec![[0, 1, 2], [1, 3, 2], [4, 0, 1]],
            vec![[1, 3, 2], [2, 0, 1], [0, 1, 4]],
        ] {
            assert_eq!(
                compare(&m, &original, &soup_back(&kept, z)),
                SlotState::Same,
                "{kept:?}"
            );
        }
    }

    #[test]
    fn an_edited_soup_is_still_an_edit() {
        let m = soup();
        let original = original_batches(&m, 0);
        let z = |_| [0.0, 0.0, 1.0];
        let kept = [[1, 3, 2], [2, 0, 1], [4, 0, 1]];
        // A face added, a face removed, a face over other vertices, two faces
        // swapped, a face starting at another corner.
        for faces in [
            vec![kept[0], kept[1], kept[2], [1, 2, 4]],
            vec![kept[0], kept[1]],
            vec![kept[0], [0, 2, 4], kept[2]],
            vec![kept[1], kept[0], kept[2]],
            vec![[3, 2, 1], kept[1], kept[2]],
        ] {
            assert_eq!(
                compare(&m, &original, &soup_back(&faces, z)),
                SlotState::Changed,
                "{faces:?}"
            );
        }
        // A normal changed: that vertex alone, its normal alone.
        let tilted = [0.0, 0.6, 0.8];
        let back = soup_back(&kept, |v| if v == 3 { tilted } else { [0.0, 0.0, 1.0] });
        let SlotState::Moved(moved) = compare(&m, &original, &back) else {
            panic!("a changed normal is a moved vertex");
        };
        assert_eq!(moved.keys().copied().collect::<Vec<_>>(), vec![3]);
        assert_eq!(moved[&3].normal, Some(tilted));
        assert!(!position_moved(&m, 3, &moved[&3]));
    }

    #[test]
    fn a_small_coordinate_beside_a_large_one_is_compared_to_the_large_one() {
        let far = [1e28, 1e-3, 0.0];
        // Blender's noise: 1e12 on the small coordinate (1e-16 of the point).
        assert!(near3(far, [1e28, 1e12, 0.0], POSITION));
        // An edit: 1e-4 of the point.
        assert!(!near3(far, [1e28, 1e24, 0.0], POSITION));
        assert!(near3([1.0, 2.0, 3.0], [1.0, 2.0, 3.00001], POSITION));
        assert!(!near3([1.0, 2.0, 3.0], [1.0, 2.001, 3.0], POSITION));
    }

    #[test]
    fn normals_at_zero_area_corners_are_not_compared() {
        let m = model();
        assert!(zero_area(&m, &[0, 3, 1]) && !zero_area(&m, &[0, 1, 2]));
        let original = original_batches(&m, 0);
        assert_eq!(
            compare(&m, &original, &back([0.0, 0.0, 1.0])),
            SlotState::Same
        );
        // A normal changed at a face with area is still an edit, of normals only.
        let SlotState::Moved(moved) = compare(&m, &original, &back([0.0, 1.0, 0.0])) else {
            panic!("an edited normal is a moved vertex");
        };
        assert_eq!(moved.keys().copied().collect::<Vec<_>>(), vec![2]);
        assert!(!position_moved(&m, 2, &moved[&2]));
    }
}
