//! The conversion error: a kind the CLI maps to exit codes and the service to
//! HTTP statuses, a stable code, and a message that says what to do.

use std::fmt;

/// Broad kind of a conversion failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input is damaged or breaks the format's rules.
    InvalidInput,
    /// The input is valid but holds something the target format cannot (the message says the way out).
    Unsupported,
    /// An option value is out of range.
    BadOption,
    /// Writing the output failed (sizes beyond the format's limits).
    Output,
}

/// A conversion failure.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    kind: ErrorKind,
    code: String,
    message: String,
}

impl Error {
    /// A new error.
    pub fn new(kind: ErrorKind, code: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            kind,
            code: code.into(),
            message: message.into(),
        }
    }
    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// Stable machine-readable code.
    pub fn code(&self) -> &str {
        &self.code
    }
    /// Human message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

impl From<msh::Error> for Error {
    fn from(e: msh::Error) -> Self {
        let kind = match e {
            msh::Error::Unsupported(_) => ErrorKind::Unsupported,
            _ => ErrorKind::InvalidInput,
        };
        Error::new(kind, e.code(), e.to_string())
    }
}

impl From<nres::Error> for Error {
    fn from(e: nres::Error) -> Self {
        Error::new(ErrorKind::InvalidInput, e.code(), e.to_string())
    }
}

impl From<crate::options::BadOption> for Error {
    fn from(e: crate::options::BadOption) -> Self {
        Error::new(ErrorKind::BadOption, "option.invalid", e.0)
    }
}

/// Result with the conversion [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
