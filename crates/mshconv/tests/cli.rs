//! `validate`, `inspect`, archive entries, exit codes, help and completions,
//! through the real binary in temporary folders.

mod common;

use common::*;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

/// Offset of `index_start` inside a `Batch20`.
const BATCH_INDEX_START: usize = 10;
/// Offset of `parent` inside a `Node38`.
const NODE_PARENT: usize = 2;

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// The sample model with two errors: batch 0 reads past Res6, node 0's parent is itself.
fn damaged() -> Vec<u8> {
    let bytes = patch(
        &sample_bytes(),
        13,
        BATCH_INDEX_START,
        &1000u32.to_le_bytes(),
    );
    patch(&bytes, 1, NODE_PARENT, &0u16.to_le_bytes())
}

fn entry_offset(bytes: &[u8], type_id: u32) -> u64 {
    nres::Archive::parse(bytes)
        .unwrap()
        .find_by_type(type_id)
        .unwrap()
        .data_offset() as u64
}

#[test]
fn validate_accepts_a_valid_model() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sample.msh", &sample_bytes());
    let r = run(dir.path(), &["validate", "sample.msh"]).expect(0);
    assert_eq!(
        r.stdout,
        "sample.msh: valid (strict, model): 0 errors, 0 warnings\n"
    );
    assert_eq!(r.stderr, "");
}

#[test]
fn validate_strict_reports_every_error_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.msh", &damaged());
    let r = run(dir.path(), &["validate", "bad.msh"]).expect(1);
    assert!(
        r.stdout
            .contains("bad.msh: error[batch.index_range] Res13[0].index_start: indices 1000..1012"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("bad.msh: error[node.parent] Res1[0].parent: parent 0 is not smaller"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .ends_with("bad.msh: INVALID (strict, model): 2 errors, 0 warnings\n"));
}

#[test]
fn validate_json_has_the_documented_schema_and_byte_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let bad = damaged();
    write(dir.path(), "bad.msh", &bad);
    write(dir.path(), "good.msh", &sample_bytes());
    let r = run(dir.path(), &["validate", "--json", "good.msh", "bad.msh"]).expect(1);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let files = v.as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["file"], "good.msh");
    assert_eq!(files[0]["valid"], true);
    assert_eq!(files[0]["kind"], "standard");
    assert_eq!(files[0]["findings"].as_array().unwrap().len(), 0);
    assert_eq!(files[1]["valid"], false);
    assert_eq!(files[1]["mode"], "strict");
    assert_eq!(files[1]["kind"], "standard");
    let findings = files[1]["findings"].as_array().unwrap();
    let batch = findings
        .iter()
        .find(|f| f["code"] == "batch.index_range")
        .expect("batch finding");
    // Keys in the documented order (serde_json::Value sorts them, so read the text).
    let at = r.stdout.find("\"code\": \"batch.index_range\"").unwrap();
    let object = &r.stdout[at..at + r.stdout[at..].find('}').unwrap()];
    let positions: Vec<usize> = [
        "\"code\"",
        "\"severity\"",
        "\"resource\"",
        "\"record\"",
        "\"offset\"",
        "\"path\"",
        "\"message\"",
    ]
    .iter()
    .map(|k| {
        object
            .find(k)
            .unwrap_or_else(|| panic!("{k} missing: {object}"))
    })
    .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{object}");
    assert_eq!(batch.as_object().unwrap().len(), 7);
    assert_eq!(batch["severity"], "error");
    assert_eq!(batch["resource"], 13);
    assert_eq!(batch["record"], 0);
    assert_eq!(
        batch["offset"].as_u64().unwrap(),
        entry_offset(&bad, 13) + BATCH_INDEX_START as u64
    );
    assert_eq!(batch["path"], "Res13[0].index_start");
    assert!(findings.iter().any(|f| f["code"] == "node.parent"));
}

#[test]
fn validate_tolerant_accepts_a_damaged_model_but_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.msh", &damaged());
    let r = run(dir.path(), &["validate", "--tolerant", "bad.msh"]).expect(0);
    assert!(
        r.stdout.contains("error[batch.index_range]"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .ends_with("bad.msh: readable (tolerant, model): 2 errors, 0 warnings\n"));
}

