//! A glTF viewer playing the exported animation shows the engine's pose at every
//! integer frame: glTF channels are sampled here as a viewer does (LINEAR
//! translation, shortest-path slerp rotation), composed through the hierarchy,
//! and compared with the engine sampler's world poses (`msh::pose`), for every
//! fixture and several option combinations.

mod common;

use gltf::animation::util::ReadOutputs;
use mshconv_convert::axes::Axes;
use mshconv_convert::{Axis, Clip, ClipList, Rotation};
use mshconv_gltf::msh_to_gltf;
use mshconv_gltf::ExportOptions;

type Quat = [f64; 4]; // x, y, z, w

struct Channel {
    times: Vec<f32>,
    values: Vec<[f32; 4]>,
}

impl Channel {
    fn sample(&self, t: f32, rotation: bool) -> [f64; 4] {
        let n = self.times.len();
        let v = |i: usize| self.values[i].map(f64::from);
        if t <= self.times[0] {
            return v(0);
        }
        if t >= self.times[n - 1] {
            return v(n - 1);
        }
        let i = self.times.partition_point(|&x| x <= t) - 1;
        let a = ((t - self.times[i]) / (self.times[i + 1] - self.times[i])) as f64;
        if rotation {
            slerp(v(i), v(i + 1), a)
        } else {
            let (p, q) = (v(i), v(i + 1));
            std::array::from_fn(|k| p[k] + (q[k] - p[k]) * a)
        }
    }
}

fn slerp(p: Quat, mut q: Quat, a: f64) -> Quat {
    let mut d: f64 = (0..4).map(|k| p[k] * q[k]).sum();
    if d < 0.0 {
        d = -d;
        q = q.map(|c| -c);
    }
    // As three.js: true slerp unless the two are (nearly) the same rotation.
    let (w0, w1) = if 1.0 - d < 1e-12 {
        (1.0 - a, a)
    } else {
        let th = d.acos();
        (((1.0 - a) * th).sin() / th.sin(), (a * th).sin() / th.sin())
    };
    std::array::from_fn(|k| w0 * p[k] + w1 * q[k])
}

/// Affine 3x4 (rows) of a glTF node: rotation from the quaternion with the
/// standard formula, not normalised first (a viewer takes the stored values as
/// they are, as the engine does), then the translation.
fn affine(q: Quat, t: [f64; 3]) -> [[f64; 4]; 3] {
    let [x, y, z, w] = q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
            t[0],
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
            t[1],
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
            t[2],
        ],
    ]
}

fn compose(a: &[[f64; 4]; 3], b: &[[f64; 4]; 3]) -> [[f64; 4]; 3] {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            (0..3).map(|k| a[i][k] * b[k][j]).sum::<f64>() + if j == 3 { a[i][3] } else { 0.0 }
        })
    })
}

/// Unit quaternion `[x, y, z, w]` of a 3x3 rotation block (rows), via Shepperd's method.
fn quat_of(m: [[f64; 3]; 3]) -> Quat {
    let tr = m[0][0] + m[1][1] + m[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
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
    let len = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| c / len)
}

/// Compares one model's exported animation with the engine; returns failures.
fn compare(name: &str, msh_bytes: &[u8], options: &ExportOptions) -> (Vec<String>, usize) {
    compare_clip(name, msh_bytes, options, None)
}

