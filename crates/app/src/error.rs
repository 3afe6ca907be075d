//! One error for both front ends: a stable code, a message, where the damage
//! is, and one mapping to the CLI's exit code, the service's HTTP status and
//! the metrics label.

use crate::codes::{CodeName, ErrorCode};
use mshconv_convert::codes::Code as ConvertCode;
use std::fmt;
use std::sync::Arc;

/// What kind of failure an [`Error`] is; it decides the exit code, the HTTP
/// status and the metrics label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The request itself is wrong: a direction that does not exist, an entry
    /// an archive does not have, an archive without an entry named.
    Usage,
    /// An option value that does not parse or is out of range.
    BadOption,
    /// The input's format cannot be told, or the operation does not read it.
    UnknownFormat,
    /// The input is damaged or breaks the format's rules.
    InvalidInput,
    /// The input is valid but holds what the target cannot (the message says the way out).
    Unsupported,
    /// Writing the output failed (sizes past the format's limits).
    Output,
    /// A file could not be read or written.
    Io,
    /// A bug.
    Internal,
}

/// Where in the input the damage is, as far as it is known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Location {
    /// Resource type the damage is in.
    pub resource: Option<u32>,
    /// Record index in that resource.
    pub record: Option<u64>,
    /// Byte offset in the model (for an archive entry: in its payload).
    pub offset: Option<u64>,
    /// A path such as `Res13[0].index_start`.
    pub path: Option<String>,
}

/// A failure of the application layer or of a library below it (boxed: it
/// travels in every `Result` and stays small there). The library error or
/// I/O error it came from is kept: [`std::error::Error::source`] gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Error(Box<Inner>);

#[derive(Debug, Clone, PartialEq)]
struct Inner {
    kind: Kind,
    code: String,
    message: String,
    /// The library's advice, which ends `message` as ` (ADVICE)`.
    advice: Option<String>,
    location: Location,
    findings: Vec<msh::Finding>,
    cause: Option<Cause>,
}

/// The error an [`Error`] came from.
#[derive(Debug, Clone)]
enum Cause {
    Model(msh::Error),
    Container(nres::Error),
    Conversion(mshconv_convert::Error),
    /// Shared: `io::Error` cannot be cloned.
    Io(Arc<std::io::Error>),
}

impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        match (self, other) {
            (Cause::Model(a), Cause::Model(b)) => a == b,
            (Cause::Container(a), Cause::Container(b)) => a == b,
            (Cause::Conversion(a), Cause::Conversion(b)) => a == b,
            (Cause::Io(a), Cause::Io(b)) => a.kind() == b.kind() && a.to_string() == b.to_string(),
            _ => false,
        }
    }
}

/// Exit code for invalid input or a failed operation on valid input.
pub const EXIT_INVALID: u8 = 1;
/// Exit code for a usage or I/O error.
pub const EXIT_USAGE: u8 = 2;

