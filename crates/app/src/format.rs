//! The formats: one table, [`FORMATS`], says per format its name, file
//! extensions, media type, how it is sniffed, which way it converts, whether
//! it takes or brings the game's look, its side files and when the service
//! answers a zip. Everything that lists formats (the CLI's `--from`/`--to`
//! and help texts, `batch`, the service's `to=`/`from=`/`part=`, its look
//! fields and zips, openapi.json, the web page, README.md) reads the table or
//! is tested against it. Adding a format: a variant of [`Format`] and one row.

use crate::codes::ErrorCode;
use crate::error::Error;
use mshconv_convert::plugin::{ExportFormat, ImportFormat};
use mshconv_gltf::GltfFormat;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// A model format the tools read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// A `.msh` model (an NRes container); as input, an `.rlb` archive's entry too.
    Msh,
    /// Binary glTF (`.glb`).
    Glb,
    /// Text glTF (`.gltf`; its buffer embedded as a `data:` URI when written).
    Gltf,
    /// Wavefront OBJ (`.obj`, with its `.mtl`).
    Obj,
    /// USD text (`.usda`): written only, from MSH (docs/USD.md).
    Usda,
}

/// Media type of OBJ and MTL text.
pub const TEXT_PLAIN: &str = "text/plain; charset=utf-8";
/// Media type of USD text (`model/vnd.usda`, registered with IANA).
pub const USDA: &str = "model/vnd.usda";
/// Media type of a zip.
pub const ZIP: &str = "application/zip";
/// Media type of JSON documents.
pub const JSON: &str = "application/json";

/// How a format is told from the first bytes ([`Format::sniff`]).
#[derive(Debug, Clone, Copy)]
pub enum Sniff {
    /// A binary signature: the bytes are this format when the function says
    /// so. Tried in the table's order, with the text signatures.
    Magic(fn(&[u8]) -> bool),
    /// A text signature: the text (after a UTF-8 byte order mark) is this
    /// format when the function says so.
    Text(fn(&[u8]) -> bool),
    /// Any other UTF-8 text without NUL bytes (tried after every signature).
    OtherText,
}

/// When the service answers a conversion to a format as a zip of its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZipRule {
    /// Never: the answer is the main file (MSH's clip list is left out).
    Never,
    /// Always (OBJ: the `.obj` and its `.mtl`), unless `part=` asks for one file.
    Always,
    /// When the output has side files (a `.gltf`'s or `.usda`'s PNG textures).
    WithSideFiles,
}

/// One row of [`FORMATS`]: what the tools know of a format.
#[derive(Debug, Clone, Copy)]
pub struct FormatSpec {
    /// The variant.
    pub format: Format,
    /// The name in `--from`/`--to`, `from=`/`to=`, metrics labels; the file extension.
    pub name: &'static str,
    /// Every file extension that names the format (without the dot, lower case).
    pub extensions: &'static [&'static str],
    /// The media type of a file in this format.
    pub media_type: &'static str,
    /// How the format is told from the bytes; `None`: never sniffed.
    pub sniff: Option<Sniff>,
    /// What the sniffing calls the format in the refusal of an input that is
    /// none of the readable formats ("a GLB").
    pub sniffed_as: &'static str,
    /// Its export from an MSH model (its crate's plug-in, the core's
    /// [`ExportFormat`]); `None`: MSH does not convert to it (MSH itself).
    pub exporter: Option<&'static dyn ExportFormat>,
    /// Its import to an MSH model ([`ImportFormat`]); `None`: it does not
    /// convert to MSH.
    pub importer: Option<&'static dyn ImportFormat>,
    /// An MSH model's export to it takes the game's look (`--game-dir`,
    /// the service's `wear`/`materials`/`textures`).
    pub takes_look: bool,
    /// Its import to MSH brings a look back into the game's libraries.
    pub brings_look: bool,
    /// The files of an output, main file first, as `part=` names them; empty
    /// when the output is one file (or the others are PNG textures).
    pub parts: &'static [&'static str],
    /// The side files an output may have, for the help texts.
    pub side_files: &'static str,
    /// When the service answers a zip.
    pub zip: ZipRule,
}

impl FormatSpec {
    /// Whether an MSH model converts to it.
    pub fn exported(&self) -> bool {
        self.exporter.is_some()
    }
    /// Whether it converts to an MSH model.
    pub fn imported(&self) -> bool {
        self.importer.is_some()
    }
}

