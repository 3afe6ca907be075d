//! OBJ faces naming a texture coordinate or normal past those defined (issue
//! 24): that attribute is dropped for the face, with a note, as obj2gltf does;
//! a position past those defined stays an error.

#[path = "../../gltf/tests/common/mod.rs"]
mod common;

use common::obj::{posed_triangles, Names};

fn import(obj: &str) -> mshconv_convert::Result<(Vec<u8>, mshconv_convert::Report)> {
    mshconv_obj::obj_to_msh(obj.as_bytes(), None, &Default::default())
}

const HEAD: &str = "o quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvn 0 0 1\n";

#[test]
fn an_attribute_index_out_of_range_drops_that_attribute_for_the_face() {
    // Face 1 names normal 2 (one is defined); face 2 names texture coordinate 9.
    let bad = format!("{HEAD}f 1/1/1 2/2/2 3/3/1\nf 1/1/1 3/9/1 4/3/1\n");
    // The same faces without the attributes that were out of range.
    let plain = format!("{HEAD}f 1/1 2/2 3/3\nf 1//1 3//1 4//1\n");
    let (msh, report) = import(&bad).unwrap();
    let dropped: Vec<&str> = report
        .notes
        .iter()
        .filter(|n| n.code == "obj.attribute_dropped")
        .map(|n| n.message.as_str())
        .collect();
    assert_eq!(dropped.len(), 2, "{report:?}");
    assert!(dropped[0].contains("line 11") && dropped[0].contains("texture coordinates"));
    assert!(dropped[1].contains("line 10") && dropped[1].contains("normals"));
    let (want, _) = import(&plain).unwrap();
    let rot = Default::default();
    let problems = common::obj::compare(
        &posed_triangles(&want, 0, 0, rot, Names::Raw),
        &posed_triangles(&msh, 0, 0, rot, Names::Raw),
        0.0,
        0.0,
        0.0,
    );
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_position_out_of_range_and_malformed_indices_stay_errors() {
    for face in [
        "f 1 2 5",
        "f 1/0 2/1 3/1",
        "f 1/4294967296 2 3",
        "f 1//x 2 3",
    ] {
        let e = import(&format!("{HEAD}{face}\n")).unwrap_err();
        assert_eq!(e.code(), "obj.bad_index", "{face}");
    }
}
