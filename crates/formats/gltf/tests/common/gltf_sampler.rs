//! A glTF animation evaluator written from the specification, independent of
//! the importer: reads the file with the `gltf` crate, samples `STEP`,
//! `LINEAR` (slerp on the short arc, as viewers do) and `CUBICSPLINE`
//! channels, and composes the node world matrices (translation, rotation,
//! scale) down the hierarchy.

use base64::Engine as _;
use gltf::animation::util::ReadOutputs;
use gltf::animation::Interpolation;

/// A 3-vector.
pub type V3 = [f64; 3];
/// A quaternion `[x, y, z, w]` (or a 3-vector padded with 0).
pub type Quat = [f64; 4];
/// An affine map, rows of a 3x4 matrix.
pub type M34 = [[f64; 4]; 3];

/// One animation channel as the file holds it.
pub struct Channel {
    /// Key times, seconds (sorted, the first of equal times kept).
    pub times: Vec<f64>,
    /// Values (three per key for `CUBICSPLINE`: in-tangent, value, out-tangent).
    pub values: Vec<Quat>,
    /// The sampler's interpolation.
    pub interpolation: Interpolation,
}

impl Channel {
    /// The value at time `t`, as the glTF specification defines each
    /// interpolation; rotations normalised.
    pub fn sample(&self, t: f64, rotation: bool) -> Quat {
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let value = |k: usize| self.values[if cubic { 3 * k + 1 } else { k }];
        let n = self.times.len();
        let v = if t <= self.times[0] {
            value(0)
        } else if t >= self.times[n - 1] {
            value(n - 1)
        } else {
            let k = self.times.partition_point(|&x| x <= t) - 1;
            let (t0, t1) = (self.times[k], self.times[k + 1]);
            let a = (t - t0) / (t1 - t0);
            let (p, q) = (value(k), value(k + 1));
            match self.interpolation {
                Interpolation::Step => p,
                Interpolation::Linear if rotation => slerp_short(p, q, a),
                Interpolation::Linear => std::array::from_fn(|c| p[c] + (q[c] - p[c]) * a),
                Interpolation::CubicSpline => {
                    let dt = t1 - t0;
                    let b = self.values[3 * k + 2];
                    let i = self.values[3 * (k + 1)];
                    let (a2, a3) = (a * a, a * a * a);
                    std::array::from_fn(|c| {
                        (2.0 * a3 - 3.0 * a2 + 1.0) * p[c]
                            + (a3 - 2.0 * a2 + a) * dt * b[c]
                            + (-2.0 * a3 + 3.0 * a2) * q[c]
                            + (a3 - a2) * dt * i[c]
                    })
                }
            }
        };
        if rotation {
            normalize4(v)
        } else {
            v
        }
    }
}

/// Slerp of unit quaternions on the short arc (the second negated when the
/// two point apart), as glTF viewers interpolate rotations.
pub fn slerp_short(p: Quat, q: Quat, a: f64) -> Quat {
    let mut d: f64 = (0..4).map(|c| p[c] * q[c]).sum();
    let q = if d < 0.0 {
        d = -d;
        q.map(|c| -c)
    } else {
        q
    };
    if d > 1.0 - 1e-12 {
        return std::array::from_fn(|c| p[c] + (q[c] - p[c]) * a);
    }
    let th = d.min(1.0).acos();
    let (w0, w1) = (((1.0 - a) * th).sin() / th.sin(), (a * th).sin() / th.sin());
    std::array::from_fn(|c| w0 * p[c] + w1 * q[c])
}

/// `q` scaled to unit length.
pub fn normalize4(q: Quat) -> Quat {
    let l = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| c / l)
}

/// The rotation matrix (rows) of a unit quaternion.
pub fn quat_matrix(q: Quat) -> [V3; 3] {
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

/// The affine map `a` after `b`.
pub fn compose(a: &M34, b: &M34) -> M34 {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            (0..3).map(|k| a[i][k] * b[k][j]).sum::<f64>() + if j == 3 { a[i][3] } else { 0.0 }
        })
    })
}

/// The animations and hierarchy of one glTF file.
pub struct Evaluator {
    /// Per animation, its channels: (node, 0 translation / 1 rotation / 2 scale, channel).
    pub animations: Vec<Vec<(usize, u8, Channel)>>,
    /// Per animation, its name.
    pub names: Vec<Option<String>>,
    /// Per node: name, parent, rest translation, rotation, scale.
    pub nodes: Vec<NodeRest>,
}

