//! `mshconv convert IN OUT`: one conversion, formats from the file extensions
//! or `--from`/`--to`, `-` for stdin/stdout. The output file is written under a
//! temporary name and renamed, so an interrupted run never leaves half a file.

use crate::cli::{ConvertArgs, Format};
use crate::fail::Failure;
use crate::input;
use crate::out::{self, Out};
use anyhow::Context;
use convert::{ExportOptions, GltfFormat};
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
    let bytes = if args.input.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("cannot read stdin")?;
        b
    } else {
        input::load(&args.input, args.entry.as_deref(), false)?.bytes
    };
    let (output, report) = match (from, to) {
        (Format::Msh, Format::Glb | Format::Gltf) => {
            let options = ExportOptions {
                lod: args.lod,
                group: args.group,
                fps: args.fps.unwrap_or(24.0),
                axis: axis(args)?.unwrap_or_default(),
                rotation: rotation(args)?.unwrap_or_default(),
                format: if to == Format::Glb { GltfFormat::Glb } else { GltfFormat::Gltf },
                name: model_name(&args.input),
            };
            convert::msh_to_gltf(&bytes, &options).map_err(into_failure)?
        }
        (Format::Glb | Format::Gltf, Format::Msh) => {
            let options = convert::gltf::ImportOptions {
                fps: args.fps,
                axis: axis(args)?,
                rotation: rotation(args)?,
                animation: animation_choice(&args.animation),
                ..Default::default()
            };
            let folder = if args.input.as_os_str() == "-" { None } else { args.input.parent().map(Path::to_path_buf) };
            // Side-car buffers: plain file names, read from the input's own folder only.
            let resolver = move |name: &str| -> Option<Vec<u8>> {
                let dir = folder.as_ref()?;
                let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir.as_path() };
                std::fs::read(dir.join(name)).ok()
            };
            convert::gltf_to_msh(&bytes, &options, &resolver).map_err(into_failure)?
        }
        (Format::Msh, Format::Obj) => {
            let stem = model_name(&args.output);
            let options = convert::ObjExportOptions {
                lod: args.lod,
                group: args.group,
                axis: axis(args)?.unwrap_or_default(),
                rotation: rotation(args)?.unwrap_or_default(),
                mtl_name: format!("{stem}.mtl"),
            };
            let (files, report) = convert::msh_to_obj(&bytes, &options).map_err(into_failure)?;
            // The .mtl goes beside the .obj (not for stdout: the .obj alone).
            if args.output.as_os_str() != "-" {
                let mtl = args.output.with_file_name(&files.mtl_name);
                write_atomically(&mtl, &files.mtl)?;
            }
            (files.obj, report)
        }
        (Format::Obj, Format::Msh) => {
            let options = convert::ObjImportOptions { axis: axis(args)?.unwrap_or_default() };
            let mtl = if args.input.as_os_str() == "-" { None } else { mtl_beside(&args.input, &bytes) };
            convert::obj_to_msh(&bytes, mtl.as_deref(), &options).map_err(into_failure)?
        }
        (from, to) => {
            return Err(Failure::usage(
                "convert.unsupported_direction",
                format!(
                    "converting {from} to {to} is not available; supported: msh -> glb/gltf/obj, glb/gltf/obj -> msh"
                ),
            )
            .into())
        }
    };
    if !args.quiet {
        for note in &report.notes {
            out::note_line(note.code, &note.message);
        }
    }
    if args.output.as_os_str() == "-" {
        out.bytes(&output)?;
    } else {
        write_atomically(&args.output, &output)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `.mtl` an `.obj` names in `mtllib`, when it is a plain file name beside it.
fn mtl_beside(obj_path: &Path, obj: &[u8]) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(obj);
    let name = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("mtllib ").map(str::trim))?;
    if name.is_empty() || name.contains(['/', '\\', ':']) || name.starts_with('.') {
        return None;
    }
    std::fs::read(obj_path.with_file_name(name)).ok()
}

fn axis(args: &ConvertArgs) -> anyhow::Result<Option<convert::Axis>> {
    Ok(match &args.axis {
        Some(a) => Some(
            a.parse()
                .map_err(|e: convert::BadOption| Failure::usage("option.invalid", e.0))?,
        ),
        None => None,
    })
}

fn rotation(args: &ConvertArgs) -> anyhow::Result<Option<convert::Rotation>> {
    Ok(match &args.rotation {
        Some(r) => {
            Some(convert::parse_rotation(r).map_err(|e| Failure::usage("option.invalid", e.0))?)
        }
        None => None,
    })
}

/// `all`, `none`, an index, or a name.
fn animation_choice(s: &str) -> convert::gltf::AnimationChoice {
    use convert::gltf::AnimationChoice;
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
fn into_failure(e: convert::Error) -> Failure {
    match e.kind() {
        convert::ErrorKind::BadOption => Failure::usage(e.code(), e.message()),
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
fn model_name(input: &Path) -> String {
    let text = input.to_string_lossy();
    let last = text.rsplit([':', '/', '\\']).next().unwrap_or("");
    let stem = last.rsplit_once('.').map_or(last, |(s, _)| s);
    if stem.is_empty() || stem == "-" {
        "model".to_string()
    } else {
        stem.to_string()
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
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
        f.sync_all().ok();
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
