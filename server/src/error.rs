//! The one error type of the service: every failure is an [`ApiError`], which
//! is a response (`application/problem+json`, RFC 9457).
//!
//! The body carries the library's stable `code`, the request id as
//! `instance`, and, where known, the location of the damage (`resource`,
//! `record`, `offset`, `path`, and the validator's `findings`). A 500 never
//! says more than "internal error": its cause is logged with the request id.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::codes::ServerCode;
use mshconv_app::CodeName;

/// The problem document's media type.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Most findings a problem document lists (the first ones; `findings_total`
/// says how many there were).
pub const MAX_FINDINGS: usize = 50;

/// A failed request (boxed: errors travel in `Result`s and stay small there).
/// Its fields are those of [`Problem`], reached through `Deref`.
#[derive(Debug, Clone)]
pub struct ApiError(Box<Problem>);

/// What an [`ApiError`] holds: status, stable code, message, and where the damage is.
#[derive(Debug, Clone)]
pub struct Problem {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable machine-readable code: the library's (`batch.index_range`,
    /// `gltf.uri_refused`) or the service's own (`request.*`, `server.*`).
    pub code: String,
    /// What went wrong and what to do, for the client.
    pub detail: String,
    /// Resource type the damage is in, if known.
    pub resource: Option<u32>,
    /// Record index in that resource, if known.
    pub record: Option<u64>,
    /// Byte offset in the model (for an archive entry: in its payload), if known.
    pub offset: Option<u64>,
    /// A path such as `Res13[0].index_start`, if known.
    pub path: Option<String>,
    /// The validator's error findings (at most [`MAX_FINDINGS`]).
    pub findings: Vec<msh::Finding>,
    /// How many error findings there were in all.
    pub findings_total: usize,
    /// Seconds after which a retry may succeed (`Retry-After`).
    pub retry_after: Option<u64>,
    /// The cause of a 500, for the log only; never sent.
    pub internal: Option<String>,
    /// For a failed conversion: the `outcome` label it is counted under in
    /// the metrics (`invalid_input`, `unsupported`, ...).
    pub(crate) outcome: Option<&'static str>,
}