#[test]
fn validate_rejects_an_unreadable_container_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = sample_bytes();
    bytes[0..4].copy_from_slice(b"NRez");
    write(dir.path(), "magic.msh", &bytes);
    for mode in [&[][..], &["--tolerant"][..]] {
        let mut args = vec!["validate", "--json"];
        args.extend_from_slice(mode);
        args.push("magic.msh");
        let r = run(dir.path(), &args).expect(1);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v[0]["valid"], false);
        assert_eq!(v[0]["kind"], Value::Null);
        assert_eq!(v[0]["findings"][0]["code"], "nres.bad_magic");
        assert_eq!(v[0]["findings"][0]["offset"], 0);
    }
}

#[test]
fn validate_reports_infos_without_rejecting() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "legacy.msh", &legacy_bytes());
    let r = run(dir.path(), &["validate", "legacy.msh"]).expect(0);
    assert!(r
        .stdout
        .contains("legacy.msh: info[model.legacy_nodes] Res1: legacy node table"));
    assert!(r.stdout.ends_with(
        "legacy.msh: valid (strict, model with a legacy node table): 0 errors, 0 warnings\n"
    ));
}

#[test]
fn an_unreadable_file_is_exit_2_and_the_others_are_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.msh", &sample_bytes());
    write(dir.path(), "bad.msh", &damaged());
    let r = run(
        dir.path(),
        &["validate", "good.msh", "missing.msh", "bad.msh"],
    )
    .expect(2);
    assert!(r
        .stderr
        .starts_with("error[io.not_found]: cannot read missing.msh"));
    assert!(r.stdout.contains("good.msh: valid"));
    assert!(r.stdout.contains("bad.msh: INVALID"));
}

#[test]
fn inspect_rejects_damage_with_a_typed_error_unless_tolerant() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.msh", &damaged());
    let r = run(dir.path(), &["inspect", "bad.msh"]).expect(1);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.starts_with(
            "error[node.parent]: cannot open bad.msh: invalid model: 2 error(s)\n  error[node.parent] Res1[0].parent"
        ),
        "{}",
        r.stderr
    );
    let r = run(dir.path(), &["inspect", "--tolerant", "bad.msh"]).expect(0);
    assert!(r.stdout.contains("findings: 2 errors, 0 warnings, 0 info"));
    // The broken batch is still listed with the value it has.
    assert!(r
        .stdout
        .contains("batch 0: material 0, 12 indices at 1000, base vertex 0"));
}

#[test]
fn inspect_of_garbage_and_truncated_files_is_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "text.msh", b"this is not a model at all");
    let r = run(dir.path(), &["inspect", "text.msh"]).expect(1);
    assert!(
        r.stderr
            .starts_with("error[nres.bad_magic]: cannot open text.msh"),
        "{}",
        r.stderr
    );
    let bytes = sample_bytes();
    write(dir.path(), "short.msh", &bytes[..bytes.len() - 10]);
    let r = run(dir.path(), &["inspect", "short.msh"]).expect(1);
    assert!(
        r.stderr.starts_with("error[nres.size_mismatch]"),
        "{}",
        r.stderr
    );
    write(dir.path(), "empty.msh", b"");
    let r = run(dir.path(), &["inspect", "empty.msh"]).expect(1);
    assert!(
        r.stderr.starts_with("error[nres.truncated]"),
        "{}",
        r.stderr
    );
}

#[test]
fn inspect_json_is_consistent_with_the_model() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sample.msh", &sample_bytes());
    let r = run(dir.path(), &["inspect", "--json", "sample.msh"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["kind"], "standard");
    assert_eq!(v["totals"]["vertices"], 8);
    assert_eq!(v["totals"]["triangles"], 8);
    assert_eq!(v["totals"]["materials_used"], serde_json::json!([0, 1, 2]));
    assert_eq!(v["nodes"][1]["name"], "turret");
    assert_eq!(v["nodes"][2]["name"], Value::Null);
    assert_eq!(v["nodes"][1]["flags"], 0x40);
    assert_eq!(
        v["nodes"][0]["slots"][1],
        serde_json::json!({"lod": 1, "group": 0, "slot": 1})
    );
    assert_eq!(v["slots"][2]["batches"][0]["base_vertex"], 4);
    assert_eq!(v["slots"][2]["vertices"], 4);
    assert_eq!(v["animation"]["animated_nodes"], 1);
    assert_eq!(v["animation"]["frame_count"], 11);
    assert_eq!(v["animation"]["canonical"], true);
}

