//! The model layer's codes (`msh::Code::ALL`): unique, also against the
//! container's, and each listed in docs/FORMAT.md's codes table.

use msh::Code;

#[test]
fn codes_are_unique_across_the_model_and_the_container() {
    let mut codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    codes.extend(nres::ErrorKind::ALL.iter().map(|k| k.code()));
    let count = codes.len();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), count, "a code is given twice");
}

#[test]
fn docs_list_every_code() {
    let format = include_str!("../../../docs/FORMAT.md");
    for code in Code::ALL {
        let row = format!("| `{}` |", code.as_str());
        assert!(format.contains(&row), "docs/FORMAT.md does not list {code}");
    }
}

#[test]
fn the_container_codes_are_the_containers() {
    // `Container` and `PayloadOverlap` give the container's codes.
    assert_eq!(
        Code::PayloadOverlap.as_str(),
        nres::ErrorKind::PayloadOverlap.code()
    );
    assert_eq!(
        Code::Container(nres::ErrorKind::BadMagic).as_str(),
        "nres.bad_magic"
    );
    assert!(!Code::ALL.contains(&Code::PayloadOverlap));
}
