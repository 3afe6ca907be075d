//! The service's own endpoints: health, readiness, metrics, the OpenAPI
//! document, and the answers for unknown paths and methods.

use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::AppState;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// `GET /healthz`: the process is up.
pub async fn healthz() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(mshconv_app::JSON),
        )],
        "{\"status\":\"ok\"}\n",
    )
        .into_response()
}

/// `GET /readyz`: 200 while the service takes work, 503 once it is shutting down.
pub async fn readyz(State(state): State<AppState>) -> Result<Response, ApiError> {
    if state.is_shutting_down() {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerCode::ServerShuttingDown,
            "the service is shutting down: it finishes the requests in flight and takes no new work",
        );
        e.retry_after = Some(1);
        return Err(e);
    }
    super::respond::json(&serde_json::json!({
        "status": "ready",
        "jobs_in_flight": state.metrics().jobs_in_flight(),
        "max_jobs": state.config().max_jobs,
    }))
}

/// `GET /metrics`: Prometheus text.
pub async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        state.metrics().render(state.config().max_jobs),
    )
        .into_response()
}

/// `GET /openapi.json`: the checked-in document, byte for byte.
pub async fn openapi() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(mshconv_app::JSON),
        )],
        crate::OPENAPI,
    )
        .into_response()
}

/// Any path no route has.
pub async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ServerCode::RequestNotFound,
        "no such endpoint; GET /openapi.json lists them",
    )
}

/// A route with another method.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ServerCode::RequestMethodNotAllowed,
        "this endpoint does not take this method; GET /openapi.json lists them",
    )
}