#[test]
fn inspect_reports_a_non_canonical_animation() {
    let dir = tempfile::tempdir().unwrap();
    // Frame 2 of node 1 points at key 2 instead of the canonical key 1: valid, not canonical.
    let bytes = patch(&sample_bytes(), 19, 4, &2u16.to_le_bytes());
    write(dir.path(), "odd.msh", &bytes);
    let r = run(dir.path(), &["inspect", "odd.msh"]).expect(0);
    assert!(
        r.stdout
            .contains("frame_count 11, not canonical (canon.map_value)"),
        "{}",
        r.stdout
    );
    let r = run(dir.path(), &["validate", "odd.msh"]).expect(0);
    assert!(
        r.stdout.contains("warning[canon.map_value] Res19[2]"),
        "{}",
        r.stdout
    );
}

fn models_archive(dir: &Path) {
    let mut garbage = sample_bytes();
    garbage[0] = b'X';
    write(
        dir,
        "models.rlb",
        &archive(&[
            ("TANK.MSH", 0, sample_bytes()),
            ("static.msh", 0, many_nodes(2)),
            ("notes.txt", 7, b"hello".to_vec()),
            ("BROKEN.MSH", 0, garbage),
        ]),
    );
}

#[test]
fn a_model_inside_an_archive_is_found_by_name() {
    let dir = tempfile::tempdir().unwrap();
    models_archive(dir.path());
    write(dir.path(), "tank.msh", &sample_bytes());
    let direct = run(dir.path(), &["inspect", "tank.msh"]).expect(0).stdout;
    let nested = run(dir.path(), &["inspect", "models.rlb:TANK.MSH"])
        .expect(0)
        .stdout;
    assert!(nested.starts_with("file: models.rlb:TANK.MSH\n"));
    let body = |s: &str| s.split_once('\n').unwrap().1.to_string();
    assert_eq!(body(&direct), body(&nested));
    // --entry, and names compare case-insensitively as in the game.
    let by_option = run(
        dir.path(),
        &["inspect", "models.rlb", "--entry", "tank.msh"],
    )
    .expect(0)
    .stdout;
    assert_eq!(by_option, nested);
    let r = run(
        dir.path(),
        &["validate", "models.rlb:static.msh", "models.rlb:tank.msh"],
    )
    .expect(0);
    assert!(r.stdout.contains("models.rlb:static.msh: valid"));
    assert!(r.stdout.contains("models.rlb:TANK.MSH: valid"));
    let r = run(dir.path(), &["pose", "models.rlb:TANK.MSH", "--time", "3"]).expect(0);
    assert!(r.stdout.contains("\"turret\""));
    // Converting the entry reads just its bytes: the same GLB as from the file.
    run(dir.path(), &["convert", "-q", "tank.msh", "direct.glb"]).expect(0);
    run(
        dir.path(),
        &["convert", "-q", "models.rlb:tank.msh", "nested.glb"],
    )
    .expect(0);
    let glb = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert_eq!(glb("direct.glb"), glb("nested.glb"));
}

#[test]
fn archive_entry_errors_are_typed() {
    let dir = tempfile::tempdir().unwrap();
    models_archive(dir.path());
    let r = run(dir.path(), &["inspect", "models.rlb:MISSING.MSH"]).expect(2);
    assert!(
        r.stderr.starts_with(
            "error[input.no_such_entry]: archive models.rlb has no entry named \"MISSING.MSH\""
        ),
        "{}",
        r.stderr
    );
    let r = run(dir.path(), &["inspect", "models.rlb:BROKEN.MSH"]).expect(1);
    assert!(r
        .stderr
        .starts_with("error[nres.bad_magic]: cannot open models.rlb:BROKEN.MSH"));
    let r = run(dir.path(), &["validate", "--json", "models.rlb:BROKEN.MSH"]).expect(1);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[0]["file"], "models.rlb:BROKEN.MSH");
    // A damaged outer archive is invalid input.
    write(dir.path(), "bad.rlb", b"NRes\0\x01\0\0");
    let r = run(dir.path(), &["inspect", "bad.rlb", "--entry", "X"]).expect(1);
    assert!(
        r.stderr
            .starts_with("error[nres.truncated]: archive bad.rlb"),
        "{}",
        r.stderr
    );
}

