//! `mshconv batch`: the real binary over folders, archives and damaged files in
//! temporary folders; the JSON report; `--jobs`; SIGINT.

mod common;

use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn small(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/small")
        .join(rel)
}

/// Every file under `dir`, by `/`-separated relative path, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &child, out);
            } else {
                out.insert(child, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out);
    out
}

fn names(tree: &BTreeMap<String, Vec<u8>>) -> Vec<&str> {
    tree.keys().map(String::as_str).collect()
}

fn report(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The report's files by input.
fn files_by_input(report: &Value) -> BTreeMap<String, Value> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["input"].as_str().unwrap().to_string(), f.clone()))
        .collect()
}

/// What `convert` writes for a model named `name`.
fn glb_of(msh: &[u8], name: &str) -> Vec<u8> {
    let options = mshconv_gltf::ExportOptions {
        name: name.to_string(),
        ..Default::default()
    };
    mshconv_gltf::msh_to_gltf(msh, &options).unwrap().0
}

/// A complete GLB: magic, version 2, the header's length equal to the file's,
/// and a JSON chunk that parses.
fn check_glb(bytes: &[u8]) -> Result<(), String> {
    let u32_at = |at: usize| -> Result<u32, String> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .ok_or_else(|| format!("{} bytes: no u32 at {at}", bytes.len()))
    };
    if bytes.get(..4) != Some(b"glTF") || u32_at(4)? != 2 {
        return Err("not a GLB 2 header".into());
    }
    if u32_at(8)? as usize != bytes.len() {
        return Err(format!(
            "header length {} but the file is {} bytes",
            u32_at(8)?,
            bytes.len()
        ));
    }
    let json_len = u32_at(12)? as usize;
    if u32_at(16)? != 0x4E4F_534A {
        return Err("the first chunk is not JSON".into());
    }
    let json = bytes
        .get(20..20 + json_len)
        .ok_or("the JSON chunk is cut")?;
    serde_json::from_slice::<Value>(json).map_err(|e| format!("JSON chunk: {e}"))?;
    Ok(())
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap();
}

/// The last line on stderr: `batch: N converted, N failed, N skipped; ...`.
fn summary_counts(stderr: &str) -> (usize, usize, usize) {
    let line = stderr.lines().last().unwrap_or("");
    let rest = line.split_once(": ").map_or("", |(_, r)| r);
    let numbers: Vec<usize> = rest
        .split(';')
        .next()
        .unwrap()
        .split(", ")
        .map(|part| part.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 3, "summary line: {line}");
    (numbers[0], numbers[1], numbers[2])
}

#[test]
fn a_folder_is_mirrored_under_out_and_globs_filter_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let models = [
        ("a.msh", "models/m095_walker.msh"),
        ("sub/b.msh", "models/m127_tank.msh"),
        ("sub/deep/C.MSH", "models/m143_robot.msh"),
        ("sub/b_old.msh", "models/m252_wreck.msh"),
    ];
    for (rel, fixture) in models {
        copy(&small(fixture), &input.join(rel));
    }
    std::fs::write(input.join("readme.txt"), "not a model").unwrap();
    // A .glb is already the --to format: a folder does not offer it.
    std::fs::write(input.join("sub/x.glb"), "not even a glb").unwrap();

    let r = run(dir.path(), &["batch", "in", "--to", "glb", "--out", "all"]).expect(0);
    let all = tree(&dir.path().join("all"));
    assert_eq!(
        names(&all),
        ["a.glb", "sub/b.glb", "sub/b_old.glb", "sub/deep/C.glb"]
    );
    assert_eq!(summary_counts(&r.stderr), (4, 0, 0), "{}", r.stderr);
    // Each output is what `convert` writes for that file.
    for (rel, fixture) in models {
        let out = format!("{}.glb", rel.rsplit_once('.').unwrap().0);
        let stem = Path::new(rel).file_stem().unwrap().to_str().unwrap();
        assert_eq!(
            all[&out],
            glb_of(&std::fs::read(small(fixture)).unwrap(), stem),
            "{out}"
        );
    }

    run(
        dir.path(),
        &[
            "batch",
            "in",
            "--to",
            "glb",
            "--out",
            "excluded",
            "--exclude",
            "*_old.msh",
            "--exclude",
            "sub/deep/**",
        ],
    )
    .expect(0);
    assert_eq!(
        names(&tree(&dir.path().join("excluded"))),
        ["a.glb", "sub/b.glb"]
    );

    run(
        dir.path(),
        &[
            "batch",
            "in",
            "--to",
            "glb",
            "--out",
            "included",
            "--include",
            "sub/*.msh",
        ],
    )
    .expect(0);
    assert_eq!(
        names(&tree(&dir.path().join("included"))),
        ["sub/b.glb", "sub/b_old.glb"]
    );

    // Globs compare letters in either case, like the game's file names.
    run(
        dir.path(),
        &[
            "batch",
            "in",
            "--to",
            "glb",
            "--out",
            "upper",
            "--include",
            "c.msh",
        ],
    )
    .expect(0);
    assert_eq!(names(&tree(&dir.path().join("upper"))), ["sub/deep/C.glb"]);
}

