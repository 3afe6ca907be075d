//! Writing files so that an interrupted run never leaves half of one.

use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file in the same folder and a
/// rename: an interrupted run never leaves a partial file under `path`. The
/// file is not flushed to the disk on its own (no fsync): outputs can be made
/// again, and a flush per file made a batch on an ext4 disk several times
/// slower than the conversions themselves (bench/RESULTS.md). Errors name
/// `path`, never the temporary name.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let cannot = || format!("cannot write {}", path.display());
    let result = (|| {
        let mut f = std::fs::File::create(&tmp).with_context(cannot)?;
        f.write_all(bytes).with_context(cannot)?;
        std::fs::rename(&tmp, path).with_context(cannot)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
