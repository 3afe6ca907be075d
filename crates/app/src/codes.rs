//! The application layer's codes, each defined once: the errors
//! ([`ErrorCode`]) and the notes ([`NoteCode`]) this crate gives itself (the
//! libraries' codes come with their errors; `option.invalid` is the
//! conversions', `mshconv_convert::codes::Code::OptionInvalid`). Call sites name a variant, never
//! the text; `codes::tests` checks that every code is unique, also against the
//! libraries' registries, and that the docs list it.

/// A code a front end or this crate gives an [`crate::Error`]: each layer's
/// registry implements it, so an error's code always comes from one.
pub trait CodeName: Copy {
    /// The stable machine-readable code.
    fn code(self) -> &'static str;
}

/// The errors of the application layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `internal`: a bug: what should not happen did (exit 2, HTTP 500)
    Internal,
    /// `input.unknown_format`: the input's format cannot be told, or the operation does not read it
    InputUnknownFormat,
    /// `input.no_such_entry`: the archive has no entry of the name given
    InputNoSuchEntry,
    /// `convert.unsupported_direction`: no conversion goes from the input's format to the one asked for
    ConvertUnsupportedDirection,
    /// `convert.unknown_format`: the output's format cannot be told from its name; give it (`--to`)
    ConvertUnknownFormat,
    /// `request.entry_required`: an archive of models given without naming the entry to work on
    RequestEntryRequired,
    /// `request.entry_not_model`: a model put under a name that is not a model entry's (no `.msh`)
    RequestEntryNotModel,
    /// `archive.bad_name`: a name that cannot be an archive entry's
    ArchiveBadName,
    /// `archive.is_model`: a model given where an archive of models is expected
    ArchiveIsModel,
    /// `archive.no_such_entry`: a put into an entry the archive lacks, without asking to add it
    ArchiveNoSuchEntry,
    /// `archive.entries_overlap`: entries of an archive to be edited, or its model entries to be converted, share or overlap their bytes
    ArchiveEntriesOverlap,
    /// `archive.is_folder`: a folder given where an archive is expected
    ArchiveIsFolder,
    /// `game_dir.not_found`: the game folder given is not a folder
    GameDirNotFound,
    /// `game_dir.no_libraries`: the game folder has no `Material.lib` or `Textures.lib` to bring a look back into
    GameDirNoLibraries,
    /// `look.bad_library`: a game library that does not read, so the look cannot go back into it
    LookBadLibrary,
    /// `look.bad_texture`: a texture of the look that cannot be made into a Texm entry
    LookBadTexture,
    /// `look.bad_material`: a material of the look that cannot be made into a MAT0 entry
    LookBadMaterial,
    /// `look.bad_wear`: the model's WEAR cannot be written
    LookBadWear,
    /// `look.edit_conflict`: two edits of one library entry differ (the file's and the library's since the export, two of a model's images or materials, two models of a batch): nothing is written
    LookEditConflict,
    /// `io.not_found`: a file or folder does not exist
    IoNotFound,
    /// `io.permission_denied`: the system refused access to a file
    IoPermissionDenied,
    /// `io.is_a_directory`: a folder where a file is expected
    IoIsADirectory,
    /// `io.not_a_directory`: a file where a folder is expected
    IoNotADirectory,
    /// `io.already_exists`: a file or link sits where a new file is made
    IoAlreadyExists,
    /// `io.no_space`: the disk is full
    IoNoSpace,
    /// `io.read_only`: a file to replace has no write bit
    IoReadOnly,
    /// `io.hard_linked`: a file to replace has more than one name
    IoHardLinked,
    /// `io.link_leaves_folder`: a file written beside the one named (WEAR, `.mtl`, PNG, `.bak`) is a symbolic link out of its folder
    IoLinkLeavesFolder,
    /// `io.error`: any other failure to read or write a file
    IoError,
    /// `txn.journal_unknown`: a journal of another format or version, or one naming files a transaction would not write
    TxnJournalUnknown,
    /// `txn.recovery_failed`: an interrupted run's journal cannot be finished
    TxnRecoveryFailed,
    /// `textures.no_index`: a folder without the `textures.json` that `mshconv textures export` writes
    TexturesNoIndex,
    /// `textures.bad_index`: a `textures.json` that does not read: its file, texture and field named
    TexturesBadIndex,
    /// `textures.bad_entry`: a texture of the library files that cannot be made into its Texm entry
    TexturesBadEntry,
    /// `materials.bad_file`: a material file that does not read: its file, material and field named
    MaterialsBadFile,
    /// `materials.no_such_texture`: a changed material names a texture `Textures.lib` lacks
    MaterialsNoSuchTexture,
    /// `look.run_refused`: a batch's look edits conflict: the run's models are not written
    LookRunRefused,
    /// `run.interrupted`: (batch, skipped) not converted: the batch was interrupted
    RunInterrupted,
    /// `input.not_convertible`: (batch, skipped) an input that does not convert to `--to`
    InputNotConvertible,
    /// `output.conflict`: (batch) two inputs would write one output
    OutputConflict,
}

