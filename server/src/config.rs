//! The service's settings: defaults, command-line flags and environment
//! variables (a flag wins over its variable, which wins over the default).
//!
//! clap (derive, with its `env` feature) reads the command line: the flags,
//! `--flag VALUE` and `--flag=VALUE`, a value that starts with `-`, the last
//! of a repeated flag, the `MSHCONV_*` variable of a flag that is absent,
//! `-h`/`--help` and `-V`/`--version`, unknown arguments. It keeps the values
//! as text; [`parse_args`] then checks them in the same order and with the
//! same ranges and messages as before clap, naming where a bad value came from
//! (`--max-jobs: ...` or `MSHCONV_MAX_JOBS: ...`, which clap's own value
//! parsers cannot: they name the flag either way). The defaults are
//! [`Config::default`]'s, not clap's (the job limit is the CPU count, known at
//! run time), and the help text is [`USAGE`], as before: clap's generated help
//! would be laid out differently (`[env: MSHCONV_ADDR=]`, its own wrapping).
//!
//! What clap does differently from the hand-written parser it replaced, and
//! cannot be told not to:
//! - `--` ends the options (nothing may follow it: the service takes no
//!   operands), where it was an unknown argument;
//! - short flags cluster: `-hV` is `-h`, where it was an unknown argument;
//! - `--help=x` and `--healthcheck=x` are refused in clap's words
//!   ("unexpected value 'x' for '--healthcheck' found; no more were
//!   expected"); `--help=x` asked for the help text before;
//! - an unknown `--flag=value` is named without its value;
//! - an argument that is not UTF-8 is read (and refused as a bad value) where
//!   `std::env::args` panicked. A variable that is not UTF-8 still counts as
//!   unset.
//!
//! clap reads the variables from the process's environment when the command
//! is built: they cannot be passed in, so [`parse_args`] no longer takes a
//! lookup function, and the tests run it in a child process.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser};
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Default listen address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// Default request body limit: 64 MiB.
pub const DEFAULT_MAX_BODY: usize = 64 * 1024 * 1024;
/// Default time limit of one request.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default limit of open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Default time a connection has to send a request's head (and the longest
/// an idle keep-alive connection is kept).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything the service can be told.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Where to listen.
    pub addr: SocketAddr,
    /// Largest request body accepted, in bytes; larger ones get 413.
    pub max_body: usize,
    /// Most bytes of request bodies held at once, across all requests; a
    /// body that does not fit gets 503 `server.busy` (`crate::budget`).
    /// `None`: [`Config::body_budget`]'s default, derived from the others.
    pub max_buffered: Option<usize>,
    /// How many conversions (and other model work) run at once; a request that
    /// finds every slot busy gets 503 at once.
    pub max_jobs: usize,
    /// Time limit of one request, from its arrival: a body still arriving then
    /// gets 408, work still running gets 503.
    pub timeout: Duration,
    /// Most connections open at once. A connection past it is answered 503
    /// (`server.too_many_connections`) and closed; past twice as many, it is
    /// closed at once. Keep it below the process's open-file limit.
    pub max_connections: usize,
    /// Time a connection has to send the head of a request (request line and
    /// headers), also the longest an idle keep-alive connection stays open:
    /// then it is closed. Bounds what slow or silent clients hold.
    pub header_timeout: Duration,
    /// The game folder (`Material.lib`, `Textures.lib`) whose look every
    /// MSH export gets when the model's WEAR is found (docs/MATERIALS.md).
    pub game_dir: Option<PathBuf>,
    /// Extra time each job holds its slot before it runs. Zero (the default,
    /// and not settable from the command line); tests set it to keep a slot
    /// busy for as long as they need, which makes overload, time-out and
    /// shutdown behaviour observable without relying on a slow input.
    pub job_delay: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: DEFAULT_ADDR.parse().expect("the default address parses"),
            max_body: DEFAULT_MAX_BODY,
            max_buffered: None,
            max_jobs: default_jobs(),
            timeout: DEFAULT_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            game_dir: None,
            job_delay: Duration::ZERO,
        }
    }
}

