//! The errors: malformed requests (400), unknown formats (415), damaged models
//! (422 with the validator's code and location), glTF side-car buffers never
//! read, and query options failing as the CLI's flags do.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_are_400() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let c = client();
    let cases: Vec<(&str, reqwest::RequestBuilder, &str)> = vec![
        (
            "no to",
            c.post(server.url("/v1/convert")).body(walker.clone()),
            "request.query",
        ),
        (
            "to=fbx",
            c.post(server.url("/v1/convert?to=fbx"))
                .body(walker.clone()),
            "request.bad_format",
        ),
        (
            "from=fbx",
            c.post(server.url("/v1/convert?to=glb&from=fbx"))
                .body(walker.clone()),
            "request.bad_format",
        ),
        (
            "unknown parameter",
            c.post(server.url("/v1/convert?to=glb&lood=1"))
                .body(walker.clone()),
            "request.unknown_parameter",
        ),
        (
            "lod not a number",
            c.post(server.url("/v1/convert?to=glb&lod=abc"))
                .body(walker.clone()),
            "option.invalid",
        ),
        (
            "lod out of range",
            c.post(server.url("/v1/convert?to=glb&lod=7"))
                .body(walker.clone()),
            "option.invalid",
        ),
        (
            "fps out of range",
            c.post(server.url("/v1/convert?to=glb&fps=0"))
                .body(walker.clone()),
            "option.invalid",
        ),
        (
            "axis",
            c.post(server.url("/v1/convert?to=glb&axis=x-up"))
                .body(walker.clone()),
            "option.invalid",
        ),
        (
            "rotation",
            c.post(server.url("/v1/convert?to=glb&rotation=left"))
                .body(walker.clone()),
            "option.invalid",
        ),
        (
            "part without obj",
            c.post(server.url("/v1/convert?to=glb&part=obj"))
                .body(walker.clone()),
            "request.query",
        ),
        (
            "msh to msh",
            c.post(server.url("/v1/convert?to=msh"))
                .body(walker.clone()),
            "convert.unsupported_direction",
        ),
        (
            "glb to gltf",
            c.post(server.url("/v1/convert?to=gltf&from=glb"))
                .body(walker.clone()),
            "convert.unsupported_direction",
        ),
        (
            "entry on glb",
            c.post(server.url("/v1/convert?to=msh&from=glb&entry=X"))
                .body(walker.clone()),
            "request.query",
        ),
        (
            "empty body",
            c.post(server.url("/v1/convert?to=glb")),
            "request.empty_body",
        ),
        (
            "multipart without file",
            c.post(server.url("/v1/convert?to=glb")).multipart(
                reqwest::multipart::Form::new()
                    .part("mtl", reqwest::multipart::Part::bytes(b"x".to_vec())),
            ),
            "request.missing_file",
        ),
        (
            "unknown multipart field",
            c.post(server.url("/v1/convert?to=glb"))
                .multipart(form(walker.clone(), "a.msh").text("lod", "1")),
            "request.multipart",
        ),
        (
            "broken multipart",
            c.post(server.url("/v1/convert?to=glb"))
                .header("content-type", "multipart/form-data; boundary=XYZ")
                .body("--XYZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc"),
            "request.multipart",
        ),
        (
            "multipart without boundary",
            c.post(server.url("/v1/validate"))
                .header("content-type", "multipart/form-data")
                .body("x"),
            "request.multipart",
        ),
        (
            "validate tolerant=maybe",
            c.post(server.url("/v1/validate?tolerant=maybe"))
                .body(walker.clone()),
            "request.query",
        ),
    ];
    let mut failures = Vec::new();
    for (what, request, code) in cases {
        let r = request.send().await.unwrap();
        let status = r.status().as_u16();
        let body: serde_json::Value = r.json().await.unwrap_or_default();
        if status != 400 || body["code"] != code {
            failures.push(format!("{what}: {status} {body}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_formats_are_415() {
    let server = TestServer::start(config()).await;
    // A RIFF/WAVE header and binary: no model format.
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .multipart(form(
            fixture("fixtures/small/damaged/anim4__not_nres.msh"),
            "x.msh",
        ))
        .send()
        .await
        .unwrap();
    problem(r, 415, "input.unknown_format").await;
    for endpoint in [
        "/v1/archive/list",
        "/v1/pose?time=0",
        "/v1/archive/convert?to=glb",
    ] {
        let r = client()
            .post(server.url(endpoint))
            .body("o cube\nv 0 0 0\n")
            .send()
            .await
            .unwrap();
        problem(r, 415, "input.unknown_format").await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_models_are_422_with_the_validators_code_and_location() {
    let server = TestServer::start(config()).await;
    let dir = repo().join("fixtures/small/damaged");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        if bytes.is_empty() {
            continue; // an empty upload is a malformed request (400), tested elsewhere
        }
        // What the conversion's first step, strict opening, says.
        let (code, offset, where_) = match msh::open(&bytes, msh::Mode::Strict) {
            Ok(_) => continue, // damage that only a conversion notices
            Err(msh::Error::Container(e)) => (e.code().to_string(), e.offset(), None),
            Err(msh::Error::Invalid(report)) => {
                let first = report.errors().next().unwrap().clone();
                (
                    first.code.as_str().to_string(),
                    first.offset,
                    Some(first.path),
                )
            }
            Err(other) => panic!("{}: {other}", path.display()),
        };
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let r = client()
            .post(server.url("/v1/convert?to=glb&from=msh"))
            .body(bytes.clone())
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let p: serde_json::Value = r.json().await.unwrap_or_default();
        checked += 1;
        let want_offset = offset.map_or(serde_json::Value::Null, Into::into);
        let want_path = where_.map_or(serde_json::Value::Null, Into::into);
        if status != 422
            || p["code"] != code.as_str()
            || p.get("offset").cloned().unwrap_or_default() != want_offset
            || p.get("path").cloned().unwrap_or_default() != want_path
        {
            failures.push(format!(
                "{name}: {status} {p}; expected {code} at {want_offset} {want_path}"
            ));
        }
    }
    assert!(checked > 50, "only {checked} damaged fixtures checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gltf_side_car_buffers_are_never_read() {
    let server = TestServer::start(config()).await;
    let options = mshconv_gltf::ExportOptions {
        format: mshconv_gltf::GltfFormat::Gltf,
        ..Default::default()
    };
    let (gltf, _) = mshconv_gltf::msh_to_gltf(&fixture(WALKER), &options).unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&gltf).unwrap();
    for (uri, code) in [
        ("model.bin", "gltf.missing_buffer"),
        ("Cargo.toml", "gltf.missing_buffer"),
        ("../Cargo.toml", "gltf.uri_refused"),
        ("/etc/passwd", "gltf.uri_refused"),
        ("file:///etc/passwd", "gltf.uri_refused"),
        ("http://127.0.0.1:1/x.bin", "gltf.uri_refused"),
    ] {
        doc["buffers"][0]["uri"] = uri.into();
        let r = client()
            .post(server.url("/v1/convert?to=msh"))
            .body(serde_json::to_vec(&doc).unwrap())
            .send()
            .await
            .unwrap();
        let p = problem(r, 422, code).await;
        if code == "gltf.missing_buffer" {
            assert!(
                p["detail"]
                    .as_str()
                    .unwrap()
                    .contains("never reads side-car files"),
                "{p}"
            );
        }
    }
    server.stop().await;
}

/// A query option fails as the CLI's flag does: the same code and message
/// (both go through `mshconv_app::Options::set`); a parameter the endpoint
/// does not take is `request.unknown_parameter`, naming the ones it takes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_options_fail_as_the_flags_do() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    for (query, message) in [
        ("lod=abc", "lod must be a number, not \"abc\""),
        ("lod=3", "lod must be 0, 1 or 2, not 3"),
        (
            "fps=0",
            "fps must be a number above 0 and at most 1000, not 0",
        ),
    ] {
        let r = client()
            .post(server.url(&format!("/v1/convert?to=glb&{query}")))
            .body(walker.clone())
            .send()
            .await
            .unwrap();
        let body = problem(r, 400, "option.invalid").await;
        assert_eq!(body["detail"], message, "{query}");
        let mut options = mshconv_app::Options::default();
        let (name, value) = query.split_once('=').unwrap();
        let row = mshconv_app::OPTIONS
            .iter()
            .find(|r| r.query == name)
            .unwrap();
        let cli = options.set(row.name, value).unwrap_err();
        assert_eq!(cli.to_string(), message);
    }
    let r = client()
        .post(server.url("/v1/archive/convert?to=glb&clips=a%3D0..1"))
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    let body = problem(r, 400, "request.unknown_parameter").await;
    assert_eq!(
        body["detail"],
        "unknown query parameter \"clips\": this endpoint takes to, name, lod, group, fps, axis, rotation, embed_original"
    );
    let r = client()
        .post(server.url("/v1/convert?to=glb&lod=1&lod=2"))
        .body(walker)
        .send()
        .await
        .unwrap();
    problem(r, 400, "request.query").await;
    server.stop().await;
}