/// A node's name, parent and rest TRS.
pub struct NodeRest {
    /// Its name.
    pub name: Option<String>,
    /// Its parent node.
    pub parent: Option<usize>,
    /// Rest translation.
    pub translation: V3,
    /// Rest rotation.
    pub rotation: Quat,
    /// Rest scale.
    pub scale: V3,
}

/// The buffers of a GLB or a `.gltf` with `data:` URIs.
fn buffers(g: &gltf::Gltf) -> Result<Vec<Vec<u8>>, String> {
    g.document
        .buffers()
        .map(|b| match b.source() {
            gltf::buffer::Source::Bin => g.blob.clone().ok_or("no GLB binary chunk".to_string()),
            gltf::buffer::Source::Uri(uri) => {
                let data = uri
                    .strip_prefix("data:")
                    .and_then(|r| r.split_once(";base64,"))
                    .ok_or(format!("buffer URI {uri:?} is not a data: URI"))?
                    .1;
                base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|e| e.to_string())
            }
        })
        .collect()
}

impl Evaluator {
    /// Reads a glTF or GLB (buffers in the file).
    pub fn new(bytes: &[u8]) -> Result<Evaluator, String> {
        let g = gltf::Gltf::from_slice(bytes).map_err(|e| e.to_string())?;
        let data = buffers(&g)?;
        let doc = &g.document;
        let mut animations = Vec::new();
        let mut names = Vec::new();
        for anim in doc.animations() {
            let mut channels = Vec::new();
            for ch in anim.channels() {
                let reader = ch.reader(|b| data.get(b.index()).map(Vec::as_slice));
                let times: Vec<f64> = reader
                    .read_inputs()
                    .ok_or("no key times")?
                    .map(f64::from)
                    .collect();
                let (kind, values): (u8, Vec<Quat>) =
                    match reader.read_outputs().ok_or("no key values")? {
                        ReadOutputs::Translations(v) => (
                            0,
                            v.map(|v| [v[0], v[1], v[2], 0.0].map(f64::from)).collect(),
                        ),
                        ReadOutputs::Rotations(r) => {
                            (1, r.into_f32().map(|q| q.map(f64::from)).collect())
                        }
                        ReadOutputs::Scales(v) => (
                            2,
                            v.map(|v| [v[0], v[1], v[2], 0.0].map(f64::from)).collect(),
                        ),
                        ReadOutputs::MorphTargetWeights(_) => continue,
                    };
                let interpolation = ch.sampler().interpolation();
                let per_key = if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
                // Keys in time order, the first of equal times kept (what a
                // player does with a file that breaks the spec's order rule).
                let mut order: Vec<usize> = (0..times.len()).collect();
                order.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
                order.dedup_by(|b, a| times[*a] == times[*b]);
                let channel = Channel {
                    times: order.iter().map(|&k| times[k]).collect(),
                    values: order
                        .iter()
                        .flat_map(|&k| values[k * per_key..(k + 1) * per_key].iter().copied())
                        .collect(),
                    interpolation,
                };
                channels.push((ch.target().node().index(), kind, channel));
            }
            animations.push(channels);
            names.push(anim.name().map(str::to_string));
        }
        let mut parent = vec![None; doc.nodes().len()];
        for n in doc.nodes() {
            for c in n.children() {
                parent[c.index()] = Some(n.index());
            }
        }
        let nodes = doc
            .nodes()
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                NodeRest {
                    name: n.name().map(str::to_string),
                    parent: parent[n.index()],
                    translation: t.map(f64::from),
                    rotation: normalize4(r.map(f64::from)),
                    scale: s.map(f64::from),
                }
            })
            .collect();
        Ok(Evaluator {
            animations,
            names,
            nodes,
        })
    }

    /// The last key time of the animations `playing`.
    pub fn duration(&self, playing: &[usize]) -> f64 {
        playing
            .iter()
            .flat_map(|&a| &self.animations[a])
            .filter_map(|(_, _, c)| c.times.last().copied())
            .fold(0.0, f64::max)
    }

    /// Whether the animations `playing` animate disjoint sets of nodes.
    pub fn disjoint(&self, playing: &[usize]) -> bool {
        let mut seen = std::collections::HashSet::new();
        playing.iter().all(|&a| {
            let mine: std::collections::HashSet<usize> =
                self.animations[a].iter().map(|c| c.0).collect();
            mine.iter().all(|n| seen.insert(*n))
        })
    }

    /// The nodes the animations `playing` move (translation or rotation or scale).
    pub fn animated(&self, playing: &[usize]) -> std::collections::BTreeSet<usize> {
        playing
            .iter()
            .flat_map(|&a| self.animations[a].iter().map(|c| c.0))
            .collect()
    }

    /// Every node's world matrix at time `t` with the animations `playing`
    /// (disjoint; a node no animation moves holds its rest TRS).
    pub fn world(&self, playing: &[usize], t: f64) -> Vec<M34> {
        let n = self.nodes.len();
        let mut local: Vec<(V3, Quat, V3)> = self
            .nodes
            .iter()
            .map(|r| (r.translation, r.rotation, r.scale))
            .collect();
        for &a in playing {
            for (node, kind, c) in &self.animations[a] {
                let v = c.sample(t, *kind == 1);
                let l = &mut local[*node];
                match kind {
                    0 => l.0 = [v[0], v[1], v[2]],
                    1 => l.1 = v,
                    _ => l.2 = [v[0], v[1], v[2]],
                }
            }
        }
        let mut world: Vec<Option<M34>> = vec![None; n];
        for i in 0..n {
            // Ancestors first: walk up, then compose down.
            let mut chain = vec![i];
            while let Some(p) = self.nodes[*chain.last().unwrap()].parent {
                if world[p].is_some() || chain.len() > n {
                    break;
                }
                chain.push(p);
            }
            for &j in chain.iter().rev() {
                if world[j].is_some() {
                    continue;
                }
                let (tr, r, s) = local[j];
                let rm = quat_matrix(normalize4(r));
                let m: M34 = std::array::from_fn(|row| {
                    [
                        rm[row][0] * s[0],
                        rm[row][1] * s[1],
                        rm[row][2] * s[2],
                        tr[row],
                    ]
                });
                world[j] = Some(match self.nodes[j].parent.and_then(|p| world[p]) {
                    Some(pw) => compose(&pw, &m),
                    None => m,
                });
            }
        }
        world.into_iter().map(|m| m.unwrap()).collect()
    }
}