impl Config {
    /// The body budget in bytes: `max_buffered`, else `max_body` x
    /// (`max_jobs` + 2): a full body for every job that computes and for two
    /// that arrive meanwhile (64 MiB x 4 = 256 MiB on two CPUs). Never below
    /// `max_body`, so that a body the limit admits can be read.
    pub fn body_budget(&self) -> usize {
        self.max_buffered
            .unwrap_or_else(|| {
                self.max_body
                    .saturating_mul(self.max_jobs.max(1).saturating_add(2))
            })
            .max(self.max_body)
    }
}

/// The number of CPUs (at least 1): the default job limit.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Invocation {
    /// Run the service.
    Serve(Config),
    /// Ask a running service's `/healthz` (at the configured address) and exit
    /// 0 when it answers 200: the container image's `HEALTHCHECK`.
    Healthcheck(Config),
    /// Print the usage text.
    Help,
    /// Print the version.
    Version,
}

/// The `--help` text (also clap's, through `override_help`).
pub const USAGE: &str = "\
mshconv-server: HTTP service that converts, validates, inspects and poses
Parkan: Iron Strategy .msh models (see README.md, `HTTP service`).

Usage: mshconv-server [OPTIONS]

Options (each flag wins over its environment variable):
  --addr ADDR        listen address [env MSHCONV_ADDR] [default 127.0.0.1:8080]
  --max-body SIZE    largest request body, bytes or with K/M/G, KiB/MiB/GiB
                     [env MSHCONV_MAX_BODY] [default 64MiB]
  --max-buffered SIZE
                     request bodies held in memory at once, all requests
                     together; more get 503 [env MSHCONV_MAX_BUFFERED]
                     [default: max-body x (max-jobs + 2), at least max-body]
  --max-jobs N       conversions admitted at once (one per CPU computes);
                     more get 503 [env MSHCONV_MAX_JOBS]
                     [default: the number of CPUs]
  --timeout TIME     time limit of a request: seconds, or with ms/s/m
                     [env MSHCONV_TIMEOUT] [default 30s]
  --max-connections N
                     open connections at once; more get 503 and are closed
                     [env MSHCONV_MAX_CONNECTIONS] [default 1024]
  --header-timeout TIME
                     time to send a request's head, and the longest idle
                     keep-alive [env MSHCONV_HEADER_TIMEOUT] [default 10s]
  --game-dir DIR     game folder (Material.lib, Textures.lib): exports of a
                     model whose WEAR is found get the game's look
                     [env MSHCONV_GAME_DIR] [default: none]
  --healthcheck      ask GET /healthz of the service at ADDR (0.0.0.0 means
                     127.0.0.1) and exit 0 if it answers 200, else 1
  -h, --help         print this text
  -V, --version      print the version

Logging: RUST_LOG (default `info`), e.g. RUST_LOG=mshconv_server=debug.
";

