//! The crate's typed error: what is wrong, with a stable code and the byte offset.

use std::fmt;

/// What kind of problem an input (or a value being written) has.
///
/// Stable: each kind has a machine-readable [`code`](ErrorKind::code) that
/// front ends may map and tests compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// WEAR: a byte that has no place in the text (a control character, a lone CR).
    WearBadByte,
    /// WEAR: the count line is missing, not one decimal number, or too large.
    WearBadCount,
    /// WEAR: the material count is zero.
    WearZeroCount,
    /// WEAR: the file ends before all the rows its count announces.
    WearMissingRow,
    /// WEAR: a row is not exactly `<legacy_id> <name>`.
    WearBadRow,
    /// WEAR: `LIGHTMAPS` follows the material rows without the empty line.
    WearMissingSeparator,
    /// WEAR: after the empty line comes something other than `LIGHTMAPS`.
    WearBadMarker,
    /// WEAR: text after the last table (more rows than the count, or garbage).
    WearTrailingText,
    /// WEAR (writing): a character Windows-1251 cannot encode.
    WearUnencodable,
    /// WEAR (writing): a field or spacing that would not read back the same.
    WearBadLayout,
    /// MAT0: the payload version (`attr2`) is past the newest one known.
    Mat0BadVersion,
    /// MAT0: the payload ends before a field, phase, block or key.
    Mat0Truncated,
    /// MAT0: `animation_block_count` is not below the limit.
    Mat0TooManyBlocks,
    /// MAT0: bytes after the last animation block.
    Mat0TrailingBytes,
    /// MAT0 (writing): the value does not fit the format (metadata vs version, counts).
    Mat0BadLayout,
    /// Texm: the payload ends before the header, palette or a mip level.
    TexmTruncated,
    /// Texm: the first four bytes are not `Texm`.
    TexmBadMagic,
    /// Texm: width or height is zero.
    TexmZeroSize,
    /// Texm: `mip_count` is zero.
    TexmZeroMips,
    /// Texm: the pixel format is not one of 0, 565, 556, 4444, 88, 888, 8888.
    TexmBadFormat,
    /// Texm: bytes after the mip chain that are not a `Page` chunk.
    TexmBadPage,
    /// Texm: a `Page` chunk whose size is not `8 + 8 * rect_count`.
    TexmBadPageSize,
    /// Texm (writing or encoding): the value or the pixels do not fit the format.
    TexmBadLayout,
}

impl ErrorKind {
    /// Stable machine-readable code, e.g. `texm.truncated`.
    pub fn code(self) -> &'static str {
        use ErrorKind::*;
        match self {
            WearBadByte => "wear.bad_byte",
            WearBadCount => "wear.bad_count",
            WearZeroCount => "wear.zero_count",
            WearMissingRow => "wear.missing_row",
            WearBadRow => "wear.bad_row",
            WearMissingSeparator => "wear.missing_separator",
            WearBadMarker => "wear.bad_marker",
            WearTrailingText => "wear.trailing_text",
            WearUnencodable => "wear.unencodable",
            WearBadLayout => "wear.bad_layout",
            Mat0BadVersion => "mat0.bad_version",
            Mat0Truncated => "mat0.truncated",
            Mat0TooManyBlocks => "mat0.too_many_blocks",
            Mat0TrailingBytes => "mat0.trailing_bytes",
            Mat0BadLayout => "mat0.bad_layout",
            TexmTruncated => "texm.truncated",
            TexmBadMagic => "texm.bad_magic",
            TexmZeroSize => "texm.zero_size",
            TexmZeroMips => "texm.zero_mips",
            TexmBadFormat => "texm.bad_format",
            TexmBadPage => "texm.bad_page",
            TexmBadPageSize => "texm.bad_page_size",
            TexmBadLayout => "texm.bad_layout",
        }
    }

    /// Every kind, for documentation and tests.
    pub const ALL: [ErrorKind; 23] = {
        use ErrorKind::*;
        [
            WearBadByte,
            WearBadCount,
            WearZeroCount,
            WearMissingRow,
            WearBadRow,
            WearMissingSeparator,
            WearBadMarker,
            WearTrailingText,
            WearUnencodable,
            WearBadLayout,
            Mat0BadVersion,
            Mat0Truncated,
            Mat0TooManyBlocks,
            Mat0TrailingBytes,
            Mat0BadLayout,
            TexmTruncated,
            TexmBadMagic,
            TexmZeroSize,
            TexmZeroMips,
            TexmBadFormat,
            TexmBadPage,
            TexmBadPageSize,
            TexmBadLayout,
        ]
    };
}

/// An error with its kind, the byte offset it concerns (always set for
/// parse errors: the offset in the input; unset for writing errors) and a
/// human message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: Option<u64>,
    message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            offset: None,
            message: message.into(),
        }
    }

    pub(crate) fn at(kind: ErrorKind, offset: usize, message: impl Into<String>) -> Self {
        Error {
            kind,
            offset: Some(offset as u64),
            message: message.into(),
        }
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Stable machine-readable code, e.g. `mat0.truncated`.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// Byte offset in the input where the problem is (parse errors only).
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// The human part of the message (without code and offset).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.code(), self.message)?;
        if let Some(offset) = self.offset {
            write!(f, " at byte {offset} (0x{offset:x})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Result with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
