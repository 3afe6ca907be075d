//! Build script: the git commit the binary is built from, for `mshconv
//! --version` (`MSHCONV_COMMIT`: the short hash, with `, modified` when the
//! sources under `crates/` differ from it). Without git, or outside the
//! repository this crate's manifest is tracked in (a crate tarball, a copy),
//! it is `unknown`; a packager can set `MSHCONV_COMMIT` themselves.

use std::path::Path;
use std::process::Command;

/// `git ARGS` run in this crate's folder: its trimmed output, if it succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=MSHCONV_COMMIT");
    println!("cargo:rerun-if-env-changed=GIT_DIR");
    let commit = match std::env::var("MSHCONV_COMMIT") {
        Ok(given) if !given.is_empty() => given,
        _ => from_git().unwrap_or_else(|| "unknown".to_string()),
    };
    println!("cargo:rustc-env=MSHCONV_COMMIT={commit}");
}

/// The commit, when this crate is built from a git checkout of its own
/// repository; the files whose change may change it are watched.
fn from_git() -> Option<String> {
    let dir = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    // This crate's manifest must be tracked here: a tarball unpacked inside
    // some other repository (a home folder under git) is not a checkout.
    git(&dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let hash = git(&dir, &["rev-parse", "--short", "HEAD"]).filter(|h| !h.is_empty())?;
    // Rebuilt when HEAD moves (a commit, a checkout) or the index changes.
    for path in ["HEAD", "index", "packed-refs"] {
        if let Some(p) = git(&dir, &["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={}", dir.join(p).display());
        }
    }
    if let Some(head_ref) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&dir, &["rev-parse", "--git-path", &head_ref]) {
            println!("cargo:rerun-if-changed={}", dir.join(p).display());
        }
    }
    // The sources the binary is built from: an edit there marks it modified.
    let sources = ["../../crates", "../../Cargo.toml", "../../Cargo.lock"];
    for s in sources {
        println!("cargo:rerun-if-changed={}", dir.join(s).display());
    }
    let mut args = vec!["status", "--porcelain", "--"];
    args.extend(sources);
    let modified = git(&dir, &args).is_some_and(|s| !s.is_empty());
    Some(if modified {
        format!("{hash}, modified")
    } else {
        hash
    })
}
