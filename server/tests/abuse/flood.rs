//! The flood: ten thousand requests from a fixed seed, malformed and random
//! ones (bad queries, content types, broken multipart, raw bytes) mixed with
//! valid ones whose answers must be exact; none may get a 500.

use super::*;
use futures_util::StreamExt as _;
use std::sync::Arc;

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