/// [`compare`] for the animation of one clip (exported with `options.clips`):
/// its time `k / fps` against the engine at frame `first + k`, for every
/// frame of the clip.
fn compare_clip(
    name: &str,
    msh_bytes: &[u8],
    options: &ExportOptions,
    clip: Option<&Clip>,
) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let (glb, _) = msh_to_gltf(msh_bytes, options).unwrap();
    let gltf = gltf::Gltf::from_slice(&glb).unwrap();
    let blob = gltf.blob.clone();
    let doc = &gltf.document;
    let opened = msh::open(msh_bytes, msh::Mode::Strict).unwrap();
    let view = &opened.view;
    if view.kind != Some(msh::ModelKind::Standard) {
        return (failures, 0);
    }
    let n = view.nodes.len();
    let mut trans: Vec<Option<Channel>> = (0..n).map(|_| None).collect();
    let mut rots: Vec<Option<Channel>> = (0..n).map(|_| None).collect();
    for anim in doc
        .animations()
        .filter(|a| clip.is_none_or(|c| a.name() == Some(c.name.as_str())))
    {
        for ch in anim.channels() {
            let reader = ch.reader(|_| blob.as_deref());
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            let target = ch.target().node().index();
            match reader.read_outputs().unwrap() {
                ReadOutputs::Translations(t) => {
                    trans[target] = Some(Channel {
                        times,
                        values: t.map(|v| [v[0], v[1], v[2], 0.0]).collect(),
                    })
                }
                ReadOutputs::Rotations(r) => {
                    rots[target] = Some(Channel {
                        times,
                        values: r.into_f32().collect(),
                    })
                }
                _ => failures.push(format!("{name}: unexpected channel path")),
            }
        }
    }
    let nodes: Vec<gltf::Node> = doc.nodes().take(n).collect();
    let axes = Axes {
        axis: options.axis,
        rotation: options.rotation,
    };
    let mut compared = 0;
    let (frames, first) = match clip {
        Some(c) => (c.first..=c.last, c.first),
        None => (0..=view.frame_count + 1, 0),
    };
    for f in frames {
        let t = f as f32;
        let shown = (f - first) as f32;
        let engine = msh::pose::world_transforms(view, t, options.rotation).unwrap();
        let local = msh::pose::local_poses(view, t).unwrap();
        let mut world: Vec<[[f64; 4]; 3]> = Vec::with_capacity(n);
        for i in 0..n {
            let (nt, nr, _) = nodes[i].transform().decomposed();
            let tt = trans[i].as_ref().map_or(nt.map(f64::from), |c| {
                let v = c.sample(shown / options.fps, false);
                [v[0], v[1], v[2]]
            });
            let rr = rots[i]
                .as_ref()
                .map_or(nr.map(f64::from), |c| c.sample(shown / options.fps, true));
            let own = affine(rr, tt);
            let w = match view.nodes[i].parent() {
                Some(p) => compose(&world[p as usize], &own),
                None => own,
            };
            world.push(w);
        }
        for i in 0..n {
            // Nodes whose chain holds a degenerate (far from unit) engine quaternion
            // are shown normalised by design; the report says so.
            let mut chain = Some(i);
            let mut degenerate = false;
            while let Some(c) = chain {
                let q = local[c].rotation;
                degenerate |= (q.iter().map(|x| x * x).sum::<f32>().sqrt() - 1.0).abs() > 0.005;
                chain = view.nodes[c].parent().map(|p| p as usize);
            }
            if degenerate {
                continue;
            }
            compared += 1;
            let m = engine[i].0;
            let et = axes.vec(m.map(|r| r[3]));
            let gm = world[i];
            let gt = [gm[0][3], gm[1][3], gm[2][3]];
            let gq = quat_of(std::array::from_fn(|r| [gm[r][0], gm[r][1], gm[r][2]]));
            let scale = et.iter().map(|c| c.abs()).fold(1.0f64, f64::max);
            let dt = (0..3).map(|k| (gt[k] - et[k]).abs()).fold(0.0, f64::max);
            if dt > 1e-5 * scale {
                failures.push(format!(
                    "{name} node {i} frame {f}: translation {gt:?} vs engine {et:?}"
                ));
            }
            // The engine's rotation block in the output frame: M' = C M C^T, whose
            // column j is C (M (C^T e_j)), with C = frame.vec and C^T = frame.vec_back.
            let cols: [[f64; 3]; 3] = std::array::from_fn(|j| {
                let e = axes.vec_back(std::array::from_fn::<f64, 3, _>(|k| {
                    if k == j {
                        1.0
                    } else {
                        0.0
                    }
                }));
                let v: [f64; 3] = std::array::from_fn(|r| (0..3).map(|c| m[r][c] * e[c]).sum());
                axes.vec(v)
            });
            let mat: [[f64; 3]; 3] = std::array::from_fn(|r| std::array::from_fn(|j| cols[j][r]));
            let eq = quat_of(mat);
            let d = (0..4).map(|k| (gq[k] - eq[k]).abs()).fold(0.0, f64::max);
            let d_neg = (0..4).map(|k| (gq[k] + eq[k]).abs()).fold(0.0, f64::max);
            if d.min(d_neg) > 1e-4 {
                failures.push(format!(
                    "{name} node {i} frame {f}: rotation {gq:?} vs engine {eq:?}"
                ));
            }
        }
    }
    (failures, compared)
}

