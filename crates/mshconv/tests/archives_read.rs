//! Archives as first-class inputs of the reading commands, through the real
//! binary in temporary folders: `validate ARCHIVE` and `inspect ARCHIVE` (every
//! model entry), type ids as text in `nres list`, negative frames in `pose`,
//! the tolerant verdict's wording, and `nres extract`/`pack` refusing to lose
//! files (`--force`, `--add`).

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// Offset of `index_start` inside a `Batch20`.
const BATCH_INDEX_START: usize = 10;
/// Size of one directory entry.
const ENTRY_SIZE: usize = 64;
/// Offset of `size` inside a directory entry.
const ENTRY_SIZE_FIELD: usize = 12;

const MSH: u32 = u32::from_le_bytes(*b"MSH\0");
const TXT: u32 = u32::from_le_bytes(*b"TXT\0");

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap()
}

/// The sample model with one error: batch 0 reads past Res6.
fn damaged() -> Vec<u8> {
    patch(
        &sample_bytes(),
        13,
        BATCH_INDEX_START,
        &1000u32.to_le_bytes(),
    )
}

/// Two good models and a text entry, as the game packs them.
fn units() -> Vec<u8> {
    archive(&[
        ("TANK.MSH", MSH, sample_bytes()),
        ("static.msh", MSH, many_nodes(2)),
        ("README.TXT", TXT, b"hello".to_vec()),
    ])
}

#[test]
fn validate_archive_checks_every_model_entry() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "units.rlb", &units());
    let r = run(dir.path(), &["validate", "units.rlb"]).expect(0);
    assert_eq!(
        r.stdout,
        "units.rlb:TANK.MSH: valid (strict, model): 0 errors, 0 warnings\n\
         units.rlb:static.msh: valid (strict, model): 0 errors, 0 warnings\n\
         units.rlb: archive of 2 models: 2 valid, 0 invalid\n"
    );

    // One damaged model: its findings as today, the archive invalid, exit 1.
    write(
        dir.path(),
        "mixed.rlb",
        &archive(&[
            ("TANK.MSH", MSH, sample_bytes()),
            ("BAD.MSH", MSH, damaged()),
        ]),
    );
    let r = run(dir.path(), &["validate", "mixed.rlb", "units.rlb"]).expect(1);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "mixed.rlb:TANK.MSH: valid (strict, model): 0 errors, 0 warnings"
    );
    assert!(
        lines[1].starts_with("mixed.rlb:BAD.MSH: error[batch.index_range] Res13[0].index_start: "),
        "{}",
        lines[1]
    );
    assert_eq!(
        lines[2],
        "mixed.rlb:BAD.MSH: INVALID (strict, model): 1 error, 0 warnings"
    );
    assert_eq!(
        lines[3],
        "mixed.rlb: archive of 2 models: 1 valid, 1 invalid"
    );
    assert_eq!(
        lines[6],
        "units.rlb: archive of 2 models: 2 valid, 0 invalid"
    );

    // Tolerant: the damaged model is readable, not "valid"; the whole is accepted.
    let r = run(dir.path(), &["validate", "--tolerant", "mixed.rlb"]).expect(0);
    assert!(r
        .stdout
        .contains("mixed.rlb:BAD.MSH: readable (tolerant, model): 1 error, 0 warnings\n"));
    assert!(r
        .stdout
        .ends_with("mixed.rlb: archive of 2 models: 1 valid, 1 readable, 0 invalid\n"));

    // JSON: one object per model entry, today's shape.
    let r = run(dir.path(), &["validate", "--json", "mixed.rlb"]).expect(1);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let objects = v.as_array().unwrap();
    assert_eq!(objects.len(), 2);
    assert_eq!(objects[0]["file"], "mixed.rlb:TANK.MSH");
    assert_eq!(objects[0]["valid"], true);
    assert_eq!(objects[0]["kind"], "standard");
    assert_eq!(objects[1]["file"], "mixed.rlb:BAD.MSH");
    assert_eq!(objects[1]["valid"], false);
    assert_eq!(objects[1]["mode"], "strict");
    assert_eq!(objects[1]["findings"][0]["code"], "batch.index_range");
}

#[test]
fn validate_of_one_entry_is_as_before() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "units.rlb", &units());
    let r = run(dir.path(), &["validate", "units.rlb:tank.msh"]).expect(0);
    assert_eq!(
        r.stdout,
        "units.rlb:TANK.MSH: valid (strict, model): 0 errors, 0 warnings\n"
    );
    let r = run(
        dir.path(),
        &["validate", "--entry", "STATIC.MSH", "units.rlb"],
    )
    .expect(0);
    assert_eq!(
        r.stdout,
        "units.rlb:static.msh: valid (strict, model): 0 errors, 0 warnings\n"
    );
    // A model file is still one file.
    write(dir.path(), "tank.msh", &sample_bytes());
    let r = run(dir.path(), &["validate", "tank.msh"]).expect(0);
    assert_eq!(
        r.stdout,
        "tank.msh: valid (strict, model): 0 errors, 0 warnings\n"
    );
}

