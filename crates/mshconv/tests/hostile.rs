//! Damaged input never panics the binary: truncations and byte mutations of a
//! valid model give exit 0 or 1 with a typed error, never a crash.

mod common;

use common::*;
use serde_json::Value;

/// Truncated copies and copies with one byte changed, spread over the whole file.
fn mutants() -> Vec<(String, Vec<u8>)> {
    let bytes = sample_bytes();
    let mut out = Vec::new();
    for len in (0..bytes.len()).step_by(37) {
        out.push((format!("cut{len}.msh"), bytes[..len].to_vec()));
    }
    for at in (0..bytes.len()).step_by(13) {
        for value in [0x00u8, 0xff, 0x80] {
            let mut m = bytes.clone();
            if m[at] == value {
                continue;
            }
            m[at] = value;
            out.push((format!("set{at}_{value:02x}.msh"), m));
        }
    }
    out
}

#[test]
fn validate_survives_every_mutant_and_reports_each_file() {
    let dir = tempfile::tempdir().unwrap();
    let mutants = mutants();
    for (name, bytes) in &mutants {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let names: Vec<&str> = mutants.iter().map(|(n, _)| n.as_str()).collect();
    for mode in [&[][..], &["--tolerant"][..]] {
        let mut args = vec!["validate", "--json"];
        args.extend(mode);
        args.extend(&names);
        let r = run(dir.path(), &args);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(r.code == 0 || r.code == 1, "exit {}: {}", r.code, r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let files = v.as_array().unwrap();
        assert_eq!(files.len(), names.len());
        for (file, name) in files.iter().zip(&names) {
            assert_eq!(file["file"], *name);
            // An invalid verdict always comes with at least one error finding.
            if file["valid"] == false {
                assert!(
                    file["findings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|f| f["severity"] == "error"),
                    "{file}"
                );
            }
        }
    }
}

#[test]
fn inspect_and_pose_survive_every_mutant() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, bytes) in mutants().iter().step_by(3) {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        for args in [
            &["inspect", "--tolerant", name.as_str()][..],
            &["inspect", "--json", name.as_str()][..],
            &["pose", "--tolerant", name.as_str(), "--time", "3.5"][..],
        ] {
            let r = run(dir.path(), args);
            let typed = r.code == 0 || (r.code == 1 && r.stderr.starts_with("error["));
            if r.stderr.contains("panicked") || !typed {
                failures.push(format!("{args:?}: exit {}: {}", r.code, r.stderr));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
