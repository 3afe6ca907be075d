//! Writing files so that an interrupted run never leaves half of one.

use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// How [`write_via_temp`] finishes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flush {
    /// Renamed as soon as it is written: an interrupted run leaves no partial
    /// file, but a power loss may lose the new file's data.
    No,
    /// Flushed to the disk (fsync) before the rename, and the folder after.
    Durably,
}

/// Writes `bytes` to a temporary file beside `path` (`.NAME.PID.tmp`) and
/// renames it over `path`. Errors name `path`, never the temporary name; a
/// failed write removes the temporary file.
fn write_via_temp(path: &Path, bytes: &[u8], flush: Flush) -> anyhow::Result<()> {
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
        if flush == Flush::Durably {
            f.sync_all().with_context(cannot)?;
        }
        drop(f);
        std::fs::rename(&tmp, path).with_context(cannot)?;
        if flush == Flush::Durably {
            // The rename itself is durable once the folder is flushed (best
            // effort: not every platform opens a folder as a file).
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a
/// rename: an interrupted run never leaves a partial file under `path`. The
/// file is not flushed to the disk on its own (no fsync): outputs can be made
/// again, and a flush per file made a batch on an ext4 disk several times
/// slower than the conversions themselves (bench/RESULTS.md).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_via_temp(path, bytes, Flush::No)
}

/// Replaces the file at `path` with `bytes` so that the old file stays whole
/// until the new one is complete on the disk: the temporary file is flushed
/// (fsync) before it is renamed over `path`, and the folder after. A kill at
/// any moment leaves either the old file or the new one under `path` (and at
/// worst a stray temporary file `.NAME.PID.tmp` beside it). For the user's
/// own files, such as an archive a model is put into, where
/// [`write_atomically`]'s speed matters less than the data.
pub fn replace_durably(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_via_temp(path, bytes, Flush::Durably)
}