#[test]
fn validate_archive_with_a_damaged_container() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = units();
    // README.TXT's (entry 2) size now runs past the file.
    let at = bytes.len() - 3 * ENTRY_SIZE + 2 * ENTRY_SIZE + ENTRY_SIZE_FIELD;
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    write(dir.path(), "bad.rlb", &bytes);
    // Strict: the container is refused as a whole, as before.
    let r = run(dir.path(), &["validate", "bad.rlb"]).expect(1);
    assert!(
        r.stdout
            .ends_with("bad.rlb: INVALID (strict, unreadable container): 1 error, 0 warnings\n"),
        "{}",
        r.stdout
    );
    // Tolerant: the container's problem is the archive's, every model is checked.
    let r = run(dir.path(), &["validate", "--tolerant", "bad.rlb"]).expect(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].starts_with("bad.rlb: error[nres."), "{}", lines[0]);
    assert_eq!(
        lines[1],
        "bad.rlb:TANK.MSH: valid (tolerant, model): 0 errors, 0 warnings"
    );
    assert_eq!(
        lines[3],
        "bad.rlb: archive of 2 models: 2 valid, 0 invalid; container: 1 error"
    );
    let r = run(dir.path(), &["validate", "--tolerant", "--json", "bad.rlb"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[0]["file"], "bad.rlb");
    assert_eq!(v[0]["kind"], Value::Null);
    assert_eq!(v[1]["file"], "bad.rlb:TANK.MSH");
    assert_eq!(v.as_array().unwrap().len(), 3);
}

