//! The service in a memory cgroup with the limit the Dockerfile gives
//! (`docker run --memory 1g`), as a container runs it: everything heavy at
//! once, then the service must still be up (not killed by the kernel), its
//! cgroup never at its limit, and it serves an ordinary conversion. The
//! figure is the cgroup's own peak (`memory.max_usage_in_bytes`), which
//! counts the memory used, where an address-space limit counts the memory
//! reserved. Needs cgroup v1's memory controller, writable (root); without
//! it the test says why and passes.

use super::*;
use std::path::PathBuf;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The limit the Dockerfile and README give: `--memory 1g`.
const LIMIT: u64 = 1 << 30;

/// How long the requests refused as busy are sent again.
const PRESSURE: std::time::Duration = std::time::Duration::from_secs(20);

/// A memory cgroup (v1) of the test's own, with a limit; removed when
/// dropped (after the process in it has ended: declare it before the
/// [`Binary`], which is then dropped first).
struct Cgroup {
    dir: PathBuf,
}

impl Cgroup {
    /// A new cgroup under the memory controller's mount, limited to `limit`
    /// bytes of memory, and of memory and swap together when the kernel
    /// counts swap (so it cannot swap around the limit); `Err` says why it
    /// cannot be made.
    fn create(limit: u64) -> Result<Cgroup, String> {
        let mounts = std::fs::read_to_string("/proc/self/mounts")
            .map_err(|e| format!("cannot read /proc/self/mounts: {e}"))?;
        let root = mounts
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|f| f.len() > 3 && f[2] == "cgroup" && f[3].split(',').any(|o| o == "memory"))
            .map(|f| PathBuf::from(f[1]))
            .ok_or("no cgroup v1 memory controller is mounted")?;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = root.join(format!("mshconv-test-{}-{stamp}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let cgroup = Cgroup { dir };
        cgroup.write("memory.limit_in_bytes", limit)?;
        if cgroup.dir.join("memory.memsw.limit_in_bytes").exists() {
            cgroup.write("memory.memsw.limit_in_bytes", limit)?;
        }
        Ok(cgroup)
    }

    /// A cgroup of [`LIMIT`] for a test, or `None` when none can be made
    /// (the test is then skipped: it says why and passes).
    fn for_test() -> Option<Cgroup> {
        Cgroup::create(LIMIT)
            .inspect_err(|why| println!("skipped: no memory cgroup for the test ({why})"))
            .ok()
    }

    /// Checks that the kernel killed nothing in the cgroup, that it never
    /// reached its limit, and that its peak is at most `bound`.
    fn assert_within(&self, bound: u64) {
        assert_eq!(
            self.oom_kills(),
            0,
            "the kernel killed a process of the cgroup"
        );
        assert_eq!(
            self.number("memory.failcnt"),
            0,
            "the cgroup reached its limit"
        );
        let peak = self.number("memory.max_usage_in_bytes");
        assert!(peak <= bound, "{} MiB", peak / MIB);
    }

    fn write(&self, file: &str, value: u64) -> Result<(), String> {
        std::fs::write(self.dir.join(file), value.to_string())
            .map_err(|e| format!("cannot write {file}: {e}"))
    }

    /// A file of the cgroup's, whole.
    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.dir.join(file)).unwrap()
    }

    /// A file of the cgroup's that holds one number.
    fn number(&self, file: &str) -> u64 {
        self.read(file).trim().parse().unwrap()
    }

    /// How many processes the kernel killed for the cgroup's limit
    /// (`oom_kill` in `memory.oom_control`; 0 on kernels that do not say).
    fn oom_kills(&self) -> u64 {
        self.read("memory.oom_control")
            .lines()
            .find_map(|l| l.strip_prefix("oom_kill "))
            .map_or(0, |n| n.trim().parse().unwrap())
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // Empty once the process has been reaped; the kernel may take a
        // moment to let the folder go.
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        eprintln!("could not remove the cgroup {}", self.dir.display());
    }
}

/// What one request got: its status and problem code (`None` when the
/// connection closed without an answer).
type Got = Option<(u16, String)>;

/// `body` posted to the binary at `addr`: the status and the problem's code.
async fn answer(
    addr: std::net::SocketAddr,
    path: &str,
    content_type: String,
    body: bytes::Bytes,
) -> Got {
    let r = patient()
        .post(format!("http://{addr}{path}"))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .ok()?;
    let status = r.status().as_u16();
    let bytes = r.bytes().await.ok()?;
    let code = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|p| p["code"].as_str().map(str::to_string))
        .unwrap_or_default();
    Some((status, code))
}

