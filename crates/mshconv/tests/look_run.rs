//! The look goes where the model goes (issue 31): a batch's models never
//! undo each other's edits of a shared entry and refuse two different edits
//! of one; an edit other models show is said; a game folder without
//! libraries is refused; a look not written for want of `--game-dir` is
//! said with the command that writes it; what a replaced entry loses is
//! said; `batch --dry-run` lists and writes nothing. Over copies of the
//! fixture game folder (`fixtures/small/game`), with the real binary.

mod common;

use common::{copy_tree, paint, tree, BIN};
use mshconv_material::texm::Rgba8Image;
use mshconv_material::Texm;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/small")
        .join(rel)
}

/// A copy of the fixture game folder at `to`.
fn copy_game(to: &Path) {
    copy_tree(&fixture("game"), to);
}

/// The binary's exit code, stdout and stderr for the arguments of `line`
/// (split at spaces), run in `dir` without `MSHCONV_GAME_DIR`.
fn mshconv(dir: &Path, line: &str) -> (i32, String, String) {
    mshconv_args(dir, &line.split_whitespace().collect::<Vec<_>>())
}

fn mshconv_args(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    )
}

/// Runs `line` and expects exit 0; returns (stdout, stderr).
fn ok(dir: &Path, line: &str) -> (String, String) {
    let (code, stdout, stderr) = mshconv(dir, line);
    assert_eq!(code, 0, "mshconv {line}: {stderr}");
    (stdout, stderr)
}

/// A temporary folder with a copy of the fixture game folder (`game/`) and
/// `.gltf` exports of the archive's `entries` in `edit/`.
fn setup(entries: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_game(&tmp.path().join("game"));
    export(tmp.path(), "edit", entries);
    tmp
}

/// `.gltf` exports (PNGs beside) of the fixture archive's entries into `dir/NAME`.
fn export(root: &Path, dir: &str, entries: &[&str]) {
    std::fs::create_dir_all(root.join(dir)).unwrap();
    for entry in entries {
        ok(
            root,
            &format!("convert game/units.rlb:{entry}.MSH {dir}/{entry}.gltf --game-dir game"),
        );
    }
}

/// Mip 0 of the `Textures.lib` entry `name`, decoded.
fn texture(lib: &Path, name: &str) -> Rgba8Image {
    let bytes = std::fs::read(lib).unwrap();
    let archive = nres::Archive::parse(&bytes).unwrap();
    let e = archive.entries().find(|e| e.name() == name).unwrap();
    Texm::parse(e.data()).unwrap().decode_rgba8().unwrap()
}

// Colours 565 holds exactly (so the re-encoded texture decodes to them).
const MAGENTA: [u8; 4] = [0xFF, 0x00, 0x84, 0xFF];
const GREEN: [u8; 4] = [0x00, 0xFF, 0x00, 0xFF];

#[test]
fn an_unedited_model_never_undoes_another_models_edit_whatever_the_order() {
    // DEPOT and ROBOT both show DEFAULT.0 (through the DEFAULT material).
    // The batch plans DEPOT before ROBOT: the edit is made first in one run
    // and last in the other.
    for edited in ["DEPOT", "ROBOT"] {
        let tmp = setup(&["DEPOT", "ROBOT"]);
        let root = tmp.path();
        let image = paint(&root.join(format!("edit/{edited}_DEFAULT_0.png")), MAGENTA);
        let (_, stderr) = ok(
            root,
            "batch edit --to msh --into game/units.rlb --game-dir game",
        );
        assert_eq!(
            texture(&root.join("game/Textures.lib"), "DEFAULT.0"),
            image,
            "{edited} edited: the edit stays"
        );
        assert_eq!(
            stderr.matches("note[look.texture_replaced]").count(),
            1,
            "{stderr}"
        );
        // The other models that show it: the game folder's and the run's
        // (not those of nodefault/, a game folder of its own).
        let other = if edited == "DEPOT" { "ROBOT" } else { "DEPOT" };
        let shared = stderr
            .lines()
            .find(|l| l.starts_with("note[look.shared_edit]"))
            .unwrap_or_else(|| panic!("{stderr}"));
        assert!(
            shared.contains("DEFAULT.0 is edited, and 3 other models show it too: models/Dome.msh, models/pipe.msh, edit/")
                && shared.ends_with(&format!("edit/{other}.gltf")),
            "{shared}"
        );
        assert!(!shared.contains("nodefault"), "{shared}");
    }
}