/// A flag or value the command line gets wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The flags, as clap reads them from the command line and, for a flag that is
/// not there, from its environment variable. Values stay text (`OsString`, so
/// that a variable that is not UTF-8 can be told apart): [`parse_args`] checks
/// them, naming the flag or the variable a bad value came from. Every value
/// may start with `-` (`--timeout -1` is a bad time, not a missing value), a
/// flag given twice keeps its last value, and the help text is [`USAGE`].
#[derive(Debug, Parser)]
#[command(
    name = "mshconv-server",
    version,
    override_help = USAGE,
    args_override_self = true
)]
struct Args {
    /// The listen address.
    #[arg(
        long,
        env = "MSHCONV_ADDR",
        value_name = "ADDR",
        allow_hyphen_values = true
    )]
    addr: Option<OsString>,
    /// The largest request body.
    #[arg(
        long,
        env = "MSHCONV_MAX_BODY",
        value_name = "SIZE",
        allow_hyphen_values = true
    )]
    max_body: Option<OsString>,
    /// The bytes of request bodies held at once.
    #[arg(
        long,
        env = "MSHCONV_MAX_BUFFERED",
        value_name = "SIZE",
        allow_hyphen_values = true
    )]
    max_buffered: Option<OsString>,
    /// Conversions admitted at once.
    #[arg(
        long,
        env = "MSHCONV_MAX_JOBS",
        value_name = "N",
        allow_hyphen_values = true
    )]
    max_jobs: Option<OsString>,
    /// The time limit of a request.
    #[arg(
        long,
        env = "MSHCONV_TIMEOUT",
        value_name = "TIME",
        allow_hyphen_values = true
    )]
    timeout: Option<OsString>,
    /// Open connections at once.
    #[arg(
        long,
        env = "MSHCONV_MAX_CONNECTIONS",
        value_name = "N",
        allow_hyphen_values = true
    )]
    max_connections: Option<OsString>,
    /// The time to send a request's head.
    #[arg(
        long,
        env = "MSHCONV_HEADER_TIMEOUT",
        value_name = "TIME",
        allow_hyphen_values = true
    )]
    header_timeout: Option<OsString>,
    /// The game folder.
    #[arg(
        long,
        env = "MSHCONV_GAME_DIR",
        value_name = "DIR",
        allow_hyphen_values = true
    )]
    game_dir: Option<OsString>,
    /// Ask a running service's `/healthz` instead of serving.
    #[arg(long)]
    healthcheck: bool,
}

/// Parses the arguments (without the program name) and the `MSHCONV_*`
/// environment variables of the process; a flag wins over its variable, which
/// wins over the default.
pub fn parse_args<I, S>(args: I) -> Result<Invocation, UsageError>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    // Building the command reads the environment variables.
    let command = Args::command();
    let argv =
        std::iter::once(OsString::from("mshconv-server")).chain(args.into_iter().map(Into::into));
    let matches = match command.clone().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => return Ok(Invocation::Help),
        Err(e) if e.kind() == ErrorKind::DisplayVersion => return Ok(Invocation::Version),
        Err(e) => return Err(usage_error(&e)),
    };
    let args = Args::from_arg_matches(&matches).map_err(|e| usage_error(&e))?;
    // A value and where it came from: `--max-jobs` or `MSHCONV_MAX_JOBS`.
    let get = |id: &str, value: Option<OsString>| -> Option<(String, String)> {
        let value = value?;
        let arg = command
            .get_arguments()
            .find(|a| a.get_id() == id)
            .expect("every field is an argument");
        if matches.value_source(id) == Some(ValueSource::EnvVariable) {
            let var = arg.get_env()?.to_string_lossy().into_owned();
            // A variable that is not UTF-8 counts as unset (as `std::env::var`).
            value.into_string().ok().map(|v| (var, v))
        } else {
            let flag = format!("--{}", arg.get_long()?);
            Some((flag, value.to_string_lossy().into_owned()))
        }
    };
    let mut config = Config::default();
    if let Some((from, v)) = get("addr", args.addr) {
        config.addr = v.trim().parse().map_err(|_| {
            UsageError(format!(
                "{from}: {v:?} is not an address such as 127.0.0.1:8080 or [::1]:8080"
            ))
        })?;
    }
    if let Some((from, v)) = get("max_body", args.max_body) {
        config.max_body = parse_size(&v).map_err(|e| UsageError(format!("{from}: {e}")))?;
    }
    if let Some((from, v)) = get("max_buffered", args.max_buffered) {
        let bytes = parse_size(&v).map_err(|e| UsageError(format!("{from}: {e}")))?;
        config.max_buffered = Some(bytes);
    }
    if let Some((from, v)) = get("max_jobs", args.max_jobs) {
        config.max_jobs = match v.trim().parse::<usize>() {
            Ok(n) if (1..=4096).contains(&n) => n,
            _ => {
                return Err(UsageError(format!(
                    "{from}: {v:?} is not a number of jobs from 1 to 4096"
                )))
            }
        };
    }
    if let Some((from, v)) = get("timeout", args.timeout) {
        config.timeout = parse_duration(&v).map_err(|e| UsageError(format!("{from}: {e}")))?;
    }
    if let Some((from, v)) = get("max_connections", args.max_connections) {
        config.max_connections = match v.trim().parse::<usize>() {
            Ok(n) if (1..=1_000_000).contains(&n) => n,
            _ => {
                return Err(UsageError(format!(
                    "{from}: {v:?} is not a number of connections from 1 to 1000000"
                )))
            }
        };
    }
    if let Some((from, v)) = get("header_timeout", args.header_timeout) {
        config.header_timeout =
            parse_duration(&v).map_err(|e| UsageError(format!("{from}: {e}")))?;
    }
    if let Some((from, v)) = get("game_dir", args.game_dir) {
        let dir = PathBuf::from(&v);
        if !dir.is_dir() {
            return Err(UsageError(format!("{from}: {v:?} is not a folder")));
        }
        config.game_dir = Some(dir);
    }
    Ok(if args.healthcheck {
        Invocation::Healthcheck(config)
    } else {
        Invocation::Serve(config)
    })
}

