//! The command line: subcommands, options and help texts.

use crate::codes::CliCode;
use clap::{Args, Parser, Subcommand};
use mshconv_app::Format;
use std::path::PathBuf;

/// The exit-code section every help text ends with.
macro_rules! exit_codes {
    () => {
        "Exit codes:
  0  success (also when stdout is closed early, e.g. piped into `head`)
  1  the input is invalid, or an operation on valid input failed
  2  usage error, or a file that cannot be read or written

Errors print on stderr as `error[CODE]: message`, CODE being a stable
identifier such as nres.bad_magic, batch.index_range or io.not_found."
    };
}

/// A help epilogue: the given text, a blank line, the exit codes.
macro_rules! after {
    ($text:expr) => {
        concat!($text, "\n\n", exit_codes!())
    };
}

const MAIN_AFTER: &str = after!(
    "Examples:
  mshconv convert tank.msh tank.glb
  mshconv batch models/ units.rlb --to glb --out converted/
  mshconv validate tank.msh wheel.msh
  mshconv inspect tank.msh
  mshconv inspect models.rlb:TANK.MSH
  mshconv pose tank.msh --time 12.5 --json
  mshconv nres list models.rlb
  mshconv nres extract models.rlb --out unpacked/
  mshconv nres pack unpacked/ --out models.rlb
  mshconv nres repack models.rlb --out models.canonical.rlb
  mshconv textures export game/Textures.lib textures/
  mshconv textures import textures/ game/Textures.lib
  mshconv materials export game/Material.lib materials.json
  mshconv materials import materials.json game/Material.lib
  mshconv completions bash > ~/.local/share/bash-completion/completions/mshconv

A model inside an archive is named ARCHIVE:ENTRY (or FILE --entry ENTRY);
entry names compare ASCII case-insensitively, as in the game."
);

/// Converter and inspector for the .msh models of Parkan: Iron Strategy.
#[derive(Debug, Parser)]
#[command(name = "mshconv", version = crate::version::VERSION, after_help = MAIN_AFTER)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert a model between MSH and glTF/GLB/OBJ.
    #[command(after_help = with_formats(CONVERT_AFTER))]
    Convert(ConvertArgs),
    /// Convert many models (files, folders, archives) in parallel into a folder.
    #[command(after_help = with_formats(BATCH_AFTER))]
    Batch(BatchArgs),
    /// Check models against every rule of the format and print every finding.
    #[command(after_help = VALIDATE_AFTER)]
    Validate(ValidateArgs),
    /// Print a model's nodes, slots, batches, entries and animation summary.
    #[command(after_help = INSPECT_AFTER)]
    Inspect(InspectArgs),
    /// Print every node's local pose at one time, as the engine samples it.
    #[command(after_help = POSE_AFTER)]
    Pose(PoseArgs),
    /// List, extract, pack and repack NRes archives (.rlb, and .msh containers).
    #[command(subcommand, after_help = NRES_AFTER)]
    Nres(NresCommand),
    /// Export Textures.lib as PNG files and textures.json; import them back.
    #[command(subcommand, after_help = crate::cmd_library::TEXTURES_AFTER)]
    Textures(crate::cmd_library::TexturesCommand),
    /// Export Material.lib as one JSON text file; import it back.
    #[command(subcommand, after_help = crate::cmd_library::MATERIALS_AFTER)]
    Materials(crate::cmd_library::MaterialsCommand),
    /// Print a shell completion script.
    #[command(after_help = COMPLETIONS_AFTER)]
    Completions(CompletionsArgs),
}

