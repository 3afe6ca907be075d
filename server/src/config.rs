//! The service's settings: defaults, command-line flags and environment
//! variables (a flag wins over its variable, which wins over the default).

use std::net::SocketAddr;
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
            max_jobs: default_jobs(),
            timeout: DEFAULT_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            job_delay: Duration::ZERO,
        }
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

/// The `--help` text.
pub const USAGE: &str = "\
mshconv-server: HTTP service that converts, validates, inspects and poses
Parkan: Iron Strategy .msh models (see README.md, `HTTP service`).

Usage: mshconv-server [OPTIONS]

Options (each flag wins over its environment variable):
  --addr ADDR        listen address [env MSHCONV_ADDR] [default 127.0.0.1:8080]
  --max-body SIZE    largest request body, bytes or with K/M/G, KiB/MiB/GiB
                     [env MSHCONV_MAX_BODY] [default 64MiB]
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

/// Parses the arguments (without the program name); `env` looks environment
/// variables up (`std::env::var` in the binary, a map in tests).
pub fn parse_args<I, S>(
    args: I,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Invocation, UsageError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut flags: Vec<(&'static str, String)> = Vec::new();
    let mut healthcheck = false;
    let mut args = args.into_iter().map(Into::into);
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let key = match name.as_str() {
            "-h" | "--help" => return Ok(Invocation::Help),
            "-V" | "--version" => return Ok(Invocation::Version),
            "--healthcheck" if inline.is_none() => {
                healthcheck = true;
                continue;
            }
            "--addr" => "addr",
            "--max-body" => "max-body",
            "--max-jobs" => "max-jobs",
            "--timeout" => "timeout",
            "--max-connections" => "max-connections",
            "--header-timeout" => "header-timeout",
            _ => {
                return Err(UsageError(format!(
                    "unknown argument {arg:?} (--help lists the options)"
                )))
            }
        };
        let value = match inline {
            Some(v) => v,
            None => args
                .next()
                .ok_or_else(|| UsageError(format!("{name} needs a value")))?,
        };
        flags.push((key, value));
    }
    let get = |key: &str, var: &str| -> Option<(String, String)> {
        flags
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| (format!("--{key}"), v.clone()))
            .or_else(|| env(var).map(|v| (var.to_string(), v)))
    };
    let mut config = Config::default();
    if let Some((from, v)) = get("addr", "MSHCONV_ADDR") {
        config.addr = v.trim().parse().map_err(|_| {
            UsageError(format!(
                "{from}: {v:?} is not an address such as 127.0.0.1:8080 or [::1]:8080"
            ))
        })?;
    }
    if let Some((from, v)) = get("max-body", "MSHCONV_MAX_BODY") {
        config.max_body = parse_size(&v).map_err(|e| UsageError(format!("{from}: {e}")))?;
    }
    if let Some((from, v)) = get("max-jobs", "MSHCONV_MAX_JOBS") {
        config.max_jobs = match v.trim().parse::<usize>() {
            Ok(n) if (1..=4096).contains(&n) => n,
            _ => {
                return Err(UsageError(format!(
                    "{from}: {v:?} is not a number of jobs from 1 to 4096"
                )))
            }
        };
    }
    if let Some((from, v)) = get("timeout", "MSHCONV_TIMEOUT") {
        config.timeout = parse_duration(&v).map_err(|e| UsageError(format!("{from}: {e}")))?;
    }
    if let Some((from, v)) = get("max-connections", "MSHCONV_MAX_CONNECTIONS") {
        config.max_connections = match v.trim().parse::<usize>() {
            Ok(n) if (1..=1_000_000).contains(&n) => n,
            _ => {
                return Err(UsageError(format!(
                    "{from}: {v:?} is not a number of connections from 1 to 1000000"
                )))
            }
        };
    }
    if let Some((from, v)) = get("header-timeout", "MSHCONV_HEADER_TIMEOUT") {
        config.header_timeout =
            parse_duration(&v).map_err(|e| UsageError(format!("{from}: {e}")))?;
    }
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

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn serve(args: &[&str], env: impl Fn(&str) -> Option<String>) -> Config {
        match parse_args(args.iter().copied(), env) {
            Ok(Invocation::Serve(c)) => c,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let c = serve(&[], no_env);
        assert_eq!(c.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(c.max_body, 64 << 20);
        assert_eq!(c.timeout, Duration::from_secs(30));
        assert_eq!(c.max_jobs, default_jobs());
        assert!(c.max_jobs >= 1);
        assert_eq!(c.max_connections, 1024);
        assert_eq!(c.header_timeout, Duration::from_secs(10));
    }

    #[test]
    fn flag_wins_over_environment() {
        let env = |k: &str| match k {
            "MSHCONV_ADDR" => Some("0.0.0.0:9000".to_string()),
            "MSHCONV_MAX_BODY" => Some("1M".to_string()),
            "MSHCONV_MAX_JOBS" => Some("3".to_string()),
            "MSHCONV_TIMEOUT" => Some("5".to_string()),
            "MSHCONV_MAX_CONNECTIONS" => Some("50".to_string()),
            "MSHCONV_HEADER_TIMEOUT" => Some("2s".to_string()),
            _ => None,
        };
        let c = serve(&[], env);
        assert_eq!(c.addr, "0.0.0.0:9000".parse().unwrap());
        assert_eq!(
            (c.max_body, c.max_jobs, c.timeout),
            (1 << 20, 3, Duration::from_secs(5))
        );
        assert_eq!(
            (c.max_connections, c.header_timeout),
            (50, Duration::from_secs(2))
        );
        let c = serve(
            &[
                "--addr",
                "127.0.0.1:1",
                "--max-body=2K",
                "--max-jobs",
                "7",
                "--timeout",
                "250ms",
                "--max-connections=7",
                "--header-timeout",
                "100ms",
            ],
            env,
        );
        assert_eq!(
            (c.max_connections, c.header_timeout),
            (7, Duration::from_millis(100))
        );
        assert_eq!(c.addr, "127.0.0.1:1".parse().unwrap());
        assert_eq!((c.max_body, c.max_jobs), (2048, 7));
        assert_eq!(c.timeout, Duration::from_millis(250));
    }

    #[test]
    fn modes_and_mistakes() {
        assert_eq!(parse_args(["--help"], no_env), Ok(Invocation::Help));
        assert_eq!(parse_args(["-V"], no_env), Ok(Invocation::Version));
        assert!(matches!(
            parse_args(["--healthcheck", "--addr", "0.0.0.0:1"], no_env),
            Ok(Invocation::Healthcheck(c)) if c.addr.port() == 1
        ));
        for bad in [
            &["--addr"][..],
            &["--addr", "nowhere"],
            &["--max-jobs", "0"],
            &["--max-body", "12X"],
            &["--timeout", "-1"],
            &["--max-connections", "0"],
            &["--header-timeout", "never"],
            &["--frobnicate"],
        ] {
            let e = parse_args(bad.iter().copied(), no_env).unwrap_err();
            assert!(!e.0.is_empty(), "{bad:?}");
        }
        let e = parse_args(["--max-jobs", "x"], no_env).unwrap_err();
        assert!(e.0.starts_with("--max-jobs: "), "{e}");
        let env = |k: &str| (k == "MSHCONV_MAX_JOBS").then(|| "x".to_string());
        let e = parse_args(Vec::<String>::new(), env).unwrap_err();
        assert!(e.0.starts_with("MSHCONV_MAX_JOBS: "), "{e}");
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