impl Error {
    /// A new error without a location.
    pub fn new(kind: Kind, code: impl CodeName, message: impl Into<String>) -> Error {
        Error::with_code_text(kind, code.code().to_string(), message.into())
    }
    /// An error with a library's code (the libraries' errors carry theirs).
    fn with_code_text(kind: Kind, code: String, message: String) -> Error {
        Error(Box::new(Inner {
            kind,
            code,
            message,
            advice: None,
            location: Location::default(),
            findings: Vec::new(),
            cause: None,
        }))
    }
    /// [`Kind::Usage`].
    pub fn usage(code: impl CodeName, message: impl Into<String>) -> Error {
        Error::new(Kind::Usage, code, message)
    }
    /// [`Kind::BadOption`] with the code `option.invalid`.
    pub fn bad_option(message: impl Into<String>) -> Error {
        Error::new(Kind::BadOption, ConvertCode::OptionInvalid, message)
    }
    /// [`Kind::UnknownFormat`] with the code `input.unknown_format`.
    pub fn unknown_format(message: impl Into<String>) -> Error {
        Error::new(Kind::UnknownFormat, ErrorCode::InputUnknownFormat, message)
    }
    /// [`Kind::InvalidInput`].
    pub fn invalid(code: impl CodeName, message: impl Into<String>) -> Error {
        Error::new(Kind::InvalidInput, code, message)
    }
    /// [`Kind::Internal`] (`internal`).
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(Kind::Internal, ErrorCode::Internal, message)
    }
    /// An I/O error about `what` (a path), with the `io.*` code of its kind.
    pub fn io(what: impl fmt::Display, e: &std::io::Error) -> Error {
        Error::io_message(e, format!("{what}: {e}"))
    }
    /// An I/O error with the `io.*` code of its kind and a message of its own.
    pub fn io_message(e: &std::io::Error, message: impl Into<String>) -> Error {
        Error::new(Kind::Io, io_error_code(e), message).with_io_cause(e)
    }
    /// The same error with `e` as its cause (its `source()`).
    pub fn with_io_cause(mut self, e: &std::io::Error) -> Error {
        // `io::Error` is not `Clone`: an OS error is made again from its
        // number, any other from its kind and text.
        let copy = match e.raw_os_error() {
            Some(n) => std::io::Error::from_raw_os_error(n),
            None => std::io::Error::new(e.kind(), e.to_string()),
        };
        self.0.cause = Some(Cause::Io(Arc::new(copy)));
        self
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        self.0.kind
    }
    /// The stable machine-readable code (`batch.index_range`, `option.invalid`, ...).
    pub fn code(&self) -> &str {
        &self.0.code
    }
    /// What went wrong and what to do, for a person.
    pub fn message(&self) -> &str {
        &self.0.message
    }
    /// What the library says to do, if it says it (it ends [`Error::message`]
    /// in parentheses). A front end for which it does not hold gives its own
    /// after [`Error::without_advice`].
    pub fn advice(&self) -> Option<&str> {
        self.0.advice.as_deref()
    }
    /// The message without the library's advice.
    pub fn without_advice(&self) -> &str {
        let message = &self.0.message;
        match &self.0.advice {
            Some(a) => &message[..message.len() - a.len() - " ()".len()],
            None => message,
        }
    }
    /// Where the damage is.
    pub fn location(&self) -> &Location {
        &self.0.location
    }
    /// The validator's error findings, when strict validation refused the model.
    pub fn findings(&self) -> &[msh::Finding] {
        &self.0.findings
    }
    /// The same error with another message (the location and cause stay;
    /// the advice goes with the old message).
    pub fn with_message(mut self, message: impl Into<String>) -> Error {
        self.0.message = message.into();
        self.0.advice = None;
        self
    }
    /// The same error located at byte `offset` of its input.
    pub fn at_offset(mut self, offset: u64) -> Error {
        self.0.location.offset = Some(offset);
        self
    }
    /// The same error with the message prefixed by `context: ` (the advice stays).
    pub fn context(mut self, context: impl fmt::Display) -> Error {
        self.0.message = format!("{context}: {}", self.0.message);
        self
    }

    /// The CLI's exit code: 1 for invalid input and failed operations on valid
    /// input, 2 for usage and I/O errors (and bugs).
    pub fn exit_code(&self) -> u8 {
        match self.0.kind {
            Kind::InvalidInput | Kind::Unsupported | Kind::Output => EXIT_INVALID,
            Kind::Usage | Kind::BadOption | Kind::UnknownFormat | Kind::Io | Kind::Internal => {
                EXIT_USAGE
            }
        }
    }

    /// The service's HTTP status: 400 for a malformed request, 415 for an
    /// unknown format, 422 for an input that cannot be converted, 500 otherwise.
    pub fn http_status(&self) -> u16 {
        match self.0.kind {
            Kind::Usage | Kind::BadOption => 400,
            Kind::UnknownFormat => 415,
            Kind::InvalidInput | Kind::Unsupported | Kind::Output => 422,
            Kind::Io | Kind::Internal => 500,
        }
    }

    /// The `outcome` label of a failed conversion in the service's metrics;
    /// `None` for a request refused before any conversion started.
    pub fn outcome(&self) -> Option<&'static str> {
        match self.0.kind {
            Kind::InvalidInput => Some("invalid_input"),
            Kind::Unsupported => Some("unsupported"),
            Kind::BadOption => Some("bad_option"),
            Kind::Output => Some("output"),
            Kind::Internal => Some("internal"),
            Kind::Usage | Kind::UnknownFormat | Kind::Io => None,
        }
    }
}

