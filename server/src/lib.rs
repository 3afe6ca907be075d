//! # mshconv-server: the HTTP front end of mshconv
//!
//! An axum service over the same libraries as the CLI: [`convert`] for
//! MSH <-> glTF/GLB/OBJ, [`msh`] for validation, inspection and poses,
//! [`nres`] for archives. README.md (`HTTP service`) shows every endpoint with
//! curl; `openapi.json` (served at `GET /openapi.json`) describes them.
//!
//! Layout: [`app`] builds the router from [`routes`] and one middleware
//! (request id, tracing span, metrics, problem documents); [`serve`] runs it
//! on a listener until a shutdown future resolves, finishing the requests in
//! flight. Model work runs as a *job*: a slot of a semaphore (`max_jobs`,
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
pub mod config;
pub mod error;
pub mod format;
pub mod handlers;
pub mod healthcheck;
pub mod metrics;
pub mod page;
pub mod zip;

pub use config::Config;
pub use error::ApiError;

use axum::body::HttpBody as _;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderName, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use metrics::{Metrics, RequestSample};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tracing::Instrument as _;

/// The OpenAPI 3 document, as checked in (`server/openapi.json`).
pub const OPENAPI: &str = include_str!("../openapi.json");

/// The request id header: taken from the request when it is a sane id,
/// generated otherwise, and always echoed in the response.
pub const REQUEST_ID: &str = "x-request-id";

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
}

impl AppState {
    /// The state of a service with this configuration.
    pub fn new(config: Config) -> Self {
        let jobs = Arc::new(Semaphore::new(config.max_jobs.max(1)));
        AppState {
            shared: Arc::new(Shared {
                config,
                jobs,
                metrics: Arc::default(),
                shutting_down: AtomicBool::new(false),
            }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.shared.config
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

/// What the middleware tells a handler about its request.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The request id (also in the response's `x-request-id`).
    pub id: Arc<str>,
    /// When the request's time limit runs out.
    pub deadline: Instant,
    /// The time limit (for messages).
    pub timeout: Duration,
    /// Request body bytes read so far.
    pub bytes_in: Arc<AtomicU64>,
}

/// One route: method, path, handler.
pub struct Route {
    /// The method.
    pub method: Method,
    /// The path pattern.
    pub path: &'static str,
    handler: MethodRouter<AppState>,
}

/// Every route of the service. [`app`] builds the router from exactly these,
/// and a test checks that `openapi.json` has exactly these paths and methods
/// (but the files the web page loads, [`page::is_asset`]).
pub fn routes() -> Vec<Route> {
    let route = |method: Method, path, handler| Route {
        method,
        path,
        handler,
    };
    vec![
        route(Method::POST, "/v1/convert", post(handlers::convert)),
        route(Method::POST, "/v1/validate", post(handlers::validate)),
        route(Method::POST, "/v1/inspect", post(handlers::inspect)),
        route(Method::POST, "/v1/pose", post(handlers::pose)),
        route(
            Method::POST,
            "/v1/archive/list",
            post(handlers::archive_list),
        ),
        route(
            Method::POST,
            "/v1/archive/convert",
            post(handlers::archive_convert),
        ),
        route(Method::GET, "/healthz", get(handlers::healthz)),
        route(Method::GET, "/readyz", get(handlers::readyz)),
        route(Method::GET, "/metrics", get(handlers::metrics)),
        route(Method::GET, "/openapi.json", get(handlers::openapi)),
    ]
    .into_iter()
    // The web page and the files it loads (page.rs).
    .chain(
        page::FILES
            .iter()
            .map(|f| route(Method::GET, f.path, page::handler(f))),
    )
    .collect()
}

/// The service's router, with its middleware, for a state.
pub fn app(state: AppState) -> Router {
    routes()
        .into_iter()
        .fold(Router::new(), |router, r| router.route(r.path, r.handler))
        .fallback(handlers::not_found)
        .method_not_allowed_fallback(handlers::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state)
}

/// A request id from the client is kept when it is 1 to 128 characters of
/// ASCII letters, digits and `-_.:`; otherwise a UUID is made.
fn request_id(req: &Request) -> Arc<str> {
    req.headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|id| {
            (1..=128).contains(&id.len())
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
        })
        .map(Arc::from)
        .unwrap_or_else(|| Arc::from(uuid::Uuid::new_v4().to_string()))
}

/// The middleware around every request: request id, tracing span, the
/// request's deadline, problem documents naming the request, the log line and
/// the metrics.
async fn observe(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = request_id(&req);
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched".to_string(), |p| p.as_str().to_string());
    let method = req.method().clone();
    let ctx = RequestContext {
        id: Arc::clone(&id),
        deadline: started + state.config().timeout,
        timeout: state.config().timeout,
        bytes_in: Arc::default(),
    };
    req.extensions_mut().insert(ctx.clone());
    let span = tracing::info_span!("request", id = %id, method = %method, route = %route);
    let mut response = next.run(req).instrument(span.clone()).await;
    let _entered = span.enter();
    if let Some(error) = response.extensions_mut().remove::<ApiError>() {
        if error.status.is_server_error() {
            tracing::error!(
                code = %error.code,
                cause = error.internal.as_deref().unwrap_or(""),
                "{}",
                error.detail
            );
        } else {
            tracing::info!(code = %error.code, "{}", error.detail);
        }
        let mut rendered = error.response(Some(&id));
        *response.body_mut() = std::mem::take(rendered.body_mut());
        response
            .headers_mut()
            .remove(axum::http::header::CONTENT_LENGTH);
    }
    if let Ok(value) = HeaderValue::from_str(&id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID), value);
    }
    let status = response.status().as_u16();
    let bytes_out = response.body().size_hint().exact().unwrap_or(0);
    let bytes_in = ctx.bytes_in.load(Ordering::Relaxed);
    let elapsed = started.elapsed();
    state.metrics().request(&RequestSample {
        route: &route,
        method: method.as_str(),
        status,
        elapsed,
        bytes_in,
        bytes_out,
    });
    tracing::info!(
        status,
        ms = %format_args!("{:.1}", elapsed.as_secs_f64() * 1000.0),
        bytes_in,
        bytes_out,
        "answered"
    );
    response
}

