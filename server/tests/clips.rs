//! `/v1/convert` with clips (issue 25): `clips=` in the query and the
//! multipart field `clips` give the library's export with those clips; the
//! GLB converts back with the clip list in the notes; bad lists are 400s
//! with their codes.

mod common;

use common::{client, config, fixture, form, problem, TestServer, WALKER};

/// The GLB the library makes of `bytes` named `name` with the clips `spec`.
fn library_glb_with_clips(bytes: &[u8], name: &str, spec: &str) -> Vec<u8> {
    let options = mshconv_gltf::ExportOptions {
        name: name.to_string(),
        clips: Some(spec.parse().unwrap()),
        ..Default::default()
    };
    mshconv_gltf::msh_to_gltf(bytes, &options).unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clips_by_query_and_by_field() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let spec = "idle=0..3:loop,walk=4..8:pingpong";
    let expected = library_glb_with_clips(&walker, "walker", spec);

    let r = client()
        .post(server.url("/v1/convert?to=glb&clips=idle%3D0..3%3Aloop%2Cwalk%3D4..8%3Apingpong"))
        .multipart(form(walker.clone(), "walker.msh"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let glb = r.bytes().await.unwrap().to_vec();
    assert_eq!(glb, expected);

    let json = spec.parse::<mshconv_convert::ClipList>().unwrap().to_json();
    let with_field = form(walker.clone(), "walker.msh").part(
        "clips",
        reqwest::multipart::Part::bytes(json.into_bytes()).file_name("walker.clips.json"),
    );
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .multipart(with_field)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap().to_vec(), expected);

    // Back to MSH: the same model, the clip list in the notes.
    let r = client()
        .post(server.url("/v1/convert?to=msh"))
        .body(glb)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let notes = r.headers()["x-mshconv-notes"].to_str().unwrap().to_string();
    assert!(notes.contains("import.clip_list"), "{notes}");
    assert!(notes.contains("walk 4..8 pingpong"), "{notes}");
    assert_eq!(r.bytes().await.unwrap().to_vec(), walker);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_clips_are_400s() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    for (query, code) in [
        ("clips=idle%3D0..99", "clips.past_timeline"),
        ("clips=idle%3D3..1", "clips.invalid"),
        ("clips=idle", "clips.invalid"),
    ] {
        let r = client()
            .post(server.url(&format!("/v1/convert?to=glb&{query}")))
            .body(walker.clone())
            .send()
            .await
            .unwrap();
        problem(r, 400, code).await;
    }
    let bad_field = form(walker.clone(), "walker.msh").part(
        "clips",
        reqwest::multipart::Part::bytes(b"{\"clips\": 3}".to_vec()),
    );
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .multipart(bad_field)
        .send()
        .await
        .unwrap();
    problem(r, 400, "clips.invalid").await;
    let twice = form(walker.clone(), "walker.msh")
        .part("clips", reqwest::multipart::Part::bytes(b"a=0..1".to_vec()));
    let r = client()
        .post(server.url("/v1/convert?to=glb&clips=a%3D0..1"))
        .multipart(twice)
        .send()
        .await
        .unwrap();
    problem(r, 400, "request.query").await;
    server.stop().await;
}
