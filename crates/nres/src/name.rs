//! Entry names: a 36-byte field holding NUL-terminated ASCII, compared case-insensitively.

use crate::error::{Error, ErrorKind, Result};
use crate::raw::{MAX_NAME_LEN, NAME_SIZE};
use std::cmp::Ordering;
use std::fmt;

/// The whole 36-byte name field of a directory entry.
///
/// Bytes after the first NUL are kept as they were read, so a file whose name
/// fields carry leftovers after the terminator is written back identically.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name([u8; NAME_SIZE]);

impl Name {
    /// A name field holding `text` followed by zeros.
    pub fn new(text: &str) -> Result<Self> {
        Self::from_bytes(text.as_bytes())
    }

    /// A name field holding `text` followed by zeros; at most 35 bytes and no NUL.
    pub fn from_bytes(text: &[u8]) -> Result<Self> {
        if text.len() > MAX_NAME_LEN || text.contains(&0) {
            return Err(Error::new(
                ErrorKind::BadName,
                format!(
                    "name {:?} must be at most {MAX_NAME_LEN} bytes without NUL",
                    String::from_utf8_lossy(text)
                ),
            ));
        }
        let mut field = [0u8; NAME_SIZE];
        field[..text.len()].copy_from_slice(text);
        Ok(Name(field))
    }

    /// The field exactly as stored.
    pub fn from_field(field: [u8; NAME_SIZE]) -> Self {
        Name(field)
    }

    /// All 36 bytes.
    pub fn field(&self) -> &[u8; NAME_SIZE] {
        &self.0
    }

    /// The text up to the first NUL.
    pub fn as_bytes(&self) -> &[u8] {
        Self::text_of(&self.0)
    }

    /// The text up to the first NUL, lossily decoded.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.as_bytes()).into_owned()
    }

    /// True when every byte after the text is zero (what the canonical writer produces).
    pub fn is_clean(&self) -> bool {
        let len = self.as_bytes().len();
        self.0[len..].iter().all(|&b| b == 0)
    }

    /// The text of a raw name field: its bytes up to the first NUL.
    pub fn text_of(field: &[u8; NAME_SIZE]) -> &[u8] {
        let end = field.iter().position(|&b| b == 0).unwrap_or(NAME_SIZE);
        &field[..end]
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Name({:?})", self.to_string_lossy())
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// ASCII case-insensitive ordering of two names, as the game's lookup uses.
pub fn cmp_names(a: &[u8], b: &[u8]) -> Ordering {
    a.iter()
        .map(u8::to_ascii_lowercase)
        .cmp(b.iter().map(u8::to_ascii_lowercase))
}

/// The canonical `sort_index` table for these names: `result[i]` is the entry
/// index of the `i`-th name in case-insensitive order (ties keep entry order).
pub fn sort_table<'n>(names: impl IntoIterator<Item = &'n [u8]>) -> Vec<u32> {
    let names: Vec<&[u8]> = names.into_iter().collect();
    let mut order: Vec<u32> = (0..names.len() as u32).collect();
    order.sort_by(|&a, &b| cmp_names(names[a as usize], names[b as usize]));
    order
}
