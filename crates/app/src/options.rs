//! The conversion options: each a type with `FromStr` and the one range check,
//! [`OPTIONS`], the table that says per option its CLI flag, query name,
//! multipart field, help text, values and default (as ripgrep's flag
//! definitions do), and [`Options`], which holds them and makes the
//! libraries' option structs.
//!
//! Both front ends take their options from the table and parse the values
//! through [`Options::set`] (the CLI's flags, the service's query and
//! multipart field), so a value means the same everywhere and is refused with
//! the same `option.invalid` message. Adding an option: its type here, a
//! field of [`Options`], an [`OptionName`] and one row of [`OPTIONS`].

use crate::error::Error;
use mshconv_convert::{
    AnimationChoice, Axis, ClipList, ExportSettings, ImportSettings, Original, Rotation,
};
use std::fmt;
use std::str::FromStr;

/// The LOD shown by viewers (glTF) or written (OBJ): 0, 1 or 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Lod(u8);

/// The group shown (glTF) or written (OBJ): 0 to 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Group(u8);

/// Game frames per second on the glTF timeline: above 0 and at most 1000.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fps(f32);

impl Lod {
    /// The highest LOD.
    pub const MAX: u8 = mshconv_convert::options::LOD_MAX;

    /// The LOD, range-checked.
    pub fn new(lod: u8) -> Result<Lod, Error> {
        mshconv_convert::options::check_lod(lod).map_err(|e| Error::bad_option(e.0))?;
        Ok(Lod(lod))
    }
    /// The value.
    pub fn get(self) -> u8 {
        self.0
    }
}

impl Group {
    /// The highest group.
    pub const MAX: u8 = mshconv_convert::options::GROUP_MAX;

    /// The group, range-checked.
    pub fn new(group: u8) -> Result<Group, Error> {
        mshconv_convert::options::check_group(group).map_err(|e| Error::bad_option(e.0))?;
        Ok(Group(group))
    }
    /// The value.
    pub fn get(self) -> u8 {
        self.0
    }
}

impl Fps {
    /// The export's default: 24 (Blender's default scene rate, so Blender's
    /// per-frame resampling lands on every game frame).
    pub const DEFAULT: Fps = Fps(24.0);
    /// The highest rate.
    pub const MAX: f32 = mshconv_convert::options::FPS_MAX;

    /// The rate, range-checked: above 0 and at most [`Fps::MAX`].
    pub fn new(fps: f32) -> Result<Fps, Error> {
        mshconv_convert::options::check_fps(fps).map_err(|e| Error::bad_option(e.0))?;
        Ok(Fps(fps))
    }
    /// The value.
    pub fn get(self) -> f32 {
        self.0
    }
}

fn parse_number<T: FromStr>(what: &str, s: &str) -> Result<T, Error> {
    s.trim()
        .parse()
        .map_err(|_| Error::bad_option(format!("{what} must be a number, not {s:?}")))
}

impl FromStr for Lod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Lod, Error> {
        Lod::new(parse_number("lod", s)?)
    }
}

impl FromStr for Group {
    type Err = Error;
    fn from_str(s: &str) -> Result<Group, Error> {
        Group::new(parse_number("group", s)?)
    }
}

impl FromStr for Fps {
    type Err = Error;
    fn from_str(s: &str) -> Result<Fps, Error> {
        Fps::new(parse_number("fps", s)?)
    }
}

/// The up axis of the glTF side, parsed: `y-up` or `z-up`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AxisOption(pub Axis);

impl FromStr for AxisOption {
    type Err = Error;
    fn from_str(s: &str) -> Result<AxisOption, Error> {
        s.parse::<Axis>()
            .map(AxisOption)
            .map_err(|e| Error::bad_option(e.0))
    }
}

/// How a stored rotation turns a node, parsed: `conjugate` or `stored`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RotationOption(pub Rotation);

