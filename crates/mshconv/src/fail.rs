//! How errors become exit codes and `error[CODE]: message` lines.
//!
//! The libraries' typed errors travel inside [`anyhow::Error`] with context
//! ("reading x.msh"); [`classify`] finds the typed cause and its stable code.

use std::fmt;
use std::io;

use crate::codes::CliCode;
use mshconv_app::ErrorCode;
pub use mshconv_app::{EXIT_INVALID, EXIT_USAGE};

/// An error's code and exit code, as [`classify`] finds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Stable machine-readable code, e.g. `input.no_such_entry`.
    pub code: String,
    /// Process exit code.
    pub exit: u8,
}

/// Stdout was closed by the reader (a broken pipe): stop quietly, exit 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// Exit code and code of an error: the first typed cause in its chain decides.
///
/// A library error (model, container, sample) gets the application layer's
/// code and exit code (`mshconv_app::Error::from`: the one mapping). An error
/// with no typed cause is unexpected; it is reported as `internal` with exit
/// 2. A [`StdoutClosed`] cause gives exit 0.
pub fn classify(e: &anyhow::Error) -> Failure {
    for cause in e.chain() {
        if cause.downcast_ref::<StdoutClosed>().is_some() {
            return Failure {
                code: CliCode::StdoutClosed.code().to_string(),
                exit: 0,
            };
        }
        let app = if let Some(f) = cause.downcast_ref::<mshconv_app::Error>() {
            Some(f.clone())
        } else if let Some(m) = cause.downcast_ref::<msh::Error>() {
            Some(mshconv_app::Error::from(m.clone()))
        } else if let Some(n) = cause.downcast_ref::<nres::Error>() {
            Some(mshconv_app::Error::from(n.clone()))
        } else if let Some(s) = cause.downcast_ref::<msh::anim::SampleError>() {
            Some(mshconv_app::Error::from(msh::Error::from(*s)))
        } else {
            cause
                .downcast_ref::<io::Error>()
                .map(|io| mshconv_app::Error::io("", io))
        };
        if let Some(app) = app {
            return Failure {
                code: app.code().to_string(),
                exit: app.exit_code(),
            };
        }
    }
    Failure {
        code: ErrorCode::Internal.code().to_string(),
        exit: EXIT_USAGE,
    }
}

/// The message of an error: its contexts, then the root cause without the code
/// prefix the libraries put in their `Display` (the code is printed separately).
/// The chain ends at an application error: its message says what its cause
/// (kept as its `source()`) said.
pub fn message(e: &anyhow::Error) -> String {
    let code = classify(e).code;
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string();
        parts.push(match text.strip_prefix(&format!("{code}: ")) {
            Some(rest) => rest.to_string(),
            None => text,
        });
        if cause.is::<mshconv_app::Error>() {
            break;
        }
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn library_codes_and_exit_codes() {
        let n = nres::Archive::parse(b"XXXX").unwrap_err();
        let e = anyhow::Error::from(n).context("reading a.msh");
        let f = classify(&e);
        assert_eq!((f.code.as_str(), f.exit), ("nres.truncated", 1));
        assert!(message(&e).starts_with("reading a.msh: file is 4 bytes"));

        let io = std::fs::read("/nonexistent/really").context("reading x");
        let f = classify(&io.unwrap_err());
        assert_eq!((f.code.as_str(), f.exit), ("io.not_found", 2));

        let closed = anyhow::Error::from(StdoutClosed);
        assert_eq!(classify(&closed).exit, 0);
    }

    #[test]
    fn the_message_ends_at_the_application_error_whose_cause_is_kept() {
        let io = std::fs::read("/nonexistent/really").unwrap_err();
        let app = mshconv_app::Error::io("x.msh", &io);
        assert!(std::error::Error::source(&app).is_some());
        let e = anyhow::Error::from(app).context("reading x.msh");
        let f = classify(&e);
        assert_eq!((f.code.as_str(), f.exit), ("io.not_found", 2));
        assert_eq!(
            message(&e),
            format!("reading x.msh: x.msh: {io}"),
            "the io::Error's text is not said twice"
        );

        let sample = msh::anim::SampleError::NoSuchNode { node: 9 };
        let f = classify(&anyhow::Error::from(sample));
        assert_eq!((f.code.as_str(), f.exit), ("anim.no_such_node", 1));
        let unsupported = msh::Error::Unsupported("terrain".into());
        let f = classify(&anyhow::Error::from(unsupported));
        assert_eq!((f.code.as_str(), f.exit), ("msh.unsupported", 1));
    }
}