#[test]
fn validate_and_inspect_refuse_models_that_share_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = archive(&[
        ("A.MSH", MSH, many_nodes(40)),
        ("B.MSH", MSH, sample_bytes()),
        ("C.MSH", MSH, sample_bytes()),
    ]);
    // B and C now point at A's payload: three copies of the largest one.
    let first = bytes.len() - 3 * ENTRY_SIZE;
    let a = bytes[first..first + ENTRY_SIZE].to_vec();
    for i in 1..3 {
        let at = first + i * ENTRY_SIZE;
        bytes[at + 12..at + 16].copy_from_slice(&a[12..16]); // size
        bytes[at + 56..at + 60].copy_from_slice(&a[56..60]); // data_offset
    }
    write(dir.path(), "shared.rlb", &bytes);
    for args in [
        &["validate", "shared.rlb"][..],
        &["inspect", "shared.rlb"][..],
    ] {
        let r = run(dir.path(), args).expect(1);
        assert!(
            r.stderr
                .starts_with("error[archive.entries_overlap]: shared.rlb: "),
            "{args:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn inspect_archive_lists_entries_and_summarises_models() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "units.rlb",
        &archive(&[
            ("TANK.MSH", MSH, sample_bytes()),
            ("BAD.MSH", MSH, damaged()),
            ("README.TXT", TXT, b"hello".to_vec()),
            ("odd.bin", 7, vec![1, 2, 3]),
        ]),
    );
    let r = run(dir.path(), &["inspect", "units.rlb"]).expect(0);
    let bytes = read(dir.path(), "units.rlb");
    assert_eq!(
        r.stdout,
        format!(
            "file: units.rlb\n\
             size: {} bytes\n\
             kind: archive of 2 models\n\
             entries: 4\n  \
             index  type  name          size  model     nodes  slots  triangles  animated  verdict\n      \
             0  MSH   \"TANK.MSH\"    {:>4}  standard      3      3          8  yes       valid\n      \
             1  MSH   \"BAD.MSH\"     {:>4}  standard      3      3          8  yes       INVALID\n      \
             2  TXT   \"README.TXT\"     5\n      \
             3  7     \"odd.bin\"        3\n\
             models: 1 valid, 1 invalid (strict; `mshconv validate units.rlb` lists the findings)\n",
            bytes.len(),
            sample_bytes().len(),
            damaged().len(),
        )
    );
    let r = run(dir.path(), &["inspect", "--tolerant", "units.rlb"]).expect(0);
    assert!(r.stdout.contains("readable\n"), "{}", r.stdout);
    assert!(r.stdout.ends_with(
        "models: 1 valid, 1 readable, 0 invalid (tolerant; `mshconv validate units.rlb` lists the findings)\n"
    ));

    let r = run(dir.path(), &["inspect", "--json", "units.rlb"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["file"], "units.rlb");
    assert_eq!(v["models"], 2);
    assert_eq!(v["mode"], "strict");
    let e = &v["entries"];
    assert_eq!(e[0]["type_id"], MSH);
    assert_eq!(e[0]["type_text"], "MSH");
    assert_eq!(e[0]["model"]["valid"], true);
    assert_eq!(e[0]["model"]["nodes"], 3);
    assert_eq!(e[0]["model"]["animated"], true);
    assert_eq!(e[1]["model"]["valid"], false);
    assert_eq!(e[1]["model"]["errors"], 1);
    assert_eq!(e[2]["type_text"], "TXT");
    assert_eq!(e[2]["model"], Value::Null);
    assert_eq!(e[3]["type_text"], Value::Null);

    // An entry, and a model file, inspect as before.
    let r = run(dir.path(), &["inspect", "units.rlb:TANK.MSH"]).expect(0);
    assert!(r.stdout.starts_with("file: units.rlb:TANK.MSH\n"));
    assert!(r.stdout.contains("\nkind: standard\n"));
}

#[test]
fn nres_list_shows_type_ids_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = archive(&[
        ("TANK.MSH", MSH, sample_bytes()),
        ("TANK.WEA", u32::from_le_bytes(*b"WEAR"), vec![0; 4]),
        ("Material.lib", u32::from_le_bytes(*b"MAT0"), vec![0; 4]),
        ("tex", u32::from_le_bytes(*b"Texm"), vec![0; 4]),
        ("README.TXT", TXT, vec![0; 4]),
        ("res01", 1, vec![0; 4]),
        ("stray", 99, vec![0; 4]),
    ]);
    write(dir.path(), "a.rlb", &bytes);
    let r = run(dir.path(), &["nres", "list", "a.rlb"]).expect(0);
    let types: Vec<&str> = r
        .stdout
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    // 99 would spell "c": one character is a number, not a type's text.
    assert_eq!(types, ["MSH", "WEAR", "MAT0", "Texm", "TXT", "1", "99"]);
    assert!(
        r.stdout
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("index  type  name "),
        "{}",
        r.stdout
    );
    let r = run(dir.path(), &["nres", "list", "--json", "a.rlb"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[0]["type_id"], MSH);
    assert_eq!(v[0]["type_text"], "MSH");
    assert_eq!(v[2]["type_text"], "MAT0");
    assert_eq!(v[5]["type_id"], 1);
    assert_eq!(v[5]["type_text"], Value::Null);

    // A model's own tables (types 1 to 21) stay a right-aligned column of numbers.
    write(dir.path(), "tank.msh", &sample_bytes());
    let r = run(dir.path(), &["nres", "list", "tank.msh"]).expect(0);
    assert!(
        r.stdout
            .lines()
            .nth(2)
            .unwrap()
            .starts_with("    0     1  "),
        "{}",
        r.stdout
    );
}

#[test]
fn pose_before_the_timeline_prints_a_signed_frame() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sample.msh", &sample_bytes());
    let r = run(dir.path(), &["pose", "sample.msh", "--time=-0.5"]).expect(0);
    assert_eq!(
        r.stdout.lines().next().unwrap(),
        "time -0.5: frame -1 of frame_count 11 (before the timeline: every node shows its fallback key)"
    );
    assert!(!r.stdout.contains("4294967295"));
    // Every node shows its fallback key.
    for line in r.stdout.lines().skip(2) {
        assert!(line.contains(" yes "), "{line}");
    }
    let r = run(dir.path(), &["pose", "sample.msh", "--time=-0.5", "--json"]).expect(0);
    assert!(r.stdout.starts_with(
        "{\"time\": -0.5, \"frame\": -1, \"frame_count\": 11, \"timeline\": \"before\", \"nodes\": [\n"
    ));
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["fallback"] == true));

    // Within and past the timeline, as before (JSON with the same additions).
    let r = run(dir.path(), &["pose", "sample.msh", "--time", "5"]).expect(0);
    assert!(r.stdout.starts_with("time 5: frame 4 of frame_count 11\n"));
    let r = run(
        dir.path(),
        &["pose", "sample.msh", "--time", "20", "--json"],
    )
    .expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (v["frame"].as_i64(), v["timeline"].as_str()),
        (Some(20), Some("past"))
    );
    // t = 0.2: t - 0.5 rounds to frame 0 (not negative).
    let r = run(dir.path(), &["pose", "sample.msh", "--time", "0.2"]).expect(0);
    assert!(r
        .stdout
        .starts_with("time 0.2: frame 0 of frame_count 11\n"));
    // -2^32 wraps back to frame 0 as the engine reads it.
    let r = run(dir.path(), &["pose", "sample.msh", "--time=-4294967296"]).expect(0);
    assert!(
        r.stdout.starts_with(
            "time -4294967300: frame -4294967296 of frame_count 11 (read unsigned by the engine: frame 0)\n"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn extract_refuses_a_folder_that_is_not_empty_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "units.rlb", &units());
    run(dir.path(), &["nres", "extract", "units.rlb", "--out", "x"]).expect(0);
    write(dir.path(), "x/0002-README.TXT", b"edited");
    let r = run(dir.path(), &["nres", "extract", "units.rlb", "--out", "x"]).expect(2);
    assert!(
        r.stderr.starts_with("error[io.not_empty]: x is not empty"),
        "{}",
        r.stderr
    );
    assert_eq!(read(dir.path(), "x/0002-README.TXT"), b"edited");
    run(
        dir.path(),
        &["nres", "extract", "units.rlb", "--out", "x", "--force"],
    )
    .expect(0);
    assert_eq!(read(dir.path(), "x/0002-README.TXT"), b"hello");
    // An empty folder that exists is fine.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    run(
        dir.path(),
        &["nres", "extract", "units.rlb", "--out", "empty"],
    )
    .expect(0);
}