#[test]
fn out_inside_the_input_folder_is_not_converted_again() {
    let dir = tempfile::tempdir().unwrap();
    copy(
        &small("models/m127_tank.msh"),
        &dir.path().join("m/tank.msh"),
    );
    run(dir.path(), &["batch", "m", "--to", "obj", "--out", "m/out"]).expect(0);
    // A second run into the same folder must not pick up m/out/tank.obj.
    let r = run(
        dir.path(),
        &[
            "batch", "m", "--to", "msh", "--out", "m/out2", "--report", "r.json",
        ],
    )
    .expect(0);
    assert_eq!(summary_counts(&r.stderr), (1, 0, 0));
    let report = report(&dir.path().join("r.json"));
    assert_eq!(report["files"][0]["input"], "m/out/tank.obj");
    assert_eq!(
        names(&tree(&dir.path().join("m"))),
        [
            "out/tank.mtl",
            "out/tank.obj",
            "out2/out/tank.msh",
            "tank.msh"
        ]
    );
}

#[test]
fn archives_are_mirrored_by_archive_and_entry_name() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        dir.path(),
        &[
            "batch",
            small("archives").to_str().unwrap(),
            small("archives/small.rlb").to_str().unwrap(),
            "--to",
            "glb",
            "--out",
            "out",
        ],
    )
    .expect(0);
    let out = tree(&dir.path().join("out"));
    let mut expected = BTreeMap::new();
    for name in ["small.rlb", "system.rlb"] {
        let bytes = std::fs::read(small(&format!("archives/{name}"))).unwrap();
        let archive = nres::Archive::parse(&bytes).unwrap();
        for entry in archive.entries() {
            let entry_name = entry.name();
            let Some(stem) = entry_name.strip_suffix(".MSH") else {
                continue;
            };
            let glb = glb_of(entry.data(), stem);
            // A folder input mirrors its relative paths; an archive named on
            // the command line goes to OUT/<archive name>/.
            expected.insert(format!("{name}/{stem}.glb"), glb.clone());
            if name == "small.rlb" {
                assert_eq!(out[&format!("small.rlb/{stem}.glb")], glb);
            }
        }
    }
    assert!(expected.len() > 5, "the fixture archives hold models");
    assert_eq!(out, expected);
    assert_eq!(summary_counts(&r.stderr).0, expected.len());
}

