//! Every endpoint over a real loopback socket: raw and multipart uploads,
//! media types, file names, notes, request ids, and the errors 400/404/405/415/422.

mod common;

use common::*;
use std::collections::BTreeSet;

fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_msh_to_glb_raw_and_multipart() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    // Raw body: no file name, so the model is called `model`.
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "model/gltf-binary");
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"model.glb\""
    );
    assert_eq!(header(&r, "x-mshconv-from"), "msh");
    let notes: serde_json::Value = serde_json::from_str(&header(&r, "x-mshconv-notes")).unwrap();
    assert!(notes.is_array());
    assert_eq!(
        header(&r, "x-mshconv-notes-count"),
        notes.as_array().unwrap().len().to_string()
    );
    assert_eq!(r.bytes().await.unwrap(), library_glb(&walker, "model"));

    // Multipart: the file name's stem names the model (the CLI's rule).
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .multipart(form(walker.clone(), "m095_walker.msh"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"m095_walker.glb\""
    );
    assert_eq!(
        r.bytes().await.unwrap(),
        library_glb(&walker, "m095_walker")
    );

    // name= wins; the file name is sanitised, the scene name is kept.
    let r = client()
        .post(server.url("/v1/convert?to=glb&name=my%20tank%22"))
        .multipart(form(walker.clone(), "m095_walker.msh"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"my_tank_.glb\""
    );
    assert_eq!(r.bytes().await.unwrap(), library_glb(&walker, "my tank\""));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_passes_every_option() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let r = client()
        .post(
            server.url("/v1/convert?to=gltf&lod=1&group=0&fps=30&axis=z-up&rotation=stored&name=w"),
        )
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "model/gltf+json");
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"w.gltf\""
    );
    let expected = mshconv_gltf::msh_to_gltf(
        &walker,
        &mshconv_gltf::ExportOptions {
            lod: 1,
            group: 0,
            fps: 30.0,
            axis: mshconv_convert::Axis::ZUp,
            rotation: mshconv_convert::Rotation::Stored,
            format: mshconv_gltf::GltfFormat::Gltf,
            name: "w".to_string(),
            clips: None,
        },
    )
    .unwrap()
    .0;
    let body = r.bytes().await.unwrap();
    assert_eq!(body, expected);
    assert!(serde_json::from_slice::<serde_json::Value>(&body).is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_to_obj_is_a_zip_unless_a_part_is_asked_for() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let (expected, _) = mshconv_obj::msh_to_obj(
        &walker,
        &mshconv_obj::ObjExportOptions {
            mtl_name: "walker.mtl".to_string(),
            ..Default::default()
        },
    )
    .unwrap();
    let r = client()
        .post(server.url("/v1/convert?to=obj"))
        .multipart(form(walker.clone(), "walker.msh"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "application/zip");
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"walker.zip\""
    );
    let files = zip_files(&r.bytes().await.unwrap());
    assert_eq!(
        files,
        vec![
            ("walker.obj".to_string(), expected.obj.clone()),
            ("walker.mtl".to_string(), expected.mtl.clone())
        ]
    );
    for (part, data) in [("obj", &expected.obj), ("mtl", &expected.mtl)] {
        let r = client()
            .post(server.url(&format!("/v1/convert?to=obj&part={part}")))
            .multipart(form(walker.clone(), "walker.msh"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "content-type"), "text/plain; charset=utf-8");
        assert_eq!(
            header(&r, "content-disposition"),
            format!("attachment; filename=\"walker.{part}\"")
        );
        assert_eq!(&r.bytes().await.unwrap()[..], &data[..]);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_back_to_msh_from_glb_gltf_and_obj() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    // GLB and glTF made from a fixture come back as the identical file.
    for format in [
        mshconv_gltf::GltfFormat::Glb,
        mshconv_gltf::GltfFormat::Gltf,
    ] {
        let options = mshconv_gltf::ExportOptions {
            format,
            ..Default::default()
        };
        let (gltf, _) = mshconv_gltf::msh_to_gltf(&walker, &options).unwrap();
        let r = client()
            .post(server.url("/v1/convert?to=msh"))
            .multipart(form(gltf, "walker.bin"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{format:?}");
        assert_eq!(header(&r, "content-type"), "application/octet-stream");
        let expected_from = if format == mshconv_gltf::GltfFormat::Glb {
            "glb"
        } else {
            "gltf"
        };
        assert_eq!(header(&r, "x-mshconv-from"), expected_from);
        assert_eq!(
            header(&r, "content-disposition"),
            "attachment; filename=\"walker.msh\""
        );
        assert_eq!(r.bytes().await.unwrap(), walker, "{format:?}");
    }
    // OBJ with its MTL as a second multipart field.
    let (obj, _) = mshconv_obj::msh_to_obj(&walker, &Default::default()).unwrap();
    let expected = mshconv_obj::obj_to_msh(&obj.obj, Some(&obj.mtl), &Default::default())
        .unwrap()
        .0;
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(obj.obj.clone()).file_name("scene.obj"),
        )
        .part(
            "mtl",
            reqwest::multipart::Part::bytes(obj.mtl.clone()).file_name("model.mtl"),
        );
    let r = client()
        .post(server.url("/v1/convert?to=msh"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-mshconv-from"), "obj");
    let got = r.bytes().await.unwrap();
    assert_eq!(got, expected);
    assert!(msh::open(&got, msh::Mode::Strict).is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_overrides_sniffing() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let glb = library_glb(&walker, "model");
    // Told it is an MSH, a GLB is read as one and refused by the container reader.
    let r = client()
        .post(server.url("/v1/convert?to=obj&from=msh"))
        .body(glb.clone())
        .send()
        .await
        .unwrap();
    problem(r, 422, "nres.bad_magic").await;
    // Told correctly, it converts.
    let r = client()
        .post(server.url("/v1/convert?to=msh&from=glb"))
        .body(glb)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap(), walker);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_an_archive_entry() {
    let server = TestServer::start(config()).await;
    let rlb = fixture(ARCHIVE);
    let archive = nres::Archive::parse(&rlb).unwrap();
    let entry = archive.nested_models().next().unwrap();
    let stem = entry.name().rsplit_once('.').unwrap().0.to_string();
    // Names compare ASCII case-insensitively, as in the game.
    let url = server.url(&format!(
        "/v1/convert?to=glb&entry={}",
        entry.name().to_ascii_lowercase()
    ));
    let r = client()
        .post(url)
        .multipart(form(rlb.clone(), "small.rlb"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        header(&r, "content-disposition"),
        format!("attachment; filename=\"{stem}.glb\"")
    );
    assert_eq!(r.bytes().await.unwrap(), library_glb(entry.data(), &stem));

    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .body(rlb.clone())
        .send()
        .await
        .unwrap();
    let p = problem(r, 400, "request.entry_required").await;
    assert!(p["detail"].as_str().unwrap().contains(&entry.name()), "{p}");
    let r = client()
        .post(server.url("/v1/convert?to=glb&entry=NOPE.MSH"))
        .body(rlb)
        .send()
        .await
        .unwrap();
    problem(r, 400, "input.no_such_entry").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_reports_codes_paths_and_offsets() {
    let server = TestServer::start(config()).await;
    let mut failures = Vec::new();
    for (path, tolerant) in [
        (WALKER, false),
        (DAMAGED, false),
        (DAMAGED, true),
        ("fixtures/small/damaged/anim4__magic_bitflip.msh", false),
        ("fixtures/small/edge/sort_index_permuted.msh", false),
    ] {
        let bytes = fixture(path);
        let file = path.rsplit('/').next().unwrap();
        let r = client()
            .post(server.url(&format!("/v1/validate?tolerant={tolerant}")))
            .multipart(form(bytes.clone(), file))
            .send()
            .await
            .unwrap();
        if r.status() != 200 || header(&r, "content-type") != "application/json" {
            failures.push(format!("{path}: {} {:?}", r.status(), r.headers()));
            continue;
        }
        let got: serde_json::Value = r.json().await.unwrap();
        let mode = if tolerant {
            msh::Mode::Tolerant
        } else {
            msh::Mode::Strict
        };
        let expected =
            serde_json::to_value(mshconv_app::report::check(file, &bytes, mode)).unwrap();
        if got != expected {
            failures.push(format!("{path}: got {got}\nexpected {expected}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The damaged model's finding, as the README shows it.
    let r = client()
        .post(server.url("/v1/validate"))
        .body(fixture(DAMAGED))
        .send()
        .await
        .unwrap();
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["file"], "upload");
    assert_eq!(v["valid"], false);
    let f = &v["findings"][0];
    assert_eq!(f["code"], "batch.index_count");
    assert_eq!(f["path"], "Res13[0].index_count");
    assert_eq!(
        (f["resource"].as_u64(), f["record"].as_u64()),
        (Some(13), Some(0))
    );
    assert!(f["offset"].is_u64());

    // An archive entry is labelled ARCHIVE:ENTRY.
    let r = client()
        .post(server.url("/v1/validate?entry=m123_dome.msh"))
        .multipart(form(fixture(ARCHIVE), "small.rlb"))
        .send()
        .await
        .unwrap();
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["file"], "small.rlb:M123_DOME.MSH");
    assert_eq!(v["valid"], true);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspect_is_the_librarys_inspection() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let r = client()
        .post(server.url("/v1/inspect"))
        .multipart(form(walker.clone(), "m095_walker.msh"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "application/json");
    let got: serde_json::Value = r.json().await.unwrap();
    let opened = msh::open(&walker, msh::Mode::Strict).unwrap();
    let expected = mshconv_app::report::inspect("m095_walker.msh", &opened);
    assert_eq!(got, serde_json::to_value(&expected).unwrap());
    assert!(!got["nodes"].as_array().unwrap().is_empty());

    // Strict mode refuses a damaged model with the validator's code and location;
    // tolerant mode shows it.
    let damaged = fixture(DAMAGED);
    let r = client()
        .post(server.url("/v1/inspect"))
        .body(damaged.clone())
        .send()
        .await
        .unwrap();
    let p = problem(r, 422, "batch.index_count").await;
    assert_eq!(p["resource"], 13);
    assert_eq!(p["path"], "Res13[0].index_count");
    let r = client()
        .post(server.url("/v1/inspect?tolerant=true"))
        .body(damaged)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["findings"]["errors"], 1);

    // A GLB is another format: 415.
    let r = client()
        .post(server.url("/v1/inspect"))
        .body(library_glb(&walker, "m"))
        .send()
        .await
        .unwrap();
    problem(r, 415, "input.unknown_format").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pose_is_the_engines_sample() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let opened = msh::open(&walker, msh::Mode::Strict).unwrap();
    for t in ["2.5", "0", "-0.5", "1e9", "NaN"] {
        let r = client()
            .post(server.url(&format!("/v1/pose?time={t}")))
            .body(walker.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "time {t}");
        let got = r.text().await.unwrap();
        let time: f32 = t.parse().unwrap();
        let poses = msh::pose::local_poses(&opened.view, time).unwrap();
        let expected = mshconv_app::report::PoseDoc::new(&opened.view, time, &poses);
        // The same document, every f32 written the same way.
        assert_eq!(
            got,
            serde_json::to_string_pretty(&expected).unwrap() + "\n",
            "time {t}"
        );
        // Where the time falls, as `mshconv pose --json` says it.
        let v: serde_json::Value = serde_json::from_str(&got).unwrap();
        let frame = mshconv_app::report::FrameInfo::new(time, opened.view.frame_count);
        assert_eq!(v["frame"], frame.frame, "time {t}");
        assert_eq!(v["frame_count"], opened.view.frame_count, "time {t}");
        if t == "-0.5" {
            assert_eq!(
                (v["frame"].as_i64(), v["timeline"].as_str()),
                (Some(-1), Some("before"))
            );
        }
    }
    let r = client()
        .post(server.url("/v1/pose"))
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    problem(r, 400, "request.query").await;
    let r = client()
        .post(server.url("/v1/pose?time=1"))
        .multipart(form(
            fixture("fixtures/small/models/m211_mtcheck.msh"),
            "mt.msh",
        ))
        .send()
        .await
        .unwrap();
    let p = problem(r, 422, "msh.unsupported").await;
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .starts_with("mt.msh is a model with a legacy node table"),
        "{p}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archive_list_and_convert() {
    let server = TestServer::start(config()).await;
    let rlb = fixture(ARCHIVE);
    let archive = nres::Archive::parse(&rlb).unwrap();
    let r = client()
        .post(server.url("/v1/archive/list"))
        .multipart(form(rlb.clone(), "small.rlb"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let list: Vec<serde_json::Value> = r.json().await.unwrap();
    assert_eq!(list.len(), archive.len());
    for (row, e) in list.iter().zip(archive.entries()) {
        assert_eq!(row["name"], e.name());
        assert_eq!(row["index"], e.index());
        assert_eq!(row["type_id"], e.type_id());
        assert_eq!(row["size"], e.size());
        assert_eq!(row["offset"], e.data_offset());
        assert_eq!(row["sort_index"], e.sort_index());
    }

    // Every model as GLB, named after its entry, plus report.json.
    let r = client()
        .post(server.url("/v1/archive/convert?to=glb"))
        .multipart(form(rlb.clone(), "small.rlb"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "application/zip");
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"small.zip\""
    );
    let files = zip_files(&r.bytes().await.unwrap());
    let models: Vec<_> = archive.nested_models().collect();
    assert_eq!(files.len(), models.len() + 1);
    for ((name, data), entry) in files.iter().zip(&models) {
        let stem = entry.name().rsplit_once('.').unwrap().0.to_string();
        assert_eq!(name, &format!("{stem}.glb"));
        assert_eq!(data, &library_glb(entry.data(), &stem), "{name}");
    }
    let (name, report) = files.last().unwrap();
    assert_eq!(name, "report.json");
    let report: serde_json::Value = serde_json::from_slice(report).unwrap();
    assert_eq!(report["models"], models.len());
    assert_eq!(report["converted"], models.len());
    assert_eq!(report["failed"], 0);

    // A damaged entry fails alone and is listed with its code; OBJ brings MTLs.
    let mut owned = nres::OwnedArchive::new();
    owned.push(nres::OwnedEntry::new(0x0048_534d, "GOOD.MSH", fixture(WALKER)).unwrap());
    owned.push(nres::OwnedEntry::new(0x0048_534d, "BAD.MSH", fixture(DAMAGED)).unwrap());
    owned.push(nres::OwnedEntry::new(7, "notes.txt", b"not a model".to_vec()).unwrap());
    owned.push(nres::OwnedEntry::new(0x0048_534d, "good.msh", fixture(WALKER)).unwrap());
    let mixed = owned.write(nres::WriteMode::Canonical).unwrap();
    let r = client()
        .post(server.url("/v1/archive/convert?to=obj&name=mixed"))
        .body(mixed)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"mixed.zip\""
    );
    let files = zip_files(&r.bytes().await.unwrap());
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    // A repeated name (ASCII case-insensitively) gets the entry's index.
    assert_eq!(
        names,
        [
            "GOOD.obj",
            "GOOD.mtl",
            "good-3.obj",
            "good-3.mtl",
            "report.json"
        ]
    );
    let obj = String::from_utf8(files[2].1.clone()).unwrap();
    assert!(
        obj.contains("mtllib good-3.mtl"),
        "the renamed OBJ names its own MTL"
    );
    let report: serde_json::Value = serde_json::from_slice(&files[4].1).unwrap();
    assert_eq!(
        (report["models"].as_u64(), report["failed"].as_u64()),
        (Some(3), Some(1))
    );
    let bad = &report["entries"][1];
    assert_eq!(bad["entry"], "BAD.MSH");
    assert_eq!(bad["error"]["code"], "batch.index_count");
    assert_eq!(bad["error"]["path"], "Res13[0].index_count");
    assert!(bad["error"]["offset"].is_u64());
    assert_eq!(
        report["entries"][0]["files"],
        serde_json::json!(["GOOD.obj", "GOOD.mtl"])
    );

    // A model is not an archive of models.
    let r = client()
        .post(server.url("/v1/archive/convert?to=glb"))
        .body(fixture(WALKER))
        .send()
        .await
        .unwrap();
    problem(r, 422, "archive.no_models").await;
    let r = client()
        .post(server.url("/v1/archive/convert?to=msh"))
        .body(fixture(ARCHIVE))
        .send()
        .await
        .unwrap();
    problem(r, 400, "convert.unsupported_direction").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_ready_metrics_and_openapi() {
    let server = TestServer::start(config()).await;
    let c = client();
    let r = c.get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["status"], "ok");
    let r = c.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        (v["status"].as_str(), v["max_jobs"].as_u64()),
        (Some("ready"), Some(4))
    );

    // Some traffic, then the counters show it.
    let walker = fixture(WALKER);
    let ok = c
        .post(server.url("/v1/convert?to=glb"))
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    let glb_len = ok.bytes().await.unwrap().len();
    let bad = c
        .post(server.url("/v1/convert?to=glb"))
        .body(fixture(DAMAGED))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);
    let r = c.get(server.url("/metrics")).send().await.unwrap();
    assert_eq!(
        header(&r, "content-type"),
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let text = r.text().await.unwrap();
    let damaged_len = fixture(DAMAGED).len();
    for line in [
        "mshconv_http_requests_total{route=\"/v1/convert\",method=\"POST\",status=\"200\"} 1"
            .to_string(),
        "mshconv_http_requests_total{route=\"/v1/convert\",method=\"POST\",status=\"422\"} 1"
            .to_string(),
        "mshconv_http_requests_total{route=\"/healthz\",method=\"GET\",status=\"200\"} 1"
            .to_string(),
        "mshconv_http_request_duration_seconds_count{route=\"/v1/convert\"} 2".to_string(),
        "mshconv_conversions_total{from=\"msh\",to=\"glb\",outcome=\"ok\"} 1".to_string(),
        "mshconv_conversions_total{from=\"msh\",to=\"glb\",outcome=\"invalid_input\"} 1"
            .to_string(),
        format!(
            "mshconv_http_request_bytes_total{{route=\"/v1/convert\"}} {}",
            walker.len() + damaged_len
        ),
        "mshconv_jobs_in_flight 0".to_string(),
        "mshconv_jobs_max 4".to_string(),
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    let out_line = text
        .lines()
        .find(|l| l.starts_with("mshconv_http_response_bytes_total{route=\"/v1/convert\"}"))
        .unwrap();
    let out: usize = out_line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(
        out > glb_len,
        "{out_line}: the GLB and the problem document"
    );

    let r = c.get(server.url("/openapi.json")).send().await.unwrap();
    assert_eq!(header(&r, "content-type"), "application/json");
    let served = r.bytes().await.unwrap();
    let file = std::fs::read(repo().join("server/openapi.json")).unwrap();
    assert_eq!(
        served, file,
        "GET /openapi.json serves server/openapi.json byte for byte"
    );
    server.stop().await;
}

#[test]
fn openapi_lists_exactly_the_routes() {
    let text = std::fs::read_to_string(repo().join("server/openapi.json")).unwrap();
    let doc: openapiv3::OpenAPI = serde_json::from_str(&text).expect("a valid OpenAPI 3 document");
    assert!(doc.openapi.starts_with("3."));
    let mut documented = BTreeSet::new();
    for (path, item) in &doc.paths.paths {
        let item = item.as_item().expect("paths are inline");
        for (method, op) in item.iter() {
            assert!(
                !op.responses.responses.is_empty(),
                "{method} {path} documents responses"
            );
            documented.insert((method.to_ascii_uppercase(), path.clone()));
        }
    }
    // The files the web page loads are routes, not endpoints: only `/` is documented.
    let routed: BTreeSet<(String, String)> = mshconv_server::routes()
        .iter()
        .filter(|r| !mshconv_server::page::is_asset(r.path))
        .map(|r| (r.method.to_string(), r.path.to_string()))
        .collect();
    assert_eq!(documented, routed, "openapi.json and routes() differ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_is_routed() {
    let server = TestServer::start(config()).await;
    for route in mshconv_server::routes() {
        let r = client()
            .request(route.method.clone(), server.url(route.path))
            .send()
            .await
            .unwrap();
        // No body: uploads get 400 (empty or missing `to`), the rest 200.
        let status = r.status().as_u16();
        assert!(
            status == 200 || status == 400,
            "{} {} answered {status}",
            route.method,
            route.path
        );
    }
    let r = client()
        .get(server.url("/v2/nothing"))
        .send()
        .await
        .unwrap();
    problem(r, 404, "request.not_found").await;
    let r = client()
        .get(server.url("/v1/convert"))
        .send()
        .await
        .unwrap();
    problem(r, 405, "request.method_not_allowed").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_ids_are_echoed_or_made() {
    let server = TestServer::start(config()).await;
    let r = client()
        .get(server.url("/healthz"))
        .header("x-request-id", "client-id.42:a_b")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&r, "x-request-id"), "client-id.42:a_b");
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .header("x-request-id", "trace-7")
        .body(fixture(DAMAGED))
        .send()
        .await
        .unwrap();
    let p = problem(r, 422, "batch.index_count").await;
    assert_eq!(p["instance"], "trace-7");
    // Not a sane id: replaced by a UUID.
    let r = client()
        .get(server.url("/healthz"))
        .header("x-request-id", "has spaces and {braces}")
        .send()
        .await
        .unwrap();
    let id = header(&r, "x-request-id");
    assert_ne!(id, "has spaces and {braces}");
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    let other = header(
        &client().get(server.url("/healthz")).send().await.unwrap(),
        "x-request-id",
    );
    assert_ne!(id, other);
    server.stop().await;
}

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
        "unknown query parameter \"clips\": this endpoint takes to, name, lod, group, fps, axis, rotation"
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