/// The stable code of an I/O error.
pub fn io_code(e: &std::io::Error) -> &'static str {
    io_error_code(e).code()
}

fn io_error_code(e: &std::io::Error) -> ErrorCode {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => ErrorCode::IoNotFound,
        K::PermissionDenied => ErrorCode::IoPermissionDenied,
        K::IsADirectory => ErrorCode::IoIsADirectory,
        K::NotADirectory => ErrorCode::IoNotADirectory,
        K::AlreadyExists => ErrorCode::IoAlreadyExists,
        K::StorageFull => ErrorCode::IoNoSpace,
        _ => ErrorCode::IoError,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.0.cause.as_ref()? {
            Cause::Model(e) => Some(e),
            Cause::Container(e) => Some(e),
            Cause::Conversion(e) => Some(e),
            Cause::Io(e) => Some(e.as_ref()),
        }
    }
}

/// The application layer's kind of a conversion's kind. The model's and the
/// container's errors get theirs from the conversion library's mapping
/// (`From<msh::Error> for mshconv_convert::Error`), the one place that says
/// which model error is which kind.
fn kind_of(kind: mshconv_convert::ErrorKind) -> Kind {
    use mshconv_convert::ErrorKind;
    match kind {
        ErrorKind::InvalidInput => Kind::InvalidInput,
        ErrorKind::Unsupported => Kind::Unsupported,
        ErrorKind::BadOption => Kind::BadOption,
        ErrorKind::Output => Kind::Output,
    }
}

impl From<msh::Error> for Error {
    fn from(e: msh::Error) -> Error {
        let kind = kind_of(mshconv_convert::Error::from(e.clone()).kind());
        let mut error = Error::with_code_text(kind, e.code().to_string(), e.to_string());
        match &e {
            msh::Error::Invalid(report) => {
                error.0.findings = report.errors().cloned().collect();
                if let Some(first) = error.0.findings.first() {
                    error.0.location = Location {
                        resource: first.resource,
                        record: first.record,
                        offset: first.offset,
                        path: Some(first.path.clone()),
                    };
                }
            }
            msh::Error::Container(c) => {
                error.0.message = c.message().to_string();
                error.0.location.offset = c.offset();
            }
            _ => {}
        }
        error.0.cause = Some(Cause::Model(e));
        error
    }
}

impl From<nres::Error> for Error {
    fn from(e: nres::Error) -> Error {
        let kind = kind_of(mshconv_convert::Error::from(e.clone()).kind());
        let mut error = Error::with_code_text(kind, e.code().to_string(), e.message().to_string());
        error.0.location.offset = e.offset();
        error.0.cause = Some(Cause::Container(e));
        error
    }
}

