//! `POST /v1/archive/put`: a model put back into an `.rlb` archive. Replacing
//! an entry keeps every other entry's bytes, name, type and order, and putting
//! an unedited model back gives the archive back byte for byte; adding one
//! makes an entry the game's own lookup finds; a glTF or OBJ is converted to
//! MSH first with its notes; and every refusal has its status and code.

mod common;

use common::*;
use reqwest::multipart::{Form, Part};

const ENTRY: &str = "M123_DOME.MSH";
const OBJ: &str = "fixtures/foreign/obj/blender_scene.obj";
const MTL: &str = "fixtures/foreign/obj/blender_scene.mtl";

/// A form with the archive as `archive` and the model as `file`.
fn put_form(archive: Vec<u8>, archive_name: &str, model: Vec<u8>, model_name: &str) -> Form {
    Form::new()
        .part(
            "archive",
            Part::bytes(archive).file_name(archive_name.to_string()),
        )
        .part("file", Part::bytes(model).file_name(model_name.to_string()))
}

async fn put(server: &TestServer, query: &str, form: Form) -> reqwest::Response {
    client()
        .post(server.url(&format!("/v1/archive/put{query}")))
        .multipart(form)
        .send()
        .await
        .unwrap()
}

fn header<'a>(r: &'a reqwest::Response, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

/// Every entry's (name, type, attributes, data), in directory order.
fn entries(bytes: &[u8]) -> Vec<(String, u32, Vec<u8>)> {
    let a = nres::Archive::parse(bytes).unwrap();
    (0..a.len())
        .map(|i| {
            let e = a.entry(i).unwrap();
            (e.name(), e.type_id(), e.data().to_vec())
        })
        .collect()
}

/// What the application layer's editor writes for the same put.
fn edited(archive: &[u8], entry: &str, data: Vec<u8>) -> Vec<u8> {
    let mut editor = mshconv_app::archive::Editor::open(archive).unwrap();
    editor.put(entry, None, data).unwrap();
    editor.write().unwrap()
}

#[tokio::test]
async fn putting_every_model_back_unedited_gives_the_same_archive() {
    let server = TestServer::start(config()).await;
    let archive = fixture(ARCHIVE);
    let listed = entries(&archive);
    let models: Vec<_> = listed
        .iter()
        .filter(|(name, ..)| nres::is_model_name(name.as_bytes()))
        .collect();
    assert!(models.len() >= 2, "{} models", models.len());
    for (name, _, data) in models {
        let r = put(
            &server,
            &format!("?entry={name}"),
            put_form(archive.clone(), "small.rlb", data.clone(), "model.msh"),
        )
        .await;
        assert_eq!(r.status(), 200, "{name}: {:?}", r.text().await);
        assert_eq!(header(&r, "x-mshconv-placed"), "replaced");
        assert_eq!(header(&r, "x-mshconv-entry"), name);
        let body = r.bytes().await.unwrap();
        assert!(body[..] == archive[..], "{name}: the archive changed");
    }
    server.stop().await;
}

