//! What `mshconv --version` prints: the version and the commit the binary
//! was built from (`build.rs`).

/// `0.1.0 (commit b02a13f)`, `0.1.0 (commit b02a13f, modified)` when the
/// sources differed from the commit, `0.1.0 (commit unknown)` when built
/// without git (a crate tarball).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("MSHCONV_COMMIT"),
    ")"
);
