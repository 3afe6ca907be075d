//! The middleware around every request ([`observe`]): the request id
//! ([`REQUEST_ID`]), the tracing span, the request's deadline (handed to the
//! handler as a [`RequestContext`]), problem documents naming the request,
//! the answer's bytes held in the body budget until sent ([`hold_answer`]),
//! the log line and the metrics.

use crate::budget::Charge;
use crate::config::MinRate;
use crate::error::ApiError;
use crate::metrics::RequestSample;
use crate::state::AppState;
use axum::body::{Body, HttpBody as _};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;
use tracing::Instrument as _;

/// The request id header: taken from the request when it is a sane id,
/// generated otherwise, and always echoed in the response.
pub const REQUEST_ID: &str = "x-request-id";

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
    /// The least rate the body must arrive at (`--min-rate`).
    pub min_rate: MinRate,
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
pub(crate) async fn observe(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
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
        min_rate: state.config().min_rate,
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
    let len = response.body().size_hint().lower();
    if method == axum::http::Method::POST && response.status().is_success() && len > FREE_ANSWER {
        response = hold_answer(&state, response, &id).await;
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

/// Answers up to this size go out without holding the body budget: at
/// most this much per connection, counted with the connection's own memory.
pub const FREE_ANSWER: u64 = 64 * 1024;

/// The bytes of an answer, with what it holds of the body budget: both go
/// when the last copy of the bytes does, once hyper has written them.
struct HeldAnswer {
    bytes: Bytes,
    _charge: Charge,
}

impl AsRef<[u8]> for HeldAnswer {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// `response` with its body's bytes held in the body budget until they are
/// sent (a client that never reads its answer holds that much of the
/// budget, not memory outside it); 503 `server.busy` when they do not fit.
async fn hold_answer(state: &AppState, response: Response, id: &str) -> Response {
    let len = response.body().size_hint().lower();
    let charge = match state
        .body_budget()
        .hold(usize::try_from(len).unwrap_or(usize::MAX))
    {
        Ok(charge) => charge,
        Err(error) => {
            tracing::warn!(code = %error.code, bytes = len, "{}", error.detail);
            return error.response(Some(id));
        }
    };
    let (parts, body) = response.into_parts();
    // The answers are whole buffers: collecting one takes its bytes.
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => {
            let held = Bytes::from_owner(HeldAnswer {
                bytes,
                _charge: charge,
            });
            Response::from_parts(parts, Body::from(held))
        }
        Err(e) => ApiError::internal(format!("answer unreadable: {e}")).response(Some(id)),
    }
}
