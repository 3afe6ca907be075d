//! The state every handler shares: [`AppState`] (the configuration, the job
//! slots, the metrics and the shutdown flag) and the way model work runs,
//! [`AppState::run_job`].

use crate::budget::BodyBudget;
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::middleware::RequestContext;
use crate::Config;
use mshconv_app::GameDir;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct AppState {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    config: Config,
    jobs: Arc<Semaphore>,
    metrics: Arc<Metrics>,
    shutting_down: AtomicBool,
    game: Option<Arc<GameDir>>,
    bodies: BodyBudget,
}

impl AppState {
    /// The state of a service with this configuration.
    pub fn new(config: Config) -> Self {
        let jobs = Arc::new(Semaphore::new(config.max_jobs.max(1)));
        // `parse_args` checked that it is a folder; its libraries are read
        // on first use and shared by every request (the process-wide cache).
        let game = config.game_dir.as_deref().and_then(|dir| {
            // Read once an interrupted write there is finished.
            let recovered = mshconv_app::txn::recover_before_reading(dir)
                .inspect_err(|e| tracing::warn!(error = %e, "--game-dir is left out"))
                .ok()?;
            for note in recovered {
                tracing::warn!(code = note.code, "{}", note.message);
            }
            GameDir::open(dir)
                .inspect_err(|e| tracing::warn!(error = %e, "--game-dir is left out"))
                .ok()
        });
        AppState {
            shared: Arc::new(Shared {
                jobs,
                metrics: Arc::default(),
                shutting_down: AtomicBool::new(false),
                game,
                bodies: BodyBudget::new(config.body_budget()),
                config,
            }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// The game folder (`--game-dir`), opened.
    pub fn game(&self) -> Option<Arc<GameDir>> {
        self.shared.game.clone()
    }

    /// The budget of request bodies and unsent answers held at once (`--max-buffered`).
    pub fn body_budget(&self) -> &BodyBudget {
        &self.shared.bodies
    }

    /// The metrics.
    pub fn metrics(&self) -> Arc<Metrics> {
        Arc::clone(&self.shared.metrics)
    }

    /// True once shutdown has begun (`/readyz` answers 503).
    pub fn is_shutting_down(&self) -> bool {
        self.shared.shutting_down.load(Ordering::Relaxed)
    }

    /// Marks the service as shutting down.
    pub fn begin_shutdown(&self) {
        self.shared.shutting_down.store(true, Ordering::Relaxed);
    }

    /// Runs model work as a job: takes a slot (503 `server.busy` when none is
    /// free), runs `work` on the blocking pool inside the request's span, and
    /// gives up at the request's deadline (503 `server.timeout`). Work that is
    /// past its deadline still finishes on its thread and holds its slot until
    /// then: the CPU is busy either way. Work on a body of at most
    /// [`INLINE_JOB_BYTES`] runs on the request's own thread instead (it is
    /// over long before any deadline).
    pub async fn run_job<T, F>(&self, ctx: &RequestContext, work: F) -> Result<T, ApiError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let metrics = self.metrics();
        let Ok(permit) = Arc::clone(&self.shared.jobs).try_acquire_owned() else {
            metrics.job_rejected();
            tracing::warn!(max_jobs = self.config().max_jobs, "every job slot is busy");
            return Err(ApiError::busy(self.config().max_jobs));
        };
        let in_flight = metrics.job_started();
        let delay = self.config().job_delay;
        if delay.is_zero() && ctx.bytes_in.load(Ordering::Relaxed) <= INLINE_JOB_BYTES {
            // Small work (a typical model: a fraction of a millisecond) runs
            // right here: handing it to the blocking pool and back cost about as
            // much as the conversion itself (bench/RESULTS.md).
            if Instant::now() >= ctx.deadline {
                return Err(ApiError::timeout(self.config().timeout));
            }
            let _slot = (permit, in_flight);
            return std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .map_err(|_| ApiError::internal("job failed: it panicked".to_string()));
        }
        let span = tracing::Span::current();
        let job = async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            tokio::task::spawn_blocking(move || {
                let _slot = (permit, in_flight);
                span.in_scope(work)
            })
            .await
        };
        match tokio::time::timeout_at(ctx.deadline, job).await {
            Err(_) => Err(ApiError::timeout(self.config().timeout)),
            Ok(Err(e)) => Err(ApiError::internal(format!("job failed: {e}"))),
            Ok(Ok(value)) => Ok(value),
        }
    }
}

/// Jobs for request bodies up to this size run on the thread serving the
/// request, not on the blocking pool: at the converter's few hundred MiB/s they
/// take under a millisecond, less than the hand-over to another thread and back.
pub const INLINE_JOB_BYTES: u64 = 128 * 1024;
