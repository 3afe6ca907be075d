//! The service's codes against every layer's: no code is given twice, and
//! README.md lists each of the service's.

use super::ServerCode;

/// Every layer's registry below.
fn below() -> Vec<&'static str> {
    mshconv_app::codes::every_code()
}

#[test]
fn no_code_is_given_twice_in_any_layer() {
    let mut all: Vec<&str> = ServerCode::ALL.iter().map(|c| c.code()).collect();
    all.extend(below());
    all.sort_unstable();
    let twice: Vec<_> = all.windows(2).filter(|w| w[0] == w[1]).collect();
    assert!(twice.is_empty(), "codes given twice: {twice:?}");
}

#[test]
fn the_readme_lists_every_service_code() {
    let readme = include_str!("../../../README.md");
    let missing: Vec<_> = ServerCode::ALL
        .iter()
        .map(|c| c.code())
        .filter(|c| !readme.contains(&format!("`{c}`")))
        .collect();
    assert!(missing.is_empty(), "not in README.md: {missing:?}");
}