#[test]
fn exported_animation_matches_the_engine_at_every_integer_frame() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for (name, bytes) in common::valid_fixtures() {
        let (f, c) = compare(&name, &bytes, &ExportOptions::default());
        failures.extend(f.into_iter().take(5));
        compared += c;
    }
    assert!(compared > 10_000, "only {compared} node poses compared");
    common::fail_if_any("animation", failures);
}

#[test]
fn option_combinations_keep_the_engine_pose() {
    let fixtures = common::valid_fixtures();
    let animated: Vec<_> = fixtures
        .iter()
        .filter(|(_, b)| msh::open(b, msh::Mode::Strict).is_ok_and(|o| o.view.is_animated()))
        .take(6)
        .collect();
    assert!(animated.len() >= 3);
    let mut failures = Vec::new();
    for axis in [Axis::YUp, Axis::ZUp] {
        for rotation in [Rotation::Conjugate, Rotation::Stored] {
            for fps in [24.0f32, 30.0, 12.5] {
                let options = ExportOptions {
                    axis,
                    rotation,
                    fps,
                    ..ExportOptions::default()
                };
                for (name, bytes) in &animated {
                    let (f, _) = compare(
                        &format!("{name} {axis} {rotation:?} {fps}"),
                        bytes,
                        &options,
                    );
                    failures.extend(f.into_iter().take(3));
                }
            }
        }
    }
    common::fail_if_any("options", failures);
}

/// Clips over each animated fixture's timeline (a first clip from frame 1, a
/// one-frame clip, one to the last frame, overlapping, leaving frame 0 and a
/// gap outside every clip): each clip's animation is the engine's pose at
/// `first + k` for every frame k of the clip.
#[test]
fn each_clip_is_the_engine_pose_over_its_frames() {
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut models = 0;
    for (name, bytes) in common::valid_fixtures() {
        let Ok(opened) = msh::open(&bytes, msh::Mode::Strict) else {
            continue;
        };
        let fc = opened.view.frame_count;
        if !opened.view.is_animated()
            || fc < 8
            || opened.view.kind != Some(msh::ModelKind::Standard)
        {
            continue;
        }
        models += 1;
        let list: ClipList = format!(
            "walk=1..{}:loop,hold=3..3:once,tail={}..{}:pingpong",
            fc / 2,
            fc / 2 + 2,
            fc - 1
        )
        .parse()
        .unwrap();
        for fps in [24.0f32, 30.0] {
            let options = ExportOptions {
                fps,
                clips: Some(list.clone()),
                ..ExportOptions::default()
            };
            for clip in list.clips() {
                let (f, c) = compare_clip(
                    &format!("{name} {} {fps}", clip.name),
                    &bytes,
                    &options,
                    Some(clip),
                );
                failures.extend(f.into_iter().take(3));
                compared += c;
            }
        }
    }
    assert!(models >= 3, "only {models} animated models");
    assert!(compared > 1000, "only {compared} node poses compared");
    common::fail_if_any("clips", failures);
}
