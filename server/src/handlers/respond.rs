//! Response shapes: a file with its notes and the input format in headers, and
//! JSON documents.

use crate::error::ApiError;
use axum::http::{header, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use mshconv_app::Format;
use mshconv_convert::Report;
use serde::Serialize;

/// Header with the conversion's report notes as a JSON array of
/// `{"code", "message"}` (non-ASCII characters escaped as `\uXXXX`).
pub const NOTES_HEADER: &str = "x-mshconv-notes";
/// Header with the number of notes the conversion made (all of them, also when
/// [`NOTES_HEADER`] had to leave some out).
pub const NOTES_COUNT_HEADER: &str = "x-mshconv-notes-count";
/// Header naming the input format the conversion read (sniffed or `from=`).
pub const FROM_HEADER: &str = "x-mshconv-from";
/// Most bytes [`NOTES_HEADER`] carries: notes are left out from the end until
/// the JSON fits (the count header still says how many there were).
pub const MAX_NOTES_HEADER: usize = 8 * 1024;

/// The notes as header-safe JSON (ASCII only), at most [`MAX_NOTES_HEADER`]
/// bytes: the first notes that fit, in order.
pub fn notes_header(report: &Report) -> String {
    let mut json = String::from("[");
    for note in &report.notes {
        let Ok(one) = serde_json::to_string(note) else {
            continue;
        };
        let one = ascii_json(&one);
        // `,` or nothing before it, `]` after it.
        if json.len() + one.len() + 2 > MAX_NOTES_HEADER {
            break;
        }
        if json.len() > 1 {
            json.push(',');
        }
        json.push_str(&one);
    }
    json.push(']');
    json
}

/// JSON with every non-ASCII character written as `\uXXXX` (valid JSON: such
/// characters only occur inside strings).
fn ascii_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

fn attachment(file_name: &str) -> HeaderValue {
    // file_name is made safe (mshconv_app::names::safe_stem): ASCII letters, digits, '.', '-', '_'.
    HeaderValue::from_str(&format!("attachment; filename=\"{file_name}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"))
}

/// A file download: its media type, its name, the conversion's notes and the
/// input format it was read as.
pub fn file(
    body: Vec<u8>,
    content_type: &'static str,
    file_name: &str,
    report: Option<&Report>,
    from: Option<Format>,
) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_DISPOSITION, attachment(file_name));
    if let Some(report) = report {
        if let Ok(v) = HeaderValue::from_str(&notes_header(report)) {
            headers.insert(HeaderName::from_static(NOTES_HEADER), v);
        }
        headers.insert(
            HeaderName::from_static(NOTES_COUNT_HEADER),
            HeaderValue::from(report.notes.len()),
        );
    }
    if let Some(from) = from {
        headers.insert(
            HeaderName::from_static(FROM_HEADER),
            HeaderValue::from_static(from.name()),
        );
    }
    response
}

/// A JSON document, pretty-printed, with a final newline.
pub fn json<T: Serialize>(value: &T) -> Result<Response, ApiError> {
    Ok(json_response(json_bytes(value)?))
}

/// A JSON document's bytes, pretty-printed, with a final newline.
pub fn json_bytes<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, ApiError> {
    let mut body = serde_json::to_vec_pretty(value)
        .map_err(|e| ApiError::internal(format!("JSON serialisation failed: {e}")))?;
    body.push(b'\n');
    Ok(body)
}

/// The answer of a JSON document's bytes ([`json_bytes`]).
pub fn json_response(body: Vec<u8>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(mshconv_app::JSON),
        )],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_header_is_ascii_json_and_bounded() {
        let mut report = Report::default();
        report.note("a.b", "caf\u{e9} \u{1F600} \"quoted\"");
        let h = notes_header(&report);
        assert!(h.is_ascii());
        let v: serde_json::Value = serde_json::from_str(&h).unwrap();
        assert_eq!(v[0]["message"], "caf\u{e9} \u{1F600} \"quoted\"");
        for i in 0..2000 {
            report.note("x.y", format!("note {i}"));
        }
        let h = notes_header(&report);
        assert!(h.len() <= MAX_NOTES_HEADER);
        let v: serde_json::Value = serde_json::from_str(&h).unwrap();
        assert!(v.as_array().unwrap().len() < report.notes.len());
        assert!(HeaderValue::from_str(&h).is_ok());
    }
}