#[tokio::test]
async fn replacing_keeps_every_other_entry() {
    let server = TestServer::start(config()).await;
    let archive = fixture(ARCHIVE);
    let walker = fixture(WALKER);
    // The name as a modder types it: the game compares names case-insensitively.
    let r = put(
        &server,
        "?entry=m123_dome.msh",
        put_form(
            archive.clone(),
            "dir/my small.rlb",
            walker.clone(),
            "m095_walker.msh",
        ),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "application/octet-stream");
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"my_small.rlb\""
    );
    assert_eq!(header(&r, "x-mshconv-placed"), "replaced");
    // The entry keeps its own spelling.
    assert_eq!(header(&r, "x-mshconv-entry"), ENTRY);
    assert_eq!(header(&r, "x-mshconv-from"), "msh");
    // The walker has fewer nodes than the dome it replaces: said, as the CLI says it.
    let nodes = |bytes: &[u8]| msh::Model::from_bytes(bytes).unwrap().nodes.len();
    let dome = entries(&archive)
        .into_iter()
        .find(|e| e.0 == ENTRY)
        .unwrap()
        .2;
    let (old, new) = (nodes(&dome), nodes(&walker));
    assert!(new < old);
    assert_eq!(
        header(&r, "x-mshconv-notes"),
        format!(
            r#"[{{"code":"archive.entry_loses","message":"my_small.rlb:{ENTRY} loses {} of {old} nodes"}}]"#,
            old - new
        )
    );
    assert_eq!(header(&r, "x-mshconv-notes-count"), "1");
    let body = r.bytes().await.unwrap().to_vec();
    let before = entries(&archive);
    let after = entries(&body);
    assert_eq!(before.len(), after.len());
    let mut replaced = 0;
    for (b, a) in before.iter().zip(&after) {
        assert_eq!((&b.0, b.1), (&a.0, a.1), "names, types and order are kept");
        if b.0 == ENTRY {
            assert!(a.2 == walker, "the entry holds the new model");
            replaced += 1;
        } else {
            assert!(a.2 == b.2, "{}: its bytes are kept", b.0);
        }
    }
    assert_eq!(replaced, 1);
    assert_eq!(body, edited(&archive, ENTRY, walker));
    let a = nres::Archive::parse(&body).unwrap();
    assert!(a.find_by_name(ENTRY).is_some());
    server.stop().await;
}

