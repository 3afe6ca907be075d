//! WEAR: the text table that maps a batch's `material_index` to a material
//! name (and, optionally, lists the model's lightmaps).
//!
//! ```text
//! <count>
//! <legacy_id> <material_name>      count rows; row k serves material_index k
//! ...
//!                                  optional: one empty line, then
//! LIGHTMAPS
//! <lightmap_count>
//! <legacy_id> <lightmap_name>      lightmap_count rows
//! ```
//!
//! The text is Windows-1251 ([`crate::cp1251`]). Lines end in CRLF or LF (the
//! last line may have no ending). Fields are separated by spaces or tabs.
//!
//! The value keeps everything needed to give the same bytes back: each line's
//! ending, the spaces around and between its fields, the count's digits as
//! written, and the blank lines at the end of the file ([`Wear::trailer`]).
//! New rows get the canonical spacing (`"<id> <name>\r\n"`).
//!
//! Strictness (this crate's reading of the format): a row is exactly two
//! fields; the material count is above zero (the lightmap count may be zero);
//! the block marker is exactly [`LIGHTMAPS_MARKER`] alone on its line after
//! exactly one empty (or whitespace-only) line; after the last table only
//! blank lines may follow; control characters (other than tab) and a CR not
//! followed by LF are refused.

use crate::cp1251;
use crate::error::{Error, ErrorKind, Result};

/// The line that opens the lightmap block.
pub const LIGHTMAPS_MARKER: &str = "LIGHTMAPS";

/// The most digits a count may have (keeps it well inside `u32`).
pub const MAX_COUNT_DIGITS: usize = 9;

/// How a line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LineEnding {
    /// `\r\n`, what the game's files use.
    #[default]
    CrLf,
    /// `\n`.
    Lf,
    /// Nothing: the last line of a file without a final newline.
    None,
}

impl LineEnding {
    fn bytes(self) -> &'static [u8] {
        match self {
            LineEnding::CrLf => b"\r\n",
            LineEnding::Lf => b"\n",
            LineEnding::None => b"",
        }
    }
}

/// The spacing of a line that holds one field (a count or the marker).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LineSpacing {
    /// Spaces and tabs before the field.
    pub before: String,
    /// Spaces and tabs after the field.
    pub after: String,
    /// The line's ending.
    pub ending: LineEnding,
}

/// A count line: the number is the length of the table it heads; the digits
/// as written are kept (e.g. a leading zero) and used while they still say
/// that number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CountLine {
    /// The digits as written; empty (or saying another number) means the
    /// canonical decimal of the table's length.
    pub digits: String,
    /// The line's spacing.
    pub spacing: LineSpacing,
}

/// One row: `<legacy_id> <name>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WearRow {
    /// The legacy id, kept as written (rows are chosen by position, never by it).
    pub legacy_id: String,
    /// The material name (a MAT0 entry of `Material.lib`) or the lightmap
    /// name (a Texm entry of `LightMap.lib`).
    pub name: String,
    /// Spaces and tabs before the id.
    pub before: String,
    /// Spaces and tabs between id and name (not empty).
    pub between: String,
    /// Spaces and tabs after the name.
    pub after: String,
    /// The line's ending.
    pub ending: LineEnding,
}

impl WearRow {
    /// A row with the canonical spacing: `"<legacy_id> <name>\r\n"`.
    pub fn new(legacy_id: impl Into<String>, name: impl Into<String>) -> Self {
        WearRow {
            legacy_id: legacy_id.into(),
            name: name.into(),
            before: String::new(),
            between: " ".into(),
            after: String::new(),
            ending: LineEnding::CrLf,
        }
    }
}

/// The lightmap block: the empty line, the marker, the count and the rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Lightmaps {
    /// The whitespace of the empty line before the marker (usually empty).
    pub separator: String,
    /// The empty line's ending.
    pub separator_ending: LineEnding,
    /// The marker line's spacing.
    pub marker: LineSpacing,
    /// The count line.
    pub count: CountLine,
    /// The rows, in order.
    pub rows: Vec<WearRow>,
}

/// A parsed WEAR table.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Wear {
    /// The material count line.
    pub count: CountLine,
    /// The material rows: row k serves `material_index` k.
    pub materials: Vec<WearRow>,
    /// The lightmap block, when present.
    pub lightmaps: Option<Lightmaps>,
    /// Blank lines (spaces, tabs, line endings) after the last table, as written.
    pub trailer: String,
}

