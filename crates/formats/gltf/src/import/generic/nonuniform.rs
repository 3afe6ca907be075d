//! Rotations animated under a non-uniform scale (issue 42). MSH nodes are
//! rigid: a node's scale is baked into its geometry at the rest rotation, so
//! a rotation animated under an ancestor scaled non-uniformly is not what the
//! glTF shows (uniform scales and mirrors are exact, see `residual`). The
//! note names those nodes and gives the largest distance between where the
//! import draws a vertex and where the glTF puts it, over the frames the
//! import produces, as `import.skin_blended` does for blended skins.

use super::super::linear::{
    affine_of, apply, apply_affine, compose, det3, diag, inverse_transpose, mul, normalize,
    quat_matrix, similarity_rotation, transpose, Affine, IDENTITY_AFFINE,
};
use super::{Curve, Item};
use crate::axes::Axes;
use crate::scene::SceneNode;
use std::collections::HashMap;

/// At most this many vertex evaluations: past it every k-th frame is taken.
const BUDGET: u64 = 1 << 24;

/// The worst error found so far: the nodes named, and the distance.
#[derive(Debug, Default)]
pub(super) struct Sheared {
    /// The glTF names of the animated nodes under a non-uniform scale.
    pub nodes: Vec<String>,
    /// The largest distance (model units) and the stride of frames measured.
    pub worst: f64,
    pub stride: u32,
}

/// Whether item `i`'s rotation is animated under a residual that is not a
/// uniform scale times an orthogonal map.
fn sheared(items: &[Item<'_>], animated: &dyn Fn(usize) -> bool, i: usize) -> bool {
    animated(i) && similarity_rotation(&items[i].k_parent).is_none()
}

impl Sheared {
    /// Measures one clip: `curves` by (item, 0 translation / 1 rotation),
    /// frames `0..=frames` at `fps`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn measure(
        &mut self,
        items: &[Item<'_>],
        nodes: &[SceneNode],
        curves: &HashMap<(usize, u8), Curve>,
        frames: u32,
        fps: f32,
        axes: &Axes,
    ) {
        let animated = |i: usize| curves.contains_key(&(i, 1));
        let named: Vec<usize> = (0..items.len())
            .filter(|&i| sheared(items, &animated, i))
            .collect();
        if named.is_empty() {
            return;
        }
        for &i in &named {
            let name = match items[i].node.name() {
                Some(n) => format!("{n:?}"),
                None => format!("node {}", items[i].node.index()),
            };
            if !self.nodes.contains(&name) {
                self.nodes.push(name);
            }
        }
        // Every vertex of every node, in the glTF frame of its node before
        // the baked map (k^-1 of what the node holds), where k is invertible.
        let points: Vec<(usize, [f64; 3], [f64; 3])> = nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| det3(&items[*i].k).abs() > 1e-12)
            .flat_map(|(i, n)| {
                let inverse = transpose(&inverse_transpose(&items[i].k));
                n.slots
                    .iter()
                    .flat_map(|s| &s.batches)
                    .flat_map(|b| &b.positions)
                    .map(move |p| {
                        let held = axes.vec(p.map(f64::from));
                        (i, held, apply(&inverse, held))
                    })
            })
            .collect();
        let per_frame = (points.len() + items.len()) as u64;
        let stride = (per_frame * (u64::from(frames) + 1))
            .div_ceil(BUDGET)
            .max(1) as u32;
        self.stride = self.stride.max(stride);
        let mut f = 0;
        while f <= frames {
            let t = f as f32 / fps;
            let (truth, ours) = worlds(items, curves, t);
            for (i, held, own) in &points {
                let a = apply_affine(&ours[*i], *held);
                let b = apply_affine(&truth[*i], *own);
                let d = (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt();
                self.worst = self.worst.max(d);
            }
            f += stride;
        }
    }

    /// The note, when some node was named.
    pub(super) fn report(self, report: &mut crate::report::Report) {
        if self.nodes.is_empty() {
            return;
        }
        let frames = match self.stride {
            1 => "every frame".to_string(),
            k => format!("every {k}th frame"),
        };
        report.note(
            crate::codes::Code::ImportScaleSheared.code(),
            format!(
                "{} under a non-uniformly scaled node, which rigid MSH nodes cannot show exactly: {}; largest position error {:.6} over the animation ({frames})",
                crate::report::counted(self.nodes.len(), "rotation is animated", "rotations are animated"),
                crate::report::few(&self.nodes),
                self.worst
            ),
        );
    }
}

/// Every item's world map at time `t` (glTF frame): as the glTF composes it
/// (translation, rotation, scale), and as the import's rigid nodes do (the
/// parent's residual on the translation, the rotation as the node turns, the
/// node's residual baked into what it holds).
fn worlds(
    items: &[Item<'_>],
    curves: &HashMap<(usize, u8), Curve>,
    t: f32,
) -> (Vec<Affine>, Vec<Affine>) {
    let mut truth: Vec<Affine> = Vec::with_capacity(items.len());
    let mut ours: Vec<Affine> = Vec::with_capacity(items.len());
    for (i, it) in items.iter().enumerate() {
        let (rt, rr, rs) = it.trs();
        let tr = curves.get(&(i, 0)).map_or(rt.map(f64::from), |c| {
            let v = c.sample(t, false);
            [v[0], v[1], v[2]]
        });
        let rot = curves
            .get(&(i, 1))
            .map_or(rr.map(f64::from), |c| c.sample(t, true));
        let own = affine_of(
            &mul(&quat_matrix(normalize(rot)), &diag(rs.map(f64::from))),
            tr,
        );
        let rigid = affine_of(&quat_matrix(it.turned(rot)), apply(&it.k_parent, tr));
        let (pt, po) = match it.parent {
            Some(p) => (truth[p], ours[p]),
            None => (IDENTITY_AFFINE, IDENTITY_AFFINE),
        };
        truth.push(compose(&pt, &own));
        ours.push(compose(&po, &rigid));
    }
    (truth, ours)
}