#[tokio::test]
async fn adding_a_glb_makes_an_entry_the_game_finds() {
    let server = TestServer::start(config()).await;
    let archive = fixture(ARCHIVE);
    let walker = fixture(WALKER);
    let glb = library_glb(&walker, "m095_walker");
    let r = put(
        &server,
        "?entry=M999_WALKER.MSH&add=true",
        put_form(archive.clone(), "small.rlb", glb, "m095_walker.glb"),
    )
    .await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    assert_eq!(header(&r, "x-mshconv-placed"), "added");
    assert_eq!(header(&r, "x-mshconv-entry"), "M999_WALKER.MSH");
    assert_eq!(header(&r, "x-mshconv-from"), "glb");
    assert!(header(&r, "x-mshconv-notes").starts_with('['));
    let body = r.bytes().await.unwrap().to_vec();
    let a = nres::Archive::parse(&body).unwrap();
    assert_eq!(a.len(), entries(&archive).len() + 1);
    // The game's own lookup (a binary search over the sort table) finds the
    // new entry and every old one.
    let added = a
        .find_by_name("m999_walker.msh")
        .expect("the game finds it");
    assert_eq!(added.type_id(), mshconv_app::archive::MSH_TYPE);
    // A .glb exported from the game's model comes back as that model.
    assert!(added.data() == &walker[..]);
    for (name, _, data) in entries(&archive) {
        assert!(a.find_by_name(&name).unwrap().data() == &data[..], "{name}");
    }
    assert_eq!(body, edited(&archive, "M999_WALKER.MSH", walker));
    // Counted as the other conversions are.
    let metrics = client()
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains(r#"mshconv_conversions_total{from="glb",to="msh",outcome="ok"} 1"#),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test]
async fn an_obj_with_its_mtl_is_converted_with_the_options() {
    let server = TestServer::start(config()).await;
    let archive = fixture(ARCHIVE);
    let form = put_form(
        archive.clone(),
        "small.rlb",
        fixture(OBJ),
        "blender_scene.obj",
    )
    .part(
        "mtl",
        Part::bytes(fixture(MTL)).file_name("blender_scene.mtl"),
    );
    let r = put(&server, "?entry=SCENE.MSH&axis=y-up&add=true", form).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    assert_eq!(header(&r, "x-mshconv-placed"), "added");
    assert_eq!(header(&r, "x-mshconv-from"), "obj");
    let count: usize = header(&r, "x-mshconv-notes-count").parse().unwrap();
    let notes: serde_json::Value = serde_json::from_str(header(&r, "x-mshconv-notes")).unwrap();
    assert!(
        count > 0 && notes.as_array().unwrap().len() == count,
        "{notes}"
    );
    let body = r.bytes().await.unwrap();
    // The entry is what /v1/convert?to=msh makes of the same upload.
    let msh = client()
        .post(server.url("/v1/convert?to=msh&axis=y-up"))
        .multipart(form_obj())
        .send()
        .await
        .unwrap();
    assert_eq!(msh.status(), 200);
    let msh = msh.bytes().await.unwrap();
    let a = nres::Archive::parse(&body).unwrap();
    assert!(a.find_by_name("scene.msh").unwrap().data() == &msh[..]);
    server.stop().await;
}

fn form_obj() -> Form {
    form(fixture(OBJ), "blender_scene.obj").part(
        "mtl",
        Part::bytes(fixture(MTL)).file_name("blender_scene.mtl"),
    )
}

#[tokio::test]
async fn refusals() {
    let server = TestServer::start(config()).await;
    let archive = fixture(ARCHIVE);
    let walker = fixture(WALKER);
    let ok_form = || put_form(archive.clone(), "small.rlb", walker.clone(), "w.msh");

    // The query: checked before the body is read.
    problem(
        put(&server, "", ok_form()).await,
        400,
        "request.entry_required",
    )
    .await;
    let p = problem(
        put(&server, "?entry=walker.glb", ok_form()).await,
        400,
        "request.entry_not_model",
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("walker.MSH"), "{p}");
    let long = format!("{}.MSH", "X".repeat(40));
    problem(
        put(&server, &format!("?entry={long}"), ok_form()).await,
        400,
        "archive.bad_name",
    )
    .await;
    problem(
        put(&server, "?entry=%C3%A4.MSH", ok_form()).await,
        400,
        "archive.bad_name",
    )
    .await;
    // The names the CLI cannot name as ARCHIVE:ENTRY (one rule for both).
    for name in [
        "sub/A.MSH",
        "../A.MSH",
        "..%5CA.MSH",
        ".A.MSH",
        "A..B.MSH",
        "C:A.MSH",
    ] {
        problem(
            put(&server, &format!("?entry={name}&add=true"), ok_form()).await,
            400,
            "archive.bad_name",
        )
        .await;
    }
    problem(
        put(&server, "?entry=A.MSH&add=maybe", ok_form()).await,
        400,
        "request.query",
    )
    .await;
    problem(
        put(&server, "?entry=A.MSH&lod=1", ok_form()).await,
        400,
        "request.unknown_parameter",
    )
    .await;
    problem(
        put(&server, "?entry=A.MSH&fps=0", ok_form()).await,
        400,
        "option.invalid",
    )
    .await;
    problem(
        put(&server, "?entry=A.MSH&from=fbx", ok_form()).await,
        400,
        "request.bad_format",
    )
    .await;

    // The body.
    let only_file = form(walker.clone(), "w.msh");
    problem(
        put(&server, "?entry=A.MSH", only_file).await,
        400,
        "request.missing_archive",
    )
    .await;
    let only_archive = Form::new().part("archive", Part::bytes(archive.clone()));
    problem(
        put(&server, "?entry=A.MSH", only_archive).await,
        400,
        "request.missing_file",
    )
    .await;
    let extra = ok_form().part("notes", Part::bytes(b"x".to_vec()));
    problem(
        put(&server, "?entry=A.MSH", extra).await,
        400,
        "request.multipart",
    )
    .await;
    let empty = put_form(Vec::new(), "small.rlb", walker.clone(), "w.msh");
    problem(
        put(&server, "?entry=A.MSH", empty).await,
        400,
        "request.empty_body",
    )
    .await;
    let raw = client()
        .post(server.url("/v1/archive/put?entry=A.MSH"))
        .body(walker.clone())
        .send()
        .await
        .unwrap();
    problem(raw, 400, "request.multipart").await;

    // A damaged archive: the container's code.
    let truncated = archive[..archive.len() / 2].to_vec();
    let p = problem(
        put(
            &server,
            "?entry=A.MSH&add=true",
            put_form(truncated, "small.rlb", walker.clone(), "w.msh"),
        )
        .await,
        422,
        &nres_code(&archive[..archive.len() / 2]),
    )
    .await;
    assert!(p["code"].as_str().unwrap().starts_with("nres."), "{p}");
    let not_nres = put_form(
        b"not an NRes archive at all".to_vec(),
        "x.rlb",
        walker.clone(),
        "w.msh",
    );
    problem(
        put(&server, "?entry=A.MSH&add=true", not_nres).await,
        422,
        "nres.bad_magic",
    )
    .await;
    // The fields swapped: a model where the archive goes.
    let swapped = put_form(walker.clone(), "w.msh", walker.clone(), "w.msh");
    problem(
        put(&server, "?entry=A.MSH&add=true", swapped).await,
        422,
        "archive.is_model",
    )
    .await;

    // A model that is damaged or does not convert: the library's code.
    let damaged = put_form(archive.clone(), "small.rlb", fixture(DAMAGED), "d.msh");
    let p = problem(
        put(&server, "?entry=A.MSH&add=true", damaged).await,
        422,
        "batch.index_count",
    )
    .await;
    assert!(
        p["findings"].as_array().is_some_and(|f| !f.is_empty()),
        "{p}"
    );
    let bad_gltf = put_form(
        archive.clone(),
        "small.rlb",
        b"{\"asset\":{}}".to_vec(),
        "x.gltf",
    );
    let p = put(&server, "?entry=A.MSH&add=true", bad_gltf).await;
    assert_eq!(p.status(), 422);
    let p: serde_json::Value = p.json().await.unwrap();
    assert!(p["code"].as_str().unwrap().starts_with("gltf."), "{p}");
    let unknown = put_form(archive.clone(), "small.rlb", vec![0, 1, 2, 3, 4], "x.bin");
    problem(
        put(&server, "?entry=A.MSH&add=true", unknown).await,
        415,
        "input.unknown_format",
    )
    .await;
    // An archive of models is not a model.
    let nested = put_form(archive.clone(), "small.rlb", archive.clone(), "small.rlb");
    let p = put(&server, "?entry=A.MSH&add=true", nested).await;
    assert_eq!(p.status(), 422);

    // The other endpoints still refuse the field `archive`.
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .multipart(ok_form())
        .send()
        .await
        .unwrap();
    problem(r, 400, "request.multipart").await;
    server.stop().await;
}

#[tokio::test]
async fn a_name_the_archive_lacks_is_refused_with_the_closest_names_unless_add() {
    let server = TestServer::start(config()).await;
    let archive = fixture(ARCHIVE);
    let walker = fixture(WALKER);
    let form = || put_form(archive.clone(), "small.rlb", walker.clone(), "w.msh");
    // A typo: refused, with the name it most likely meant.
    let p = problem(
        put(&server, "?entry=m123_dom.msh", form()).await,
        400,
        "archive.no_such_entry",
    )
    .await;
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("did you mean M123_DOME.MSH?") && detail.contains("add=true"),
        "{p}"
    );
    // Said before any conversion: a model that would not convert still gets it.
    let damaged = put_form(archive.clone(), "small.rlb", fixture(DAMAGED), "d.msh");
    problem(
        put(&server, "?entry=M123_DOM.MSH", damaged).await,
        400,
        "archive.no_such_entry",
    )
    .await;
    // add=false is the default; add=true adds.
    problem(
        put(&server, "?entry=NEW.MSH&add=false", form()).await,
        400,
        "archive.no_such_entry",
    )
    .await;
    let r = put(&server, "?entry=NEW.MSH&add=true", form()).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-mshconv-placed"), "added");
    // A name it has is replaced with or without add=true.
    let r = put(&server, "?entry=M123_DOME.MSH&add=true", form()).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-mshconv-placed"), "replaced");
    server.stop().await;
}

/// The code the container reader gives these bytes.
fn nres_code(bytes: &[u8]) -> String {
    let e = nres::Archive::parse(bytes).unwrap_err();
    mshconv_app::Error::from(e).code().to_string()
}

#[tokio::test]
async fn the_body_limit_covers_both_files() {
    let server = TestServer::start(mshconv_server::Config {
        max_body: 64 * 1024,
        ..config()
    })
    .await;
    let archive = fixture(ARCHIVE);
    assert!(
        archive.len() > 64 * 1024,
        "the fixture archive is over the limit"
    );
    let r = put(
        &server,
        "?entry=A.MSH",
        put_form(archive, "small.rlb", fixture(WALKER), "w.msh"),
    )
    .await;
    problem(r, 413, "request.too_large").await;
    server.stop().await;
}

/// Entries that share or overlap their payloads (valid NRes): an edit
/// writes each entry's own copy (1,000 entries on one 4 MB payload made
/// 4 GB), so `archive/put` refuses them, and `archive/convert` refuses model
/// entries that do, before any copy or conversion; the same entries laid
/// out one after another are served.
#[tokio::test]
async fn archives_whose_entries_share_or_overlap_their_bytes_are_refused() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let len = walker.len() as u32;
    let mut two = walker.clone();
    two.extend_from_slice(&walker);
    let disjoint = by_bytes::archive_by_bytes(&two, &[("A.MSH", 0..len), ("B.MSH", len..2 * len)]);
    let shared = shared_archive(&walker, 3);
    let overlapping =
        by_bytes::archive_by_bytes(&two, &[("A.MSH", 0..len), ("B.MSH", len - 8..2 * len)]);
    for (layout, archive) in [("shared", &shared), ("overlapping", &overlapping)] {
        nres::Archive::parse(archive).expect("valid NRes");
        for query in [
            "?entry=NEW.MSH&add=true",
            "?entry=A.MSH",
            "?entry=E00000.MSH",
        ] {
            let form = put_form(archive.clone(), "units.rlb", walker.clone(), "w.msh");
            let p = problem(
                put(&server, query, form).await,
                422,
                "archive.entries_overlap",
            )
            .await;
            let detail = p["detail"].as_str().unwrap();
            assert!(
                detail.contains("entry 0 (") && detail.contains("entry 1 ("),
                "{layout}: {p}"
            );
            // Where the shared bytes start.
            let start = if layout == "shared" {
                16
            } else {
                16 + u64::from(len) - 8
            };
            assert_eq!(p["offset"], start, "{layout}: {p}");
        }
        let r = client()
            .post(server.url("/v1/archive/convert?to=glb"))
            .body(archive.clone())
            .send()
            .await
            .unwrap();
        problem(r, 422, "archive.entries_overlap").await;
    }
    // The control: the same models, one payload each.
    let form = put_form(disjoint.clone(), "units.rlb", walker.clone(), "w.msh");
    let r = put(&server, "?entry=NEW.MSH&add=true", form).await;
    assert_eq!(r.status(), 200);
    let r = client()
        .post(server.url("/v1/archive/convert?to=glb"))
        .body(disjoint)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    server.stop().await;
}