#[test]
fn a_damaged_archive_is_one_failure_and_a_damaged_entry_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let units = archive(&[
        ("TANK.MSH", 0, sample_bytes()),
        ("broken.msh", 0, b"NRes but not really".to_vec()),
        ("README.TXT", 0, b"not a model".to_vec()),
        ("../../escape.msh", 0, sample_bytes()),
    ]);
    std::fs::write(dir.path().join("units.rlb"), &units).unwrap();
    // An archive cut short: its directory is gone.
    std::fs::write(dir.path().join("cut.rlb"), &units[..units.len() - 64]).unwrap();
    let r = run(
        dir.path(),
        &[
            "batch",
            "units.rlb",
            "cut.rlb",
            "--to",
            "gltf",
            "--out",
            "out",
            "--report",
            "r.json",
        ],
    )
    .expect(1);
    // The entry name cannot leave OUT/units.rlb/ (nor make a hidden file);
    // README.TXT is not a model.
    assert_eq!(
        names(&tree(&dir.path().join("out"))),
        ["units.rlb/TANK.gltf", "units.rlb/_._.._escape.gltf"]
    );
    let gltf: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/units.rlb/TANK.gltf")).unwrap())
            .unwrap();
    assert_eq!(gltf["asset"]["version"], "2.0");

    let report = report(&dir.path().join("r.json"));
    let files = files_by_input(&report);
    assert_eq!(
        files.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "cut.rlb",
            "units.rlb:../../escape.msh",
            "units.rlb:TANK.MSH",
            "units.rlb:broken.msh"
        ]
    );
    let cut = &files["cut.rlb"];
    assert_eq!(cut["status"], "failed");
    assert_eq!(cut["code"], "nres.size_mismatch", "{cut}");
    assert!(cut["output"].is_null());
    assert!(!dir.path().join("out/cut.rlb").exists());
    let broken = &files["units.rlb:broken.msh"];
    assert_eq!(broken["status"], "failed");
    assert!(
        broken["code"].as_str().unwrap().starts_with("nres."),
        "{broken}"
    );
    assert_eq!(broken["bytes_in"], 19);
    let tank = &files["units.rlb:TANK.MSH"];
    assert_eq!(tank["status"], "converted");
    assert_eq!(tank["output"], "out/units.rlb/TANK.gltf");
    assert_eq!(tank["bytes_in"], sample_bytes().len());
    assert_eq!(report["summary"]["failed"], 2, "{}", report["summary"]);
    assert!(
        r.stderr
            .contains("error[nres.size_mismatch]: cut.rlb: damaged archive: header says"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("units.rlb:broken.msh: "));
}

/// Model entries that all name one payload (valid NRes) would each be
/// converted and written: a 416 KB archive made 1 GiB of output. An archive
/// whose model entries add up to more than the file is one failure.
#[test]
fn an_archive_whose_models_share_their_bytes_is_one_failure() {
    let dir = tempfile::tempdir().unwrap();
    let mut units = archive(&[
        ("A.MSH", 0, sample_bytes()),
        ("B.MSH", 0, b"b".to_vec()),
        ("C.MSH", 0, b"c".to_vec()),
    ]);
    // B and C name A's bytes (size and offset).
    let parsed = nres::Archive::parse(&units).unwrap();
    let dir_at = parsed.directory_offset();
    let a = parsed.entry(0).unwrap();
    let (size, offset) = (a.data().len() as u32, a.data_offset());
    for index in 1..3 {
        let at = dir_at + index * 64;
        units[at + 12..at + 16].copy_from_slice(&size.to_le_bytes());
        units[at + 56..at + 60].copy_from_slice(&offset.to_le_bytes());
    }
    assert!(nres::Archive::parse(&units).unwrap().payload_total() > units.len() as u64);
    std::fs::write(dir.path().join("units.rlb"), &units).unwrap();
    let r = run(
        dir.path(),
        &[
            "batch",
            "units.rlb",
            "--to",
            "glb",
            "--out",
            "out",
            "--report",
            "r.json",
        ],
    )
    .expect(1);
    assert!(r.stderr.contains("archive.entries_overlap"), "{}", r.stderr);
    let files = files_by_input(&report(&dir.path().join("r.json")));
    assert_eq!(
        files.keys().map(String::as_str).collect::<Vec<_>>(),
        ["units.rlb"]
    );
    assert_eq!(files["units.rlb"]["code"], "archive.entries_overlap");
    assert!(!dir.path().join("out/units.rlb").exists());
}