#[test]
fn pack_refuses_unlisted_files_unless_added() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = units();
    write(dir.path(), "units.rlb", &bytes);
    run(dir.path(), &["nres", "extract", "units.rlb", "--out", "x"]).expect(0);
    write(dir.path(), "x/NEW.MSH", &many_nodes(3));
    write(dir.path(), "x/notes.txt", b"new notes");
    let r = run(dir.path(), &["nres", "pack", "x", "--out", "y.rlb"]).expect(2);
    assert!(
        r.stderr.starts_with(
            "error[manifest.unlisted]: x holds 2 files the manifest does not list: \"NEW.MSH\", \"notes.txt\"; pass --add"
        ),
        "{}",
        r.stderr
    );
    assert!(!dir.path().join("y.rlb").exists());

    for (layout, out) in [("--canonical", "c.rlb"), ("--lossless", "l.rlb")] {
        let r = run(
            dir.path(),
            &["nres", "pack", "x", "--out", out, "--add", layout],
        )
        .expect(0);
        assert!(r.stdout.contains(
            "added \"NEW.MSH\" (type MSH), not listed in the manifest\nadded \"notes.txt\" (type TXT), not listed in the manifest\n"
        ), "{}", r.stdout);
        let packed = read(dir.path(), out);
        let a = nres::Archive::parse(&packed).unwrap();
        let names: Vec<String> = a.entries().map(|e| e.name()).collect();
        assert_eq!(
            names,
            [
                "TANK.MSH",
                "static.msh",
                "README.TXT",
                "NEW.MSH",
                "notes.txt"
            ]
        );
        let new = a.entry(3).unwrap();
        assert_eq!((new.type_id(), new.data()), (MSH, &many_nodes(3)[..]));
        assert_eq!(a.entry(4).unwrap().type_id(), TXT);
        // The game's own lookup (a binary search over sort_index) finds them.
        assert_eq!(a.find_by_name("new.msh").unwrap().index(), 3);
        assert_eq!(a.find_by_name("NOTES.TXT").unwrap().index(), 4);
        // The old entries are unchanged.
        let old = nres::Archive::parse(&bytes).unwrap();
        for (e, o) in a.entries().zip(old.entries()) {
            assert_eq!(
                (e.name(), e.type_id(), e.data()),
                (o.name(), o.type_id(), o.data())
            );
        }
        let r = run(dir.path(), &["validate", out]).expect(0);
        assert!(r
            .stdout
            .ends_with(&format!("{out}: archive of 3 models: 3 valid, 0 invalid\n")));
    }

    // No type can be derived without an extension; a second entry of a name is refused.
    std::fs::remove_file(dir.path().join("x/notes.txt")).unwrap();
    write(dir.path(), "x/NOEXT", b"?");
    let r = run(
        dir.path(),
        &["nres", "pack", "x", "--out", "y.rlb", "--add"],
    )
    .expect(2);
    assert!(
        r.stderr
            .starts_with("error[manifest.unlisted]: x: no type can be derived for \"NOEXT\""),
        "{}",
        r.stderr
    );
    std::fs::remove_file(dir.path().join("x/NOEXT")).unwrap();
    write(dir.path(), "x/tank.msh", b"?");
    let r = run(
        dir.path(),
        &["nres", "pack", "x", "--out", "y.rlb", "--add"],
    )
    .expect(2);
    assert!(
        r.stderr
            .contains("\"tank.msh\" would be a second entry named like entry 0"),
        "{}",
        r.stderr
    );
    assert!(!dir.path().join("y.rlb").exists());
}
