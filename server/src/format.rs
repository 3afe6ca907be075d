//! Model formats: their names, media types, and how an upload's format is
//! told from its first bytes.

use crate::error::ApiError;

/// A format the service reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// A `.msh` model (an NRes container); as input, an `.rlb` archive too.
    Msh,
    /// Binary glTF.
    Glb,
    /// Text glTF (buffers as `data:` URIs).
    Gltf,
    /// Wavefront OBJ.
    Obj,
}

impl Format {
    /// The name in `from=`/`to=`, metrics and file extensions.
    pub fn name(self) -> &'static str {
        match self {
            Format::Msh => "msh",
            Format::Glb => "glb",
            Format::Gltf => "gltf",
            Format::Obj => "obj",
        }
    }

    /// The media type of a response in this format.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Msh => "application/octet-stream",
            Format::Glb => "model/gltf-binary",
            Format::Gltf => "model/gltf+json",
            Format::Obj => TEXT_PLAIN,
        }
    }

    /// Parses a `from=`/`to=` value (ASCII case-insensitively).
    pub fn parse(text: &str) -> Option<Format> {
        Some(match text.to_ascii_lowercase().as_str() {
            "msh" => Format::Msh,
            "glb" => Format::Glb,
            "gltf" => Format::Gltf,
            "obj" => Format::Obj,
            _ => return None,
        })
    }

    /// Parses a `from=`/`to=` query value, or a 400 naming the parameter.
    pub fn from_query(param: &str, text: &str) -> Result<Format, ApiError> {
        Format::parse(text).ok_or_else(|| {
            ApiError::bad_request(
                "request.bad_format",
                format!("{param}={text:?} is not a format: use msh, glb, gltf or obj"),
            )
        })
    }
}

/// Media type of OBJ and MTL text.
pub const TEXT_PLAIN: &str = "text/plain; charset=utf-8";
/// Media type of a zip.
pub const ZIP: &str = "application/zip";
/// Media type of JSON documents.
pub const JSON: &str = "application/json";

/// Tells an upload's format from its bytes: the NRes magic is MSH (a model or
/// an `.rlb` archive), the `glTF` magic is GLB, a JSON object is glTF, other
/// UTF-8 text without NUL bytes is OBJ. `None` for anything else.
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
    if !text.is_empty() && !text.contains(&0) && std::str::from_utf8(text).is_ok() {
        return Some(Format::Obj);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing() {
        assert_eq!(sniff(b"NRes\x00\x01\x00\x00"), Some(Format::Msh));
        assert_eq!(sniff(b"glTF\x02\x00\x00\x00"), Some(Format::Glb));
        assert_eq!(sniff(b"  \n{\"asset\":{}}"), Some(Format::Gltf));
        assert_eq!(sniff(b"\xEF\xBB\xBF{}"), Some(Format::Gltf));
        assert_eq!(sniff(b"o cube\nv 0 0 0\n"), Some(Format::Obj));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\x00\x00"), None);
        assert_eq!(sniff(b"\xff\xfe\xfd"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn names_round_trip() {
        for f in [Format::Msh, Format::Glb, Format::Gltf, Format::Obj] {
            assert_eq!(Format::parse(f.name()), Some(f));
            assert_eq!(Format::parse(&f.name().to_uppercase()), Some(f));
        }
        assert_eq!(Format::parse("fbx"), None);
        assert_eq!(
            Format::from_query("to", "fbx").unwrap_err().status,
            axum::http::StatusCode::BAD_REQUEST
        );
    }
}