const VALIDATE_AFTER: &str = after!(
    "Examples:
  mshconv validate tank.msh
  mshconv validate --json models/*.msh > report.json
  mshconv validate --tolerant models.rlb:TANK.MSH
  mshconv validate units.rlb                # every model of the archive

Strict mode (the default) rejects a file with any error finding; tolerant mode
rejects only a container that cannot be opened at all, and says `readable`
(not `valid`) for a file it accepts with errors. Warnings (non-canonical but
valid layouts) never reject a file.

An archive of models named without an entry is checked whole: a verdict per
model (ARCHIVE:ENTRY), then `ARCHIVE: archive of N models: M valid, K invalid`;
the exit code is 1 when any model is rejected."
);

const INSPECT_AFTER: &str = after!(
    "Examples:
  mshconv inspect tank.msh
  mshconv inspect --json models.rlb --entry TANK.MSH
  mshconv inspect units.rlb                 # the entries, a summary per model

An archive of models named without an entry is listed: each entry's index,
type (as text where printable: MSH, TXT), name and size, and for each model its
kind, nodes, slots, triangles, whether it is animated and its verdict."
);

const POSE_AFTER: &str = after!(
    "Examples:
  mshconv pose tank.msh --time 12.5
  mshconv pose tank.msh --time=-0.5 --json

The frame is the engine's: round_half_even(t - 0.5) in single precision. A
negative frame (t < 0) is printed signed; the engine reads it unsigned, so it
is past every frame_count and every node shows its fallback key (`before the
timeline`).

The rotation is printed [w, x, y, z] as the engine holds it; under the default
reading a node turns by its conjugate. In JSON, NaN and infinities are the
strings \"NaN\", \"Infinity\" and \"-Infinity\"; every other number is the
shortest decimal that parses back to the same f32."
);

const COMPLETIONS_AFTER: &str = after!(
    "Examples:
  mshconv completions bash > ~/.local/share/bash-completion/completions/mshconv
  mshconv completions zsh > ~/.zfunc/_mshconv"
);

const NRES_AFTER: &str = after!(
    "Examples:
  mshconv nres list models.rlb
  mshconv nres extract models.rlb --out unpacked/
  mshconv nres pack unpacked/ --out models.rlb
  mshconv nres repack models.rlb --out models.canonical.rlb"
);

const NRES_LIST_AFTER: &str = after!(
    "Examples:
  mshconv nres list models.rlb
  mshconv nres list --json tank.msh"
);

const NRES_EXTRACT_AFTER: &str = after!(
    "Examples:
  mshconv nres extract models.rlb --out unpacked/
  mshconv nres extract models.rlb --out unpacked/ --force

Writes each payload to NNNN-NAME (NNNN the directory index, NAME made safe for
any file system) and a manifest.json with every entry's type, attributes, name,
sort_index and the file's layout, so `nres pack` can rebuild it. A folder that
is not empty is refused (io.not_empty, exit 2) unless --force: extracting again
would overwrite the edits made in it."
);

const NRES_PACK_AFTER: &str = after!(
    "Examples:
  mshconv nres pack unpacked/ --out models.rlb
  mshconv nres pack unpacked/ --out models.rlb --lossless
  mshconv nres pack unpacked/ --out models.rlb --add

Entry order, names, types and attributes come from manifest.json. The default
layout is canonical (payloads in directory order padded with zeros to 8 bytes,
sort_index recomputed); --lossless restores the layout recorded at extraction
(payload order, gaps and padding, stored sort_index), so an unedited folder
packs back to the original bytes.

A file in DIR that the manifest does not list is refused (manifest.unlisted,
exit 2), named in the message, unless --add: then each such file (in name
order) becomes a new entry after the listed ones, named after the file, with
the type its extension spells in capitals (tank.msh: MSH, notes.txt: TXT; an
extension of 2 to 4 letters or digits is needed) and attributes 0, and the
sort table is recomputed so the game finds it."
);

const NRES_PUT_AFTER: &str = after!(
    "Examples:
  mshconv nres put units.rlb tank.msh --name TANK.MSH
  mshconv nres put textures.lib wall.tex --name WALL --type Texm --add

A canonical archive stays canonical; any other keeps its layout. The entry of
that name is replaced; a name the archive does not have is added only with
--add, else refused (archive.no_such_entry, with the closest names), as
`convert IN ARCHIVE:ENTRY` refuses it. An added
entry gets the type (MSH unless --type), attributes 0, and the sort table is
updated so the game finds it. `mshconv convert edited.glb units.rlb:TANK.MSH`
converts and puts in one step. A read-only (io.read_only) or hard-linked
(io.hard_linked) archive is refused; a symbolic link is written through."
);

const NRES_REMOVE_AFTER: &str = after!(
    "Examples:
  mshconv nres remove units.rlb OLD_TANK.MSH"
);

const NRES_REPACK_AFTER: &str = after!(
    "Examples:
  mshconv nres repack models.rlb --out models.canonical.rlb

Reads the archive and writes it back canonically; a canonical file comes back
byte for byte."
);

const CONVERT_AFTER: &str = after!(
    "Examples:
  mshconv convert tank.msh tank.glb
  mshconv convert tank.msh tank.gltf --lod 1 --fps 30 --axis z-up
  mshconv convert units.rlb:TANK.MSH tank.glb
  cat tank.msh | mshconv convert - - --from msh --to glb > tank.glb

  mshconv convert tank.msh tank.obj                # and tank.mtl beside it
  mshconv convert tank.obj tank.msh
  mshconv convert edited.glb tank.msh
  mshconv convert scene.gltf scene.msh --animation walk --fps 30
  mshconv convert tank.msh tank.glb --clips 'idle=0..10:loop,fire=11..20:once'
  mshconv convert tank.msh tank.usda               # USD text, for USD-based tools
  mshconv convert tank.glb tank.msh                # and tank.clips.json, if it has clips
  mshconv convert edited.glb units.rlb:TANK.MSH     # replaces the entry TANK.MSH
  mshconv convert new.glb units.rlb:NEW.MSH --add   # adds a model the archive lacks

The input format is --from, else told from IN's bytes, else from its extension
(a .glb renamed .msh converts, with a note); the output format is --to or OUT's
extension ({extensions}).
Export defaults: --lod 0 --group 0 --fps 24 --axis y-up --rotation conjugate;
they are recorded in the output, and the import reads them back (a file written
by mshconv converts back to the identical .msh). A .gltf's side-car buffers are
read only from its own folder; no other URI is followed. Notes about
approximations go to stderr (--quiet: none).
OUT as ARCHIVE:ENTRY replaces that entry of the archive; a name the archive
does not have is refused (archive.no_such_entry, with the closest names) unless
--add is given.
Available: {directions}."
);

const BATCH_AFTER: &str = "Examples:
  mshconv batch models/ --to glb --out converted/
  mshconv batch units.rlb scenery.rlb --to gltf --out converted/ --jobs 2
  mshconv batch models/ --to glb --out converted/ --include 'units/**' --exclude '*_old.msh'
  mshconv batch converted/ --to msh --out back/ --report report.json
  mshconv batch edited/ --to msh --into units.rlb
  mshconv batch new/ --to msh --into units.rlb --add
  mshconv batch units.rlb:TANK.MSH units.rlb --to glb --out converted/ --include 'M1*'

INPUTs are files, folders (searched recursively), .rlb archives and
ARCHIVE:ENTRY. A folder gives every file that converts to the --to format
({directions}) and every .rlb archive in it (not for
--to msh), filtered by --include/--exclude on its path relative to the folder;
files named on the command line are always taken. Every entry of an archive
whose name ends in .msh is converted; the filters see an entry as the file
ARCHIVE/ENTRY of a folder named after the archive (--include 'M1*' takes the
entries whose names start with M1). Outputs mirror the inputs under OUT:
  models/units/tank.msh  (INPUT models/)   ->  OUT/units/tank.glb
  tank.msh               (INPUT tank.msh)  ->  OUT/tank.glb
  units.rlb, entry TANK.MSH                ->  OUT/units.rlb/TANK.glb

Globs: * ? [a-z] [!a-z] within a path segment, ** as a whole segment across
segments, {a,b} either; a pattern without / matches the file name at any depth;
letters match in either case.

With --to msh --into ARCHIVE instead of --out, every converted model goes into
that existing archive as the entry STEM.MSH (the input's file stem in capitals):
it replaces the entry of that name, or with --add is added (without --add a
model whose entry the archive lacks fails with archive.no_such_entry, naming the
closest names); the archive is written once, at the end, durably (with
--game-dir, in one transaction with the libraries), while other mshconv writers
of its folder wait; the report's \"placed\" says replaced or added.

With --to msh --game-dir DIR each model's look goes back into DIR's libraries
(docs/MATERIALS.md); two models of the run that edit one texture or material
differently stop the run (look.edit_conflict), and nothing is written.
--dry-run converts everything and lists what would be written (files, archive
entries, WEARs, library entries) without writing anything.

An input that is not converted on purpose prints `skip[CODE]: INPUT: reason`
(not with --quiet).

Each output is written under a temporary name and renamed. Ctrl-C stops the
batch: files in progress are finished, no others are started, the summary so far
is printed (and the report written), and the exit code is 130. A progress bar
is drawn on stderr when it is a terminal (not with --quiet); a summary line
(converted, failed, skipped, bytes in and out, seconds) ends the run.

--report FILE writes JSON, sorted by input:
  {\"summary\": {\"to\", \"converted\", \"failed\", \"skipped\", \"bytes_in\",
               \"bytes_out\", \"seconds\", \"interrupted\"},
   \"files\": [{\"input\", \"output\", \"status\", \"code\", \"message\", \"notes\",
              \"bytes_in\", \"bytes_out\", \"ms\", \"placed\" (with --into)}]}

Exit codes:
  0  success: every file was converted (or skipped)
  1  some file failed; every other file was still converted
  2  usage error, or an I/O error about the command itself (OUT cannot be
     created, an INPUT does not exist, the report cannot be written)
  3  nothing converted: no input converts to --to (every one skipped, or none found)
  130  interrupted by SIGINT (Ctrl-C)

Errors print on stderr as `error[CODE]: INPUT: message`, CODE being a stable
identifier such as nres.bad_magic, batch.index_range or io.not_found.";

/// A help epilogue with the formats' table filled in: `{directions}` (every
/// direction, `msh -> glb/..., ... -> msh`) and `{extensions}` (`.msh .glb ...`).
fn with_formats(text: &str) -> String {
    let extensions: Vec<String> = mshconv_app::FORMATS
        .iter()
        .map(|f| format!(".{}", f.name))
        .collect();
    text.replace("{directions}", &Format::directions())
        .replace("{extensions}", &extensions.join(" "))
}

/// `--from`/`--to`: one of the application layer's formats, with the
/// possible values in the help.
fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Format::ALL.map(Format::name))
        .try_map(|s| s.parse::<Format>())
}

/// Options of `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input file, ARCHIVE:ENTRY, or - for stdin.
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Output file, or - for stdout.
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Input format (default: told from IN's bytes, else its extension).
    #[arg(long, value_parser = format_parser())]
    pub from: Option<Format>,
    /// Output format (default: from OUT's extension).
    #[arg(long, value_parser = format_parser())]
    pub to: Option<Format>,
    /// What the conversion shows, its timeline and frame.
    #[command(flatten)]
    pub conversion: ConversionArgs,
    /// Look IN up as an archive and convert this entry of it.
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Do not print notes about approximations.
    #[arg(long, short)]
    pub quiet: bool,
    /// List what would be written (files, archive entries and, with
    /// --game-dir, the library entries a glTF's look adds or replaces) and
    /// write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// With OUT as ARCHIVE:ENTRY: add the entry when the archive has none
    /// of that name (without it, such a name is refused: a typo adds nothing).
    #[arg(long)]
    pub add: bool,
    /// glTF/GLB -> MSH: the model the file was exported from, which another
    /// tool's rewrite is recognised against (its unedited parts kept byte for
    /// byte) [default: the model OUT replaces, the file or ARCHIVE:ENTRY]
    #[arg(long, value_name = "FILE")]
    pub original: Option<PathBuf>,
}

/// Options of `batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Model files, folders (searched recursively) and .rlb archives.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = format_parser())]
    pub to: Format,
    /// The folder to write into (created if missing; files in it are overwritten).
    #[arg(long, value_name = "DIR", required_unless_present = "into")]
    pub out: Option<PathBuf>,
    /// With --to msh: put every converted model into this existing archive
    /// instead (each replaces the entry of its name, STEM.MSH; with --add a
    /// name the archive lacks is added).
    #[arg(long, value_name = "ARCHIVE", conflicts_with = "out")]
    pub into: Option<PathBuf>,
    /// With --into: add the models whose entry the archive does not have
    /// (without it, each fails with archive.no_such_entry).
    #[arg(long, requires = "into")]
    pub add: bool,
    /// Conversions at once [default: the number of cores].
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Take only files in folders whose relative path matches GLOB (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Leave out files in folders whose relative path matches GLOB (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Write a JSON report of every file to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// No progress bar and no notes about approximations (errors and the
    /// summary line still print).
    #[arg(long, short)]
    pub quiet: bool,
    /// Convert everything and list what would be written (files, archive
    /// entries and, with --game-dir, the libraries and their entries), and
    /// write nothing (not even a report).
    #[arg(long, conflicts_with = "report")]
    pub dry_run: bool,
    /// What the conversion shows, its timeline and frame.
    #[command(flatten)]
    pub conversion: ConversionArgs,
}

/// The conversion options `convert` and `batch` share: one flag per row of
/// [`mshconv_app::OPTIONS`] (its name, value name and help text), then
/// `--game-dir` and `--new-libraries`. Clap reads their syntax only; the
/// values are parsed and range-checked by the application layer
/// ([`mshconv_app::Options::set`]), as the service's are.
#[derive(Debug, Clone, Default)]
pub struct ConversionArgs {
    /// The options given, in the table's order, as text.
    pub given: Vec<(mshconv_app::OptionName, String)>,
    /// MSH -> glTF/GLB/OBJ: the game's folder (`--game-dir`, env `MSHCONV_GAME_DIR`).
    pub game_dir: Option<PathBuf>,
    /// glTF/GLB/OBJ -> MSH with --game-dir: create the libraries (`--new-libraries`).
    pub new_libraries: bool,
}

/// The id of `--game-dir`.
const GAME_DIR: &str = "game_dir";
/// The id of `--new-libraries`.
const NEW_LIBRARIES: &str = "new_libraries";

impl clap::FromArgMatches for ConversionArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut args = ConversionArgs::default();
        args.update_from_arg_matches(matches)?;
        Ok(args)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        for row in &mshconv_app::OPTIONS {
            if let Some(value) = matches.get_one::<String>(row.flag) {
                self.given.retain(|(name, _)| *name != row.name);
                self.given.push((row.name, value.clone()));
            }
        }
        if let Some(dir) = matches.get_one::<PathBuf>(GAME_DIR) {
            self.game_dir = Some(dir.clone());
        }
        self.new_libraries |= matches.get_flag(NEW_LIBRARIES);
        Ok(())
    }
}

impl Args for ConversionArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        use clap::{Arg, ArgAction};
        let option = |row: &mshconv_app::OptionSpec| {
            let arg = Arg::new(row.flag)
                .long(row.flag)
                .value_name(row.value_name)
                .help(row.help)
                .action(ArgAction::Set);
            // A true/false option: the flag alone is true (a value is given
            // with `=`, so the flag never takes the next argument).
            match row.values {
                mshconv_app::OptionValues::OneOf(["false", "true"]) => arg
                    .num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("true"),
                _ => arg,
            }
        };
        let rows = mshconv_app::OPTIONS.iter();
        // The options of every model, the game folder's flags, then one
        // model's options (`--clips`): the order the help has always had.
        command
            .args(rows.clone().filter(|r| !r.one_model).map(option))
            .arg(
                Arg::new(GAME_DIR)
                    .long("game-dir")
                    .value_name("DIR")
                    .env("MSHCONV_GAME_DIR")
                    .value_parser(clap::value_parser!(PathBuf))
                    .action(ArgAction::Set)
                    .help(
                        "MSH -> glTF/GLB/OBJ: the game's folder (Material.lib, Textures.lib): each \
                         model's materials are resolved through its WEAR sibling and exported with \
                         their names and textures (docs/MATERIALS.md)",
                    ),
            )
            .arg(
                Arg::new(NEW_LIBRARIES)
                    .long("new-libraries")
                    .action(ArgAction::SetTrue)
                    .help(
                        "glTF/GLB/OBJ -> MSH with --game-dir: create Material.lib and \
                         Textures.lib in a game folder that has none (refused without it: \
                         game_dir.no_libraries)",
                    ),
            )
            .args(rows.filter(|r| r.one_model).map(option))
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl ConversionArgs {
    /// The game folder of `--game-dir` (or `MSHCONV_GAME_DIR`), opened once
    /// an interrupted run writing it is finished (shared by every conversion
    /// of the process); `None` without one.
    pub fn game(&self) -> Result<Option<std::sync::Arc<mshconv_app::GameDir>>, mshconv_app::Error> {
        self.game_dir
            .as_deref()
            .filter(|d| !d.as_os_str().is_empty())
            .map(|dir| mshconv_app::GameDir::open_recovered(dir, &mut crate::fs::tell))
            .transpose()
    }

    /// The options, parsed and range-checked by the application layer, in
    /// the table's order (the first bad one is refused).
    pub fn options(&self) -> Result<mshconv_app::Options, mshconv_app::Error> {
        let mut options = mshconv_app::Options::default();
        for (name, value) in &self.given {
            if *name == mshconv_app::OptionName::Clips {
                options.set(*name, &clips_text(value)?)?;
            } else {
                options.set(*name, value)?;
            }
        }
        Ok(options)
    }
}

/// The text of `--clips`: the value itself when it is a clip list (it holds
/// `=`), else the JSON file it names.
fn clips_text(value: &str) -> Result<String, mshconv_app::Error> {
    if value.contains('=') {
        return Ok(value.to_string());
    }
    std::fs::read_to_string(value).map_err(|e| {
        mshconv_app::Error::usage(
            CliCode::ClipsUnreadable,
            format!(
                "--clips {value}: not a clip list (NAME=FIRST..LAST) and not a readable file: {e}"
            ),
        )
    })
}

/// Options of `validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Report damage and go on; reject only a container that cannot be opened.
    #[arg(long)]
    pub tolerant: bool,
    /// Print a JSON array of {file, mode, valid, kind, findings} (one per model of an archive).
    #[arg(long)]
    pub json: bool,
    /// Look each FILE up as an archive and validate this entry of it.
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Model files, archives of models (every model is checked), or ARCHIVE:ENTRY.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Options of `inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Inspect a damaged model as far as it can be read instead of rejecting it.
    #[arg(long)]
    pub tolerant: bool,
    /// Look FILE up as an archive and inspect this entry of it.
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Model file, archive of models (its entries are listed), or ARCHIVE:ENTRY.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Options of `pose`.
#[derive(Debug, Args)]
pub struct PoseArgs {
    /// Model file, or ARCHIVE:ENTRY.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Time on the animation timeline, in frames (negative, NaN and inf allowed).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub time: f32,
    /// Print JSON: {"time": T, "frame", "frame_count", "timeline", "nodes": [{index, name,
    /// translation, rotation, fallback}]}.
    #[arg(long)]
    pub json: bool,
    /// Sample a damaged model as far as it can be read instead of rejecting it.
    #[arg(long)]
    pub tolerant: bool,
    /// Look FILE up as an archive and sample this entry of it.
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
}

/// Options of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The `nres` subcommands.
#[derive(Debug, Subcommand)]
pub enum NresCommand {
    /// List an archive's entries: index, type, name, size, attributes, offset, sort_index.
    #[command(after_help = NRES_LIST_AFTER)]
    List {
        /// The NRes file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write every entry's payload to a folder, with a manifest.json to pack it back.
    #[command(after_help = NRES_EXTRACT_AFTER)]
    Extract {
        /// The NRes file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The folder to write (created if missing; it must be empty unless --force).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Extract into a folder that is not empty, overwriting its files of the same names.
        #[arg(long)]
        force: bool,
    },
    /// Build an NRes file from a folder written by `nres extract`.
    #[command(after_help = NRES_PACK_AFTER)]
    Pack {
        /// The folder holding manifest.json and the payload files.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// The file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Canonical layout (the default).
        #[arg(long, conflicts_with = "lossless")]
        canonical: bool,
        /// The layout recorded in the manifest: payload order, gaps, padding, sort_index.
        #[arg(long)]
        lossless: bool,
        /// Pack the files the manifest does not list as new entries after the
        /// others, named after the file, typed by its extension (.msh: MSH).
        #[arg(long)]
        add: bool,
    },
    /// Put a file into an archive as an entry: replace the entry of its name,
    /// or add one; every other entry keeps its bytes, name and order.
    #[command(after_help = NRES_PUT_AFTER)]
    Put {
        /// The archive (changed in place, durably: a kill leaves the old one
        /// whole; other mshconv writers of its folder wait).
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        /// The file whose bytes become the entry's payload.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The entry's name [default: FILE's file name].
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// The type of an added entry (a number, or up to four characters such
        /// as MSH or Texm) [default: MSH]; given, it is set on a replaced entry too.
        #[arg(long, value_name = "TYPE")]
        r#type: Option<String>,
        /// Add the entry when the archive has none of that name (without it,
        /// such a name is refused with archive.no_such_entry and the closest names).
        #[arg(long)]
        add: bool,
    },
    /// Remove an entry from an archive; every other entry keeps its bytes, name and order.
    #[command(after_help = NRES_REMOVE_AFTER)]
    Remove {
        /// The archive (changed in place, durably; other mshconv writers wait).
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        /// The entry's name (ASCII case-insensitive, as in the game).
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Read an NRes file and write it back in the canonical layout.
    #[command(after_help = NRES_REPACK_AFTER)]
    Repack {
        /// The NRes file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The file to write (may be FILE itself).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use mshconv_app::{FORMATS, OPTIONS};

    #[test]
    fn the_command_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The help texts' lists of formats come from the formats' table.
    #[test]
    fn help_texts_list_the_formats() {
        let convert = with_formats(CONVERT_AFTER);
        let batch = with_formats(BATCH_AFTER);
        assert!(convert.contains("Available: msh -> glb/gltf/obj/usda, glb/gltf/obj -> msh."));
        assert!(batch.contains("(msh -> glb/gltf/obj/usda, glb/gltf/obj -> msh) and every"));
        let extensions: Vec<String> = FORMATS.iter().map(|f| format!(".{}", f.name)).collect();
        assert!(convert.contains(&format!("extension ({})", extensions.join(" "))));
        assert!(!batch.contains("{directions}") && !convert.contains("{extensions}"));
    }

    /// `convert` and `batch` have one flag per option, with the table's help.
    #[test]
    fn conversion_flags_are_the_options_table() {
        let cli = Cli::command();
        for sub in ["convert", "batch"] {
            let command = cli.find_subcommand(sub).unwrap();
            for row in &OPTIONS {
                let arg = command
                    .get_arguments()
                    .find(|a| a.get_long() == Some(row.flag))
                    .unwrap_or_else(|| panic!("{sub} --{}", row.flag));
                assert_eq!(arg.get_help().unwrap().to_string(), row.help);
                let names: Vec<&str> = arg
                    .get_value_names()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str())
                    .collect();
                assert_eq!(names, [row.value_name]);
            }
        }
        let parsed = Cli::try_parse_from([
            "mshconv", "convert", "a.msh", "b.glb", "--fps", "30", "--lod", "1", "--lod", "2",
        ]);
        // A repeated flag is clap's error, as with the derive.
        assert!(parsed.is_err());
        let Command::Convert(args) = Cli::try_parse_from([
            "mshconv", "convert", "a.msh", "b.glb", "--fps", "30", "--lod", "1",
        ])
        .unwrap()
        .command
        else {
            panic!("convert")
        };
        let options = args.conversion.options().unwrap();
        assert_eq!(
            (options.lod.get(), options.fps.map(|f| f.get())),
            (1, Some(30.0))
        );
        let e = ConversionArgs {
            given: vec![(mshconv_app::OptionName::Lod, "abc".into())],
            ..ConversionArgs::default()
        }
        .options()
        .unwrap_err();
        assert_eq!(e.to_string(), "lod must be a number, not \"abc\"");
    }
}
