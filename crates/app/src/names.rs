//! Names: what a model is called, and file names that are safe to write.

/// The model's name from a path or label (`dir/tank.msh`, `units.rlb:TANK.MSH`,
/// an upload's file name): the last component's stem; `None` when nothing is
/// left (`-`, an empty name, `.msh` alone).
pub fn stem(name: &str) -> Option<String> {
    let last = name.rsplit([':', '/', '\\']).next().unwrap_or("");
    let stem = last.rsplit_once('.').map_or(last, |(s, _)| s);
    (!stem.is_empty() && stem != "-").then(|| stem.to_string())
}

/// [`stem`], or `model` when there is none: the glTF scene name and the
/// default file stem of a conversion.
pub fn model_name(name: &str) -> String {
    stem(name).unwrap_or_else(|| "model".to_string())
}

/// Longest file stem [`safe_stem`] makes, in characters.
pub const MAX_SAFE_STEM: usize = 100;

/// A name made safe as a file name on every file system, in a
/// `Content-Disposition` header and in a zip: ASCII letters, digits, `.`, `-`
/// and `_` stay, every other character becomes `_` (so no `/`, `\`, `:`); a
/// leading `.` becomes `_` (no hidden files, no `..`); at most
/// [`MAX_SAFE_STEM`] characters; `model` when nothing is left. One rule for
/// the CLI's batch outputs and the service's file names.
pub fn safe_stem(name: &str) -> String {
    let mut safe: String = name
        .chars()
        .take(MAX_SAFE_STEM)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.starts_with('.') {
        safe.replace_range(0..1, "_");
    }
    if safe.is_empty() {
        "model".to_string()
    } else {
        safe
    }
}

/// [`safe_stem`] of an archive entry's name bytes without its extension (the
/// game's names are Windows-1251: each byte that is not ASCII becomes `_`).
pub fn entry_file_stem(entry_name: &[u8]) -> String {
    let text = String::from_utf8_lossy(entry_name);
    let base = text.rsplit_once('.').map_or(&*text, |(s, _)| s);
    safe_stem(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(model_name("dir/tank.msh"), "tank");
        assert_eq!(model_name("units.rlb:TANK.MSH"), "TANK");
        assert_eq!(model_name("a\\b.c.glb"), "b.c");
        assert_eq!(model_name("-"), "model");
        assert_eq!(model_name(""), "model");
        assert_eq!(model_name("noext"), "noext");
        assert_eq!(stem(".msh"), None);
        assert_eq!(stem(".hidden"), None);
        assert_eq!(model_name("C:\\x\\tank.MSH"), "tank");
    }

    #[test]
    fn safe_file_stems() {
        assert_eq!(safe_stem("TANK"), "TANK");
        assert_eq!(safe_stem("../../etc/x"), "_._.._etc_x");
        assert_eq!(safe_stem("a:b\\c d"), "a_b_c_d");
        assert_eq!(safe_stem(""), "model");
        assert_eq!(safe_stem(".."), "_.");
        assert_eq!(safe_stem(".hidden"), "_hidden");
        assert_eq!(safe_stem("t\u{e4}nk"), "t_nk");
        assert_eq!(safe_stem(&"x".repeat(300)).len(), MAX_SAFE_STEM);
        assert_eq!(entry_file_stem(b"M123_DOME.MSH"), "M123_DOME");
        assert_eq!(entry_file_stem(b"\xc0\xc1.msh"), "__");
        assert_eq!(entry_file_stem(b".msh"), "model");
    }
}
