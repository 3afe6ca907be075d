//! The rule of putting a model into an archive, once for every front end
//! (`convert IN ARCHIVE:ENTRY`, `batch --into`, `nres put`, `POST
//! /v1/archive/put`, the web page, Python's `Archive.put` and `write_model`): a name the archive has is replaced; a name it does not have is
//! added only when the user asked to add (`--add`, `add=true`, the page's
//! box), because a typo would otherwise add a stray model without a word.
//! Without it the put is refused (`archive.no_such_entry`) with the closest
//! names the archive has ("did you mean G5150_013.MSH?").

use super::{entry_name, Listing, Placed};
use crate::codes::ErrorCode;
use crate::error::Error;

/// Most names a refusal suggests.
pub const MAX_SUGGESTIONS: usize = 3;

/// What a put of the model `name` does to an archive whose entry names are
/// `names`: [`Placed::Replaced`] when one of them is `name` (compared as the
/// game compares, ASCII case-insensitively); [`Placed::Added`] when none is
/// and `add` allows it; else `archive.no_such_entry`, naming `what` (`the
/// archive`, `archive units.rlb`), the closest names (of models, for a
/// model's name), and `how_to_add`
/// (`give --add`, `send add=true`).
pub fn decide<'a>(
    names: impl Iterator<Item = &'a [u8]> + Clone,
    name: &str,
    add: bool,
    what: &str,
    how_to_add: &str,
) -> Result<Placed, Error> {
    if names
        .clone()
        .any(|n| nres::cmp_names(n, name.as_bytes()).is_eq())
    {
        return Ok(Placed::Replaced);
    }
    if add {
        return Ok(Placed::Added);
    }
    // A model's name is compared with the models' names; any other entry's
    // (`nres put ... --type Texm`) with every name.
    let model = nres::is_model_name(name.as_bytes());
    let pool: Vec<&[u8]> = names.filter(|n| !model || nres::is_model_name(n)).collect();
    let closest = closest(pool.iter().copied(), name);
    let hint = if closest.is_empty() {
        format!(
            "it has {} {}entries",
            pool.len(),
            if model { "model " } else { "" }
        )
    } else {
        format!("did you mean {}?", closest.join(" or "))
    };
    Err(Error::usage(
        ErrorCode::ArchiveNoSuchEntry,
        format!(
            "{what} has no entry named {name:?} ({hint}); to add a new model under that name, {how_to_add}"
        ),
    ))
}

/// [`decide`] over an archive's directory; a model (a node table of its own,
/// `archive.is_model`) is no archive to put into, nor one whose entries
/// share bytes (`archive.entries_overlap`): what [`super::Editor::open`]
/// refuses, said from the directory before a model is converted.
pub fn placement(
    listing: &impl Listing,
    name: &str,
    add: bool,
    what: &str,
    how_to_add: &str,
) -> Result<Placed, Error> {
    let entries = listing.raw_entries();
    if entries
        .iter()
        .any(|e| e.type_id.get() == msh::resource::NODES)
    {
        return Err(super::edit::is_model());
    }
    super::check_entries_disjoint(listing)?;
    decide(entries.iter().map(entry_name), name, add, what, how_to_add)
}

/// The names among `names` closest to `name` by edit distance, compared
/// ASCII case-insensitively (as the game compares names): at most
/// [`MAX_SUGGESTIONS`], nearest first, each within a quarter of the name's
/// length (at least 2 edits), so that a typo finds its name and an unrelated
/// name suggests nothing.
pub fn closest<'a>(names: impl Iterator<Item = &'a [u8]>, name: &str) -> Vec<String> {
    let wanted = name.to_ascii_lowercase();
    let limit = (wanted.len() / 4).max(2);
    let mut scored: Vec<(usize, String)> = names
        .filter_map(|n| {
            let text = String::from_utf8_lossy(n);
            let d = strsim::levenshtein(&text.to_ascii_lowercase(), &wanted);
            (d <= limit).then(|| (d, text.into_owned()))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1.eq_ignore_ascii_case(&b.1));
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, n)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<'a>(list: &'a [&'a str]) -> impl Iterator<Item = &'a [u8]> + Clone {
        list.iter().map(|n| n.as_bytes())
    }

    #[test]
    fn a_name_the_archive_has_is_replaced_in_any_case() {
        let list = ["G5150_013.MSH", "G5150_013.WEA"];
        for add in [false, true] {
            let placed = decide(names(&list), "g5150_013.msh", add, "the archive", "");
            assert_eq!(placed.unwrap(), Placed::Replaced);
        }
    }

    #[test]
    fn a_new_name_is_added_only_when_asked() {
        let list = ["G5150_013.MSH", "TANK.MSH", "G5150_013.WEA"];
        assert_eq!(
            decide(names(&list), "NEW.MSH", true, "the archive", "").unwrap(),
            Placed::Added
        );
        let e = decide(
            names(&list),
            "G5150_13.MSH",
            false,
            "archive units.rlb",
            "give --add",
        )
        .unwrap_err();
        assert_eq!(e.code(), "archive.no_such_entry");
        assert_eq!(e.kind(), crate::Kind::Usage);
        assert_eq!(
            e.message(),
            "archive units.rlb has no entry named \"G5150_13.MSH\" (did you mean G5150_013.MSH?); to add a new model under that name, give --add"
        );
        // Nothing close: the count instead of a guess.
        let e = decide(
            names(&list),
            "FORTRESS.MSH",
            false,
            "the archive",
            "send add=true",
        )
        .unwrap_err();
        assert!(
            e.message().contains("(it has 2 model entries)"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn another_entry_is_compared_with_every_name() {
        let list = ["TANK.MSH", "WALL01", "TANK.WEA"];
        let e = decide(names(&list), "WALL1", false, "the archive", "give --add").unwrap_err();
        assert_eq!(e.code(), "archive.no_such_entry");
        assert!(
            e.message().contains("did you mean WALL01?"),
            "{}",
            e.message()
        );
        let e = decide(names(&list), "ROCK", false, "the archive", "").unwrap_err();
        assert!(
            e.message().contains("(it has 3 entries)"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn suggestions_are_case_insensitive_nearest_first_and_bounded() {
        let list = [
            "TANK1.MSH",
            "tank.msh",
            "TANKS2.MSH",
            "DOME.MSH",
            "TANK.WEA",
        ];
        assert_eq!(closest(names(&list), "TANC.MSH"), ["tank.msh", "TANK1.MSH"]);
        assert!(closest(names(&list), "WALKER.MSH").is_empty());
        let many: Vec<String> = (0..10).map(|i| format!("M{i}.MSH")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(closest(names(&many), "MX.MSH").len(), MAX_SUGGESTIONS);
    }
}
