//! The CLI's own codes, each defined once: its errors and batch outcomes
//! ([`CliCode`]) and its notes ([`CliNote`]). The application layer's and the
//! libraries' codes come from their registries (`mshconv_app::codes`, ...);
//! the tests check that no code is given twice across all layers and that the
//! docs list each.

/// The CLI's errors and batch outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CliCode {
    /// `stdout.closed`: stdout was closed by its reader: the run stops quietly, exit 0 (never printed)
    StdoutClosed,
    /// `clips.unreadable`: `--clips` is neither a clip list nor a readable file
    ClipsUnreadable,
    /// `manifest.invalid`: `nres pack`'s manifest does not parse
    ManifestInvalid,
    /// `manifest.unlisted`: `nres pack`'s folder holds files its manifest does not list
    ManifestUnlisted,
    /// `io.not_empty`: `nres extract` into a folder that is not empty, without `--force`
    IoNotEmpty,
}

impl CliCode {
    /// Every code, for documentation and tests (a binary uses it in its tests only).
    #[cfg_attr(not(test), allow(dead_code))]
    pub const ALL: &'static [CliCode] = &[
        CliCode::StdoutClosed,
        CliCode::ClipsUnreadable,
        CliCode::ManifestInvalid,
        CliCode::ManifestUnlisted,
        CliCode::IoNotEmpty,
    ];

    /// The stable machine-readable code.
    pub const fn code(self) -> &'static str {
        match self {
            CliCode::StdoutClosed => "stdout.closed",
            CliCode::ClipsUnreadable => "clips.unreadable",
            CliCode::ManifestInvalid => "manifest.invalid",
            CliCode::ManifestUnlisted => "manifest.unlisted",
            CliCode::IoNotEmpty => "io.not_empty",
        }
    }
}

/// The CLI's notes (`note[CODE]: ...` on stderr, or in a batch's report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CliNote {
    /// `input.format_sniffed`: the input's format was told from its bytes, not its name
    InputFormatSniffed,
    /// `convert.textures_not_written`: a model written to stdout (`.gltf`, `.usda`, `.obj`) names PNG files that are not written
    ConvertTexturesNotWritten,
    /// `convert.mtl_not_written`: an `.obj` written to stdout names its `.mtl`, which is not written
    ConvertMtlNotWritten,
    /// `archive.removed`: an archive entry was removed
    ArchiveRemoved,
}

impl CliNote {
    /// Every code, for documentation and tests (a binary uses it in its tests only).
    #[cfg_attr(not(test), allow(dead_code))]
    pub const ALL: &'static [CliNote] = &[
        CliNote::InputFormatSniffed,
        CliNote::ConvertTexturesNotWritten,
        CliNote::ConvertMtlNotWritten,
        CliNote::ArchiveRemoved,
    ];

    /// The stable machine-readable code.
    pub const fn code(self) -> &'static str {
        match self {
            CliNote::InputFormatSniffed => "input.format_sniffed",
            CliNote::ConvertTexturesNotWritten => "convert.textures_not_written",
            CliNote::ConvertMtlNotWritten => "convert.mtl_not_written",
            CliNote::ArchiveRemoved => "archive.removed",
        }
    }
}

impl mshconv_app::CodeName for CliCode {
    fn code(self) -> &'static str {
        CliCode::code(self)
    }
}

#[cfg(test)]
mod tests;
