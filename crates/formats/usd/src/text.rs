//! The USD text (`.usda`) we write: numbers, strings, prim names and the
//! indentation, written by hand (there is no USD library in Rust).
//!
//! - Floats are the shortest decimal that reads back to the same `f32`
//!   (Rust's `Display`), `nan`, `inf` and `-inf` as USD spells them.
//! - Strings are double-quoted with `\\`, `\"` and control characters escaped.
//! - Prim names are USD identifiers (`[A-Za-z_][A-Za-z0-9_]*`), unique among
//!   their siblings ([`Siblings`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// A `.usda` text being written, with the current indentation.
#[derive(Debug, Default)]
pub(super) struct Usda {
    /// The text so far.
    pub out: String,
    depth: usize,
}

impl Usda {
    /// Writes one line at the current indentation.
    pub fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Writes `text` (unless empty) and an opening `{` on the next line, one
    /// level deeper after it.
    pub fn open(&mut self, text: &str) {
        if !text.is_empty() {
            self.line(text);
        }
        self.line("{");
        self.depth += 1;
    }

    /// Writes the closing `}` of [`Usda::open`].
    pub fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.line("}");
    }

    /// Writes `(` and goes one level deeper: prim or attribute metadata.
    pub fn open_meta(&mut self, text: &str) {
        if text.is_empty() {
            self.line("(");
        } else {
            self.line(&format!("{text} ("));
        }
        self.depth += 1;
    }

    /// Writes the closing `)` of [`Usda::open_meta`].
    pub fn close_meta(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.line(")");
    }

    /// Writes prim metadata `customData` of integer entries, one a line.
    pub fn custom_data(&mut self, entries: &[(&str, u64)]) {
        self.line("customData = {");
        for (key, value) in entries {
            self.line(&format!("    int {key} = {value}"));
        }
        self.line("}");
    }

    /// Writes an array attribute `{decl} = [..]`, its values written by `each`,
    /// `per_line` of them on each line, with one line of attribute metadata
    /// when given (`interpolation = "vertex"`).
    pub fn array<T>(
        &mut self,
        decl: &str,
        values: impl IntoIterator<Item = T>,
        per_line: usize,
        each: impl Fn(&mut String, T),
        meta: Option<&str>,
    ) {
        self.line(&format!("{decl} = ["));
        self.depth += 1;
        let mut row = String::new();
        let mut in_row = 0;
        let mut first = true;
        for v in values {
            if !first {
                row.push_str(", ");
            }
            first = false;
            if in_row == per_line {
                self.line(row.trim_end());
                row.clear();
                in_row = 0;
            }
            each(&mut row, v);
            in_row += 1;
        }
        if !row.is_empty() {
            self.line(&row);
        }
        self.depth -= 1;
        match meta {
            None => self.line("]"),
            Some(meta) => {
                self.open_meta("]");
                self.line(meta);
                self.close_meta();
            }
        }
    }
}

/// Appends an `f32` as the shortest decimal that reads back to it.
pub(super) fn float(out: &mut String, v: f32) {
    if v.is_nan() {
        out.push_str("nan");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "inf" } else { "-inf" });
    } else {
        // Display is the shortest round-trip form; never fails on a String.
        let _ = write!(out, "{v}");
    }
}

/// Appends a tuple of floats, `(a, b, c)`.
pub(super) fn tuple(out: &mut String, values: &[f32]) {
    out.push('(');
    for (i, &v) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        float(out, v);
    }
    out.push(')');
}

/// A tuple of floats as a new string.
pub(super) fn tuple_text(values: &[f32]) -> String {
    let mut s = String::new();
    tuple(&mut s, values);
    s
}

/// A USD string literal: double-quoted, `\\`, `\"` and control characters escaped.
pub(super) fn string(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            '\r' => s.push_str("\\r"),
            c if c.is_control() => {
                // USD reads `\xHH` as one byte: each byte of the UTF-8.
                for b in c.encode_utf8(&mut [0; 4]).bytes() {
                    let _ = write!(s, "\\x{b:02x}");
                }
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// A USD identifier made from a name: ASCII letters, digits and `_` kept,
/// any other character `_`, `_` before a leading digit, `_` for an empty name.
pub(super) fn identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// The names taken among one prim's children: each new name is made an
/// identifier and, when taken, gets `_1`, `_2`, ... until it is free.
#[derive(Debug, Default)]
pub(super) struct Siblings(BTreeSet<String>);

impl Siblings {
    /// The prim name for `name`, now taken.
    pub fn name(&mut self, name: &str) -> String {
        let base = identifier(name);
        let mut candidate = base.clone();
        let mut n = 0u64;
        while self.0.contains(&candidate) {
            n += 1;
            candidate = format!("{base}_{n}");
        }
        self.0.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_back_exactly() {
        for v in [0.1f32, -0.0, 1e-40, 3.4028235e38, 1.0 / 3.0, 16777217.0] {
            let mut s = String::new();
            float(&mut s, v);
            assert_eq!(s.parse::<f32>().unwrap().to_bits(), v.to_bits(), "{s}");
        }
        let mut s = String::new();
        tuple(&mut s, &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.5]);
        assert_eq!(s, "(nan, inf, -inf, 2.5)");
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\x01é\"");
    }

    proptest::proptest! {
        /// Any names (repeated, empty, any characters) become distinct USD identifiers.
        #[test]
        fn any_names_become_distinct_identifiers(names in proptest::collection::vec(".{0,6}", 0..40)) {
            let mut siblings = Siblings::default();
            let mut seen = BTreeSet::new();
            for name in &names {
                let id = siblings.name(name);
                let mut chars = id.chars();
                let first = chars.next().unwrap();
                proptest::prop_assert!(first == '_' || first.is_ascii_alphabetic(), "{id}");
                proptest::prop_assert!(chars.all(|c| c == '_' || c.is_ascii_alphanumeric()), "{id}");
                proptest::prop_assert!(seen.insert(id.clone()), "{id} given twice");
            }
        }

        /// A string literal holds no raw quote, backslash or control character.
        #[test]
        fn string_literals_are_one_clean_token(text in ".{0,20}") {
            let lit = string(&text);
            let inner = &lit[1..lit.len() - 1];
            proptest::prop_assert!(!inner.chars().any(char::is_control));
            // Without its escaped backslashes and quotes, no quote is left.
            proptest::prop_assert!(!inner.replace(r"\\", "").replace(r#"\""#, "").contains('"'));
        }
    }

    #[test]
    fn names_are_unique_identifiers() {
        let mut s = Siblings::default();
        assert_eq!(s.name("hull|L0G0"), "hull_L0G0");
        assert_eq!(s.name("hull#L0G0"), "hull_L0G0_1");
        assert_eq!(s.name("hull_L0G0"), "hull_L0G0_2");
        assert_eq!(s.name(""), "_");
        assert_eq!(s.name("3d"), "_3d");
        assert_eq!(s.name("башня"), "_____");
        assert_eq!(s.name("#12"), "_12");
    }
}
