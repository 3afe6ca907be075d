//! The formats: their names, file extensions and media types, which way each
//! converts, and how a format is told from a file name or from the bytes.

use crate::codes::ErrorCode;
use crate::error::Error;
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

impl Format {
    /// Every format, in the order help texts list them.
    pub const ALL: [Format; 5] = [
        Format::Msh,
        Format::Glb,
        Format::Gltf,
        Format::Obj,
        Format::Usda,
    ];

    /// The name in `--from`/`--to`, `from=`/`to=`, metrics labels, and the file extension.
    pub fn name(self) -> &'static str {
        match self {
            Format::Msh => "msh",
            Format::Glb => "glb",
            Format::Gltf => "gltf",
            Format::Obj => "obj",
            Format::Usda => "usda",
        }
    }

    /// The media type of a file in this format.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Msh => "application/octet-stream",
            Format::Glb => "model/gltf-binary",
            Format::Gltf => "model/gltf+json",
            Format::Obj => TEXT_PLAIN,
            Format::Usda => USDA,
        }
    }

    /// The format a file name's extension names (ASCII case-insensitively);
    /// `None` for any other extension, `.rlb` included (an archive is not a
    /// model: see [`is_archive_path`]).
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?;
        Format::ALL
            .into_iter()
            .find(|f| ext.eq_ignore_ascii_case(f.name()))
    }

    /// Tells a format from the first bytes: the NRes magic is MSH (a model or
    /// an `.rlb` archive), the `glTF` magic is GLB, a JSON object is glTF, text
    /// that starts `#usda` is USD text, other UTF-8 text without NUL bytes is
    /// OBJ. `None` for anything else.
    pub fn sniff(bytes: &[u8]) -> Option<Format> {
        if nres::is_nres(bytes) {
            return Some(Format::Msh);
        }
        if bytes.starts_with(b"glTF") {
            return Some(Format::Glb);
        }
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
            return Some(Format::Gltf);
        }
        if text.starts_with(b"#usda") {
            return Some(Format::Usda);
        }
        if !text.is_empty() && !text.contains(&0) && std::str::from_utf8(text).is_ok() {
            return Some(Format::Obj);
        }
        None
    }

    /// Whether a conversion from `self` to `to` exists: MSH to glTF, GLB, OBJ
    /// and USD text, and each of them but USD back to MSH.
    pub fn converts_to(self, to: Format) -> bool {
        (self == Format::Msh) != (to == Format::Msh) && self != Format::Usda
    }

    /// The refusal of a direction that does not exist.
    pub fn check_direction(self, to: Format) -> Result<(), Error> {
        if self.converts_to(to) {
            Ok(())
        } else {
            Err(Error::usage(
                ErrorCode::ConvertUnsupportedDirection,
                format!(
                    "converting {self} to {to} is not available; supported: msh -> glb/gltf/obj/usda, glb/gltf/obj -> msh"
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

/// A format name that is none of `msh`, `glb`, `gltf`, `obj`, `usda`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormatName(pub String);

impl fmt::Display for UnknownFormatName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a format: use msh, glb, gltf, obj or usda",
            self.0
        )
    }
}

impl std::error::Error for UnknownFormatName {}

impl FromStr for Format {
    type Err = UnknownFormatName;
    /// `msh`, `glb`, `gltf`, `obj` or `usda`, ASCII case-insensitively.
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
        (None, None) => Err(Error::unknown_format(match name {
            Some(p) => format!(
                "cannot tell the format of {}: it is not an MSH model or archive (NRes), a GLB, a glTF (JSON) or an OBJ (text); give --from if it is one",
                p.display()
            ),
            None => "the input is not an MSH model or archive (NRes), a GLB, a glTF (JSON) or an OBJ (text); give from= if it is one".to_string(),
        })),
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
