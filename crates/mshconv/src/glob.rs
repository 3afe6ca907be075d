//! A small glob matcher for `batch --include/--exclude`.
//!
//! Syntax: `*` any run of characters within one path segment, `?` one
//! character, `[abc]`, `[a-z]` and `[!abc]` one character of (not of) a set,
//! `**` any run of characters across segments (`**/` also matches no folder at
//! all), `\` makes the next character literal. Letters compare ASCII
//! case-insensitively, as the game's file names do.
//!
//! A pattern without `/` is matched against the file name alone, so `*.msh`
//! selects every `.msh` at any depth; a pattern with `/` is matched against the
//! whole relative path (`/`-separated), e.g. `units/**/tank*.msh`.

use std::fmt;

/// A compiled glob pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    tokens: Vec<Token>,
    /// Matched against the last path segment only (the pattern has no `/`).
    name_only: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// One character, compared ASCII case-insensitively.
    Literal(char),
    /// `?`: one character other than `/`.
    One,
    /// `*`: any run of characters other than `/`.
    Star,
    /// `**`: any run of characters, `/` included.
    AnyPath,
    /// `**/`: nothing, or any run of characters ending with `/`.
    AnyFolders,
    /// `[...]`: one character (other than `/`) in (or, negated, not in) the ranges.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// A pattern that cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadGlob(pub String);

impl fmt::Display for BadGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadGlob {}

impl Glob {
    /// Compiles a pattern; an unclosed `[` or a trailing `\` is an error.
    pub fn new(pattern: &str) -> Result<Glob, BadGlob> {
        let trimmed = pattern.strip_prefix("./").unwrap_or(pattern);
        let trimmed = trimmed.trim_start_matches('/');
        let chars: Vec<char> = trimmed.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            i += 1;
            match c {
                '?' => tokens.push(Token::One),
                '*' => {
                    if chars.get(i) == Some(&'*') {
                        // `**` (and `***`...): across segments.
                        while chars.get(i) == Some(&'*') {
                            i += 1;
                        }
                        // `**/` at the start or after a `/` may match no folder at all.
                        let at_segment_start =
                            tokens.is_empty() || tokens.last() == Some(&Token::Literal('/'));
                        if at_segment_start && chars.get(i) == Some(&'/') {
                            i += 1;
                            tokens.push(Token::AnyFolders);
                        } else {
                            tokens.push(Token::AnyPath);
                        }
                    } else {
                        tokens.push(Token::Star);
                    }
                }
                '[' => {
                    let (token, next) = class(&chars, i).ok_or_else(|| {
                        BadGlob(format!("glob {pattern:?}: a [ is not closed by ]"))
                    })?;
                    tokens.push(token);
                    i = next;
                }
                '\\' => {
                    let &next = chars.get(i).ok_or_else(|| {
                        BadGlob(format!("glob {pattern:?}: a \\ at the end escapes nothing"))
                    })?;
                    i += 1;
                    tokens.push(Token::Literal(next));
                }
                other => tokens.push(Token::Literal(other)),
            }
        }
        Ok(Glob {
            name_only: !trimmed.contains('/'),
            tokens,
        })
    }

    /// Whether a `/`-separated relative path matches.
    pub fn matches(&self, path: &str) -> bool {
        let subject = if self.name_only {
            path.rsplit('/').next().unwrap_or(path)
        } else {
            path
        };
        let text: Vec<char> = subject.chars().collect();
        // memo[t][p]: Some(result) once known; patterns and paths are short, so
        // this table keeps the backtracking linear in their product.
        let mut memo = vec![vec![None; self.tokens.len() + 1]; text.len() + 1];
        match_at(&self.tokens, &text, 0, 0, &mut memo)
    }
}

/// Parses the class starting after `[` at `start`; the token and the index after `]`.
fn class(chars: &[char], start: usize) -> Option<(Token, usize)> {
    let mut i = start;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(i)?;
        // A `]` right after `[` or `[!` is a member, not the end.
        if c == ']' && !first {
            return Some((Token::Class { negated, ranges }, i + 1));
        }
        first = false;
        let lo = if c == '\\' {
            i += 1;
            *chars.get(i)?
        } else {
            c
        };
        i += 1;
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&n| n != ']') {
            let mut hi = chars[i + 1];
            i += 2;
            if hi == '\\' {
                hi = *chars.get(i)?;
                i += 1;
            }
            ranges.push((lo, hi));
        } else {
            ranges.push((lo, lo));
        }
    }
}

fn in_class(ranges: &[(char, char)], c: char) -> bool {
    let variants = [c, c.to_ascii_lowercase(), c.to_ascii_uppercase()];
    ranges
        .iter()
        .any(|&(lo, hi)| variants.iter().any(|v| (lo..=hi).contains(v)))
}