#[tokio::test]
async fn an_obj_over_an_animated_model_says_what_the_entry_loses() {
    let server = TestServer::start(config()).await;
    let walker = fixture(WALKER);
    let model = msh::Model::from_bytes(&walker).unwrap();
    assert!(
        model.nodes.len() > 1 && model.frame_count > 1,
        "a hierarchy with animation"
    );
    // The animated model in the archive, then an OBJ of it put over it.
    let archive = edited(&fixture(ARCHIVE), "M999_WALKER.MSH", walker.clone());
    let obj = mshconv_app::convert(
        &walker,
        (mshconv_app::Format::Msh, mshconv_app::Format::Obj),
        &mshconv_app::Options::default(),
        &mshconv_app::Names::same("walker"),
        &mshconv_app::NoResources,
    )
    .unwrap();
    let r = put(
        &server,
        "?entry=M999_WALKER.MSH",
        put_form(archive, "units.rlb", obj.main().bytes.clone(), "walker.obj"),
    )
    .await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let notes: serde_json::Value = serde_json::from_str(header(&r, "x-mshconv-notes")).unwrap();
    let loses: Vec<&str> = notes
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["code"] == "archive.entry_loses")
        .map(|n| n["message"].as_str().unwrap())
        .collect();
    assert_eq!(loses.len(), 1, "{notes}");
    // The OBJ has no animation: every frame is lost, said as the CLI says it.
    assert!(
        loses[0].starts_with("units.rlb:M999_WALKER.MSH loses ")
            && loses[0].ends_with(&format!("all {} frames", model.frame_count)),
        "{notes}"
    );
    // The same model put back loses nothing.
    let r = put(
        &server,
        "?entry=M999_WALKER.MSH",
        put_form(
            edited(&fixture(ARCHIVE), "M999_WALKER.MSH", walker.clone()),
            "units.rlb",
            walker,
            "walker.msh",
        ),
    )
    .await;
    assert_eq!(header(&r, "x-mshconv-notes"), "[]");
    server.stop().await;
}

