//! Abuse over a real loopback socket (issue 12): a flood of malformed and
//! random requests mixed with valid ones, oversized and endless bodies, slow
//! uploads and slowloris heads, a thousand connections at once against the
//! real binary (its peak memory read from /proc), glTF URIs that point at
//! files or at a listener of the test's, and archives that claim gigabytes.
//! docs/ROBUSTNESS.md says what each test proves.
//!
//! Random choices come from a fixed seed (SplitMix64), so every run sends the
//! same requests. Waits are for events, each under a generous guard that fails
//! the test instead of hanging; nothing asserts speed.

mod common;

use common::*;
use futures_util::StreamExt as _;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// SplitMix64: a fixed sequence of choices for a fixed seed.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Sends raw bytes on a new connection and ends the sending side (writing may
/// fail once the server has answered and closed), then reads what comes back.
async fn raw(addr: std::net::SocketAddr, request: &[u8]) -> Option<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let _ = stream.write_all(request).await;
    let _ = stream.shutdown().await;
    read_raw_response(&mut stream)
        .await
        .map(|(status, _, body)| (status, body))
}

/// The JSON documents the service writes: pretty, with a final newline.
fn json_bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(value).unwrap();
    v.push(b'\n');
    v
}

/// A valid request and the exact body it must get (status 200).
struct Valid {
    path: String,
    content_type: Option<&'static str>,
    body: Body,
    expected: Vec<u8>,
}

#[derive(Clone)]
enum Body {
    Raw(Vec<u8>),
    /// A multipart form with the field `file`: bytes, file name.
    Form(Vec<u8>, String),
}

/// The valid requests of the flood, each with the library's output for it.
fn valid_requests() -> Vec<Valid> {
    let robot = fixture("fixtures/small/models/m143_robot.msh");
    let wreck = fixture("fixtures/small/models/m252_wreck.msh");
    let archive = fixture(ARCHIVE);
    let obj = fixture("fixtures/foreign/obj/assimp_scene.obj");
    let gltf = |format, name: &str| {
        let options = mshconv_gltf::ExportOptions {
            format,
            name: name.to_string(),
            ..Default::default()
        };
        mshconv_gltf::msh_to_gltf(&robot, &options).unwrap().0
    };
    let glb = gltf(mshconv_gltf::GltfFormat::Glb, "model");
    let obj_export = mshconv_obj::msh_to_obj(
        &wreck,
        &mshconv_obj::ObjExportOptions {
            mtl_name: "model.mtl".into(),
            ..Default::default()
        },
    )
    .unwrap()
    .0;
    let opened = msh::open(&wreck, msh::Mode::Strict).unwrap();
    let poses = msh::pose::local_poses(&opened.view, 1.5).unwrap();
    let raw = |path: &str, body: &[u8], expected: Vec<u8>| Valid {
        path: path.to_string(),
        content_type: None,
        body: Body::Raw(body.to_vec()),
        expected,
    };
    let to_msh = |bytes: &[u8]| {
        mshconv_gltf::gltf_to_msh(bytes, &Default::default(), &|_| None)
            .unwrap()
            .0
    };
    let mut out = vec![
        raw("/v1/convert?to=glb", &robot, glb.clone()),
        raw(
            "/v1/convert?to=gltf&name=robot",
            &robot,
            gltf(mshconv_gltf::GltfFormat::Gltf, "robot"),
        ),
        raw("/v1/convert?to=obj&part=obj", &wreck, obj_export.obj),
        raw("/v1/convert?to=obj&part=mtl", &wreck, obj_export.mtl),
        raw("/v1/convert?to=msh", &glb, to_msh(&glb)),
        raw(
            "/v1/convert?to=msh",
            &obj,
            mshconv_obj::obj_to_msh(&obj, None, &Default::default())
                .unwrap()
                .0,
        ),
        raw(
            "/v1/validate",
            &robot,
            json_bytes(&mshconv_app::report::check(
                "upload",
                &robot,
                msh::Mode::Strict,
            )),
        ),
        raw(
            "/v1/inspect",
            &wreck,
            json_bytes(&mshconv_app::report::inspect("upload", &opened)),
        ),
        raw(
            "/v1/pose?time=1.5",
            &wreck,
            json_bytes(&mshconv_app::report::PoseDoc::new(
                &opened.view,
                1.5,
                &poses,
            )),
        ),
        raw(
            "/v1/archive/list",
            &archive,
            json_bytes(&mshconv_app::report::entry_rows(
                &nres::Archive::parse(&archive).unwrap(),
            )),
        ),
    ];
    // Round trip: the model itself comes back.
    assert_eq!(to_msh(&glb), robot);
    out.push(Valid {
        path: "/v1/convert?to=glb".into(),
        content_type: None,
        body: Body::Form(robot.clone(), "robot.msh".into()),
        expected: gltf(mshconv_gltf::GltfFormat::Glb, "robot"),
    });
    out.push(Valid {
        path: "/v1/convert?to=glb".into(),
        content_type: Some("application/octet-stream"),
        body: Body::Raw(robot.clone()),
        expected: glb,
    });
    out
}

/// The inputs the malformed requests are made from.
struct Material {
    files: Vec<Vec<u8>>,
}

impl Material {
    fn new() -> Material {
        let robot = fixture("fixtures/small/models/m143_robot.msh");
        let mut files = vec![
            robot.clone(),
            fixture("fixtures/small/edge/zero_nodes.msh"),
            fixture(DAMAGED),
            fixture("fixtures/foreign/obj/blender_scene.obj"),
            fixture("fixtures/foreign/gltf/threejs_morph.glb"),
            fixture(ARCHIVE),
        ];
        for format in [
            mshconv_gltf::GltfFormat::Glb,
            mshconv_gltf::GltfFormat::Gltf,
        ] {
            let options = mshconv_gltf::ExportOptions {
                format,
                ..Default::default()
            };
            files.push(mshconv_gltf::msh_to_gltf(&robot, &options).unwrap().0);
        }
        Material { files }
    }
}

