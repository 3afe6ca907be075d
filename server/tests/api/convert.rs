//! `/v1/convert`: raw and multipart uploads, every option, OBJ as a zip or one
//! part, back to MSH from GLB, glTF and OBJ, `from` over sniffing, and an
//! archive entry.

use super::*;

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
            embed_original: false,
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
