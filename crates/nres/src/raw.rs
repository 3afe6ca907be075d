//! Raw on-disk records of the NRes container, field by field as FORMAT.md section 1 gives them.
//!
//! Every type here has alignment 1 and a fixed little-endian layout, so a whole
//! directory can be viewed in place once its bounds are checked.

use zerocopy::little_endian::{I32, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The magic bytes every NRes file starts with.
pub const MAGIC: [u8; 4] = *b"NRes";
/// The only version the game writes (`0x100`).
pub const VERSION: u32 = 0x100;
/// Size of the file header in bytes.
pub const HEADER_SIZE: usize = 16;
/// Size of one directory entry in bytes.
pub const ENTRY_SIZE: usize = 64;
/// Size of the name field of a directory entry, NUL terminator included.
pub const NAME_SIZE: usize = 36;
/// Longest name that fits the name field (one byte is kept for the NUL).
pub const MAX_NAME_LEN: usize = NAME_SIZE - 1;
/// Payloads start on multiples of this many bytes in a canonical file.
pub const ALIGNMENT: usize = 8;

/// The 16-byte file header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawHeader {
    /// `NRes`.
    pub magic: [u8; 4],
    /// Always `0x100`.
    pub version: U32,
    /// Number of directory entries (signed on disk; must be >= 0).
    pub entry_count: I32,
    /// Length of the whole file in bytes.
    pub total_size: U32,
}

/// One 64-byte directory entry.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct RawEntry {
    /// Resource type; models look their resources up by this number.
    pub type_id: U32,
    /// First attribute (for model resources usually a record count).
    pub attr1: U32,
    /// Second attribute (resource specific).
    pub attr2: U32,
    /// Payload size in bytes.
    pub size: U32,
    /// Third attribute (for model resources usually the record stride).
    pub attr3: U32,
    /// Name, NUL-terminated ASCII, at most 35 bytes of text.
    pub name: [u8; NAME_SIZE],
    /// Absolute offset of the payload.
    pub data_offset: U32,
    /// Entry index of the `i`-th name in case-insensitive name order.
    pub sort_index: U32,
}

const _: () = assert!(core::mem::size_of::<RawHeader>() == HEADER_SIZE);
const _: () = assert!(core::mem::size_of::<RawEntry>() == ENTRY_SIZE);

/// Field offsets inside a [`RawEntry`], for error messages that point at a byte.
pub mod entry_field {
    /// Offset of `type_id`.
    pub const TYPE_ID: usize = 0;
    /// Offset of `size`.
    pub const SIZE: usize = 12;
    /// Offset of `name`.
    pub const NAME: usize = 20;
    /// Offset of `data_offset`.
    pub const DATA_OFFSET: usize = 56;
    /// Offset of `sort_index`.
    pub const SORT_INDEX: usize = 60;
}
