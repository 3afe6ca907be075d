//! The game's look in the service: `--game-dir` and the upload's fields
//! `wear`, `materials`, `textures`, over the fixture game folder
//! (`fixtures/small/game`). The service's GLB is compared byte for byte with
//! what the CLI's path makes of the same model (`mshconv_app::convert` with
//! `GameDir::open` and the model's place, as `convert ARCHIVE:ENTRY OUT
//! --game-dir DIR` calls it).

mod common;

use common::*;
use mshconv_app::{
    convert, Format, GameDir, GameResources, ModelLocation, Names, NoResources, Options,
};
use reqwest::multipart::{Form, Part};
use std::io::Read;
use std::path::PathBuf;

const GAME: &str = "fixtures/small/game";

fn game_dir() -> PathBuf {
    repo().join(GAME)
}

fn game_file(name: &str) -> Vec<u8> {
    fixture(&format!("{GAME}/{name}"))
}

fn with_game() -> mshconv_server::Config {
    mshconv_server::Config {
        game_dir: Some(game_dir()),
        ..config()
    }
}

/// What the CLI makes of the model at `at` (its bytes `model`) with the game folder.
fn cli_glb(model: &[u8], at: ModelLocation, name: &str) -> mshconv_app::Output {
    let res = GameResources {
        inner: &NoResources,
        game: GameDir::open(&game_dir()).unwrap(),
        at,
    };
    convert(
        model,
        (Format::Msh, Format::Glb),
        &Options::default(),
        &Names::same(name),
        &res,
    )
    .unwrap()
}

/// The model entry `entry` of the fixture game's `units.rlb`.
fn entry_bytes(entry: &str) -> Vec<u8> {
    let rlb = game_file("units.rlb");
    let parsed = nres::Archive::parse(&rlb).unwrap();
    let e = parsed.entries().find(|e| e.name() == entry).unwrap();
    e.data().to_vec()
}

/// When the `mshconv` binary is built beside this test, `mshconv convert
/// units.rlb:ENTRY OUT.glb --game-dir DIR` must write `glb` byte for byte.
fn assert_cli_binary_agrees(entry: &str, glb: &[u8]) {
    let Some(cli) = cli_binary() else {
        eprintln!("note: the mshconv binary is not built beside this test; compared with the library call the CLI makes");
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let glb_path = out.path().join("out.glb");
    let status = std::process::Command::new(cli)
        .env_remove("MSHCONV_GAME_DIR")
        .arg("convert")
        .arg(format!(
            "{}:{entry}",
            game_dir().join("units.rlb").display()
        ))
        .arg(&glb_path)
        .arg("--game-dir")
        .arg(game_dir())
        .arg("--quiet")
        .status()
        .unwrap();
    assert!(
        status.success(),
        "mshconv convert {entry} --game-dir failed"
    );
    assert!(
        std::fs::read(&glb_path).unwrap() == glb,
        "`mshconv convert units.rlb:{entry} --game-dir` differs from the service (if the CLI binary is stale, rebuild it)"
    );
}

fn part(bytes: Vec<u8>, name: &str) -> Part {
    Part::bytes(bytes).file_name(name.to_string())
}

/// The notes' codes of a response.
fn note_codes(r: &reqwest::Response) -> Vec<String> {
    let notes: serde_json::Value =
        serde_json::from_str(r.headers()["x-mshconv-notes"].to_str().unwrap()).unwrap();
    notes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["code"].as_str().unwrap().to_string())
        .collect()
}

/// The JSON chunk of a GLB.
fn glb_json(glb: &[u8]) -> serde_json::Value {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + len]).unwrap()
}

fn image_count(glb: &[u8]) -> usize {
    glb_json(glb)
        .get("images")
        .and_then(|i| i.as_array())
        .map_or(0, Vec::len)
}