/// The JSON body.
#[derive(Debug, Serialize)]
struct ProblemDoc<'a> {
    #[serde(rename = "type")]
    kind: String,
    title: &'a str,
    status: u16,
    detail: &'a str,
    code: &'a str,
    instance: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    findings: &'a [msh::Finding],
    #[serde(skip_serializing_if = "is_zero")]
    findings_total: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl ApiError {
    /// An error with a status, a code and a message.
    pub fn new(status: StatusCode, code: impl CodeName, detail: impl Into<String>) -> Self {
        Self::with_code_text(status, code.code().to_string(), detail)
    }

    /// An error with a code a library error carries.
    fn with_code_text(status: StatusCode, code: String, detail: impl Into<String>) -> Self {
        ApiError(Box::new(Problem {
            status,
            code,
            detail: detail.into(),
            resource: None,
            record: None,
            offset: None,
            path: None,
            findings: Vec::new(),
            findings_total: 0,
            retry_after: None,
            internal: None,
            outcome: None,
        }))
    }

    /// The problem, unboxed.
    pub fn into_problem(self) -> Problem {
        *self.0
    }

    /// 400: the request itself is malformed (query, multipart, options).
    pub fn bad_request(code: impl CodeName, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, detail)
    }

    /// 422: the input is not a valid model (or holds what the target cannot).
    pub fn unprocessable(code: impl CodeName, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, detail)
    }

    /// 413: the body is over the limit.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ServerCode::RequestTooLarge,
            format!("the request body is over the limit of {limit} bytes (--max-body)"),
        )
    }

    /// 415: the input's format is not one the service reads.
    pub fn unknown_format(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            mshconv_app::ErrorCode::InputUnknownFormat,
            detail,
        )
    }

    /// 503: every job slot is busy.
    pub fn busy(max_jobs: usize) -> Self {
        let mut e = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerCode::ServerBusy,
            format!("all {max_jobs} conversion slots are busy; retry shortly"),
        );
        e.retry_after = Some(1);
        e
    }

    /// 503: the work did not finish within the request's time limit.
    pub fn timeout(limit: std::time::Duration) -> Self {
        let mut e = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerCode::ServerTimeout,
            format!(
                "the work did not finish within the time limit of {} s (--timeout)",
                limit.as_secs_f64()
            ),
        );
        e.retry_after = Some(1);
        e
    }

    /// 408: the body did not arrive within the request's time limit.
    pub fn body_timeout(limit: std::time::Duration) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            ServerCode::RequestTimeout,
            format!(
                "the request body did not arrive within the time limit of {} s (--timeout)",
                limit.as_secs_f64()
            ),
        )
    }

    /// 408 `request.too_slow`: the body arrived slower than `rate` (`--min-rate`).
    pub fn too_slow(rate: crate::config::MinRate) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            ServerCode::RequestTooSlow,
            format!(
                "the request body arrived too slowly: less than {} bytes in {} s (--min-rate {rate})",
                rate.bytes,
                rate.per.as_secs_f64()
            ),
        )
    }

    /// 500: something that should not happen; `cause` is logged, not sent.
    pub fn internal(cause: impl Into<String>) -> Self {
        let mut e = Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            mshconv_app::ErrorCode::Internal,
            "internal error; the service's log has the details under this request's id",
        );
        e.internal = Some(cause.into());
        e
    }

    /// Adds the validator's error findings and takes the location from the first.
    pub fn with_findings(mut self, report: &msh::Report) -> Self {
        let errors: Vec<&msh::Finding> = report.errors().collect();
        if let Some(first) = errors.first() {
            self.resource = first.resource;
            self.record = first.record;
            self.offset = first.offset;
            self.path = Some(first.path.clone());
        }
        self.findings_total = errors.len();
        self.findings = errors.into_iter().take(MAX_FINDINGS).cloned().collect();
        self
    }

    /// The problem document, with the request id as `instance`.
    pub fn body(&self, instance: Option<&str>) -> Vec<u8> {
        let problem = ProblemDoc {
            kind: format!("urn:mshconv:error:{}", self.code),
            title: self.status.canonical_reason().unwrap_or("Error"),
            status: self.status.as_u16(),
            detail: &self.detail,
            code: &self.code,
            instance,
            resource: self.resource,
            record: self.record,
            offset: self.offset,
            path: self.path.as_deref(),
            findings: &self.findings,
            findings_total: if self.findings.is_empty() {
                0
            } else {
                self.findings_total
            },
        };
        let mut body = serde_json::to_vec(&problem).unwrap_or_else(|_| b"{}".to_vec());
        body.push(b'\n');
        body
    }

    /// The response with a body naming `instance`.
    pub fn response(&self, instance: Option<&str>) -> Response {
        let mut response = (self.status, self.body(instance)).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl std::ops::Deref for ApiError {
    type Target = Problem;
    fn deref(&self) -> &Problem {
        &self.0
    }
}

impl std::ops::DerefMut for ApiError {
    fn deref_mut(&mut self) -> &mut Problem {
        &mut self.0
    }
}

impl From<mshconv_app::Error> for ApiError {
    /// The application layer's one mapping: its HTTP status, code, message,
    /// location and findings, and the metrics outcome of a failed conversion.
    fn from(e: mshconv_app::Error) -> Self {
        let status =
            StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // The library's advice (put the file beside the .gltf) does not apply
        // to an upload: the service says its own after the library's message.
        let detail = match advice(e.code()) {
            Some(ours) => format!("{}. {ours}", e.without_advice().trim_end_matches('.')),
            None => e.message().to_string(),
        };
        let mut err = if status == StatusCode::INTERNAL_SERVER_ERROR {
            ApiError::internal(detail)
        } else {
            ApiError::with_code_text(status, e.code().to_string(), detail)
        };
        let location = e.location();
        err.resource = location.resource;
        err.record = location.record;
        err.offset = location.offset;
        err.path = location.path.clone();
        err.findings_total = e.findings().len();
        err.findings = e.findings().iter().take(MAX_FINDINGS).cloned().collect();
        err.outcome = e.outcome();
        err
    }
}

/// The service's own advice for a library error whose advice does not hold
/// for an upload.
fn advice(code: &str) -> Option<&'static str> {
    (code == mshconv_convert::codes::Code::GltfMissingBuffer.code()).then_some(
        "The service never reads side-car files: embed buffers as data: URIs, or upload a .glb.",
    )
}

