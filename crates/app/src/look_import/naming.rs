//! Fitting names into the game's fields: a MAT0 phase's 16-byte texture
//! name and an NRes entry's 36-byte name field, uniquely.

/// The longest texture name written into a MAT0 phase: 15 bytes, so the
/// 16-byte field always ends in a NUL (the reader accepts 16 without one;
/// the game's code is not known to).
pub const TEXTURE_NAME_MAX: usize = 15;
/// The longest entry name (`nres`'s 36-byte field without its NUL). A
/// material's name is also its WEAR row's second field.
pub const ENTRY_NAME_MAX: usize = nres::raw::MAX_NAME_LEN;

/// `wanted` made a name of at most `max` bytes that `taken` does not refuse:
/// ASCII letters, digits, `_`, `-` and `.` kept, anything else (spaces, which
/// would split a WEAR row, and non-ASCII, which a Windows-1251 file may not
/// hold) as `_`; empty becomes `fallback`; then cut to `max`; a name `taken`
/// says is in use gets `_2`, `_3`, ... within `max`.
pub fn fit_name(wanted: &str, fallback: &str, max: usize, taken: impl Fn(&str) -> bool) -> String {
    let clean: String = wanted
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = if clean.is_empty() { fallback } else { &clean };
    let base: String = base.chars().take(max).collect();
    if !taken(&base) {
        return base;
    }
    (2u32..)
        .map(|n| {
            let suffix = format!("_{n}");
            let keep = max.saturating_sub(suffix.len());
            format!("{}{suffix}", &base[..keep.min(base.len())])
        })
        .find(|candidate| !taken(candidate))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cleaned_cut_and_made_unique() {
        assert_eq!(fit_name("Rusty metal", "T", 15, |_| false), "Rusty_metal");
        assert_eq!(fit_name("Ржавчина", "T", 15, |_| false), "________");
        assert_eq!(fit_name("", "TEXTURE", 15, |_| false), "TEXTURE");
        assert_eq!(
            fit_name("a_very_long_texture_name", "T", 15, |_| false),
            "a_very_long_tex"
        );
        let taken = |n: &str| n == "a_very_long_tex" || n == "a_very_long_t_2";
        assert_eq!(
            fit_name("a_very_long_texture_name", "T", 15, taken),
            "a_very_long_t_3"
        );
        assert!(fit_name("x", "T", ENTRY_NAME_MAX, |n| n == "x").len() <= ENTRY_NAME_MAX);
    }
}
