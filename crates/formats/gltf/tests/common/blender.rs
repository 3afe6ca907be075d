//! Real Blender (the `bpy` module, scripts/setup-blender.sh) for the tests
//! that take a file through it.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

/// The Python that has `bpy` (`MSHCONV_BLENDER_PYTHON`, else `.venv-blender`).
pub fn python() -> PathBuf {
    if let Ok(p) = std::env::var("MSHCONV_BLENDER_PYTHON") {
        return PathBuf::from(p);
    }
    let p = super::root().join(".venv-blender/bin/python");
    assert!(
        p.exists(),
        "real Blender (bpy) is not installed: run scripts/setup-blender.sh (scripts/test.sh does)"
    );
    p
}

/// Runs `tools/blender/SCRIPT ARGS...`; it must succeed and print `done`.
pub fn run(script: &str, args: &[&OsStr], done: &str) {
    let out = Command::new(python())
        .arg(super::root().join("tools/blender").join(script))
        .args(args)
        .output()
        .expect("run Blender");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains(done),
        "Blender failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
