//! `nres list|extract|pack|repack` through the real binary.

mod common;

use common::*;
use nres::{Filler, Name, OwnedArchive, OwnedEntry, WriteMode};
use serde_json::Value;
use std::path::Path;

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap()
}

fn canonical_archive() -> Vec<u8> {
    archive(&[
        ("TANK.MSH", 0, sample_bytes()),
        ("static.msh", 0, many_nodes(2)),
        ("notes.txt", 7, b"odd-sized".to_vec()),
        ("", 9, Vec::new()),
    ])
}

/// An archive no canonical writer produces: bytes before the first payload,
/// payloads out of directory order with odd filler, a stale sort_index, a
/// name field with bytes after its NUL.
fn odd_archive() -> Vec<u8> {
    let mut field = [0u8; 36];
    field[..5].copy_from_slice(b"b.bin");
    field[30] = 0x7f;
    let entry = |type_id, name: Name, data: &[u8], filler: &[u8]| OwnedEntry {
        type_id,
        attr1: 11,
        attr2: 22,
        attr3: 33,
        name,
        sort_index: 0,
        data: data.to_vec(),
        filler: Some(Filler {
            payload_len: data.len(),
            bytes: filler.to_vec(),
        }),
        offset_hint: None,
    };
    let a = OwnedArchive {
        entries: vec![
            entry(1, Name::new("a.bin").unwrap(), b"first", b"\x55\x55"),
            entry(2, Name::from_field(field), b"second!", b""),
            entry(3, Name::new("C.BIN").unwrap(), b"3", b"gap bytes"),
        ],
        leading: b"lead".to_vec(),
        physical_order: Some(vec![2, 0, 1]),
        keep_sort_index: true,
    };
    a.write(WriteMode::Lossless).unwrap()
}

#[test]
fn list_prints_every_directory_field() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = canonical_archive();
    write(dir.path(), "models.rlb", &bytes);
    let r = run(dir.path(), &["nres", "list", "models.rlb"]).expect(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("models.rlb: 4 entries, {} bytes", bytes.len())
    );
    assert_eq!(
        lines[1],
        "index  type  name          size  attr1  attr2  attr3  offset  sort_index"
    );
    assert!(
        lines[4].starts_with("    2     7  \"notes.txt\"      9      0      0      0"),
        "{}",
        lines[4]
    );
    let r = run(dir.path(), &["nres", "list", "--json", "models.rlb"]).expect(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let archive = nres::Archive::parse(&bytes).unwrap();
    for (row, e) in v.as_array().unwrap().iter().zip(archive.entries()) {
        assert_eq!(row["index"], e.index());
        assert_eq!(row["type_id"], e.type_id());
        assert_eq!(row["name"], e.name());
        assert_eq!(row["size"], e.size());
        assert_eq!(row["offset"], e.data_offset());
        assert_eq!(row["sort_index"], e.sort_index());
    }
}

#[test]
fn extract_then_pack_gives_back_a_canonical_archive_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = canonical_archive();
    write(dir.path(), "models.rlb", &bytes);
    run(
        dir.path(),
        &["nres", "extract", "models.rlb", "--out", "unpacked"],
    )
    .expect(0);
    assert_eq!(read(dir.path(), "unpacked/0000-TANK.MSH"), sample_bytes());
    assert_eq!(read(dir.path(), "unpacked/0002-notes.txt"), b"odd-sized");
    assert_eq!(read(dir.path(), "unpacked/0003.bin"), b"");
    let manifest: Value =
        serde_json::from_slice(&read(dir.path(), "unpacked/manifest.json")).unwrap();
    assert_eq!(manifest["format"], "mshconv-nres-manifest");
    let e = &manifest["entries"][2];
    assert_eq!(e["order"], 2);
    assert_eq!(e["type_id"], 7);
    assert_eq!(e["name"], "notes.txt");
    assert_eq!(e["file"], "0002-notes.txt");
    for args in [
        &["nres", "pack", "unpacked", "--out", "default.rlb"][..],
        &[
            "nres",
            "pack",
            "unpacked",
            "--out",
            "canonical.rlb",
            "--canonical",
        ][..],
        &[
            "nres",
            "pack",
            "unpacked",
            "--out",
            "lossless.rlb",
            "--lossless",
        ][..],
    ] {
        run(dir.path(), args).expect(0);
        assert!(
            read(dir.path(), args[4]) == bytes,
            "{args:?} changed the bytes"
        );
    }
}

#[test]
fn lossless_pack_reproduces_a_non_canonical_archive() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = odd_archive();
    write(dir.path(), "odd.rlb", &bytes);
    run(dir.path(), &["nres", "extract", "odd.rlb", "--out", "x"]).expect(0);
    let manifest: Value = serde_json::from_slice(&read(dir.path(), "x/manifest.json")).unwrap();
    assert_eq!(manifest["entries"][1]["name"], "b.bin");
    assert!(manifest["entries"][1]["name_field"].is_string());
    assert!(manifest["entries"][0].get("name_field").is_none());
    run(
        dir.path(),
        &["nres", "pack", "x", "--out", "same.rlb", "--lossless"],
    )
    .expect(0);
    assert!(read(dir.path(), "same.rlb") == bytes);
    // The default canonical pack equals what repack makes of the original.
    run(dir.path(), &["nres", "pack", "x", "--out", "canon.rlb"]).expect(0);
    let r = run(
        dir.path(),
        &["nres", "repack", "odd.rlb", "--out", "repacked.rlb"],
    )
    .expect(0);
    assert!(r.stdout.contains("changed (the input was not canonical)"));
    let canon = read(dir.path(), "canon.rlb");
    assert!(canon == read(dir.path(), "repacked.rlb"));
    assert!(canon != bytes);
    let parsed = nres::Archive::parse(&canon).unwrap();
    assert_eq!(
        parsed.entry(1).unwrap().name_field(),
        Name::from_field({
            let mut f = [0u8; 36];
            f[..5].copy_from_slice(b"b.bin");
            f[30] = 0x7f;
            f
        })
    );
    assert_eq!(parsed.entry(2).unwrap().attr3(), 33);
}