impl From<mshconv_convert::Error> for Error {
    /// The conversion's kind and code; where the failure came from a model or
    /// container error, its location and findings too (the conversion's own
    /// message is kept: it says which step failed).
    fn from(e: mshconv_convert::Error) -> Error {
        use mshconv_convert::Cause as Source;
        let located = match e.cause() {
            Some(Source::Model(m)) => Some(Error::from(m.clone())),
            Some(Source::Container(c)) => Some(Error::from(c.clone())),
            _ => None,
        };
        let mut error = Error::with_code_text(
            kind_of(e.kind()),
            e.code().to_string(),
            e.message().to_string(),
        );
        if let Some(located) = located {
            error.0.location = located.0.location;
            error.0.findings = located.0.findings;
        }
        error.0.advice = e.advice().map(str::to_string);
        error.0.cause = Some(Cause::Conversion(e));
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mapping() {
        let cases = [
            (Kind::Usage, 2, 400, None),
            (Kind::BadOption, 2, 400, Some("bad_option")),
            (Kind::UnknownFormat, 2, 415, None),
            (Kind::InvalidInput, 1, 422, Some("invalid_input")),
            (Kind::Unsupported, 1, 422, Some("unsupported")),
            (Kind::Output, 1, 422, Some("output")),
            (Kind::Io, 2, 500, None),
            (Kind::Internal, 2, 500, Some("internal")),
        ];
        for (kind, exit, status, outcome) in cases {
            let e = Error::new(kind, ErrorCode::Internal, "z");
            assert_eq!(
                (e.exit_code(), e.http_status(), e.outcome()),
                (exit, status, outcome),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn container_errors_keep_their_offset() {
        let e = Error::from(nres::Archive::parse(b"XXXXXXXXXXXXXXXX").unwrap_err());
        assert_eq!(e.kind(), Kind::InvalidInput);
        assert!(e.code().starts_with("nres."));
        assert!(e.location().offset.is_some());
    }

    #[test]
    fn causes_are_kept() {
        use std::error::Error as _;
        let model = msh::open(b"NRes", msh::Mode::Strict).unwrap_err();
        let e = Error::from(model.clone());
        let source = e.source().and_then(|s| s.downcast_ref::<msh::Error>());
        assert_eq!(source, Some(&model));
        // Through a conversion error: the conversion error, then the model's.
        let e = Error::from(mshconv_convert::Error::from(model.clone()));
        let conversion = e.source().unwrap();
        assert!(conversion.is::<mshconv_convert::Error>());
        let below = conversion
            .source()
            .and_then(|s| s.downcast_ref::<msh::Error>());
        assert_eq!(below, Some(&model));
        // An I/O error, also after a context and another message.
        let io = std::fs::read("/nonexistent/mshconv/x").unwrap_err();
        let e = Error::io("x", &io).context("reading").with_message("m");
        let source = e.source().and_then(|s| s.downcast_ref::<std::io::Error>());
        let source = source.expect("the io::Error");
        assert_eq!(source.kind(), io.kind());
        assert_eq!(source.raw_os_error(), io.raw_os_error());
        assert_eq!(e.code(), "io.not_found");
        // An error of the application layer's own has none.
        assert!(Error::bad_option("lod 7").source().is_none());
    }

    #[test]
    fn a_model_layer_error_gets_the_conversion_librarys_kind() {
        let cases = [
            (msh::Error::Unsupported("terrain".into()), Kind::Unsupported),
            (
                msh::open(b"NRes", msh::Mode::Strict).unwrap_err(),
                Kind::InvalidInput,
            ),
        ];
        for (model, kind) in cases {
            let from_model = Error::from(model.clone());
            let from_conversion = Error::from(mshconv_convert::Error::from(model));
            assert_eq!(from_model.kind(), kind);
            assert_eq!(from_conversion.kind(), kind);
            assert_eq!(from_model.code(), from_conversion.code());
        }
        assert_eq!(
            Error::from(msh::Error::Unsupported("x".into())).code(),
            "msh.unsupported"
        );
    }

    #[test]
    fn the_advice_is_its_own_part_of_the_message() {
        let e = mshconv_convert::Error::new(
            mshconv_convert::ErrorKind::InvalidInput,
            "gltf.missing_buffer",
            "buffer file \"a.bin\" is not available",
        )
        .with_advice("give it beside the .gltf, or use a .glb");
        let e = Error::from(e).context("x.gltf");
        assert_eq!(
            e.message(),
            "x.gltf: buffer file \"a.bin\" is not available (give it beside the .gltf, or use a .glb)"
        );
        assert_eq!(e.advice(), Some("give it beside the .gltf, or use a .glb"));
        assert_eq!(
            e.without_advice(),
            "x.gltf: buffer file \"a.bin\" is not available"
        );
        let replaced = e.with_message("other");
        assert_eq!(
            (replaced.without_advice(), replaced.advice()),
            ("other", None)
        );
        let plain = Error::bad_option("lod 7");
        assert_eq!((plain.without_advice(), plain.advice()), ("lod 7", None));
    }
}