/// Most bytes of a request's head (request line and headers) a connection
/// may send; a larger head is answered 431. It also caps each connection's
/// read buffer (one read may take it to about twice this).
pub const MAX_HEAD: usize = 64 * 1024;

/// A request answered before its body was read (an error found in the query,
/// an unknown route, 413, 408) has at most this much of the rest of its body
/// read and dropped before the answer goes out, so that the client, still
/// sending, reads the answer instead of a reset connection ...
pub const DRAIN_BYTES: usize = 1 << 20;
/// ... for at most this long. A body not drained by then gets
/// `Connection: close` on its answer, so no client reuses the connection.
pub const DRAIN_TIME: Duration = Duration::from_secs(1);

/// Serves `state`'s app on `listener` until `shutdown` resolves, then stops
/// accepting connections and returns once every request in flight has been
/// answered.
///
/// At most `max_connections` connections are served at once; one more than
/// that is answered 503 `server.too_many_connections` (its first request,
/// then it is closed), and past twice that many a new connection is closed at
/// once. Every connection has `header_timeout` to send each request's head,
/// which is also how long an idle keep-alive connection stays open; a head
/// over [`MAX_HEAD`] bytes gets 431. (axum's own `serve` has neither limit:
/// hyper's header timeout needs a timer axum does not give it.) A request
/// answered before its body was read has the body drained ([`DRAIN_BYTES`],
/// [`DRAIN_TIME`]) or its connection closed.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::Listener;
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;

    let mut listener = listener;
    let app = TowerToHyperService::new(app(state.clone()));
    let config = state.config().clone();
    let max = config.max_connections.max(1);
    let connections = Arc::new(Semaphore::new(max));
    let overflow = Arc::new(Semaphore::new(max));
    // `stop` tells the connections to finish; every connection task holds a
    // clone of `open`, so `open_tx.closed()` resolves once they are all gone.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let (open_tx, open) = tokio::sync::watch::channel(());
    tokio::pin!(shutdown);
    loop {
        let (stream, _peer) = tokio::select! {
            // axum's accept: retries connection errors, waits out EMFILE.
            accepted = Listener::accept(&mut listener) => accepted,
            () = &mut shutdown => break,
        };
        // A slot to serve it, else one to answer it 503, else it is closed at once.
        let (admitted, refused) = match Arc::clone(&connections).try_acquire_owned() {
            Ok(permit) => (Some(permit), None),
            Err(_) => match Arc::clone(&overflow).try_acquire_owned() {
                Ok(permit) => (None, Some(permit)),
                Err(_) => continue,
            },
        };
        let full = admitted.is_some();
        let app = app.clone();
        let service = hyper::service::service_fn(move |request| {
            use futures_util::future::Either;
            if full {
                Either::Left(answer(app.clone(), request))
            } else {
                let mut e = ApiError::new(
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    "server.too_many_connections",
                    format!(
                        "the service has {max} connections open, its limit (--max-connections); retry shortly"
                    ),
                );
                e.retry_after = Some(1);
                Either::Right(std::future::ready(Ok(e.response(None))))
            }
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(config.header_timeout)
            .max_header_size(MAX_HEAD)
            .max_buf_size(MAX_HEAD)
            // A client that ends its sending side after the request still gets the answer.
            .half_close(true)
            .keep_alive(full);
        let mut stop = stop_rx.clone();
        let open = open.clone();
        tokio::spawn(async move {
            let _slots = (admitted, refused, open);
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            let mut stopping = false;
            loop {
                tokio::select! {
                    result = conn.as_mut() => {
                        if let Err(e) = result {
                            tracing::debug!("connection ended: {e}");
                        }
                        break;
                    }
                    changed = stop.changed(), if !stopping => {
                        stopping = true;
                        if changed.is_ok() {
                            conn.as_mut().graceful_shutdown();
                        }
                    }
                }
            }
        });
    }
    state.begin_shutdown();
    tracing::info!("shutting down: finishing the requests in flight");
    drop(listener);
    let _ = stop_tx.send(true);
    drop(open);
    open_tx.closed().await;
    Ok(())
}

/// Answers one request with the app; a body the app left unread comes back
/// (see [`Tracked`]) and is drained, or the connection is marked to close.
async fn answer<S>(
    app: S,
    request: axum::http::Request<hyper::body::Incoming>,
) -> Result<Response, std::convert::Infallible>
where
    S: hyper::service::Service<
        axum::http::Request<axum::body::Body>,
        Response = Response,
        Error = std::convert::Infallible,
    >,
{
    use axum::http::header;
    let waits_for_continue = request
        .headers()
        .get(header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let (back_tx, back_rx) = tokio::sync::oneshot::channel();
    let request = request.map(|body| {
        axum::body::Body::new(Tracked {
            ended: body.is_end_stream(),
            inner: Some(body),
            back: Some(back_tx),
        })
    });
    let mut response = app.call(request).await?;
    // The request (and its body) is gone by now: an unread rest came back.
    if let Ok(rest) = back_rx.await {
        // A client waiting for `100 Continue` has sent nothing: reading would ask it to.
        let drained = !waits_for_continue && drain(rest).await;
        if !drained {
            response.headers_mut().insert(
                header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
        }
    }
    Ok(response)
}

/// Reads and drops at most [`DRAIN_BYTES`] of a body for at most
/// [`DRAIN_TIME`]; true when it ended.
async fn drain(mut body: hyper::body::Incoming) -> bool {
    use http_body_util::BodyExt as _;
    if body
        .size_hint()
        .exact()
        .is_some_and(|n| n > DRAIN_BYTES as u64)
    {
        return false;
    }
    let until = Instant::now() + DRAIN_TIME;
    let mut read = 0usize;
    loop {
        match tokio::time::timeout_at(until, body.frame()).await {
            Ok(None) => return true,
            Ok(Some(Ok(frame))) => {
                read += frame.data_ref().map_or(0, |d| d.len());
                if read > DRAIN_BYTES {
                    return false;
                }
            }
            Ok(Some(Err(_))) | Err(_) => return false,
        }
    }
}

/// A request body that hands itself back (through `back`) when it is dropped
/// before its end, so that [`answer`] can drain it.
struct Tracked {
    inner: Option<hyper::body::Incoming>,
    ended: bool,
    back: Option<tokio::sync::oneshot::Sender<hyper::body::Incoming>>,
}

impl axum::body::HttpBody for Tracked {
    type Data = bytes::Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<bytes::Bytes>, hyper::Error>>> {
        let Some(inner) = self.inner.as_mut() else {
            return std::task::Poll::Ready(None);
        };
        let polled = std::pin::Pin::new(inner).poll_frame(cx);
        if let std::task::Poll::Ready(None) = polled {
            self.ended = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.inner.as_ref().is_none_or(|b| b.is_end_stream())
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner
            .as_ref()
            .map_or_else(|| hyper::body::SizeHint::with_exact(0), |b| b.size_hint())
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let (false, Some(inner), Some(back)) = (self.ended, self.inner.take(), self.back.take())
        {
            let _ = back.send(inner);
        }
    }
}

/// A future that resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM. The
/// handlers are installed when this is called (inside a Tokio runtime), not
/// when the future is first polled, so a signal that arrives as soon as the
/// service says it listens is not lost.
pub fn shutdown_signal() -> std::io::Result<impl Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => tracing::info!("SIGINT received"),
                _ = terminate.recv() => tracing::info!("SIGTERM received"),
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            match tokio::signal::ctrl_c().await {
                Ok(()) => tracing::info!("Ctrl-C received"),
                Err(e) => {
                    tracing::error!("cannot listen for Ctrl-C: {e}");
                    std::future::pending::<()>().await;
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    fn state() -> AppState {
        AppState::new(Config {
            max_jobs: 2,
            ..Config::default()
        })
    }

    async fn body(response: Response) -> Vec<u8> {
        response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec()
    }

    #[tokio::test]
    async fn health_answers_with_a_request_id() {
        let response = app(state())
            .oneshot(Request::get("/healthz").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.headers().contains_key(REQUEST_ID));
        assert_eq!(body(response).await, b"{\"status\":\"ok\"}\n");
    }

    #[tokio::test]
    async fn errors_are_problem_documents_naming_the_request() {
        let response = app(state())
            .oneshot(
                Request::post("/v1/convert?to=glb")
                    .header(REQUEST_ID, "abc-1")
                    .body(Body::from("\u{0}\u{1}binary"))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(response.headers()["content-type"], error::PROBLEM_JSON);
        assert_eq!(response.headers()[REQUEST_ID], "abc-1");
        let v: serde_json::Value = serde_json::from_slice(&body(response).await).unwrap();
        assert_eq!(v["instance"], "abc-1");
        assert_eq!(v["code"], "input.unknown_format");
    }

    #[tokio::test]
    async fn a_conversion_through_the_router() {
        let msh = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/small/models/m145_barrel.msh"
        ))
        .unwrap();
        let expected =
            mshconv_convert::msh_to_gltf(&msh, &mshconv_convert::ExportOptions::default())
                .unwrap()
                .0;
        let response = app(state())
            .oneshot(
                Request::post("/v1/convert?to=glb")
                    .body(Body::from(msh))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "model/gltf-binary");
        assert_eq!(body(response).await, expected);
    }

    #[tokio::test]
    async fn readiness_ends_with_shutdown() {
        let state = state();
        let ready = app(state.clone())
            .oneshot(Request::get("/readyz").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(ready.status(), StatusCode::OK);
        state.begin_shutdown();
        let r = app(state)
            .oneshot(Request::get("/readyz").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()["retry-after"], "1");
    }
}
