//! Hand-made OBJ files that claim far more than they hold: huge indices, huge
//! faces, long lines, many faces.

use super::{Case, Kind};

/// Hand-made OBJ files: huge indices, huge faces, long lines, many faces.
pub fn obj_claims() -> Vec<Case> {
    let mut out = Vec::new();
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
    for index in [
        "2147483648",
        "4294967296",
        "-2147483648",
        "-4294967296",
        "9223372036854775807",
        "-9223372036854775808",
        "99999999999999999999999",
        "-1000000",
        "0",
    ] {
        for corner in [
            format!("{index} 2 3"),
            format!("1/{index} 2/1 3/1"),
            format!("1//{index} 2//1 3//1"),
        ] {
            out.push(Case::obj(
                format!("face corner {corner}"),
                format!("{tri}f {corner}\n").into_bytes(),
            ));
        }
    }
    // Faces with thousands of corners: convex, concave (ear clipping), past the ear-clipping limit.
    for n in [3000usize, 1000, 20_000] {
        for concave in [false, true] {
            let mut s = String::new();
            for i in 0..n {
                let a = i as f64 / n as f64 * std::f64::consts::TAU;
                let r = if concave && i % 2 == 1 { 0.5 } else { 1.0 };
                s.push_str(&format!("v {} {} 0\n", r * a.cos(), r * a.sin()));
            }
            s.push('f');
            for i in 1..=n {
                s.push_str(&format!(" {i}"));
            }
            s.push('\n');
            out.push(Case::obj(
                format!("a face of {n} corners, concave {concave}"),
                s.into_bytes(),
            ));
        }
    }
    // Faces of one repeated corner and of negative indices.
    let mut s = tri.to_string();
    s.push('f');
    s.push_str(&" -1".repeat(100_000));
    s.push('\n');
    out.push(Case::obj("a face of 100000 corners -1", s.into_bytes()));
    // More triangles than an MSH model holds, and many vertices.
    let mut s = tri.to_string();
    s.push_str(&"f 1 2 3\n".repeat(200_000));
    out.push(Case::obj("200000 triangles", s.into_bytes()));
    let mut s = tri.to_string();
    s.push_str(&"f 1 1 1\n".repeat(200_000));
    out.push(Case::obj("200000 degenerate triangles", s.into_bytes()));
    let mut s = "v 0 0 0 1 1 1\n".repeat(200_000);
    s.push_str("f 1 2 3\n");
    out.push(Case::obj("200000 coloured vertices", s.into_bytes()));
    let mut s = tri.to_string();
    for k in 0..20_000 {
        s.push_str(&format!("o n{k}\nusemtl m{k}\nf 1 2 3\n"));
    }
    out.push(Case::obj("20000 objects and materials", s.into_bytes()));
    // Very long lines.
    let long = "x".repeat(4 << 20);
    for (label, text) in [
        ("a 4 MiB comment", format!("#{long}\n{tri}f 1 2 3\n")),
        ("a 4 MiB object name", format!("{tri}o {long}\nf 1 2 3\n")),
        (
            "a 4 MiB material name",
            format!("{tri}usemtl {long}\nf 1 2 3\n"),
        ),
        ("a 4 MiB unknown keyword", format!("{long}\n{tri}f 1 2 3\n")),
        (
            "a 4 MiB number",
            format!("v 1{} 0 0\n", "0".repeat(4 << 20)),
        ),
        (
            "a 4 MiB fraction",
            format!("v 0.{} 0 0\n{tri}f 1 2 3\n", "1".repeat(4 << 20)),
        ),
        (
            "a group of 1 million names",
            format!("{tri}g {}\nf 1 2 3\n", "a ".repeat(1 << 20)),
        ),
        (
            "100000 continued lines",
            format!("{tri}f 1 \\\n{}2 3\n", " \\\n".repeat(100_000)),
        ),
        (
            "1 million empty lines",
            format!("{tri}{}f 1 2 3\n", "\n".repeat(1 << 20)),
        ),
        (
            "1 million CRs",
            format!("{tri}{}f 1 2 3\n", "\r".repeat(1 << 20)),
        ),
    ] {
        out.push(Case::obj(label, text.into_bytes()));
    }
    // A huge MTL.
    out.push(Case {
        label: "an MTL of 200000 materials".into(),
        bytes: format!("{tri}usemtl m1\nf 1 2 3\n").into_bytes(),
        kind: Kind::Obj {
            mtl: Some("newmtl m1\n".repeat(200_000).into_bytes()),
        },
    });
    out
}