/// clap's error in the words the hand-written parser used: an unknown
/// argument, a flag without its value; other mistakes in clap's own words
/// (its first line, without `error: `).
fn usage_error(e: &clap::Error) -> UsageError {
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    match e.kind() {
        ErrorKind::UnknownArgument => {
            if let Some(arg) = context(ContextKind::InvalidArg) {
                return UsageError(format!(
                    "unknown argument {arg:?} (--help lists the options)"
                ));
            }
        }
        ErrorKind::InvalidValue if context(ContextKind::InvalidValue) == Some("") => {
            // `--addr <ADDR>`: the flag is its first word.
            if let Some(flag) = context(ContextKind::InvalidArg).and_then(|a| a.split(' ').next()) {
                return UsageError(format!("{flag} needs a value"));
            }
        }
        _ => {}
    }
    let text = e.to_string();
    let line = text.lines().next().unwrap_or_default();
    UsageError(line.strip_prefix("error: ").unwrap_or(line).to_string())
}

/// A byte size: a number, optionally followed by `K`, `M`, `G` (powers of
/// 1024, also written `KiB`, `MiB`, `GiB`) or `B`. At least 1 byte.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => {
            return Err(format!(
                "{text:?} is not a size such as 1048576, 512K or 64MiB"
            ))
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{text:?} is not a size such as 1048576, 512K or 64MiB"))
}

