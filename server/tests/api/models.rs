//! The model endpoints besides convert: validate (codes, paths, offsets),
//! inspect, pose, and the archive list and convert.

use super::*;

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

/// Issue 39: a game library uploaded to /v1/validate is checked by its
/// entries, as the CLI checks it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_checks_a_game_library_by_its_entries() {
    let server = TestServer::start(config()).await;
    let bytes = fixture("fixtures/small/game/Material.lib");
    let r = client()
        .post(server.url("/v1/validate"))
        .multipart(form(bytes.clone(), "Material.lib"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let got: serde_json::Value = r.json().await.unwrap();
    assert_eq!(got["library"], "materials");
    assert_eq!(got["valid"], true);
    assert!(
        got["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["file"] == "Material.lib:GLASS" && e["type"] == "MAT0"),
        "{got}"
    );
    let expected = mshconv_app::report::validate("Material.lib", &bytes, msh::Mode::Strict);
    assert_eq!(got, serde_json::to_value(expected).unwrap());
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