impl FromStr for RotationOption {
    type Err = Error;
    fn from_str(s: &str) -> Result<RotationOption, Error> {
        mshconv_convert::parse_rotation(s)
            .map(RotationOption)
            .map_err(|e| Error::bad_option(e.0))
    }
}

/// Which glTF animation(s) become the MSH timeline: `all`, `none`, an index or a name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnimationOption(pub AnimationChoice);

impl FromStr for AnimationOption {
    type Err = Error;
    /// Never fails: what is not `all`, `none` or a number is a name.
    fn from_str(s: &str) -> Result<AnimationOption, Error> {
        Ok(AnimationOption(match s {
            "all" => AnimationChoice::All,
            "none" => AnimationChoice::None,
            _ => s.parse::<usize>().map_or_else(
                |_| AnimationChoice::Name(s.to_string()),
                AnimationChoice::Index,
            ),
        }))
    }
}

impl fmt::Display for Lod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A clip list in either form: JSON when the text starts with `{` (a
/// `NAME.clips.json` file, the service's multipart field), else the command
/// line's `idle=0..10:loop,walk=11..40:loop`. Refused as `clips.invalid`.
fn parse_clips(text: &str) -> Result<ClipList, Error> {
    let list = if text.trim_start().starts_with('{') {
        ClipList::from_json(text.as_bytes())
    } else {
        ClipList::parse_spec(text)
    };
    Ok(list?)
}

/// Every conversion option, parsed and range-checked. A field left at its
/// default is what no option given means: for an export the documented
/// default, for an import what the file records (else that default).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Options {
    /// LOD shown (glTF) or written (OBJ).
    pub lod: Lod,
    /// Group shown (glTF) or written (OBJ).
    pub group: Group,
    /// Frames per second of the glTF timeline.
    pub fps: Option<Fps>,
    /// Up axis of the glTF/OBJ side.
    pub axis: Option<Axis>,
    /// Rotation reading.
    pub rotation: Option<Rotation>,
    /// glTF -> MSH: which animation(s) to take.
    pub animation: AnimationChoice,
    /// MSH -> glTF: the animation clips (one glTF animation per clip); `None`:
    /// the model's `NAME.clips.json` beside it when there is one, else one
    /// animation over the whole timeline.
    pub clips: Option<ClipList>,
    /// MSH -> glTF/GLB: embed the model file (`extras.msh.original`) for a
    /// self-contained file; by default only its fingerprint.
    pub embed_original: bool,
    /// glTF/GLB -> MSH: the model the file was exported from (not a row of
    /// [`OPTIONS`]: a file, which each front end reads: `--original FILE`, the
    /// service's `original` field, Python's `original=`); a write over a model
    /// gives the model it replaces when none is given
    /// ([`crate::original`]).
    pub original: Option<Original>,
}

/// One option by its name, as both front ends spell it (`--lod`, `lod=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OptionName {
    /// `lod`
    Lod,
    /// `group`
    Group,
    /// `fps`
    Fps,
    /// `axis`
    Axis,
    /// `rotation`
    Rotation,
    /// `animation`
    Animation,
    /// `clips`: the text form (`idle=0..10:loop,walk=11..40:loop`) or the JSON
    /// form (text starting with `{`); a front end reads a file's text first.
    Clips,
    /// `embed_original`: `true` embeds the model file in a glTF export.
    EmbedOriginal,
}

/// What values an option takes: for openapi.json, the web page and the
/// help texts (the option's type checks them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionValues {
    /// A whole number from 0 to `max`.
    Integer {
        /// The highest value.
        max: u8,
    },
    /// A number above 0 and at most `max`.
    Number {
        /// The highest value.
        max: f32,
    },
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// Text, as the help says.
    Text,
}

