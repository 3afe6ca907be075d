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

/// `n` and the noun, singular for one (`1 mesh`, `2 meshes`).
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// How many examples a note names before "and N more".
pub const EXAMPLES: usize = 3;

/// The first [`EXAMPLES`] of `items`, comma-separated, then "and N more"
/// for the rest: what a note names without repeating a long list.
pub fn few(items: &[String]) -> String {
    let shown = items[..items.len().min(EXAMPLES)].join(", ");
    match items.len().saturating_sub(EXAMPLES) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

#[cfg(test)]
mod tests {
    use super::{counted, few};

    #[test]
    fn few_names_three_then_counts_the_rest() {
        let list = |n: usize| (1..=n).map(|i| format!("n{i}")).collect::<Vec<_>>();
        assert_eq!(few(&list(0)), "");
        assert_eq!(few(&list(3)), "n1, n2, n3");
        assert_eq!(few(&list(5)), "n1, n2, n3 and 2 more");
        assert_eq!(counted(1, "mesh", "meshes"), "1 mesh");
        assert_eq!(counted(0, "mesh", "meshes"), "0 meshes");
    }
}