#[test]
fn two_different_edits_of_one_entry_refuse_the_run_and_write_nothing() {
    let tmp = setup(&["DEPOT", "ROBOT"]);
    let root = tmp.path();
    let before = tree(&root.join("game"));
    paint(&root.join("edit/DEPOT_DEFAULT_0.png"), MAGENTA);
    paint(&root.join("edit/ROBOT_DEFAULT_0.png"), GREEN);
    let args = "batch edit --to msh --into game/units.rlb --game-dir game";
    let (code, _, stderr) = mshconv(root, args);
    assert_eq!(code, 1, "{stderr}");
    let conflict =
        "edit/DEPOT.gltf and edit/ROBOT.gltf edit Textures.lib entry DEFAULT.0 differently";
    assert_eq!(
        stderr.matches("error[look.edit_conflict]").count(),
        2,
        "{stderr}"
    );
    assert!(stderr.contains(conflict), "{stderr}");
    assert!(
        tree(&root.join("game")) == before,
        "the game folder changed"
    );

    // The same edit in both is one edit.
    paint(&root.join("edit/ROBOT_DEFAULT_0.png"), MAGENTA);
    ok(root, args);
    assert_eq!(
        texture(&root.join("game/Textures.lib"), "DEFAULT.0").pixels[..4],
        MAGENTA
    );

    // Two different edits of one material (its MAT0 fields) are refused too.
    let tmp = setup(&["DEPOT", "ROBOT"]);
    let root = tmp.path();
    let before = tree(&root.join("game"));
    for (model, value) in [("DEPOT", 1), ("ROBOT", 2)] {
        set_phase_parameter(&root.join(format!("edit/{model}.gltf")), "DEFAULT", value);
    }
    let (code, _, stderr) = mshconv(root, args);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "edit/DEPOT.gltf and edit/ROBOT.gltf edit Material.lib entry DEFAULT differently"
        ),
        "{stderr}"
    );
    assert!(
        tree(&root.join("game")) == before,
        "the game folder changed"
    );
}

#[test]
fn editing_a_texture_other_models_show_is_said_by_convert_too() {
    let tmp = setup(&["TANK"]);
    let root = tmp.path();
    paint(&root.join("edit/TANK_TANK_BODY_0.png"), MAGENTA);
    let (_, stderr) = ok(
        root,
        "convert edit/TANK.gltf game/units.rlb:TANK.MSH --game-dir game",
    );
    // TANK_BODY.0 is pipe's too (its WEAR names TANK_BODY); TANK itself is
    // not counted.
    assert!(
        stderr.contains(
            "note[look.shared_edit]: Textures.lib: TANK_BODY.0 is edited, and 1 other model shows it too: models/pipe.msh\n"
        ),
        "{stderr}"
    );
    // And a material's fields: the same models (pipe's WEAR names TANK_BODY).
    set_phase_parameter(&root.join("edit/TANK.gltf"), "TANK_BODY", 9);
    let (_, stderr) = ok(
        root,
        "convert edit/TANK.gltf game/units.rlb:TANK.MSH --game-dir game",
    );
    assert!(
        stderr.contains(
            "note[look.shared_edit]: Material.lib: TANK_BODY is edited, and 1 other model shows it too: models/pipe.msh\n"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Textures.lib: TANK_BODY.0 is edited"),
        "{stderr}"
    );
}

/// Sets the first phase's first parameter of the recorded MAT0 of the
/// `.gltf`'s material `name` (an edit of the material's fields).
fn set_phase_parameter(gltf: &Path, name: &str, value: u8) {
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(gltf).unwrap()).unwrap();
    let m = json["materials"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["name"] == name)
        .unwrap();
    m["extras"]["msh"]["mat0"]["phases"][0]["parameters"][0] = value.into();
    std::fs::write(gltf, serde_json::to_vec(&json).unwrap()).unwrap();
}