async fn post(server: &TestServer, query: &str, form: Form) -> reqwest::Response {
    client()
        .post(server.url(query))
        .multipart(form)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_entry_with_game_dir_is_the_clis_textured_glb() {
    let server = TestServer::start(with_game()).await;
    let plain = TestServer::start(config()).await;
    for (entry, stem) in [("TANK.MSH", "TANK"), ("ROBOT.MSH", "ROBOT")] {
        let form = || Form::new().part("file", part(game_file("units.rlb"), "units.rlb"));
        let query = format!("/v1/convert?to=glb&entry={entry}");
        let r = post(&server, &query, form()).await;
        assert_eq!(r.status(), 200);
        let codes = note_codes(&r);
        let body = r.bytes().await.unwrap();
        let cli = cli_glb(
            &entry_bytes(entry),
            ModelLocation::Entry {
                archive: game_dir().join("units.rlb"),
                entry: entry.into(),
            },
            stem,
        );
        assert_eq!(body, cli.main().bytes, "{entry}");
        assert_cli_binary_agrees(entry, &body);
        let cli_codes: Vec<&str> = cli.report.notes.iter().map(|n| n.code).collect();
        assert_eq!(codes, cli_codes, "{entry}");
        assert!(image_count(&body) > 0, "{entry}");
        if entry == "ROBOT.MSH" {
            assert!(
                codes.iter().any(|c| c == "game.material_default"),
                "{codes:?}"
            );
        }
        // Without --game-dir: the export as always, no image.
        let r = post(&plain, &query, form()).await;
        assert_eq!(r.status(), 200);
        assert!(!note_codes(&r).iter().any(|c| c.starts_with("game.")));
        assert_eq!(image_count(&r.bytes().await.unwrap()), 0);
    }
    server.stop().await;
    plain.stop().await;
}

/// A loose model with its WEAR and both libraries as fields, without a game
/// folder: the same GLB as the CLI's `convert models/wreck.msh --game-dir`.
/// With --game-dir, the field `wear` alone does it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_give_a_single_model_its_look() {
    let server = TestServer::start(config()).await;
    let wreck = game_file("models/wreck.msh");
    let cli = cli_glb(
        &wreck,
        ModelLocation::File(game_dir().join("models/wreck.msh")),
        "wreck",
    );
    let cli_codes: Vec<&str> = cli.report.notes.iter().map(|n| n.code).collect();
    let form = Form::new()
        .part("file", part(wreck.clone(), "wreck.msh"))
        .part("wear", part(game_file("models/wreck.wea"), "wreck.wea"))
        .part("materials", part(game_file("Material.lib"), "Material.lib"))
        .part("textures", part(game_file("Textures.lib"), "Textures.lib"));
    let r = post(&server, "/v1/convert?to=glb", form).await;
    assert_eq!(r.status(), 200);
    assert_eq!(note_codes(&r), cli_codes);
    let body = r.bytes().await.unwrap();
    assert_eq!(body, cli.main().bytes);
    assert!(image_count(&body) > 0);
    server.stop().await;

    let server = TestServer::start(with_game()).await;
    let form = || Form::new().part("file", part(wreck.clone(), "wreck.msh"));
    let r = post(
        &server,
        "/v1/convert?to=glb",
        form().part("wear", part(game_file("models/wreck.wea"), "wreck.wea")),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.unwrap(), cli.main().bytes);

    // No WEAR: exported untextured, and the notes say why.
    let r = post(&server, "/v1/convert?to=glb", form()).await;
    assert_eq!(r.status(), 200);
    assert_eq!(note_codes(&r), ["game.no_wear"]);
    let body = r.bytes().await.unwrap();
    assert_eq!(image_count(&body), 0);
    assert_eq!(glb_json(&body), glb_json(&library_glb(&wreck, "wreck")));

    // A .gltf with its PNG files: a zip of them.
    let r = post(
        &server,
        "/v1/convert?to=gltf",
        form().part("wear", part(game_file("models/wreck.wea"), "wreck.wea")),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/zip");
    let zip = r.bytes().await.unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&zip[..])).unwrap();
    let names: Vec<String> = archive.file_names().map(str::to_string).collect();
    assert!(names.contains(&"wreck.gltf".to_string()), "{names:?}");
    let pngs: Vec<&String> = names.iter().filter(|n| n.ends_with(".png")).collect();
    assert!(!pngs.is_empty(), "{names:?}");
    let mut png = Vec::new();
    archive
        .by_name(pngs[0])
        .unwrap()
        .read_to_end(&mut png)
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");

    // A .usda with its PNG files: a zip too; untextured it stays one file.
    let r = post(
        &server,
        "/v1/convert?to=usda",
        form().part("wear", part(game_file("models/wreck.wea"), "wreck.wea")),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/zip");
    let zip = r.bytes().await.unwrap();
    let archive = zip::ZipArchive::new(std::io::Cursor::new(&zip[..])).unwrap();
    let names: Vec<&str> = archive.file_names().collect();
    assert!(names.contains(&"wreck.usda"), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with(".png")), "{names:?}");
    let r = post(&server, "/v1/convert?to=usda", form()).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "model/vnd.usda");
    server.stop().await;
}

