//! How errors become exit codes and `error[CODE]: message` lines.
//!
//! The libraries' typed errors travel inside [`anyhow::Error`] with context
//! ("reading x.msh"); [`classify`] finds the typed cause and its stable code.

use std::fmt;
use std::io;

pub use mshconv_app::{io_code, EXIT_INVALID, EXIT_USAGE};

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
/// An error with no typed cause is unexpected; it is reported as `internal`
/// with exit 2. A [`StdoutClosed`] cause gives exit 0.
pub fn classify(e: &anyhow::Error) -> Failure {
    for cause in e.chain() {
        let found = if cause.downcast_ref::<StdoutClosed>().is_some() {
            Some(("stdout.closed".to_string(), 0))
        } else if let Some(f) = cause.downcast_ref::<mshconv_app::Error>() {
            Some((f.code().to_string(), f.exit_code()))
        } else if let Some(m) = cause.downcast_ref::<msh::Error>() {
            Some((m.code().to_string(), EXIT_INVALID))
        } else if let Some(n) = cause.downcast_ref::<nres::Error>() {
            Some((n.code().to_string(), EXIT_INVALID))
        } else if let Some(s) = cause.downcast_ref::<msh::anim::SampleError>() {
            Some((s.code().to_string(), EXIT_INVALID))
        } else {
            cause
                .downcast_ref::<io::Error>()
                .map(|io| (io_code(io).to_string(), EXIT_USAGE))
        };
        if let Some((code, exit)) = found {
            return Failure { code, exit };
        }
    }
    Failure {
        code: "internal".to_string(),
        exit: EXIT_USAGE,
    }
}

/// The message of an error: its contexts, then the root cause without the code
/// prefix the libraries put in their `Display` (the code is printed separately).
pub fn message(e: &anyhow::Error) -> String {
    let code = classify(e).code;
    let parts: Vec<String> = e
        .chain()
        .map(|cause| {
            let text = cause.to_string();
            match text.strip_prefix(&format!("{code}: ")) {
                Some(rest) => rest.to_string(),
                None => text,
            }
        })
        .collect();
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
}