const ENDPOINTS: &[&str] = &[
    "/v1/convert?to=glb",
    "/v1/convert?to=msh",
    "/v1/convert?to=obj",
    "/v1/convert?to=gltf&from=msh",
    "/v1/convert?to=msh&from=obj",
    "/v1/convert?to=msh&from=glb",
    "/v1/validate",
    "/v1/validate?tolerant=true",
    "/v1/inspect",
    "/v1/inspect?tolerant=true",
    "/v1/pose?time=3",
    "/v1/archive/list",
    "/v1/archive/list?tolerant=true",
    "/v1/archive/convert?to=obj",
];

const BAD_QUERIES: &[&str] = &[
    "/v1/convert",
    "/v1/convert?to=fbx",
    "/v1/convert?to=",
    "/v1/convert?to=glb&lod=999",
    "/v1/convert?to=glb&lod=-1",
    "/v1/convert?to=glb&fps=abc",
    "/v1/convert?to=glb&fps=1e40",
    "/v1/convert?to=glb&fps=0",
    "/v1/convert?to=glb&fps=NaN",
    "/v1/convert?to=glb&axis=w-up",
    "/v1/convert?to=glb&rotation=sideways",
    "/v1/convert?to=glb&to=obj",
    "/v1/convert?to=glb&zzz=1",
    "/v1/convert?to=glb&part=mtl",
    "/v1/convert?to=msh&entry=nope.msh",
    "/v1/convert?to=glb&entry=NOPE.MSH",
    "/v1/convert?%zz=%zz",
    "/v1/convert?to=glb&name=%00%ff%fe",
    "/v1/convert?to=msh&animation=99999999999999999999",
    "/v1/pose",
    "/v1/pose?time=abc",
    "/v1/pose?time=NaN",
    "/v1/pose?time=-inf",
    "/v1/validate?tolerant=maybe",
    "/v1/validate?entry=",
    "/v1/archive/convert?to=msh",
    "/v1/archive/list?x=%",
];

const CONTENT_TYPES: &[&str] = &[
    "multipart/form-data",
    "multipart/form-data; boundary=",
    "multipart/form-data; boundary=abc",
    "multipart/form-data; boundary=\"unterminated",
    "multipart/mixed; boundary=abc",
    "application/json",
    "text/plain; charset=utf-16",
    "model/gltf-binary",
    "application/x-www-form-urlencoded",
    ";;;",
];

/// A malformed multipart body (boundary `XyZ`).
fn broken_multipart(rng: &mut Rng, file: &[u8]) -> Vec<u8> {
    let part = |name: &str, data: &[u8]| {
        let mut p = format!(
            "--XyZ\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"a.msh\"\r\n\r\n"
        )
        .into_bytes();
        p.extend_from_slice(data);
        p.extend_from_slice(b"\r\n");
        p
    };
    let mut body = match rng.below(6) {
        0 => part("file", file), // no closing boundary
        1 => [part("file", file), part("file", file)].concat(), // given twice
        2 => [part("other", file), b"--XyZ--\r\n".to_vec()].concat(), // unknown field
        3 => [part("mtl", file), b"--XyZ--\r\n".to_vec()].concat(), // no `file`
        4 => b"--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--\r\n".to_vec(),
        _ => b"--XyZ--\r\n".to_vec(), // no parts at all
    };
    if rng.below(3) == 0 {
        let cut = rng.below(body.len());
        body.truncate(cut);
    }
    body
}

/// One request of the flood.
enum Request {
    /// A valid request (index into the valid ones).
    Valid(usize),
    /// A well-formed HTTP request whose content is wrong.
    Http {
        method: reqwest::Method,
        path: String,
        content_type: Option<String>,
        body: Vec<u8>,
    },
    /// Raw bytes on a new connection; whether the server may close it without
    /// an answer (a head over the limit: the server stops reading, answers 431
    /// and closes, and the client, still sending, may see a reset first).
    Raw(Vec<u8>, bool),
}

