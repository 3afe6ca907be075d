//! `mshconv convert IN OUT`: one conversion through the application layer.
//! The input format is given (`--from`), else told from the bytes, else from
//! the extension; the output format from `--to` or OUT's extension; `-` is
//! stdin/stdout. The output file is written under a temporary name and
//! renamed, so an interrupted run never leaves half a file. OUT may be
//! `ARCHIVE:ENTRY`: the model goes into that archive as MSH, replacing the
//! entry of that name or adding it ([`crate::archive_out`]).

use crate::archive_out::{self, Target};
use crate::cli::ConvertArgs;
use crate::fs::write_atomically;
use crate::input;
use crate::look_out;
use crate::out::{self, Out};
use anyhow::Context;
use mshconv_app::names::model_name;
use mshconv_app::{Error, Folder, Format, Names, NoResources, Resources};
use std::io::Read;
use std::process::ExitCode;

/// Runs `convert`.
pub fn run(args: &ConvertArgs, out: &mut Out) -> anyhow::Result<ExitCode> {
    let target = archive_out::target(&args.output)?;
    let to = match (&target, args.to) {
        (Target::Entry { .. }, Some(f)) if f != Format::Msh => {
            return Err(Error::usage(
                "convert.unsupported_direction",
                format!(
                    "{} names an entry of an archive, which holds MSH models; leave out --to {f}",
                    args.output.display()
                ),
            )
            .into())
        }
        (Target::Entry { .. }, _) => Format::Msh,
        (_, Some(f)) => f,
        (_, None) => Format::from_path(&args.output).ok_or_else(|| {
            Error::usage(
                "convert.unknown_format",
                format!(
                    "cannot tell the format of {} from its name; give --to",
                    args.output.display()
                ),
            )
        })?,
    };
    let into = matches!(target, Target::Entry { .. });
    if let Target::Entry { name, .. } = &target {
        mshconv_app::archive::check_model_entry_name(name)?;
    }
    if let Some(from) = args.from.filter(|_| !into) {
        from.check_direction(to)?;
    }
    let options = args.conversion.options()?;
    let stdin = args.input.as_os_str() == "-";
    let (bytes, loaded_entry) = if stdin {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("cannot read stdin")?;
        (b, None)
    } else {
        let loaded = input::load(&args.input, args.entry.as_deref(), false)?;
        (loaded.bytes, loaded.entry)
    };
    let in_archive = loaded_entry.is_some();
    // An entry of an archive is a model whatever its name; a file is told by its bytes.
    let given = args.from.or(in_archive.then_some(Format::Msh));
    let named = (!stdin).then_some(args.input.as_path());
    let (from, sniffed) = mshconv_app::input_format(given, named, &bytes)?;
    if !into {
        from.check_direction(to)?;
    }
    if from == Format::Msh && !in_archive {
        input::refuse_model_archive(&bytes, &args.input.display().to_string())?;
    }
    let folder;
    let resources: &dyn Resources = match args.input.parent() {
        Some(dir) if !stdin => {
            folder = Folder::new(dir);
            &folder
        }
        _ => &NoResources,
    };
    // With a game folder: the model's look, found from where the model lies.
    let game_resources;
    let resources: &dyn Resources = match (args.conversion.game()?, stdin) {
        (Some(game), false) => {
            let at = model_location(&args.input, args.entry.is_some(), loaded_entry);
            game_resources = mshconv_app::GameResources {
                inner: resources,
                game,
                at,
            };
            &game_resources
        }
        _ => resources,
    };
    let names = Names {
        model: model_name(&args.input.to_string_lossy()),
        file: model_name(&args.output.to_string_lossy()),
    };
    let print_notes = |report: &mshconv_convert::Report| {
        if !args.quiet {
            if let Some(note) = &sniffed {
                out::note_line("input.format_sniffed", note);
            }
            for note in &report.notes {
                out::note_line(note.code, &note.message);
            }
        }
    };
    // glTF -> MSH with a game folder: the look goes back into the game's data.
    let look_game = match args.conversion.game()? {
        Some(game) if to == Format::Msh && look_out::brings_look(from) => Some(game),
        _ => None,
    };
    if let Some(game) = look_game {
        let (msh, report) = mshconv_app::model_as_msh(&bytes, from, &options, &names, resources)?;
        // The libraries and the WEAR are read under the lock they are written under.
        let lock = if args.dry_run {
            None
        } else {
            Some(crate::fs::lock(&look_out::lock_paths(
                &game,
                &target,
                &args.output,
            ))?)
        };
        let (libs, plan) = look_out::plan(&bytes, from, resources, &game, &target, &args.output)?;
        print_notes(&report);
        print_notes(&plan.report);
        let Some(lock) = lock else {
            look_out::print_plan(out, &plan, &libs, &target, &args.output, msh.len())?;
            return Ok(ExitCode::SUCCESS);
        };
        look_out::write(&lock, &plan, &libs, &target, &args.output, msh, args.quiet)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Target::Entry { archive, name } = &target {
        // Into an archive: an .msh as it is (opened strictly), anything else converted.
        let (msh, report) = mshconv_app::model_as_msh(&bytes, from, &options, &names, resources)?;
        print_notes(&report);
        if args.dry_run {
            out.text(&format!(
                "would put {}:{name} ({} bytes)\n",
                archive.display(),
                msh.len()
            ))?;
            return Ok(ExitCode::SUCCESS);
        }
        let placed = archive_out::put(archive, name, None, msh)?;
        if !args.quiet {
            archive_out::placed_line(archive, name, placed);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let output = mshconv_app::convert(&bytes, (from, to), &options, &names, resources)?;
    print_notes(&output.report);
    let main = output.main();
    if args.dry_run {
        let mut text = String::new();
        for file in &output.files {
            let path = if std::ptr::eq(file, main) {
                args.output.clone()
            } else {
                args.output.with_file_name(&file.name)
            };
            text += &format!(
                "would write {} ({} bytes)\n",
                path.display(),
                file.bytes.len()
            );
        }
        out.text(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.output.as_os_str() == "-" {
        // For stdout: the .obj alone, no .mtl.
        if to == Format::Gltf && output.files.len() > 1 && !args.quiet {
            out::note_line(
                "convert.textures_not_written",
                "the .gltf names PNG files beside it, which are not written to stdout; give an output file",
            );
        }
        out.bytes(&main.bytes)?;
    } else {
        // The .mtl goes beside the .obj, and first: a model is complete once its .obj is there.
        for side in &output.files[1..] {
            write_atomically(&args.output.with_file_name(&side.name), &side.bytes)?;
        }
        write_atomically(&args.output, &main.bytes)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the model `input` lies, for its WEAR sibling: the archive and the
/// entry read (`FILE --entry NAME`, or `ARCHIVE:ENTRY` as `input::load` reads
/// it), else the file.
fn model_location(
    input: &std::path::Path,
    entry_flag: bool,
    entry: Option<String>,
) -> mshconv_app::ModelLocation {
    let Some(entry) = entry else {
        return mshconv_app::ModelLocation::File(input.to_path_buf());
    };
    let archive = if entry_flag || input.is_file() {
        input.to_path_buf()
    } else {
        input
            .to_str()
            .and_then(|s| s.rsplit_once(':'))
            .map_or_else(|| input.to_path_buf(), |(a, _)| a.into())
    };
    mshconv_app::ModelLocation::Entry { archive, entry }
}