fn match_at(
    tokens: &[Token],
    text: &[char],
    p: usize,
    t: usize,
    memo: &mut Vec<Vec<Option<bool>>>,
) -> bool {
    if let Some(known) = memo[t][p] {
        return known;
    }
    let result = match tokens.get(p) {
        None => t == text.len(),
        Some(Token::Literal(c)) => {
            text.get(t).is_some_and(|x| x.eq_ignore_ascii_case(c))
                && match_at(tokens, text, p + 1, t + 1, memo)
        }
        Some(Token::One) => {
            text.get(t).is_some_and(|&x| x != '/') && match_at(tokens, text, p + 1, t + 1, memo)
        }
        Some(Token::Class { negated, ranges }) => {
            text.get(t)
                .is_some_and(|&x| x != '/' && in_class(ranges, x) != *negated)
                && match_at(tokens, text, p + 1, t + 1, memo)
        }
        Some(Token::Star) => {
            // Take no character, or one more (not a `/`) and stay on the star.
            match_at(tokens, text, p + 1, t, memo)
                || (text.get(t).is_some_and(|&x| x != '/')
                    && match_at(tokens, text, p, t + 1, memo))
        }
        Some(Token::AnyPath) => {
            match_at(tokens, text, p + 1, t, memo)
                || (t < text.len() && match_at(tokens, text, p, t + 1, memo))
        }
        Some(Token::AnyFolders) => {
            // No folder, or any run of characters that ends with `/`.
            match_at(tokens, text, p + 1, t, memo)
                || (t..text.len())
                    .filter(|&k| text[k] == '/')
                    .any(|k| match_at(tokens, text, p + 1, k + 1, memo))
        }
    };
    memo[t][p] = Some(result);
    result
}

/// The `--include`/`--exclude` filter: a path is taken when it matches some
/// include pattern (or there are none) and no exclude pattern.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    include: Vec<Glob>,
    exclude: Vec<Glob>,
}

impl Filter {
    /// Compiles both lists of patterns.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Filter, BadGlob> {
        let compile = |list: &[String]| {
            list.iter()
                .map(|p| Glob::new(p))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Filter {
            include: compile(include)?,
            exclude: compile(exclude)?,
        })
    }

    /// Whether an archive's entry passes the filter, read as the file
    /// `ARCHIVE/ENTRY` of a folder named after the archive (`rel`): taken when
    /// that path matches an include pattern, or the archive itself was taken
    /// (`archive_accepted`), and neither matches an exclude pattern.
    pub fn accepts_entry(&self, rel: &str, entry: &str, archive_accepted: bool) -> bool {
        let path = format!("{rel}/{entry}");
        let included = archive_accepted || self.include.iter().any(|g| g.matches(&path));
        included
            && !self
                .exclude
                .iter()
                .any(|g| g.matches(rel) || g.matches(&path))
    }

    /// Whether a `/`-separated relative path passes the filter.
    pub fn accepts(&self, path: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|g| g.matches(path)))
            && !self.exclude.iter().any(|g| g.matches(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        Glob::new(pattern).unwrap().matches(path)
    }

    #[test]
    fn a_pattern_without_a_slash_matches_the_file_name_at_any_depth() {
        assert!(m("*.msh", "tank.msh"));
        assert!(m("*.msh", "units/heavy/tank.msh"));
        assert!(m("*.MSH", "units/Tank.msh"), "ASCII case-insensitive");
        assert!(!m("*.msh", "tank.glb"));
        assert!(m("t?nk.msh", "a/tank.msh"));
        assert!(!m("t?nk.msh", "a/taank.msh"));
        assert!(m("tank*", "x/tank_lod1.msh"));
    }

    #[test]
    fn a_pattern_with_a_slash_matches_the_whole_path() {
        assert!(m("units/*.msh", "units/tank.msh"));
        assert!(
            !m("units/*.msh", "units/heavy/tank.msh"),
            "* stays in one segment"
        );
        assert!(!m("units/*.msh", "other/units/tank.msh"));
        assert!(m("units/**/*.msh", "units/heavy/big/tank.msh"));
        assert!(
            m("units/**/*.msh", "units/tank.msh"),
            "**/ matches no folder too"
        );
        assert!(m("**/tank.msh", "tank.msh"));
        assert!(m("**/tank.msh", "a/b/tank.msh"));
        assert!(!m("**/tank.msh", "a/b/xtank.msh"));
        assert!(m("damaged/**", "damaged/a/b.msh"));
        assert!(!m("damaged/**", "models/a.msh"));
        assert!(m("./units/*", "units/a.msh"), "a leading ./ is ignored");
        assert!(m("/units/*", "units/a.msh"), "a leading / is ignored");
    }

    #[test]
    fn classes_ranges_negation_and_escapes() {
        assert!(m("m[0-4]*.msh", "m012.msh"));
        assert!(!m("m[0-4]*.msh", "m512.msh"));
        assert!(m("m[!0-4]*.msh", "m512.msh"));
        assert!(!m("m[!0-4]*.msh", "m012.msh"));
        assert!(m("[]]x", "]x"), "] first in a class is a member");
        assert!(m("[a-c]", "B"), "classes are case-insensitive too");
        assert!(m("a\\*b", "a*b"));
        assert!(!m("a\\*b", "axb"));
        assert!(!m("a[/]b", "a/b"), "a class never matches /");
    }

    #[test]
    fn bad_patterns_are_errors() {
        assert!(Glob::new("a[bc").is_err());
        assert!(Glob::new("abc\\").is_err());
        assert!(Glob::new("[!").is_err());
    }

    #[test]
    fn many_stars_stay_fast() {
        let pattern = "*a*a*a*a*a*a*a*a*a*a*a*a*b";
        let path = "a".repeat(200);
        assert!(!m(pattern, &path));
    }

    #[test]
    fn filter_includes_then_excludes() {
        let f = Filter::new(
            &["*.msh".into()],
            &["damaged/**".into(), "*_old.msh".into()],
        )
        .unwrap();
        assert!(f.accepts("models/tank.msh"));
        assert!(!f.accepts("damaged/tank.msh"));
        assert!(!f.accepts("models/tank_old.msh"));
        assert!(!f.accepts("models/tank.glb"));
        assert!(Filter::default().accepts("anything"));
    }
}
