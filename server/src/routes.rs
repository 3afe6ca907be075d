//! The routes of the service ([`routes`]), the router built from them with
//! the middleware ([`app`]), and the OpenAPI document describing them
//! ([`OPENAPI`]).

use crate::middleware::observe;
use crate::state::AppState;
use crate::{handlers, page};
use axum::http::Method;
use axum::routing::{get, post, MethodRouter};
use axum::Router;

/// The OpenAPI 3 document, as checked in (`server/openapi.json`).
pub const OPENAPI: &str = include_str!("../openapi.json");

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
        route(Method::POST, "/v1/archive/put", post(handlers::archive_put)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{error, Config, REQUEST_ID};
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use axum::response::Response;
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
        let expected = mshconv_gltf::msh_to_gltf(&msh, &mshconv_gltf::ExportOptions::default())
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