impl Wear {
    /// A table of material rows with the canonical layout.
    pub fn new(materials: Vec<WearRow>) -> Self {
        Wear {
            materials,
            ..Wear::default()
        }
    }

    /// The material name for a batch's `material_index` (by position).
    pub fn material_name(&self, material_index: usize) -> Option<&str> {
        self.materials.get(material_index).map(|r| r.name.as_str())
    }

    /// Parses WEAR bytes (Windows-1251 text).
    pub fn parse(bytes: &[u8]) -> Result<Wear> {
        parse(bytes)
    }

    /// Writes the table back to bytes: an unedited table gives its input
    /// byte for byte.
    pub fn write(&self) -> Result<Vec<u8>> {
        write(self)
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A field of a line: its offset in the file and its bytes.
type Field<'a> = (usize, &'a [u8]);

/// One line of the input: where it starts, its content and its ending.
#[derive(Clone, Copy)]
struct Line<'a> {
    start: usize,
    content: &'a [u8],
    ending: LineEnding,
}

impl Line<'_> {
    fn is_blank(&self) -> bool {
        self.content.iter().all(|&b| is_space(b))
    }

    /// The fields (offset in the file, bytes) and the spacing around them.
    fn fields(&self) -> (Vec<Field<'_>>, Vec<&[u8]>) {
        let mut fields = Vec::new();
        let mut spaces = Vec::new();
        let c = self.content;
        let mut i = 0;
        loop {
            let s = i;
            while i < c.len() && is_space(c[i]) {
                i += 1;
            }
            spaces.push(&c[s..i]);
            if i == c.len() {
                break;
            }
            let f = i;
            while i < c.len() && !is_space(c[i]) {
                i += 1;
            }
            fields.push((self.start + f, &c[f..i]));
        }
        (fields, spaces)
    }
}

fn split_lines(bytes: &[u8]) -> Result<Vec<Line<'_>>> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            lines.push(Line {
                start,
                content: &bytes[start..i],
                ending: LineEnding::Lf,
            });
            i += 1;
            start = i;
        } else if b == b'\r' {
            if bytes.get(i + 1) != Some(&b'\n') {
                return Err(Error::at(
                    ErrorKind::WearBadByte,
                    i,
                    "a carriage return not followed by a line feed",
                ));
            }
            lines.push(Line {
                start,
                content: &bytes[start..i],
                ending: LineEnding::CrLf,
            });
            i += 2;
            start = i;
        } else if (b < 0x20 && b != b'\t') || b == 0x7F {
            return Err(Error::at(
                ErrorKind::WearBadByte,
                i,
                format!("control character 0x{b:02x} in the text"),
            ));
        } else {
            i += 1;
        }
    }
    if start < bytes.len() {
        lines.push(Line {
            start,
            content: &bytes[start..],
            ending: LineEnding::None,
        });
    }
    Ok(lines)
}

fn text(bytes: &[u8]) -> String {
    cp1251::decode(bytes)
}

fn parse_count(line: Option<&Line<'_>>, end: usize, what: &str) -> Result<(usize, CountLine)> {
    let Some(line) = line else {
        return Err(Error::at(
            ErrorKind::WearBadCount,
            end,
            format!("the file ends where the {what} count should be"),
        ));
    };
    let (fields, spaces) = line.fields();
    if fields.len() != 1 {
        return Err(Error::at(
            ErrorKind::WearBadCount,
            fields.get(1).map_or(line.start, |f| f.0),
            format!("the {what} count line is not one number"),
        ));
    }
    let (at, digits) = fields[0];
    if digits.len() > MAX_COUNT_DIGITS || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Error::at(
            ErrorKind::WearBadCount,
            at,
            format!(
                "the {what} count is not a decimal number of at most {MAX_COUNT_DIGITS} digits"
            ),
        ));
    }
    let value = digits
        .iter()
        .fold(0usize, |v, d| v * 10 + usize::from(d - b'0'));
    Ok((
        value,
        CountLine {
            digits: text(digits),
            spacing: LineSpacing {
                before: text(spaces[0]),
                after: text(spaces[1]),
                ending: line.ending,
            },
        },
    ))
}