impl ErrorCode {
    /// Every code, for documentation and tests.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::Internal,
        ErrorCode::InputUnknownFormat,
        ErrorCode::InputNoSuchEntry,
        ErrorCode::ConvertUnsupportedDirection,
        ErrorCode::ConvertUnknownFormat,
        ErrorCode::RequestEntryRequired,
        ErrorCode::RequestEntryNotModel,
        ErrorCode::ArchiveBadName,
        ErrorCode::ArchiveIsModel,
        ErrorCode::ArchiveNoSuchEntry,
        ErrorCode::ArchiveEntriesOverlap,
        ErrorCode::ArchiveIsFolder,
        ErrorCode::GameDirNotFound,
        ErrorCode::GameDirNoLibraries,
        ErrorCode::LookBadLibrary,
        ErrorCode::LookBadTexture,
        ErrorCode::LookBadMaterial,
        ErrorCode::LookBadWear,
        ErrorCode::LookEditConflict,
        ErrorCode::IoNotFound,
        ErrorCode::IoPermissionDenied,
        ErrorCode::IoIsADirectory,
        ErrorCode::IoNotADirectory,
        ErrorCode::IoAlreadyExists,
        ErrorCode::IoNoSpace,
        ErrorCode::IoReadOnly,
        ErrorCode::IoHardLinked,
        ErrorCode::IoLinkLeavesFolder,
        ErrorCode::IoError,
        ErrorCode::TxnJournalUnknown,
        ErrorCode::TxnRecoveryFailed,
        ErrorCode::TexturesNoIndex,
        ErrorCode::TexturesBadIndex,
        ErrorCode::TexturesBadEntry,
        ErrorCode::MaterialsBadFile,
        ErrorCode::MaterialsNoSuchTexture,
        ErrorCode::LookRunRefused,
        ErrorCode::RunInterrupted,
        ErrorCode::InputNotConvertible,
        ErrorCode::OutputConflict,
    ];

    /// The stable machine-readable code.
    pub const fn code(self) -> &'static str {
        match self {
            ErrorCode::Internal => "internal",
            ErrorCode::InputUnknownFormat => "input.unknown_format",
            ErrorCode::InputNoSuchEntry => "input.no_such_entry",
            ErrorCode::ConvertUnsupportedDirection => "convert.unsupported_direction",
            ErrorCode::ConvertUnknownFormat => "convert.unknown_format",
            ErrorCode::RequestEntryRequired => "request.entry_required",
            ErrorCode::RequestEntryNotModel => "request.entry_not_model",
            ErrorCode::ArchiveBadName => "archive.bad_name",
            ErrorCode::ArchiveIsModel => "archive.is_model",
            ErrorCode::ArchiveNoSuchEntry => "archive.no_such_entry",
            ErrorCode::ArchiveEntriesOverlap => "archive.entries_overlap",
            ErrorCode::ArchiveIsFolder => "archive.is_folder",
            ErrorCode::GameDirNotFound => "game_dir.not_found",
            ErrorCode::GameDirNoLibraries => "game_dir.no_libraries",
            ErrorCode::LookBadLibrary => "look.bad_library",
            ErrorCode::LookBadTexture => "look.bad_texture",
            ErrorCode::LookBadMaterial => "look.bad_material",
            ErrorCode::LookBadWear => "look.bad_wear",
            ErrorCode::LookEditConflict => "look.edit_conflict",
            ErrorCode::IoNotFound => "io.not_found",
            ErrorCode::IoPermissionDenied => "io.permission_denied",
            ErrorCode::IoIsADirectory => "io.is_a_directory",
            ErrorCode::IoNotADirectory => "io.not_a_directory",
            ErrorCode::IoAlreadyExists => "io.already_exists",
            ErrorCode::IoNoSpace => "io.no_space",
            ErrorCode::IoReadOnly => "io.read_only",
            ErrorCode::IoHardLinked => "io.hard_linked",
            ErrorCode::IoLinkLeavesFolder => "io.link_leaves_folder",
            ErrorCode::IoError => "io.error",
            ErrorCode::TxnJournalUnknown => "txn.journal_unknown",
            ErrorCode::TxnRecoveryFailed => "txn.recovery_failed",
            ErrorCode::TexturesNoIndex => "textures.no_index",
            ErrorCode::TexturesBadIndex => "textures.bad_index",
            ErrorCode::TexturesBadEntry => "textures.bad_entry",
            ErrorCode::MaterialsBadFile => "materials.bad_file",
            ErrorCode::MaterialsNoSuchTexture => "materials.no_such_texture",
            ErrorCode::LookRunRefused => "look.run_refused",
            ErrorCode::RunInterrupted => "run.interrupted",
            ErrorCode::InputNotConvertible => "input.not_convertible",
            ErrorCode::OutputConflict => "output.conflict",
        }
    }
}

