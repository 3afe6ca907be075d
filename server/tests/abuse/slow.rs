//! Slow clients against the body budget (issue 38): a body declared large
//! and sent a byte at a time held its whole `Content-Length` of
//! `--max-buffered` until `--timeout`, so four of them refused every other
//! upload (503) for 30 s; 32 large chunked uploads at once were all refused.
//! Now a body holds the bytes it received, and one slower than `--min-rate`
//! is cut off (408 `request.too_slow`). Real sockets on loopback; the tests
//! assert outcomes (who is served, who is cut off), never how long it took.

use super::*;
use futures_util::StreamExt as _;
use mshconv_server::config::MinRate;
use std::time::Duration;
use tokio::sync::mpsc;

const MIB: usize = 1 << 20;

/// How a slow client sends.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slow {
    /// A head declaring a 64 MiB body, then a byte of it every 100 ms.
    Declared,
    /// A chunked head, then a chunk of one byte every 100 ms.
    Chunked,
    /// A head sent a byte every 100 ms, never ended (slowloris).
    Head,
}

/// What a client got: the status and body of the answer, or `None` when the
/// server closed (or reset) the connection without a whole answer.
type Got = Option<(u16, Vec<u8>)>;

/// Reads until the server closes the connection: the answer, if one came.
async fn answer(read: &mut tokio::net::tcp::OwnedReadHalf) -> Got {
    let mut data = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        match read.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
    let end = find(&data, b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&data[..end]).to_string();
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, data[end + 4..].to_vec()))
}

/// One slow client of `kind` on `/v1/validate`: says on `started` once it
/// has sent its head (for `Head`, its first line) and its first byte of
/// body, then trickles until the server answers or closes (at most a
/// minute: the client stops by itself).
async fn slow_client(
    addr: std::net::SocketAddr,
    kind: Slow,
    started: mpsc::UnboundedSender<()>,
) -> Got {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let (head, each): (&[u8], &[u8]) = match kind {
        Slow::Declared => (
            b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: 67108864\r\n\r\nN",
            b"R",
        ),
        Slow::Chunked => (
            b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nN\r\n",
            b"1\r\nR\r\n",
        ),
        Slow::Head => (b"POST /v1/validate HTTP/1.1\r\n", b"X"),
    };
    write.write_all(head).await.unwrap();
    started.send(()).unwrap();
    let trickle = tokio::spawn(async move {
        for _ in 0..600 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if write.write_all(each).await.is_err() {
                return;
            }
        }
    });
    let got = tokio::time::timeout(GUARD, answer(&mut read))
        .await
        .expect("the server ends a slow client within the guard time");
    trickle.abort();
    got
}

/// `mshconv_http_requests_total` of `route` by status, as the service counts it.
fn answered(server: &TestServer, route: &str) -> std::collections::BTreeMap<u16, u64> {
    let prefix =
        format!("mshconv_http_requests_total{{route=\"{route}\",method=\"POST\",status=\"");
    server
        .state
        .metrics()
        .render(4)
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| {
            let (status, n) = l.split_once("\"} ")?;
            Some((status.parse().ok()?, n.parse().ok()?))
        })
        .collect()
}

