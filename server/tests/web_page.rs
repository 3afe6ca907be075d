//! The web page (`GET /`) in a real browser: Debian's `chromium`, headless,
//! driven by `playwright-core` (pinned in `tools/browser/`), runs
//! `server/web/tests/page.mjs` against a live server. The script opens the
//! animated walker (preview not blank, the picture changes as the animation
//! plays and scrubs, LOD picker, validation report, node tree), downloads the
//! `.glb` (which must be the CLI's output byte for byte, also with `--lod 1`),
//! opens a damaged model (the error in words), imports a `.glb`, a foreign
//! `.glb` and an `.obj` with its `.mtl` (import report, `.msh` download, the
//! imported model previewed), and picks a model out of an `.rlb`. It reads the
//! damaged model tolerantly (findings, inspection, why there is no 3D view),
//! puts a model into an `.rlb` (added, and in place of an entry: the archives
//! must be the application layer's editor's, byte for byte), and downloads
//! every model of the `.rlb` as a zip (the API's bytes). Screenshots,
//! downloads and the script's report land in `test-output/web/`.
//!
//! `scripts/setup-browser.sh` installs what it needs (`scripts/test.sh` runs
//! it). When chromium, node or playwright-core is missing, the test fails if
//! `CI` is set and is skipped with a message otherwise. `MSHCONV_CHROMIUM`
//! names another chromium binary.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The whole browser run's limit (the script's own waits are 60 s each).
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// The damaged fixture the page must explain, and words its explanation has.
const DAMAGED_WORDS: &str = "not a multiple of 3";
/// A foreign glTF whose import report says a scale was baked.
const FOREIGN_GLB: &str = "fixtures/foreign/gltf/blender_scene.glb";
const FOREIGN_NOTE: &str = "import.scale_baked";
const OBJ: &str = "fixtures/foreign/obj/blender_scene.obj";
const MTL: &str = "fixtures/foreign/obj/blender_scene.mtl";
const ENTRY: &str = "M123_DOME.MSH";
/// The clips the page applies to the walker (29 frames).
const CLIPS: &str = "idle=0..9:loop,walk=10..28:pingpong";

/// The colour of the one texture the page's look files give the walker.
const LOOK_COLOUR: [u8; 3] = [0, 255, 0];
/// The colour of the same texture in a walker exported with another
/// `Textures.lib`: its own texture, which the import preview must show.
const OWN_COLOUR: [u8; 3] = [255, 0, 0];

/// The game's look for the walker, written under `out/look/`: a WEAR whose
/// every row (as many as the walker's material indices need) names `GREEN`, a
/// `Material.lib` with `GREEN` (texture `GREEN_TEX`), a `Textures.lib` with
/// `GREEN_TEX`, 8 x 8 pixels of [`LOOK_COLOUR`] (565, exact), and another
/// `Textures.lib` whose `GREEN_TEX` is [`OWN_COLOUR`]. Their paths and the
/// colours, for the script.
fn look_files(out: &Path) -> serde_json::Value {
    use mshconv_material::texm::{PixelFormat, Rgba8Image};
    let solid = |[r, g, b]: [u8; 3]| Rgba8Image {
        width: 8,
        height: 8,
        pixels: [r, g, b, 255].repeat(64),
    };
    let [wear, materials, textures] = walker_look(&solid(LOOK_COLOUR), PixelFormat::Rgb565);
    let [_, _, own_textures] = walker_look(&solid(OWN_COLOUR), PixelFormat::Rgb565);
    let dir = out.join("look");
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        ("m095_walker.wea", wear),
        ("Material.lib", materials),
        ("Textures.lib", textures),
        ("Own-Textures.lib", own_textures),
    ];
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    serde_json::json!({
        "wear": dir.join(files[0].0),
        "materials": dir.join(files[1].0),
        "textures": dir.join(files[2].0),
        "colour": LOOK_COLOUR,
        "ownTextures": dir.join(files[3].0),
        "ownColour": OWN_COLOUR,
    })
}

/// The archive with the walker put in as `entry`, as the application layer's
/// editor writes it (what `/v1/archive/put` must answer), saved under `out`.
fn reference_put(out: &Path, entry: &str) -> PathBuf {
    let mut editor = mshconv_app::archive::Editor::open(&fixture(ARCHIVE)).unwrap();
    editor.put(entry, None, fixture(WALKER)).unwrap();
    let dir = out.join("reference-put");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{entry}.rlb"));
    std::fs::write(&path, editor.write().unwrap()).unwrap();
    path
}

