//! The `--include`/`--exclude` filter of `batch`, over `globset`.
//!
//! Syntax (globset's, case-insensitive, `/` literal): `*` any run of
//! characters within one path segment, `?` one character, `[abc]`, `[a-z]`
//! and `[!abc]` one character of (not of) a set, `**` as a whole segment any
//! run of folders (`**/` also matches no folder at all), `{a,b}` either
//! alternative, `\` makes the next character literal. Letters compare ASCII
//! case-insensitively, as the game's file names do.
//!
//! A pattern without `/` is matched against the file name alone, so `*.msh`
//! selects every `.msh` at any depth; a pattern with `/` is matched against the
//! whole relative path (`/`-separated), e.g. `units/**/tank*.msh`. A leading
//! `./` or `/` is ignored.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::fmt;

/// A pattern that cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadGlob(pub String);

impl fmt::Display for BadGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadGlob {}

/// One list of patterns (`--include` or `--exclude`), compiled: those
/// without `/` match a path's file name, the others the whole path.
#[derive(Debug, Clone, Default)]
struct Patterns {
    /// The patterns without `/`.
    names: GlobSet,
    /// The patterns with `/`.
    paths: GlobSet,
}

impl Patterns {
    /// Compiles a list; an unclosed `[` or a trailing `\` is an error.
    fn new(list: &[String]) -> Result<Patterns, BadGlob> {
        let (mut names, mut paths) = (GlobSetBuilder::new(), GlobSetBuilder::new());
        for pattern in list {
            let trimmed = pattern.strip_prefix("./").unwrap_or(pattern);
            let trimmed = trimmed.trim_start_matches('/');
            let glob = GlobBuilder::new(trimmed)
                .case_insensitive(true)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| BadGlob(format!("glob {pattern:?}: {}", e.kind())))?;
            if trimmed.contains('/') {
                paths.add(glob);
            } else {
                names.add(glob);
            }
        }
        let build = |b: GlobSetBuilder| b.build().map_err(|e| BadGlob(e.to_string()));
        Ok(Patterns {
            names: build(names)?,
            paths: build(paths)?,
        })
    }

    /// Whether no pattern was given.
    fn is_empty(&self) -> bool {
        self.names.is_empty() && self.paths.is_empty()
    }

    /// Whether a `/`-separated relative path matches some pattern.
    fn matches(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.names.is_match(name) || self.paths.is_match(path)
    }
}

/// The `--include`/`--exclude` filter: a path is taken when it matches some
/// include pattern (or there are none) and no exclude pattern.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    include: Patterns,
    exclude: Patterns,
}

impl Filter {
    /// Compiles both lists of patterns.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Filter, BadGlob> {
        Ok(Filter {
            include: Patterns::new(include)?,
            exclude: Patterns::new(exclude)?,
        })
    }

    /// Whether an archive's entry passes the filter, read as the file
    /// `ARCHIVE/ENTRY` of a folder named after the archive (`rel`): taken when
    /// that path matches an include pattern, or the archive itself was taken
    /// (`archive_accepted`), and neither matches an exclude pattern.
    pub fn accepts_entry(&self, rel: &str, entry: &str, archive_accepted: bool) -> bool {
        let path = format!("{rel}/{entry}");
        let included = archive_accepted || self.include.matches(&path);
        included && !(self.exclude.matches(rel) || self.exclude.matches(&path))
    }

    /// Whether a `/`-separated relative path passes the filter.
    pub fn accepts(&self, path: &str) -> bool {
        (self.include.is_empty() || self.include.matches(path)) && !self.exclude.matches(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        Patterns::new(&[pattern.to_string()]).unwrap().matches(path)
    }

    fn bad(pattern: &str) -> bool {
        Patterns::new(&[pattern.to_string()]).is_err()
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
        assert!(m("*.{msh,glb}", "x/a.GLB"), "alternatives");
    }

    #[test]
    fn bad_patterns_are_errors() {
        assert!(bad("a[bc"));
        assert!(bad("abc\\"));
        assert!(bad("[!"));
        let e = Filter::new(&[], &["a[bc".into()]).unwrap_err();
        assert!(e.0.starts_with("glob \"a[bc\": "), "{e}");
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