#[test]
fn repack_is_byte_identical_on_canonical_input() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "models.rlb", &canonical_archive());
    write(dir.path(), "sample.msh", &sample_bytes());
    for name in ["models.rlb", "sample.msh"] {
        let out = format!("{name}.out");
        let r = run(dir.path(), &["nres", "repack", name, "--out", &out]).expect(0);
        assert!(
            r.stdout.contains("identical (the input was canonical)"),
            "{}",
            r.stdout
        );
        assert!(read(dir.path(), name) == read(dir.path(), &out), "{name}");
    }
    // In place.
    run(
        dir.path(),
        &["nres", "repack", "models.rlb", "--out", "models.rlb"],
    )
    .expect(0);
    assert!(read(dir.path(), "models.rlb") == canonical_archive());
}

#[test]
fn an_edited_payload_is_packed_with_its_new_size() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "models.rlb", &canonical_archive());
    run(dir.path(), &["nres", "extract", "models.rlb", "--out", "x"]).expect(0);
    write(dir.path(), "x/0002-notes.txt", b"a longer note than before");
    run(
        dir.path(),
        &["nres", "pack", "x", "--out", "new.rlb", "--lossless"],
    )
    .expect(0);
    let bytes = read(dir.path(), "new.rlb");
    let a = nres::Archive::parse(&bytes).unwrap();
    assert_eq!(
        a.find_by_name("NOTES.TXT").unwrap().data(),
        b"a longer note than before"
    );
    assert_eq!(a.find_by_name("tank.msh").unwrap().data(), sample_bytes());
    // The edited entry gets canonical padding, so the file stays 8-byte aligned.
    assert!(a.entries().all(|e| e.data_offset() % 8 == 0));
}

#[test]
fn bad_manifests_and_missing_files_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "models.rlb", &canonical_archive());
    run(dir.path(), &["nres", "extract", "models.rlb", "--out", "x"]).expect(0);
    let manifest = String::from_utf8(read(dir.path(), "x/manifest.json")).unwrap();

    write(dir.path(), "x/manifest.json", b"{ not json");
    let r = run(dir.path(), &["nres", "pack", "x", "--out", "y.rlb"]).expect(1);
    assert!(
        r.stderr
            .starts_with("error[manifest.invalid]: x/manifest.json: "),
        "{}",
        r.stderr
    );

    let escaping = manifest.replace("\"0002-notes.txt\"", "\"../models.rlb\"");
    write(dir.path(), "x/manifest.json", escaping.as_bytes());
    let r = run(dir.path(), &["nres", "pack", "x", "--out", "y.rlb"]).expect(1);
    assert!(
        r.stderr
            .contains("must be a plain file name inside the folder"),
        "{}",
        r.stderr
    );

    let repeated = manifest.replace("\"order\": 3", "\"order\": 2");
    write(dir.path(), "x/manifest.json", repeated.as_bytes());
    let r = run(dir.path(), &["nres", "pack", "x", "--out", "y.rlb"]).expect(1);
    assert!(r.stderr.contains("without gaps or repeats"), "{}", r.stderr);

    let long = manifest.replace(
        "\"notes.txt\"",
        "\"a-name-that-is-far-too-long-for-nres-36\"",
    );
    write(dir.path(), "x/manifest.json", long.as_bytes());
    let r = run(dir.path(), &["nres", "pack", "x", "--out", "y.rlb"]).expect(1);
    assert!(
        r.stderr
            .starts_with("error[nres.bad_name]: entry 2 of the manifest"),
        "{}",
        r.stderr
    );

    write(dir.path(), "x/manifest.json", manifest.as_bytes());
    std::fs::remove_file(dir.path().join("x/0001-static.msh")).unwrap();
    let r = run(dir.path(), &["nres", "pack", "x", "--out", "y.rlb"]).expect(2);
    assert!(
        r.stderr
            .starts_with("error[io.not_found]: cannot read x/0001-static.msh"),
        "{}",
        r.stderr
    );

    let r = run(dir.path(), &["nres", "pack", "nowhere", "--out", "y.rlb"]).expect(2);
    assert!(r.stderr.starts_with("error[io.not_found]"), "{}", r.stderr);
    assert!(!dir.path().join("y.rlb").exists());
}

#[test]
fn damaged_archives_are_exit_1_for_every_nres_command() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = canonical_archive();
    let dir_offset = bytes.len() - 4 * 64;
    // Entry 0's payload size now runs into the directory.
    bytes[dir_offset + 12..dir_offset + 16].copy_from_slice(&u32::MAX.to_le_bytes());
    write(dir.path(), "bad.rlb", &bytes);
    for args in [
        &["nres", "list", "bad.rlb"][..],
        &["nres", "extract", "bad.rlb", "--out", "x"][..],
        &["nres", "repack", "bad.rlb", "--out", "y.rlb"][..],
    ] {
        let r = run(dir.path(), args).expect(1);
        assert!(
            r.stderr
                .starts_with("error[nres.payload_out_of_range]: cannot open bad.rlb: payload at"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("(directory entry 0)"));
    }
    let r = run(dir.path(), &["nres", "list", "missing.rlb"]).expect(2);
    assert!(r.stderr.starts_with("error[io.not_found]"));
}