fn parse_row(line: &Line<'_>, what: &str, index: usize) -> Result<WearRow> {
    let (fields, spaces) = line.fields();
    if fields.len() != 2 {
        return Err(Error::at(
            ErrorKind::WearBadRow,
            fields.get(2).map_or(line.start, |f| f.0),
            format!(
                "{what} row {index} has {} fields, not `<legacy_id> <name>`",
                fields.len()
            ),
        ));
    }
    Ok(WearRow {
        legacy_id: text(fields[0].1),
        name: text(fields[1].1),
        before: text(spaces[0]),
        between: text(spaces[1]),
        after: text(spaces[2]),
        ending: line.ending,
    })
}

fn parse_rows(
    lines: &[Line<'_>],
    next: &mut usize,
    count: usize,
    end: usize,
    what: &str,
) -> Result<Vec<WearRow>> {
    // Each row takes at least one line, so the capacity is bounded by the input.
    let mut rows = Vec::with_capacity(count.min(lines.len()));
    for index in 0..count {
        let Some(line) = lines.get(*next) else {
            return Err(Error::at(
                ErrorKind::WearMissingRow,
                end,
                format!("the file ends after {index} of {count} {what} rows"),
            ));
        };
        rows.push(parse_row(line, what, index)?);
        *next += 1;
    }
    Ok(rows)
}

fn is_marker(line: &Line<'_>) -> bool {
    let (fields, _) = line.fields();
    fields.len() == 1 && fields[0].1 == LIGHTMAPS_MARKER.as_bytes()
}

fn parse(bytes: &[u8]) -> Result<Wear> {
    let lines = split_lines(bytes)?;
    let end = bytes.len();
    let (count, count_line) = parse_count(lines.first(), end, "material")?;
    if count == 0 {
        return Err(Error::at(
            ErrorKind::WearZeroCount,
            lines[0].start,
            "the material count is zero",
        ));
    }
    let mut next = 1;
    let materials = parse_rows(&lines, &mut next, count, end, "material")?;
    let mut lightmaps = None;
    if let Some(line) = lines.get(next) {
        if !line.is_blank() {
            let (kind, message) = if is_marker(line) {
                (
                    ErrorKind::WearMissingSeparator,
                    "LIGHTMAPS needs an empty line before it",
                )
            } else {
                (
                    ErrorKind::WearTrailingText,
                    "text after the material rows (more rows than the count?)",
                )
            };
            return Err(Error::at(kind, line.start, message));
        }
        if let Some(marker) = lines.get(next + 1).filter(|l| !l.is_blank()) {
            if !is_marker(marker) {
                return Err(Error::at(
                    ErrorKind::WearBadMarker,
                    marker.start,
                    "after the empty line only LIGHTMAPS may follow",
                ));
            }
            let (_, spaces) = marker.fields();
            let marker_spacing = LineSpacing {
                before: text(spaces[0]),
                after: text(spaces[1]),
                ending: marker.ending,
            };
            let (lm_count, lm_count_line) = parse_count(lines.get(next + 2), end, "lightmap")?;
            let separator = *line;
            next += 3;
            let rows = parse_rows(&lines, &mut next, lm_count, end, "lightmap")?;
            lightmaps = Some(Lightmaps {
                separator: text(separator.content),
                separator_ending: separator.ending,
                marker: marker_spacing,
                count: lm_count_line,
                rows,
            });
        }
    }
    let trailer_start = lines.get(next).map_or(end, |l| l.start);
    if let Some(bad) = lines[next.min(lines.len())..]
        .iter()
        .find(|l| !l.is_blank())
    {
        return Err(Error::at(
            ErrorKind::WearTrailingText,
            bad.start,
            "text after the last table",
        ));
    }
    Ok(Wear {
        count: count_line,
        materials,
        lightmaps,
        trailer: text(&bytes[trailer_start..]),
    })
}

struct Writer {
    out: Vec<u8>,
    /// Set once a line without an ending was written: nothing may follow.
    closed: bool,
}

impl Writer {
    fn put(&mut self, text: &str, what: &str) -> Result<()> {
        let bytes = cp1251::encode(text).map_err(|c| {
            Error::new(
                ErrorKind::WearUnencodable,
                format!("{what}: {c:?} has no Windows-1251 byte"),
            )
        })?;
        self.out.extend_from_slice(&bytes);
        Ok(())
    }

    fn spaces(&mut self, text: &str, what: &str, non_empty: bool) -> Result<()> {
        if !text.bytes().all(is_space) || (non_empty && text.is_empty()) {
            return Err(Error::new(
                ErrorKind::WearBadLayout,
                format!(
                    "{what}: spacing must be spaces or tabs{}",
                    if non_empty { " (at least one)" } else { "" }
                ),
            ));
        }
        self.put(text, what)
    }

    fn field(&mut self, text: &str, what: &str) -> Result<()> {
        if text.is_empty()
            || text
                .chars()
                .any(|c| c == ' ' || c == '\t' || c.is_control() && c.is_ascii())
        {
            return Err(Error::new(
                ErrorKind::WearBadLayout,
                format!("{what}: {text:?} is not one field (empty, or with spaces or control characters)"),
            ));
        }
        self.put(text, what)
    }

    fn start_line(&self, what: &str) -> Result<()> {
        if self.closed {
            return Err(Error::new(
                ErrorKind::WearBadLayout,
                format!("{what}: a line without an ending must be the last"),
            ));
        }
        Ok(())
    }

    fn end(&mut self, ending: LineEnding) {
        self.out.extend_from_slice(ending.bytes());
        self.closed = ending == LineEnding::None;
    }

    fn count(&mut self, line: &CountLine, value: usize, what: &str) -> Result<()> {
        self.start_line(what)?;
        self.spaces(&line.spacing.before, what, false)?;
        let digits = &line.digits;
        let keeps = !digits.is_empty()
            && digits.len() <= MAX_COUNT_DIGITS
            && digits.bytes().all(|b| b.is_ascii_digit())
            && digits.parse::<usize>().ok() == Some(value);
        if keeps {
            self.put(digits, what)?;
        } else {
            self.put(&value.to_string(), what)?;
        }
        self.spaces(&line.spacing.after, what, false)?;
        self.end(line.spacing.ending);
        Ok(())
    }

    fn rows(&mut self, rows: &[WearRow], what: &str) -> Result<()> {
        for (i, row) in rows.iter().enumerate() {
            let what = format!("{what} row {i}");
            self.start_line(&what)?;
            self.spaces(&row.before, &what, false)?;
            self.field(&row.legacy_id, &what)?;
            self.spaces(&row.between, &what, true)?;
            self.field(&row.name, &what)?;
            self.spaces(&row.after, &what, false)?;
            self.end(row.ending);
        }
        Ok(())
    }
}

fn write(wear: &Wear) -> Result<Vec<u8>> {
    if wear.materials.is_empty() {
        return Err(Error::new(
            ErrorKind::WearZeroCount,
            "a WEAR table needs at least one material row",
        ));
    }
    let mut w = Writer {
        out: Vec::new(),
        closed: false,
    };
    w.count(&wear.count, wear.materials.len(), "material count")?;
    w.rows(&wear.materials, "material")?;
    if let Some(lm) = &wear.lightmaps {
        w.start_line("separator")?;
        w.spaces(&lm.separator, "separator", false)?;
        w.end(lm.separator_ending);
        w.start_line("marker")?;
        w.spaces(&lm.marker.before, "marker", false)?;
        w.put(LIGHTMAPS_MARKER, "marker")?;
        w.spaces(&lm.marker.after, "marker", false)?;
        w.end(lm.marker.ending);
        w.count(&lm.count, lm.rows.len(), "lightmap count")?;
        w.rows(&lm.rows, "lightmap")?;
    }
    if !wear.trailer.is_empty() {
        check_trailer(&wear.trailer, w.closed)?;
        w.put(&wear.trailer, "trailer")?;
    }
    Ok(w.out)
}

/// The trailer must read back as blank lines after the last table: only
/// spaces, tabs and line endings (a CR only before an LF), after a line
/// that ended.
fn check_trailer(trailer: &str, closed: bool) -> Result<()> {
    let b = trailer.as_bytes();
    let mut ok = !closed;
    let mut i = 0;
    while ok && i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' => i += 1,
            b'\r' if b.get(i + 1) == Some(&b'\n') => i += 2,
            _ => ok = false,
        }
    }
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::WearBadLayout,
            "the trailer must be blank lines after a line that ended",
        ))
    }
}
