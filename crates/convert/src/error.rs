//! The conversion error: a kind the CLI maps to exit codes and the service to
//! HTTP statuses, a stable code, and a message that says what to do.

use crate::codes::Code;
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
    /// What to do, said at the end of `message` as ` (ADVICE)`: a front end
    /// for which it does not hold gives its own ([`Error::without_advice`]).
    advice: Option<String>,
    /// Boxed: the error travels in every `Result` of the conversions and stays small there.
    cause: Option<Box<Cause>>,
}

/// The library error a conversion failure came from, kept whole so a front
/// end can say where the damage is (the container error's offset, the
/// validator's findings) without opening the model again.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Cause {
    /// The model library refused the model (strict opening, validation, sampling).
    Model(msh::Error),
    /// The NRes container is damaged.
    Container(nres::Error),
}

impl Error {
    /// A new error.
    pub fn new(kind: ErrorKind, code: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            kind,
            code: code.into(),
            message: message.into(),
            advice: None,
            cause: None,
        }
    }
    /// The same error with what to do, said after the message in parentheses.
    pub fn with_advice(mut self, advice: impl Into<String>) -> Self {
        let advice = advice.into();
        self.message = format!("{} ({advice})", self.message);
        self.advice = Some(advice);
        self
    }
    /// What to do, if the library says it (it ends [`Error::message`]).
    pub fn advice(&self) -> Option<&str> {
        self.advice.as_deref()
    }
    /// The message without the advice: what went wrong.
    pub fn without_advice(&self) -> &str {
        match &self.advice {
            Some(a) => &self.message[..self.message.len() - a.len() - " ()".len()],
            None => &self.message,
        }
    }
    /// The model or container error this failure came from, if it came from one.
    pub fn cause(&self) -> Option<&Cause> {
        self.cause.as_deref()
    }
    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// Stable machine-readable code.
    pub fn code(&self) -> &str {
        &self.code
    }
    /// Human message (with the advice, if any).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.cause.as_deref() {
            Some(Cause::Model(e)) => Some(e),
            Some(Cause::Container(e)) => Some(e),
            None => None,
        }
    }
}

impl From<msh::Error> for Error {
    fn from(e: msh::Error) -> Self {
        let kind = match e {
            msh::Error::Unsupported(_) => ErrorKind::Unsupported,
            _ => ErrorKind::InvalidInput,
        };
        // The message without the code the container's `Display` puts first
        // (the code is kept on its own).
        let message = match &e {
            msh::Error::Container(c) => without_code(c),
            _ => e.to_string(),
        };
        let plain = Error::new(kind, e.code(), message);
        Error {
            cause: Some(Box::new(Cause::Model(e))),
            ..plain
        }
    }
}

/// A container error as its `Display` says it (the message and where), without
/// the code it puts first: the code is kept on its own.
fn without_code(e: &nres::Error) -> String {
    let text = e.to_string();
    match text
        .strip_prefix(e.code())
        .and_then(|t| t.strip_prefix(": "))
    {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

impl From<nres::Error> for Error {
    fn from(e: nres::Error) -> Self {
        let plain = Error::new(ErrorKind::InvalidInput, e.code(), without_code(&e));
        Error {
            cause: Some(Box::new(Cause::Container(e))),
            ..plain
        }
    }
}

impl From<crate::options::BadOption> for Error {
    fn from(e: crate::options::BadOption) -> Self {
        Error::new(ErrorKind::BadOption, Code::OptionInvalid.code(), e.0)
    }
}

/// Result with the conversion [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
