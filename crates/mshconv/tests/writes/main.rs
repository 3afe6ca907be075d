//! Writing the user's files (docs/ROBUSTNESS.md, "Writing your files"), with
//! the real binary: writers of one folder take turns and all land; a write
//! killed at any point of its transaction is finished by the next command; a
//! failure (injected, or a real full tmpfs) restores every file; temporary
//! files never follow a planted link; modes, groups and links are kept;
//! read-only and hard-linked files are refused.
//!
//! Kills and failures at chosen points use the test-only hook
//! `MSHCONV_TEST_TXN` (`stop:N`, `pause:N`, `fail:N`; mshconv_app::txn).

#[path = "../common/mod.rs"]
mod common;
mod full_disk;
mod kills;
mod locked_checks;
mod owners;
mod planted;
mod together;

pub use common::{copy_game, files, BIN};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The hook's environment variable.
pub const HOOK: &str = "MSHCONV_TEST_TXN";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/small")
        .join(rel)
}

/// Asserts that two snapshots of [`files`] are equal, naming the files
/// that differ (not their bytes).
#[track_caller]
pub fn assert_same(
    now: &BTreeMap<PathBuf, Vec<u8>>,
    then: &BTreeMap<PathBuf, Vec<u8>>,
    what: &str,
) {
    let differ: Vec<_> = now
        .keys()
        .chain(then.keys())
        .filter(|k| now.get(*k) != then.get(*k))
        .collect();
    assert!(differ.is_empty(), "{what}: these files differ: {differ:?}");
}

/// The hidden files directly in `dir` (journals, locks, temporary files).
pub fn hidden(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// `args` with `--add` when they put a model into an archive (`convert X
/// ARCHIVE.rlb:ENTRY`, `batch --into`): these tests add new entries, and
/// `--add` also replaces an existing one.
pub fn adding<'a>(args: &[&'a OsStr]) -> Vec<&'a OsStr> {
    let mut v = args.to_vec();
    let puts = args
        .first()
        .is_some_and(|a| *a == "convert" || *a == "batch")
        && args
            .iter()
            .any(|a| *a == "--into" || a.to_string_lossy().to_ascii_lowercase().contains(".rlb:"));
    if puts {
        v.push(OsStr::new("--add"));
    }
    v
}

/// A command line made for the folder `root`.
pub type CommandLine = Box<dyn Fn(&Path) -> Vec<std::ffi::OsString>>;

/// Runs mshconv with `args` (no game folder from the environment, no hook).
pub fn mshconv(args: &[&OsStr]) -> Output {
    Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .env_remove(HOOK)
        .args(adding(args))
        .output()
        .unwrap()
}

/// Like [`mshconv`], and it must succeed.
pub fn ok(args: &[&OsStr]) -> Output {
    let out = mshconv(args);
    assert!(
        out.status.success(),
        "mshconv {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `s` as an argument.
pub fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// The entry names of the archive at `path`, in capitals.
pub fn entry_names(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap();
    nres::Archive::parse(&bytes)
        .unwrap()
        .entries()
        .map(|e| e.name().to_ascii_uppercase())
        .collect()
}

/// The robot of the fixture archive as a `.glb` in `dir`.
pub fn robot_glb(dir: &Path) -> PathBuf {
    let glb = dir.join("robot.glb");
    let input = format!("{}:M143_ROBOT.MSH", fixture("archives/small.rlb").display());
    ok(&[os("convert"), os(&input), glb.as_os_str(), os("-q")]);
    glb
}

/// A `.gltf` of the game folder's tank in `dir` whose material 1 is a new
/// one, `Hull{tag}`, with a new texture `paint{tag}`: importing it with
/// `--game-dir` changes both libraries.
pub fn tank_with_new_look(game: &Path, dir: &Path, tag: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let gltf = dir.join("tank.gltf");
    let input = format!("{}:TANK.MSH", game.join("units.rlb").display());
    ok(&[
        os("convert"),
        os(&input),
        gltf.as_os_str(),
        os("--game-dir"),
        game.as_os_str(),
        os("-q"),
    ]);
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    let png = format!("paint{tag}.png");
    std::fs::copy(dir.join("tank_FIRE_8888.png"), dir.join(&png)).unwrap();
    let images = json["images"].as_array_mut().unwrap();
    images.push(serde_json::json!({ "uri": png, "name": format!("paint{tag}") }));
    let image = images.len() - 1;
    let textures = json["textures"].as_array_mut().unwrap();
    textures.push(serde_json::json!({ "source": image, "sampler": 0 }));
    let texture = textures.len() - 1;
    let materials = json["materials"].as_array_mut().unwrap();
    let m = materials
        .iter_mut()
        .find(|m| m["extras"]["msh"]["material"] == 1)
        .unwrap();
    m["name"] = format!("Hull{tag}").into();
    m.as_object_mut().unwrap().remove("extras");
    m["pbrMetallicRoughness"]["baseColorTexture"] = serde_json::json!({ "index": texture });
    std::fs::write(&gltf, serde_json::to_vec(&json).unwrap()).unwrap();
    gltf
}

/// A tmpfs mounted for a test, unmounted when dropped.
pub struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A tmpfs of `kib` KiB mounted at `at` (made if need be); `None` where
/// mounting is not permitted (not root).
pub fn mount_tmpfs(at: &Path, kib: u64) -> Option<Mount> {
    std::fs::create_dir_all(at).unwrap();
    let status = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
        .arg(at)
        .stderr(Stdio::null())
        .status()
        .ok()?;
    status.success().then(|| Mount(at.to_path_buf()))
}
