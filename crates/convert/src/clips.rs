//! Animation clips: named ranges of the model's one timeline (game frames,
//! inclusive) with a loop mode, as a modder names the actions of a model
//! (idle, walk, fire, die).
//!
//! A [`ClipList`] is read from the command line's text
//! (`idle=0..10:loop,walk=11..40:loop`, see [`ClipList::parse_spec`]) or from
//! JSON ([`ClipList::from_json`], the `name.clips.json` file beside a model),
//! written as JSON ([`ClipList::to_json`]), and checked against a model's
//! frame count ([`ClipList::check`]). Every refusal is a typed
//! [`Error`](crate::Error) with a stable code:
//!
//! | code | when |
//! | --- | --- |
//! | `clips.invalid` | the text or JSON does not parse, a name is empty, too long or repeated, `first > last`, too many clips |
//! | `clips.past_timeline` | a clip's last frame is at or past the model's frame count |
//!
//! The glTF import's key checks have their codes here too ([`NO_TRACK`],
//! [`KEY_TIME_INVALID`], [`KEY_TIME_DUPLICATE`], [`KEY_TIME_ORDER`],
//! [`PAST_TIMELINE`]); docs/GLTF.md says how each is handled.
//!
//! The JSON form is `{"clips": [{"name": "idle", "first": 0, "last": 10,
//! "mode": "loop"}]}`; `mode` defaults to `loop` in both forms.

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use std::fmt;
use std::str::FromStr;

/// At most this many clips in one list (a list is user input: its size is
/// checked before anything is kept per clip).
pub const MAX_CLIPS: usize = 4096;
/// At most this many bytes in a clip's name.
pub const MAX_NAME_BYTES: usize = 256;

/// Code of a clip list that does not parse or breaks a rule of its own.
pub const INVALID: &str = Code::ClipsInvalid.code();
/// Code of a clip whose range reaches past the model's timeline.
pub const PAST_TIMELINE: &str = Code::ClipsPastTimeline.code();
/// Code of a clip that animates nothing: clips given for a model without an
/// animated node (refused), or a glTF animation without a channel on a node
/// (left out of the timeline, with a note).
pub const NO_TRACK: &str = Code::ClipsNoTrack.code();
/// Code of a key time that is NaN or infinite (refused) or negative (noted:
/// the timeline starts at 0).
pub const KEY_TIME_INVALID: &str = Code::ClipsKeyTimeInvalid.code();
/// Code of two keys of one sampler at the same time (the first is kept, with a note).
pub const KEY_TIME_DUPLICATE: &str = Code::ClipsKeyTimeDuplicate.code();
/// Code of a sampler's key times out of order (sorted, with a note).
pub const KEY_TIME_ORDER: &str = Code::ClipsKeyTimeOrder.code();

/// How a clip plays once it reaches its last frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LoopMode {
    /// From the last frame back to the first, over and over.
    #[default]
    Loop,
    /// Once, holding the last frame.
    Once,
    /// Forwards then backwards, over and over.
    PingPong,
}

impl LoopMode {
    /// The mode's name in the text and JSON forms: `loop`, `once`, `pingpong`.
    pub fn as_str(self) -> &'static str {
        match self {
            LoopMode::Loop => "loop",
            LoopMode::Once => "once",
            LoopMode::PingPong => "pingpong",
        }
    }
}

impl fmt::Display for LoopMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LoopMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "loop" => Ok(LoopMode::Loop),
            "once" => Ok(LoopMode::Once),
            "pingpong" | "ping-pong" => Ok(LoopMode::PingPong),
            _ => Err(invalid(format!(
                "loop mode {s:?}: expected loop, once or pingpong"
            ))),
        }
    }
}

/// One named range of game frames.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Clip {
    /// The clip's name (non-empty, at most [`MAX_NAME_BYTES`] bytes, unique in its list).
    pub name: String,
    /// First game frame of the clip.
    pub first: u32,
    /// Last game frame of the clip (inclusive; `first <= last`).
    pub last: u32,
    /// How it plays past its last frame.
    pub mode: LoopMode,
}

impl Clip {
    /// The number of game frames the clip spans (`last - first + 1`).
    pub fn frames(&self) -> u64 {
        u64::from(self.last) - u64::from(self.first) + 1
    }
}

/// The clips of one model, in the order they were given (the order of the
/// glTF animations and of the JSON file). Clips may overlap and need not
/// cover the timeline.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ClipList {
    clips: Vec<Clip>,
}

impl ClipList {
    /// A list from clips, checked by the list's own rules (names, ranges, count).
    pub fn new(clips: Vec<Clip>) -> Result<Self> {
        if clips.len() > MAX_CLIPS {
            return Err(invalid(format!(
                "{} clips: at most {MAX_CLIPS} are allowed",
                clips.len()
            )));
        }
        for (k, clip) in clips.iter().enumerate() {
            check_name(&clip.name)?;
            if clip.first > clip.last {
                return Err(invalid(format!(
                    "clip {:?}: first frame {} is after its last frame {}",
                    clip.name, clip.first, clip.last
                )));
            }
            if clips[..k].iter().any(|c| c.name == clip.name) {
                return Err(invalid(format!("clip name {:?} is given twice", clip.name)));
            }
        }
        Ok(ClipList { clips })
    }

