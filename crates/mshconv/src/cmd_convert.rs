//! `mshconv convert IN OUT`: one conversion through the application layer.
//! The input format is given (`--from`), else told from the bytes, else from
//! the extension; the output format from `--to` or OUT's extension; `-` is
//! stdin/stdout. The output file is written under a temporary name and
//! renamed, so an interrupted run never leaves half a file. OUT may be
//! `ARCHIVE:ENTRY`: the model goes into that archive as MSH, replacing the
//! entry of that name, or adding it with `--add` (the application layer's put
//! rule, checked before the conversion: [`input::placement`]).

use crate::archive_out::{self, Target};
use crate::cli::ConvertArgs;
use crate::codes::{CliCode, CliNote};
use crate::fs::write_atomically;
use crate::input;
use crate::look_out;
use crate::out::{self, Out};
use anyhow::Context;
use mshconv_app::archive::Placed;
use mshconv_app::look_import::advice;
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
                mshconv_app::ErrorCode::ConvertUnsupportedDirection,
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
                CliCode::ConvertUnknownFormat,
                format!(
                    "cannot tell the format of {} from its name; give --to",
                    args.output.display()
                ),
            )
        })?,
    };
    let into = matches!(target, Target::Entry { .. });
    // Into an archive: the name first, then replace or add (a typo fails here,
    // before any conversion).
    let placed = match &target {
        Target::Entry { archive, name } => {
            mshconv_app::archive::check_model_entry_name(name)?;
            Some(input::placement(archive, name, args.add)?)
        }
        Target::File => None,
    };
    if let Some(from) = args.from.filter(|_| !into) {
        from.check_direction(to)?;
    }
    let options = original(args.conversion.options()?, args, &target, to)?;
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
                out::note_line(CliNote::InputFormatSniffed.code(), note);
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
        mshconv_app::look_import::check_libraries(game.dir(), args.conversion.new_libraries)?;
        // The model and its look from one parse of the input.
        let (msh, report, look, look_notes) =
            mshconv_app::model_as_msh_bringing_look(&bytes, from, &options, &names, resources)?;
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
        let (libs, plan) = look_out::plan(&look, look_notes, &game, &target, &args.output)?;
        print_notes(&report);
        print_notes(&plan.report);
        if !args.quiet {
            let mut notes = entry_loses(&target, &msh);
            // An edited entry other models of the game folder show too.
            let place = look_out::place(&target, &args.output);
            notes.extend(advice::shared_edits(&plan, &libs, game.dir(), &place));
            print_note_list(&notes);
        }
        let Some(lock) = lock else {
            look_out::print_plan(out, &plan, &libs, &target, &args.output, msh.len())?;
            if let (Target::Entry { archive, name }, Some(placed)) = (&target, placed) {
                out.text(&placement_line(archive, name, placed, None))?;
            }
            return Ok(ExitCode::SUCCESS);
        };
        look_out::write(&lock, &plan, &libs, &target, &args.output, msh, args.quiet)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Target::Entry { archive, name } = &target {
        // Into an archive: an .msh as it is (opened strictly), anything else converted.
        let (msh, report) = mshconv_app::model_as_msh(&bytes, from, &options, &names, resources)?;
        print_notes(&report);
        if !args.quiet {
            let mut notes = entry_loses(&target, &msh);
            notes.extend(unwritten_look(
                &bytes,
                from,
                resources,
                &target,
                &args.output,
            ));
            print_note_list(&notes);
        }
        if args.dry_run {
            let placed = placed.unwrap_or(Placed::Replaced);
            out.text(&placement_line(archive, name, placed, Some(msh.len())))?;
            return Ok(ExitCode::SUCCESS);
        }
        let add = args.add;
        let placed = archive_out::edit(archive, |editor| {
            editor.put_model(name, msh, add, input::HOW_TO_ADD)
        })?;
        if !args.quiet {
            archive_out::placed_line(archive, name, placed);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let output = mshconv_app::convert(&bytes, (from, to), &options, &names, resources)?;
    print_notes(&output.report);
    if to == Format::Msh && args.output.as_os_str() != "-" && !args.quiet {
        print_note_list(&unwritten_look(
            &bytes,
            from,
            resources,
            &target,
            &args.output,
        ));
    }
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
        // For stdout: the main file alone; what it names beside it is said.
        let side = &output.files[1..];
        if let Some(mtl) = side.iter().find(|f| f.name.ends_with(".mtl")) {
            if !args.quiet {
                out::note_line(
                    CliNote::ConvertMtlNotWritten.code(),
                    &format!(
                        "the .obj names {} beside it, which is not written to stdout (its materials are in it); give an output file",
                        mtl.name
                    ),
                );
            }
        }
        let pngs = side.iter().any(|f| f.name.ends_with(".png"));
        if pngs && !args.quiet {
            out::note_line(
                CliNote::ConvertTexturesNotWritten.code(),
                &format!(
                    "the .{} names PNG files beside it, which are not written to stdout; give an output file",
                    to.name()
                ),
            );
        }
        out.bytes(&main.bytes)?;
    } else {
        // The .mtl goes beside the .obj, and first: a model is complete once its .obj is there.
        for side in &output.files[1..] {
            crate::fs::write_side(&args.output.with_file_name(&side.name), &side.bytes)?;
        }
        write_atomically(&args.output, &main.bytes)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The options with the original a glTF import recognises another tool's
/// rewrite against: `--original FILE`, else the model OUT replaces (the
/// archive's entry, the `.msh` file) when there is one.
fn original(
    options: mshconv_app::Options,
    args: &ConvertArgs,
    target: &Target,
    to: Format,
) -> anyhow::Result<mshconv_app::Options> {
    if let Some(path) = &args.original {
        let bytes = std::fs::read(path)
            .with_context(|| format!("cannot read --original {}", path.display()))?;
        return Ok(mshconv_app::Options {
            original: Some(bytes.into()),
            ..options
        });
    }
    Ok(options.or_original(|| match target {
        Target::Entry { archive, name } => mshconv_app::original::replaced_entry(archive, name),
        Target::File if to == Format::Msh && args.output.as_os_str() != "-" => {
            mshconv_app::original::replaced_file(&args.output)
        }
        Target::File => None,
    }))
}

/// `--dry-run`'s line of a put into an archive, saying what the put does:
/// `would put units.rlb:TANK.MSH (1234 bytes): replace` (or `: add (a new
/// entry)`); with the look (whose plan lists the files, `bytes` none) `would
/// replace units.rlb:TANK.MSH` or `would add ... (a new entry)`.
fn placement_line(
    archive: &std::path::Path,
    name: &str,
    placed: Placed,
    bytes: Option<usize>,
) -> String {
    let new = if placed == Placed::Added {
        " (a new entry)"
    } else {
        ""
    };
    let entry = format!("{}:{name}", archive.display());
    match bytes {
        Some(n) => format!("would put {entry} ({n} bytes): {}{new}\n", placed.verb()),
        None => format!("would {} {entry}{new}\n", placed.verb()),
    }
}

fn print_note_list(notes: &[mshconv_convert::Note]) {
    for note in notes {
        out::note_line(note.code, &note.message);
    }
}

/// `archive.entry_loses`, when `msh` replaces an entry that has more.
fn entry_loses(target: &Target, msh: &[u8]) -> Vec<mshconv_convert::Note> {
    match target {
        Target::Entry { archive, name } => mshconv_app::archive::entry_loses_at(archive, name, msh)
            .into_iter()
            .collect(),
        Target::File => Vec::new(),
    }
}

/// Without `--game-dir`: `look.not_written` when the model's look (a glTF's
/// or an OBJ's) differs from the game folder it is written into (nothing
/// when the look cannot be read: the note is advice, never a failure).
fn unwritten_look(
    bytes: &[u8],
    from: Format,
    resources: &dyn Resources,
    target: &Target,
    output: &std::path::Path,
) -> Vec<mshconv_convert::Note> {
    if !look_out::brings_look(from) {
        return Vec::new();
    }
    let place = look_out::place(target, output);
    advice::look_not_written(&place, &crate::advice::Cli, || {
        look_out::read(bytes, from, resources)
            .ok()
            .map(|(look, _)| look)
    })
    .into_iter()
    .collect()
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
