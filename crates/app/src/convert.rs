//! The one conversion entry point: bytes in a format, options and resources
//! in, the output files and the report out. The formats are reached only
//! through their rows of [`crate::format::FORMATS`]: each row's exporter and
//! importer (the format crate's plug-in) take the neutral settings
//! [`Options::export_settings`] and [`Options::import_settings`] make.

use crate::codes::NoteCode;
use crate::error::Error;
use crate::format::Format;
use crate::options::Options;
use crate::resources::Resources;
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::plugin::{ExportFormat, ImportFormat};
use mshconv_convert::{ClipList, ExportView, Imported, Report};

/// How the outputs are named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    /// The model's name, written into glTF output as the scene name.
    pub model: String,
    /// The output files' stem: `{file}.{ext}`, and an `.obj`'s `{file}.mtl`.
    pub file: String,
}

impl Names {
    /// The same name for the model and the files.
    pub fn same(name: &str) -> Names {
        Names {
            model: name.to_string(),
            file: name.to_string(),
        }
    }
}

/// One output file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// Its file name, `{file}.{ext}`.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// What a conversion made: the main file first (the `.obj` before its `.mtl`).
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The files.
    pub files: Vec<OutputFile>,
    /// What the conversion approximated or decided.
    pub report: Report,
}

impl Output {
    /// The main output file (the model itself).
    pub fn main(&self) -> &OutputFile {
        &self.files[0]
    }
    /// Total bytes of every file.
    pub fn len(&self) -> u64 {
        self.files.iter().map(|f| f.bytes.len() as u64).sum()
    }
    /// Whether every file is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Converts `input` (in format `from`) to `to`. The options were checked when
/// they were parsed; `resources` gives what lies outside the input.
pub fn convert(
    input: &[u8],
    (from, to): (Format, Format),
    options: &Options,
    names: &Names,
    resources: &dyn Resources,
) -> Result<Output, Error> {
    from.check_direction(to)?;
    let file = |ext: &str, bytes: Vec<u8>| OutputFile {
        name: format!("{}.{ext}", names.file),
        bytes,
    };
    if from != Format::Msh {
        return Ok(import(input, from, options, names, resources, false)?.0);
    }
    // Every export: the clips (given, or the list beside the model for the
    // formats that take them), the settings checked as the format takes them,
    // the model opened and validated once into the view every export and the
    // look's notes read.
    let exporter = exporter(to)?;
    let mut settings = options.export_settings(names);
    let takes_clips = exporter.takes_clips();
    let (clips, beside) = match takes_clips {
        true => clips_beside(options, resources, &names.model)?,
        false => (None, None),
    };
    // Clips asked for a format without animation are said, not dropped silently.
    let clips_ignored = !takes_clips && options.clips.is_some();
    settings.clips = clips;
    exporter.check(&settings)?;
    let game = resources.look();
    let view = ExportView::new(input)?;
    let view = match &game {
        // Without a game folder: the export as it always was.
        None => view,
        Some(game) => view.with_look(&game.look, &names.file),
    };
    let exported = exporter.export(&view, &settings)?;
    let mut report = exported.report;
    if let Some(game) = &game {
        crate::game::add_notes(&view, game, &mut report);
    }
    note_clips_beside(&mut report, beside);
    if clips_ignored {
        report.note(
            // The core's code: the clips are not written, as for a model whose
            // animation tables travel raw.
            mshconv_convert::codes::Code::ExportClipsIgnored.code(),
            format!(
                "the clips are not written: .{} holds no animation (only the rest pose)",
                to.name()
            ),
        );
    }
    let mut files = vec![file(to.name(), exported.main)];
    // Then the files beside it (an .obj's .mtl first, before the PNGs it names).
    files.extend(
        exported
            .side
            .into_iter()
            .map(|(name, bytes)| OutputFile { name, bytes }),
    );
    Ok(Output { files, report })
}

/// [`convert`] of a glTF, GLB or OBJ to MSH that also reads the look the
/// input brings back (what [`crate::look_import::read_look`] reads, its
/// notes in the report beside it) from the same parse of the input: a
/// `--game-dir` import needs both, and the document is then parsed and its
/// material indices computed once.
pub fn convert_bringing_look(
    input: &[u8],
    from: Format,
    options: &Options,
    names: &Names,
    resources: &dyn Resources,
) -> Result<(Output, ImportedLook, Report), Error> {
    from.check_direction(Format::Msh)?;
    let (output, look) = import(input, from, options, names, resources, true)?;
    let (look, notes) = crate::look_import::notes_apart(look.unwrap_or_default());
    Ok((output, look, notes))
}

/// An import to MSH (the look too, when `look`): the model, then its clip
/// list beside it.
fn import(
    input: &[u8],
    from: Format,
    options: &Options,
    names: &Names,
    resources: &dyn Resources,
    look: bool,
) -> Result<(Output, Option<ImportedLook>), Error> {
    let imported = import_with(from, input, options, resources, look)?;
    let file = |ext: &str, bytes: Vec<u8>| OutputFile {
        name: format!("{}.{ext}", names.file),
        bytes,
    };
    let mut files = vec![file("msh", imported.msh)];
    // The clip list beside the model, where the next export finds it.
    if let Some(clips) = imported.clips {
        files.push(file(CLIPS_EXT, clips.to_json().into_bytes()));
    }
    let output = Output {
        files,
        report: imported.report,
    };
    Ok((output, imported.look))
}

/// The plug-in that exports to `to` (its row's exporter).
fn exporter(to: Format) -> Result<&'static dyn ExportFormat, Error> {
    to.spec().exporter.ok_or_else(no_conversion)
}