/// The rotation of a world matrix whose linear part is a rotation times a
/// positive diagonal scale (columns normalised), `None` when it is not one.
/// (An MSH rotation from i16 components is not exactly unit, and the engine's
/// matrix of a non-unit quaternion is orthogonal only to about 1e-4.)
pub fn rotation_of(m: &M34) -> Option<Quat> {
    let dot = |a: V3, b: V3| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cols: [V3; 3] = std::array::from_fn(|j| {
        let c = [m[0][j], m[1][j], m[2][j]];
        let l = dot(c, c).sqrt();
        c.map(|x| x / l)
    });
    let cross = |a: V3, b: V3| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let orthogonal = (0..3).all(|a| (a + 1..3).all(|b| dot(cols[a], cols[b]).abs() < 1e-3));
    if !orthogonal || dot(cross(cols[0], cols[1]), cols[2]) < 0.0 {
        return None;
    }
    let r: [V3; 3] = std::array::from_fn(|i| [cols[0][i], cols[1][i], cols[2][i]]);
    // Shepperd's method.
    let tr = r[0][0] + r[1][1] + r[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [
            (r[2][1] - r[1][2]) / s,
            (r[0][2] - r[2][0]) / s,
            (r[1][0] - r[0][1]) / s,
            0.25 * s,
        ]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt() * 2.0;
        [
            0.25 * s,
            (r[0][1] + r[1][0]) / s,
            (r[0][2] + r[2][0]) / s,
            (r[2][1] - r[1][2]) / s,
        ]
    } else if r[1][1] > r[2][2] {
        let s = (1.0 + r[1][1] - r[0][0] - r[2][2]).sqrt() * 2.0;
        [
            (r[0][1] + r[1][0]) / s,
            0.25 * s,
            (r[1][2] + r[2][1]) / s,
            (r[0][2] - r[2][0]) / s,
        ]
    } else {
        let s = (1.0 + r[2][2] - r[0][0] - r[1][1]).sqrt() * 2.0;
        [
            (r[0][2] + r[2][0]) / s,
            (r[1][2] + r[2][1]) / s,
            0.25 * s,
            (r[1][0] - r[0][1]) / s,
        ]
    };
    Some(normalize4(q))
}

/// The largest quaternion component difference, up to sign.
pub fn quat_diff(a: Quat, b: Quat) -> f64 {
    let d = (0..4).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max);
    let e = (0..4).map(|k| (a[k] + b[k]).abs()).fold(0.0, f64::max);
    d.min(e)
}

