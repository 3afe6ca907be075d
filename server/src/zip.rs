//! The zips the service answers, written by the `zip` crate: Deflate (pure
//! Rust, `miniz_oxide` through `flate2`) for every file but PNG images (already
//! deflated: stored), a fixed timestamp (1980-01-01 00:00, the earliest a zip
//! can say) and fixed permissions, so the same files always give the same
//! bytes (answers can be cached and diffed). No zip64: [`Zip::finish`] refuses
//! an archive of 4 GiB or more. A zip may have a smaller limit of its own
//! ([`Zip::with_limit`]): the bytes past it are never written, so an answer
//! made of many files (`/v1/archive/convert`) holds no more memory than that.
//!
//! Deflate shrinks the text answers severalfold (README.md, "HTTP service",
//! Zips: `m095_walker.msh` to OBJ, 32,006 bytes stored, 6,846 deflated).

use ::zip::write::SimpleFileOptions;
use ::zip::{CompressionMethod, DateTime, ZipWriter};
use std::io::{Cursor, Seek, SeekFrom, Write};

/// The zip's bytes in memory, refusing any write that would take them past
/// `limit`. Once one was refused the zip is void: what the writer still
/// writes (it finishes the archive when dropped) is dropped unread.
struct Sink {
    bytes: Cursor<Vec<u8>>,
    limit: u64,
    void: bool,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.void {
            return Ok(buf.len());
        }
        let end = self.bytes.position().saturating_add(buf.len() as u64);
        if end > self.limit {
            self.void = true;
            return Err(std::io::Error::other("the zip's limit"));
        }
        self.bytes.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for Sink {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.bytes.seek(to)
    }
}

/// A zip being built in memory.
pub struct Zip {
    writer: ZipWriter<Sink>,
    /// Files added.
    count: usize,
    /// A file could not be added (past the limit, or 65535 files).
    failed: bool,
    /// The most bytes the zip may have.
    limit: u64,
}

impl std::fmt::Debug for Zip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Zip").field("failed", &self.failed).finish()
    }
}

impl Default for Zip {
    fn default() -> Self {
        Zip::with_limit(MAX_BYTES)
    }
}

/// The archive would be over its limit (at most 4 GiB: zip64 is not
/// written), or hold more than 65535 files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    /// The zip's limit in bytes.
    pub limit: u64,
}

/// Most files a zip without zip64 holds.
const MAX_FILES: usize = 0xFFFF;
/// Most bytes a zip without zip64 holds.
const MAX_BYTES: u64 = 0xFFFF_FFFF;

impl Zip {
    /// An empty zip (of at most 4 GiB).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty zip of at most `limit` bytes (4 GiB at most).
    pub fn with_limit(limit: u64) -> Self {
        let sink = Sink {
            bytes: Cursor::new(Vec::new()),
            limit: limit.min(MAX_BYTES),
            void: false,
        };
        Zip {
            writer: ZipWriter::new(sink),
            count: 0,
            failed: false,
            limit: limit.min(MAX_BYTES),
        }
    }

    /// Whether a file could not be added: the zip is over its limit (or
    /// holds 65535 files), and [`Zip::finish`] will say so.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The options of a file called `name`: stored when it is a PNG (its
    /// pixels are deflated already), else deflated at the default level.
    fn options(name: &str) -> SimpleFileOptions {
        let png = name
            .rsplit_once('.')
            .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("png"));
        let method = if png {
            CompressionMethod::Stored
        } else {
            CompressionMethod::Deflated
        };
        SimpleFileOptions::default()
            .compression_method(method)
            .last_modified_time(DateTime::default())
            .unix_permissions(0o644)
            .large_file(false)
    }

    /// Adds a file. `name` is used as given (callers pass plain, sanitised
    /// names: no folders, no `..`).
    pub fn add(&mut self, name: &str, data: &[u8]) {
        if self.failed {
            return;
        }
        let fits = self.count < MAX_FILES && (data.len() as u64) < MAX_BYTES;
        let written = fits
            && self
                .writer
                .start_file(name, Self::options(name))
                .and_then(|()| Ok(self.writer.write_all(data)?))
                .is_ok();
        self.count += 1;
        self.failed = !written;
    }

    /// The finished archive.
    pub fn finish(self) -> Result<Vec<u8>, TooLarge> {
        let too_large = TooLarge { limit: self.limit };
        if self.failed {
            return Err(too_large);
        }
        let sink = self.writer.finish().map_err(|_| too_large)?;
        Ok(sink.bytes.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn files(bytes: &[u8]) -> Vec<(String, CompressionMethod, Vec<u8>)> {
        let mut archive = ::zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        (0..archive.len())
            .map(|i| {
                let mut f = archive.by_index(i).unwrap();
                let mut data = Vec::new();
                f.read_to_end(&mut data).unwrap();
                (f.name().to_string(), f.compression(), data)
            })
            .collect()
    }

    #[test]
    fn a_zip_reader_reads_back_every_file() {
        let mut zip = Zip::new();
        zip.add("a.obj", b"o a\nv 0 0 0\n");
        zip.add("empty.txt", b"");
        zip.add("r\u{e9}sum\u{e9}.bin", &[0, 1, 2, 255]);
        zip.add("t.PNG", b"\x89PNG");
        let bytes = zip.finish().unwrap();
        let deflated = CompressionMethod::Deflated;
        assert_eq!(
            files(&bytes),
            [
                ("a.obj".into(), deflated, b"o a\nv 0 0 0\n".to_vec()),
                ("empty.txt".into(), deflated, Vec::new()),
                ("r\u{e9}sum\u{e9}.bin".into(), deflated, vec![0, 1, 2, 255]),
                (
                    "t.PNG".into(),
                    CompressionMethod::Stored,
                    b"\x89PNG".to_vec()
                ),
            ]
        );
    }

    #[test]
    fn text_shrinks() {
        let text = "v 0.5 1.25 -3\n".repeat(1000);
        let mut zip = Zip::new();
        zip.add("a.obj", text.as_bytes());
        let bytes = zip.finish().unwrap();
        assert!(bytes.len() < text.len() / 10, "{}", bytes.len());
        assert_eq!(files(&bytes)[0].2, text.as_bytes());
    }

    #[test]
    fn same_files_same_bytes() {
        let build = || {
            let mut zip = Zip::new();
            zip.add("x", b"1");
            zip.finish().unwrap()
        };
        assert_eq!(build(), build());
        assert_eq!(Zip::new().finish().unwrap().len(), 22);
    }

    #[test]
    fn nothing_is_written_past_the_limit() {
        let noise: Vec<u8> = (0..10_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let mut zip = Zip::new();
        zip.add("a.png", &noise);
        let whole = zip.finish().unwrap().len() as u64;
        // The same file in a zip one byte short of it: refused.
        let mut zip = Zip::with_limit(whole - 1);
        zip.add("a.png", &noise);
        assert_eq!(zip.finish(), Err(TooLarge { limit: whole - 1 }));
        // A file past the limit fails at once, and so does every file after it.
        let mut zip = Zip::with_limit(5_000);
        zip.add("a.png", &noise);
        assert!(zip.failed());
        zip.add("b.txt", b"b");
        assert_eq!(zip.finish(), Err(TooLarge { limit: 5_000 }));
        let mut zip = Zip::with_limit(whole);
        zip.add("a.png", &noise);
        assert_eq!(files(&zip.finish().unwrap())[0].2, noise);
    }
}
