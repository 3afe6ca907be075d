//! The model library's error type.

use crate::report::{Code, Report};
use std::fmt;

/// Why a model could not be read, sampled or written.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The NRes container is damaged.
    Container(nres::Error),
    /// Strict validation found errors; the report has all findings.
    Invalid(Report),
    /// The model has a layout this operation does not handle (legacy nodes, terrain).
    Unsupported(String),
    /// A sample was asked of data that would be read out of range.
    Sample(crate::anim::SampleError),
}

impl Error {
    /// Stable machine-readable code of the first problem.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Container(e) => e.code(),
            Error::Invalid(r) => r
                .errors()
                .next()
                .map_or(Code::Invalid.as_str(), |f| f.code.as_str()),
            Error::Unsupported(_) => Code::Unsupported.as_str(),
            Error::Sample(e) => e.code(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Container(e) => write!(f, "{e}"),
            Error::Invalid(report) => {
                let errors: Vec<_> = report.errors().collect();
                write!(f, "invalid model: {} error(s)", errors.len())?;
                for e in errors.iter().take(8) {
                    write!(f, "\n  {e}")?;
                }
                if errors.len() > 8 {
                    write!(f, "\n  ... and {} more", errors.len() - 8)?;
                }
                Ok(())
            }
            Error::Unsupported(what) => write!(f, "{}: {what}", Code::Unsupported),
            Error::Sample(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<nres::Error> for Error {
    fn from(e: nres::Error) -> Self {
        Error::Container(e)
    }
}

impl From<crate::anim::SampleError> for Error {
    fn from(e: crate::anim::SampleError) -> Self {
        Error::Sample(e)
    }
}

/// Result with the model library's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
