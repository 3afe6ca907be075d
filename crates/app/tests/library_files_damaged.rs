//! Hand-edited `textures.json` and material files, damaged at every field
//! in every way a text editor can: the import gives a documented error code
//! (docs/LIBRARY_FILES.md) or a plan, and never panics. Over the fixture
//! game folder's libraries.

use mshconv_app::library_files::{materials, read_library, textures};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn game() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/small/game")
}

/// The JSON pointer of every value inside `v` (not the root).
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, item) in map {
                let p = format!("{at}/{k}");
                out.push(p.clone());
                pointers(item, p, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(item, p, out);
            }
        }
        _ => {}
    }
}

/// Each way one value is damaged: replaced by another kind or an out-of-range number.
fn damaged(v: &Value) -> Vec<Value> {
    let bads = [
        Value::Null,
        serde_json::json!(-1),
        serde_json::json!(4294967296u64),
        serde_json::json!(1.5),
        serde_json::json!("x"),
        serde_json::json!([]),
        serde_json::json!({}),
    ];
    let mut files = Vec::new();
    let mut list = Vec::new();
    pointers(v, String::new(), &mut list);
    for p in &list {
        for bad in &bads {
            let mut copy = v.clone();
            *copy.pointer_mut(p).unwrap() = bad.clone();
            files.push(copy);
        }
        // And the value left out.
        let (parent, key) = p.rsplit_once('/').unwrap();
        let mut copy = v.clone();
        match copy.pointer_mut(parent).unwrap() {
            Value::Object(map) => {
                map.remove(key);
            }
            Value::Array(items) => {
                items.remove(key.parse::<usize>().unwrap());
            }
            _ => unreachable!(),
        }
        files.push(copy);
    }
    files
}

const DOCUMENTED: [&str; 6] = [
    "textures.bad_index",
    "materials.bad_file",
    "look.bad_texture",
    "image.invalid",
    "image.too_large",
    "archive.bad_name",
];

#[test]
fn every_damaged_material_field_gives_a_documented_error_or_a_plan() {
    let lib = read_library(&game().join("Material.lib")).unwrap();
    let good: Value = serde_json::from_slice(&materials::export(&lib).unwrap()).unwrap();
    let file = Path::new("m.json");
    let mut errors = 0;
    for bad in damaged(&good) {
        let text = serde_json::to_vec(&bad).unwrap();
        if let Err(e) = materials::plan_import(file, &text, &lib, None) {
            assert!(
                DOCUMENTED.contains(&e.code()),
                "{}: {}",
                e.code(),
                e.message()
            );
            assert!(e.message().starts_with("m.json: "), "{}", e.message());
            errors += 1;
        }
    }
    assert!(errors > 1000, "most damage is refused: {errors}");
    // Cut anywhere, the text is not JSON.
    let text = serde_json::to_vec(&good).unwrap();
    for cut in (0..text.len()).step_by(97) {
        let e = materials::plan_import(file, &text[..cut], &lib, None).unwrap_err();
        assert_eq!(e.code(), "materials.bad_file");
    }
}

#[test]
fn every_damaged_textures_json_field_gives_a_documented_error_or_a_plan() {
    let lib = read_library(&game().join("Textures.lib")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let exported = textures::export(&lib).unwrap();
    for (name, bytes) in &exported.files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let index = dir.path().join(textures::INDEX);
    let good: Value = serde_json::from_slice(&std::fs::read(&index).unwrap()).unwrap();
    // The palette (one long string) and the Page rectangles are enough once.
    let mut small = good.clone();
    for t in small["textures"].as_array_mut().unwrap().iter_mut().skip(3) {
        t.as_object_mut().unwrap().remove("palette");
        t.as_object_mut().unwrap().remove("page");
    }
    let mut errors = 0;
    for bad in damaged(&small) {
        std::fs::write(&index, serde_json::to_vec(&bad).unwrap()).unwrap();
        if let Err(e) = textures::plan_import(dir.path(), &lib) {
            assert!(
                DOCUMENTED.contains(&e.code()),
                "{}: {}",
                e.code(),
                e.message()
            );
            errors += 1;
        }
    }
    assert!(errors > 300, "most damage is refused: {errors}");
    // A PNG that is not one.
    std::fs::write(&index, serde_json::to_vec(&good).unwrap()).unwrap();
    std::fs::write(
        dir.path().join("ROCK_888.png"),
        b"\x89PNG\r\n\x1a\nnot really",
    )
    .unwrap();
    let e = textures::plan_import(dir.path(), &lib).unwrap_err();
    assert_eq!(e.code(), "image.invalid");
}
