//! Reading the hand-editable JSON files field by field, so that a damaged
//! one gives an error naming the file, the record and the field
//! (`textures.bad_index`, `materials.bad_file`), never a panic.

use crate::codes::ErrorCode;
use crate::error::Error;
use serde_json::{Map, Value};
use std::path::Path;

/// The file being read and the code of its errors.
#[derive(Clone, Copy)]
pub(super) struct Source<'a> {
    pub file: &'a Path,
    pub code: ErrorCode,
}

impl<'a> Source<'a> {
    /// An error about the whole file.
    pub fn error(self, message: impl std::fmt::Display) -> Error {
        Error::invalid(self.code, format!("{}: {message}", self.file.display()))
    }

    /// The file's top level: a JSON object whose `list` field is an array
    /// of objects.
    pub fn records(self, text: &[u8], list: &str) -> Result<Vec<Record<'a>>, Error> {
        let value: Value = serde_json::from_slice(text)
            .map_err(|e| self.error(format_args!("not valid JSON: {e}")))?;
        let Some(items) = value.get(list).and_then(Value::as_array) else {
            return Err(self.error(format_args!("no {list:?} array at the top level")));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let label = item
                    .get("entry")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("record {i}"), |n| format!("{n:?}"));
                match item {
                    Value::Object(map) => Ok(Record {
                        source: self,
                        label,
                        map: map.clone(),
                    }),
                    _ => Err(self.error(format_args!("{list}[{i}] is not an object"))),
                }
            })
            .collect()
    }
}

/// One record (a texture, a material) of a file.
pub(super) struct Record<'a> {
    source: Source<'a>,
    /// `"TANK_BODY"` (its entry name) or `record 3`.
    pub label: String,
    map: Map<String, Value>,
}

impl Record<'_> {
    /// An error naming the file, the record and `field`.
    pub fn error(&self, field: &str, message: impl std::fmt::Display) -> Error {
        self.error_with(self.source.code, field, message)
    }

    /// An error of `code` naming the file, the record and `field`.
    pub fn error_with(
        &self,
        code: ErrorCode,
        field: &str,
        message: impl std::fmt::Display,
    ) -> Error {
        Source {
            code,
            ..self.source
        }
        .error(format_args!("{}: field {field:?}: {message}", self.label))
    }

    /// The field's value, if present (`null` counts as absent).
    pub fn get(&self, field: &str) -> Option<&Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    /// A required field.
    pub fn value(&self, field: &str) -> Result<&Value, Error> {
        self.get(field).ok_or_else(|| self.error(field, "missing"))
    }

    /// A required string.
    pub fn str(&self, field: &str) -> Result<&str, Error> {
        self.value(field)?
            .as_str()
            .ok_or_else(|| self.error(field, "not a string"))
    }

    /// A required whole number within `u32`.
    pub fn u32(&self, field: &str) -> Result<u32, Error> {
        number(self.value(field)?, u64::from(u32::MAX))
            .map(|n| n as u32)
            .ok_or_else(|| self.error(field, "not a whole number from 0 to 4294967295"))
    }

    /// An optional whole number of at most `max`.
    pub fn opt_number(&self, field: &str, max: u64) -> Result<Option<u64>, Error> {
        self.get(field)
            .map(|v| {
                number(v, max)
                    .ok_or_else(|| self.error(field, format!("not a whole number from 0 to {max}")))
            })
            .transpose()
    }

    /// A required array.
    pub fn array(&self, field: &str) -> Result<&Vec<Value>, Error> {
        self.value(field)?
            .as_array()
            .ok_or_else(|| self.error(field, "not an array"))
    }

    /// A required array of exactly `N` whole numbers of at most `max` each.
    pub fn numbers<const N: usize>(&self, field: &str, max: u64) -> Result<[u64; N], Error> {
        numbers(self.value(field)?, max).ok_or_else(|| {
            self.error(
                field,
                format!("not an array of {N} whole numbers from 0 to {max}"),
            )
        })
    }
}

/// A JSON whole number from 0 to `max`.
pub(super) fn number(value: &Value, max: u64) -> Option<u64> {
    value.as_u64().filter(|&n| n <= max)
}

/// A JSON array of exactly `N` whole numbers from 0 to `max`.
pub(super) fn numbers<const N: usize>(value: &Value, max: u64) -> Option<[u64; N]> {
    let items = value.as_array()?;
    if items.len() != N {
        return None;
    }
    let mut out = [0; N];
    for (slot, v) in out.iter_mut().zip(items) {
        *slot = number(v, max)?;
    }
    Some(out)
}

/// `value` as pretty JSON with each array of plain values (numbers,
/// strings) on one line (`"attributes": [0, 0, 0]`), and a final newline.
pub(super) fn pretty(value: &impl serde::Serialize) -> Result<Vec<u8>, Error> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::internal(format!("writing JSON: {e}")))?;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.ends_with('[') {
            // The items up to the matching `]`, when each is one plain value.
            let close = lines[i + 1..]
                .iter()
                .position(|l| matches!(l.trim(), "]" | "],"))
                .map(|k| i + 1 + k);
            if let Some(close) = close {
                let items = &lines[i + 1..close];
                let plain = items.iter().all(|l| {
                    !l.ends_with('[')
                        && !l.ends_with('{')
                        && !l.trim().starts_with(['[', '{', ']', '}'])
                });
                if plain {
                    out.push_str(line);
                    out.push_str(&items.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "));
                    out.push_str(lines[close].trim());
                    out.push('\n');
                    i = close + 1;
                    continue;
                }
            }
        }
        out.push_str(line);
        out.push('\n');
        i += 1;
    }
    Ok(out.into_bytes())
}

/// Bytes as lowercase hexadecimal.
pub(super) fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hexadecimal back to bytes (`None` on an odd length or a non-hex digit).
pub(super) fn from_hex(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks_exact(2)
        .map(|pair| {
            let digit = |c: u8| char::from(c).to_digit(16);
            Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_arrays_go_on_one_line_and_read_back() {
        let value =
            serde_json::json!({"a": [1, 2, 3], "b": [[1, 2], [3]], "c": [], "d": ["]", "x"]});
        let text = pretty(&value).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("\"a\": [1, 2, 3]"), "{text}");
        assert!(text.contains("[1, 2]"), "{text}");
        assert!(text.contains("\"d\": [\"]\", \"x\"]"), "{text}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }

    #[test]
    fn hex_round_trips_and_refuses_garbage() {
        assert_eq!(to_hex(&[0, 0xab, 0x7f]), "00ab7f");
        assert_eq!(from_hex("00ab7f"), Some(vec![0, 0xab, 0x7f]));
        assert_eq!(from_hex("0"), None);
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex("+1"), None);
    }

    #[test]
    fn a_damaged_field_names_file_record_and_field() {
        let source = Source {
            file: Path::new("t/textures.json"),
            code: ErrorCode::TexturesBadIndex,
        };
        let records = source
            .records(
                br#"{"textures":[{"entry":"ROCK","flags4":-1}]}"#,
                "textures",
            )
            .unwrap();
        let e = records[0].u32("flags4").unwrap_err();
        assert_eq!(e.code(), "textures.bad_index");
        assert!(e.message().contains("t/textures.json"), "{}", e.message());
        assert!(e.message().contains("\"ROCK\""), "{}", e.message());
        assert!(e.message().contains("\"flags4\""), "{}", e.message());
        assert!(source.records(b"{", "textures").is_err());
        assert!(source.records(b"{\"textures\":[1]}", "textures").is_err());
    }
}
