//! What a conversion reports besides its output: every approximation, bake and decision.

/// One note about a conversion.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Note {
    /// Stable code, e.g. `export.degenerate_quaternion`.
    pub code: &'static str,
    /// What happened and where.
    pub message: String,
}

/// The notes of one conversion, in the order they arose.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    /// Notes.
    pub notes: Vec<Note>,
}

impl Report {
    /// Adds a note.
    pub fn note(&mut self, code: &'static str, message: impl Into<String>) {
        self.notes.push(Note {
            code,
            message: message.into(),
        });
    }
    /// True when some note has this code.
    pub fn has(&self, code: &str) -> bool {
        self.notes.iter().any(|n| n.code == code)
    }
}