#[test]
fn a_game_folder_without_libraries_is_refused_unless_new_libraries() {
    let tmp = setup(&["TANK"]);
    let root = tmp.path();
    std::fs::create_dir(root.join("empty")).unwrap();
    for args in [
        "convert edit/TANK.gltf empty/tank.msh --game-dir empty",
        "convert edit/TANK.gltf empty/tank.msh --game-dir empty --dry-run",
        "batch edit --to msh --out empty/out --game-dir empty",
    ] {
        let (code, _, stderr) = mshconv(root, args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("error[game_dir.no_libraries]: the game folder")
                && stderr.contains("has no Material.lib and no Textures.lib"),
            "{stderr}"
        );
        assert!(tree(&root.join("empty")).is_empty(), "{args:?} wrote");
        assert!(!root.join("empty/out").exists());
    }
    // A folder with one library lacks the other.
    std::fs::copy(
        root.join("game/Material.lib"),
        root.join("empty/Material.lib"),
    )
    .unwrap();
    let (code, _, stderr) = mshconv(
        root,
        "convert edit/TANK.gltf empty/tank.msh --game-dir empty",
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("has no Textures.lib:"), "{stderr}");
    std::fs::remove_file(root.join("empty/Material.lib")).unwrap();
    ok(
        root,
        "convert edit/TANK.gltf empty/tank.msh --game-dir empty --new-libraries",
    );
    for file in ["Material.lib", "Textures.lib", "tank.msh", "tank.wea"] {
        assert!(root.join("empty").join(file).is_file(), "{file}");
    }
}

/// The command a `look.not_written` note gives, split into its arguments.
fn suggested(stderr: &str) -> Vec<String> {
    let line = stderr
        .lines()
        .find(|l| l.contains("note[look.not_written]"))
        .unwrap_or_else(|| panic!("no look.not_written: {stderr}"));
    let command = line.split_once("this writes it: ").unwrap().1;
    shlex::split(command).unwrap()
}

#[test]
fn without_game_dir_a_look_that_differs_is_a_note_with_the_command_that_writes_it() {
    let tmp = setup(&["DEPOT", "ROBOT"]);
    let root = tmp.path();
    // Unedited: the look is the game's, nothing to say.
    let (_, stderr) = ok(root, "convert edit/ROBOT.gltf game/units.rlb:ROBOT.MSH");
    assert!(!stderr.contains("look.not_written"), "{stderr}");
    // Edited, into the archive of the game folder.
    let image = paint(&root.join("edit/DEPOT_DEFAULT_0.png"), MAGENTA);
    let (_, stderr) = ok(
        root,
        "convert edit/DEPOT.gltf game/units.rlb:DEPOT.MSH --dry-run",
    );
    assert!(
        stderr.contains("note[look.not_written]: its look differs from the game folder game's (replace Textures.lib:DEFAULT.0) and was not written (no --game-dir); this writes it: "),
        "{stderr}"
    );
    let command = suggested(&stderr);
    assert_eq!(
        command[1..],
        [
            "convert",
            "edit/DEPOT.gltf",
            "game/units.rlb:DEPOT.MSH",
            "--game-dir",
            "game"
        ]
    );
    // The command given writes it (and says nothing of the kind again).
    let (code, _, stderr) = mshconv_args(
        root,
        &command[1..].iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("look.not_written"), "{stderr}");
    assert_eq!(texture(&root.join("game/Textures.lib"), "DEFAULT.0"), image);
    // A loose model in a folder of the game: its WEAR would be new (its
    // DEFAULT.0, the one before DEPOT's edit and left as exported, would not
    // undo that edit: the way back is three-way).
    let (_, stderr) = ok(root, "convert edit/ROBOT.gltf game/models/robot.msh");
    assert!(
        stderr.contains("(the WEAR) and was not written"),
        "{stderr}"
    );
    // A batch says it of each model, with the batch's command.
    paint(&root.join("edit/ROBOT_HULL_556.png"), GREEN);
    let (_, stderr) = ok(root, "batch edit --to msh --into game/units.rlb");
    assert!(
        stderr.contains("note[look.not_written]: edit/ROBOT.gltf: its look differs from the game folder game's (replace Textures.lib:HULL_556) "),
        "{stderr}"
    );
    assert_eq!(
        suggested(&stderr)[1..],
        [
            "batch",
            "edit",
            "--to",
            "msh",
            "--into",
            "game/units.rlb",
            "--game-dir",
            "game"
        ]
    );
    // Outside a game folder there is nothing to compare with.
    let (_, stderr) = ok(root, "convert edit/ROBOT.gltf robot.msh");
    assert!(!stderr.contains("look.not_written"), "{stderr}");
}