/// One row of [`OPTIONS`]: an option as every front end spells it.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    /// The option.
    pub name: OptionName,
    /// The CLI's flag, without `--`.
    pub flag: &'static str,
    /// The CLI's value name (`--lod LOD`).
    pub value_name: &'static str,
    /// The service's query parameter.
    pub query: &'static str,
    /// The service's multipart field that may give it instead, if any.
    pub field: Option<&'static str>,
    /// The CLI's help text (one line, as `--help` shows it).
    pub help: &'static str,
    /// The values it takes.
    pub values: OptionValues,
    /// The (export's) default, as text; `None`: none (`clips`: the model's
    /// `NAME.clips.json` beside it in the CLI).
    pub default: Option<&'static str>,
    /// An MSH model's export reads it.
    pub export: bool,
    /// An import to MSH reads it.
    pub import: bool,
    /// It is one model's (`clips`): not taken by a conversion of every model
    /// of an archive.
    pub one_model: bool,
}

/// Every conversion option, in the order the CLI's help lists them and
/// values are checked. The CLI builds its flags from these rows
/// (`crates/mshconv/src/cli.rs`), the service its query
/// (`server/src/extract.rs`), and tests check openapi.json, the web page and
/// README.md against them.
pub const OPTIONS: [OptionSpec; 8] = [
    OptionSpec {
        name: OptionName::Lod,
        flag: "lod",
        value_name: "LOD",
        query: "lod",
        field: None,
        help: "LOD shown by viewers (0-2); every LOD/group is in the output [default: 0]",
        values: OptionValues::Integer { max: Lod::MAX },
        default: Some("0"),
        export: true,
        import: false,
        one_model: false,
    },
    OptionSpec {
        name: OptionName::Group,
        flag: "group",
        value_name: "GROUP",
        query: "group",
        field: None,
        help: "Group shown by viewers (0-4) [default: 0]",
        values: OptionValues::Integer { max: Group::MAX },
        default: Some("0"),
        export: true,
        import: false,
        one_model: false,
    },
    OptionSpec {
        name: OptionName::Fps,
        flag: "fps",
        value_name: "FPS",
        query: "fps",
        field: None,
        help: "Game frames per second on the glTF timeline [export default: 24; import default: what the file records, else 24]",
        values: OptionValues::Number { max: Fps::MAX },
        default: Some("24"),
        export: true,
        import: true,
        one_model: false,
    },
    OptionSpec {
        name: OptionName::Axis,
        flag: "axis",
        value_name: "AXIS",
        query: "axis",
        field: None,
        help: "Up axis of the glTF side: y-up or z-up (the game's frame) [export default: y-up; import default: what the file records, else y-up]",
        values: OptionValues::OneOf(&["y-up", "z-up"]),
        default: Some("y-up"),
        export: true,
        import: true,
        one_model: false,
    },
    OptionSpec {
        name: OptionName::Rotation,
        flag: "rotation",
        value_name: "ROTATION",
        query: "rotation",
        field: None,
        help: "How a stored rotation turns a node: conjugate (docs/FORMAT.md's reading) or stored [export default: conjugate; import default: recorded, else conjugate]",
        values: OptionValues::OneOf(&["conjugate", "stored"]),
        default: Some("conjugate"),
        export: true,
        import: true,
        one_model: false,
    },
    OptionSpec {
        name: OptionName::Animation,
        flag: "animation",
        value_name: "ANIMATION",
        query: "animation",
        field: None,
        help: "glTF -> MSH: which animation becomes the timeline: all (one after another), none, an index, or a name [default: all]",
        values: OptionValues::Text,
        default: Some("all"),
        export: false,
        import: true,
        one_model: false,
    },
    OptionSpec {
        name: OptionName::Clips,
        flag: "clips",
        value_name: "CLIPS|FILE",
        query: "clips",
        field: Some("clips"),
        help: r#"MSH -> glTF/GLB: animation clips, one glTF animation each: NAME=FIRST..LAST[:MODE] separated by commas (game frames, inclusive; MODE loop, once or pingpong [default: loop]), or a JSON file ({"clips": [{"name", "first", "last", "mode"}]}) [default: NAME.clips.json beside the model, if there is one]"#,
        values: OptionValues::Text,
        default: None,
        export: true,
        import: false,
        one_model: true,
    },
    OptionSpec {
        name: OptionName::EmbedOriginal,
        flag: "embed-original",
        value_name: "BOOL",
        query: "embed_original",
        field: None,
        help: "MSH -> glTF/GLB: true embeds the model file for a self-contained file (the flag alone is true); by default the file records its fingerprint, and the way back takes the model from what it writes over, or from --original [default: false]",
        values: OptionValues::OneOf(&["false", "true"]),
        default: Some("false"),
        export: true,
        import: false,
        one_model: false,
    },
];