    /// The clips, in order.
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// True when the list has no clip.
    pub fn is_empty(&self) -> bool {
        self.clips.is_empty()
    }

    /// Parses the command-line form: clips separated by `,`, each
    /// `NAME=FIRST..LAST` with an optional `:MODE` (`loop` when omitted).
    /// Spaces around the parts are ignored; a name holds no `,`, `=` or `:`.
    pub fn parse_spec(text: &str) -> Result<Self> {
        let text = text.trim();
        if text.is_empty() {
            return Err(invalid("the clip list is empty"));
        }
        let mut clips = Vec::new();
        for (k, part) in text.split(',').enumerate() {
            if k >= MAX_CLIPS {
                return Err(invalid(format!(
                    "more than {MAX_CLIPS} clips: at most {MAX_CLIPS} are allowed"
                )));
            }
            clips.push(parse_one(part.trim())?);
        }
        ClipList::new(clips)
    }

    /// Parses the JSON form (`{"clips": [{"name", "first", "last", "mode"}]}`).
    /// Unknown fields are refused, so a misspelt one is not silently lost.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        let file: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|e| invalid(format!("the clip list is not JSON: {e}")))?;
        let top = file
            .as_object()
            .ok_or_else(|| invalid("the clip list must be a JSON object with \"clips\""))?;
        if let Some(other) = top.keys().find(|k| *k != "clips") {
            return Err(invalid(format!("/{other}: unknown field (only \"clips\")")));
        }
        let list = top
            .get("clips")
            .and_then(|c| c.as_array())
            .ok_or_else(|| invalid("/clips: must be an array"))?;
        if list.len() > MAX_CLIPS {
            return Err(invalid(format!(
                "/clips: {} clips, at most {MAX_CLIPS} are allowed",
                list.len()
            )));
        }
        let clips = list
            .iter()
            .enumerate()
            .map(|(k, v)| clip_from_json(k, v))
            .collect::<Result<Vec<_>>>()?;
        ClipList::new(clips)
    }

    /// The JSON form, one clip a line, ending in a newline: the same list
    /// always gives the same bytes.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\n  \"clips\": [");
        for (k, c) in self.clips.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let name = serde_json::to_string(&c.name).unwrap_or_else(|_| "\"\"".into());
            out.push_str(&format!(
                "\n    {{\"name\": {name}, \"first\": {}, \"last\": {}, \"mode\": \"{}\"}}",
                c.first, c.last, c.mode
            ));
        }
        if !self.clips.is_empty() {
            out.push_str("\n  ");
        }
        out.push_str("]\n}\n");
        out
    }

    /// The command-line form (`idle=0..10:loop,walk=11..40:loop`); names that
    /// hold `,`, `=` or `:` cannot be written this way (use [`ClipList::to_json`]).
    pub fn to_spec(&self) -> String {
        self.clips
            .iter()
            .map(|c| format!("{}={}..{}:{}", c.name, c.first, c.last, c.mode))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Checks every clip against a model of `frame_count` frames (frames
    /// `0..frame_count`): `clips.past_timeline` names the first clip whose
    /// last frame is not on the timeline.
    pub fn check(&self, frame_count: u32) -> Result<()> {
        match self.clips.iter().find(|c| c.last >= frame_count) {
            Some(c) => Err(Error::new(
                ErrorKind::BadOption,
                PAST_TIMELINE,
                format!(
                    "clip {:?} ({}..{}) reaches past the model's timeline: it has {frame_count} frame(s), 0..{}",
                    c.name,
                    c.first,
                    c.last,
                    frame_count.saturating_sub(1)
                ),
            )),
            None => Ok(()),
        }
    }

    /// Checks the list against the model an export writes: every clip on its
    /// timeline ([`ClipList::check`]), and `clips.no_track` when clips were
    /// given for a model without an animated node (a clip would have no track).
    pub fn check_model(&self, view: &msh::ModelRef<'_>) -> Result<()> {
        self.check(view.frame_count)?;
        if !view.is_animated() && !self.is_empty() {
            return Err(Error::new(
                ErrorKind::BadOption,
                NO_TRACK,
                "the model has no animated node: a clip would have no track (leave out --clips)",
            ));
        }
        Ok(())
    }
}

impl FromStr for ClipList {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        ClipList::parse_spec(s)
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::BadOption, INVALID, message)
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(invalid("a clip has an empty name"));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(invalid(format!(
            "a clip name is {} bytes long: at most {MAX_NAME_BYTES}",
            name.len()
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid(format!(
            "clip name {name:?} holds a control character"
        )));
    }
    Ok(())
}

fn parse_one(part: &str) -> Result<Clip> {
    let (name, rest) = part
        .split_once('=')
        .ok_or_else(|| invalid(format!("{part:?}: expected NAME=FIRST..LAST[:MODE]")))?;
    let (range, mode) = match rest.split_once(':') {
        Some((range, mode)) => (range, mode.trim().parse()?),
        None => (rest, LoopMode::Loop),
    };
    let (first, last) = range
        .split_once("..")
        .ok_or_else(|| invalid(format!("{part:?}: the range must be FIRST..LAST")))?;
    let frame = |s: &str| {
        s.trim().parse::<u32>().map_err(|_| {
            invalid(format!(
                "{part:?}: {s:?} is not a frame number (0..=4294967295)"
            ))
        })
    };
    Ok(Clip {
        name: name.trim().to_string(),
        first: frame(first)?,
        last: frame(last)?,
        mode,
    })
}

fn clip_from_json(k: usize, v: &serde_json::Value) -> Result<Clip> {
    let at = |field: &str| format!("/clips/{k}{field}");
    let obj = v
        .as_object()
        .ok_or_else(|| invalid(format!("{}: must be an object", at(""))))?;
    if let Some(other) = obj
        .keys()
        .find(|f| !matches!(f.as_str(), "name" | "first" | "last" | "mode"))
    {
        return Err(invalid(format!(
            "{}: unknown field",
            at(&format!("/{other}"))
        )));
    }
    let name = obj
        .get("name")
        .and_then(|n| n.as_str())
        .ok_or_else(|| invalid(format!("{}: must be a string", at("/name"))))?;
    let frame = |field: &str| -> Result<u32> {
        obj.get(field)
            .and_then(|n| n.as_u64())
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                invalid(format!(
                    "{}: must be a whole frame number 0..=4294967295",
                    at(&format!("/{field}"))
                ))
            })
    };
    let mode = match obj.get("mode") {
        None => LoopMode::Loop,
        Some(m) => m
            .as_str()
            .ok_or_else(|| invalid(format!("{}: must be a string", at("/mode"))))?
            .parse()?,
    };
    Ok(Clip {
        name: name.to_string(),
        first: frame("first")?,
        last: frame("last")?,
        mode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parses_and_writes_back() {
        let list =
            ClipList::parse_spec("idle=0..10:loop, walk = 11..40:pingpong,die=41..41").unwrap();
        assert_eq!(list.clips().len(), 3);
        assert_eq!(list.clips()[1].name, "walk");
        assert_eq!(list.clips()[1].mode, LoopMode::PingPong);
        assert_eq!(list.clips()[2].mode, LoopMode::Loop);
        assert_eq!(list.clips()[2].frames(), 1);
        assert_eq!(
            list.to_spec(),
            "idle=0..10:loop,walk=11..40:pingpong,die=41..41:loop"
        );
        assert_eq!(ClipList::parse_spec(&list.to_spec()).unwrap(), list);
    }

    #[test]
    fn json_round_trips() {
        let list = ClipList::parse_spec("idle=0..10:once,\"odd\"=3..4").unwrap();
        let text = list.to_json();
        assert_eq!(ClipList::from_json(text.as_bytes()).unwrap(), list);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["clips"][0]["mode"], "once");
        assert_eq!(v["clips"][1]["name"], "\"odd\"");
        let empty = ClipList::default();
        assert_eq!(
            ClipList::from_json(empty.to_json().as_bytes()).unwrap(),
            empty
        );
    }

    #[test]
    fn bad_lists_are_refused_with_codes() {
        for bad in [
            "",
            "idle",
            "idle=0-10",
            "idle=a..3",
            "idle=5..3",
            "=0..1",
            "idle=0..1:bounce",
            "a=0..1,a=2..3",
            "a=0..4294967296",
        ] {
            let e = ClipList::parse_spec(bad).unwrap_err();
            assert_eq!(e.code(), INVALID, "{bad:?}");
            assert_eq!(e.kind(), ErrorKind::BadOption);
        }
        for bad in [
            "[]",
            "{\"clips\": 3}",
            "{\"clips\": [], \"fps\": 3}",
            "{\"clips\": [{\"name\": \"a\", \"first\": -1, \"last\": 2}]}",
            "{\"clips\": [{\"name\": \"a\", \"first\": 1.5, \"last\": 2}]}",
            "{\"clips\": [{\"name\": \"a\", \"first\": 1, \"last\": 2, \"loop\": 1}]}",
            "{\"clips\": [{\"first\": 1, \"last\": 2}]}",
        ] {
            let e = ClipList::from_json(bad.as_bytes()).unwrap_err();
            assert_eq!(e.code(), INVALID, "{bad}");
        }
        let many = vec!["a=0..0"; MAX_CLIPS + 1].join(",");
        assert_eq!(ClipList::parse_spec(&many).unwrap_err().code(), INVALID);
    }

    #[test]
    fn check_against_the_timeline() {
        let list = ClipList::parse_spec("idle=0..9,walk=10..19").unwrap();
        assert!(list.check(20).is_ok());
        let e = list.check(19).unwrap_err();
        assert_eq!(e.code(), PAST_TIMELINE);
        assert!(e.message().contains("walk"), "{}", e.message());
        assert_eq!(list.check(0).unwrap_err().code(), PAST_TIMELINE);
    }
}
