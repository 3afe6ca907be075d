//! # mshconv-server: the HTTP front end of mshconv
//!
//! An axum service over the same application layer as the CLI
//! ([`mshconv_app`]: formats, options, the conversion entry point, the archive
//! policy, the error mapping), which sits on the libraries [`mshconv_convert`],
//! [`msh`] and [`nres`]. README.md (`HTTP service`) shows every endpoint with
//! curl; `openapi.json` (served at `GET /openapi.json`) describes them.
//!
//! Layout: `routes.rs` lists the [`routes()`], and [`app`] builds the router
//! from them and one middleware (`middleware.rs`: request id, tracing span,
//! metrics, problem documents). [`handlers`] answers the endpoints, given
//! their query and upload by the extractors of [`extract`] ([`body`] reads an
//! upload within its limits, [`budget`] and [`pace`] its memory and its least
//! rate); [`error`] makes problem documents. [`serve()`]
//! (`serve.rs`, the connection loop) runs the app on a listener until a
//! shutdown future ([`shutdown_signal`]) resolves, finishing the requests in
//! flight; `stall.rs` closes a connection whose answer the client takes
//! nothing of for `--min-rate`'s time. [`config`] reads the settings from flags and environment variables
//! (with clap).
//! `state.rs` holds [`AppState`], what every handler shares. Model work runs
//! as a *job* ([`AppState::run_job`]): a slot of a semaphore (`max_jobs`,
//! taken with `try_acquire`, so an overloaded service answers 503 at once
//! instead of queueing), on the blocking pool (or, for a body of at most
//! [`INLINE_JOB_BYTES`], on the request's own thread), within the request's
//! time limit.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let config = mshconv_server::Config::default();
//! let listener = tokio::net::TcpListener::bind(config.addr).await?;
//! let state = mshconv_server::AppState::new(config);
//! mshconv_server::serve(listener, state, mshconv_server::shutdown_signal()?).await
//! # }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod body;
pub mod budget;
pub mod codes;
pub mod config;
pub mod error;
pub mod extract;
pub mod game;
pub mod handlers;
pub mod healthcheck;
pub mod metrics;
pub mod pace;
pub mod page;
pub mod zip;

mod middleware;
mod routes;
mod serve;
mod stall;
mod state;
mod tables;

pub use config::Config;
pub use error::ApiError;
pub use middleware::{RequestContext, FREE_ANSWER, REQUEST_ID};
pub use routes::{app, routes, Route, OPENAPI};
pub use serve::{serve, shutdown_signal, DRAIN_BYTES, DRAIN_TIME, MAX_HEAD};
pub use state::{AppState, INLINE_JOB_BYTES};