fn request(seed: u64, index: u64, valid: usize, m: &Material) -> Request {
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0xA24B_AED4_963E_E407));
    let post = |path: &str, content_type: Option<&str>, body: Vec<u8>| Request::Http {
        method: reqwest::Method::POST,
        path: path.to_string(),
        content_type: content_type.map(str::to_string),
        body,
    };
    match rng.below(20) {
        // A third of the flood is valid.
        0..=6 => Request::Valid(rng.below(valid)),
        // Random bytes.
        7 => {
            let n = rng.below(4096);
            post(rng.pick_str(ENDPOINTS), None, rng.bytes(n))
        }
        // A fixture cut short.
        8 => {
            let f = rng.pick(&m.files);
            let cut = rng.below(f.len());
            post(rng.pick_str(ENDPOINTS), None, f[..cut].to_vec())
        }
        // A fixture with bits flipped.
        9 | 10 => {
            let mut f = rng.pick(&m.files).clone();
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(f.len());
                f[at] ^= 1 << rng.below(8);
            }
            post(rng.pick_str(ENDPOINTS), None, f)
        }
        // A fixture under a wrong content type.
        11 => {
            let f = rng.pick(&m.files).clone();
            post(
                rng.pick_str(ENDPOINTS),
                Some(rng.pick_str(CONTENT_TYPES)),
                f,
            )
        }
        // Broken multipart.
        12 => {
            let f = rng.pick(&m.files).clone();
            let body = broken_multipart(&mut rng, &f);
            post(
                rng.pick_str(ENDPOINTS),
                Some("multipart/form-data; boundary=XyZ"),
                body,
            )
        }
        // Bad query parameters.
        13 => {
            let f = rng.pick(&m.files).clone();
            post(rng.pick_str(BAD_QUERIES), None, f)
        }
        // Unknown routes and methods.
        14 => {
            let methods = ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "FROB", "HEAD"];
            let paths = [
                "/v1/convert",
                "/healthz",
                "/v2/convert",
                "/v1/convert/extra",
                "/%2e%2e/%2e%2e/etc/passwd",
                "/v1//validate",
                "/metrics?x=1",
                "/nope",
            ];
            Request::Http {
                method: reqwest::Method::from_bytes(rng.pick(&methods).as_bytes()).unwrap(),
                path: rng.pick(&paths).to_string(),
                content_type: None,
                body: Vec::new(),
            }
        }
        // A huge header, or very many headers: over the head limit.
        15 => {
            let mut r = b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n".to_vec();
            if rng.below(2) == 0 {
                r.extend_from_slice(b"X-Big: ");
                r.extend(std::iter::repeat_n(b'a', 100_000));
                r.extend_from_slice(b"\r\n");
            } else {
                for i in 0..500 {
                    r.extend_from_slice(format!("X-H{i}: v\r\n").as_bytes());
                }
            }
            r.extend_from_slice(b"\r\n");
            Request::Raw(r, true)
        }
        // Broken HTTP framing.
        16 => {
            let heads: [&[u8]; 11] = [
                b"POST /v1/convert?to=glb HTTP/1.1\r\nHost: t\r\nContent-Length: 5000000\r\n\r\n",
                b"GARBAGE\r\n\r\n",
                b"GET\r\n\r\n",
                b"GET / HTTP/9.9\r\n\r\n",
                b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: -5\r\n\r\n",
                b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nNResx",
                b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nNRes\r\n0\r\n\r\n",
                b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nNRes\r\n0\r\n\r\n",
                b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                b"GET /healthz HTTP/1.1\r\nHost: t\r\nBad Header Name: x\r\n\r\n",
            ];
            Request::Raw(rng.pick(&heads).to_vec(), false)
        }
        // Random bytes as the whole request.
        17 => {
            let n = 1 + rng.below(2048);
            Request::Raw(rng.bytes(n), false)
        }
        // A body shorter than its Content-Length, then the connection closes.
        18 => {
            let f = rng.pick(&m.files);
            let mut r = format!(
                "POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
                f.len() + 100
            )
            .into_bytes();
            r.extend_from_slice(&f[..f.len() / 2]);
            Request::Raw(r, false)
        }
        // A random query string.
        _ => {
            let q: String = (0..rng.below(200))
                .map(|_| (b' ' + rng.below(95) as u8) as char)
                .filter(|c| !c.is_whitespace() && *c != '#')
                .collect();
            let f = rng.pick(&m.files).clone();
            post(&format!("/v1/convert?{q}"), None, f)
        }
    }
}