/// Every format, in the order help texts list them.
pub const FORMATS: [FormatSpec; 5] = [
    FormatSpec {
        format: Format::Msh,
        name: "msh",
        extensions: &["msh"],
        media_type: "application/octet-stream",
        sniff: Some(Sniff::Magic(nres::is_nres)),
        sniffed_as: "an MSH model or archive (NRes)",
        exporter: None,
        importer: None,
        takes_look: false,
        brings_look: false,
        parts: &[],
        side_files: "NAME.clips.json (the clips a glTF had)",
        zip: ZipRule::Never,
    },
    FormatSpec {
        format: Format::Glb,
        name: "glb",
        extensions: &["glb"],
        media_type: "model/gltf-binary",
        sniff: Some(Sniff::Magic(|b| b.starts_with(b"glTF"))),
        sniffed_as: "a GLB",
        exporter: Some(&mshconv_gltf::Plugin(GltfFormat::Glb)),
        importer: Some(&mshconv_gltf::Plugin(GltfFormat::Glb)),
        takes_look: true,
        brings_look: true,
        parts: &[],
        side_files: "",
        zip: ZipRule::Never,
    },
    FormatSpec {
        format: Format::Gltf,
        name: "gltf",
        extensions: &["gltf"],
        media_type: "model/gltf+json",
        sniff: Some(Sniff::Text(|text| {
            text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        })),
        sniffed_as: "a glTF (JSON)",
        exporter: Some(&mshconv_gltf::Plugin(GltfFormat::Gltf)),
        importer: Some(&mshconv_gltf::Plugin(GltfFormat::Gltf)),
        takes_look: true,
        brings_look: true,
        parts: &[],
        side_files: "PNG textures (with --game-dir)",
        zip: ZipRule::WithSideFiles,
    },
    FormatSpec {
        format: Format::Obj,
        name: "obj",
        extensions: &["obj"],
        media_type: TEXT_PLAIN,
        sniff: Some(Sniff::OtherText),
        sniffed_as: "an OBJ (text)",
        exporter: Some(&mshconv_obj::Plugin),
        importer: Some(&mshconv_obj::Plugin),
        takes_look: true,
        brings_look: true,
        parts: &["obj", "mtl"],
        side_files: "NAME.mtl, PNG textures (with --game-dir)",
        zip: ZipRule::Always,
    },
    FormatSpec {
        format: Format::Usda,
        name: "usda",
        extensions: &["usda"],
        media_type: USDA,
        sniff: Some(Sniff::Text(|text| text.starts_with(b"#usda"))),
        sniffed_as: "USD text",
        exporter: Some(&mshconv_usd::Plugin),
        importer: None,
        takes_look: true,
        brings_look: false,
        parts: &[],
        side_files: "PNG textures (with --game-dir)",
        zip: ZipRule::WithSideFiles,
    },
];