/// The plug-in that imports `from` (its row's importer).
pub(crate) fn importer(from: Format) -> Result<&'static dyn ImportFormat, Error> {
    from.spec().importer.ok_or_else(no_conversion)
}

/// A direction [`Format::check_direction`] let through without a plug-in
/// for it (the table's tests make this unreachable).
fn no_conversion() -> Error {
    Error::internal("a direction passed its check but has no conversion")
}

/// The import of `input` by `from`'s plug-in, its files through `resources`;
/// with `look`, the look it brings back too, from the same parse.
fn import_with(
    from: Format,
    input: &[u8],
    options: &Options,
    resources: &dyn Resources,
    look: bool,
) -> Result<Imported, Error> {
    Ok(importer(from)?.import(input, &options.import_settings(), resources, look)?)
}

/// The extension of a model's clip list file, `NAME.clips.json`.
pub const CLIPS_EXT: &str = "clips.json";

/// The clips an export takes: those given, else the clip list
/// `{model}.clips.json` beside the model when `resources` has one (then its
/// file name too, for the note).
fn clips_beside(
    options: &Options,
    resources: &dyn Resources,
    model: &str,
) -> Result<(Option<ClipList>, Option<String>), Error> {
    if options.clips.is_some() {
        return Ok((options.clips.clone(), None));
    }
    let name = format!("{model}.{CLIPS_EXT}");
    let Some(bytes) = resources.side_file(&name) else {
        return Ok((None, None));
    };
    let list = ClipList::from_json(&bytes).map_err(|e| {
        Error::from(mshconv_convert::Error::new(
            mshconv_convert::ErrorKind::BadOption,
            e.code().to_string(),
            format!("{name}: {}", e.message()),
        ))
    })?;
    Ok((Some(list), Some(name)))
}

/// The note that the clips came from `beside` (the name [`clips_beside`] gave).
fn note_clips_beside(report: &mut Report, beside: Option<String>) {
    if let Some(name) = beside {
        report.note(
            NoteCode::ExportClipsBeside.code(),
            format!("clips read from {name} (give --clips to choose others)"),
        );
    }
}

/// A model as MSH, to be put into an archive: an `.msh` opened strictly (a
/// damaged model is not put into the game's archive) and kept byte for byte,
/// anything else converted; with the conversion's report.
pub fn model_as_msh(
    input: &[u8],
    from: Format,
    options: &Options,
    names: &Names,
    resources: &dyn Resources,
) -> Result<(Vec<u8>, Report), Error> {
    if from == Format::Msh {
        msh::open(input, msh::Mode::Strict)?;
        return Ok((input.to_vec(), Report::default()));
    }
    msh_of(convert(
        input,
        (from, Format::Msh),
        options,
        names,
        resources,
    )?)
}

/// [`model_as_msh`] of a glTF, GLB or OBJ that also reads the look it brings
/// back, from the same parse ([`convert_bringing_look`]): the model, the
/// conversion's report, the look and the notes of reading it.
pub fn model_as_msh_bringing_look(
    input: &[u8],
    from: Format,
    options: &Options,
    names: &Names,
    resources: &dyn Resources,
) -> Result<(Vec<u8>, Report, ImportedLook, Report), Error> {
    let (output, look, look_notes) = convert_bringing_look(input, from, options, names, resources)?;
    let (msh, report) = msh_of(output)?;
    Ok((msh, report, look, look_notes))
}

/// The model of a conversion to MSH and its report (with a note when the
/// clip list beside it is left out: an archive holds models only).
fn msh_of(output: Output) -> Result<(Vec<u8>, Report), Error> {
    let mut report = output.report;
    if output.files.iter().any(|f| f.name.ends_with(CLIPS_EXT)) {
        // An archive holds models only: the clip list stays in the report.
        report.note(
            NoteCode::ImportClipsNotWritten.code(),
            "the clip list is not written into an archive (it is in the note import.clip_list)",
        );
    }
    let msh = output
        .files
        .into_iter()
        .next()
        .map(|f| f.bytes)
        .ok_or_else(|| Error::internal("a conversion to MSH gave no file"))?;
    Ok((msh, report))
}