#[test]
fn damaged_models_are_reported_with_their_codes_and_the_valid_ones_convert() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        dir.path(),
        &[
            "batch",
            small("damaged").to_str().unwrap(),
            small("models").to_str().unwrap(),
            "--to",
            "glb",
            "--out",
            "out",
            "--report",
            "report.json",
        ],
    )
    .expect(1);
    let report = report(&dir.path().join("report.json"));
    let files = files_by_input(&report);
    let inputs: Vec<&String> = files.keys().collect();
    let order: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["input"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        inputs.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "sorted by input"
    );

    let expected: Value =
        serde_json::from_slice(&std::fs::read(small("damaged/expected.json")).unwrap()).unwrap();
    let cases = expected["cases"].as_array().unwrap();
    let mut problems = Vec::new();
    for case in cases {
        let file = case["file"].as_str().unwrap();
        let input = small("damaged").join(file).display().to_string();
        let Some(record) = files.get(&input) else {
            problems.push(format!("{file}: not in the report"));
            continue;
        };
        let code = case["code"].as_str().unwrap();
        let message = record["message"].as_str().unwrap_or("");
        // A container error has exactly its code; a model may have several
        // findings, the first of which gives the code (every one is in the message).
        let ok = record["status"] == "failed"
            && record["output"].is_null()
            && (record["code"] == code
                || (case["kind"] == "model" && message.contains(&format!("error[{code}]"))));
        if !ok {
            problems.push(format!("{file}: expected {code}, got {record}"));
        }
        if !r.stderr.contains(&format!("{input}: ")) {
            problems.push(format!("{file}: no error line on stderr"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let out = tree(&dir.path().join("out"));
    let models: Vec<String> = std::fs::read_dir(small("models"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        out.len(),
        models.len(),
        "every valid model and nothing else"
    );
    for model in &models {
        let stem = model.strip_suffix(".msh").unwrap();
        let glb = &out[&format!("{stem}.glb")];
        assert_eq!(
            glb,
            &glb_of(&std::fs::read(small("models").join(model)).unwrap(), stem),
            "{model}"
        );
        let record = &files[&small("models").join(model).display().to_string()];
        assert_eq!(record["status"], "converted");
        assert_eq!(record["bytes_out"], glb.len());
    }
    let summary = &report["summary"];
    assert_eq!(summary["converted"], models.len());
    assert_eq!(summary["failed"], cases.len());
    assert_eq!(summary["skipped"], 0);
    assert_eq!(summary["interrupted"], false);
    assert_eq!(summary["to"], "glb");
    assert_eq!(
        summary_counts(&r.stderr),
        (models.len(), cases.len(), 0),
        "{}",
        r.stderr.lines().last().unwrap()
    );
}

#[test]
fn glb_inputs_convert_back_to_the_identical_msh() {
    let dir = tempfile::tempdir().unwrap();
    run(
        dir.path(),
        &[
            "batch",
            small("models").to_str().unwrap(),
            small("edge").to_str().unwrap(),
            "--to",
            "glb",
            "--out",
            "glb",
            "--quiet",
        ],
    )
    .expect(0);
    // With --to msh a folder offers its .glb/.gltf/.obj files, not .msh or .rlb.
    copy(
        &small("models/m127_tank.msh"),
        &dir.path().join("glb/tank.msh"),
    );
    copy(
        &small("archives/small.rlb"),
        &dir.path().join("glb/small.rlb"),
    );
    let r = run(
        dir.path(),
        &["batch", "glb", "--to", "msh", "--out", "back", "--quiet"],
    )
    .expect(0);
    let back = tree(&dir.path().join("back"));
    let mut originals = BTreeMap::new();
    for folder in ["models", "edge"] {
        for entry in std::fs::read_dir(small(folder)).unwrap() {
            let path = entry.unwrap().path();
            originals.insert(
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&path).unwrap(),
            );
        }
    }
    assert_eq!(
        names(&back),
        originals.keys().map(String::as_str).collect::<Vec<_>>()
    );
    let differ: Vec<&String> = originals
        .iter()
        .filter(|(name, bytes)| &back[*name] != *bytes)
        .map(|(name, _)| name)
        .collect();
    assert!(
        differ.is_empty(),
        "not identical after msh -> glb -> msh: {differ:?}"
    );
    assert_eq!(summary_counts(&r.stderr), (originals.len(), 0, 0));
}

#[test]
fn jobs_1_and_jobs_2_give_identical_outputs_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let mut reports = Vec::new();
    let mut trees = Vec::new();
    for jobs in ["1", "2"] {
        let out = format!("out{jobs}");
        let report_name = format!("r{jobs}.json");
        run(
            dir.path(),
            &[
                "batch",
                small("").to_str().unwrap(),
                "--to",
                "gltf",
                "--out",
                &out,
                "--jobs",
                jobs,
                "--report",
                &report_name,
                "--quiet",
            ],
        )
        .expect(1);
        trees.push(tree(&dir.path().join(&out)));
        let mut report = report(&dir.path().join(&report_name));
        // Timings and the output folder's name are all that may differ.
        report["summary"]["seconds"] = Value::Null;
        for file in report["files"].as_array_mut().unwrap() {
            file["ms"] = Value::Null;
            if let Some(output) = file["output"].as_str() {
                file["output"] = Value::from(output.replacen(&out, "OUT", 1));
            }
        }
        reports.push(report);
    }
    assert!(trees[0].len() > 50, "{} outputs", trees[0].len());
    assert_eq!(names(&trees[0]), names(&trees[1]));
    for (name, bytes) in &trees[0] {
        assert!(
            &trees[1][name] == bytes,
            "{name} differs between --jobs 1 and 2"
        );
    }
    assert_eq!(reports[0], reports[1]);
}

#[test]
fn explicit_inputs_that_do_not_convert_are_skipped_and_outputs_never_collide() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(&small("models/m127_tank.msh"), &d.join("in/tank.msh"));
    run(d, &["convert", "in/tank.msh", "in/tank.glb"]).expect(0);
    run(d, &["convert", "in/tank.msh", "in/tank.gltf"]).expect(0);
    std::fs::write(d.join("in/notes.txt"), "text").unwrap();
    let r = run(
        d,
        &[
            "batch",
            "in/tank.glb",
            "in",
            "in/tank.msh",
            "in/notes.txt",
            "in/tank.glb",
            "--to",
            "msh",
            "--out",
            "out",
            "--report",
            "r.json",
        ],
    )
    .expect(1);
    let report = report(&d.join("r.json"));
    let files: Vec<(&str, &str, &str)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["input"].as_str().unwrap(),
                f["status"].as_str().unwrap(),
                f["code"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    // in/tank.glb is named twice and found in the folder: converted once.
    // in/tank.gltf would write out/tank.msh too: the first by input wins.
    assert_eq!(
        files,
        [
            ("in/notes.txt", "skipped", "input.not_convertible"),
            ("in/tank.glb", "converted", "-"),
            ("in/tank.gltf", "failed", "output.conflict"),
            ("in/tank.msh", "skipped", "input.not_convertible"),
        ]
    );
    assert_eq!(
        std::fs::read(d.join("out/tank.msh")).unwrap(),
        std::fs::read(d.join("in/tank.msh")).unwrap()
    );
    assert!(r.stderr.contains("error[output.conflict]: in/tank.gltf: "));
}

#[test]
fn usage_and_io_errors_about_the_command_are_exit_2_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(&small("models/m127_tank.msh"), &d.join("tank.msh"));
    std::fs::write(d.join("file"), "a file, not a folder").unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["batch", "tank.msh", "--to", "glb", "--out", "file/out"],
            "error[io.",
        ),
        (
            &["batch", "missing", "--to", "glb", "--out", "out"],
            "error[io.not_found]",
        ),
        (
            &[
                "batch",
                "tank.msh",
                "--to",
                "glb",
                "--out",
                "out",
                "--include",
                "[a",
            ],
            "error[option.invalid]",
        ),
        (
            &[
                "batch", "tank.msh", "--to", "glb", "--out", "out", "--fps", "0",
            ],
            "error[option.invalid]",
        ),
        (
            &[
                "batch",
                "tank.msh",
                "--to",
                "glb",
                "--out",
                "out",
                "--report",
                "no/such/r.json",
            ],
            "error[io.not_found]",
        ),
        (
            &[
                "batch", "tank.msh", "--to", "glb", "--out", "out", "--jobs", "0",
            ],
            "--jobs",
        ),
    ];
    for (args, expected) in cases {
        let r = run(d, args).expect(2);
        assert!(r.stderr.contains(expected), "{args:?}: {}", r.stderr);
        assert!(!d.join("out").exists(), "{args:?} did work");
    }
    // No --to, no --out: clap's usage error.
    run(d, &["batch", "tank.msh", "--out", "out"]).expect(2);
    run(d, &["batch", "tank.msh", "--to", "glb"]).expect(2);
}

