//! Res8/Res19 as one glTF animation: keys as they are where the engine's
//! sampling is glTF's, else baked per frame (and densified where glTF's
//! rotation playback would drift from the engine's); the tables raw when the
//! channels cannot give them back.

use super::nodes::quat_exact;
use super::{Exporter, UNIT_TOLERANCE};
use crate::buffer::Layout;
use crate::clips::ClipList;
use crate::codes::Code;
use crate::error::Result;
use crate::extras as ex;
use gltf_json as json;
use gltf_json::accessor::{ComponentType, Type};
use gltf_json::validation::Checked;
use gltf_json::Index;
use msh::raw::AnimKey24;
use msh::{resource as res, ModelRef};
use zerocopy::IntoBytes;

impl Exporter<'_> {
    /// One animation with translation and rotation channels per animated node.
    pub(super) fn animation(&mut self) -> Result<()> {
        if let Some(clips) = &self.options.clips {
            return self.clip_animations(clips);
        }
        let view = self.view.clone();
        let view = &view;
        let keys = view.anim_keys.unwrap_or(&[]);
        let map = view.anim_map.unwrap_or(&[]);
        let fc = view.frame_count;
        let tracks = msh::canonical_tracks(view.nodes);
        let mut exact = tracks.is_some();
        let animated: Vec<usize> = (0..view.nodes.len())
            .filter(|&i| view.nodes[i].map_start().is_some())
            .collect();
        // Canonical layout: map blocks back to back, frame_count = last time + 1, static nodes one key at 0.
        if let Some(tracks) = &tracks {
            let mut max_end = 0f32;
            for (i, &(start, end)) in tracks.iter().enumerate() {
                let animated_node = view.nodes[i].map_start().is_some();
                // +0.0 exactly: a key at -0.0 (equal to 0.0, not the same
                // bits) comes back only through the raw table.
                if !animated_node && (end != start || keys[start].time().to_bits() != 0) {
                    exact = false;
                }
                if animated_node {
                    max_end = max_end.max(keys[end].time());
                }
            }
            let canonical_frames = if animated.is_empty() {
                1
            } else {
                (max_end as u64).saturating_add(1)
            };
            if self.container.has(res::ANIM_MAP) && fc as u64 != canonical_frames {
                exact = false;
            }
            for (k, &i) in animated.iter().enumerate() {
                if view.nodes[i].anim_map_start.get() as u64 != k as u64 * fc as u64 {
                    exact = false;
                }
            }
            if map.len() as u64 != animated.len() as u64 * fc as u64 {
                exact = false;
            }
            // Keys after the last node's track belong to no node: only the raw
            // table brings them back.
            if tracks.last().map_or(0, |&(_, end)| end + 1) != keys.len() {
                exact = false;
            }
        }
        if animated.is_empty() {
            if !exact {
                self.raw_animation();
            }
            return Ok(());
        }
        let fps = self.options.fps;
        // Every key's time, once (copied per animated node it was quadratic).
        let key_times: Vec<f32> = keys.iter().map(|k| k.time()).collect();
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for &i in &animated {
            let node = &view.nodes[i];
            let direct = tracks
                .as_ref()
                .and_then(|t| direct_track(view, &key_times, i, t[i]));
            let samples = match direct {
                Some((start, end)) => {
                    let track = &keys[start..=end];
                    let times: Vec<[f32; 1]> = track.iter().map(|k| [k.time() / fps]).collect();
                    let translations: Vec<[f32; 3]> =
                        track.iter().map(|k| self.axes.vec(k.position())).collect();
                    let rot = if track.iter().all(|k| quat_exact(k.quat_raw())) {
                        let raw: Vec<[i16; 4]> =
                            track.iter().map(|k| self.axes.quat(k.quat_raw())).collect();
                        Rotations::Short(raw)
                    } else {
                        exact = false;
                        self.report.note(
                            Code::ExportDegenerateQuaternion.code(),
                            format!("node {i}: some rotation keys are not unit length; written normalised"),
                        );
                        Rotations::Float(
                            track
                                .iter()
                                .map(|k| self.axes.quat(unit_xyzw(k.quat_wxyz())))
                                .collect(),
                        )
                    };
                    let samples = Samples {
                        times,
                        translations,
                        rotations: rot,
                        rotation_times: None,
                    };
                    match self.densify(i, node, &keys[start..=end], samples)? {
                        (samples, true) => {
                            exact = false;
                            samples
                        }
                        (samples, false) => samples,
                    }
                }
                None => {
                    exact = false;
                    self.report.note(
                        Code::ExportAnimationBaked.code(),
                        format!(
                            "node {i}: its keys and frame map are not the canonical layout the glTF timeline can show as is; sampled as the engine does at every frame 0..={fc}"
                        ),
                    );
                    self.bake(i, node, 0..=fc)?
                }
            };
            self.push_channels(i, &samples, &mut samplers, &mut channels);
        }
        self.animations.push(json::Animation {
            extensions: None,
            extras: Default::default(),
            channels,
            name: Some("msh".to_string()),
            samplers,
        });
        if !exact {
            self.raw_animation();
        }
        Ok(())
    }

    /// With `--clips`: one animation per clip, named after it, sampled as
    /// the engine does at every frame of its range, its times from 0 at
    /// `--fps`, the clip in its extras; Res8/Res19 travel raw, so every frame
    /// (those outside every clip too) comes back exactly.
    fn clip_animations(&mut self, clips: &ClipList) -> Result<()> {
        let view = self.view.clone();
        clips.check_model(&view)?;
        let animated: Vec<usize> = (0..view.nodes.len())
            .filter(|&i| view.nodes[i].map_start().is_some())
            .collect();
        for clip in clips.clips() {
            let mut samplers = Vec::new();
            let mut channels = Vec::new();
            for &i in &animated {
                let samples = self.bake(i, &view.nodes[i], clip.first..=clip.last)?;
                self.push_channels(i, &samples, &mut samplers, &mut channels);
            }
            self.animations.push(json::Animation {
                extensions: None,
                extras: ex::wrap(&ex::AnimationExtras {
                    clip: ex::ClipExtras::new(clip, self.options.fps),
                }),
                channels,
                name: Some(clip.name.clone()),
                samplers,
            });
        }
        self.raw_animation();
        Ok(())
    }

    /// The accessors of one node's translation and rotation keys, and their
    /// two samplers and channels.
    fn push_channels(
        &mut self,
        i: usize,
        samples: &Samples,
        samplers: &mut Vec<json::animation::Sampler>,
        channels: &mut Vec<json::animation::Channel>,
    ) {
        let Samples {
            times,
            translations,
            rotations,
            rotation_times,
        } = samples;
        let input = self.buf.push_floats(times, Layout::float(Type::Scalar));
        let r_input = match rotation_times {
            Some(t) => self.buf.push_floats(t, Layout::float(Type::Scalar)),
            None => input,
        };
        let t_out = self
            .buf
            .push_float_iter(translations.iter().copied(), Layout::float(Type::Vec3));
        let r_out = match rotations {
            Rotations::Short(raw) => {
                let mut l = Layout::raw(ComponentType::I16, Type::Vec4);
                l.normalized = true;
                self.buf.push_with(raw.len(), l, None, |out| {
                    out.extend(raw.as_flattened().iter().flat_map(|c| c.to_le_bytes()))
                })
            }
            Rotations::Float(q) => self
                .buf
                .push_float_iter(q.iter().copied(), Layout::float(Type::Vec4)),
        };
        for (output, input, path) in [
            (t_out, input, json::animation::Property::Translation),
            (r_out, r_input, json::animation::Property::Rotation),
        ] {
            samplers.push(json::animation::Sampler {
                extensions: None,
                extras: Default::default(),
                input,
                interpolation: Checked::Valid(json::animation::Interpolation::Linear),
                output,
            });
            channels.push(json::animation::Channel {
                sampler: Index::new(samplers.len() as u32 - 1),
                target: json::animation::Target {
                    extensions: None,
                    extras: Default::default(),
                    node: Index::new(i as u32),
                    path: Checked::Valid(path),
                },
                extensions: None,
                extras: Default::default(),
            });
        }
    }

    /// Tools that interpolate a quaternion's components linearly (Blender keys
    /// them as four curves: a normalised lerp, not a slerp) drift from the engine
    /// between keys that are far apart in frames and in angle. Where that drift
    /// would exceed a quarter of an i16 step at some integer frame, the rotation
    /// channel gets a key at every frame of that segment, holding the engine's
    /// value, so Blender's per-frame resampling reproduces the engine. Returns
    /// whether anything was added (the stored keys then travel raw).
    pub(super) fn densify(
        &mut self,
        i: usize,
        node: &msh::raw::Node38,
        track: &[AnimKey24],
        samples: Samples,
    ) -> Result<(Samples, bool)> {
        let needs = |k0: &AnimKey24, k1: &AnimKey24| -> bool {
            let (q0, q1) = (k0.quat_wxyz(), k1.quat_wxyz());
            let (t0, t1) = (k0.time() as u32, k1.time() as u32);
            let sign = if q0.iter().zip(&q1).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                -1.0
            } else {
                1.0
            };
            let slerp = msh::anim::Slerp::new(q0, q1);
            (t0 + 1..t1).any(|f| {
                let a = (f - t0) as f32 / (t1 - t0) as f32;
                let s = slerp.at(a).map(f64::from);
                let n: [f64; 4] = std::array::from_fn(|c| {
                    q0[c] as f64 + (sign * q1[c] as f64 - q0[c] as f64) * a as f64
                });
                let (ls, ln) = (
                    s.iter().map(|c| c * c).sum::<f64>().sqrt(),
                    n.iter().map(|c| c * c).sum::<f64>().sqrt(),
                );
                let d = |sg: f64| {
                    (0..4)
                        .map(|c| (s[c] / ls - sg * n[c] / ln).abs())
                        .fold(0.0, f64::max)
                };
                d(1.0).min(d(-1.0)) > 0.25 / 32767.0
            })
        };
        let dense: Vec<bool> = track.windows(2).map(|w| needs(&w[0], &w[1])).collect();
        if !dense.iter().any(|&d| d) {
            return Ok((samples, false));
        }
        let tracks = msh::pose::tracks(&self.view);
        let fps = self.options.fps;
        // One sample per frame of the track's span at most.
        let span = sample_capacity(track.last().map_or(0.0, |k| k.time()) as u64 + 1);
        let mut times = Vec::with_capacity(span);
        let mut rotations: Vec<[f32; 4]> = Vec::with_capacity(span);
        let mut push = |t: u32, q: [f32; 4], rotations: &mut Vec<[f32; 4]>| {
            let mut q = q;
            if let Some(prev) = rotations.last() {
                if prev.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                    q = q.map(|c| -c);
                }
            }
            times.push([t as f32 / fps]);
            rotations.push(q);
        };
        for (k, key) in track.iter().enumerate() {
            push(
                key.time() as u32,
                self.axes.quat(shown_quat(key.quat_wxyz())),
                &mut rotations,
            );
            if k + 1 < track.len() && dense[k] {
                for f in (key.time() as u32).saturating_add(1)..track[k + 1].time() as u32 {
                    let pose =
                        msh::anim::sample(&tracks, i, node, f as f32).map_err(msh::Error::from)?;
                    push(f, self.axes.quat(shown_quat(pose.rotation)), &mut rotations);
                }
            }
        }
        Ok((
            Samples {
                rotations: Rotations::Float(rotations),
                rotation_times: Some(times),
                ..samples
            },
            true,
        ))
    }

    /// Keeps Res8 and Res19 raw, with every node's map start and fallback key.
    pub(super) fn raw_animation(&mut self) {
        let keys = self.view.anim_keys.unwrap_or(&[]);
        if !keys.is_empty() {
            self.extras.raw.keys = Some(self.buf.push_raw(
                keys.as_bytes(),
                keys.len() * 3,
                ComponentType::U16,
                Type::Vec4,
            ));
        }
        let map = self.view.anim_map.unwrap_or(&[]);
        if !map.is_empty() {
            self.extras.raw.map = Some(self.buf.push_raw(
                map.as_bytes(),
                map.len(),
                ComponentType::U16,
                Type::Scalar,
            ));
        }
        self.anim_raw_nodes = true;
        self.extras.keep_frame_count = true;
    }

    /// Samples the engine at every frame of `range` (`0..=frame_count` for
    /// the whole timeline): the pose a viewer shows at each integer frame is
    /// the engine's. Times start at 0 at the range's first frame.
    pub(super) fn bake(
        &mut self,
        i: usize,
        node: &msh::raw::Node38,
        range: std::ops::RangeInclusive<u32>,
    ) -> Result<Samples> {
        let tracks = msh::pose::tracks(&self.view);
        let first = *range.start();
        let frames = sample_capacity((*range.end() as u64 + 1).saturating_sub(first as u64));
        let mut times = Vec::with_capacity(frames);
        let mut translations = Vec::with_capacity(frames);
        let mut rotations: Vec<[f32; 4]> = Vec::with_capacity(frames);
        for f in range {
            let pose = msh::anim::sample(&tracks, i, node, f as f32).map_err(msh::Error::from)?;
            // The engine's value as sampled (its tiny departures from unit length
            // scale children exactly as in the game); only a degenerate one is normalised.
            let mut q = self.axes.quat(shown_quat(pose.rotation));
            if let Some(prev) = rotations.last() {
                if prev.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                    q = q.map(|c| -c);
                }
            }
            times.push([(f - first) as f32 / self.options.fps]);
            translations.push(self.axes.vec(pose.translation));
            rotations.push(q);
        }
        Ok(Samples {
            times,
            translations,
            rotation_times: None,
            rotations: Rotations::Float(rotations),
        })
    }
}

