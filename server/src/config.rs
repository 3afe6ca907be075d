//! The service's settings: defaults, command-line flags and environment
//! variables (a flag wins over its variable, which wins over the default).
//!
//! Each setting is defined once, as a field of [`Args`] (clap's derive, with
//! its `env` feature): its flag, its variable, its default, its value parser
//! (the range check and the message) and its help text. clap reads the
//! command line and the variables, checks the values, and writes the help
//! text and the errors: a bad value is named by its flag, also when it came
//! from the variable (`invalid value 'x' for '--max-jobs <N>': ...`), and an
//! error ends with clap's hint (`For more information, try '--help'.`).
//! A variable that is not UTF-8 is a bad value (it was ignored before clap).

use clap::Parser;
use std::ffi::OsString;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
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
/// Default least rate of a request body: 16 KiB in every 10 s.
pub const DEFAULT_MIN_RATE: MinRate = MinRate {
    bytes: 16 * 1024,
    per: Duration::from_secs(10),
};

/// Everything the service can be told.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Where to listen.
    pub addr: SocketAddr,
    /// Largest request body accepted, in bytes; larger ones get 413.
    pub max_body: usize,
    /// Most bytes of request bodies and unsent answers held at once, across
    /// all requests; one that does not fit gets 503 `server.busy`
    /// (`crate::budget`).
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
    /// The least rate a request body arrives at: at least `bytes` in every
    /// `per` while it arrives (the first `per` from when its reading begins),
    /// else 408 `request.too_slow` (`crate::pace`). Its `per` is also how
    /// long a connection's answer may wait for the client to take a byte
    /// (`crate::stall`).
    pub min_rate: MinRate,
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
            min_rate: DEFAULT_MIN_RATE,
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

/// What the command line asks for (`--help` and `--version` are answered by
/// clap: [`parse_args`] returns them as its "error", whose `exit_code` is 0).
#[derive(Debug, Clone, PartialEq)]
pub enum Invocation {
    /// Run the service.
    Serve(Config),
    /// Ask a running service's `/healthz` (at the configured address) and exit
    /// 0 when it answers 200: the container image's `HEALTHCHECK`.
    Healthcheck(Config),
}

/// A byte size (`--max-body`, `--max-buffered`): [`parse_size`]'s syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub usize);

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Size, String> {
        parse_size(s).map(Size)
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            n if n % (1 << 30) == 0 => write!(f, "{}GiB", n >> 30),
            n if n % (1 << 20) == 0 => write!(f, "{}MiB", n >> 20),
            n if n % (1 << 10) == 0 => write!(f, "{}KiB", n >> 10),
            n => write!(f, "{n}"),
        }
    }
}

/// A time (`--timeout`, `--header-timeout`): [`parse_duration`]'s syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time(pub Duration);

impl FromStr for Time {
    type Err = String;
    fn from_str(s: &str) -> Result<Time, String> {
        parse_duration(s).map(Time)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.subsec_nanos() == 0 {
            write!(f, "{}s", self.0.as_secs())
        } else {
            write!(f, "{}ms", self.0.as_millis())
        }
    }
}

/// A least rate (`--min-rate`): at least `bytes` in every `per`, written
/// `SIZE/TIME` ([`parse_size`], [`parse_duration`]), such as `16KiB/10s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinRate {
    /// The bytes that must arrive ...
    pub bytes: usize,
    /// ... in each span of this long.
    pub per: Duration,
}

impl FromStr for MinRate {
    type Err = String;
    fn from_str(s: &str) -> Result<MinRate, String> {
        let (size, time) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?} is not a rate such as 16KiB/10s"))?;
        Ok(MinRate {
            bytes: parse_size(size)?,
            per: parse_duration(time)?,
        })
    }
}

impl fmt::Display for MinRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", Size(self.bytes), Time(self.per))
    }
}

/// A listen address.
fn address(text: &str) -> Result<SocketAddr, String> {
    text.trim()
        .parse()
        .map_err(|_| "not an address such as 127.0.0.1:8080 or [::1]:8080".to_string())
}