#[test]
fn the_progress_bar_is_drawn_only_on_a_terminal_and_not_with_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let models = small("models");
    // Not a terminal: stderr holds the notes and the summary, nothing drawn.
    let r = run(
        dir.path(),
        &[
            "batch",
            models.to_str().unwrap(),
            "--to",
            "glb",
            "--out",
            "a",
        ],
    )
    .expect(0);
    assert!(
        !r.stderr.contains('\r') && !r.stderr.contains('\u{1b}'),
        "{}",
        r.stderr
    );
    assert!(r
        .stderr
        .lines()
        .all(|l| l.starts_with("note[") || l.starts_with("batch: ")));

    // A terminal (util-linux `script` gives the command a pseudo-terminal).
    let in_terminal = |args: &str| -> String {
        let output = Command::new("script")
            .args(["-qec", &format!("{BIN} {args}"), "/dev/null"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("`script` (util-linux) runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let models = models.display();
    let shown = in_terminal(&format!("batch {models} --to glb --out b"));
    assert!(
        shown.contains("/25 eta"),
        "no progress bar on a terminal: {shown:?}"
    );
    assert!(shown.contains("batch: 25 converted"), "{shown:?}");
    let quiet = in_terminal(&format!("batch {models} --to glb --out c --quiet"));
    assert!(!quiet.contains("/25 eta"), "--quiet still draws: {quiet:?}");
    assert!(
        !quiet.contains("note["),
        "--quiet still prints notes: {quiet:?}"
    );
    assert!(quiet.contains("batch: 25 converted"), "{quiet:?}");
}

/// SIGINT in the middle of a batch: the workers finish the files they have and
/// start no other, the summary and report cover what was done, the exit code
/// is 130, and OUT holds only complete outputs and no temporary file.
#[test]
fn sigint_leaves_only_complete_outputs_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    // 40 copies of the 25 committed models: far more work than the time it
    // takes to see the first output and send the signal.
    let models: Vec<PathBuf> = std::fs::read_dir(small("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for copy_index in 0..40 {
        for model in &models {
            copy(
                model,
                &input
                    .join(format!("copy{copy_index:02}"))
                    .join(model.file_name().unwrap()),
            );
        }
    }
    let total = 40 * models.len();
    let out = dir.path().join("out");
    let mut child = Command::new(BIN)
        .args(["batch", "in", "--to", "glb", "--out", "out", "--jobs", "2"])
        .args(["--report", "report.json", "--quiet"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the batch writes (so its handler is installed), then interrupt.
    let started_writing = || {
        std::fs::read_dir(&out).ok().is_some_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().is_dir() && std::fs::read_dir(e.path()).unwrap().next().is_some())
        })
    };
    while !started_writing() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the batch ended before writing anything"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("batch (interrupted): "), "{stderr}");

    let written = tree(&out);
    let mut problems = Vec::new();
    for (name, bytes) in &written {
        let file_name = name.rsplit('/').next().unwrap();
        if file_name.starts_with('.') || name.ends_with(".tmp") {
            problems.push(format!("{name}: a temporary file was left"));
        } else if let Err(e) = check_glb(bytes) {
            problems.push(format!("{name}: {e}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let report = report(&dir.path().join("report.json"));
    let summary = &report["summary"];
    assert_eq!(summary["interrupted"], true);
    assert_eq!(summary["failed"], 0);
    let converted = summary["converted"].as_u64().unwrap() as usize;
    let skipped = summary["skipped"].as_u64().unwrap() as usize;
    assert_eq!(converted + skipped, total, "every input is in the report");
    assert_eq!(
        written.len(),
        converted,
        "every converted file is in OUT, and only those"
    );
    assert!(skipped > 0, "the batch stopped early");
    for file in report["files"].as_array().unwrap() {
        match file["status"].as_str().unwrap() {
            "converted" => {
                let output = file["output"].as_str().unwrap();
                let rel = output.strip_prefix("out/").unwrap();
                assert_eq!(
                    written[rel].len() as u64,
                    file["bytes_out"].as_u64().unwrap()
                );
            }
            status => {
                assert_eq!(status, "skipped");
                assert_eq!(file["code"], "run.interrupted");
                assert!(file["output"].is_null());
            }
        }
    }
}