/// `a, b or c`: a list of words as a sentence names them.
pub fn or_list(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

impl Format {
    /// Every format, in the order help texts list them.
    pub const ALL: [Format; FORMATS.len()] = {
        let mut all = [Format::Msh; FORMATS.len()];
        let mut i = 0;
        while i < FORMATS.len() {
            all[i] = FORMATS[i].format;
            i += 1;
        }
        all
    };

    /// This format's row of [`FORMATS`].
    pub fn spec(self) -> &'static FormatSpec {
        FORMATS
            .iter()
            .find(|row| row.format == self)
            .expect("every format has its row (a test checks)")
    }

    /// The name in `--from`/`--to`, `from=`/`to=`, metrics labels, and the file extension.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The media type of a file in this format.
    pub fn media_type(self) -> &'static str {
        self.spec().media_type
    }

    /// The formats an MSH model converts to, in the table's order.
    pub fn exports() -> impl Iterator<Item = Format> {
        FORMATS.iter().filter(|r| r.exported()).map(|r| r.format)
    }

    /// The formats that convert to an MSH model, in the table's order.
    pub fn imports() -> impl Iterator<Item = Format> {
        FORMATS.iter().filter(|r| r.imported()).map(|r| r.format)
    }

    /// The formats an input can be: MSH and every import.
    pub fn readable() -> impl Iterator<Item = Format> {
        std::iter::once(Format::Msh).chain(Format::imports())
    }

    /// Every direction, as help texts and refusals spell them:
    /// `msh -> glb/gltf/obj/usda, glb/gltf/obj -> msh`.
    pub fn directions() -> String {
        let names = |it: &mut dyn Iterator<Item = Format>| it.map(Format::name).collect::<Vec<_>>();
        format!(
            "msh -> {}, {} -> msh",
            names(&mut Format::exports()).join("/"),
            names(&mut Format::imports()).join("/")
        )
    }

    /// The names as a sentence lists them: `msh, glb, gltf, obj or usda`.
    pub fn names_text(formats: impl Iterator<Item = Format>) -> String {
        or_list(&formats.map(Format::name).collect::<Vec<_>>())
    }

    /// The format a file name's extension names (ASCII case-insensitively);
    /// `None` for any other extension, `.rlb` included (an archive is not a
    /// model: see [`is_archive_path`]).
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?;
        FORMATS
            .iter()
            .find(|row| row.extensions.iter().any(|e| ext.eq_ignore_ascii_case(e)))
            .map(|row| row.format)
    }

    /// Tells a format from the first bytes, by the table's [`Sniff`]s: the
    /// NRes magic is MSH (a model or an `.rlb` archive), the `glTF` magic is
    /// GLB, a JSON object is glTF, text that starts `#usda` is USD text, other
    /// UTF-8 text without NUL bytes is OBJ. `None` for anything else.
    pub fn sniff(bytes: &[u8]) -> Option<Format> {
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let signature = FORMATS.iter().find(|row| match row.sniff {
            Some(Sniff::Magic(f)) => f(bytes),
            Some(Sniff::Text(f)) => f(text),
            _ => false,
        });
        if let Some(row) = signature {
            return Some(row.format);
        }
        let is_text = !text.is_empty() && !text.contains(&0) && std::str::from_utf8(text).is_ok();
        FORMATS
            .iter()
            .find(|row| is_text && matches!(row.sniff, Some(Sniff::OtherText)))
            .map(|row| row.format)
    }

    /// Whether a conversion from `self` to `to` exists: MSH to every export,
    /// every import back to MSH.
    pub fn converts_to(self, to: Format) -> bool {
        (self == Format::Msh && to.spec().exported())
            || (to == Format::Msh && self.spec().imported())
    }

    /// Whether a conversion takes the game's look: an MSH model's export to
    /// a format that writes materials and textures.
    pub fn takes_look(self, to: Format) -> bool {
        self == Format::Msh && to.spec().takes_look
    }

    /// The refusal of a direction that does not exist.
    pub fn check_direction(self, to: Format) -> Result<(), Error> {
        if self.converts_to(to) {
            Ok(())
        } else {
            Err(Error::usage(
                ErrorCode::ConvertUnsupportedDirection,
                format!(
                    "converting {self} to {to} is not available; supported: {}",
                    Format::directions()
                ),
            ))
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is none of [`FORMATS`]'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormatName(pub String);

impl fmt::Display for UnknownFormatName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a format: use {}",
            self.0,
            Format::names_text(Format::ALL.into_iter())
        )
    }
}

impl std::error::Error for UnknownFormatName {}

impl FromStr for Format {
    type Err = UnknownFormatName;
    /// A name of [`FORMATS`] (`msh`, `glb`, ...), ASCII case-insensitively.
    fn from_str(s: &str) -> Result<Format, UnknownFormatName> {
        Format::ALL
            .into_iter()
            .find(|f| s.eq_ignore_ascii_case(f.name()))
            .ok_or_else(|| UnknownFormatName(s.to_string()))
    }
}

/// Whether a path names an NRes archive of models by its extension (`.rlb`).
pub fn is_archive_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("rlb"))
}

