//! `/v1/convert?to=usda` (issue 25): the library's USD text with the query's
//! options and clips, as `model/vnd.usda`; a `.usda` upload is refused as a
//! direction; `/v1/archive/convert?to=usda` gives one `.usda` per model.

mod common;

use common::{client, config, fixture, form, problem, TestServer, WALKER};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn convert_to_usda_is_the_library_output() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let options = mshconv_gltf::ExportOptions {
        name: "walker".to_string(),
        lod: 1,
        fps: 30.0,
        clips: Some("idle=0..3:loop".parse().unwrap()),
        ..Default::default()
    };
    let (expected, _) = mshconv_usd::export(&walker, &(&options).into()).unwrap();
    let r = client()
        .post(server.url("/v1/convert?to=usda&lod=1&fps=30&clips=idle%3D0..3%3Aloop"))
        .multipart(form(walker.clone(), "walker.msh"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "model/vnd.usda");
    let usda = r.bytes().await.unwrap().to_vec();
    assert_eq!(usda, expected);

    // USD text is not an input.
    let r = client()
        .post(server.url("/v1/convert?to=msh"))
        .body(usda)
        .send()
        .await
        .unwrap();
    problem(r, 400, "convert.unsupported_direction").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archive_convert_to_usda_gives_one_usda_per_model() {
    let server = TestServer::start(config()).await;
    let r = client()
        .post(server.url("/v1/archive/convert?to=usda"))
        .body(fixture(common::ARCHIVE))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let zip = r.bytes().await.unwrap().to_vec();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    let mut usda = 0;
    for i in 0..zip.len() {
        let mut file = zip.by_index(i).unwrap();
        if file.name().ends_with(".usda") {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut file, &mut text).unwrap();
            assert!(text.starts_with("#usda 1.0\n"), "{}", file.name());
            usda += 1;
        }
    }
    assert!(usda > 2, "only {usda} .usda files");
    server.stop().await;
}
