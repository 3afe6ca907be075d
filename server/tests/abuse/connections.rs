//! The real binary under a thousand connections at once: each gets an answer
//! or a 503, and its peak memory (read from /proc) stays bounded.

use super::*;
use futures_util::StreamExt as _;
use std::time::Duration;

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