/// The input format of a conversion: the one given, else the bytes' (sniffed),
/// else the file name's. When the name says one format and the bytes another
/// (a `.glb` renamed `.msh`), the bytes win and the returned note says so.
pub fn input_format(
    given: Option<Format>,
    name: Option<&Path>,
    bytes: &[u8],
) -> Result<(Format, Option<String>), Error> {
    if let Some(f) = given {
        return Ok((f, None));
    }
    let by_name = name.and_then(Format::from_path);
    match (Format::sniff(bytes), by_name) {
        (Some(sniffed), Some(named)) if sniffed != named => {
            // Text that is not JSON sniffs as OBJ: only a binary or JSON
            // signature overrules the name.
            if sniffed == Format::Obj {
                return Ok((named, None));
            }
            let shown = name.map_or(String::new(), |p| p.display().to_string());
            Ok((
                sniffed,
                Some(format!(
                    "{shown} is named as {named} but its bytes are {sniffed}: read as {sniffed}"
                )),
            ))
        }
        (Some(sniffed), _) => Ok((sniffed, None)),
        (None, Some(named)) => Ok((named, None)),
        (None, None) => {
            let kinds = or_list(
                &Format::readable()
                    .map(|f| f.spec().sniffed_as)
                    .collect::<Vec<_>>(),
            );
            Err(Error::unknown_format(match name {
                Some(p) => format!(
                    "cannot tell the format of {}: it is not {kinds}; give --from if it is one",
                    p.display()
                ),
                None => format!("the input is not {kinds}; give from= if it is one"),
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing() {
        assert_eq!(Format::sniff(b"NRes\x00\x01\x00\x00"), Some(Format::Msh));
        assert_eq!(Format::sniff(b"glTF\x02\x00\x00\x00"), Some(Format::Glb));
        assert_eq!(Format::sniff(b"  \n{\"asset\":{}}"), Some(Format::Gltf));
        assert_eq!(Format::sniff(b"\xEF\xBB\xBF{}"), Some(Format::Gltf));
        assert_eq!(Format::sniff(b"o cube\nv 0 0 0\n"), Some(Format::Obj));
        assert_eq!(Format::sniff(b"#usda 1.0\n(\n)\n"), Some(Format::Usda));
        assert_eq!(Format::sniff(b"\x89PNG\r\n\x1a\n\x00\x00"), None);
        assert_eq!(Format::sniff(b"\xff\xfe\xfd"), None);
        assert_eq!(Format::sniff(b""), None);
    }

    #[test]
    fn names_and_extensions() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
            assert_eq!(f.name().to_uppercase().parse::<Format>(), Ok(f));
            let file = format!("a/b.{}", f.name().to_uppercase());
            assert_eq!(Format::from_path(Path::new(&file)), Some(f));
        }
        assert!("fbx".parse::<Format>().is_err());
        assert_eq!(Format::from_path(Path::new("x.rlb")), None);
        assert!(is_archive_path(Path::new("x.RLB")));
    }

    #[test]
    fn every_format_has_one_row() {
        for (i, f) in Format::ALL.into_iter().enumerate() {
            assert_eq!(FORMATS.iter().filter(|r| r.format == f).count(), 1, "{f:?}");
            assert_eq!(FORMATS[i].format, f);
            assert_eq!(f.spec().name, f.name());
            assert!(f.spec().extensions.contains(&f.name()));
            assert!(!f.spec().brings_look || f.spec().imported(), "{f}");
            assert!(!f.spec().takes_look || f.spec().exported(), "{f}");
        }
        assert_eq!(
            Format::directions(),
            "msh -> glb/gltf/obj/usda, glb/gltf/obj -> msh"
        );
        assert_eq!(or_list(&["obj", "mtl"]), "obj or mtl");
        assert_eq!(or_list(&["obj"]), "obj");
        assert_eq!(
            Format::names_text(Format::ALL.into_iter()),
            "msh, glb, gltf, obj or usda"
        );
        assert_eq!(
            UnknownFormatName("fbx".into()).to_string(),
            "\"fbx\" is not a format: use msh, glb, gltf, obj or usda"
        );
        let e = input_format(None, None, b"\xff").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the input is not an MSH model or archive (NRes), a GLB, a glTF (JSON) or an OBJ (text); give from= if it is one"
        );
        assert_eq!(
            Format::Usda.check_direction(Format::Msh).unwrap_err().to_string(),
            "converting usda to msh is not available; supported: msh -> glb/gltf/obj/usda, glb/gltf/obj -> msh"
        );
    }

    #[test]
    fn directions() {
        for from in Format::ALL {
            for to in Format::ALL {
                let expected =
                    ((from == Format::Msh) ^ (to == Format::Msh)) && from != Format::Usda;
                assert_eq!(from.converts_to(to), expected, "{from} -> {to}");
                assert_eq!(from.check_direction(to).is_ok(), expected);
            }
        }
    }

    #[test]
    fn the_bytes_win_over_the_name() {
        let glb = b"glTF\x02\x00\x00\x00";
        let (f, note) = input_format(None, Some(Path::new("x.msh")), glb).unwrap();
        assert_eq!(f, Format::Glb);
        assert!(note.unwrap().contains("named as msh"));
        // USD text is recognised, so converting it is refused as a direction.
        let (f, _) = input_format(None, Some(Path::new("x.usda")), b"#usda 1.0\n").unwrap();
        assert_eq!(f, Format::Usda);
        let e = f.check_direction(Format::Msh).unwrap_err();
        assert_eq!(e.code(), "convert.unsupported_direction");
        let (f, note) = input_format(None, Some(Path::new("x.obj")), b"v 0 0 0\n").unwrap();
        assert_eq!((f, note), (Format::Obj, None));
        // A text that is not JSON keeps the name's format (the reader reports what is wrong).
        let (f, _) = input_format(None, Some(Path::new("x.gltf")), b"garbage").unwrap();
        assert_eq!(f, Format::Gltf);
        let (f, _) = input_format(None, Some(Path::new("x.glb")), b"\xff\xfe").unwrap();
        assert_eq!(f, Format::Glb);
        let e = input_format(None, Some(Path::new("x.bin")), b"\xff\xfe").unwrap_err();
        assert_eq!(e.code(), "input.unknown_format");
        let (f, _) = input_format(Some(Format::Obj), Some(Path::new("x.msh")), glb).unwrap();
        assert_eq!(f, Format::Obj);
    }
}
