//! `mshconv --version`: the version and the commit the binary was built
//! from (build.rs).

mod common;

use common::run;
use std::process::Command;

/// `git ARGS` in this crate's folder, if git is there and it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn version_names_the_commit_built_from() {
    let dir = tempfile::tempdir().unwrap();
    let line = run(dir.path(), &["--version"]).expect(0).stdout;
    let prefix = format!("mshconv {} (commit ", env!("CARGO_PKG_VERSION"));
    let commit = line
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("not `{prefix}...)`: {line:?}"));
    let hash = commit.strip_suffix(", modified").unwrap_or(commit);
    let tracked = git(&["ls-files", "--error-unmatch", "Cargo.toml"]).is_some();
    match git(&["rev-parse", "--short", "HEAD"]).filter(|_| tracked) {
        // A checkout: the commit is HEAD's (the binary is rebuilt when HEAD moves).
        Some(head) => assert_eq!(hash, head),
        // Without git (a crate tarball): said so.
        None => assert_eq!(hash, "unknown"),
    }
    assert_eq!(run(dir.path(), &["-V"]).expect(0).stdout, line);
}
