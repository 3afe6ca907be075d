//! The connection loop: [`serve`] runs the app on a listener with the
//! connection limits, the head time limit and the draining of unread bodies,
//! until a shutdown future ([`shutdown_signal`]) resolves.

use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::routes::app;
use crate::stall::WriteStall;
use crate::state::AppState;
use axum::body::HttpBody as _;
use axum::response::Response;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;

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
    let stall_limit = config.min_rate.per;
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
                    ServerCode::ServerTooManyConnections,
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
            let stream = WriteStall::new(stream, stall_limit);
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
