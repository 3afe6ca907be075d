//! The container's typed error: what is wrong, with which entry, at which byte.

use std::fmt;

/// What kind of damage a container has. Stable: the CLI and the service map these to codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file is shorter than the 16-byte header.
    Truncated,
    /// The first four bytes are not `NRes`.
    BadMagic,
    /// The version field is not `0x100`.
    BadVersion,
    /// `entry_count` is negative.
    NegativeCount,
    /// `total_size` differs from the real length of the file.
    SizeMismatch,
    /// The directory would start before the end of the header (or the count overflows).
    DirectoryOutOfRange,
    /// A payload range leaves the area between the header and the directory.
    PayloadOutOfRange,
    /// Two payload ranges overlap.
    PayloadOverlap,
    /// A name has no NUL terminator or is not ASCII.
    BadName,
    /// A value does not fit the format when writing (too many entries, a file over 4 GiB, a long name).
    TooLarge,
}

impl ErrorKind {
    /// Stable machine-readable code.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "nres.truncated",
            ErrorKind::BadMagic => "nres.bad_magic",
            ErrorKind::BadVersion => "nres.bad_version",
            ErrorKind::NegativeCount => "nres.negative_count",
            ErrorKind::SizeMismatch => "nres.size_mismatch",
            ErrorKind::DirectoryOutOfRange => "nres.directory_out_of_range",
            ErrorKind::PayloadOutOfRange => "nres.payload_out_of_range",
            ErrorKind::PayloadOverlap => "nres.payload_overlap",
            ErrorKind::BadName => "nres.bad_name",
            ErrorKind::TooLarge => "nres.too_large",
        }
    }

    /// Every kind: the container layer's registry, for documentation and tests.
    pub const ALL: [ErrorKind; 10] = [
        ErrorKind::Truncated,
        ErrorKind::BadMagic,
        ErrorKind::BadVersion,
        ErrorKind::NegativeCount,
        ErrorKind::SizeMismatch,
        ErrorKind::DirectoryOutOfRange,
        ErrorKind::PayloadOutOfRange,
        ErrorKind::PayloadOverlap,
        ErrorKind::BadName,
        ErrorKind::TooLarge,
    ];
}

/// A container error with the entry and absolute byte offset it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    entry: Option<usize>,
    offset: Option<u64>,
    message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            entry: None,
            offset: None,
            message: message.into(),
        }
    }

    pub(crate) fn at(mut self, offset: usize) -> Self {
        self.offset = Some(offset as u64);
        self
    }

    pub(crate) fn entry(mut self, index: usize) -> Self {
        self.entry = Some(index);
        self
    }

    /// What kind of damage this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Stable machine-readable code, e.g. `nres.payload_out_of_range`.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// Index of the directory entry concerned, if any.
    pub fn entry_index(&self) -> Option<usize> {
        self.entry
    }

    /// Absolute byte offset in the file where the problem is, if known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// The human part of the message (without code, entry and offset).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.code(), self.message)?;
        if let Some(entry) = self.entry {
            write!(f, " (directory entry {entry})")?;
        }
        if let Some(offset) = self.offset {
            write!(f, " at byte {offset} (0x{offset:x})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Result with the container's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
