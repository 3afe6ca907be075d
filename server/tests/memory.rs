//! Memory under pressure (docs/ROBUSTNESS.md): the bytes of request bodies
//! held across all requests stay within `--max-buffered` (a body past it is
//! answered 503 `server.busy` with `Retry-After`, and the budget comes back
//! when the requests holding it are done), and one request's peak memory
//! stays within the bound the docs state, measured on the real binary as its
//! peak resident set (`VmHWM`): a memory bound, not a timing assertion.
//! [`container`]: the whole service in a memory cgroup with the limit the
//! Dockerfile gives, everything heavy at once.

mod common;

#[path = "memory/container.rs"]
mod container;

use common::*;
use std::time::Duration;

/// A raw body of `len` bytes that `/v1/validate` reads (the walker, padded).
fn padded_walker(len: usize) -> Vec<u8> {
    let mut body = fixture(WALKER);
    body.resize(len, 0);
    body
}

async fn validate(base: String, body: reqwest::Body) -> reqwest::Response {
    client()
        .post(format!("{base}/v1/validate"))
        .body(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn bodies_past_the_budget_get_503_and_the_budget_comes_back() {
    const MIB: usize = 1 << 20;
    let server = TestServer::start(mshconv_server::Config {
        max_body: MIB,
        max_buffered: Some(2 * MIB),
        // The jobs hold their slots (and their bodies) long enough to look.
        job_delay: Duration::from_millis(1500),
        ..config()
    })
    .await;
    assert_eq!(server.state.body_budget().bytes(), 2 * MIB);
    let body = padded_walker(3 * MIB / 4);
    let held: Vec<_> = (0..2)
        .map(|_| tokio::spawn(validate(server.base.clone(), body.clone().into())))
        .collect();
    server.wait_for_jobs(2).await;
    assert_eq!(server.state.body_budget().available(), MIB / 2);
    // A third body with a length: refused before it is read.
    let r = validate(server.base.clone(), body.clone().into()).await;
    assert_eq!(r.headers()["retry-after"], "1");
    let p = problem(r, 503, "server.busy").await;
    assert!(
        p["detail"].as_str().unwrap().contains("--max-buffered"),
        "{p}"
    );
    // One without a length (chunked): refused once it outgrows the room left.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        body.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
    let stream = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let r = validate(server.base.clone(), stream).await;
    problem(r, 503, "server.busy").await;
    // Small bodies still fit.
    let r = validate(server.base.clone(), fixture(WALKER).into()).await;
    assert_eq!(r.status(), 200);
    for job in held {
        assert_eq!(job.await.unwrap().status(), 200);
    }
    // Done with them, the requests gave the budget back.
    assert_eq!(server.state.body_budget().available(), 2 * MIB);
    let r = validate(server.base.clone(), body.into()).await;
    assert_eq!(r.status(), 200);
    server.stop().await;
}

/// The bytes of a multipart body with these fields (name, file name, bytes).
fn multipart(fields: &[(&str, &str, &[u8])]) -> (String, Vec<u8>) {
    const BOUNDARY: &str = "mshconv-memory-test-boundary";
    let mut body = Vec::new();
    for (name, file, bytes) in fields {
        body.extend_from_slice(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={BOUNDARY}"), body)
}

/// A client that waits up to 10 minutes for an answer. No speed is
/// asserted: a loaded machine may take minutes in a debug build.
fn patient() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(std::time::Duration::from_secs(600))
        .build()
        .unwrap()
}

/// `body` posted to `path` of the binary with a patient client.
async fn post(server: &Binary, path: &str, content_type: &str, body: Vec<u8>) -> reqwest::Response {
    patient()
        .post(server.url(path))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap()
}

/// The binary's peak memory after one small conversion: what every process
/// holds (the allocator's arenas, the runtime's threads), the baseline.
async fn warmed_up_peak(server: &Binary) -> u64 {
    let warm = client()
        .post(server.url("/v1/convert?to=glb"))
        .body(fixture(WALKER))
        .send()
        .await
        .unwrap();
    assert_eq!(warm.status(), 200);
    server.peak_memory()
}

/// Checks that the real binary's peak memory while it answers one request
/// of `body` (after a small conversion, so that what every process holds is
/// in the baseline) grows by at most 64 MiB + 4 x the body, and that the
/// answer is 200; `what` names the request in the printed measurement.
async fn assert_peak_within_bound(what: &str, path: &str, content_type: &str, body: Vec<u8>) {
    // A debug build decodes a large texture slowly: time enough to finish
    // (the peak is read once the answer is there).
    let server = Binary::start(&["--max-jobs", "1", "--timeout", "10m"]);
    let baseline = warmed_up_peak(&server).await;
    let input = body.len() as u64;
    let r = post(&server, path, content_type, body).await;
    let status = r.status().as_u16();
    let answer = r.bytes().await.unwrap();
    let growth = server.peak_memory() - baseline;
    eprintln!(
        "{what}: baseline {} MiB, peak +{} MiB for a {} MiB body",
        baseline / MIB,
        growth / MIB,
        input / MIB
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    assert!(growth <= 64 * MIB + 4 * input, "+{} MiB", growth / MIB);
}

const MIB: u64 = 1 << 20;

/// The walker with `wear`, `materials` and a 58 MiB `textures` (one
/// 4096 x 3712 ARGB8888 texture), a multipart body: its type and bytes.
fn texture_upload() -> (String, Vec<u8>) {
    use mshconv_material::texm::{PixelFormat, Rgba8Image};
    let (width, height) = (4096u32, 3712u32);
    let pixels = (0..width * height)
        .flat_map(|i| [(i % 251) as u8, (i / 4096 % 253) as u8, 0x40, 0xff])
        .collect();
    let image = Rgba8Image {
        width,
        height,
        pixels,
    };
    let [wear, materials, textures] = walker_look(&image, PixelFormat::Argb8888);
    assert!(textures.len() as u64 > 58 * MIB, "{}", textures.len());
    let walker = fixture(WALKER);
    multipart(&[
        ("file", "m095_walker.msh", &walker),
        ("wear", "m095_walker.wea", &wear),
        ("materials", "Material.lib", &materials),
        ("textures", "Textures.lib", &textures),
    ])
}

#[tokio::test]
async fn a_58_mib_texture_upload_peaks_within_the_stated_bound() {
    let (content_type, body) = texture_upload();
    let what = "58 MiB texture upload";
    assert_peak_within_bound(what, "/v1/convert?to=glb", &content_type, body).await;
}

/// An archive of as many empty entries as 64 MiB of 64-byte directory
/// records hold (less the header): their count and the archive's bytes.
fn million_empty_entries() -> (usize, Vec<u8>) {
    use nres::{OwnedArchive, OwnedEntry, WriteMode};
    let count = (64 * MIB as usize - 16) / 64;
    let mut archive = OwnedArchive::new();
    for i in 0..count {
        archive.push(OwnedEntry::new(0, &format!("E{i:07}.TXT"), Vec::new()).unwrap());
    }
    archive.recompute_sort_index();
    let bytes = archive.write(WriteMode::Canonical).unwrap();
    assert!(bytes.len() as u64 <= 64 * MIB, "{}", bytes.len());
    (count, bytes)
}

#[tokio::test]
async fn listing_an_archive_of_a_million_empty_entries_peaks_within_the_stated_bound() {
    let (count, bytes) = million_empty_entries();
    let what = format!("archive/list of {count} entries");
    assert_peak_within_bound(&what, "/v1/archive/list", "application/octet-stream", bytes).await;
}

/// One upload of `len` zero bytes to `/v1/validate` over a raw connection,
/// as a slow client sends it: all but the last byte (in 1 MiB writes), then
/// it says so on `held` and waits for `release` before the last byte; the
/// answer is read all along. A refused upload stops sending when the server
/// closes (and says so too). The answer's status (`None`: closed without one).
async fn held_upload(
    addr: std::net::SocketAddr,
    len: usize,
    held: tokio::sync::mpsc::UnboundedSender<()>,
    mut release: tokio::sync::watch::Receiver<bool>,
) -> Option<u16> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let head = format!(
        "POST /v1/validate HTTP/1.1\r\nHost: test\r\nContent-Type: application/octet-stream\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
    );
    write.write_all(head.as_bytes()).await.unwrap();
    let send = async move {
        let chunk = vec![0u8; 1 << 20];
        let mut sent = 0;
        while sent + 1 < len {
            let n = chunk.len().min(len - 1 - sent);
            if write.write_all(&chunk[..n]).await.is_err() {
                // Refused: the server closed the connection.
                let _ = held.send(());
                return;
            }
            sent += n;
        }
        let _ = held.send(());
        let _ = release.wait_for(|go| *go).await;
        let _ = write.write_all(&[0]).await;
    };
    let answer = async move {
        let mut data = Vec::new();
        let mut buf = [0u8; 4096];
        while find(&data, b"\r\n\r\n").is_none() {
            match read.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => data.extend_from_slice(&buf[..n]),
            }
        }
        let head = String::from_utf8_lossy(&data).to_string();
        head.split_whitespace().nth(1).and_then(|s| s.parse().ok())
    };
    let (status, ()) = tokio::join!(answer, send);
    status
}

#[tokio::test]
async fn sixteen_slow_60_mib_uploads_hold_no_more_than_the_budget() {
    // Two job slots: a budget of 64 MiB x (2 + 2) = 256 MiB of bodies. The
    // bodies held wait for the last one to be held or refused: no least rate.
    let server = Binary::start(&["--max-jobs", "2", "--min-rate", "1/10m"]);
    let baseline = warmed_up_peak(&server).await;
    const LEN: usize = 60 << 20;
    const CLIENTS: usize = 16;
    let (held_tx, mut held_rx) = tokio::sync::mpsc::unbounded_channel();
    let (release_tx, release_rx) = tokio::sync::watch::channel(false);
    let uploads: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let upload = held_upload(server.addr, LEN, held_tx.clone(), release_rx.clone());
            tokio::spawn(upload)
        })
        .collect();
    // Every client is refused, or holds its body but the last byte.
    for _ in 0..CLIENTS {
        tokio::time::timeout(GUARD, held_rx.recv())
            .await
            .expect("every client sends its body or is refused")
            .unwrap();
    }
    let held = server.peak_memory() - baseline;
    release_tx.send(true).unwrap();
    let mut statuses = Vec::new();
    for upload in uploads {
        let status = tokio::time::timeout(GUARD, upload)
            .await
            .expect("every upload is answered")
            .unwrap();
        statuses.push(status);
    }
    let growth = server.peak_memory() - baseline;
    let ok = statuses.iter().filter(|s| **s == Some(200)).count();
    let busy = statuses.iter().filter(|s| **s == Some(503)).count();
    eprintln!(
        "{CLIENTS} slow uploads of 60 MiB: {ok} answered 200, {busy} 503; peak +{} MiB while held, +{} MiB in all",
        held / MIB,
        growth / MIB
    );
    assert_eq!(ok + busy, CLIENTS, "{statuses:?}");
    assert!(ok >= 1, "{statuses:?}");
    // The bodies held at once stay within the budget (without it, 16 x 60
    // MiB); what the service needs besides them is well under 64 MiB here.
    assert!(growth <= 256 * MIB + 64 * MIB, "+{} MiB", growth / MIB);
}

