//! # mshconv: the command-line tool for *Parkan: Iron Strategy* models
//!
//! Converts `.msh` models (NRes containers of typed tables) to and from
//! glTF/GLB/OBJ, one at a time or in parallel batches; validates, inspects and
//! samples them; and unpacks, packs and repacks NRes archives. The format work lives
//! in the libraries [`nres`] (container) and [`msh`] (model), what is printed
//! about them in [`mshconv_app::report`]; this binary only parses arguments,
//! reads and writes files, and prints.
//!
//! Exit codes: 0 success (also when stdout is closed early), 1 the input is
//! invalid or an operation on valid input failed, 2 usage or I/O error.
//! Errors print as `error[CODE]: message` on stderr, with the library's stable code.

#![forbid(unsafe_code)]

mod archive_out;
mod batch;
#[macro_use]
mod cli; // its help macros serve cmd_library too
mod advice;
mod cmd_convert;
mod cmd_inspect;
mod cmd_library;
mod cmd_nres;
mod cmd_pose;
mod cmd_validate;
mod codes;
mod fail;
mod fs;
mod input;
mod jsonf;
mod out;
mod table;
mod version;

use clap::{CommandFactory, Parser};
use cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are "errors" with exit code 0; a closed pipe while
            // printing them is not worth reporting.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            let failure = fail::classify(&e);
            if failure.exit == 0 {
                return ExitCode::SUCCESS;
            }
            out::error_line(&failure.code, &fail::message(&e));
            ExitCode::from(failure.exit)
        }
    }
}

/// Runs one parsed command line; the exit code on success, the error otherwise.
fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let mut out = out::Out::stdout();
    match cli.command {
        Command::Convert(args) => cmd_convert::run(&args, &mut out),
        Command::Batch(args) => batch::run(&args),
        Command::Validate(args) => cmd_validate::run(&args, &mut out),
        Command::Inspect(args) => cmd_inspect::run(&args, &mut out),
        Command::Pose(args) => cmd_pose::run(&args, &mut out),
        Command::Nres(command) => cmd_nres::run(&command, &mut out),
        Command::Textures(command) => cmd_library::run_textures(&command, &mut out),
        Command::Materials(command) => cmd_library::run_materials(&command, &mut out),
        Command::Completions(args) => {
            let mut buf = Vec::new();
            clap_complete::generate(args.shell, &mut Cli::command(), "mshconv", &mut buf);
            out.bytes(&buf)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
