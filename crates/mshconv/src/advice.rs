//! How the CLI tells its user to give the game folder (`look.not_written`,
//! worded by the application layer): `--game-dir`, and this command line
//! with it.

use mshconv_app::look_import::advice::GameDirAdvice;

/// The CLI's way to say "run it with the game folder".
#[derive(Debug, Clone, Copy)]
pub struct Cli;

impl GameDirAdvice for Cli {
    fn option(&self) -> String {
        "--game-dir".to_string()
    }

    fn command(&self, dir: &str) -> String {
        this_command_with(&["--game-dir", dir])
    }
}

/// The command line of this run without `--dry-run` and with `extra`
/// appended, quoted for a POSIX shell (the form a note shows a command in).
fn this_command_with(extra: &[&str]) -> String {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| a != "--dry-run")
        .chain(extra.iter().map(|s| s.to_string()))
        .collect();
    args.iter()
        .map(|a| shlex::try_quote(a).map_or_else(|_| a.clone(), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}
