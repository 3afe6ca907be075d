//! Memory under pressure (docs/ROBUSTNESS.md): the bytes of request bodies
//! held across all requests stay within `--max-buffered` (a body past it is
//! answered 503 `server.busy` with `Retry-After`, and the budget comes back
//! when the requests holding it are done), and one request's peak memory
//! stays within the bound the docs state, measured on the real binary as its
//! peak resident set (`VmHWM`): a memory bound, not a timing assertion.

mod common;

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

/// Checks that the real binary's peak memory while it answers one request
/// of `body` (after a small conversion, so that what every process holds is
/// in the baseline) grows by at most 64 MiB + 4 x the body, and that the
/// answer is 200; `what` names the request in the printed measurement.
async fn assert_peak_within_bound(what: &str, path: &str, content_type: &str, body: Vec<u8>) {
    // A debug build decodes a large texture slowly: time enough to finish
    // (the peak is read once the answer is there).
    let server = Binary::start(&["--max-jobs", "1", "--timeout", "10m"]);
    let warm = client()
        .post(server.url("/v1/convert?to=glb"))
        .body(fixture(WALKER))
        .send()
        .await
        .unwrap();
    assert_eq!(warm.status(), 200);
    let baseline = server.peak_memory();
    let input = body.len() as u64;
    // No speed is asserted: a loaded machine may take minutes in a debug build.
    let patient = reqwest::Client::builder()
        .no_proxy()
        .timeout(std::time::Duration::from_secs(600))
        .build()
        .unwrap();
    let r = patient
        .post(server.url(path))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
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

#[tokio::test]
async fn a_58_mib_texture_upload_peaks_within_the_stated_bound() {
    use mshconv_material::texm::{PixelFormat, Rgba8Image};
    // 4096 x 3712 ARGB8888: a 58 MiB Textures.lib, the walker's one texture.
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
    let (content_type, body) = multipart(&[
        ("file", "m095_walker.msh", &walker),
        ("wear", "m095_walker.wea", &wear),
        ("materials", "Material.lib", &materials),
        ("textures", "Textures.lib", &textures),
    ]);
    let what = "58 MiB texture upload";
    assert_peak_within_bound(what, "/v1/convert?to=glb", &content_type, body).await;
}

#[tokio::test]
async fn listing_an_archive_of_a_million_empty_entries_peaks_within_the_stated_bound() {
    use nres::{OwnedArchive, OwnedEntry, WriteMode};
    // 64 MiB less the header: as many 64-byte directory records as fit.
    let count = (64 * MIB as usize - 16) / 64;
    let mut archive = OwnedArchive::new();
    for i in 0..count {
        archive.push(OwnedEntry::new(0, &format!("E{i:07}.TXT"), Vec::new()).unwrap());
    }
    archive.recompute_sort_index();
    let bytes = archive.write(WriteMode::Canonical).unwrap();
    drop(archive);
    assert!(bytes.len() as u64 <= 64 * MIB, "{}", bytes.len());
    let what = format!("archive/list of {count} entries");
    assert_peak_within_bound(&what, "/v1/archive/list", "application/octet-stream", bytes).await;
}
