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
    archive
        .entries()
        .map(|e| EntryRow {
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
        })
        .collect()
}