impl From<mshconv_convert::Error> for ApiError {
    fn from(e: mshconv_convert::Error) -> Self {
        ApiError::from(mshconv_app::Error::from(e))
    }
}

impl From<msh::Error> for ApiError {
    fn from(e: msh::Error) -> Self {
        ApiError::from(mshconv_app::Error::from(e))
    }
}

impl From<nres::Error> for ApiError {
    fn from(e: nres::Error) -> Self {
        ApiError::from(mshconv_app::Error::from(e))
    }
}

impl IntoResponse for ApiError {
    /// The problem response; the request middleware renders it again with the
    /// request id and logs it (it finds the error in the response's extensions).
    fn into_response(self) -> Response {
        let mut response = self.response(None);
        response.extensions_mut().insert(self);
        response
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.detail)
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_document_fields() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/small/damaged/anim4__batch0_index_count_4.msh"
        ))
        .unwrap();
        let report = msh::validate_bytes(&bytes);
        let e = ApiError::unprocessable(msh::Code::IndexCountNotTriangles, "bad")
            .with_findings(&report);
        let v: serde_json::Value = serde_json::from_slice(&e.body(Some("abc"))).unwrap();
        assert_eq!(v["type"], "urn:mshconv:error:batch.index_count");
        assert_eq!(v["title"], "Unprocessable Entity");
        assert_eq!(v["status"], 422);
        assert_eq!(v["instance"], "abc");
        assert_eq!(v["resource"], 13);
        assert!(v["offset"].is_u64());
        assert_eq!(v["findings"][0]["code"], "batch.index_count");
        assert_eq!(v["findings_total"], v["findings"].as_array().unwrap().len());
    }

    #[test]
    fn internal_details_are_not_sent() {
        let e = ApiError::internal("thread panicked at secret.rs:12");
        let text = String::from_utf8(e.body(None)).unwrap();
        assert!(!text.contains("secret"), "{text}");
        assert!(text.contains("\"code\":\"internal\""), "{text}");
        assert!(text.contains("\"instance\":null"), "{text}");
    }

    #[test]
    fn library_kinds_map_to_statuses() {
        let bad = mshconv_convert::Error::new(
            mshconv_convert::ErrorKind::BadOption,
            "option.invalid",
            "lod 7",
        );
        assert_eq!(ApiError::from(bad).status, StatusCode::BAD_REQUEST);
        for kind in [
            mshconv_convert::ErrorKind::InvalidInput,
            mshconv_convert::ErrorKind::Unsupported,
            mshconv_convert::ErrorKind::Output,
        ] {
            let e = mshconv_convert::Error::new(kind, "x.y", "z");
            assert_eq!(ApiError::from(e).status, StatusCode::UNPROCESSABLE_ENTITY);
        }
        let missing = mshconv_convert::Error::new(
            mshconv_convert::ErrorKind::InvalidInput,
            "gltf.missing_buffer",
            "buffer file \"a.bin\" is not available",
        )
        .with_advice("give it beside the .gltf, or use a .glb");
        assert!(missing
            .message()
            .ends_with("(give it beside the .gltf, or use a .glb)"));
        let e = ApiError::from(missing);
        assert_eq!(
            e.detail,
            "buffer file \"a.bin\" is not available. The service never reads side-car files: embed buffers as data: URIs, or upload a .glb."
        );
    }
}
