//! Output: stdout that treats a closed pipe as a quiet success, and stderr lines
//! that never panic.

use crate::fail::StdoutClosed;
use anyhow::Context;
use std::io::{self, Write};

/// Standard output for command results.
pub struct Out {
    inner: Box<dyn Write>,
}

impl Out {
    /// The process's stdout.
    pub fn stdout() -> Self {
        Out {
            inner: Box::new(io::stdout()),
        }
    }

    /// Writes text and flushes it, so a reader sees each file's result as it is done.
    pub fn text(&mut self, text: &str) -> anyhow::Result<()> {
        self.bytes(text.as_bytes())
    }

    /// Writes bytes and flushes them. A broken pipe becomes [`StdoutClosed`] (exit 0).
    pub fn bytes(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        let result = self
            .inner
            .write_all(bytes)
            .and_then(|()| self.inner.flush());
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
            other => other.context("writing to stdout"),
        }
    }
}

/// Prints `error[CODE]: message` on stderr (ignoring a closed stderr: there is
/// nowhere left to report that).
pub fn error_line(code: &str, message: &str) {
    let _ = writeln!(io::stderr().lock(), "error[{code}]: {message}");
}

/// Prints `note[CODE]: message` on stderr: something a conversion approximated or decided.
pub fn note_line(code: &str, message: &str) {
    let _ = writeln!(io::stderr().lock(), "note[{code}]: {message}");
}

/// Prints a line of text on stderr, such as a summary (ignoring a closed stderr).
pub fn stderr_line(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}