/// A whole number from `lo` to `hi`, or the message naming what it counts.
fn count(text: &str, lo: usize, hi: usize, what: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("not a number of {what} from {lo} to {hi}")),
    }
}

/// `--max-jobs`: 1 to 4096.
fn jobs(text: &str) -> Result<usize, String> {
    count(text, 1, 4096, "jobs")
}

/// `--max-connections`: 1 to 1000000.
fn connections(text: &str) -> Result<usize, String> {
    count(text, 1, 1_000_000, "connections")
}

/// `--game-dir`: a folder that exists.
fn folder(text: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(text);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err("not a folder".to_string())
    }
}

/// What `--help` says after the options.
const AFTER_HELP: &str = "Each flag wins over its environment variable.
Logging: RUST_LOG (default `info`), e.g. RUST_LOG=mshconv_server=debug.";

/// mshconv-server: HTTP service that converts, validates, inspects and poses
/// Parkan: Iron Strategy .msh models (see README.md, `HTTP service`).
///
/// Every setting: its flag, its environment variable, its default, its
/// check. Every value may start with `-` (`--timeout -1` is a bad time, not a
/// missing value), and a flag given twice keeps its last value.
#[derive(Debug, Parser)]
#[command(
    name = "mshconv-server",
    version,
    after_help = AFTER_HELP,
    args_override_self = true
)]
pub struct Args {
    /// Listen address
    #[arg(long, env = "MSHCONV_ADDR", value_name = "ADDR", allow_hyphen_values = true,
          default_value = DEFAULT_ADDR, value_parser = address)]
    addr: SocketAddr,
    /// Largest request body, bytes or with K/M/G, KiB/MiB/GiB; larger ones get 413
    #[arg(long, env = "MSHCONV_MAX_BODY", value_name = "SIZE", allow_hyphen_values = true,
          default_value_t = Size(DEFAULT_MAX_BODY))]
    max_body: Size,
    /// Request bodies and unsent answers held in memory at once, all requests
    /// together; more get 503 [default: max-body x (max-jobs + 2), at least max-body]
    #[arg(
        long,
        env = "MSHCONV_MAX_BUFFERED",
        value_name = "SIZE",
        allow_hyphen_values = true
    )]
    max_buffered: Option<Size>,
    /// Conversions admitted at once (one per CPU computes); more get 503
    /// [default: the number of CPUs]
    #[arg(long, env = "MSHCONV_MAX_JOBS", value_name = "N", allow_hyphen_values = true,
          value_parser = jobs)]
    max_jobs: Option<usize>,
    /// Time limit of a request: seconds, or with ms/s/m
    #[arg(long, env = "MSHCONV_TIMEOUT", value_name = "TIME", allow_hyphen_values = true,
          default_value_t = Time(DEFAULT_TIMEOUT))]
    timeout: Time,
    /// Open connections at once; more get 503 and are closed
    #[arg(long, env = "MSHCONV_MAX_CONNECTIONS", value_name = "N", allow_hyphen_values = true,
          default_value_t = DEFAULT_MAX_CONNECTIONS, value_parser = connections)]
    max_connections: usize,
    /// Time to send a request's head, and the longest idle keep-alive
    #[arg(long, env = "MSHCONV_HEADER_TIMEOUT", value_name = "TIME", allow_hyphen_values = true,
          default_value_t = Time(DEFAULT_HEADER_TIMEOUT))]
    header_timeout: Time,
    /// Least rate of a request body: SIZE/TIME, at least SIZE in every TIME
    /// while it arrives; a slower body gets 408. An answer the client takes
    /// none of for TIME is dropped and its connection closed
    #[arg(long, env = "MSHCONV_MIN_RATE", value_name = "RATE", allow_hyphen_values = true,
          default_value_t = DEFAULT_MIN_RATE)]
    min_rate: MinRate,
    /// Game folder (Material.lib, Textures.lib): exports of a model whose WEAR
    /// is found get the game's look [default: none]
    #[arg(long, env = "MSHCONV_GAME_DIR", value_name = "DIR", allow_hyphen_values = true,
          value_parser = folder)]
    game_dir: Option<PathBuf>,
    /// Ask GET /healthz of the service at ADDR (0.0.0.0 means 127.0.0.1) and
    /// exit 0 if it answers 200, else 1
    #[arg(long)]
    healthcheck: bool,
}