/// A duration: seconds, or a number with `ms`, `s` or `m`. More than zero.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let bad = || format!("{text:?} is not a time such as 30, 30s, 500ms or 2m");
    let value: f64 = number.parse().map_err(|_| bad())?;
    let seconds = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        _ => return Err(bad()),
    };
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set in a child process of this test binary: the arguments for
    /// [`child`] to parse, as a JSON array.
    const CHILD_ARGS: &str = "CONFIG_TEST_CHILD_ARGS";
    /// What precedes the child's result on its standard output.
    const RESULT: &str = "parse_args: ";

    /// Not a test of its own: in a child process started by [`parse_in`], it
    /// parses the arguments it is given and prints the result on one line.
    #[test]
    fn child() {
        if let Ok(args) = std::env::var(CHILD_ARGS) {
            let args: Vec<String> = serde_json::from_str(&args).unwrap();
            match parse_args(args) {
                Ok(invocation) => println!("{RESULT}ok {invocation:?}"),
                Err(e) => println!("{RESULT}error {}", e.0.replace('\n', " ")),
            }
        }
    }

    /// What `parse_args(args)` gives (the invocation written with `{:?}`, or
    /// the error message) in a child process of this test binary whose
    /// `MSHCONV_*` variables are exactly `vars`: clap reads the process's
    /// environment, which a test must not change while other tests run.
    fn parse_in(vars: &[(&str, &str)], args: &[&str]) -> Result<String, String> {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command.args([
            "config::tests::child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ]);
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("MSHCONV_") {
                command.env_remove(name);
            }
        }
        command
            .envs(vars.iter().copied())
            .env(CHILD_ARGS, serde_json::to_string(args).unwrap());
        let out = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        let (_, result) = stdout
            .split_once(RESULT)
            .unwrap_or_else(|| panic!("no result from the child: {stdout}"));
        let result = result.lines().next().unwrap_or_default();
        match result.split_once(' ') {
            Some(("ok", invocation)) => Ok(invocation.to_string()),
            Some(("error", message)) => Err(message.to_string()),
            _ => panic!("{result}"),
        }
    }

    fn serve(config: Config) -> Result<String, String> {
        Ok(format!("{:?}", Invocation::Serve(config)))
    }

    const ENV: [(&str, &str); 7] = [
        ("MSHCONV_ADDR", "0.0.0.0:9000"),
        ("MSHCONV_MAX_BODY", "1M"),
        ("MSHCONV_MAX_BUFFERED", "8M"),
        ("MSHCONV_MAX_JOBS", "3"),
        ("MSHCONV_TIMEOUT", "5"),
        ("MSHCONV_MAX_CONNECTIONS", "50"),
        ("MSHCONV_HEADER_TIMEOUT", "2s"),
    ];

    fn from_env() -> Config {
        Config {
            addr: "0.0.0.0:9000".parse().unwrap(),
            max_body: 1 << 20,
            max_buffered: Some(8 << 20),
            max_jobs: 3,
            timeout: Duration::from_secs(5),
            max_connections: 50,
            header_timeout: Duration::from_secs(2),
            ..Config::default()
        }
    }

    #[test]
    fn defaults() {
        let c = Config::default();
        assert_eq!(c.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(c.max_body, 64 << 20);
        assert_eq!(c.timeout, Duration::from_secs(30));
        assert_eq!(c.max_jobs, default_jobs());
        assert!(c.max_jobs >= 1);
        assert_eq!(c.max_connections, 1024);
        assert_eq!(c.header_timeout, Duration::from_secs(10));
        assert_eq!(parse_in(&[], &[]), serve(c));
    }

    #[test]
    fn the_body_budget_is_derived_from_the_limits_and_never_below_one_body() {
        let c = Config {
            max_jobs: 2,
            ..Config::default()
        };
        assert_eq!(c.body_budget(), 256 << 20);
        let c = Config {
            max_buffered: Some(1 << 20),
            ..c
        };
        assert_eq!(c.body_budget(), 64 << 20, "at least one body");
        let c = Config {
            max_buffered: Some(1 << 30),
            ..c
        };
        assert_eq!(c.body_budget(), 1 << 30);
    }

    #[test]
    fn flag_wins_over_environment() {
        assert_eq!(parse_in(&ENV, &[]), serve(from_env()));
        let flags = [
            "--addr",
            "127.0.0.1:1",
            "--max-body=2K",
            "--max-buffered",
            "4K",
            "--max-jobs",
            "7",
            "--timeout",
            "250ms",
            "--max-connections=7",
            "--header-timeout",
            "100ms",
        ];
        let from_flags = Config {
            addr: "127.0.0.1:1".parse().unwrap(),
            max_body: 2048,
            max_buffered: Some(4096),
            max_jobs: 7,
            timeout: Duration::from_millis(250),
            max_connections: 7,
            header_timeout: Duration::from_millis(100),
            ..Config::default()
        };
        assert_eq!(parse_in(&ENV, &flags), serve(from_flags.clone()));
        assert_eq!(parse_in(&[], &flags), serve(from_flags));
        // One flag and the other variables; a repeated flag keeps its last value.
        assert_eq!(
            parse_in(&ENV, &["--max-jobs", "2", "--max-jobs=9"]),
            serve(Config {
                max_jobs: 9,
                ..from_env()
            })
        );
    }

    #[test]
    fn modes_and_mistakes() {
        assert_eq!(parse_args(["--help"]), Ok(Invocation::Help));
        assert_eq!(parse_args(["-h"]), Ok(Invocation::Help));
        assert_eq!(parse_args(["-V"]), Ok(Invocation::Version));
        assert_eq!(parse_args(["--version"]), Ok(Invocation::Version));
        // Help wins over a bad value (values are checked after the parse).
        assert_eq!(
            parse_args(["--max-jobs", "0", "--help"]),
            Ok(Invocation::Help)
        );
        let healthcheck = Invocation::Healthcheck(Config {
            addr: "0.0.0.0:1".parse().unwrap(),
            ..Config::default()
        });
        assert_eq!(
            parse_in(&[], &["--healthcheck", "--addr", "0.0.0.0:1"]),
            Ok(format!("{healthcheck:?}"))
        );
        for bad in [
            &["--addr"][..],
            &["--addr", "nowhere"],
            &["--max-jobs", "0"],
            &["--max-body", "12X"],
            &["--timeout", "-1"],
            &["--max-connections", "0"],
            &["--header-timeout", "never"],
            &["--frobnicate"],
            &["--frobnicate", "--help"],
            &["surplus"],
            &["--healthcheck=yes"],
        ] {
            let e = parse_in(&[], bad).unwrap_err();
            assert!(!e.is_empty(), "{bad:?}");
        }
        let error = |vars: &[(&str, &str)], args: &[&str]| parse_in(vars, args).unwrap_err();
        assert_eq!(
            error(&[], &["--max-jobs", "x"]),
            r#"--max-jobs: "x" is not a number of jobs from 1 to 4096"#
        );
        assert_eq!(error(&[], &["--addr"]), "--addr needs a value");
        assert_eq!(
            error(&[], &["--timeout", "-1"]),
            r#"--timeout: "-1" is not a time such as 30, 30s, 500ms or 2m"#
        );
        assert_eq!(
            error(&[], &["--addr", "--help"]),
            r#"--addr: "--help" is not an address such as 127.0.0.1:8080 or [::1]:8080"#
        );
        assert_eq!(
            error(&[], &["--frobnicate"]),
            r#"unknown argument "--frobnicate" (--help lists the options)"#
        );
        assert_eq!(
            error(&[("MSHCONV_MAX_JOBS", "x")], &[]),
            r#"MSHCONV_MAX_JOBS: "x" is not a number of jobs from 1 to 4096"#
        );
        assert!(error(&[("MSHCONV_ADDR", "")], &[]).starts_with("MSHCONV_ADDR: "));
        // A flag wins over its variable, also over a bad one.
        assert!(
            error(&[("MSHCONV_MAX_JOBS", "x")], &["--max-jobs", "0"]).starts_with("--max-jobs: ")
        );
        assert_eq!(
            error(&[], &["--game-dir", "/no/such/folder"]),
            r#"--game-dir: "/no/such/folder" is not a folder"#
        );
        assert_eq!(
            error(&[("MSHCONV_GAME_DIR", "/no/such/folder")], &[]),
            r#"MSHCONV_GAME_DIR: "/no/such/folder" is not a folder"#
        );
        let dir = std::env::temp_dir();
        let with_game = |c: Config| {
            serve(Config {
                game_dir: Some(dir.clone()),
                ..c
            })
        };
        let text = dir.to_string_lossy().into_owned();
        assert_eq!(
            parse_in(&[("MSHCONV_GAME_DIR", &text)], &[]),
            with_game(Config::default())
        );
        assert_eq!(
            parse_in(&[("MSHCONV_GAME_DIR", "/no/such")], &["--game-dir", &text]),
            with_game(Config::default())
        );
    }

    #[test]
    fn the_command_is_consistent_and_its_help_is_the_usage_text() {
        Args::command().debug_assert();
        assert_eq!(Args::command().render_help().to_string(), USAGE);
        // Every flag and variable clap knows is in the help text.
        for arg in Args::command().get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(USAGE.contains(&format!("--{long}")), "--{long}");
            }
            if let Some(var) = arg.get_env() {
                let var = var.to_string_lossy();
                assert!(USAGE.contains(&format!("[env {var}]")), "{var}");
            }
        }
    }

    #[test]
    fn sizes_and_durations() {
        assert_eq!(parse_size("1024"), Ok(1024));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("NaN").is_err());
    }
}
