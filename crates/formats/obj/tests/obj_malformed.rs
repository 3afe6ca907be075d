//! Malformed OBJ: each case is an `InvalidInput` error with a stable code and
//! the line number in the message, never a panic, and nothing is allocated by a
//! number read from the file.

use mshconv_convert::ErrorKind;
use mshconv_obj::{obj_to_msh, ObjImportOptions};

const CUBE_HEAD: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

/// (case, OBJ text, expected code, expected line)
fn cases() -> Vec<(&'static str, String, &'static str, usize)> {
    let c = CUBE_HEAD;
    vec![
        ("index zero", format!("{c}f 1 2 0\n"), "obj.bad_index", 5),
        (
            "index past the vertices",
            format!("{c}f 1 2 5\n"),
            "obj.bad_index",
            5,
        ),
        (
            "vertex defined after the face",
            "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 1 1 0\n".into(),
            "obj.bad_index",
            3,
        ),
        (
            "negative index past the start",
            format!("{c}f -1 -2 -5\n"),
            "obj.bad_index",
            5,
        ),
        (
            "small file, huge index",
            "v 0 0 0\nf 1 1 4294967296\n".into(),
            "obj.bad_index",
            2,
        ),
        (
            "small file, index beyond 64 bits",
            "v 0 0 0\nf 1 1 99999999999999999999999999\n".into(),
            "obj.bad_index",
            2,
        ),
        (
            "huge negative index",
            "v 0 0 0\nf 1 1 -9223372036854775808\n".into(),
            "obj.bad_index",
            2,
        ),
        (
            // Merely past those defined, the attribute is dropped
            // (obj_attribute_range.rs); beyond 32 bits the index is malformed.
            "texture index beyond 32 bits",
            format!("{c}vt 0 0\nf 1/1 2/4294967297 3/1\n"),
            "obj.bad_index",
            6,
        ),
        (
            "texture index zero",
            format!("{c}vt 0 0\nf 1/0 2/1 3/1\n"),
            "obj.bad_index",
            6,
        ),
        (
            "normal index beyond 32 bits",
            format!("{c}vn 0 0 1\nf 1//1 2//1 3//-4294967296\n"),
            "obj.bad_index",
            6,
        ),
        (
            "index not a number",
            format!("{c}f 1 2 x\n"),
            "obj.bad_index",
            5,
        ),
        (
            "corner with four parts",
            format!("{c}f 1/1/1/1 2 3\n"),
            "obj.bad_face",
            5,
        ),
        (
            "corner without a vertex",
            format!("{c}f /1 2 3\n"),
            "obj.bad_face",
            5,
        ),
        (
            "face with two corners",
            format!("{c}\n\nf 1 2\n"),
            "obj.bad_face",
            7,
        ),
        (
            "position with two numbers",
            "v 1 2\nf 1 1 1\n".into(),
            "obj.bad_number",
            1,
        ),
        (
            "position with five numbers",
            "v 1 2 3 4 5\n".into(),
            "obj.bad_number",
            1,
        ),
        (
            "position not a number",
            "# comment\nv 1 two 3\n".into(),
            "obj.bad_number",
            2,
        ),
        (
            "normal with two numbers",
            format!("{c}vn 0 1\n"),
            "obj.bad_number",
            5,
        ),
        (
            "texture coordinate with no number",
            format!("{c}vt\n"),
            "obj.bad_number",
            5,
        ),
        (
            "NaN position",
            format!("{c}v NaN 0 0\n"),
            "obj.non_finite",
            5,
        ),
        (
            "infinite normal",
            format!("{c}vn inf 0 1\n"),
            "obj.non_finite",
            5,
        ),
        (
            "position too large for f32",
            format!("{c}v 1e39 0 0\n"),
            "obj.non_finite",
            5,
        ),
        (
            "not UTF-8",
            "v 0 0 0\nv 1 0 0\no caf\u{e9}\n".into(),
            "obj.not_utf8",
            3,
        ),
        (
            "no faces at all",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\n".into(),
            "obj.no_faces",
            0,
        ),
        (
            "not an OBJ",
            "hello world\nthis is text\n".into(),
            "obj.no_faces",
            0,
        ),
        (
            "CRLF and continuation keep line numbers",
            format!("{c}f 1 \\\r\n 2 \\\r\n 3\r\nf 1 2 7\r\n"),
            "obj.bad_index",
            8,
        ),
    ]
}

#[test]
fn malformed_obj_gives_its_code_and_line() {
    let mut failures = Vec::new();
    for (case, text, code, line) in cases() {
        let mut bytes = text.into_bytes();
        if case == "not UTF-8" {
            // Latin-1 é instead of UTF-8.
            let at = bytes.len() - 2;
            bytes.splice(at..at + 2, [0xE9]);
        }
        let result =
            std::panic::catch_unwind(|| obj_to_msh(&bytes, None, &ObjImportOptions::default()));
        match result {
            Err(_) => failures.push(format!("{case}: panicked")),
            Ok(Ok(_)) => failures.push(format!("{case}: accepted")),
            Ok(Err(e)) => {
                let wanted_line = format!("line {line}:");
                if e.kind() != ErrorKind::InvalidInput || e.code() != code {
                    failures.push(format!(
                        "{case}: expected InvalidInput {code}, got {:?} {e}",
                        e.kind()
                    ));
                } else if line > 0 && !e.message().starts_with(&wanted_line) {
                    failures.push(format!(
                        "{case}: message does not start with {wanted_line:?}: {e}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_non_utf8_mtl_is_an_error_with_its_line() {
    let obj = format!("{CUBE_HEAD}usemtl Steel\nf 1 2 3\n");
    let e = obj_to_msh(
        obj.as_bytes(),
        Some(b"newmtl Steel\nKd 1 1 1\nnewmtl \xff\n"),
        &ObjImportOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        (e.kind(), e.code()),
        (ErrorKind::InvalidInput, "obj.mtl_not_utf8")
    );
    assert!(e.message().starts_with("line 3:"), "{e}");
}

#[test]
fn huge_polygons_are_cut_without_blowing_up() {
    // Concave stars: 1000 corners are ear-clipped (quadratic work at most a few
    // million steps); 5000 are beyond the ear clipping limit and cut as a fan, with a note.
    for (n, fan) in [(1000usize, false), (5000, true)] {
        let mut text = String::new();
        for i in 0..n {
            let a = i as f64 * std::f64::consts::TAU / n as f64;
            let r = if i % 2 == 0 { 1.0 } else { 0.5 };
            text.push_str(&format!("v {} {} 0\n", r * a.cos(), r * a.sin()));
        }
        text.push('f');
        for i in 1..=n {
            text.push_str(&format!(" {i}"));
        }
        text.push('\n');
        let (scene, report) =
            mshconv_obj::to_scene(text.as_bytes(), None, &ObjImportOptions::default()).unwrap();
        assert_eq!(scene.nodes[0].slots[0].batches[0].triangles.len(), n - 2);
        assert_eq!(report.has("obj.fan_triangulation"), fan, "{n} corners");
    }
}

#[test]
fn lines_points_and_unknown_statements_are_reported_not_fatal() {
    let text = format!("{CUBE_HEAD}l 1 2\np 3\ncstype bezier\ns 1\nmtllib x.mtl\nf 1 2 3 4\n");
    let (scene, report) =
        mshconv_obj::to_scene(text.as_bytes(), None, &ObjImportOptions::default()).unwrap();
    assert!(report.has("obj.lines_ignored"));
    assert!(report.has("obj.statement_ignored"));
    assert_eq!(scene.nodes[0].slots[0].batches[0].triangles.len(), 2);
}
