//! # mshconv_app: the application layer under the CLI and the HTTP service
//!
//! The libraries below ([`nres`], [`msh`], [`mshconv_convert`]) know formats;
//! the front ends above (the `mshconv` CLI and `mshconv-server`) know their
//! syntax (flags, query strings, multipart bodies). Everything between them
//! exists once, here:
//!
//! - [`FORMATS`]: the formats' table ([`Format`]), told from a file name or sniffed from the bytes;
//! - [`OPTIONS`]: the options' table; [`Options`]: every conversion option,
//!   parsed (`FromStr`) and range-checked once;
//! - [`convert()`]: the one conversion entry point, taking what lies outside the
//!   input through [`Resources`];
//! - [`game`]: the game folder's libraries, read once per process, and the
//!   resolver of a model's materials and textures (`--game-dir`);
//! - [`archive`]: the archive policy (the game's lookup with its fallback, the
//!   shared-bytes refusal, safe output names);
//! - [`Error`]: one error with its stable code, CLI exit code, HTTP status and
//!   metrics label, and the error it came from (`source()`);
//! - [`codes`]: this layer's error and note codes, each defined once;
//! - [`report`]: the output shapes of `inspect`, `pose` and `validate`;
//! - [`txn`]: writing the user's files (archives, libraries, WEAR and model):
//!   locked against other writers, as one transaction, links and modes kept;
//! - [`put`]: a model into a file or an archive entry with its look, or a
//!   dry run saying which files that would change;
//! - [`batch`]: many conversions planned, run in parallel and written, with
//!   the looks brought back and an archive filled as one transaction.
//!
//! `docs/ARCHITECTURE.md` shows how a request flows through the layers.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod report;
pub use report::{EntryRow, FileResult, Inspection, PoseDoc, F32};

pub mod archive;
pub mod batch;
pub mod codes;
mod convert;
mod error;
mod file_stamp;
pub mod format;
pub mod game;
pub mod library_files;
pub mod look_import;
pub mod names;
mod options;
pub mod original;
pub mod put;
pub mod resources;
pub mod txn;

pub use codes::{CodeName, ErrorCode, NoteCode};
pub use convert::{
    convert, convert_bringing_look, model_as_msh, model_as_msh_bringing_look, Names, Output,
    OutputFile,
};
pub use error::{io_code, Error, Kind, Location, EXIT_INVALID, EXIT_USAGE};
pub use format::{
    input_format, is_archive_path, Format, FormatSpec, UnknownFormatName, ZipRule, FORMATS, JSON,
    TEXT_PLAIN, ZIP,
};
pub use game::{GameDir, GameLook, GameResources, ModelLocation};
pub use options::{
    AnimationOption, AxisOption, Fps, Group, Lod, OptionName, OptionSpec, OptionValues, Options,
    RotationOption, OPTIONS,
};
pub use resources::{Folder, GivenMtl, Inputs, NoResources, Resources};