#[test]
fn replacing_an_entry_with_less_says_what_it_loses_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::copy(fixture("archives/small.rlb"), root.join("small.rlb")).unwrap();
    std::fs::create_dir(root.join("edit")).unwrap();
    ok(
        root,
        "convert small.rlb:M242_ROBOT.MSH edit/M242_ROBOT.obj -q",
    );
    let old = std::fs::read(root.join("small.rlb")).unwrap();
    let entry = |bytes: &[u8]| {
        let a = nres::Archive::parse(bytes).unwrap();
        let e = a.entries().find(|e| e.name() == "M242_ROBOT.MSH").unwrap();
        msh::Model::from_bytes(e.data()).unwrap()
    };
    let before = entry(&old);
    let nodes = before.nodes.len();
    let frames = before.frame_count;
    assert!(nodes > 1 && frames > 1, "a hierarchy with animation");
    // The OBJ has no animation (and no hierarchy to speak of).
    let expect = |m: &msh::Model| {
        format!(
            "small.rlb:M242_ROBOT.MSH loses {} of {nodes} nodes, all {frames} frames",
            nodes - m.nodes.len()
        )
    };
    let (stdout, stderr) = ok(
        root,
        "convert edit/M242_ROBOT.obj small.rlb:M242_ROBOT.MSH --dry-run",
    );
    assert!(stdout.starts_with("would put"), "{stdout}");
    assert_eq!(std::fs::read(root.join("small.rlb")).unwrap(), old);
    let (_, stderr_run) = ok(root, "convert edit/M242_ROBOT.obj small.rlb:M242_ROBOT.MSH");
    let after = entry(&std::fs::read(root.join("small.rlb")).unwrap());
    let line = format!("note[archive.entry_loses]: {}\n", expect(&after));
    assert!(stderr.contains(&line), "{line}\n{stderr}");
    // Said before the entry is replaced.
    let at = stderr_run.find(&line).expect("the run says it too");
    assert!(at < stderr_run.find("note[archive.replaced]").unwrap());
    // batch --into says it of each model it replaces.
    std::fs::write(root.join("small.rlb"), &old).unwrap();
    let (_, stderr) = ok(root, "batch edit --to msh --into small.rlb --dry-run");
    assert!(
        stderr.contains(&format!(
            "note[archive.entry_loses]: edit/M242_ROBOT.obj: {}",
            expect(&after)
        )),
        "{stderr}"
    );
    // An unedited glTF loses nothing.
    ok(
        root,
        "convert small.rlb:M242_ROBOT.MSH edit/M242_ROBOT.glb -q",
    );
    let (_, stderr) = ok(root, "convert edit/M242_ROBOT.glb small.rlb:M242_ROBOT.MSH");
    assert!(!stderr.contains("entry_loses"), "{stderr}");
}

/// `would write PATH (N bytes)` / `would put ARCHIVE:ENTRY (N bytes)` lines.
fn listed(stdout: &str) -> Vec<(String, usize)> {
    stdout
        .lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("would write ")
                .or_else(|| l.strip_prefix("would put "))?;
            let (path, size) = rest.rsplit_once(" (")?;
            let n = size.split(' ').next()?.parse().ok()?;
            Some((path.to_string(), n))
        })
        .collect()
}

#[test]
fn batch_dry_run_lists_what_a_run_writes_and_writes_nothing() {
    let tmp = setup(&["DEPOT", "ROBOT"]);
    let root = tmp.path();
    paint(&root.join("edit/DEPOT_DEFAULT_0.png"), MAGENTA);
    let everything = |root: &Path| {
        let mut all = tree(&root.join("game"));
        if root.join("out").exists() {
            all.extend(
                tree(&root.join("out"))
                    .into_iter()
                    .map(|(k, v)| (Path::new("out").join(k), v)),
            );
        }
        all
    };
    // Into a folder: each .msh and .wea, then the library.
    let before = everything(root);
    let args = "batch edit --to msh --out out --game-dir game";
    let (stdout, stderr) = ok(root, &format!("{args} --dry-run"));
    assert!(
        stderr.contains("batch (dry run, nothing written): 2 converted"),
        "{stderr}"
    );
    assert!(
        stdout.contains("Textures.lib: replace DEFAULT.0"),
        "{stdout}"
    );
    assert!(everything(root) == before, "the dry run wrote");
    assert!(!root.join("out").exists());
    let mut would = listed(&stdout);
    ok(root, args);
    let after = everything(root);
    let mut wrote: Vec<(String, usize)> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v) && !k.to_string_lossy().ends_with(".bak"))
        .map(|(k, v)| {
            let path = if k.starts_with("out") {
                k.display().to_string()
            } else {
                format!("game/{}", k.display())
            };
            (path, v.len())
        })
        .collect();
    // (the library is listed as the absolute path of the game folder)
    for (path, _) in &mut would {
        if let Some(i) = path.find("game/") {
            path.replace_range(..i, "");
        }
    }
    would.sort();
    wrote.sort();
    assert_eq!(would, wrote);

    // Into the archive: each entry and WEAR entry, the archive untouched.
    let tmp = setup(&["DEPOT", "ROBOT"]);
    let root = tmp.path();
    let before = tree(&root.join("game"));
    let (stdout, _) = ok(
        root,
        "batch edit --to msh --into game/units.rlb --game-dir game --dry-run",
    );
    assert!(tree(&root.join("game")) == before, "the dry run wrote");
    let names: Vec<String> = listed(&stdout).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        names,
        [
            "game/units.rlb:DEPOT.MSH",
            "game/units.rlb:ROBOT.MSH",
            "game/units.rlb:DEPOT.wea",
            "game/units.rlb:ROBOT.wea"
        ],
        "{stdout}"
    );
    // --report would be a file written: refused with --dry-run.
    let (code, _, _) = mshconv(
        root,
        "batch edit --to msh --out o --dry-run --report r.json",
    );
    assert_eq!(code, 2);
}

