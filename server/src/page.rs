//! The web page: `GET /` and the few files it loads, for modders who would
//! rather drop a model into a browser than use curl.
//!
//! Everything is compiled into the binary (`include_bytes!` of `server/web/`):
//! the hand-written `index.html`, `app.js` (the entry module) with the
//! modules it imports (`app/*.js`, one per topic) and `style.css`, and the
//! vendored three.js bundle (`vendor/three.bundle.js`, built and checked by
//! `server/web/vendor.sh`) with its licence. Nothing is fetched from another
//! host, so the page works offline. The page talks to the service's own
//! `/v1/*` endpoints; `server/web/README.md` describes it.
//!
//! Every file is served with its content type, a `Content-Security-Policy`
//! that allows only the service's own origin (plus `blob:` and `data:`
//! images and fetches, which three.js's glTF loader uses for embedded
//! textures), `X-Content-Type-Options: nosniff`, and `Cache-Control: no-cache`
//! with a strong `ETag` (its length and CRC-32): browsers keep the files and
//! revalidate them, and an unchanged file costs a `304 Not Modified`.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use std::sync::LazyLock;

/// The path of the page itself.
pub const PAGE_PATH: &str = "/";

/// The `Content-Security-Policy` of every page file.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
img-src 'self' blob: data:; connect-src 'self' blob: data:; object-src 'none'; \
base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The `Cache-Control` of every page file: keep it, but revalidate (ETag).
pub const CACHE_CONTROL: &str = "no-cache";

/// The `Content-Type` of the page's scripts.
const JAVASCRIPT: &str = "text/javascript; charset=utf-8";

/// One file of the page, as the service serves it.
#[derive(Debug)]
pub struct PageFile {
    /// The URL path.
    pub path: &'static str,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The bytes, compiled in.
    pub bytes: &'static [u8],
}

/// The [`PageFile`] of `server/web/<file>`, served at `/<file>`.
macro_rules! page_file {
    ($file:literal, $content_type:expr) => {
        PageFile {
            path: concat!("/", $file),
            content_type: $content_type,
            bytes: include_bytes!(concat!("../web/", $file)),
        }
    };
}

/// The page ([`PAGE_PATH`]) first, then the files it loads: the entry
/// module `app.js`, the modules it imports, the style sheet, three.js.
pub static FILES: [PageFile; 16] = [
    PageFile {
        path: PAGE_PATH,
        content_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../web/index.html"),
    },
    page_file!("app.js", JAVASCRIPT),
    page_file!("app/state.js", JAVASCRIPT),
    page_file!("app/transport.js", JAVASCRIPT),
    page_file!("app/report.js", JAVASCRIPT),
    page_file!("app/open.js", JAVASCRIPT),
    page_file!("app/archive.js", JAVASCRIPT),
    page_file!("app/import.js", JAVASCRIPT),
    page_file!("app/options.js", JAVASCRIPT),
    page_file!("app/look.js", JAVASCRIPT),
    page_file!("app/put.js", JAVASCRIPT),
    page_file!("app/preview.js", JAVASCRIPT),
    page_file!("app/animation.js", JAVASCRIPT),
    page_file!("style.css", "text/css; charset=utf-8"),
    page_file!("vendor/three.bundle.js", JAVASCRIPT),
    page_file!("vendor/three.LICENSE", "text/plain; charset=utf-8"),
];

/// True for the paths of the files the page loads (every one of [`FILES`]
/// but the page itself). They are routes like any other, but not API
/// endpoints: `openapi.json` documents only [`PAGE_PATH`].
pub fn is_asset(path: &str) -> bool {
    path != PAGE_PATH && FILES.iter().any(|f| f.path == path)
}

/// Each file's `ETag`, in the order of [`FILES`]: `"<length>-<crc32>"` in hex.
static ETAGS: LazyLock<Vec<HeaderValue>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|f| {
            let tag = format!("\"{:x}-{:08x}\"", f.bytes.len(), crc32fast::hash(f.bytes));
            HeaderValue::from_str(&tag).unwrap_or_else(|_| HeaderValue::from_static("\"0\""))
        })
        .collect()
});

/// The `GET` handler of `file` (HEAD is answered too, without the body).
pub fn handler(file: &'static PageFile) -> MethodRouter<crate::AppState> {
    get(move |headers: HeaderMap| async move { respond(file, &headers) })
}