/// `declared` slow clients each declaring 64 MiB (the whole budget is four
/// of them), two chunked and two slowloris heads, all trickling, against a
/// 256 MiB budget: while every slow body is being read, a small model's
/// conversion is answered 200 with the library's bytes; then every slow
/// body is answered 408 `request.too_slow` (or its connection closed after
/// it), every slow head is closed, and the whole budget is free again.
async fn an_ordinary_upload_is_served_beside(declared: usize) {
    let server = TestServer::start(mshconv_server::Config {
        max_body: 64 * MIB,
        max_buffered: Some(256 * MIB),
        min_rate: MinRate {
            bytes: 1024,
            per: Duration::from_secs(3),
        },
        header_timeout: Duration::from_secs(3),
        ..config()
    })
    .await;
    let kinds: Vec<Slow> = std::iter::repeat_n(Slow::Declared, declared)
        .chain([Slow::Chunked, Slow::Chunked, Slow::Head, Slow::Head])
        .collect();
    let bodies = kinds.iter().filter(|k| **k != Slow::Head).count();
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let clients: Vec<_> = kinds
        .iter()
        .map(|&kind| tokio::spawn(slow_client(server.addr, kind, started_tx.clone())))
        .collect();
    for _ in &kinds {
        tokio::time::timeout(GUARD, started.recv())
            .await
            .expect("every slow client starts")
            .unwrap();
    }
    // The service reads every slow body: each holds what it received of the
    // budget (1 KiB, its unit), where it held its declared 64 MiB before.
    let budget = server.state.body_budget();
    tokio::time::timeout(GUARD, async {
        while budget.bytes() - budget.available() < bodies * 1024 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the service reads every slow body");
    let held = budget.bytes() - budget.available();

    let robot = fixture("fixtures/small/models/m143_robot.msh");
    let began = std::time::Instant::now();
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .body(robot.clone())
        .send()
        .await
        .unwrap();
    let waited = began.elapsed();
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap(), library_glb(&robot, "model"));

    let mut got = Vec::new();
    for client in clients {
        got.push(client.await.unwrap());
    }
    for (kind, got) in kinds.iter().zip(&got) {
        match (kind, got) {
            (_, None) => {}
            (Slow::Head, Some((status, _))) => assert_eq!(*status, 408, "{kind:?}"),
            (_, Some((status, body))) => {
                assert_eq!(*status, 408, "{kind:?}: {}", String::from_utf8_lossy(body));
                assert!(find(body, b"\"request.too_slow\"").is_some(), "{kind:?}");
            }
        }
    }
    // The service's own count: every slow body was answered 408, nothing else.
    let statuses = answered(&server, "/v1/validate");
    assert_eq!(statuses, [(408, bodies as u64)].into(), "{statuses:?}");
    assert_eq!(budget.available(), budget.bytes());
    let cut = got.iter().filter(|g| g.is_some()).count();
    println!(
        "{} slow clients ({declared} declaring 64 MiB): {} KiB of the budget held; \
         an ordinary upload answered 200 in {} ms; {cut} slow clients read their 408, \
         the others were closed",
        kinds.len(),
        held / 1024,
        waited.as_millis()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_slow_clients_deny_no_upload() {
    an_ordinary_upload_is_served_beside(4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_slow_clients_deny_no_upload() {
    an_ordinary_upload_is_served_beside(16).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_slow_clients_deny_no_upload() {
    an_ordinary_upload_is_served_beside(64).await;
}

/// One chunked upload of `len` zero bytes to `/v1/validate` at a normal
/// rate (64 KiB every 5 ms, 12.5 MiB/s), the answer read all along.
async fn chunked_upload(addr: std::net::SocketAddr, len: usize) -> Got {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let send = tokio::spawn(async move {
        let head = b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
        write.write_all(head).await?;
        let mut chunk = format!("{:x}\r\n", 64 * 1024).into_bytes();
        chunk.resize(chunk.len() + 64 * 1024, 0);
        chunk.extend_from_slice(b"\r\n");
        let mut pace = tokio::time::interval(Duration::from_millis(5));
        pace.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        for _ in 0..len / (64 * 1024) {
            pace.tick().await;
            write.write_all(&chunk).await?;
        }
        write.write_all(b"0\r\n\r\n").await
    });
    let got = tokio::time::timeout(GUARD, answer(&mut read))
        .await
        .expect("every upload is answered or closed within the guard time");
    send.abort();
    got
}

/// 32 chunked uploads of 60 MiB at once against a 256 MiB budget (about
/// eight times it): the service reads them as they come and refuses those
/// that find the budget full (503 `server.busy`, what they held freed at
/// once), so some are read whole and served 200; every answer is 200 or
/// 503, and the whole budget is free again after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_chunked_60_mib_uploads_at_once_are_served_in_part() {
    let server = TestServer::start(mshconv_server::Config {
        max_body: 64 * MIB,
        max_buffered: Some(256 * MIB),
        max_jobs: 2,
        timeout: Duration::from_secs(120),
        ..config()
    })
    .await;
    let addr = server.addr;
    let got: Vec<Got> = futures_util::stream::iter(0..32)
        .map(|_| chunked_upload(addr, 60 * MIB))
        .buffer_unordered(32)
        .collect()
        .await;
    let mut by_status = std::collections::BTreeMap::<Option<u16>, usize>::new();
    for g in &got {
        *by_status.entry(g.as_ref().map(|(s, _)| *s)).or_default() += 1;
    }
    println!("32 chunked uploads of 60 MiB at once: {by_status:?} (None: closed)");
    assert!(
        by_status
            .keys()
            .all(|s| matches!(s, None | Some(200) | Some(503))),
        "{by_status:?}"
    );
    assert!(by_status.contains_key(&Some(200)), "{by_status:?}");
    // The service counted the same: some served, the rest refused as busy.
    let statuses = answered(&server, "/v1/validate");
    assert!(statuses.get(&200).is_some_and(|&n| n > 0), "{statuses:?}");
    assert!(
        statuses.keys().all(|s| matches!(s, 200 | 503)),
        "{statuses:?}"
    );
    let budget = server.state.body_budget();
    assert_eq!(budget.available(), budget.bytes());
    server.stop().await;
}

/// The real binary with `--min-rate 1KiB/500ms`: a client that sends 100 KiB
/// of a body declared 1 MiB and then stalls (it has sent plenty, then stops)
/// is answered 408 `request.too_slow`, the detail naming the flag's value,
/// and its connection is closed; the binary then serves a new client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_cuts_a_stalled_body_at_its_min_rate() {
    let server = Binary::start(&["--min-rate", "1KiB/500ms"]);
    let stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let mut request =
        b"POST /v1/validate HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n".to_vec();
    request.resize(request.len() + 100 * 1024, b'N');
    write.write_all(&request).await.unwrap();
    let got = tokio::time::timeout(GUARD, answer(&mut read))
        .await
        .expect("the stalled body is cut off within the guard time");
    let (status, body) = got.expect("an answer before the close");
    let body = String::from_utf8_lossy(&body);
    assert_eq!(status, 408, "{body}");
    assert!(body.contains("\"request.too_slow\""), "{body}");
    assert!(body.contains("--min-rate 1KiB/500ms"), "{body}");
    drop(write);
    let r = client().get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

/// A client that reads the head of its answer and never the rest: the
/// answer (a put into an archive of 32 MiB, answered with the archive)
/// holds its bytes in the body budget while it waits; once the client has
/// taken none of it for the `--min-rate` period (2 s here), the service
/// closes the connection and the whole budget is free again, the client
/// still connected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_the_client_never_reads_is_dropped_after_the_min_rate_period() {
    let server = TestServer::start(mshconv_server::Config {
        max_body: 64 * MIB,
        max_buffered: Some(256 * MIB),
        min_rate: MinRate {
            bytes: 1024,
            per: Duration::from_secs(2),
        },
        ..config()
    })
    .await;
    let payload = vec![0x5au8; 32 * MIB];
    let archive = by_bytes::archive_by_bytes(&payload, &[("BIG.TXT", 0..payload.len() as u32)]);
    const BOUNDARY: &str = "stall-test-boundary";
    let mut body = Vec::new();
    for (name, bytes) in [("archive", &archive), ("file", &fixture(WALKER))] {
        body.extend_from_slice(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{name}\"\r\n\r\n").as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    let head = format!(
        "POST /v1/archive/put?entry=NEW.MSH&add=true HTTP/1.1\r\nHost: t\r\n\
         Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    write.write_all(head.as_bytes()).await.unwrap();
    write.write_all(&body).await.unwrap();
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while find(&got, b"\r\n\r\n").is_none() {
        assert_eq!(read.read(&mut byte).await.unwrap(), 1, "the answer's head");
        got.push(byte[0]);
    }
    let got = String::from_utf8_lossy(&got).to_string();
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    // The answer, far larger than the socket's buffers, holds the budget.
    let budget = server.state.body_budget();
    assert!(
        budget.bytes() - budget.available() >= 16 * MIB,
        "{}",
        budget.available()
    );
    tokio::time::timeout(GUARD, async {
        while budget.available() < budget.bytes() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the unread answer is dropped");
    // The connection was closed: what the socket held, then its end.
    let mut rest = Vec::new();
    let ended = tokio::time::timeout(GUARD, read.read_to_end(&mut rest)).await;
    assert!(ended.is_ok(), "the connection ends");
    assert!(rest.len() < archive.len(), "{} bytes", rest.len());
    drop(write);
    server.stop().await;
}
