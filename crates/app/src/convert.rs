//! The one conversion entry point: bytes in a format, options and resources
//! in, the output files and the report out.

use crate::codes::NoteCode;
use crate::error::Error;
use crate::format::Format;
use crate::options::Options;
use crate::resources::{mtllib_name, Resources};
use mshconv_convert::{GltfFormat, Report};

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
    let (files, report) = match (from, to) {
        (Format::Msh, Format::Glb | Format::Gltf) => {
            let format = if to == Format::Glb {
                GltfFormat::Glb
            } else {
                GltfFormat::Gltf
            };
            let mut export = options.gltf_export(format, &names.model);
            let beside = clips_beside(&mut export, resources, &names.model)?;
            let (files, mut report) = match resources.look() {
                // Without a game folder: the export as it always was.
                None => {
                    let (bytes, report) = mshconv_convert::msh_to_gltf(input, &export)?;
                    (vec![file(to.name(), bytes)], report)
                }
                Some(game) => {
                    let (out, mut report) = mshconv_convert::gltf::export_with_look(
                        input,
                        &export,
                        &game.look,
                        &names.file,
                    )?;
                    crate::game::add_notes(input, &game, &mut report);
                    (with_side_files(file(to.name(), out.main), out.side), report)
                }
            };
            note_clips_beside(&mut report, beside);
            (files, report)
        }
        (Format::Glb | Format::Gltf, Format::Msh) => {
            let side = |name: &str| resources.side_file(name);
            let (bytes, clips, report) =
                mshconv_convert::gltf::import_with_clips(input, &options.gltf_import(), &side)?;
            let mut files = vec![file("msh", bytes)];
            // The clip list beside the model, where the next export finds it.
            if let Some(clips) = clips {
                files.push(file(CLIPS_EXT, clips.to_json().into_bytes()));
            }
            (files, report)
        }
        (Format::Msh, Format::Obj) => {
            let export = options.obj_export(format!("{}.mtl", names.file));
            let game = resources.look();
            let (out, side, report) = match &game {
                // Without a game folder: the export as it always was.
                None => {
                    let (out, report) = mshconv_convert::msh_to_obj(input, &export)?;
                    (out, Vec::new(), report)
                }
                Some(game) => {
                    let (out, side, mut report) = mshconv_convert::obj::export_with_look(
                        input,
                        &export,
                        &game.look,
                        &names.file,
                    )?;
                    crate::game::add_notes(input, game, &mut report);
                    (out, side, report)
                }
            };
            let mut files = with_side_files(file("obj", out.obj), side);
            let mtl = OutputFile {
                name: out.mtl_name,
                bytes: out.mtl,
            };
            // The .mtl second, before the PNGs it names.
            files.insert(1, mtl);
            (files, report)
        }
        (Format::Msh, Format::Usda) => {
            // The glTF export's options (LOD/group, fps, axis, rotation, clips).
            let mut export = options.gltf_export(GltfFormat::Glb, &names.model);
            let beside = clips_beside(&mut export, resources, &names.model)?;
            let (files, mut report) = match resources.look() {
                // Without a game folder: untextured, no side files.
                None => {
                    let (bytes, report) = mshconv_convert::usd::export(input, &export)?;
                    (vec![file("usda", bytes)], report)
                }
                Some(game) => {
                    let (bytes, side, mut report) = mshconv_convert::usd::export_with_look(
                        input,
                        &export,
                        &game.look,
                        &names.file,
                    )?;
                    crate::game::add_notes(input, &game, &mut report);
                    (with_side_files(file("usda", bytes), side), report)
                }
            };
            note_clips_beside(&mut report, beside);
            (files, report)
        }
        (Format::Obj, Format::Msh) => {
            let mtl = resources.mtl(mtllib_name(input).as_deref());
            let (bytes, report) =
                mshconv_convert::obj_to_msh(input, mtl.as_deref(), &options.obj_import())?;
            (vec![file("msh", bytes)], report)
        }
        _ => {
            return Err(Error::internal(
                "a direction passed its check but has no conversion",
            ))
        }
    };
    Ok(Output { files, report })
}

/// The extension of a model's clip list file, `NAME.clips.json`.
pub const CLIPS_EXT: &str = "clips.json";

/// Without clips in `export`: the clip list `{model}.clips.json` beside the
/// model, when `resources` has one (its file name is returned for the note).
fn clips_beside(
    export: &mut mshconv_convert::ExportOptions,
    resources: &dyn Resources,
    model: &str,
) -> Result<Option<String>, Error> {
    if export.clips.is_some() {
        return Ok(None);
    }
    let name = format!("{model}.{CLIPS_EXT}");
    let Some(bytes) = resources.side_file(&name) else {
        return Ok(None);
    };
    let list = mshconv_convert::ClipList::from_json(&bytes).map_err(|e| {
        Error::from(mshconv_convert::Error::new(
            mshconv_convert::ErrorKind::BadOption,
            e.code().to_string(),
            format!("{name}: {}", e.message()),
        ))
    })?;
    export.clips = Some(list);
    Ok(Some(name))
}

/// The main file, then the files beside it (an export's PNG textures).
fn with_side_files(main: OutputFile, side: Vec<(String, Vec<u8>)>) -> Vec<OutputFile> {
    let mut files = vec![main];
    files.extend(
        side.into_iter()
            .map(|(name, bytes)| OutputFile { name, bytes }),
    );
    files
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
    let output = convert(input, (from, Format::Msh), options, names, resources)?;
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
