//! `mshconv convert IN OUT`: one conversion, formats from the file extensions
//! or `--from`/`--to`, `-` for stdin/stdout. The output file is written under a
//! temporary name and renamed, so an interrupted run never leaves half a file.

use crate::cli::{ConversionArgs, ConvertArgs, Format};
use crate::fail::Failure;
use crate::input;
use crate::out::{self, Out};
use anyhow::Context;
use mshconv_convert::{ExportOptions, GltfFormat};
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

/// Runs `convert`.
pub fn run(args: &ConvertArgs, out: &mut Out) -> anyhow::Result<ExitCode> {
    let from = match args.from {
        Some(f) => f,
        None => format_of(&args.input).ok_or_else(|| {
            Failure::usage(
                "convert.unknown_format",
                format!(
                    "cannot tell the format of {} from its name; give --from",
                    args.input.display()
                ),
            )
        })?,
    };
    let to = match args.to {
        Some(f) => f,
        None => format_of(&args.output).ok_or_else(|| {
            Failure::usage(
                "convert.unknown_format",
                format!(
                    "cannot tell the format of {} from its name; give --to",
                    args.output.display()
                ),
            )
        })?,
    };
    if !converts(from, to) {
        return Err(Failure::usage(
            "convert.unsupported_direction",
            format!(
                "converting {from} to {to} is not available; supported: msh -> glb/gltf/obj, glb/gltf/obj -> msh"
            ),
        )
        .into());
    }
    let options = Options::parse(&args.conversion)?;
    let stdin = args.input.as_os_str() == "-";
    let bytes = if stdin {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("cannot read stdin")?;
        b
    } else {
        input::load(&args.input, args.entry.as_deref(), false)?.bytes
    };
    let folder = if stdin { None } else { args.input.parent() };
    let job = Job {
        from,
        to,
        name: model_name(&args.input),
        out_stem: model_name(&args.output),
        folder,
    };
    let converted = convert_bytes(&bytes, &job, &options)?;
    if !args.quiet {
        for note in &converted.report.notes {
            out::note_line(note.code, &note.message);
        }
    }
    if args.output.as_os_str() == "-" {
        // For stdout: the .obj alone, no .mtl.
        out.bytes(&converted.bytes)?;
    } else {
        // The .mtl goes beside the .obj, and first: a model is complete once its .obj is there.
        if let Some((name, mtl)) = &converted.mtl {
            write_atomically(&args.output.with_file_name(name), mtl)?;
        }
        write_atomically(&args.output, &converted.bytes)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether a conversion from one format to another is available.
pub fn converts(from: Format, to: Format) -> bool {
    matches!(
        (from, to),
        (Format::Msh, Format::Glb | Format::Gltf | Format::Obj)
            | (Format::Glb | Format::Gltf | Format::Obj, Format::Msh)
    )
}

/// The conversion options, parsed and range-checked once, before any file is read.
/// The default is what no option on the command line gives.
#[derive(Debug, Clone, Default)]
pub struct Options {
    lod: u8,
    group: u8,
    fps: Option<f32>,
    axis: Option<mshconv_convert::Axis>,
    rotation: Option<mshconv_convert::Rotation>,
    animation: mshconv_convert::gltf::AnimationChoice,
}

impl Options {
    /// Parses `--axis`/`--rotation`/`--animation` and checks `--fps`; a bad value
    /// is a usage error (`option.invalid`).
    pub fn parse(args: &ConversionArgs) -> Result<Options, Failure> {
        let bad = |e: mshconv_convert::BadOption| Failure::usage("option.invalid", e.0);
        let axis = match &args.axis {
            Some(a) => Some(a.parse().map_err(bad)?),
            None => None,
        };
        let rotation = match &args.rotation {
            Some(r) => Some(mshconv_convert::parse_rotation(r).map_err(bad)?),
            None => None,
        };
        if let Some(fps) = args.fps {
            // The export's own range check; the import accepts the same range.
            ExportOptions {
                fps,
                ..Default::default()
            }
            .check()
            .map_err(bad)?;
        }
        Ok(Options {
            lod: args.lod,
            group: args.group,
            fps: args.fps,
            axis,
            rotation,
            animation: animation_choice(&args.animation),
        })
    }
}

/// What one conversion needs besides the input bytes and the options.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    /// Input format.
    pub from: Format,
    /// Output format.
    pub to: Format,
    /// Model (scene) name written into glTF output: the input's stem.
    pub name: String,
    /// The output's file stem (an `.obj` names its `.mtl` `<stem>.mtl`).
    pub out_stem: String,
    /// The input's folder, where a `.gltf`'s side-car buffers and an `.obj`'s
    /// `.mtl` are read from; `None` reads nothing beside the input.
    pub folder: Option<&'a Path>,
}

/// One model converted in memory.
#[derive(Debug, Clone)]
pub struct Converted {
    /// The output file.
    pub bytes: Vec<u8>,
    /// For `.obj` output: the `.mtl` file's name and bytes, to write beside it.
    pub mtl: Option<(String, Vec<u8>)>,
    /// What the conversion approximated or decided.
    pub report: mshconv_convert::Report,
}

/// Converts one model in memory. Library errors keep their codes: invalid input
/// and unsupported content exit 1, bad options exit 2.
pub fn convert_bytes(bytes: &[u8], job: &Job<'_>, options: &Options) -> Result<Converted, Failure> {
    let plain = |(bytes, report): (Vec<u8>, mshconv_convert::Report)| Converted {
        bytes,
        mtl: None,
        report,
    };
    match (job.from, job.to) {
        (Format::Msh, Format::Glb | Format::Gltf) => {
            let export = ExportOptions {
                lod: options.lod,
                group: options.group,
                fps: options.fps.unwrap_or(24.0),
                axis: options.axis.unwrap_or_default(),
                rotation: options.rotation.unwrap_or_default(),
                format: if job.to == Format::Glb {
                    GltfFormat::Glb
                } else {
                    GltfFormat::Gltf
                },
                name: job.name.clone(),
            };
            mshconv_convert::msh_to_gltf(bytes, &export)
                .map(plain)
                .map_err(into_failure)
        }
        (Format::Glb | Format::Gltf, Format::Msh) => {
            let import = mshconv_convert::gltf::ImportOptions {
                fps: options.fps,
                axis: options.axis,
                rotation: options.rotation,
                animation: options.animation.clone(),
                ..Default::default()
            };
            let folder = job.folder;
            // Side-car buffers: plain file names, read from the input's own folder only.
            let resolver = move |name: &str| -> Option<Vec<u8>> {
                let dir = folder?;
                let dir = if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                };
                std::fs::read(dir.join(name)).ok()
            };
            mshconv_convert::gltf_to_msh(bytes, &import, &resolver)
                .map(plain)
                .map_err(into_failure)
        }
        (Format::Msh, Format::Obj) => {
            let export = mshconv_convert::ObjExportOptions {
                lod: options.lod,
                group: options.group,
                axis: options.axis.unwrap_or_default(),
                rotation: options.rotation.unwrap_or_default(),
                mtl_name: format!("{}.mtl", job.out_stem),
            };
            let (files, report) = mshconv_convert::msh_to_obj(bytes, &export).map_err(into_failure)?;
            Ok(Converted {
                bytes: files.obj,
                mtl: Some((files.mtl_name, files.mtl)),
                report,
            })
        }
        (Format::Obj, Format::Msh) => {
            let import = mshconv_convert::ObjImportOptions {
                axis: options.axis.unwrap_or_default(),
            };
            let mtl = job.folder.and_then(|dir| mtl_beside(dir, bytes));
            mshconv_convert::obj_to_msh(bytes, mtl.as_deref(), &import)
                .map(plain)
                .map_err(into_failure)
        }
        (from, to) => Err(Failure::usage(
            "convert.unsupported_direction",
            format!(
                "converting {from} to {to} is not available; supported: msh -> glb/gltf/obj, glb/gltf/obj -> msh"
            ),
        )),
    }
}

