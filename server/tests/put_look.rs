//! `POST /v1/archive/put` carries a glTF's look as the CLI's `convert
//! IN.glb ARCHIVE:ENTRY --game-dir DIR` does: with the server's `--game-dir`
//! (or the uploaded `materials`/`textures`), the model's WEAR goes into the
//! archive beside it, and the libraries that change come in the answer (a
//! zip with the archive), never written into the folder. Unedited, the
//! archive comes back byte for byte, alone. Where the CLI binary is built,
//! the answer's files are the ones it writes, byte for byte.

mod common;

use common::*;
use reqwest::multipart::{Form, Part};

const GAME: &str = "fixtures/small/game";
const ENTRY: &str = "TANK.MSH";

fn game_config() -> mshconv_server::Config {
    mshconv_server::Config {
        game_dir: Some(repo().join(GAME)),
        ..config()
    }
}

/// The tank exported textured by the service (what `convert
/// units.rlb:TANK.MSH tank.glb --game-dir` writes).
async fn tank_glb(server: &TestServer) -> Vec<u8> {
    let r = client()
        .post(server.url(&format!("/v1/convert?to=glb&entry={ENTRY}")))
        .multipart(form(fixture(&format!("{GAME}/units.rlb")), "units.rlb"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.bytes().await.unwrap().to_vec()
}

fn put_form(glb: &[u8], fields: &[(&str, Vec<u8>)]) -> Form {
    let mut form = Form::new()
        .part(
            "archive",
            Part::bytes(fixture(&format!("{GAME}/units.rlb"))).file_name("units.rlb"),
        )
        .part("file", Part::bytes(glb.to_vec()).file_name("tank.glb"));
    for (name, bytes) in fields {
        let part = Part::bytes(bytes.clone()).file_name(name.to_string());
        form = form.part(name.to_string(), part);
    }
    form
}

/// `POST /v1/archive/put?entry=TANK.MSH` of `form`.
async fn put(server: &TestServer, form: Form) -> reqwest::Response {
    client()
        .post(server.url(&format!("/v1/archive/put?entry={ENTRY}")))
        .multipart(form)
        .send()
        .await
        .unwrap()
}

fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers()[name].to_str().unwrap().to_string()
}

/// What the CLI writes for the same put, in a copy of the game folder whose
/// libraries are `libraries` (none: the folder's): the archive and the two
/// libraries afterwards. `None` when the CLI binary is not built.
fn cli_put(glb: &[u8], libraries: &[(&str, Vec<u8>)]) -> Option<[Vec<u8>; 3]> {
    let cli = cli_binary()?;
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    for name in ["units.rlb", "Material.lib", "Textures.lib"] {
        std::fs::copy(repo().join(GAME).join(name), work.join(name)).unwrap();
    }
    for (name, bytes) in libraries {
        std::fs::write(work.join(name), bytes).unwrap();
    }
    std::fs::write(work.join("tank.glb"), glb).unwrap();
    let out = std::process::Command::new(cli)
        .current_dir(work)
        .args([
            "convert",
            "tank.glb",
            "units.rlb:TANK.MSH",
            "--game-dir",
            ".",
        ])
        .env_remove("MSHCONV_GAME_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |name: &str| std::fs::read(work.join(name)).unwrap();
    Some([
        read("units.rlb"),
        read("Material.lib"),
        read("Textures.lib"),
    ])
}

#[tokio::test]
async fn an_unedited_model_comes_back_alone_and_byte_for_byte_and_the_folder_is_untouched() {
    let server = TestServer::start(game_config()).await;
    let glb = tank_glb(&server).await;
    let folder = |name: &str| std::fs::read(repo().join(GAME).join(name)).unwrap();
    let before = [
        folder("units.rlb"),
        folder("Material.lib"),
        folder("Textures.lib"),
    ];
    let r = put(&server, put_form(&glb, &[])).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "application/octet-stream");
    assert_eq!(header(&r, "x-mshconv-changed"), "units.rlb");
    assert_eq!(header(&r, "x-mshconv-placed"), "replaced");
    let body = r.bytes().await.unwrap().to_vec();
    assert!(
        body == before[0],
        "the unedited model and its WEAR give the archive back"
    );
    if let Some([archive, ..]) = cli_put(&glb, &[]) {
        assert!(body == archive, "the CLI writes the same archive");
    }
    // The service never writes into its folder.
    let after = [
        folder("units.rlb"),
        folder("Material.lib"),
        folder("Textures.lib"),
    ];
    assert!(after == before);
    server.stop().await;
}

/// An empty library: what the look's textures are added to.
fn empty_library() -> Vec<u8> {
    nres::OwnedArchive::new()
        .write(nres::WriteMode::Canonical)
        .unwrap()
}

#[tokio::test]
async fn textures_the_library_lacks_are_added_and_answered_in_a_zip_with_the_archive() {
    // The tank's look from a server with the folder; put into a service
    // without one, given the folder's Material.lib and an empty Textures.lib.
    let glb = {
        let server = TestServer::start(game_config()).await;
        let glb = tank_glb(&server).await;
        server.stop().await;
        glb
    };
    let server = TestServer::start(config()).await;
    let materials = fixture(&format!("{GAME}/Material.lib"));
    let fields = [
        ("materials", materials.clone()),
        ("textures", empty_library()),
    ];
    let r = put(&server, put_form(&glb, &fields)).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    assert_eq!(header(&r, "content-type"), "application/zip");
    assert_eq!(
        header(&r, "content-disposition"),
        "attachment; filename=\"units.zip\""
    );
    let changed = header(&r, "x-mshconv-changed");
    let notes: serde_json::Value = serde_json::from_str(&header(&r, "x-mshconv-notes")).unwrap();
    let look_entries: Vec<&str> = notes
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["code"] == "look.entry")
        .map(|n| n["message"].as_str().unwrap())
        .collect();
    assert!(
        look_entries
            .iter()
            .any(|m| m.starts_with("Textures.lib: add ")),
        "{notes}"
    );
    let files = zip_files(&r.bytes().await.unwrap());
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names.join(", "),
        changed,
        "the header names the zip's files"
    );
    assert_eq!(names.first(), Some(&"Textures.lib"));
    assert_eq!(names.last(), Some(&"units.rlb"));
    let file = |name: &str| {
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    };
    // The archive holds the model and its WEAR; every texture the WEAR's
    // materials name is in the new Textures.lib.
    let archive = file("units.rlb").unwrap();
    let parsed = nres::Archive::parse(&archive).unwrap();
    assert!(parsed.find_by_name("TANK.WEA").is_some());
    let textures = nres::Archive::parse(&file("Textures.lib").unwrap())
        .unwrap()
        .len();
    assert!(textures > 0);
    // As the CLI writes it, given the same libraries.
    let given = [("Textures.lib", empty_library())];
    if let Some([cli_archive, cli_materials, cli_textures]) = cli_put(&glb, &given) {
        assert!(archive == cli_archive, "the archive is the CLI's");
        assert!(
            file("Textures.lib").unwrap() == cli_textures,
            "Textures.lib is the CLI's"
        );
        match file("Material.lib") {
            Some(m) => assert!(m == cli_materials, "Material.lib is the CLI's"),
            None => assert!(
                cli_materials == materials,
                "Material.lib unchanged, as in the CLI"
            ),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn the_look_fields_on_an_msh_are_refused_and_without_a_look_nothing_changes() {
    let server = TestServer::start(config()).await;
    let msh = {
        let a = fixture(&format!("{GAME}/units.rlb"));
        let a = nres::Archive::parse(&a).unwrap();
        a.find_by_name(ENTRY).unwrap().data().to_vec()
    };
    let form = Form::new()
        .part(
            "archive",
            Part::bytes(fixture(&format!("{GAME}/units.rlb"))).file_name("units.rlb"),
        )
        .part("file", Part::bytes(msh).file_name("tank.msh"))
        .part(
            "textures",
            Part::bytes(empty_library()).file_name("Textures.lib"),
        );
    let r = put(&server, form).await;
    problem(r, 400, "request.multipart").await;
    // A glb without a folder or fields: the model alone, no WEAR written.
    let glb = library_glb(&fixture(WALKER), "m095_walker");
    let r = put(&server, put_form(&glb, &[])).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-mshconv-changed"), "units.rlb");
    let body = r.bytes().await.unwrap().to_vec();
    let mut editor =
        mshconv_app::archive::Editor::open(&fixture(&format!("{GAME}/units.rlb"))).unwrap();
    editor.put(ENTRY, None, fixture(WALKER)).unwrap();
    assert!(body == editor.write().unwrap());
    server.stop().await;
}

/// `glb` with the image named `to` showing the pixels of the image named
/// `from` (its JSON chunk rewritten, the binary chunk as it was).
fn repaint_glb(glb: &[u8], to: &str, from: &str) -> Vec<u8> {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let images = json["images"].as_array_mut().unwrap();
    let view = |name: &str| images.iter().position(|i| i["name"] == name).unwrap();
    let (to, from) = (view(to), view(from));
    images[to]["bufferView"] = images[from]["bufferView"].clone();
    let mut text = serde_json::to_vec(&json).unwrap();
    text.resize(text.len().next_multiple_of(4), b' ');
    let rest = &glb[20 + json_len..];
    let mut out = glb[..8].to_vec();
    out.extend(((12 + 8 + text.len() + rest.len()) as u32).to_le_bytes());
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(text);
    out.extend(rest);
    out
}

/// Issue 39: colours painted into the palette texture PAL_CAMO (here the
/// pixels of GLASS_4444, of its size) become the nearest palette colours,
/// and the answer's notes say so, as the CLI and Python do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_palette_repaint_is_noted() {
    let server = TestServer::start(game_config()).await;
    let glb = repaint_glb(&tank_glb(&server).await, "PAL_CAMO", "GLASS_4444");
    let r = put(&server, put_form(&glb, &[])).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let notes: serde_json::Value = serde_json::from_str(&header(&r, "x-mshconv-notes")).unwrap();
    assert!(
        notes
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["code"] == "look.palette_reduced"
                && n["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("texture \"PAL_CAMO\" is a palette texture")),
        "{notes}"
    );
    server.stop().await;
}