/// The notes of the application layer (in a conversion's report, or as `note[CODE]` lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoteCode {
    /// `txn.rolled_back`: an interrupted run was rolled back
    TxnRolledBack,
    /// `txn.rolled_forward`: an interrupted run was completed
    TxnRolledForward,
    /// `game.no_material_lib`: the game folder has no `Material.lib`: materials are not resolved
    GameNoMaterialLib,
    /// `game.bad_material_lib`: `Material.lib` does not read
    GameBadMaterialLib,
    /// `game.bad_mat0`: an entry of `Material.lib` does not read
    GameBadMat0,
    /// `game.no_textures_lib`: the game folder has no `Textures.lib`: textures are not exported
    GameNoTexturesLib,
    /// `game.bad_textures_lib`: `Textures.lib` does not read
    GameBadTexturesLib,
    /// `game.no_wear`: the model has no WEAR beside it (or it does not read as a file)
    GameNoWear,
    /// `game.bad_wear`: the model's WEAR does not parse
    GameBadWear,
    /// `game.material_default`: a material row resolved by the runtime's default rule
    GameMaterialDefault,
    /// `game.material_first_entry`: a material row resolved to the library's first entry
    GameMaterialFirstEntry,
    /// `game.no_texture`: a material names a texture `Textures.lib` lacks
    GameNoTexture,
    /// `game.missing_wear_row`: a batch names a material index past the WEAR's rows
    GameMissingWearRow,
    /// `look.texture_replaced`: an edited texture was re-encoded in its format
    LookTextureReplaced,
    /// `look.texture_resized`: an imported image was resized to fit its texture
    LookTextureResized,
    /// `look.name_fitted`: a new texture or material name was shortened or changed to fit its library
    LookNameFitted,
    /// `look.palette_reduced`: colours painted into a palette texture became the nearest palette colour
    LookPaletteReduced,
    /// `look.grey_reduced`: colours painted into a grey-and-alpha texture became grey
    LookGreyReduced,
    /// `look.alpha_dropped`: alpha painted into an opaque texture was dropped
    LookAlphaDropped,
    /// `look.material_replaced`: an edited material replaced its library entry
    LookMaterialReplaced,
    /// `look.material_untextured`: a material came back without its texture
    LookMaterialUntextured,
    /// `look.recorded_wear_unreadable`: the WEAR recorded in the glTF does not read back: its rows are made anew
    LookRecordedWearUnreadable,
    /// `look.existing_wear_unreadable`: the WEAR at the output's place does not read: it is replaced
    LookExistingWearUnreadable,
    /// `look.library_kept`: a library entry changed since the file was exported, and the file leaves it as exported: the library's is kept
    LookLibraryKept,
    /// `look.no_base`: the file does not record what a texture was when exported: its picture replaces the library's entry as it is now
    LookNoBase,
    /// `export.clips_beside`: the clip list was read from the file beside the model
    ExportClipsBeside,
    /// `import.clips_not_written`: the clip list is not written into an archive
    ImportClipsNotWritten,
    /// `look.entry`: a library entry the look brought back adds or replaces (both front ends say it)
    LookEntry,
    /// `look.backup`: a game library was saved as `.bak` before its first change
    LookBackup,
    /// `textures.skipped`: an entry of `Textures.lib` that is not a texture, left out of the export
    TexturesSkipped,
    /// `textures.png_missing`: a texture of `textures.json` whose PNG is missing: its entry is left as it is
    TexturesPngMissing,
    /// `textures.other_png`: a PNG in the export folder that is none of the library's textures
    TexturesOtherPng,
    /// `archive.entry_loses`: what a replaced archive entry loses
    ArchiveEntryLoses,
    /// `look.shared_edit`: an edited library entry is shown by other models too
    LookSharedEdit,
    /// `look.not_written`: the look is not written without the game folder
    LookNotWritten,
    /// `archive.replaced`: an archive entry was replaced
    ArchiveReplaced,
    /// `archive.added`: an archive entry was added
    ArchiveAdded,
}

