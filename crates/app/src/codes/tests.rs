//! The registry's checks: every code unique (within the layer and against
//! the libraries' registries below it) and listed in the docs.

use super::{ErrorCode, NoteCode};

/// Every code of this layer, errors then notes.
fn own() -> Vec<&'static str> {
    let errors = ErrorCode::ALL.iter().map(|c| c.code());
    errors
        .chain(NoteCode::ALL.iter().map(|c| c.code()))
        .collect()
}

/// The text of README.md and every page of docs/.
fn docs() -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut text = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    for page in std::fs::read_dir(format!("{root}/docs")).unwrap() {
        let path = page.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            text += &std::fs::read_to_string(path).unwrap();
        }
    }
    text
}

#[test]
fn every_code_is_unique_here_and_below() {
    let mut all = super::every_code();
    let count = all.len();
    let below = nres::ErrorKind::ALL.len()
        + msh::Code::ALL.len()
        + mshconv_material::ErrorKind::ALL.len()
        + mshconv_convert::codes::Code::ALL.len();
    assert_eq!(
        count,
        own().len() + below,
        "every registry is in every_code"
    );
    all.sort_unstable();
    let repeated: Vec<_> = all.windows(2).filter(|w| w[0] == w[1]).collect();
    assert!(repeated.is_empty(), "codes given twice: {repeated:?}");
    assert_eq!(all.len(), count);
}

#[test]
fn the_docs_list_every_code() {
    let docs = docs();
    let missing: Vec<_> = own()
        .into_iter()
        .filter(|c| !docs.contains(&format!("`{c}`")) && !docs.contains(&format!("[{c}]")))
        .collect();
    assert!(missing.is_empty(), "not in README.md or docs/: {missing:?}");
}
