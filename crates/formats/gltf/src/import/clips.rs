//! The glTF animations as clips on the MSH timeline, and the checks of their
//! key times (docs/GLTF.md, "Clips").
//!
//! - [`recorded`]: the clips an export with `--clips` recorded in each
//!   animation's `extras.msh.clip`, when every animation has them and each
//!   still fits its range (else the animations are laid end to end).
//! - [`mend_keys`]: one sampler's key times checked: a time that is NaN or
//!   infinite is refused and a negative one noted (`clips.key_time_invalid`);
//!   times out of order are sorted (`clips.key_time_order`) and a repeated
//!   time keeps its first key (`clips.key_time_duplicate`), each kind noted
//!   once for every sampler ([`Mends`]).
//! - [`unique_names`]: clip names for animations laid end to end.

use super::read::Source;
use crate::clips::{
    Clip, ClipList, LoopMode, KEY_TIME_DUPLICATE, KEY_TIME_INVALID, KEY_TIME_ORDER, PAST_TIMELINE,
};
use crate::error::{Error, ErrorKind, Result};
use crate::extras::{self as ex, AnimationExtras};
use crate::report::Report;

/// The whole frames an animation of `duration` seconds spans at `fps`: its
/// last key's frame, rounded when within 1/1000 of a frame, else up.
pub(super) fn frames_of(duration: f32, fps: f32) -> u32 {
    let exact = duration * fps;
    let frames = if (exact - exact.round()).abs() < 1e-3 {
        exact.round()
    } else {
        exact.ceil()
    };
    frames as u32
}

/// The clips recorded in the animations' extras, in animation order: `Some`
/// when every animation has a named clip at this `fps` and runs no longer
/// than its range; each clip's `last` is where the animation ends
/// (`first` + its frames). A clip that no longer fits is
/// `clips.past_timeline`, mended by laying every animation end to end (note).
pub(super) fn recorded(
    src: &Source<'_>,
    fps: f32,
    report: &mut Report,
) -> Result<Option<Vec<Clip>>> {
    let mut clips = Vec::new();
    for anim in src.doc.animations() {
        let Some(extras) = ex::unwrap::<AnimationExtras>(anim.extras()) else {
            return Ok(None);
        };
        let (Some(name), Ok(mode)) = (anim.name(), extras.clip.mode.parse::<LoopMode>()) else {
            return Ok(None);
        };
        if extras.clip.fps != fps || extras.clip.first > extras.clip.last {
            return Ok(None);
        }
        let mut duration = 0f32;
        for sampler in anim.samplers() {
            if let Some(&[t]) = src.floats::<1>(&sampler.input())?.last() {
                duration = duration.max(t);
            }
        }
        let frames = frames_of(duration, fps);
        let last = u64::from(extras.clip.first) + u64::from(frames);
        if last > u64::from(extras.clip.last) {
            report.note(
                PAST_TIMELINE,
                format!(
                    "animation {name:?} runs {} frames, past its recorded clip {}..{}: every animation is laid end to end instead",
                    frames + 1,
                    extras.clip.first,
                    extras.clip.last
                ),
            );
            return Ok(None);
        }
        clips.push(Clip {
            name: name.to_string(),
            first: extras.clip.first,
            last: last as u32,
            mode,
        });
    }
    // Names and ranges by the list's own rules (a repeated name: end to end).
    Ok((!clips.is_empty())
        .then(|| ClipList::new(clips.clone()).ok().map(|_| clips))
        .flatten())
}

/// The key-time mends of every sampler: each kind is noted once, with the
/// number of samplers and the first one's details.
#[derive(Debug, Default)]
pub(super) struct Mends {
    /// Per code, what each sampler's mend was.
    found: Vec<(&'static str, String)>,
}

impl Mends {
    fn add(&mut self, code: &'static str, message: String) {
        self.found.push((code, message));
    }