/// What one request of the flood got.
#[derive(Debug)]
enum Answer {
    Status(u16, Vec<u8>),
    Closed,
    /// The client library would not send it (a URL it cannot express), or
    /// a head over the limit was cut off.
    NotSent,
    ClientError(String),
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_mixed_requests_never_get_a_500_and_valid_ones_are_exact() {
    const REQUESTS: u64 = 10_000;
    const IN_FLIGHT: usize = 24;
    const SEED: u64 = 0x1251_2026_0000_0001;
    let server = TestServer::start(mshconv_server::Config {
        // More slots than requests in flight: a valid request never finds them all busy.
        max_jobs: 2 * IN_FLIGHT,
        max_body: 1 << 20,
        ..config()
    })
    .await;
    let valid = Arc::new(valid_requests());
    let material = Arc::new(Material::new());
    let client = client();
    let addr = server.addr;
    let base = server.base.clone();
    let answers: Vec<(u64, Option<usize>, Answer)> = futures_util::stream::iter(0..REQUESTS)
        .map(|i| {
            let valid = Arc::clone(&valid);
            let material = Arc::clone(&material);
            let client = client.clone();
            let base = base.clone();
            async move {
                let req = request(SEED, i, valid.len(), &material);
                let (which, answer) = match req {
                    Request::Valid(k) => {
                        let v = &valid[k];
                        let mut rb = client.post(format!("{base}{}", v.path));
                        if let Some(ct) = v.content_type {
                            rb = rb.header("content-type", ct);
                        }
                        rb = match &v.body {
                            Body::Raw(b) => rb.body(b.clone()),
                            Body::Form(b, name) => rb.multipart(form(b.clone(), name)),
                        };
                        (Some(k), send(rb).await)
                    }
                    Request::Http {
                        method,
                        path,
                        content_type,
                        body,
                    } => {
                        let mut rb = client.request(method, format!("{base}{path}"));
                        if let Some(ct) = content_type {
                            rb = rb.header("content-type", ct);
                        }
                        (None, send(rb.body(body)).await)
                    }
                    Request::Raw(bytes, may_close) => (
                        None,
                        match raw(addr, &bytes).await {
                            Some((status, body)) => Answer::Status(status, body),
                            None if may_close => Answer::NotSent,
                            None => Answer::Closed,
                        },
                    ),
                };
                (i, which, answer)
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;

    let mut failures = Vec::new();
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    let (mut valid_ok, mut unanswered) = (0, 0);
    for (i, which, answer) in &answers {
        match (which, answer) {
            (Some(k), Answer::Status(200, body)) if *body == valid[*k].expected => valid_ok += 1,
            (Some(k), other) => failures.push(format!(
                "request {i} (valid: POST {}): {}",
                valid[*k].path,
                match other {
                    Answer::Status(s, b) => format!("{s}, {} bytes", b.len()),
                    other => format!("{other:?}"),
                }
            )),
            (None, Answer::Status(status, body)) => {
                *statuses.entry(*status).or_default() += 1;
                if *status >= 500 {
                    failures.push(format!(
                        "request {i}: {status} {}",
                        String::from_utf8_lossy(&body[..body.len().min(300)])
                    ));
                }
            }
            (None, Answer::NotSent) => unanswered += 1,
            (None, Answer::Closed) => {
                failures.push(format!("request {i}: closed without an answer"))
            }
            (None, Answer::ClientError(e)) => failures.push(format!("request {i}: no answer: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {REQUESTS} requests went wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The flood was what it says: thousands of each, every kind of refusal.
    assert!(valid_ok > 3000, "{valid_ok} valid requests");
    println!(
        "valid: {valid_ok}, others by status: {statuses:?}, not sent or cut off over the head limit: {unanswered}"
    );
    for status in [400, 404, 405, 413, 415, 422, 431] {
        assert!(
            statuses.get(&status).is_some_and(|&n| n > 0),
            "no {status} among {statuses:?}"
        );
    }
    // The service's own count agrees: not one 500.
    let metrics = server.state.metrics().render(2 * IN_FLIGHT);
    assert!(
        !metrics.lines().any(|l| l.contains("status=\"5")),
        "{metrics}"
    );
    // And it is still healthy: every slot free, health and a valid request fine.
    server.wait_for_jobs(0).await;
    let r = client.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v = &valid[0];
    let Body::Raw(body) = &v.body else {
        unreachable!()
    };
    let r = client
        .post(server.url(&v.path))
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap(), v.expected);
    server.stop().await;
}

async fn send(rb: reqwest::RequestBuilder) -> Answer {
    match rb.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            match r.bytes().await {
                Ok(b) => Answer::Status(status, b.to_vec()),
                Err(e) => Answer::ClientError(format!("{status}, then {e}")),
            }
        }
        Err(e) if e.is_builder() => Answer::NotSent,
        Err(e) => Answer::ClientError(e.to_string()),
    }
}

// --- Early answers --------------------------------------------------------

/// Finding: an answer given before the request's body was read (a bad query,
/// an unknown route) closed the connection without `Connection: close` and
/// without reading the body, so a client still sending got a reset instead of
/// the answer, and a pooled client reused the dead connection for its next
/// request (the flood above lost 7 of 10,000, two of them valid). Now such a
/// body is drained (at most 1 MiB, 1 s) and the connection kept, or the
/// answer says `Connection: close`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_early_answer_drains_the_body_or_closes_the_connection() {
    let server = TestServer::start(config()).await;
    // A small body the handler never reads: drained, the connection stays usable.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let body = vec![b'x'; 50_000];
    let mut request = format!(
        "POST /v1/convert HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    stream.write_all(&request).await.unwrap();
    let (status, _, _) = read_raw_response(&mut stream).await.expect("an answer");
    assert_eq!(status, 400);
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        .await
        .unwrap();
    let (status, _, body) = read_raw_response(&mut stream)
        .await
        .expect("a second answer");
    assert_eq!(
        (status, body.as_slice()),
        (200, &b"{\"status\":\"ok\"}\n"[..])
    );

    // A body larger than the drain: the answer says the connection closes.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"POST /nowhere HTTP/1.1\r\nHost: t\r\nContent-Length: 5000000\r\n\r\nabc")
        .await
        .unwrap();
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while find(&head, b"\r\n\r\n").is_none() {
        let n = tokio::time::timeout(GUARD, stream.read(&mut buf))
            .await
            .expect("an answer within the guard time")
            .unwrap();
        assert!(n > 0, "closed without an answer");
        head.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 404"), "{head}");
    assert!(head.contains("connection: close"), "{head}");

    // A pooled client mixing refused and valid uploads gets every answer.
    let client = client();
    let robot = fixture("fixtures/small/models/m143_robot.msh");
    let glb = library_glb(&robot, "model");
    for i in 0..100 {
        let (path, status) = if i % 2 == 0 {
            ("/v1/convert?to=fbx", 400)
        } else {
            ("/v1/convert?to=glb", 200)
        };
        let r = client
            .post(server.url(path))
            .body(robot.clone())
            .send()
            .await
            .unwrap_or_else(|e| panic!("request {i}: {e}"));
        assert_eq!(r.status(), status, "request {i}");
        let bytes = r.bytes().await.unwrap();
        if status == 200 {
            assert_eq!(bytes, glb, "request {i}");
        }
    }
    server.stop().await;
}

/// Finding: hyper's read buffer, which holds a request's head, grew to its
/// default limit of about 400 KiB per connection, so a thousand connections
/// sending long heads could take 400 MB. Heads are now limited to
/// `MAX_HEAD` (64 KiB), which caps the buffer; a longer head gets 431.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_heads_over_64_kib_get_431() {
    let server = TestServer::start(config()).await;
    let head = |pad: usize| {
        format!(
            "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\nX-Pad: {}\r\n\r\n",
            "p".repeat(pad)
        )
        .into_bytes()
    };
    let fits = raw(server.addr, &head(mshconv_server::MAX_HEAD - 1024)).await;
    assert_eq!(fits.map(|r| r.0), Some(200));
    let over = raw(server.addr, &head(mshconv_server::MAX_HEAD)).await;
    assert_eq!(over.map(|r| r.0), Some(431));
    server.stop().await;
}

/// Finding: hyper closes a connection as soon as it reads the end of the
/// client's sending side unless told otherwise, so a client that sends its
/// request and then shuts down writing (`nc -N`, many scripts) got nothing
/// back, at random (the flood above saw hundreds of such closes). The service
/// now accepts half-closed connections and answers them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_ends_its_sending_side_still_gets_the_answer() {
    let server = TestServer::start(config()).await;
    let robot = fixture("fixtures/small/models/m143_robot.msh");
    let expected = json_bytes(&mshconv_app::report::check(
        "upload",
        &robot,
        msh::Mode::Strict,
    ));
    let mut post = format!(
        "POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        robot.len()
    )
    .into_bytes();
    post.extend_from_slice(&robot);
    for _ in 0..50 {
        let r = raw(server.addr, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n").await;
        assert_eq!(r.map(|r| r.0), Some(200));
        let r = raw(server.addr, &post).await.expect("an answer");
        assert_eq!((r.0, r.1), (200, expected.clone()));
    }
    server.stop().await;
}

// --- Oversized bodies -----------------------------------------------------

/// Sends `head` and then body chunks without end (chunked transfer encoding)
/// until the server answers; returns the answer's status and how many body
/// bytes were sent.
async fn endless_chunked(addr: std::net::SocketAddr, head: &[u8]) -> (u16, usize) {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    write.write_all(head).await.unwrap();
    let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writer = tokio::spawn({
        let sent = Arc::clone(&sent);
        async move {
            let chunk = [b'z'; 16 * 1024];
            // At most 256 MiB: far past every limit, so the server must answer first.
            for _ in 0..16 * 1024 {
                let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
                frame.extend_from_slice(&chunk);
                frame.extend_from_slice(b"\r\n");
                if write.write_all(&frame).await.is_err() {
                    return;
                }
                sent.fetch_add(chunk.len(), std::sync::atomic::Ordering::Relaxed);
            }
        }
    });
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let status = tokio::time::timeout(GUARD, async {
        loop {
            let n = read.read(&mut buf).await.unwrap_or(0);
            assert!(n > 0, "closed without an answer");
            data.extend_from_slice(&buf[..n]);
            if let Some(end) = find(&data, b"\r\n") {
                let line = String::from_utf8_lossy(&data[..end]).to_string();
                return line
                    .split_whitespace()
                    .nth(1)
                    .unwrap()
                    .parse::<u16>()
                    .unwrap();
            }
        }
    })
    .await
    .expect("an answer while the body is still coming");
    writer.abort();
    (status, sent.load(std::sync::atomic::Ordering::Relaxed))
}

fn request_bytes(server: &TestServer, route: &str) -> u64 {
    let metrics = server.state.metrics().render(4);
    let prefix = format!("mshconv_http_request_bytes_total{{route=\"{route}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map_or(0, |n| n.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_get_413_without_being_read_whole() {
    const LIMIT: usize = 64 * 1024;
    let server = TestServer::start(mshconv_server::Config {
        max_body: LIMIT,
        ..config()
    })
    .await;
    // What the service reads of an endless body: the limit, then at most the
    // 413 linger and the drain (1 MiB each), give or take one chunk.
    let most = (LIMIT + 2 * (1 << 20) + 64 * 1024) as u64;

    // Chunked, no Content-Length: an endless raw body.
    let (status, _) = endless_chunked(
        server.addr,
        b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n",
    )
    .await;
    assert_eq!(status, 413);
    assert!(request_bytes(&server, "/v1/validate") <= most);

    // Chunked multipart: an endless `file` field.
    let part = "--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n";
    let head = format!(
        "POST /v1/convert?to=glb HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\
Content-Type: multipart/form-data; boundary=XyZ\r\n\r\n{:x}\r\n{part}\r\n",
        part.len()
    );
    let (status, _) = endless_chunked(server.addr, head.as_bytes()).await;
    assert_eq!(status, 413);
    assert!(request_bytes(&server, "/v1/convert") <= most);

    // Multipart declaring 10 GB: refused before one byte of it is read.
    let before = request_bytes(&server, "/v1/inspect");
    let r = raw(
        server.addr,
        b"POST /v1/inspect HTTP/1.1\r\nHost: t\r\nContent-Length: 10000000000\r\n\
Content-Type: multipart/form-data; boundary=XyZ\r\n\r\n",
    )
    .await
    .expect("an answer");
    assert_eq!(r.0, 413);
    assert_eq!(request_bytes(&server, "/v1/inspect"), before);

    // A streamed upload from a client library, without end: 413 too.
    let endless = futures_util::stream::repeat_with(|| Ok::<_, std::io::Error>(vec![b'q'; 8192]));
    match client()
        .post(server.url("/v1/archive/list"))
        .body(reqwest::Body::wrap_stream(endless))
        .send()
        .await
    {
        Ok(r) => assert_eq!(r.status(), 413),
        // The client may see the connection close while it is still sending.
        Err(e) => assert!(e.is_request() || e.is_body(), "{e}"),
    }
    assert!(request_bytes(&server, "/v1/archive/list") <= most);
    server.stop().await;
}

// --- Slow clients ---------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_trickled_byte_by_byte_gets_408_at_the_time_limit() {
    let server = TestServer::start(mshconv_server::Config {
        timeout: Duration::from_millis(500),
        ..config()
    })
    .await;
    let stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let body = fixture("fixtures/small/models/m143_robot.msh");
    write
        .write_all(
            format!(
                "POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    // One byte every 10 ms: the whole body would take 26 s.
    let writer = tokio::spawn(async move {
        for b in body {
            if write.write_all(&[b]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    tokio::time::timeout(GUARD, async {
        while find(&data, b"\r\n\r\n").is_none() {
            let n = read.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed without an answer");
            data.extend_from_slice(&buf[..n]);
        }
    })
    .await
    .expect("an answer within the guard time");
    assert!(
        !writer.is_finished(),
        "the body was still being sent when the answer came"
    );
    writer.abort();
    let head = String::from_utf8_lossy(&data);
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    server.stop().await;
}

/// Waits (within the guard) until the server closes `stream`.
async fn closed_by_server(stream: &mut TcpStream) {
    let mut buf = [0u8; 1024];
    tokio::time::timeout(GUARD, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .expect("the server closes the connection within the guard time");
}

/// Finding: axum's `serve` gives hyper no timer, so hyper's header read
/// timeout never applied: a client sending its request head one byte at a
/// time, or nothing at all, held its connection (and with a connection limit,
/// a slot) for ever. `serve` now sets `--header-timeout` (default 10 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slowloris_heads_and_idle_connections_are_cut_off() {
    let server = TestServer::start(mshconv_server::Config {
        header_timeout: Duration::from_millis(300),
        max_connections: 8,
        ..config()
    })
    .await;
    // Eight connections fill every slot: three trickle a head that never ends,
    // three send nothing, two finish one request and then stay idle.
    let mut slow = Vec::new();
    for _ in 0..3 {
        let stream = TcpStream::connect(server.addr).await.unwrap();
        let (read, mut write) = stream.into_split();
        let trickle = tokio::spawn(async move {
            let _ = write
                .write_all(b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nX-Slow: ")
                .await;
            loop {
                if write.write_all(b"a").await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
        slow.push((read, trickle));
    }
    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(TcpStream::connect(server.addr).await.unwrap());
    }
    let mut kept = Vec::new();
    for _ in 0..2 {
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            .await
            .unwrap();
        assert_eq!(read_raw_response(&mut s).await.unwrap().0, 200);
        kept.push(s);
    }
    // Every one of them is closed by the server.
    for (mut read, trickle) in slow {
        let mut buf = [0u8; 1024];
        tokio::time::timeout(GUARD, async {
            loop {
                match read.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        })
        .await
        .expect("a trickled head is cut off within the guard time");
        trickle.abort();
    }
    for s in idle.iter_mut().chain(kept.iter_mut()) {
        closed_by_server(s).await;
    }
    // The slots are free again: a new client is served.
    let r = client().get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    server.stop().await;
}

// --- The real binary: many connections, memory --------------------------

/// This process's limit of open files (the soft one), from /proc.
fn open_file_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|l| {
            l.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3).map(str::to_string))
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or(1024)
}

/// Per connection: the read buffer (at most `MAX_HEAD`) and hyper's and
/// tokio's state, with room to spare.
const PER_CONNECTION: u64 = mshconv_server::MAX_HEAD as u64 + 64 * 1024;

/// A thousand connections (fewer if this process may not open that many
/// files), each holding a half-sent head of 40 KiB, against the real binary
/// with a limit of 60% of them: the rest are answered 503 (never a 500,
/// never silence); other clients are served once slots free up; the peak
/// memory grows by less than `PER_CONNECTION` per connection plus 32 MiB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_connections_get_answers_or_503_and_memory_stays_bounded() {
    let n = 1000.min(open_file_limit().saturating_sub(100));
    let limit = n * 6 / 10;
    let server = Binary::start(&[
        "--max-connections",
        &limit.to_string(),
        "--header-timeout",
        "120s",
        "--max-jobs",
        "4",
    ]);
    // A new connection for every request: a pooled one would keep its slot.
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(0)
        .timeout(GUARD)
        .build()
        .unwrap();
    let robot = fixture("fixtures/small/models/m143_robot.msh");
    let glb = library_glb(&robot, "model");
    // Warm up (code paths, allocator) before the baseline.
    for _ in 0..3 {
        let r = client
            .post(server.url("/v1/convert?to=glb"))
            .body(robot.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(r.bytes().await.unwrap(), glb);
    }
    let baseline = server.peak_memory();

    let padding = format!("X-Pad: {}\r\n", "p".repeat(40 * 1024));
    let mut hogs = Vec::new();
    for _ in 0..n {
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n")
            .await
            .unwrap();
        s.write_all(padding.as_bytes()).await.unwrap();
        hogs.push(s);
    }
    // Once every hog is taken in, a newcomer is over the limit: 503, at once.
    let r = tokio::time::timeout(GUARD, async {
        loop {
            let r = client.get(server.url("/healthz")).send().await.unwrap();
            if r.status() == 503 {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("a newcomer is refused once the slots are taken");
    assert_eq!(r.headers()["retry-after"], "1");
    let p: serde_json::Value = r.json().await.unwrap();
    assert_eq!(p["code"], "server.too_many_connections", "{p}");

    // Half the hogs leave: other clients are served, conversions exact.
    let rest = hogs.split_off(n / 2);
    drop(hogs);
    let r = tokio::time::timeout(GUARD, async {
        loop {
            let r = client
                .post(server.url("/v1/convert?to=glb"))
                .body(robot.clone())
                .send()
                .await
                .unwrap();
            if r.status() != 503 {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("a client is served once hogs leave");
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap(), glb);

    // The others finish their heads: each gets an answer, 200 or 503.
    let answers = futures_util::stream::iter(rest)
        .map(|mut s| async move {
            let _ = s.write_all(b"Connection: close\r\n\r\n").await;
            read_raw_response(&mut s).await.map(|(status, _, _)| status)
        })
        .buffer_unordered(64)
        .collect::<Vec<_>>()
        .await;
    let mut by_status = std::collections::BTreeMap::new();
    for a in &answers {
        *by_status.entry(*a).or_insert(0) += 1;
    }
    assert!(
        by_status.keys().all(|s| matches!(s, Some(200) | Some(503))),
        "{by_status:?}"
    );
    assert!(by_status.contains_key(&Some(200)), "{by_status:?}");

    // Still healthy, and the memory the connections took is bounded.
    let r = client.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let peak = server.peak_memory();
    let growth = peak.saturating_sub(baseline);
    println!(
        "{n} connections (limit {limit}): peak RSS {} MiB, {} MiB over the {} MiB baseline, answers {by_status:?}",
        peak >> 20,
        growth >> 20,
        baseline >> 20
    );
    assert!(
        growth <= n as u64 * PER_CONNECTION + (32 << 20),
        "peak memory grew by {growth} bytes for {n} connections"
    );
}

// --- glTF URIs ------------------------------------------------------------

/// A `.gltf` whose buffers and images name files, other hosts, or a listener
/// of this test's: every buffer URI is refused (422) without being followed,
/// images are never read, and the listener never sees a connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gltf_uris_are_never_followed() {
    let server = TestServer::start(config()).await;
    let trap = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    trap.set_nonblocking(true).unwrap();
    let port = trap.local_addr().unwrap().port();
    let options = mshconv_gltf::ExportOptions {
        format: mshconv_gltf::GltfFormat::Gltf,
        ..Default::default()
    };
    let robot = fixture("fixtures/small/models/m143_robot.msh");
    let (gltf, _) = mshconv_gltf::msh_to_gltf(&robot, &options).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&gltf).unwrap();
    let cwd_file = std::env::current_dir()
        .unwrap()
        .join("Cargo.toml")
        .to_string_lossy()
        .into_owned();
    let uris = [
        (
            format!("http://127.0.0.1:{port}/buffer.bin"),
            "gltf.uri_refused",
        ),
        (
            format!("https://127.0.0.1:{port}/buffer.bin"),
            "gltf.uri_refused",
        ),
        (format!("//127.0.0.1:{port}/buffer.bin"), "gltf.uri_refused"),
        (format!("http://localhost:{port}/a%2fb"), "gltf.uri_refused"),
        ("file:///etc/passwd".to_string(), "gltf.uri_refused"),
        (
            "file://localhost/etc/passwd".to_string(),
            "gltf.uri_refused",
        ),
        ("/etc/passwd".to_string(), "gltf.uri_refused"),
        (cwd_file, "gltf.uri_refused"),
        ("../../etc/passwd".to_string(), "gltf.uri_refused"),
        ("..%2f..%2fetc%2fpasswd".to_string(), "gltf.uri_refused"),
        ("C:\\Windows\\win.ini".to_string(), "gltf.uri_refused"),
        (
            "\\\\127.0.0.1\\share\\x.bin".to_string(),
            "gltf.uri_refused",
        ),
        ("Cargo.toml".to_string(), "gltf.missing_buffer"),
        ("buffer.bin".to_string(), "gltf.missing_buffer"),
        (".hidden".to_string(), "gltf.uri_refused"),
    ];
    let client = client();
    for (uri, code) in &uris {
        let mut d = doc.clone();
        d["buffers"][0]["uri"] = uri.as_str().into();
        // Raw, and as a multipart upload named like a file beside others.
        for multipart in [false, true] {
            let rb = client.post(server.url("/v1/convert?to=msh"));
            let body = serde_json::to_vec(&d).unwrap();
            let rb = if multipart {
                rb.multipart(form(body, "model.gltf"))
            } else {
                rb.body(body)
            };
            let p = problem(rb.send().await.unwrap(), 422, code).await;
            assert!(p["detail"].is_string(), "{uri}: {p}");
        }
    }
    // Images: never read, whatever they name (the conversion does not need them).
    let mut d = doc.clone();
    d["images"] = serde_json::json!([
        {"uri": format!("http://127.0.0.1:{port}/texture.png")},
        {"uri": "file:///etc/passwd"},
        {"uri": "/dev/zero"}
    ]);
    d["textures"] = serde_json::json!([{"source": 0}, {"source": 1}, {"source": 2}]);
    let r = client
        .post(server.url("/v1/convert?to=msh"))
        .body(serde_json::to_vec(&d).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap(), robot);
    // A second buffer with a URI in a GLB: refused as well.
    let glb = library_glb(&robot, "model");
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut j: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    j["buffers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"byteLength": 4, "uri": format!("http://127.0.0.1:{port}/x")}));
    let mut json = serde_json::to_vec(&j).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut patched = glb[..12].to_vec();
    patched.extend_from_slice(&(json.len() as u32).to_le_bytes());
    patched.extend_from_slice(b"JSON");
    patched.extend_from_slice(&json);
    patched.extend_from_slice(&glb[20 + json_len..]);
    let total = patched.len() as u32;
    patched[8..12].copy_from_slice(&total.to_le_bytes());
    let r = client
        .post(server.url("/v1/convert?to=msh"))
        .body(patched)
        .send()
        .await
        .unwrap();
    problem(r, 422, "gltf.uri_refused").await;

    // Nothing ever knocked.
    match trap.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the trap listener was contacted: {other:?}"),
    }
    server.stop().await;
}

// --- Archives that claim gigabytes ---------------------------------------

/// An archive whose model entries all share one model's bytes (valid NRes):
/// `/v1/archive/convert` converted and zipped it once per entry (2,000 entries
/// in 416 KB made a 1.1 GB response). Past the upload's size it is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archive_entries_sharing_one_model_are_refused() {
    let server = Binary::start(&["--max-jobs", "2"]);
    let client = client();
    let mut bytes = fixture(ARCHIVE);
    let archive = nres::Archive::parse(&bytes).unwrap();
    let dir = archive.directory_offset();
    let models: Vec<(usize, u32, u32)> = archive
        .nested_models()
        .map(|e| (e.index(), e.data().len() as u32, e.data_offset()))
        .collect();
    assert!(models.len() > 2, "the fixture archive holds several models");
    // Every model entry names the largest model's payload.
    let &(_, size, offset) = models.iter().max_by_key(|m| m.1).unwrap();
    for &(index, _, _) in &models {
        bytes[dir + index * 64 + 12..dir + index * 64 + 16].copy_from_slice(&size.to_le_bytes());
        bytes[dir + index * 64 + 56..dir + index * 64 + 60].copy_from_slice(&offset.to_le_bytes());
    }
    let parsed = nres::Archive::parse(&bytes).expect("still a valid archive");
    assert!(parsed.payload_total() > bytes.len() as u64);
    let r = client
        .post(server.url("/v1/archive/convert?to=glb"))
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 422);
    let p: serde_json::Value = r.json().await.unwrap();
    assert_eq!(p["code"], "archive.entries_overlap", "{p}");
}

/// NRes archives whose header or directory claim gigabytes, and zip files
/// whose headers do: the service (it never reads zip input) refuses each
/// cleanly (4xx, or a 200 validation report naming the damage), and the real
/// binary's peak memory grows by less than 32 MiB over all of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archives_claiming_gigabytes_are_refused_without_allocating() {
    let server = Binary::start(&["--max-jobs", "2"]);
    let client = client();
    let base = fixture(ARCHIVE);
    let archive = nres::Archive::parse(&base).unwrap();
    let dir = archive.directory_offset();
    let count = archive.len();
    let model = archive
        .nested_models()
        .next()
        .map(|e| e.name())
        .expect("a model in the archive");
    // Warm up.
    let r = client
        .post(server.url("/v1/archive/list"))
        .body(base.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let baseline = server.peak_memory();

    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    let set = |bytes: &[u8], at: usize, value: u32| {
        let mut b = bytes.to_vec();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        b
    };
    for value in [0x7FFF_FFFFu32, 0xFFFF_FFFF, 1 << 31] {
        inputs.push((format!("entry count {value:#x}"), set(&base, 8, value)));
        inputs.push((format!("total size {value:#x}"), set(&base, 12, value)));
        for index in [0, count / 2, count - 1] {
            // Size, then data offset, of a directory entry.
            inputs.push((
                format!("entry {index} size {value:#x}"),
                set(&base, dir + index * 64 + 12, value),
            ));
            inputs.push((
                format!("entry {index} offset {value:#x}"),
                set(&base, dir + index * 64 + 56, value),
            ));
        }
    }
    // A 1 KB file claiming 2^31 - 1 entries.
    let mut tiny = vec![0u8; 1024];
    tiny[..4].copy_from_slice(b"NRes");
    tiny[4..8].copy_from_slice(&0x100u32.to_le_bytes());
    tiny[8..12].copy_from_slice(&i32::MAX.to_le_bytes());
    tiny[12..16].copy_from_slice(&1024u32.to_le_bytes());
    inputs.push(("1 KB claiming 2^31 - 1 entries".into(), tiny));
    // Zip files: a stored entry whose header claims 4 GiB, one with a zip64
    // extra field claiming 2^60 bytes, and an end record claiming 65535 entries.
    for (label, zip) in zips() {
        inputs.push((label, zip));
    }

    let entry_q = format!("entry={model}");
    let paths = [
        "/v1/archive/list".to_string(),
        "/v1/archive/list?tolerant=true".to_string(),
        "/v1/archive/convert?to=glb".to_string(),
        format!("/v1/validate?{entry_q}"),
        format!("/v1/validate?tolerant=true&{entry_q}"),
        format!("/v1/convert?to=glb&{entry_q}"),
        format!("/v1/inspect?tolerant=true&{entry_q}"),
        "/v1/convert?to=glb".to_string(),
        "/v1/convert?to=msh".to_string(),
        "/v1/validate".to_string(),
    ];
    let mut seen = std::collections::BTreeMap::new();
    for (label, bytes) in &inputs {
        for path in &paths {
            let r = client
                .post(server.url(path))
                .body(bytes.clone())
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let body = r.bytes().await.unwrap();
            assert!(
                (400..500).contains(&status) || status == 200,
                "{label} to {path}: {status} {}",
                String::from_utf8_lossy(&body)
            );
            if status >= 400 {
                let p: serde_json::Value = serde_json::from_slice(&body).unwrap();
                *seen
                    .entry(format!("{status} {}", p["code"].as_str().unwrap()))
                    .or_insert(0) += 1;
            } else {
                *seen.entry("200".to_string()).or_insert(0) += 1;
            }
        }
    }
    // The zips, in particular, are never taken for archives.
    for (label, zip) in zips() {
        let r = client
            .post(server.url("/v1/convert?to=glb"))
            .body(zip.clone())
            .send()
            .await
            .unwrap();
        problem(r, 415, "input.unknown_format").await;
        let r = client
            .post(server.url("/v1/archive/list"))
            .body(zip)
            .send()
            .await
            .unwrap();
        let p = problem(r, 422, "nres.bad_magic").await;
        assert!(p["detail"].is_string(), "{label}");
    }
    let r = client.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let growth = server.peak_memory().saturating_sub(baseline);
    println!(
        "{} inputs x {} endpoints: {seen:?}; peak memory grew by {} KiB",
        inputs.len(),
        paths.len(),
        growth >> 10
    );
    assert!(growth < 32 << 20, "peak memory grew by {growth} bytes");
}

/// Zip files whose headers claim far more than they hold.
fn zips() -> Vec<(String, Vec<u8>)> {
    use std::io::Write as _;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    w.start_file("model.msh", options).unwrap();
    w.write_all(&fixture("fixtures/small/models/m143_robot.msh"))
        .unwrap();
    let good = w.finish().unwrap().into_inner();
    let local = 0;
    let central = find(&good, b"PK\x01\x02").unwrap();
    let end = find(&good, b"PK\x05\x06").unwrap();
    let set = |at: usize, bytes: &[u8]| {
        let mut b = good.clone();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        b
    };
    let mut zip64 = good.clone();
    // A zip64 extra field (id 1) claiming 2^60 bytes, after the local header's name.
    let name_len = u16::from_le_bytes([good[local + 26], good[local + 27]]) as usize;
    let extra = [
        &1u16.to_le_bytes()[..],
        &16u16.to_le_bytes(),
        &(1u64 << 60).to_le_bytes(),
        &(1u64 << 60).to_le_bytes(),
    ]
    .concat();
    zip64.splice(
        local + 30 + name_len..local + 30 + name_len,
        extra.iter().copied(),
    );
    zip64[local + 28..local + 30].copy_from_slice(&(extra.len() as u16).to_le_bytes());
    zip64[local + 18..local + 26].copy_from_slice(&[0xFF; 8]);
    vec![
        ("zip: local sizes 4 GiB".into(), set(local + 18, &[0xFF; 8])),
        (
            "zip: central sizes 4 GiB".into(),
            set(central + 20, &[0xFF; 8]),
        ),
        (
            "zip: 65535 entries, directory at 4 GiB".into(),
            set(
                end + 8,
                &[
                    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                ],
            ),
        ),
        ("zip: zip64 extra claiming 2^60 bytes".into(), zip64),
    ]
}