/// `glb` as a tool that rebuilt its buffers writes it back: its recorded
/// buffer length no longer holds (one digit changed in place).
fn rewritten(glb: &[u8]) -> Vec<u8> {
    let key = b"\"buffer_length\":";
    let at = find(glb, key).expect("the export records its buffer length") + key.len();
    let mut out = glb.to_vec();
    let end = at + out[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    out[end - 1] = b'0' + (out[end - 1] - b'0' + 1) % 10;
    out
}

/// Issue 41: the export records the original's fingerprint only; a glTF
/// another tool rewrote, put back over the entry it came from, is recognised
/// against that entry (the archive byte for byte); converted on its own it
/// is rebuilt with `import.original_missing`, and with the field `original`
/// it comes back as the model.
#[tokio::test]
async fn a_rewritten_glb_is_recognised_against_the_entry_it_replaces() {
    let server = TestServer::start(config()).await;
    let archive = fixture(ARCHIVE);
    let model = entries(&archive)
        .into_iter()
        .find(|(name, ..)| name == "M242_ROBOT.MSH")
        .unwrap()
        .2;
    let r = client()
        .post(server.url("/v1/convert?to=glb"))
        .multipart(form(model.clone(), "robot.msh"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let glb = rewritten(&r.bytes().await.unwrap());
    assert!(find(&glb, b"\"original_fingerprint\":").is_some());
    assert!(find(&glb, b"\"original\":").is_none());
    let r = put(
        &server,
        "?entry=M242_ROBOT.MSH",
        put_form(archive.clone(), "small.rlb", glb.clone(), "robot.glb"),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert!(header(&r, "x-mshconv-notes").contains("import.original_kept"));
    assert!(
        r.bytes().await.unwrap() == archive,
        "the archive byte for byte"
    );
    let to_msh = |form: Form| async {
        let r = client()
            .post(server.url("/v1/convert?to=msh"))
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let notes = header(&r, "x-mshconv-notes").to_string();
        (notes, r.bytes().await.unwrap().to_vec())
    };
    let (notes, back) = to_msh(form(glb.clone(), "robot.glb")).await;
    assert!(notes.contains("import.original_missing"), "{notes}");
    assert!(back != model);
    let given = form(glb, "robot.glb").part("original", Part::bytes(model.clone()));
    let (notes, back) = to_msh(given).await;
    assert!(notes.contains("import.original_kept"), "{notes}");
    assert!(back == model, "the model byte for byte");
}