/// Rotation outputs: normalized SHORT (the Res8 encoding itself) or floats.
pub(super) enum Rotations {
    Short(Vec<[i16; 4]>),
    Float(Vec<[f32; 4]>),
}

/// The keys of one node's two channels.
pub(super) struct Samples {
    times: Vec<[f32; 1]>,
    translations: Vec<[f32; 3]>,
    rotations: Rotations,
    /// Times of the rotation keys when they differ from `times` (densified segments).
    rotation_times: Option<Vec<[f32; 1]>>,
}

/// The track `start..=end` of animated node `i` when the engine's sampling of it
/// is exactly the glTF LINEAR/slerp playback of its keys at integer frames:
/// whole-number key times from 0, canonical map values over the whole block.
pub(super) fn direct_track(
    view: &ModelRef<'_>,
    times: &[f32],
    i: usize,
    (start, end): (usize, usize),
) -> Option<(usize, usize)> {
    let keys = view.anim_keys?;
    let map = view.anim_map?;
    let track = keys.get(start..=end)?;
    // The first time +0.0 exactly (not -0.0, which the timeline gives back as +0.0).
    if track.len() < 2
        || track[0].time().to_bits() != 0
        || track.iter().any(|k| k.time().fract() != 0.0)
    {
        return None;
    }
    let fc = view.frame_count;
    if (fc as f32) < track[track.len() - 1].time() + 1.0 {
        return None;
    }
    let ms = view.nodes[i].anim_map_start.get() as usize;
    let block = map.get(ms..ms + fc as usize)?;
    block
        .iter()
        .enumerate()
        .all(|(f, w)| w.get() == msh::canonical_map_value(times, start, end, f as u32))
        .then_some((start, end))
}

/// The room reserved for `n` animation samples: the count comes from the file
/// (key times, frame count), so at most 65,536 are reserved ahead; beyond that
/// the vectors grow as samples are actually made.
pub(super) fn sample_capacity(n: u64) -> usize {
    n.min(1 << 16) as usize
}

/// An engine quaternion `[w, x, y, z]` as glTF `[x, y, z, w]`: as it is when
/// within the unit tolerance (its tiny departures scale children exactly as in
/// the game), normalised otherwise (identity when zero).
pub(super) fn shown_quat(q: [f32; 4]) -> [f32; 4] {
    let [w, x, y, z] = q;
    let len = (w * w + x * x + y * y + z * z).sqrt();
    if (len - 1.0).abs() < UNIT_TOLERANCE {
        [x, y, z, w]
    } else {
        unit_xyzw(q)
    }
}

/// An engine quaternion `[w, x, y, z]` as a unit `[x, y, z, w]` (identity when zero).
pub(super) fn unit_xyzw(q: [f32; 4]) -> [f32; 4] {
    let [w, x, y, z] = q;
    let len = (w * w + x * x + y * y + z * z).sqrt();
    if len > 0.0 && len.is_finite() {
        [x / len, y / len, z / len, w / len]
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}
