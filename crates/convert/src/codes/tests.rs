//! The registry's checks: every code unique (within the conversions and
//! against the libraries' registries below) and listed in the docs.

use super::Code;

#[test]
fn every_code_is_unique_here_and_below() {
    let mut all: Vec<&str> = Code::ALL.iter().map(|c| c.code()).collect();
    all.extend(nres::ErrorKind::ALL.iter().map(|k| k.code()));
    all.extend(msh::Code::ALL.iter().map(|c| c.as_str()));
    all.extend(mshconv_material::ErrorKind::ALL.iter().map(|k| k.code()));
    all.sort_unstable();
    let twice: Vec<_> = all.windows(2).filter(|w| w[0] == w[1]).collect();
    assert!(twice.is_empty(), "codes given twice: {twice:?}");
}

#[test]
fn the_docs_list_every_code() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut docs = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    for page in ["GLTF", "OBJ", "USD", "MATERIALS", "ROBUSTNESS", "BLENDER"] {
        docs += &std::fs::read_to_string(format!("{root}/docs/{page}.md")).unwrap();
    }
    let missing: Vec<_> = Code::ALL
        .iter()
        .map(|c| c.code())
        .filter(|c| !docs.contains(&format!("`{c}`")) && !docs.contains(&format!("[{c}]")))
        .collect();
    assert!(
        missing.is_empty(),
        "not in README.md or the formats' docs: {missing:?}"
    );
}
