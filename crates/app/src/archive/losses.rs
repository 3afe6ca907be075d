//! What an entry loses when another model replaces it: the parts of the old
//! model the new one does not have (an OBJ has no hierarchy, LODs, groups or
//! animation; a glTF may have fewer nodes, slots or frames), said before the
//! entry is written (`archive.entry_loses`).

use crate::codes::NoteCode;
use msh::raw::{GROUPS, LODS};
use msh::Model;
use mshconv_convert::Note;
use std::path::Path;

/// The parts of a model a replacement can lose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    nodes: usize,
    /// Geometry slots referenced by the nodes.
    slots: usize,
    lods: [bool; LODS],
    groups: [bool; GROUPS],
    /// The timeline's frames (0 when no node is animated).
    frames: u32,
}

impl Shape {
    fn of(model: &Model) -> Shape {
        let mut lods = [false; LODS];
        let mut groups = [false; GROUPS];
        let mut slots = 0;
        for node in &model.nodes {
            for (k, slot) in node.slots.iter().enumerate() {
                if slot.get() != msh::raw::NONE {
                    lods[k / GROUPS] = true;
                    groups[k % GROUPS] = true;
                    slots += 1;
                }
            }
        }
        let animated = model.nodes.iter().any(|n| n.map_start().is_some());
        Shape {
            nodes: model.nodes.len(),
            slots,
            lods,
            groups,
            frames: if animated { model.frame_count } else { 0 },
        }
    }
}

/// `1-2`, `1, 3`: the indices that are set in `old` and not in `new`.
fn lost(old: &[bool], new: &[bool]) -> Option<(usize, String)> {
    let gone: Vec<usize> = (0..old.len()).filter(|&i| old[i] && !new[i]).collect();
    let (first, last) = (*gone.first()?, *gone.last()?);
    let text = if gone.len() > 1 && last - first + 1 == gone.len() {
        format!("{first}-{last}")
    } else {
        gone.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some((gone.len(), text))
}

/// What the model `old` (an entry's bytes) loses when `new` replaces it:
/// `11 of 12 nodes, 14 of 20 slots, LODs 1-2, groups 1-4, all 40 frames`,
/// or `None` when it loses none of these (or either does not read as a model).
pub fn entry_losses(old: &[u8], new: &[u8]) -> Option<String> {
    let (old, new) = (
        Shape::of(&Model::from_bytes(old).ok()?),
        Shape::of(&Model::from_bytes(new).ok()?),
    );
    let mut parts = Vec::new();
    let count = |what: &str, old: usize, new: usize| {
        (new < old).then(|| match new {
            0 => format!("all {old} {what}"),
            _ => format!("{} of {old} {what}", old - new),
        })
    };
    parts.extend(count("nodes", old.nodes, new.nodes));
    parts.extend(count("slots", old.slots, new.slots));
    if let Some((n, text)) = lost(&old.lods, &new.lods) {
        parts.push(format!("LOD{} {text}", if n > 1 { "s" } else { "" }));
    }
    if let Some((n, text)) = lost(&old.groups, &new.groups) {
        parts.push(format!("group{} {text}", if n > 1 { "s" } else { "" }));
    }
    parts.extend(count("frames", old.frames as usize, new.frames as usize));
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The `archive.entry_loses` note of the entry shown as `label`
/// (`units.rlb:TANK.MSH`, its bytes `old`) replaced by `new`, when it loses
/// anything.
pub fn entry_loses_note(label: &str, old: &[u8], new: &[u8]) -> Option<Note> {
    let lost = entry_losses(old, new)?;
    Some(Note {
        code: NoteCode::ArchiveEntryLoses.code(),
        message: format!("{label} loses {lost}"),
    })
}

/// `archive.entry_loses` for the entry `name` of `archive` (shown as
/// `shown`, the archive's path or file name) replaced by `new`: nothing when
/// the archive has no such entry (an entry added loses nothing).
pub fn entry_loses_in(
    archive: &nres::Archive<'_>,
    shown: &str,
    name: &str,
    new: &[u8],
) -> Option<Note> {
    let old = super::find(archive, name).and_then(|i| archive.entry(i))?;
    entry_loses_note(&format!("{shown}:{}", old.name()), old.data(), new)
}

/// `archive.entry_loses` for the entry `name` of the archive file at `path`
/// replaced by `new` (nothing when the archive does not read: the note is
/// advice, the put itself says what is wrong with the archive).
pub fn entry_loses_at(path: &Path, name: &str, new: &[u8]) -> Option<Note> {
    let bytes = std::fs::read(path).ok()?;
    let archive = nres::Archive::parse(&bytes).ok()?;
    entry_loses_in(&archive, &path.display().to_string(), name, new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_indices_are_ranges_or_lists() {
        assert_eq!(
            lost(&[true, true, true], &[true, false, false]),
            Some((2, "1-2".into()))
        );
        assert_eq!(
            lost(&[true, true, false, true], &[false, true, false, false]),
            Some((2, "0, 3".into()))
        );
        assert_eq!(lost(&[true, false], &[true, true]), None);
    }
}