    /// One note per kind of mend that arose.
    pub(super) fn report(self, report: &mut Report) {
        for code in [KEY_TIME_INVALID, KEY_TIME_ORDER, KEY_TIME_DUPLICATE] {
            let mut of = self.found.iter().filter(|f| f.0 == code);
            let Some((_, first)) = of.next() else {
                continue;
            };
            let more = of.count();
            let message = match more {
                0 => format!("1 sampler: {first}"),
                _ => format!("{} samplers: {first}; and {more} more like it", more + 1),
            };
            report.note(code, message);
        }
    }
}

/// A sampler's key times (`times`) and outputs (`per_key` values a key)
/// with their times checked: refused when one is NaN or infinite, noted when
/// one is negative (the timeline is sampled from 0, as a player shows it);
/// sorted (stably) when out of order and the first of keys at one time kept,
/// with a note each. `what` names the sampler in messages.
pub(super) fn mend_keys<T: Copy>(
    what: &str,
    times: Vec<f32>,
    values: Vec<T>,
    per_key: usize,
    mends: &mut Mends,
) -> Result<(Vec<f32>, Vec<T>)> {
    if let Some((k, t)) = times.iter().enumerate().find(|(_, t)| !t.is_finite()) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            KEY_TIME_INVALID,
            format!("{what}: key {k} has time {t}; key times must be finite"),
        ));
    }
    if let Some((k, t)) = times.iter().enumerate().find(|(_, t)| **t < 0.0) {
        // The timeline is sampled from time 0: keys before it only shape the
        // pose up to there, as a glTF player shows it.
        mends.add(
            KEY_TIME_INVALID,
            format!("{what}: key {k} has the negative time {t}; the timeline starts at 0 (keys before it only shape the pose up to there)"),
        );
    }
    if times.windows(2).all(|w| w[0] < w[1]) || values.len() != times.len() * per_key {
        return Ok((times, values));
    }
    let mut order: Vec<usize> = (0..times.len()).collect();
    if times.windows(2).any(|w| w[0] > w[1]) {
        mends.add(
            KEY_TIME_ORDER,
            format!("{what}: key times are out of order; the keys were sorted by time"),
        );
        order.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    }
    let before = order.len();
    order.dedup_by(|b, a| times[*a] == times[*b]);
    if order.len() < before {
        mends.add(
            KEY_TIME_DUPLICATE,
            format!(
                "{what}: {} key(s) repeat the time of the key before; the first at each time was kept",
                before - order.len()
            ),
        );
    }
    let kept_times = order.iter().map(|&k| times[k]).collect();
    let kept_values = order
        .iter()
        .flat_map(|&k| values[k * per_key..(k + 1) * per_key].iter().copied())
        .collect();
    Ok((kept_times, kept_values))
}

/// Clip names for animations laid end to end: each group's own name (its
/// animations' names joined by `+`, `clip{k}` when none has one), a repeat
/// made unique with `#2`, `#3`…
pub(super) fn unique_names(groups: &[Vec<Option<&str>>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(groups.len());
    for (k, group) in groups.iter().enumerate() {
        let mut parts: Vec<&str> = group.iter().flatten().copied().collect();
        parts.dedup();
        let base = if parts.is_empty() {
            format!("clip{k}")
        } else {
            parts.join("+")
        };
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}#{n}");
            n += 1;
        }
        names.push(name);
    }
    names
}

/// On the exact rebuild of an export with clips: the clips, when every
/// animation is still what the export of `msh` (the rebuilt model) with
/// those clips writes (same channels, the same key times and values, bit for
/// bit); `Ok(None)` when no animation records a clip. An edited clip
/// animation (or one that no longer fits its frames) is `Err(why)`: the
/// import then takes the generic path, so the edit is an edit in the MSH.
pub(super) fn unedited(
    src: &Source<'_>,
    msh: &[u8],
    extras: &ex::ModelExtras,
    resolved: &super::Resolved,
) -> Result<std::result::Result<Option<Vec<Clip>>, String>> {
    if !src
        .doc
        .animations()
        .any(|a| ex::unwrap::<AnimationExtras>(a.extras()).is_some())
    {
        return Ok(Ok(None));
    }
    // Notes of the generic path are its own: this look is a trial.
    let Some(clips) = recorded(src, resolved.fps, &mut Report::default())? else {
        return Ok(Err("its clips no longer fit their recorded frames".into()));
    };
    let options = resolved.export_options(extras, ClipList::new(clips.clone()).ok());
    let glb = match crate::export(msh, &options) {
        Ok((glb, _)) => glb,
        Err(e) => {
            return Ok(Err(format!(
                "its clips cannot be exported again ({})",
                e.code()
            )))
        }
    };
    let again = super::read::parse(&glb, &|_| None)?;
    let same = src.doc.animations().len() == again.doc.animations().len()
        && src
            .doc
            .animations()
            .zip(again.doc.animations())
            .try_fold(true, |same, (a, b)| -> Result<bool> {
                Ok(same && same_animation(src, &a, &again, &b)?)
            })?;
    Ok(if same {
        Ok(Some(clips))
    } else {
        Err("its clip animations were edited".into())
    })
}