/// [`answer`], sent again a second after each 503 `server.busy` (its
/// `Retry-After`) or connection closed without an answer, until `until`,
/// as a client that keeps trying does: what it got last and how many times
/// it was sent.
async fn retried(
    addr: std::net::SocketAddr,
    path: &'static str,
    content_type: String,
    body: bytes::Bytes,
    until: std::time::Instant,
) -> (Got, usize) {
    let mut sent = 1;
    loop {
        let got = answer(addr, path, content_type.clone(), body.clone()).await;
        let again = match &got {
            None => true,
            Some((status, code)) => *status == 503 && code == "server.busy",
        };
        if !again || std::time::Instant::now() >= until {
            return (got, sent);
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        sent += 1;
    }
}

/// A slow client: a head declaring a 64 MiB body to `/v1/archive/convert`,
/// then a byte every 200 ms until the server answers or closes. What it got.
async fn slow_client(addr: std::net::SocketAddr) -> Got {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let head =
        "POST /v1/archive/convert?to=glb HTTP/1.1\r\nHost: t\r\nContent-Length: 67108864\r\n\r\nN";
    write.write_all(head.as_bytes()).await.unwrap();
    let trickle = tokio::spawn(async move {
        loop {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            if write.write_all(b"R").await.is_err() {
                return;
            }
        }
    });
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let _ = tokio::time::timeout(GUARD, async {
        while let Ok(n @ 1..) = read.read(&mut buf).await {
            data.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    trickle.abort();
    let end = find(&data, b"\r\n\r\n")?;
    let status = String::from_utf8_lossy(&data[..end])
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    let code = ["request.too_slow", "server.busy"]
        .into_iter()
        .find(|c| find(&data[end..], c.as_bytes()).is_some())
        .unwrap_or_default();
    Some((status, code.to_string()))
}

/// Checks that the binary answers a small model's conversion with the
/// library's bytes.
async fn serves_a_conversion(server: &Binary) {
    let small = fixture(WALKER);
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .body(small.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap(), library_glb(&small, "model"));
}

/// The binary's `mshconv_jobs_in_flight`.
async fn jobs_in_flight(server: &Binary) -> u64 {
    let text = client()
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("mshconv_jobs_in_flight "))
        .and_then(|n| n.trim().parse().ok())
        .expect("mshconv_jobs_in_flight in /metrics")
}

/// The service's memory bound as docs/ROBUSTNESS.md states it: about
/// 20 MiB idle + `--max-buffered` + `--max-jobs` x (64 MiB + 3 x
/// `--max-body`) + 192 KiB per connection.
fn stated_bound(max_jobs: u64, connections: u64) -> u64 {
    let max_body = 64 * MIB;
    let max_buffered = max_body * (max_jobs + 2);
    20 * MIB + max_buffered + max_jobs * (64 * MIB + 3 * max_body) + connections * 192 * 1024
}

/// The binary with its default limits (`--max-jobs 2`, what two CPUs give)
/// in a 1 GiB memory cgroup, sent at once: 16 uploads near `--max-body` to
/// the heaviest requests of the table in docs/ROBUSTNESS.md (a 58 MiB
/// texture to convert, an archive of a million entries to list, 60 MiB of
/// models to put into and to convert, four of each), 100 textured models to
/// convert, the archives of issue 38 whose entries share one payload (to
/// put and to convert), and 64 slow clients each declaring 64 MiB; for 20 s
/// each request refused as busy is sent again a second later, so the slots
/// and the body budget stay full. Each gets its answer (200, or 422 for the
/// archives refused) or a 503 (busy, or past its deadline), one of the table
/// ran in a slot, and the slow clients get 408 or 503 (or are closed). Then, the jobs done: the process is running,
/// the kernel killed nothing and the cgroup never reached its limit
/// (`memory.failcnt` 0), its peak is within the bound docs/ROBUSTNESS.md
/// states, and a small conversion is answered 200 with the library's bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_under_its_container_limit_survives_everything_at_once() {
    let Some(cgroup) = Cgroup::for_test() else {
        return;
    };
    let mut server = Binary::start_limited(Limit::Cgroup(&cgroup.dir), &["--max-jobs", "2"]);
    let small = fixture(WALKER);
    let r = answer(
        server.addr,
        "/v1/convert?to=glb",
        "application/octet-stream".into(),
        small.clone().into(),
    )
    .await;
    assert_eq!(r, Some((200, String::new())));
    let idle = cgroup.number("memory.usage_in_bytes");

    let octets = || "application/octet-stream".to_string();
    let (texture_type, texture) = texture_upload();
    let (_, entries) = million_empty_entries();
    let (_, models) = sixty_mib_of_models();
    let (put_type, put) = multipart(&[
        ("archive", "units.rlb", &models),
        ("file", "walker.msh", &small),
    ]);
    let heavy: [(&str, String, bytes::Bytes); 4] = [
        ("/v1/convert?to=glb", texture_type, texture.into()),
        ("/v1/archive/list", octets(), entries.into()),
        ("/v1/archive/put?entry=W00000.MSH", put_type, put.into()),
        ("/v1/archive/convert?to=glb", octets(), models.into()),
    ];
    let (textured_type, textured) = textured_models_upload();
    let mut requests: Vec<(&str, String, bytes::Bytes, &[u16])> = Vec::new();
    for _ in 0..4 {
        for (path, content_type, body) in &heavy {
            requests.push((path, content_type.clone(), body.clone(), &[200]));
        }
    }
    requests.push((
        "/v1/archive/convert?to=glb",
        textured_type,
        textured.into(),
        &[422],
    ));
    for (_, _, shared) in shared_payload_requests() {
        for (path, content_type, body) in shared {
            requests.push((path, content_type, body.into(), &[422]));
        }
    }

    let slow: Vec<_> = (0..64)
        .map(|_| tokio::spawn(slow_client(server.addr)))
        .collect();
    let until = std::time::Instant::now() + PRESSURE;
    let sent: Vec<_> = requests
        .iter()
        .map(|(path, content_type, body, _)| {
            let (content_type, body) = (content_type.clone(), body.clone());
            tokio::spawn(retried(server.addr, path, content_type, body, until))
        })
        .collect();
    let mut tally = std::collections::BTreeMap::<(String, Got), usize>::new();
    let mut tries = 0;
    for ((path, _, _, expected), request) in requests.iter().zip(sent) {
        let (got, sent) = request.await.unwrap();
        tries += sent;
        if let Some((status, code)) = &got {
            let refused =
                *status == 503 && ["server.busy", "server.timeout"].contains(&code.as_str());
            assert!(
                expected.contains(status) || refused,
                "{path}: {status} {code}"
            );
        }
        *tally.entry((path.to_string(), got)).or_default() += 1;
    }
    // Real work was done under the limit: a request of the table ran in a slot
    // (served, or past its deadline while its work ran on).
    let ran = tally.iter().any(|((path, got), _)| {
        heavy.iter().any(|(p, _, _)| p == path)
            && matches!(got, Some((200, _)))
                | matches!(got, Some((503, c)) if c == "server.timeout")
    });
    assert!(ran, "{tally:?}");
    for client in slow {
        let got = client.await.unwrap();
        assert!(
            matches!(got.as_ref().map(|(s, _)| s), None | Some(408 | 503)),
            "a slow client got {got:?}"
        );
        *tally.entry(("slow client".into(), got)).or_default() += 1;
    }
    // Work past its deadline runs on: its memory counts until it is done.
    tokio::time::timeout(GUARD, async {
        while jobs_in_flight(&server).await > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the jobs end within the guard time");

    let ended = server.child.try_wait().unwrap();
    assert!(ended.is_none(), "the service ended: {ended:?}");
    let peak = cgroup.number("memory.max_usage_in_bytes");
    let failures = cgroup.number("memory.failcnt");
    let kills = cgroup.oom_kills();
    // Every request's connection and every slow client's, the warm-up's
    // and the metrics' at most.
    let connections = (requests.len() + 64 + 2) as u64;
    let bound = stated_bound(2, connections);
    println!(
        "in a {} MiB cgroup: {} MiB after a small conversion, peak {} MiB \
         (stated bound {} MiB for {connections} connections); \
         {failures} times at the limit, {kills} killed",
        LIMIT / MIB,
        idle / MIB,
        peak / MIB,
        bound / MIB
    );
    println!(
        "  the {} requests were sent {tries} times in all; last answers:",
        requests.len()
    );
    for ((what, got), n) in &tally {
        println!("  {what}: {got:?} x {n}");
    }
    cgroup.assert_within(bound);
    // Still serving: an ordinary conversion, the library's bytes.
    serves_a_conversion(&server).await;
}

/// One request whose answer is never read past its head: sent on a raw
/// connection (again a second after each 503 or close, until `until`), and
/// once the head of a 200 has come, the connection is kept open with the
/// rest of the answer unread. That connection, when it got a 200.
async fn unread_answer(
    addr: std::net::SocketAddr,
    path: &str,
    content_type: &str,
    body: bytes::Bytes,
    until: std::time::Instant,
) -> Option<tokio::net::TcpStream> {
    loop {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let (mut read, mut write) = stream.split();
        let send = async {
            // A refused body: the server closes while it is sent.
            if write.write_all(head.as_bytes()).await.is_ok() {
                let _ = write.write_all(&body).await;
            }
        };
        let status = async {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while find(&head, b"\r\n\r\n").is_none() {
                match read.read(&mut byte).await {
                    Ok(1) => head.push(byte[0]),
                    _ => return None,
                }
            }
            let head = String::from_utf8_lossy(&head).to_string();
            head.split_whitespace().nth(1)?.parse::<u16>().ok()
        };
        let ((), status) = tokio::join!(send, status);
        if status == Some(200) {
            return Some(stream);
        }
        drop(stream);
        if std::time::Instant::now() >= until {
            return None;
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

/// Clients that read the head of their answer and never the rest (issue
/// 38): 24 puts into an archive of 60 MiB of models, each answer 60 MiB.
/// The answers stayed in memory outside every bound, and the 1 GiB
/// cgroup's kernel killed the service within 10 s. Now an answer holds its
/// bytes in the body budget (256 MiB) until they are sent: at most four
/// answers are held and the other requests get 503; the process runs,
/// nothing was killed, the cgroup never reached its limit, its peak is
/// within the stated bound, a small conversion is served beside the unread
/// answers, and once their clients go, a put is served again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_never_read_hold_no_memory_past_the_budget() {
    let Some(cgroup) = Cgroup::for_test() else {
        return;
    };
    // Answers untaken are dropped after --min-rate's period (abuse/slow.rs):
    // a long one here, so that the answers held stay held.
    let args = ["--max-jobs", "2", "--min-rate", "16KiB/10m"];
    let mut server = Binary::start_limited(Limit::Cgroup(&cgroup.dir), &args);
    let small = fixture(WALKER);
    let (_, models) = sixty_mib_of_models();
    let (content_type, put) = multipart(&[
        ("archive", "units.rlb", &models),
        ("file", "walker.msh", &small),
    ]);
    let put = bytes::Bytes::from(put);
    let path = "/v1/archive/put?entry=W00000.MSH";
    let until = std::time::Instant::now() + PRESSURE;
    let clients: Vec<_> = (0..24)
        .map(|_| {
            let (content_type, put, addr) = (content_type.clone(), put.clone(), server.addr);
            tokio::spawn(async move { unread_answer(addr, path, &content_type, put, until).await })
        })
        .collect();
    let mut held = Vec::new();
    for client in clients {
        held.extend(client.await.unwrap());
    }
    let ended = server.child.try_wait().unwrap();
    assert!(ended.is_none(), "the service ended: {ended:?}");
    // The answers are as large as the archive: four fit the budget.
    let budget = 64 * MIB * 4;
    let most = (budget / models.len() as u64) as usize;
    let peak = cgroup.number("memory.max_usage_in_bytes");
    let failures = cgroup.number("memory.failcnt");
    let kills = cgroup.oom_kills();
    let bound = stated_bound(2, 24 + 2);
    println!(
        "{} answers of {} MiB held unread; peak {} MiB (stated bound {} MiB); \
         {failures} times at the limit, {kills} killed",
        held.len(),
        models.len() as u64 / MIB,
        peak / MIB,
        bound / MIB
    );
    cgroup.assert_within(bound);
    assert!((1..=most).contains(&held.len()), "{} held", held.len());
    // Served beside the unread answers.
    serves_a_conversion(&server).await;
    // Their clients gone, the answers' budget is free: a put is served.
    drop(held);
    let again = std::time::Instant::now() + GUARD;
    let (got, _) = retried(server.addr, path, content_type, put, again).await;
    assert_eq!(got, Some((200, String::new())));
}
