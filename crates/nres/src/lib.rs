//! # nres: the NRes container of *Parkan: Iron Strategy*
//!
//! An NRes file is an archive of typed, named payloads: a 16-byte header, the
//! payloads (each padded with zeros to 8 bytes), then a directory of 64-byte
//! entries at the very end. The game uses it as an outer archive (`*.rlb`,
//! many models) and as the container of one model (a `*.msh` file *is* an NRes
//! file). FORMAT.md section 1 is the reference.
//!
//! Layers:
//! - [`raw`]: the on-disk records, field by field;
//! - [`Archive`]: a zero-copy, bounds-checked view of a file;
//! - [`Directory`]: the same checks from the header and directory alone, for
//!   archives read entry by entry rather than whole;
//! - [`OwnedArchive`]: an editable copy and the writer, canonical or lossless;
//! - [`first_overlap`]: entries whose payloads share bytes, which a writer
//!   would copy once per entry.
//!
//! ```
//! use nres::{Archive, OwnedArchive, OwnedEntry, WriteMode};
//!
//! let mut archive = OwnedArchive::new();
//! archive.push(OwnedEntry::new(3, "positions", vec![1, 2, 3]).unwrap());
//! let bytes = archive.write(WriteMode::Canonical).unwrap();
//!
//! let parsed = Archive::parse(&bytes).unwrap();
//! assert_eq!(parsed.find_by_type(3).unwrap().data(), &[1, 2, 3]);
//! assert_eq!(parsed.find_by_name("POSITIONS").unwrap().index(), 0);
//! // An unedited archive is written back byte for byte.
//! assert_eq!(OwnedArchive::from_archive(&parsed).write(WriteMode::Lossless).unwrap(), bytes);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod directory;
mod error;
mod name;
mod overlap;
pub mod raw;
mod read;
mod write;

pub use directory::Directory;
pub use error::{Error, ErrorKind, Result};
pub use name::{cmp_names, sort_table, Name};
pub use overlap::{first_overlap, first_overlap_of, payload_range, Overlap};
pub use read::{is_model_name, Archive, Entry, Layout};
pub use write::{Filler, OwnedArchive, OwnedEntry, WriteMode};

/// True when `bytes` start with the NRes magic.
pub fn is_nres(bytes: &[u8]) -> bool {
    bytes.starts_with(&raw::MAGIC)
}