#[test]
fn usage_errors_are_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sample.msh", &sample_bytes());
    for args in [
        &["frobnicate"][..],
        &["validate"][..],
        &["pose", "sample.msh"][..],
        &["pose", "sample.msh", "--time", "soon"][..],
        &[
            "nres",
            "pack",
            "d",
            "--out",
            "x",
            "--canonical",
            "--lossless",
        ][..],
        &["completions", "tcsh-deluxe"][..],
    ] {
        let r = run(dir.path(), args).expect(2);
        assert!(r.stderr.starts_with("error: "), "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "");
    }
    // No subcommand at all: the help, on stderr, with exit 2.
    let r = run(dir.path(), &[]).expect(2);
    assert!(
        r.stderr.contains("Usage: mshconv <COMMAND>"),
        "{}",
        r.stderr
    );
}

#[test]
fn help_shows_exit_codes_and_an_example_for_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let top = run(dir.path(), &["--help"]).expect(0).stdout;
    assert!(top.contains("Exit codes:\n  0  success"));
    for sub in [
        "convert",
        "batch",
        "validate",
        "inspect",
        "pose",
        "completions",
        "nres",
        "nres list",
        "nres extract",
        "nres pack",
        "nres repack",
        "textures",
        "textures export",
        "textures import",
        "materials",
        "materials export",
        "materials import",
    ] {
        assert!(
            top.contains(&format!("  mshconv {sub} ")),
            "top-level example for {sub}"
        );
        let mut args: Vec<&str> = sub.split(' ').collect();
        args.push("--help");
        let help = run(dir.path(), &args).expect(0).stdout;
        assert!(
            help.contains(&format!("Examples:\n  mshconv {sub} ")),
            "{sub} --help has no example:\n{help}"
        );
        assert!(help.contains("Exit codes:\n  0  success"), "{sub} --help");
    }
}

#[test]
fn completions_are_generated_for_each_shell() {
    let dir = tempfile::tempdir().unwrap();
    let bash = run(dir.path(), &["completions", "bash"]).expect(0).stdout;
    assert!(
        bash.contains("_mshconv()") && bash.contains("validate"),
        "{bash}"
    );
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let script = run(dir.path(), &["completions", shell]).expect(0).stdout;
        assert!(script.contains("inspect"), "{shell}");
    }
}

#[test]
fn a_closed_stdout_is_success() {
    let dir = tempfile::tempdir().unwrap();
    // Far more text than a pipe buffers, so the writer must meet the closed pipe.
    write(dir.path(), "big.msh", &many_nodes(5000));
    let mut child = Command::new(BIN)
        .args(["inspect", "big.msh"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    let mut stdout = child.stdout.take().unwrap();
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"file: big.msh\nsi");
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stderr, "");
}

/// Issue 39: a game library validates as a library (each MAT0 or Texm entry
/// parsed and reported), not as a model ("node table missing"); a damaged
/// entry is INVALID, named with its code, and the exit is 1.
#[test]
fn validate_checks_a_game_library_by_its_entries() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(&game(), &["validate", "Material.lib", "Textures.lib"]).expect(0);
    assert!(
        r.stdout
            .contains("Material.lib:GLASS: valid (MAT0): version 3, ")
            && r.stdout
                .contains("Textures.lib:TANK_BODY.0: valid (Texm): 565 64 x 64, 7 mips")
            && r.stdout
                .contains("Textures.lib: library of 11 textures: 11 valid, 0 invalid")
            && !r.stdout.contains("node table"),
        "{}",
        r.stdout
    );
    let mut lib =
        nres::OwnedArchive::parse(&std::fs::read(game().join("Material.lib")).unwrap()).unwrap();
    let glass = lib
        .entries
        .iter_mut()
        .find(|e| e.name.as_bytes() == b"GLASS")
        .unwrap();
    glass.data.truncate(3);
    let count = lib.entries.len();
    write(
        dir.path(),
        "Material.lib",
        &lib.write(nres::WriteMode::Canonical).unwrap(),
    );
    let r = run(dir.path(), &["validate", "Material.lib"]).expect(1);
    assert!(
        r.stdout
            .contains("Material.lib:GLASS: INVALID (MAT0): mat0.")
            && r.stdout.contains(&format!(
                "Material.lib: library of {count} materials: {} valid, 1 invalid",
                count - 1
            )),
        "{}",
        r.stdout
    );
    let r = run(dir.path(), &["validate", "--json", "Material.lib"]).expect(1);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[0]["library"], "materials");
    assert_eq!(v[0]["valid"], false);
    let bad: Vec<&Value> = v[0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["valid"] == false)
        .collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0]["file"], "Material.lib:GLASS");
    assert!(bad[0]["code"].as_str().unwrap().starts_with("mat0."));
}
