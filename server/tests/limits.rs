//! Limits over a real socket: 413 without reading the body, 503 when every
//! job slot is busy, the time limit (503 for work, 408 for a body), graceful
//! shutdown finishing a conversion in flight, and the real binary (SIGTERM,
//! `--healthcheck`).
//!
//! Slow work is made with `Config::job_delay` (a job holds its slot that much
//! longer); waits are for events (jobs in flight, log lines), each under a
//! generous guard that fails the test instead of hanging. Nothing asserts speed.

mod common;

use common::*;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

fn small_limit() -> mshconv_server::Config {
    mshconv_server::Config {
        max_body: 1024,
        ..config()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_length_over_the_limit_is_refused_before_the_body() {
    let server = TestServer::start(small_limit()).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    // Ten megabytes announced, not one byte sent: only a server that does not
    // wait for the body can answer.
    stream
        .write_all(
            b"POST /v1/convert?to=glb HTTP/1.1\r\nHost: test\r\nContent-Type: application/octet-stream\r\nContent-Length: 10000000\r\n\r\n",
        )
        .await
        .unwrap();
    let (status, head, body) = read_raw_response(&mut stream)
        .await
        .expect("a complete response");
    assert_eq!(status, 413, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/problem+json"),
        "{head}"
    );
    let p: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(p["code"], "request.too_large");
    // Nothing of the body was read.
    let metrics = server.state.metrics().render(4);
    assert!(
        metrics
            .lines()
            .any(|l| l == "mshconv_http_request_bytes_total{route=\"/v1/convert\"} 0"),
        "{metrics}"
    );

    // curl-style `Expect: 100-continue`: the answer is 413, never 100.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(
            b"POST /v1/validate HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n",
        )
        .await
        .unwrap();
    let (status, head, _) = read_raw_response(&mut stream)
        .await
        .expect("a complete response");
    assert_eq!(status, 413, "{head}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_body_is_read_only_up_to_the_limit() {
    let server = TestServer::start(small_limit()).await;
    // Chunked (no Content-Length): 4 chunks of 512 bytes.
    let mut request =
        b"POST /v1/validate HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..4 {
        request.extend_from_slice(b"200\r\n");
        request.extend_from_slice(&[b'x'; 512]);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(&request).await.unwrap();
    let (status, head, body) = read_raw_response(&mut stream)
        .await
        .expect("a complete response");
    assert_eq!(status, 413, "{head}");
    let p: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(p["code"], "request.too_large");

    // A reqwest stream body (chunked as well), and a multipart form over the limit.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..8).map(|_| Ok(vec![b'y'; 256])).collect();
    let r = client()
        .post(server.url("/v1/inspect"))
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    problem(r, 413, "request.too_large").await;
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .multipart(form(fixture(WALKER), "walker.msh"))
        .send()
        .await
        .unwrap();
    problem(r, 413, "request.too_large").await;

    // At the limit exactly: accepted (and then judged as a model).
    let r = client()
        .post(server.url("/v1/validate"))
        .body(vec![b'z'; 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["findings"][0]["code"], "nres.bad_magic", "{v}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_service_answers_503_and_recovers() {
    let server = TestServer::start(mshconv_server::Config {
        max_jobs: 1,
        // Far longer than the two requests below need, even on a slow machine.
        job_delay: Duration::from_secs(10),
        ..config()
    })
    .await;
    let walker = fixture(WALKER);
    let first = tokio::spawn({
        let url = server.url("/v1/convert?to=glb");
        let body = walker.clone();
        async move { client().post(url).body(body).send().await.unwrap() }
    });
    server.wait_for_jobs(1).await;
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["retry-after"], "1");
    problem(r, 503, "server.busy").await;
    // Other endpoints that take a slot are refused too; health is not.
    let r = client()
        .post(server.url("/v1/validate"))
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    problem(r, 503, "server.busy").await;
    let r = client().get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);

    let first = first.await.unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(first.bytes().await.unwrap(), library_glb(&walker, "model"));
    server.wait_for_jobs(0).await;
    let metrics = server.state.metrics().render(1);
    assert!(
        metrics
            .lines()
            .any(|l| l == "mshconv_jobs_rejected_total 2"),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn work_past_the_time_limit_is_503_and_frees_its_slot() {
    let server = TestServer::start(mshconv_server::Config {
        max_jobs: 1,
        timeout: Duration::from_secs(1),
        job_delay: Duration::from_secs(600),
        ..config()
    })
    .await;
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .body(fixture(WALKER))
        .send()
        .await
        .unwrap();
    let p = problem(r, 503, "server.timeout").await;
    assert!(
        p["detail"].as_str().unwrap().contains("limit of 1 s"),
        "{p}"
    );
    // The abandoned job gave its slot back.
    server.wait_for_jobs(0).await;
    let metrics = server.state.metrics().render(1);
    assert!(
        metrics.lines().any(
            |l| l == "mshconv_conversions_total{from=\"msh\",to=\"glb\",outcome=\"timeout\"} 1"
        ),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_does_not_arrive_in_time_is_408() {
    let server = TestServer::start(mshconv_server::Config {
        timeout: Duration::from_millis(300),
        ..config()
    })
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"POST /v1/validate HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nNRes")
        .await
        .unwrap();
    // The rest never comes.
    let (status, head, body) = read_raw_response(&mut stream)
        .await
        .expect("a complete response");
    assert_eq!(status, 408, "{head}");
    let p: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(p["code"], "request.timeout");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_finishes_a_conversion_in_flight() {
    let mut server = TestServer::start(mshconv_server::Config {
        job_delay: Duration::from_secs(5),
        ..config()
    })
    .await;
    let walker = fixture(WALKER);
    let in_flight = tokio::spawn({
        let url = server.url("/v1/convert?to=glb");
        let body = walker.clone();
        async move {
            let r = client().post(url).body(body).send().await.unwrap();
            (r.status().as_u16(), r.bytes().await.unwrap())
        }
    });
    server.wait_for_jobs(1).await;
    server.trigger_shutdown();
    // Wait until the server has taken the shutdown in (readyz can no longer be
    // asked over a new connection, so watch the state).
    tokio::time::timeout(GUARD, async {
        while !server.state.is_shutting_down() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("shutdown begins");
    assert!(
        !in_flight.is_finished(),
        "the conversion is still in flight when shutdown begins"
    );
    let (status, body) = in_flight.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(body, library_glb(&walker, "model"), "the whole GLB arrives");
    let addr = server.addr;
    server.stop().await;
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "no longer listening"
    );
}

/// The real binary: reads its log lines from stdout.
struct Child {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Child {
    fn spawn(args: &[&str]) -> Child {
        let (child, lines) = spawn_server(args);
        Child { child, lines }
    }

    /// The first log line containing `text`.
    fn wait_for_line(&self, text: &str) -> String {
        let deadline = std::time::Instant::now() + GUARD;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(e) => panic!("no log line with {text:?}: {e}"),
            }
        }
    }

    fn wait(&mut self) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + GUARD;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server exits within the guard time"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        // Only if a test failed midway: end the process this test started.
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Sends SIGTERM to a process this test started (the shell's `kill`).
fn sigterm(pid: u32) -> bool {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("kill -TERM {pid}"))
        .status()
        .is_ok_and(|s| s.success())
}

fn healthcheck(addr: &str) -> std::process::ExitStatus {
    std::process::Command::new(env!("CARGO_BIN_EXE_mshconv-server"))
        .args(["--healthcheck", "--addr", addr])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
}

#[test]
fn the_binary_serves_checks_health_and_stops_gracefully_on_sigterm() {
    let mut server = Child::spawn(&[
        "--addr",
        "127.0.0.1:0",
        "--max-body",
        "1M",
        "--max-jobs",
        "2",
    ]);
    let line = server.wait_for_line("listening on http://");
    let addr = line
        .rsplit("http://")
        .next()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert!(healthcheck(&addr).success(), "--healthcheck against {addr}");

    // A request in flight when SIGTERM arrives: half its body first. The
    // `100 Continue` proves the server has accepted the connection and its
    // handler is reading the body (without it, SIGTERM could win the race with
    // the accept, and a connection still in the backlog is never served).
    let walker = fixture(WALKER);
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream.set_read_timeout(Some(GUARD)).unwrap();
    use std::io::{Read, Write};
    write!(
        stream,
        "POST /v1/convert?to=glb&name=m095_walker HTTP/1.1\r\nHost: test\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        walker.len()
    )
    .unwrap();
    let mut interim = Vec::new();
    while find(&interim, b"\r\n\r\n").is_none() {
        let mut byte = [0u8; 1];
        assert_eq!(
            stream.read(&mut byte).unwrap(),
            1,
            "the server closed early"
        );
        interim.push(byte[0]);
    }
    assert!(
        interim.starts_with(b"HTTP/1.1 100"),
        "{}",
        String::from_utf8_lossy(&interim)
    );
    let half = walker.len() / 2;
    stream.write_all(&walker[..half]).unwrap();
    stream.flush().unwrap();
    assert!(sigterm(server.child.id()), "kill -TERM");
    server.wait_for_line("SIGTERM received");
    stream.write_all(&walker[half..]).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let end = find(&response, b"\r\n\r\n").expect("a response head");
    let head = String::from_utf8_lossy(&response[..end]);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(
        &response[end + 4..],
        &library_glb(&walker, "m095_walker")[..]
    );
    let status = server.wait();
    assert!(status.success(), "exit status {status:?}");
    assert!(
        !healthcheck(&addr).success(),
        "nothing answers after the shutdown"
    );
}

#[test]
fn the_binary_takes_its_address_from_the_environment_and_refuses_bad_flags() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mshconv-server"))
        .env("MSHCONV_ADDR", "127.0.0.1:0")
        .env("RUST_LOG", "info")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    {
        use std::io::BufRead;
        stdout.read_line(&mut first).unwrap();
    }
    assert!(sigterm(child.id()), "kill -TERM");
    let status = child.wait().unwrap();
    drop(stdout);
    assert!(first.contains("listening on http://127.0.0.1:"), "{first}");
    assert!(status.success());

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mshconv-server"))
        .args(["--max-jobs", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-jobs"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mshconv-server"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--healthcheck"));
}
