//! `mshconv-server`: the HTTP service (see README.md, `HTTP service`).
//!
//! Exit codes: 0 after a graceful shutdown (SIGINT/SIGTERM) or a healthy
//! `--healthcheck`; 1 when the service cannot start or the health check
//! fails; 2 for a usage error.

#![forbid(unsafe_code)]

use mshconv_server::config::{parse_args, Invocation};
use mshconv_server::{serve, shutdown_signal, AppState};
use std::io::IsTerminal as _;
use std::process::ExitCode;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let invocation = match parse_args(std::env::args_os().skip(1)) {
        Ok(i) => i,
        // The help, the version, or a usage error (exit 2), in clap's words.
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let config = match invocation {
        Invocation::Healthcheck(config) => {
            return match mshconv_server::healthcheck::check(config.addr) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("mshconv-server: health check failed: {e}");
                    ExitCode::from(1)
                }
            };
        }
        Invocation::Serve(config) => config,
    };
    tracing_subscriber::fmt()
        .with_ansi(std::io::stdout().is_terminal())
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    // Jobs are CPU-bound: at most one per CPU runs on the blocking pool, admitted
    // jobs beyond that (`--max-jobs` above the CPU count) wait for a thread
    // instead of adding threads, memory arenas and switches (bench/RESULTS.md).
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(mshconv_server::config::default_jobs())
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mshconv-server: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(config.addr).await {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("cannot listen on {}: {e}", config.addr);
                return ExitCode::from(1);
            }
        };
        let shutdown = match shutdown_signal() {
            Ok(s) => s,
            Err(e) => {
                tracing::error!("cannot listen for SIGINT/SIGTERM: {e}");
                return ExitCode::from(1);
            }
        };
        let local = listener.local_addr().map_or(config.addr, |a| a);
        tracing::info!(
            addr = %local,
            max_body = config.max_body,
            max_jobs = config.max_jobs,
            timeout_s = config.timeout.as_secs_f64(),
            "mshconv-server listening on http://{local}"
        );
        match serve(listener, AppState::new(config), shutdown).await {
            Ok(()) => {
                tracing::info!("stopped");
                ExitCode::SUCCESS
            }
            Err(e) => {
                tracing::error!("server error: {e}");
                ExitCode::from(1)
            }
        }
    })
}
