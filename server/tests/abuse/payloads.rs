//! Hostile payloads: glTF URIs that point at files or at a listener of the
//! test's (never followed), archives whose entries share one model, and
//! archives (and zips) that claim gigabytes.

use super::*;

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
