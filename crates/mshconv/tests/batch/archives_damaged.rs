//! `mshconv batch` over archives and damaged files: outputs by archive and
//! entry name, a damaged archive or entry failing alone, and damaged models
//! reported with their codes.

use super::*;

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
/// whose model entries share bytes is one failure.
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

/// A damaged file's message says what and where once, its code on its own:
/// `error[nres.negative_count]: PATH: entry_count is -1 at byte 8 (0x8)` on
/// stderr and in the report, not the code a second time.
#[test]
fn a_damaged_files_message_names_its_code_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = sample_bytes();
    // The entry count (bytes 8..12) as -1.
    bytes[8..12].copy_from_slice(&(-1i32).to_le_bytes());
    std::fs::create_dir(dir.path().join("in")).unwrap();
    std::fs::write(dir.path().join("in/bad.msh"), &bytes).unwrap();
    let r = run(
        dir.path(),
        &[
            "batch",
            "in",
            "--to",
            "glb",
            "--out",
            "out",
            "--report",
            "report.json",
        ],
    );
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("error[nres.negative_count]"))
        .unwrap_or_else(|| panic!("no error line: {}", r.stderr));
    assert!(
        line.ends_with(": entry_count is -1 at byte 8 (0x8)"),
        "{line}"
    );
    assert_eq!(line.matches("nres.negative_count").count(), 1, "{line}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("report.json")).unwrap()).unwrap();
    let failed = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["status"] == "failed")
        .expect("the failure in the report");
    assert_eq!(failed["code"], "nres.negative_count");
    assert_eq!(failed["message"], "entry_count is -1 at byte 8 (0x8)");
}