/// An accessor's floats (scalar, VEC3 or VEC4) as their bits.
fn float_bits(s: &Source<'_>, acc: &gltf::Accessor<'_>) -> Result<Vec<u32>> {
    fn bits<const N: usize>(v: Vec<[f32; N]>) -> Vec<u32> {
        v.as_flattened().iter().map(|f| f.to_bits()).collect()
    }
    Ok(match acc.dimensions() {
        gltf::accessor::Dimensions::Scalar => bits(s.floats::<1>(acc)?),
        gltf::accessor::Dimensions::Vec3 => bits(s.floats::<3>(acc)?),
        _ => bits(s.floats::<4>(acc)?),
    })
}

/// Whether two animations have the same channels (node, path) and samplers
/// (interpolation, key times and values, bit for bit).
fn same_animation(
    src: &Source<'_>,
    a: &gltf::Animation<'_>,
    again: &Source<'_>,
    b: &gltf::Animation<'_>,
) -> Result<bool> {
    if a.channels().count() != b.channels().count() {
        return Ok(false);
    }
    for (x, y) in a.channels().zip(b.channels()) {
        let (sx, sy) = (x.sampler(), y.sampler());
        if x.target().node().index() != y.target().node().index()
            || x.target().property() != y.target().property()
            || sx.interpolation() != sy.interpolation()
            || sx.output().dimensions() != sy.output().dimensions()
        {
            return Ok(false);
        }
        if float_bits(src, &sx.input())? != float_bits(again, &sy.input())?
            || float_bits(src, &sx.output())? != float_bits(again, &sy.output())?
        {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked_and_mended() {
        let mut report = Mends::default();
        let (t, v) = mend_keys("s", vec![0.0, 1.0, 2.0], vec![1, 2, 3], 1, &mut report).unwrap();
        assert_eq!((t, v), (vec![0.0, 1.0, 2.0], vec![1, 2, 3]));
        assert!(report.found.is_empty());
        let (t, v) = mend_keys(
            "s",
            vec![2.0, 0.0, 1.0, 1.0],
            vec![3, 1, 2, 9],
            1,
            &mut report,
        )
        .unwrap();
        assert_eq!((t, v), (vec![0.0, 1.0, 2.0], vec![1, 2, 3]));
        let (_, v) = mend_keys("t", vec![1.0, 0.0], vec![1, 2], 1, &mut report).unwrap();
        assert_eq!(v, [2, 1]);
        let mut notes = Report::default();
        std::mem::take(&mut report).report(&mut notes);
        assert!(notes.has(KEY_TIME_ORDER) && notes.has(KEY_TIME_DUPLICATE));
        // Once each, with the count of samplers.
        assert_eq!(notes.notes.len(), 2, "{notes:?}");
        assert!(
            notes.notes[0].message.starts_with("2 samplers: s: "),
            "{notes:?}"
        );
        let (t, v) =
            mend_keys("s", vec![0.0, 0.0], vec![1, 2, 3, 4, 5, 6], 3, &mut report).unwrap();
        assert_eq!((t, v), (vec![0.0], vec![1, 2, 3]));
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let e = mend_keys("s", vec![0.0, bad], vec![1, 2], 1, &mut report).unwrap_err();
            assert_eq!(e.code(), KEY_TIME_INVALID);
        }
        let mut report = Mends::default();
        let (t, _) = mend_keys("s", vec![-1.0, 0.5], vec![1, 2], 1, &mut report).unwrap();
        assert_eq!(t, [-1.0, 0.5]);
        assert_eq!(report.found[0].0, KEY_TIME_INVALID);
    }

    #[test]
    fn names_are_unique() {
        let names = unique_names(&[
            vec![Some("walk")],
            vec![None],
            vec![Some("walk")],
            vec![Some("a"), Some("b")],
        ]);
        assert_eq!(names, ["walk", "clip1", "walk#2", "a+b"]);
    }
}
