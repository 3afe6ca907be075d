//! The CLI's codes against every layer's: no code is given twice, and the
//! docs list each of the CLI's.

use super::{CliCode, CliNote};

/// The CLI's codes.
fn own() -> Vec<&'static str> {
    let errors = CliCode::ALL.iter().map(|c| c.code());
    errors
        .chain(CliNote::ALL.iter().map(|c| c.code()))
        .collect()
}

/// Every layer's registry below.
fn below() -> Vec<&'static str> {
    mshconv_app::codes::every_code()
}

#[test]
fn no_code_is_given_twice_in_any_layer() {
    let mut all = own();
    all.extend(below());
    all.sort_unstable();
    let twice: Vec<_> = all.windows(2).filter(|w| w[0] == w[1]).collect();
    assert!(twice.is_empty(), "codes given twice: {twice:?}");
}

#[test]
fn the_readme_lists_every_cli_code() {
    let readme = include_str!("../../../../README.md");
    let missing: Vec<_> = own()
        .into_iter()
        .filter(|c| !readme.contains(&format!("`{c}`")) && !readme.contains(&format!("[{c}]")))
        .collect();
    assert!(missing.is_empty(), "not in README.md: {missing:?}");
}