/// `file`'s response to a request with these headers: 200 with the bytes, or
/// 304 when `If-None-Match` names its current `ETag`.
fn respond(file: &'static PageFile, request: &HeaderMap) -> Response {
    let etag = FILES
        .iter()
        .position(|f| std::ptr::eq(f, file))
        .and_then(|i| ETAGS.get(i))
        .cloned()
        .unwrap_or_else(|| HeaderValue::from_static("\"0\""));
    let fresh = request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t.as_bytes() == etag.as_bytes());
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        file.bytes.into_response()
    };
    let headers = response.headers_mut();
    if !fresh {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(file.content_type),
        );
    }
    headers.insert(header::ETAG, etag);
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_distinct_and_the_page_comes_first() {
        assert_eq!(FILES[0].path, PAGE_PATH);
        assert!(!is_asset(PAGE_PATH));
        assert!(is_asset("/app.js"));
        assert!(is_asset("/app/preview.js"));
        assert!(!is_asset("/v1/convert"));
        for (i, f) in FILES.iter().enumerate() {
            assert!(!f.bytes.is_empty(), "{}", f.path);
            assert!(f.path.starts_with('/'));
            assert!(FILES[..i].iter().all(|g| g.path != f.path), "{}", f.path);
        }
        // The page loads its files by these paths.
        let html = std::str::from_utf8(FILES[0].bytes).unwrap();
        assert!(html.contains("src=\"/app.js\""));
        assert!(html.contains("href=\"/style.css\""));
        // The page's own modules import one another and three.js by the
        // paths they are served at, and each is imported by one of them.
        let own = || {
            FILES
                .iter()
                .filter(|f| f.content_type == JAVASCRIPT && !f.path.starts_with("/vendor/"))
        };
        let mut imported = std::collections::BTreeSet::new();
        for f in own() {
            let text = std::str::from_utf8(f.bytes).unwrap();
            for (at, _) in text.match_indices(" from '/") {
                let path = &text[at + " from '".len()..];
                let path = &path[..path.find('\'').unwrap()];
                assert!(is_asset(path), "{} imports {path}", f.path);
                imported.insert(path);
            }
        }
        assert!(imported.contains("/vendor/three.bundle.js"));
        for f in own().filter(|f| f.path != "/app.js") {
            assert!(imported.contains(f.path), "nothing imports {}", f.path);
        }
    }

    #[tokio::test]
    async fn the_router_serves_every_file_with_its_headers() {
        use tower::ServiceExt as _;
        let state = crate::AppState::new(crate::Config::default());
        for file in &FILES {
            let response = crate::app(state.clone())
                .oneshot(
                    axum::http::Request::get(file.path)
                        .body(axum::body::Body::empty())
                        .unwrap(),
                )
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{}", file.path);
            let h = response.headers();
            assert_eq!(h[header::CONTENT_TYPE], file.content_type, "{}", file.path);
            assert_eq!(h[header::CONTENT_SECURITY_POLICY], CSP);
            assert_eq!(h[header::CACHE_CONTROL], CACHE_CONTROL);
            assert_eq!(h[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
            assert!(h.contains_key(crate::REQUEST_ID));
            let body = http_body_util::BodyExt::collect(response.into_body())
                .await
                .unwrap()
                .to_bytes();
            assert_eq!(&body[..], file.bytes, "{}", file.path);
        }
    }

    #[test]
    fn a_matching_etag_gets_304() {
        let file = FILES.iter().find(|f| f.path == "/style.css").unwrap();
        let first = respond(file, &HeaderMap::new());
        assert_eq!(first.status(), StatusCode::OK);
        assert_eq!(first.headers()[header::CONTENT_TYPE], file.content_type);
        let etag = first.headers()[header::ETAG].clone();
        let mut again = HeaderMap::new();
        again.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_str(&format!("\"other\", {}", etag.to_str().unwrap())).unwrap(),
        );
        let second = respond(file, &again);
        assert_eq!(second.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(second.headers()[header::ETAG], etag);
        let mut stale = HeaderMap::new();
        stale.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"old\""));
        assert_eq!(respond(file, &stale).status(), StatusCode::OK);
    }
}