impl OptionName {
    /// This option's row of [`OPTIONS`].
    pub fn spec(self) -> &'static OptionSpec {
        OPTIONS
            .iter()
            .find(|row| row.name == self)
            .expect("every option has its row (a test checks)")
    }
}

impl Options {
    /// Sets one option from its text, with the option's own parsing and range check.
    pub fn set(&mut self, name: OptionName, value: &str) -> Result<(), Error> {
        match name {
            OptionName::Lod => self.lod = value.parse()?,
            OptionName::Group => self.group = value.parse()?,
            OptionName::Fps => self.fps = Some(value.parse()?),
            OptionName::Axis => self.axis = Some(value.parse::<AxisOption>()?.0),
            OptionName::Rotation => self.rotation = Some(value.parse::<RotationOption>()?.0),
            OptionName::Animation => self.animation = value.parse::<AnimationOption>()?.0,
            OptionName::Clips => self.clips = Some(parse_clips(value)?),
            OptionName::EmbedOriginal => self.embed_original = parse_bool("embed_original", value)?,
        }
        Ok(())
    }

    /// The export settings every format's plug-in takes, for outputs named
    /// `names` (the clips are the ones given; the application layer adds the
    /// list beside the model).
    pub fn export_settings(&self, names: &crate::Names) -> ExportSettings {
        ExportSettings {
            lod: self.lod.get(),
            group: self.group.get(),
            fps: self.fps.unwrap_or(Fps::DEFAULT).get(),
            axis: self.axis.unwrap_or_default(),
            rotation: self.rotation.unwrap_or_default(),
            name: names.model.clone(),
            file: names.file.clone(),
            clips: self.clips.clone(),
            embed_original: self.embed_original,
        }
    }

    /// The import settings every format's plug-in takes.
    pub fn import_settings(&self) -> ImportSettings {
        ImportSettings {
            fps: self.fps.map(Fps::get),
            axis: self.axis,
            rotation: self.rotation,
            animation: self.animation.clone(),
            original: self.original.clone(),
        }
    }

    /// These options with `original` as the original when none was given
    /// (`original` is called only then).
    pub fn or_original(mut self, original: impl FnOnce() -> Option<Original>) -> Options {
        if self.original.is_none() {
            self.original = original();
        }
        self
    }
}