/// The engine's world matrices of an MSH at whole frame `f`, in glTF's frame
/// (Y up, conjugate reading: the import's defaults), per node.
pub fn engine_world(view: &msh::ModelRef<'_>, f: u32) -> Vec<M34> {
    use mshconv_convert::axes::Axes;
    let axes = Axes {
        axis: mshconv_convert::Axis::YUp,
        rotation: mshconv_convert::Rotation::Conjugate,
    };
    msh::pose::world_transforms(view, f as f32, msh::pose::Rotation::Conjugate)
        .expect("the engine samples the imported model")
        .iter()
        .map(|m| {
            // M' = C M C^T with C = axes.vec: column j is C (M (C^T e_j)).
            let cols: [V3; 3] = std::array::from_fn(|j| {
                let e = axes.vec_back(std::array::from_fn::<f64, 3, _>(|k| f64::from(k == j)));
                axes.vec(m.vector(e))
            });
            let t = axes.vec(m.translation());
            std::array::from_fn(|r| [cols[0][r], cols[1][r], cols[2][r], t[r]])
        })
        .collect()
}

/// Largest differences found by [`Motion::compare`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Motion {
    /// World translation, relative above 1.
    pub translation: f64,
    /// World rotation, per quaternion component, up to sign.
    pub rotation: f64,
    /// Node poses compared.
    pub poses: usize,
}

impl Motion {
    /// Compares the engine's pose of every MSH node named like a glTF node
    /// (names unique on both sides) with the glTF's, the animations `playing`,
    /// at every whole frame `f` of the MSH timeline (time `f / fps` in single
    /// precision); each
    /// animated glTF node must be found.
    /// Differences over the tolerances go to `failures`.
    #[allow(clippy::too_many_arguments)]
    pub fn compare(
        what: &str,
        eval: &Evaluator,
        playing: &[usize],
        msh_bytes: &[u8],
        fps: f64,
        (translation_tol, rotation_tol): (f64, f64),
        failures: &mut Vec<String>,
    ) -> Motion {
        let opened = msh::open(msh_bytes, msh::Mode::Strict).expect("a strict-valid import");
        let view = &opened.view;
        let msh_names: Vec<String> = (0..view.nodes.len())
            .map(|i| String::from_utf8_lossy(view.node_name(i).unwrap_or(b"")).into_owned())
            .collect();
        let unique = |name: &str, all: &mut dyn Iterator<Item = Option<&str>>| {
            all.filter(|n| *n == Some(name)).count() == 1
        };
        let mut pairs = Vec::new();
        for (g, node) in eval.nodes.iter().enumerate() {
            let Some(name) = node.name.as_deref() else {
                continue;
            };
            let found = msh_names.iter().position(|n| n == name);
            let ok = unique(name, &mut msh_names.iter().map(|n| Some(n.as_str())))
                && unique(name, &mut eval.nodes.iter().map(|n| n.name.as_deref()));
            match found {
                Some(m) if ok => pairs.push((g, m)),
                _ => {}
            }
        }
        for g in eval.animated(playing) {
            if !pairs.iter().any(|p| p.0 == g) {
                failures.push(format!(
                    "{what}: animated glTF node {g} ({:?}) has no MSH node of its (unique) name",
                    eval.nodes[g].name
                ));
            }
        }
        let mut m = Motion::default();
        for f in 0..=view.frame_count {
            let ours = engine_world(view, f);
            // Single precision, as glTF's key times are: frame 16 at 24 fps
            // is the key at 2/3 s, not a hair before it.
            let theirs = eval.world(playing, f64::from(f as f32 / fps as f32));
            for &(g, i) in &pairs {
                let (a, b) = (&ours[i], &theirs[g]);
                let dt = (0..3)
                    .map(|r| (a[r][3] - b[r][3]).abs() / b[r][3].abs().max(1.0))
                    .fold(0.0, f64::max);
                m.translation = m.translation.max(dt);
                m.poses += 1;
                let dr = match (rotation_of(a), rotation_of(b)) {
                    (Some(qa), Some(qb)) => quat_diff(qa, qb),
                    _ => 0.0,
                };
                m.rotation = m.rotation.max(dr);
                if dt > translation_tol || dr > rotation_tol {
                    failures.push(format!(
                        "{what}: node {:?} at frame {f}: translation off by {dt:e}, rotation by {dr:e}",
                        msh_names[i]
                    ));
                }
            }
        }
        m
    }
}
