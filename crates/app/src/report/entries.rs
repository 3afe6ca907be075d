//! What `mshconv nres list --json` prints: an archive's directory as [`EntryRow`]s.

use super::type_text;
use serde::Serialize;

/// One directory entry of an NRes file, as `mshconv nres list --json` and the
/// service's `/v1/archive/list` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryRow {
    /// Position in the directory.
    pub index: usize,
    /// Resource type.
    pub type_id: u32,
    /// The type as text where its four little-endian bytes are printable
    /// (`"MSH"`, `"TXT"`; see [`type_text`]), null otherwise.
    pub type_text: Option<String>,
    /// Name (text up to the NUL).
    pub name: String,
    /// Payload size in bytes.
    pub size: u32,
    /// First attribute.
    pub attr1: u32,
    /// Second attribute.
    pub attr2: u32,
    /// Third attribute.
    pub attr3: u32,
    /// Absolute payload offset.
    pub offset: u32,
    /// `sort_index` as stored.
    pub sort_index: u32,
}

/// Every directory entry of an archive, in directory order.
pub fn entry_rows(archive: &nres::Archive<'_>) -> Vec<EntryRow> {
    archive.entries().map(entry_row).collect()
}

/// [`entry_rows`] serialised one row at a time, never all of them in memory
/// at once (an archive of a million empty entries made 140 MiB of rows for
/// 64 MiB of input): the same JSON as the list of rows.
#[derive(Debug, Clone, Copy)]
pub struct EntryRows<'b, 'a>(pub &'b nres::Archive<'a>);

impl Serialize for EntryRows<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.entries().map(entry_row))
    }
}

/// One directory entry's row.
fn entry_row(e: nres::Entry<'_>) -> EntryRow {
    EntryRow {
        index: e.index(),
        type_id: e.type_id(),
        type_text: type_text(e.type_id()),
        name: e.name(),
        size: e.size(),
        attr1: e.attr1(),
        attr2: e.attr2(),
        attr3: e.attr3(),
        offset: e.data_offset(),
        sort_index: e.sort_index(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_one_at_a_time_are_the_list_of_rows() {
        let mut owned = nres::OwnedArchive::new();
        for (i, name) in ["A.MSH", "b.txt", "C"].iter().enumerate() {
            owned.push(nres::OwnedEntry::new(0x0048_534D + i as u32, name, vec![1; i]).unwrap());
        }
        owned.recompute_sort_index();
        let bytes = owned.write(nres::WriteMode::Canonical).unwrap();
        let archive = nres::Archive::parse(&bytes).unwrap();
        assert_eq!(
            serde_json::to_vec_pretty(&EntryRows(&archive)).unwrap(),
            serde_json::to_vec_pretty(&entry_rows(&archive)).unwrap()
        );
        let empty = nres::OwnedArchive::new()
            .write(nres::WriteMode::Canonical)
            .unwrap();
        let empty = nres::Archive::parse(&empty).unwrap();
        assert_eq!(
            serde_json::to_string_pretty(&EntryRows(&empty)).unwrap(),
            "[]"
        );
    }
}