impl NoteCode {
    /// Every code, for documentation and tests.
    pub const ALL: &'static [NoteCode] = &[
        NoteCode::TxnRolledBack,
        NoteCode::TxnRolledForward,
        NoteCode::GameNoMaterialLib,
        NoteCode::GameBadMaterialLib,
        NoteCode::GameBadMat0,
        NoteCode::GameNoTexturesLib,
        NoteCode::GameBadTexturesLib,
        NoteCode::GameNoWear,
        NoteCode::GameBadWear,
        NoteCode::GameMaterialDefault,
        NoteCode::GameMaterialFirstEntry,
        NoteCode::GameNoTexture,
        NoteCode::GameMissingWearRow,
        NoteCode::LookTextureReplaced,
        NoteCode::LookTextureResized,
        NoteCode::LookNameFitted,
        NoteCode::LookPaletteReduced,
        NoteCode::LookGreyReduced,
        NoteCode::LookAlphaDropped,
        NoteCode::LookMaterialReplaced,
        NoteCode::LookMaterialUntextured,
        NoteCode::LookRecordedWearUnreadable,
        NoteCode::LookExistingWearUnreadable,
        NoteCode::LookLibraryKept,
        NoteCode::LookNoBase,
        NoteCode::ExportClipsBeside,
        NoteCode::ImportClipsNotWritten,
        NoteCode::LookEntry,
        NoteCode::LookBackup,
        NoteCode::TexturesSkipped,
        NoteCode::TexturesPngMissing,
        NoteCode::TexturesOtherPng,
        NoteCode::ArchiveEntryLoses,
        NoteCode::LookSharedEdit,
        NoteCode::LookNotWritten,
        NoteCode::ArchiveReplaced,
        NoteCode::ArchiveAdded,
    ];

    /// The stable machine-readable code.
    pub const fn code(self) -> &'static str {
        match self {
            NoteCode::TxnRolledBack => "txn.rolled_back",
            NoteCode::TxnRolledForward => "txn.rolled_forward",
            NoteCode::GameNoMaterialLib => "game.no_material_lib",
            NoteCode::GameBadMaterialLib => "game.bad_material_lib",
            NoteCode::GameBadMat0 => "game.bad_mat0",
            NoteCode::GameNoTexturesLib => "game.no_textures_lib",
            NoteCode::GameBadTexturesLib => "game.bad_textures_lib",
            NoteCode::GameNoWear => "game.no_wear",
            NoteCode::GameBadWear => "game.bad_wear",
            NoteCode::GameMaterialDefault => "game.material_default",
            NoteCode::GameMaterialFirstEntry => "game.material_first_entry",
            NoteCode::GameNoTexture => "game.no_texture",
            NoteCode::GameMissingWearRow => "game.missing_wear_row",
            NoteCode::LookTextureReplaced => "look.texture_replaced",
            NoteCode::LookTextureResized => "look.texture_resized",
            NoteCode::LookNameFitted => "look.name_fitted",
            NoteCode::LookPaletteReduced => "look.palette_reduced",
            NoteCode::LookGreyReduced => "look.grey_reduced",
            NoteCode::LookAlphaDropped => "look.alpha_dropped",
            NoteCode::LookMaterialReplaced => "look.material_replaced",
            NoteCode::LookMaterialUntextured => "look.material_untextured",
            NoteCode::LookRecordedWearUnreadable => "look.recorded_wear_unreadable",
            NoteCode::LookExistingWearUnreadable => "look.existing_wear_unreadable",
            NoteCode::LookLibraryKept => "look.library_kept",
            NoteCode::LookNoBase => "look.no_base",
            NoteCode::ExportClipsBeside => "export.clips_beside",
            NoteCode::ImportClipsNotWritten => "import.clips_not_written",
            NoteCode::LookEntry => "look.entry",
            NoteCode::LookBackup => "look.backup",
            NoteCode::TexturesSkipped => "textures.skipped",
            NoteCode::TexturesPngMissing => "textures.png_missing",
            NoteCode::TexturesOtherPng => "textures.other_png",
            NoteCode::ArchiveEntryLoses => "archive.entry_loses",
            NoteCode::LookSharedEdit => "look.shared_edit",
            NoteCode::LookNotWritten => "look.not_written",
            NoteCode::ArchiveReplaced => "archive.replaced",
            NoteCode::ArchiveAdded => "archive.added",
        }
    }
}

/// Every code of this layer and of the libraries below it (the container's,
/// the model's, the game data's, the conversions'), for the docs and for the
/// front ends' tests that no code is given twice.
pub fn every_code() -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = nres::ErrorKind::ALL.iter().map(|k| k.code()).collect();
    codes.extend(msh::Code::ALL.iter().map(|c| c.as_str()));
    codes.extend(mshconv_material::ErrorKind::ALL.iter().map(|k| k.code()));
    codes.extend(mshconv_convert::codes::Code::ALL.iter().map(|c| c.code()));
    codes.extend(ErrorCode::ALL.iter().map(|c| c.code()));
    codes.extend(NoteCode::ALL.iter().map(|c| c.code()));
    codes
}

impl CodeName for ErrorCode {
    fn code(self) -> &'static str {
        ErrorCode::code(self)
    }
}

impl CodeName for msh::Code {
    fn code(self) -> &'static str {
        self.as_str()
    }
}

impl CodeName for mshconv_convert::codes::Code {
    fn code(self) -> &'static str {
        mshconv_convert::codes::Code::code(self)
    }
}

#[cfg(test)]
mod tests;