/// The fixture's `Textures.lib` with TANK_BODY.0 painted one colour (a
/// library edit made after the tank was exported).
fn repainted_textures() -> Vec<u8> {
    use mshconv_material::texm::Rgba8Image;
    let bytes = fixture(&format!("{GAME}/Textures.lib"));
    let old = nres::Archive::parse(&bytes)
        .unwrap()
        .entries()
        .find(|e| e.name() == "TANK_BODY.0")
        .map(|e| mshconv_material::Texm::parse(e.data()).unwrap())
        .unwrap();
    let image = Rgba8Image {
        width: old.width,
        height: old.height,
        pixels: [0, 255, 0, 255].repeat((old.width * old.height) as usize),
    };
    let texm = mshconv_material::Texm::from_rgba8_with_mips(
        &image,
        old.format,
        None,
        old.levels.len() as u32,
    )
    .unwrap();
    let mut editor = mshconv_app::archive::Editor::open(&bytes).unwrap();
    editor
        .put("TANK_BODY.0", None, texm.write().unwrap())
        .unwrap();
    editor.write().unwrap()
}

#[tokio::test]
async fn an_older_export_keeps_a_library_edit_made_since() {
    // The tank exported before its texture was repainted in the library.
    let server = TestServer::start(game_config()).await;
    let glb = tank_glb(&server).await;
    let materials = fixture(&format!("{GAME}/Material.lib"));
    let textures = repainted_textures();
    let fields = [
        ("materials", materials.clone()),
        ("textures", textures.clone()),
    ];
    let r = put(&server, put_form(&glb, &fields)).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    // No library changes: the archive alone, and the note says why.
    assert_eq!(header(&r, "content-type"), "application/octet-stream");
    assert_eq!(header(&r, "x-mshconv-changed"), "units.rlb");
    let notes: serde_json::Value = serde_json::from_str(&header(&r, "x-mshconv-notes")).unwrap();
    assert!(
        notes
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["code"] == "look.library_kept"
                && n["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("texture \"TANK_BODY.0\" changed in Textures.lib since")),
        "{notes}"
    );
    if let Some([_, _, cli_textures]) = cli_put(&glb, &[("Textures.lib", textures.clone())]) {
        assert!(cli_textures == textures, "the CLI keeps it too");
    }
    server.stop().await;
}
