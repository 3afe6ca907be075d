//! What a batch reports: a record per input, the totals, the summary line.

use crate::archive::Placed;
use crate::Format;
use serde::Serialize;
use std::time::Instant;

/// How one input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Converted and written.
    Converted,
    /// Could not be converted (or written); `code` and `message` say why.
    Failed,
    /// Not converted on purpose: not a format that converts to `--to`, or not
    /// reached because the batch was interrupted.
    Skipped,
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    /// The input: a path, or `ARCHIVE:ENTRY`.
    pub input: String,
    /// The file written (`null` when nothing was written).
    pub output: Option<String>,
    /// How it ended.
    pub status: Status,
    /// Stable code of the failure or the reason for skipping.
    pub code: Option<String>,
    /// What went wrong, for a person.
    pub message: Option<String>,
    /// What the conversion approximated or decided.
    pub notes: Vec<mshconv_convert::Note>,
    /// Size of the input (of the entry's payload for an archive entry).
    pub bytes_in: u64,
    /// Size of what was written (with the `.mtl` for `.obj` output).
    pub bytes_out: u64,
    /// Time spent on this input, in milliseconds.
    pub ms: f64,
    /// With `--into`: whether the model replaced an entry or was added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placed: Option<Placed>,
    /// With `--into`: the converted model, until it is put into the archive.
    #[serde(skip)]
    pub payload: Option<Vec<u8>>,
    /// With `--game-dir` and `--to msh`: the input's look, until it is
    /// brought back into the game's data (`batch::look`).
    #[serde(skip)]
    pub look: Option<Box<mshconv_convert::imported_look::ImportedLook>>,
    /// With `--dry-run` (and `--out`): each file the conversion would write
    /// and its size.
    #[serde(skip)]
    pub would_write: Vec<(String, usize)>,
}

impl Record {
    /// A record of `input` with no output yet.
    pub fn new(input: &str, status: Status) -> Record {
        Record {
            input: input.to_string(),
            output: None,
            status,
            code: None,
            message: None,
            notes: Vec::new(),
            bytes_in: 0,
            bytes_out: 0,
            ms: 0.0,
            placed: None,
            payload: None,
            look: None,
            would_write: Vec::new(),
        }
    }

    /// A failed input.
    pub fn failed(input: &str, code: &str, message: impl Into<String>) -> Record {
        Record {
            code: Some(code.to_string()),
            message: Some(message.into()),
            ..Record::new(input, Status::Failed)
        }
    }

    /// A skipped input.
    pub fn skipped(input: &str, code: &str, message: impl Into<String>) -> Record {
        Record {
            code: Some(code.to_string()),
            message: Some(message.into()),
            ..Record::new(input, Status::Skipped)
        }
    }
}

/// The report's totals.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The output format.
    pub to: String,
    /// Inputs converted.
    pub converted: usize,
    /// Inputs that failed.
    pub failed: usize,
    /// Inputs skipped.
    pub skipped: usize,
    /// Bytes read, over every input.
    pub bytes_in: u64,
    /// Bytes written, over every output.
    pub bytes_out: u64,
    /// Wall time of the whole batch.
    pub seconds: f64,
    /// Whether SIGINT stopped the batch.
    pub interrupted: bool,
}

/// The JSON report of `--report`: the totals, then a record per input.
#[derive(Serialize)]
pub struct Report<'a> {
    /// The totals.
    pub summary: &'a Summary,
    /// A record per input, sorted by input.
    pub files: &'a [Record],
}

impl Report<'_> {
    /// The report's JSON, pretty-printed, ending in a newline.
    pub fn json(&self) -> Result<Vec<u8>, crate::Error> {
        let mut json = serde_json::to_vec_pretty(self)
            .map_err(|e| crate::Error::internal(format!("cannot encode the report: {e}")))?;
        json.push(b'\n');
        Ok(json)
    }
}

/// The totals of `records`, the batch having started at `started`.
pub fn summarize(records: &[Record], to: Format, started: Instant, interrupted: bool) -> Summary {
    let count = |s: Status| records.iter().filter(|r| r.status == s).count();
    Summary {
        to: to.to_string(),
        converted: count(Status::Converted),
        failed: count(Status::Failed),
        skipped: count(Status::Skipped),
        bytes_in: records.iter().map(|r| r.bytes_in).sum(),
        bytes_out: records.iter().map(|r| r.bytes_out).sum(),
        seconds: (started.elapsed().as_secs_f64() * 1e3).round() / 1e3,
        interrupted,
    }
}

/// `batch: 433 converted, 2 failed, 0 skipped; 58.1 MiB in, 120.3 MiB out; 3.21 s`.
pub fn summary_line(s: &Summary) -> String {
    format!(
        "batch{}: {} converted, {} failed, {} skipped; {} in, {} out; {:.2} s",
        if s.interrupted { " (interrupted)" } else { "" },
        s.converted,
        s.failed,
        s.skipped,
        size(s.bytes_in),
        size(s.bytes_out),
        s.seconds
    )
}

/// A byte count for people: `512 B`, `3.4 KiB`, `58.1 MiB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_for_people() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1023), "1023 B");
        assert_eq!(size(1024), "1.0 KiB");
        assert_eq!(size(1536 * 1024), "1.5 MiB");
    }
}