/// `true` or `false`, as the option `what` takes them.
fn parse_bool(what: &str, s: &str) -> Result<bool, Error> {
    match s.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(Error::bad_option(format!(
            "{what} must be true or false, not {s:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_once() {
        assert_eq!("2".parse::<Lod>().unwrap().get(), 2);
        for bad in ["3", "-1", "abc", ""] {
            let e = bad.parse::<Lod>().unwrap_err();
            assert_eq!(e.code(), "option.invalid", "{bad}");
        }
        assert_eq!("4".parse::<Group>().unwrap().get(), 4);
        assert!("5".parse::<Group>().is_err());
        assert_eq!("12.5".parse::<Fps>().unwrap().get(), 12.5);
        for bad in ["0", "-3", "NaN", "inf", "1000.5", "x"] {
            assert!(bad.parse::<Fps>().is_err(), "{bad}");
        }
        assert!("1000".parse::<Fps>().is_ok());
    }

    #[test]
    fn every_option_has_one_row_and_its_values_are_the_types() {
        let names = [
            OptionName::Lod,
            OptionName::Group,
            OptionName::Fps,
            OptionName::Axis,
            OptionName::Rotation,
            OptionName::Animation,
            OptionName::Clips,
            OptionName::EmbedOriginal,
        ];
        assert_eq!(names.len(), OPTIONS.len());
        for name in names {
            assert_eq!(OPTIONS.iter().filter(|r| r.name == name).count(), 1);
            let row = name.spec();
            assert!(row.export || row.import, "{name:?}");
            assert!(!row.help.ends_with('.'), "clap shows no final period");
            let mut o = Options::default();
            if let Some(default) = row.default {
                o.set(name, default).unwrap();
            }
            match row.values {
                OptionValues::Integer { max } => {
                    o.set(name, &max.to_string()).unwrap();
                    let e = o.set(name, &(max + 1).to_string()).unwrap_err();
                    assert_eq!(e.code(), "option.invalid");
                }
                OptionValues::Number { max } => {
                    o.set(name, &max.to_string()).unwrap();
                    assert!(o.set(name, "0").is_err());
                    assert!(o.set(name, &(max * 2.0).to_string()).is_err());
                }
                OptionValues::OneOf(words) => {
                    for w in words {
                        o.set(name, w).unwrap();
                    }
                    assert!(o.set(name, "sideways").is_err());
                }
                OptionValues::Text => {}
            }
        }
        // Set from every default, the options are the defaults.
        let mut o = Options::default();
        for row in OPTIONS.iter().filter(|r| r.export) {
            if let Some(d) = row.default {
                o.set(row.name, d).unwrap();
            }
        }
        let names = crate::Names::same("m");
        assert_eq!(
            o.export_settings(&names),
            Options::default().export_settings(&names)
        );
    }

    #[test]
    fn set_by_name() {
        let mut o = Options::default();
        o.set(OptionName::Lod, "1").unwrap();
        o.set(OptionName::Fps, "30").unwrap();
        o.set(OptionName::Axis, "z-up").unwrap();
        o.set(OptionName::Rotation, "stored").unwrap();
        o.set(OptionName::Animation, "2").unwrap();
        assert_eq!(o.lod.get(), 1);
        assert_eq!(o.fps, Some(Fps(30.0)));
        assert_eq!(o.axis, Some(Axis::ZUp));
        assert_eq!(o.rotation, Some(Rotation::Stored));
        assert_eq!(o.animation, AnimationChoice::Index(2));
        o.set(OptionName::Clips, "idle=0..3:once").unwrap();
        assert_eq!(o.clips.as_ref().unwrap().to_spec(), "idle=0..3:once");
        o.set(
            OptionName::Clips,
            r#"{"clips": [{"name": "a", "first": 1, "last": 2}]}"#,
        )
        .unwrap();
        assert_eq!(o.clips.as_ref().unwrap().to_spec(), "a=1..2:loop");
        for bad in ["idle", "{", "a=2..1"] {
            assert_eq!(
                o.set(OptionName::Clips, bad).unwrap_err().code(),
                "clips.invalid"
            );
        }
        o.clips = None;
        o.set(OptionName::EmbedOriginal, "true").unwrap();
        assert!(o.export_settings(&crate::Names::same("m")).embed_original);
        assert_eq!(
            o.set(OptionName::EmbedOriginal, "yes").unwrap_err().code(),
            "option.invalid"
        );
        o.set(OptionName::Animation, "walk").unwrap();
        assert_eq!(o.animation, AnimationChoice::Name("walk".into()));
        assert_eq!(
            o.set(OptionName::Axis, "x-up").unwrap_err().code(),
            "option.invalid"
        );
        let export = o.export_settings(&crate::Names::same("tank"));
        assert_eq!(
            (export.lod, export.fps, export.name.as_str()),
            (1, 30.0, "tank")
        );
        assert_eq!(
            Options::default().export_settings(&crate::Names::same("model")),
            ExportSettings::default()
        );
        assert_eq!(
            o.import_settings().animation,
            AnimationChoice::Name("walk".into())
        );
    }
}