/// A request: its path, content type and body.
type Request = (&'static str, String, Vec<u8>);

/// The archives of issue 38 whose entries share one payload: 1,000 entries
/// on one 4 MB payload and 40,000 on one 39 KB model. For each, what it is,
/// the archive's size and two requests: put the walker into it as a new
/// entry, and convert it.
fn shared_payload_requests() -> [(&'static str, usize, [Request; 2]); 2] {
    let station = fixture("fixtures/small/models/m397_station.msh");
    let walker = fixture(WALKER);
    let requests = |archive: Vec<u8>| {
        let (content_type, body) = multipart(&[
            ("archive", "units.rlb", &archive),
            ("file", "walker.msh", &walker),
        ]);
        let len = archive.len();
        let put = ("/v1/archive/put?entry=NEW.MSH&add=true", content_type, body);
        let convert = (
            "/v1/archive/convert?to=glb",
            "application/octet-stream".to_string(),
            archive,
        );
        (len, [put, convert])
    };
    let (big, big_requests) = requests(shared_archive(&vec![7u8; 4 << 20], 1000));
    let (many, many_requests) = requests(shared_archive(&station, 40_000));
    [
        ("1,000 entries on one 4 MB payload", big, big_requests),
        ("40,000 entries on one 39 KB model", many, many_requests),
    ]
}

/// The address space the shared-payload test gives the binary: the limit
/// under which 1,000 entries on one 4 MB payload aborted it (issue 38).
const LIMIT: u64 = 3 << 30;

/// Archives whose entries share one payload, sent to every endpoint that
/// reads an archive's models or rewrites one, to the real binary under a
/// 3 GiB address-space limit: 1,000 entries on one 4 MB payload (aborted the
/// server, `memory allocation failed`) and 40,000 on one 39 KB model (1.9
/// GB). Each is answered 422 `archive.entries_overlap`, the server stays up
/// and serves an ordinary request after it, and its peak memory grows by at
/// most 64 MiB + 4 x the body.
#[tokio::test]
async fn archives_sharing_one_payload_are_refused_within_the_bound_under_a_memory_limit() {
    let server = Binary::start_limited(Limit::AddressSpace(LIMIT), &["--max-jobs", "1"]);
    let baseline = warmed_up_peak(&server).await;
    for (what, input, requests) in shared_payload_requests() {
        let input = input as u64;
        for (path, content_type, body) in requests {
            let r = post(&server, path, &content_type, body).await;
            problem(r, 422, "archive.entries_overlap").await;
            // Still up: an ordinary conversion is served.
            let growth = warmed_up_peak(&server).await - baseline;
            eprintln!(
                "{what} ({} KiB) to {path}: baseline {} MiB, peak +{} KiB",
                input / 1024,
                baseline / MIB,
                growth / 1024
            );
            assert!(
                growth <= 64 * MIB + 4 * input,
                "{what}: +{} MiB",
                growth / MIB
            );
        }
    }
}

/// 100 models (each its own copy of the walker and of its WEAR) that all
/// show one 1024 x 1024 noise texture (its PNG is as large as its pixels),
/// with `materials` and `textures`: a multipart body's type and bytes.
fn textured_models_upload() -> (String, Vec<u8>) {
    use mshconv_material::texm::{PixelFormat, Rgba8Image};
    let (width, height) = (1024u32, 1024u32);
    let pixels = (0..width * height)
        .flat_map(|i| i.wrapping_mul(2654435761).to_le_bytes())
        .collect();
    let image = Rgba8Image {
        width,
        height,
        pixels,
    };
    let [wear, materials, textures] = walker_look(&image, PixelFormat::Argb8888);
    let walker = fixture(WALKER);
    let mut payload = Vec::new();
    let mut entries: Vec<(String, std::ops::Range<u32>)> = Vec::new();
    for i in 0..100 {
        for (ext, bytes) in [("MSH", &walker), ("WEA", &wear)] {
            let start = payload.len() as u32;
            payload.extend_from_slice(bytes);
            entries.push((format!("W{i:03}.{ext}"), start..payload.len() as u32));
        }
    }
    let archive = by_bytes::archive_by_bytes(&payload, &entries);
    multipart(&[
        ("file", "units.rlb", &archive),
        ("materials", "Material.lib", &materials),
        ("textures", "Textures.lib", &textures),
    ])
}

/// `/v1/archive/convert` of many models that each show one large texture:
/// every model's GLB embeds it, so the zip would hold it once per model
/// (here 100 x a 4 MiB texture from a 6.6 MiB upload). The answer stops at
/// 32 MiB + 2 x the upload (422 `output.too_large`), the peak stays within
/// 64 MiB + 4 x the body, and the server serves the next request.
#[tokio::test]
async fn an_archive_whose_answer_would_pass_its_bound_is_refused() {
    let server = Binary::start_limited(
        Limit::AddressSpace(LIMIT),
        &["--max-jobs", "1", "--timeout", "10m"],
    );
    let baseline = warmed_up_peak(&server).await;
    let (content_type, body) = textured_models_upload();
    let input = body.len() as u64;
    let r = post(&server, "/v1/archive/convert?to=glb", &content_type, body).await;
    let p = problem(r, 422, "output.too_large").await;
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .contains("32 MiB + 2 x the upload"),
        "{p}"
    );
    // Still up: an ordinary conversion is served.
    let growth = warmed_up_peak(&server).await - baseline;
    eprintln!(
        "archive/convert of 100 textured models ({} KiB): baseline {} MiB, peak +{} MiB",
        input / 1024,
        baseline / MIB,
        growth / MIB
    );
    assert!(growth <= 64 * MIB + 4 * input, "+{} MiB", growth / MIB);
}

/// 60 MiB of distinct models (copies of the walker), each entry its own.
fn sixty_mib_of_models() -> (usize, Vec<u8>) {
    let walker = fixture(WALKER);
    let count = (60 * MIB as usize) / (walker.len() + 64);
    let mut payload = Vec::with_capacity(count * walker.len());
    let mut entries: Vec<(String, std::ops::Range<u32>)> = Vec::new();
    for i in 0..count {
        let start = payload.len() as u32;
        payload.extend_from_slice(&walker);
        entries.push((format!("W{i:05}.MSH"), start..payload.len() as u32));
    }
    (count, by_bytes::archive_by_bytes(&payload, &entries))
}

/// `/v1/archive/put` of an archive near `--max-body`, one model replaced:
/// the editor's copy of the archive and the archive written stay within
/// 64 MiB + 4 x the body.
#[tokio::test]
async fn putting_into_a_60_mib_archive_peaks_within_the_stated_bound() {
    let (count, archive) = sixty_mib_of_models();
    let (content_type, body) = multipart(&[
        ("archive", "units.rlb", &archive),
        ("file", "walker.msh", &fixture(WALKER)),
    ]);
    let what = format!("archive/put into {count} entries");
    assert_peak_within_bound(
        &what,
        "/v1/archive/put?entry=W00000.MSH",
        &content_type,
        body,
    )
    .await;
}

/// `/v1/archive/convert` of the same archive: every model converted into
/// one zip, within 64 MiB + 4 x the body.
#[tokio::test]
async fn converting_a_60_mib_archive_peaks_within_the_stated_bound() {
    let (count, archive) = sixty_mib_of_models();
    let what = format!("archive/convert of {count} models");
    let path = "/v1/archive/convert?to=glb";
    assert_peak_within_bound(&what, path, "application/octet-stream", archive).await;
}