#[test]
fn one_model_with_two_different_edits_of_one_texture_is_refused() {
    // Two of the tank's images claim TANK_BODY.0 (an image duplicated in an
    // editor with its extras, each copy painted otherwise).
    let tmp = setup(&["TANK"]);
    let root = tmp.path();
    let before = tree(&root.join("game"));
    let gltf = root.join("edit/TANK.gltf");
    paint(&root.join("edit/TANK_TANK_BODY_0.png"), MAGENTA);
    std::fs::copy(
        root.join("edit/TANK_TANK_BODY_0.png"),
        root.join("edit/copy.png"),
    )
    .unwrap();
    paint(&root.join("edit/copy.png"), GREEN);
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    let images = json["images"].as_array_mut().unwrap();
    let mut copy = images
        .iter()
        .find(|i| i["name"] == "TANK_BODY.0")
        .unwrap()
        .clone();
    copy["uri"] = "copy.png".into();
    images.push(copy);
    let image = images.len() - 1;
    let textures = json["textures"].as_array_mut().unwrap();
    textures.push(serde_json::json!({ "source": image, "sampler": 0 }));
    let texture = textures.len() - 1;
    let glass = json["materials"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["name"] == "GLASS")
        .unwrap();
    glass["pbrMetallicRoughness"]["baseColorTexture"] = serde_json::json!({ "index": texture });
    std::fs::write(&gltf, serde_json::to_vec(&json).unwrap()).unwrap();
    let (code, _, stderr) = mshconv(
        root,
        "convert edit/TANK.gltf game/units.rlb:TANK.MSH --game-dir game",
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("error[look.edit_conflict]: the model edits Textures.lib entry TANK_BODY.0 twice, differently"),
        "{stderr}"
    );
    let (code, _, stderr) = mshconv(
        root,
        "batch edit --to msh --into game/units.rlb --game-dir game",
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("edit/TANK.gltf edits Textures.lib entry TANK_BODY.0 twice, differently"),
        "{stderr}"
    );
    assert!(
        tree(&root.join("game")) == before,
        "the game folder changed"
    );
}

/// With `--out` too: the models wait for their looks, so a refused run writes
/// no `.msh`, no WEAR and no library; an accepted one writes each `.msh` with
/// its WEAR.
#[test]
fn two_different_edits_with_out_write_no_model_either() {
    let tmp = setup(&["DEPOT", "ROBOT"]);
    let root = tmp.path();
    let before = tree(&root.join("game"));
    paint(&root.join("edit/DEPOT_DEFAULT_0.png"), MAGENTA);
    paint(&root.join("edit/ROBOT_DEFAULT_0.png"), GREEN);
    let args = "batch edit --to msh --out out --game-dir game";
    let (code, _, stderr) = mshconv(root, args);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[look.edit_conflict]"), "{stderr}");
    let out = root.join("out");
    let written: Vec<_> = if out.exists() {
        tree(&out).into_keys().collect()
    } else {
        Vec::new()
    };
    assert!(written.is_empty(), "written: {written:?}");
    assert!(
        tree(&root.join("game")) == before,
        "the game folder changed"
    );

    paint(&root.join("edit/ROBOT_DEFAULT_0.png"), MAGENTA);
    ok(root, args);
    let written = tree(&out);
    for stem in ["DEPOT", "ROBOT"] {
        assert!(
            written
                .keys()
                .any(|p| p.to_string_lossy() == format!("{stem}.msh")),
            "{written:?}"
        );
        assert!(
            written
                .keys()
                .any(|p| p.to_string_lossy() == format!("{stem}.wea")),
            "{written:?}"
        );
    }
}