/// A damaged field is a note (the export goes on untextured); the fields on
/// a conversion they cannot change are 400; the body limit counts them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_and_misplaced_fields() {
    let server = TestServer::start(config()).await;
    let wreck = game_file("models/wreck.msh");
    let form = || Form::new().part("file", part(wreck.clone(), "wreck.msh"));
    let wear = || part(game_file("models/wreck.wea"), "wreck.wea");
    let cases = [
        (
            form()
                .part("wear", part(b"not a WEAR".to_vec(), "x.wea"))
                .part("materials", part(game_file("Material.lib"), "m.lib")),
            "game.bad_wear",
        ),
        (
            form()
                .part("wear", wear())
                .part("materials", part(b"NRes damaged".to_vec(), "m.lib")),
            "game.bad_material_lib",
        ),
        (
            form()
                .part("wear", wear())
                .part("materials", part(game_file("Material.lib"), "m.lib"))
                .part(
                    "textures",
                    part(game_file("damaged/lib__Material.lib"), "t.lib"),
                ),
            "game.no_texture",
        ),
        (
            form()
                .part("wear", wear())
                .part("materials", part(game_file("Material.lib"), "m.lib"))
                .part("textures", part(vec![0; 3], "t.lib")),
            "game.bad_textures_lib",
        ),
        (form().part("wear", wear()), "game.no_material_lib"),
    ];
    for (form, code) in cases {
        let r = post(&server, "/v1/convert?to=glb", form).await;
        assert_eq!(r.status(), 200, "{code}");
        let codes = note_codes(&r);
        assert!(codes.iter().any(|c| c == code), "{code}: {codes:?}");
        assert_eq!(image_count(&r.bytes().await.unwrap()), 0, "{code}");
    }

    // Fields on an import, or a WEAR for a whole archive: 400.
    let glb = library_glb(&wreck, "wreck");
    let r = post(
        &server,
        "/v1/convert?to=msh",
        Form::new()
            .part("file", part(glb, "wreck.glb"))
            .part("wear", wear()),
    )
    .await;
    problem(r, 400, "request.multipart").await;
    let r = post(
        &server,
        "/v1/archive/convert?to=glb",
        Form::new()
            .part("file", part(game_file("units.rlb"), "units.rlb"))
            .part("wear", wear()),
    )
    .await;
    problem(r, 400, "request.multipart").await;
    server.stop().await;

    // The body limit covers every field.
    let limit = wreck.len() + 4096;
    let server = TestServer::start(mshconv_server::Config {
        max_body: limit,
        ..config()
    })
    .await;
    let r = post(
        &server,
        "/v1/convert?to=glb",
        form().part("textures", part(game_file("Textures.lib"), "t.lib")),
    )
    .await;
    problem(r, 413, "request.too_large").await;
    server.stop().await;
}

/// Every model of an uploaded archive gets its `.WEA` sibling's look; the
/// libraries may come as fields.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archive_convert_textures_each_model() {
    let server = TestServer::start(config()).await;
    let form = Form::new()
        .part("file", part(game_file("units.rlb"), "units.rlb"))
        .part("materials", part(game_file("Material.lib"), "Material.lib"))
        .part("textures", part(game_file("Textures.lib"), "Textures.lib"));
    let r = post(&server, "/v1/archive/convert?to=glb", form).await;
    assert_eq!(r.status(), 200);
    let zip = r.bytes().await.unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&zip[..])).unwrap();
    for (entry, stem) in [
        ("TANK.MSH", "TANK"),
        ("ROBOT.MSH", "ROBOT"),
        ("DEPOT.MSH", "DEPOT"),
    ] {
        let mut glb = Vec::new();
        archive
            .by_name(&format!("{stem}.glb"))
            .unwrap()
            .read_to_end(&mut glb)
            .unwrap();
        let cli = cli_glb(
            &entry_bytes(entry),
            ModelLocation::Entry {
                archive: game_dir().join("units.rlb"),
                entry: entry.into(),
            },
            stem,
        );
        assert_eq!(glb, cli.main().bytes, "{entry}");
    }
    let mut report = Vec::new();
    archive
        .by_name("report.json")
        .unwrap()
        .read_to_end(&mut report)
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&report).unwrap();
    assert!(
        report.to_string().contains("game.material_default"),
        "{report}"
    );
    server.stop().await;
}
