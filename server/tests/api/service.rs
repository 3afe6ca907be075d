//! The service's own endpoints and routing: health, readiness, metrics, the
//! OpenAPI document and its routes, and request ids.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_ready_metrics_and_openapi() {
    let server = TestServer::start(config()).await;
    let c = client();
    let r = c.get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["status"], "ok");
    let r = c.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        (v["status"].as_str(), v["max_jobs"].as_u64()),
        (Some("ready"), Some(4))
    );

    // Some traffic, then the counters show it.
    let walker = fixture(WALKER);
    let ok = c
        .post(server.url("/v1/convert?to=glb"))
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    let glb_len = ok.bytes().await.unwrap().len();
    let bad = c
        .post(server.url("/v1/convert?to=glb"))
        .body(fixture(DAMAGED))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);
    let r = c.get(server.url("/metrics")).send().await.unwrap();
    assert_eq!(
        header(&r, "content-type"),
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let text = r.text().await.unwrap();
    let damaged_len = fixture(DAMAGED).len();
    for line in [
        "mshconv_http_requests_total{route=\"/v1/convert\",method=\"POST\",status=\"200\"} 1"
            .to_string(),
        "mshconv_http_requests_total{route=\"/v1/convert\",method=\"POST\",status=\"422\"} 1"
            .to_string(),
        "mshconv_http_requests_total{route=\"/healthz\",method=\"GET\",status=\"200\"} 1"
            .to_string(),
        "mshconv_http_request_duration_seconds_count{route=\"/v1/convert\"} 2".to_string(),
        "mshconv_conversions_total{from=\"msh\",to=\"glb\",outcome=\"ok\"} 1".to_string(),
        "mshconv_conversions_total{from=\"msh\",to=\"glb\",outcome=\"invalid_input\"} 1"
            .to_string(),
        format!(
            "mshconv_http_request_bytes_total{{route=\"/v1/convert\"}} {}",
            walker.len() + damaged_len
        ),
        "mshconv_jobs_in_flight 0".to_string(),
        "mshconv_jobs_max 4".to_string(),
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    let out_line = text
        .lines()
        .find(|l| l.starts_with("mshconv_http_response_bytes_total{route=\"/v1/convert\"}"))
        .unwrap();
    let out: usize = out_line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(
        out > glb_len,
        "{out_line}: the GLB and the problem document"
    );

    let r = c.get(server.url("/openapi.json")).send().await.unwrap();
    assert_eq!(header(&r, "content-type"), "application/json");
    let served = r.bytes().await.unwrap();
    let file = std::fs::read(repo().join("server/openapi.json")).unwrap();
    assert_eq!(
        served, file,
        "GET /openapi.json serves server/openapi.json byte for byte"
    );
    server.stop().await;
}

#[test]
fn openapi_lists_exactly_the_routes() {
    let text = std::fs::read_to_string(repo().join("server/openapi.json")).unwrap();
    let doc: openapiv3::OpenAPI = serde_json::from_str(&text).expect("a valid OpenAPI 3 document");
    assert!(doc.openapi.starts_with("3."));
    let mut documented = BTreeSet::new();
    for (path, item) in &doc.paths.paths {
        let item = item.as_item().expect("paths are inline");
        for (method, op) in item.iter() {
            assert!(
                !op.responses.responses.is_empty(),
                "{method} {path} documents responses"
            );
            documented.insert((method.to_ascii_uppercase(), path.clone()));
        }
    }
    // The files the web page loads are routes, not endpoints: only `/` is documented.
    let routed: BTreeSet<(String, String)> = mshconv_server::routes()
        .iter()
        .filter(|r| !mshconv_server::page::is_asset(r.path))
        .map(|r| (r.method.to_string(), r.path.to_string()))
        .collect();
    assert_eq!(documented, routed, "openapi.json and routes() differ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_is_routed() {
    let server = TestServer::start(config()).await;
    for route in mshconv_server::routes() {
        let r = client()
            .request(route.method.clone(), server.url(route.path))
            .send()
            .await
            .unwrap();
        // No body: uploads get 400 (empty or missing `to`), the rest 200.
        let status = r.status().as_u16();
        assert!(
            status == 200 || status == 400,
            "{} {} answered {status}",
            route.method,
            route.path
        );
    }
    let r = client()
        .get(server.url("/v2/nothing"))
        .send()
        .await
        .unwrap();
    problem(r, 404, "request.not_found").await;
    let r = client()
        .get(server.url("/v1/convert"))
        .send()
        .await
        .unwrap();
    problem(r, 405, "request.method_not_allowed").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_ids_are_echoed_or_made() {
    let server = TestServer::start(config()).await;
    let r = client()
        .get(server.url("/healthz"))
        .header("x-request-id", "client-id.42:a_b")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&r, "x-request-id"), "client-id.42:a_b");
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .header("x-request-id", "trace-7")
        .body(fixture(DAMAGED))
        .send()
        .await
        .unwrap();
    let p = problem(r, 422, "batch.index_count").await;
    assert_eq!(p["instance"], "trace-7");
    // Not a sane id: replaced by a UUID.
    let r = client()
        .get(server.url("/healthz"))
        .header("x-request-id", "has spaces and {braces}")
        .send()
        .await
        .unwrap();
    let id = header(&r, "x-request-id");
    assert_ne!(id, "has spaces and {braces}");
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    let other = header(
        &client().get(server.url("/healthz")).send().await.unwrap(),
        "x-request-id",
    );
    assert_ne!(id, other);
    server.stop().await;
}