fn chromium() -> PathBuf {
    std::env::var_os("MSHCONV_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// What is missing to run the browser, if anything.
fn missing() -> Option<String> {
    let chromium = chromium();
    if !chromium.is_file() {
        return Some(format!("no chromium at {}", chromium.display()));
    }
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Some("no node on PATH".to_string());
    }
    let playwright = repo().join("tools/browser/node_modules/playwright-core/package.json");
    if !playwright.is_file() {
        return Some("tools/browser/node_modules has no playwright-core".to_string());
    }
    None
}

/// The reference `.glb` of the walker with `flags`: what the library call the
/// CLI makes writes, checked against the CLI binary itself when it is built.
fn reference_glb(out: &Path, flags: &[&str]) -> PathBuf {
    let (lod, clips) = match flags {
        ["--lod", l] => (l.parse().unwrap(), None),
        ["--clips", c] => (0, Some(c.parse().unwrap())),
        [] => (0, None),
        _ => panic!("flags {flags:?}"),
    };
    let options = mshconv_gltf::ExportOptions {
        lod,
        clips,
        name: "m095_walker".to_string(),
        ..Default::default()
    };
    let library = mshconv_gltf::msh_to_gltf(&fixture(WALKER), &options)
        .unwrap()
        .0;
    let tag = flags
        .concat()
        .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_");
    let dir = out.join(format!("reference{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m095_walker.glb");
    std::fs::write(&path, &library).unwrap();
    if let Some(cli) = cli_binary() {
        let cli_out = dir.join("cli.glb");
        let status = Command::new(cli)
            .arg("convert")
            .arg(WALKER)
            .arg(&cli_out)
            .args(flags)
            .arg("--quiet")
            .current_dir(repo())
            .status()
            .unwrap();
        assert!(status.success(), "mshconv convert {flags:?} failed");
        assert!(
            std::fs::read(&cli_out).unwrap() == library,
            "`mshconv convert {flags:?}` differs from the library (if the CLI binary is stale, rebuild it)"
        );
    } else {
        eprintln!("note: the mshconv binary is not built beside this test; the reference is the library's output (the CLI's call)");
    }
    path
}

/// The code expected.json gives the damaged fixture.
fn damaged_code() -> String {
    let expected: serde_json::Value =
        serde_json::from_slice(&fixture("fixtures/small/damaged/expected.json")).unwrap();
    let file = Path::new(DAMAGED).file_name().unwrap().to_str().unwrap();
    expected["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["file"] == file)
        .and_then(|c| c["code"].as_str())
        .unwrap_or_else(|| panic!("expected.json has no case for {file}"))
        .to_string()
}

/// Runs the script to its end (killed at [`RUN_LIMIT`]): exit status, stdout, stderr.
fn run_script(config: &Path) -> (std::process::ExitStatus, String, String) {
    let mut child = Command::new("node")
        .arg(repo().join("server/web/tests/page.mjs"))
        .arg(config)
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run node");
    // Read both pipes on threads so a full pipe never blocks the script.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let status = child.wait().unwrap();
            eprintln!("the browser test ran over {RUN_LIMIT:?} and was killed");
            break status;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (status, out.join().unwrap(), err.join().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_works_in_a_real_browser() {
    if let Some(what) = missing() {
        let message = format!("the browser test needs chromium, node and playwright-core: {what}; run scripts/setup-browser.sh (scripts/test.sh does)");
        if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
            panic!("{message}");
        }
        eprintln!("skipped: {message}");
        return;
    }
    let started = Instant::now();
    let out = repo().join("test-output/web");
    if out.exists() {
        std::fs::remove_dir_all(&out).unwrap();
    }
    std::fs::create_dir_all(&out).unwrap();
    let out = out.canonicalize().unwrap();
    let glb = reference_glb(&out, &[]);
    let glb_lod1 = reference_glb(&out, &["--lod", "1"]);
    let glb_clips = reference_glb(&out, &["--clips", CLIPS]);
    let put_added = reference_put(&out, "M095_WALKER.MSH");
    let put_replaced = reference_put(&out, ENTRY);

    let server = TestServer::start(config()).await;
    let abs = |p: &str| repo().join(p).canonicalize().unwrap();
    let config = serde_json::json!({
        "url": server.base,
        "out": out,
        "chromium": chromium(),
        "walker": abs(WALKER),
        "walkerGlb": glb,
        "walkerGlbLod1": glb_lod1,
        "walkerGlbClips": glb_clips,
        "clips": CLIPS,
        "damaged": abs(DAMAGED),
        "damagedCode": damaged_code(),
        "damagedWords": DAMAGED_WORDS,
        "foreignGlb": abs(FOREIGN_GLB),
        "foreignNote": FOREIGN_NOTE,
        "obj": abs(OBJ),
        "mtl": abs(MTL),
        "archive": abs(ARCHIVE),
        "archiveEntry": ENTRY,
        "putAdded": put_added,
        "putReplaced": put_replaced,
        "look": look_files(&out),
    });
    let config_path = out.join("config.json");
    std::fs::write(&config_path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();

    let (status, stdout, stderr) = tokio::task::spawn_blocking(move || run_script(&config_path))
        .await
        .unwrap();
    // What the API answers for the whole archive, to compare the page's download with.
    let archive_zip = client()
        .post(server.url("/v1/archive/convert?to=glb"))
        .multipart(form(fixture(ARCHIVE), "small.rlb"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    server.stop().await;

    let report: serde_json::Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| {
            panic!("no JSON report from page.mjs ({status})\nstdout:\n{stdout}\nstderr:\n{stderr}")
        });
    assert!(
        status.success() && report["ok"] == true,
        "the browser test failed at {}: {}\n{}\nstderr:\n{stderr}",
        report["step"],
        report["error"],
        serde_json::to_string_pretty(&report).unwrap()
    );
    // The script checked these; the files it left say so too.
    let downloaded = |p: &str| std::fs::read(out.join("downloads").join(p)).unwrap();
    assert_eq!(
        downloaded("walker/m095_walker.glb"),
        std::fs::read(&glb).unwrap()
    );
    assert_eq!(
        downloaded("walker-lod1/m095_walker.glb"),
        std::fs::read(&glb_lod1).unwrap()
    );
    assert_eq!(downloaded("from-glb/m095_walker.msh"), fixture(WALKER));
    assert_eq!(
        downloaded("put-added/small.rlb"),
        std::fs::read(&put_added).unwrap()
    );
    assert_eq!(
        downloaded("put-replaced/small.rlb"),
        std::fs::read(&put_replaced).unwrap()
    );
    let added = downloaded("put-added/small.rlb");
    let added = nres::Archive::parse(&added).unwrap();
    assert!(
        added.find_by_name("m095_walker.msh").unwrap().data() == &fixture(WALKER)[..],
        "the game's lookup finds the added model"
    );
    assert!(downloaded("archive-glb/small.zip") == archive_zip[..]);
    for shot in [
        "walker",
        "walker-played",
        "page-damaged",
        "page-import-obj",
        "archive-entry",
        "page-damaged-tolerant",
        "import-glb-preview",
        "page-put-added",
        "textured",
        "untextured",
    ] {
        assert!(out.join(format!("{shot}.png")).is_file(), "{shot}.png");
    }
    let checks = report["checks"].as_array().map_or(0, Vec::len);
    assert!(checks >= 70, "only {checks} checks ran");
    let pixels = &report["pixels"];
    assert!(
        pixels["walker"]["model"].as_u64().unwrap() > 1000,
        "{pixels}"
    );
    assert!(pixels["played"].as_u64().unwrap() > 50, "{pixels}");
    // The look's colour covers most of the textured model, and is gone without the files.
    let count = |shot: &str, what: &str| pixels[shot][what].as_u64().unwrap();
    assert!(
        count("textured", "colour") * 2 > count("textured", "model"),
        "{pixels}"
    );
    assert!(
        count("untextured", "colour") * 50 < count("untextured", "model"),
        "{pixels}"
    );
    eprintln!(
        "browser test: {checks} checks passed in {:.1} s ({}; WebGL: {}); screenshots in test-output/web/",
        started.elapsed().as_secs_f64(),
        report["browser"],
        report["webgl"]
    );
}