/// The `.mtl` an `.obj` names in `mtllib`, when it is a plain file name in `dir`.
fn mtl_beside(dir: &Path, obj: &[u8]) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(obj);
    let name = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("mtllib ").map(str::trim))?;
    if name.is_empty() || name.contains(['/', '\\', ':']) || name.starts_with('.') {
        return None;
    }
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    std::fs::read(dir.join(name)).ok()
}

/// `all`, `none`, an index, or a name.
fn animation_choice(s: &str) -> mshconv_convert::gltf::AnimationChoice {
    use mshconv_convert::gltf::AnimationChoice;
    match s {
        "all" => AnimationChoice::All,
        "none" => AnimationChoice::None,
        _ => match s.parse::<usize>() {
            Ok(i) => AnimationChoice::Index(i),
            Err(_) => AnimationChoice::Name(s.to_string()),
        },
    }
}

/// The library error as a CLI failure with its code: invalid input and
/// unsupported content exit 1, bad options exit 2.
fn into_failure(e: mshconv_convert::Error) -> Failure {
    match e.kind() {
        mshconv_convert::ErrorKind::BadOption => Failure::usage(e.code(), e.message()),
        _ => Failure::invalid(e.code(), e.message()),
    }
}

/// The format a path's extension names.
pub fn format_of(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "msh" => Format::Msh,
        "glb" => Format::Glb,
        "gltf" => Format::Gltf,
        "obj" => Format::Obj,
        _ => return None,
    })
}

/// The scene name: the input's file stem (or the entry's), `model` for stdin.
pub fn model_name(input: &Path) -> String {
    let text = input.to_string_lossy();
    let last = text.rsplit([':', '/', '\\']).next().unwrap_or("");
    let stem = last.rsplit_once('.').map_or(last, |(s, _)| s);
    if stem.is_empty() || stem == "-" {
        "model".to_string()
    } else {
        stem.to_string()
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a
/// rename: an interrupted run never leaves a partial file under `path`. The
/// file is not flushed to the disk on its own (no fsync): outputs can be made
/// again, and a flush per file made a batch on an ext4 disk several times
/// slower than the conversions themselves (bench/RESULTS.md).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(bytes)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
