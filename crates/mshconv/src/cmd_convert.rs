//! `mshconv convert IN OUT`: one conversion through the application layer.
//! The input format is given (`--from`), else told from the bytes, else from
//! the extension; the output format from `--to` or OUT's extension; `-` is
//! stdin/stdout. The output file is written under a temporary name and
//! renamed, so an interrupted run never leaves half a file. OUT may be
//! `ARCHIVE:ENTRY`: the model goes into that archive as MSH, replacing the
//! entry of that name, or adding it with `--add` (the application layer's put
//! rule, checked before the conversion: [`put::check_place`]), by the
//! application layer's [`put::put_model_telling`], as is a glTF's or OBJ's
//! look going back into the game folder given (`--game-dir`).

use crate::archive_out::{self, Target};
use crate::cli::ConvertArgs;
use crate::codes::CliNote;
use crate::fs::write_atomically;
use crate::input;
use crate::out::{self, Out};
use anyhow::Context;
use mshconv_app::archive::Placed;
use mshconv_app::game::wear_name;
use mshconv_app::look_import::write::{wear_file, Place};
use mshconv_app::look_import::{self, advice};
use mshconv_app::names::model_name;
use mshconv_app::put::{self, PutModel, Source};
use mshconv_app::{Folder, Format, Names, NoResources, NoteCode, Resources};
use std::io::Read;
use std::process::ExitCode;

/// Runs `convert`.
pub fn run(args: &ConvertArgs, out: &mut Out) -> anyhow::Result<ExitCode> {
    let target = archive_out::target(&args.output)?;
    let to = mshconv_app::archive::output_format(&target, args.to, &args.output)?;
    let into = matches!(target, Target::Entry { .. });
    // Into an archive: the name first, then replace or add (a typo fails here,
    // before any conversion).
    let place = match &target {
        Target::Entry { archive, name } => Place::Entry {
            archive: archive.clone(),
            name: name.clone(),
        },
        Target::File => Place::File(args.output.clone()),
    };
    put::check_place(&place, args.add, input::HOW_TO_ADD, &mut tell)?;
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
    let game = args.conversion.game()?;
    let resources: &dyn Resources = match (game.clone(), stdin) {
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
    // Into an archive, or glTF -> MSH with a game folder (the look goes back
    // into the game's data): a put of the application layer.
    let game_dir = game.as_ref().map(|g| g.dir());
    if into || (to == Format::Msh && game_dir.is_some() && look_import::brings_look(from)) {
        let request = PutModel {
            data: &bytes,
            from,
            place,
            add: args.add,
            game_dir,
            how_to_add: input::HOW_TO_ADD,
            advice: &crate::advice::Cli,
            dry_run: args.dry_run,
            // The options carry it (--original, or the model OUT replaces).
            original: None,
        };
        let source = Source {
            options: &options,
            names: Some(&names),
            resources,
            new_libraries: args.conversion.new_libraries,
        };
        return put(args, out, &request, &source, sniffed);
    }
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
    let output = mshconv_app::convert(&bytes, (from, to), &options, &names, resources)?;
    print_notes(&output.report);
    if to == Format::Msh && args.output.as_os_str() != "-" && !args.quiet {
        let notes =
            advice::look_not_written_by(&bytes, from, resources, &place, &crate::advice::Cli);
        print_note_list(notes.as_slice());
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

/// Prints what taking a lock or recovering brings (waits, interrupted runs
/// finished).
fn tell(event: put::Event<'_>) {
    if let put::Event::Lock(event) = event {
        crate::fs::tell(event);
    }
}

/// Runs the application layer's put, printing its notes as they come (a dry
/// run lists the library entries on stdout instead), then what it wrote or,
/// for a dry run, would write.
fn put(
    args: &ConvertArgs,
    out: &mut Out,
    request: &PutModel<'_>,
    source: &Source<'_>,
    mut sniffed: Option<String>,
) -> anyhow::Result<ExitCode> {
    let quiet = args.quiet;
    let sniffed_line = |sniffed: &mut Option<String>| {
        if let Some(note) = sniffed.take().filter(|_| !quiet) {
            out::note_line(CliNote::InputFormatSniffed.code(), &note);
        }
    };
    let outcome = put::put_model_telling(request, source, &mut |event| match event {
        put::Event::Lock(event) => crate::fs::tell(event),
        put::Event::Note(note) if !quiet => {
            sniffed_line(&mut sniffed);
            let listed = args.dry_run && note.code == NoteCode::LookEntry.code();
            if !listed {
                out::note_line(note.code, &note.message);
            }
        }
        put::Event::Note(_) => {}
    })?;
    sniffed_line(&mut sniffed);
    let placed = outcome.placed.unwrap_or(Placed::Replaced);
    let Some(listing) = &outcome.listing else {
        if let (Place::Entry { archive, name }, false) = (&request.place, quiet) {
            archive_out::placed_line(archive, name, placed);
        }
        return Ok(ExitCode::SUCCESS);
    };
    let mut text = String::new();
    for line in &listing.libraries {
        text += line;
        text.push('\n');
    }
    let model = listing.model_bytes;
    match (&request.place, listing.wear_bytes) {
        (Place::File(output), Some(wear)) => {
            text += &format!(
                "would write {} ({wear} bytes)\n",
                wear_file(output).display()
            );
            text += &format!("would write {} ({model} bytes)\n", output.display());
        }
        (Place::File(output), None) => {
            text += &format!("would write {} ({model} bytes)\n", output.display());
        }
        (Place::Entry { archive, name }, Some(wear)) => {
            text += &format!(
                "would put {}:{} ({wear} bytes) and {}:{name} ({model} bytes)\n",
                archive.display(),
                wear_name(name),
                archive.display()
            );
        }
        (Place::Entry { archive, name }, None) => {
            text += &placement_line(archive, name, placed, Some(model));
        }
    }
    for line in &listing.changes {
        text += line;
        text.push('\n');
    }
    if let (Place::Entry { archive, name }, Some(_)) = (&request.place, listing.wear_bytes) {
        text += &placement_line(archive, name, placed, None);
    }
    out.text(&text)?;
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
    Ok(options.or_original(|| mshconv_app::original::replaced_by(target, &args.output, to)))
}

/// `--dry-run`'s line of a put into an archive, saying what the put does:
/// `would put units.rlb:TANK.MSH (1234 bytes): replace` (or `: add (a new
/// entry)`); with the look (whose listing names the files, `bytes` none)
/// `would replace units.rlb:TANK.MSH` or `would add ... (a new entry)`.
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