impl Args {
    /// The settings.
    fn config(self) -> Config {
        Config {
            addr: self.addr,
            max_body: self.max_body.0,
            max_buffered: self.max_buffered.map(|s| s.0),
            max_jobs: self.max_jobs.unwrap_or_else(default_jobs),
            timeout: self.timeout.0,
            max_connections: self.max_connections,
            header_timeout: self.header_timeout.0,
            min_rate: self.min_rate,
            game_dir: self.game_dir,
            job_delay: Duration::ZERO,
        }
    }
}

/// Parses the arguments (without the program name) and the `MSHCONV_*`
/// environment variables of the process; a flag wins over its variable, which
/// wins over the default. `--help`, `--version` and every mistake come back as
/// clap's error: `print` it and exit with its `exit_code` (0, or 2).
pub fn parse_args<I, S>(args: I) -> Result<Invocation, clap::Error>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let argv =
        std::iter::once(OsString::from("mshconv-server")).chain(args.into_iter().map(Into::into));
    let args = Args::try_parse_from(argv)?;
    let healthcheck = args.healthcheck;
    let config = args.config();
    Ok(if healthcheck {
        Invocation::Healthcheck(config)
    } else {
        Invocation::Serve(config)
    })
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
    use clap::CommandFactory;

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
                Err(e) => {
                    let text = e.to_string();
                    let line = text.lines().next().unwrap_or_default();
                    println!(
                        "{RESULT}error {}",
                        line.strip_prefix("error: ").unwrap_or(line)
                    );
                }
            }
        }
    }

    /// What `parse_args(args)` gives (the invocation written with `{:?}`, or
    /// the first line of the error) in a child process of this test binary
    /// whose `MSHCONV_*` variables are exactly `vars`: clap reads the
    /// process's environment, which a test must not change while other tests run.
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

    const ENV: [(&str, &str); 8] = [
        ("MSHCONV_ADDR", "0.0.0.0:9000"),
        ("MSHCONV_MAX_BODY", "1M"),
        ("MSHCONV_MAX_BUFFERED", "8M"),
        ("MSHCONV_MAX_JOBS", "3"),
        ("MSHCONV_TIMEOUT", "5"),
        ("MSHCONV_MAX_CONNECTIONS", "50"),
        ("MSHCONV_HEADER_TIMEOUT", "2s"),
        ("MSHCONV_MIN_RATE", "1K/3s"),
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
            min_rate: MinRate {
                bytes: 1024,
                per: Duration::from_secs(3),
            },
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
        assert_eq!(
            (c.min_rate.bytes, c.min_rate.per),
            (16 * 1024, Duration::from_secs(10))
        );
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
            "--min-rate=100/250ms",
        ];
        let from_flags = Config {
            addr: "127.0.0.1:1".parse().unwrap(),
            max_body: 2048,
            max_buffered: Some(4096),
            max_jobs: 7,
            timeout: Duration::from_millis(250),
            max_connections: 7,
            header_timeout: Duration::from_millis(100),
            min_rate: MinRate {
                bytes: 100,
                per: Duration::from_millis(250),
            },
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
        let kind = |args: &[&str]| parse_args(args).unwrap_err().kind();
        use clap::error::ErrorKind;
        assert_eq!(kind(&["--help"]), ErrorKind::DisplayHelp);
        assert_eq!(kind(&["-h"]), ErrorKind::DisplayHelp);
        assert_eq!(kind(&["-V"]), ErrorKind::DisplayVersion);
        assert_eq!(kind(&["--version"]), ErrorKind::DisplayVersion);
        assert_eq!(parse_args(["--help"]).unwrap_err().exit_code(), 0);
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
            &["--min-rate", "16KiB"],
            &["--min-rate", "0/10s"],
            &["--min-rate", "16KiB/0"],
            &["--frobnicate"],
            &["surplus"],
            &["--healthcheck=yes"],
        ] {
            let e = parse_in(&[], bad).unwrap_err();
            assert!(!e.is_empty(), "{bad:?}");
            assert_eq!(parse_args(bad.iter().copied()).unwrap_err().exit_code(), 2);
        }
        let error = |vars: &[(&str, &str)], args: &[&str]| parse_in(vars, args).unwrap_err();
        assert_eq!(
            error(&[], &["--max-jobs", "x"]),
            "invalid value 'x' for '--max-jobs <N>': not a number of jobs from 1 to 4096"
        );
        assert_eq!(
            error(&[], &["--addr"]),
            "a value is required for '--addr <ADDR>' but none was supplied"
        );
        assert_eq!(
            error(&[], &["--timeout", "-1"]),
            r#"invalid value '-1' for '--timeout <TIME>': "-1" is not a time such as 30, 30s, 500ms or 2m"#
        );
        assert_eq!(
            error(&[], &["--addr", "--help"]),
            "invalid value '--help' for '--addr <ADDR>': not an address such as 127.0.0.1:8080 or [::1]:8080"
        );
        assert_eq!(
            error(&[], &["--frobnicate"]),
            "unexpected argument '--frobnicate' found"
        );
        // A bad variable is named by its flag (clap's way).
        assert_eq!(
            error(&[("MSHCONV_MAX_JOBS", "x")], &[]),
            "invalid value 'x' for '--max-jobs <N>': not a number of jobs from 1 to 4096"
        );
        // A flag wins over its variable, also over a bad one.
        assert_eq!(
            parse_in(&[("MSHCONV_MAX_JOBS", "x")], &["--max-jobs", "2"]),
            serve(Config {
                max_jobs: 2,
                ..Config::default()
            })
        );
        assert_eq!(
            error(&[], &["--game-dir", "/no/such/folder"]),
            "invalid value '/no/such/folder' for '--game-dir <DIR>': not a folder"
        );
        assert!(error(&[("MSHCONV_GAME_DIR", "/no/such/folder")], &[])
            .ends_with("for '--game-dir <DIR>': not a folder"));
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
    fn the_command_is_consistent_and_its_help_names_every_flag_and_variable() {
        Args::command().debug_assert();
        let help = Args::command().render_help().to_string();
        for arg in Args::command().get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(help.contains(&format!("--{long}")), "--{long}");
            }
            if let Some(var) = arg.get_env() {
                let var = var.to_string_lossy();
                assert!(help.contains(&format!("[env: {var}=")), "{var}");
            }
        }
        // The defaults the help shows are the constants.
        assert!(help.contains("[default: 64MiB]"), "{help}");
        assert!(help.contains("[default: 30s]"));
        assert!(help.contains("[default: 10s]"));
        assert!(help.contains("[default: 16KiB/10s]"), "{help}");
        assert!(help.contains("[default: 127.0.0.1:8080]"));
        assert_eq!(
            Size(DEFAULT_MAX_BODY).to_string().parse(),
            Ok(Size(DEFAULT_MAX_BODY))
        );
        assert_eq!(Time(Duration::from_millis(250)).to_string(), "250ms");
    }

    #[test]
    fn sizes_and_durations() {
        assert_eq!(parse_size("1024"), Ok(1024));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
        assert_eq!(
            "4K/2s".parse(),
            Ok(MinRate {
                bytes: 4096,
                per: Duration::from_secs(2)
            })
        );
        assert!("4K".parse::<MinRate>().is_err());
        assert!("4K/2s/1".parse::<MinRate>().is_err());
        assert_eq!(DEFAULT_MIN_RATE.to_string().parse(), Ok(DEFAULT_MIN_RATE));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("NaN").is_err());
    }
}
