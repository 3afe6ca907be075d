//! README.md's tables of formats and options are the application layer's
//! tables ([`FORMATS`], [`OPTIONS`]) row for row: a row added to a table (or
//! changed) fails this test until README.md says the same.

use mshconv_app::{FormatSpec, OptionSpec, OptionValues, ZipRule, FORMATS, OPTIONS};

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    std::fs::read_to_string(path).expect("README.md")
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        ""
    }
}

/// One format's row, as README.md writes it.
fn format_row(f: &FormatSpec) -> String {
    let extensions: Vec<String> = f.extensions.iter().map(|e| format!("`.{e}`")).collect();
    let look = match (f.takes_look, f.brings_look) {
        (true, true) => "takes it (export), brings it back (import)",
        (true, false) => "takes it (export)",
        (false, true) => "brings it back (import)",
        (false, false) => "",
    };
    let answer = match f.zip {
        ZipRule::Never => "the file",
        ZipRule::Always => "a zip of its files (`part=` for one)",
        ZipRule::WithSideFiles => "a zip when it has side files, else the file",
    };
    format!(
        "| `{}` | {} | `{}` | {} | {} | {} | {} | {} |",
        f.name,
        extensions.join(" "),
        f.media_type,
        yes(f.exported()),
        yes(f.imported()),
        look,
        f.side_files,
        answer
    )
}

/// One option's row, as README.md writes it.
fn option_row(o: &OptionSpec) -> String {
    let values = match o.values {
        OptionValues::Integer { max } => format!("0 to {max}"),
        OptionValues::Number { max } => format!("above 0, at most {max}"),
        OptionValues::OneOf(words) => words
            .iter()
            .map(|w| format!("`{w}`"))
            .collect::<Vec<_>>()
            .join(", "),
        OptionValues::Text => "text".to_string(),
    };
    let read_by = match (o.export, o.import) {
        (true, true) => "export, import",
        (true, false) => "export",
        (false, true) => "import",
        (false, false) => "",
    };
    let one_model = if o.one_model {
        " (one model: not `archive/convert`)"
    } else {
        ""
    };
    format!(
        "| `--{} {}` | `{}=` | {} | {} | {} | {}{} |",
        o.flag,
        // A `|` inside a cell is escaped, also in code.
        o.value_name.replace('|', "\\|"),
        o.query,
        o.field.map_or(String::new(), |f| format!("`{f}`")),
        values,
        o.default.map_or(String::new(), |d| format!("`{d}`")),
        read_by,
        one_model
    )
}

/// The rows of the README table whose header line is `header`.
fn table_rows<'a>(readme: &'a str, header: &str) -> Vec<&'a str> {
    let start = readme
        .find(header)
        .unwrap_or_else(|| panic!("README.md has no table {header:?}"));
    readme[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect()
}

const FORMAT_HEADER: &str =
    "| format | extensions | media type | from MSH | to MSH | the game's look | side files | the service answers |";
const OPTION_HEADER: &str = "| flag | query | multipart field | values | default | read by |";

#[test]
fn the_format_table_is_formats() {
    let readme = readme();
    let expected: Vec<String> = FORMATS.iter().map(format_row).collect();
    assert_eq!(table_rows(&readme, FORMAT_HEADER), expected);
}

#[test]
fn the_option_table_is_options() {
    let readme = readme();
    let expected: Vec<String> = OPTIONS.iter().map(option_row).collect();
    assert_eq!(table_rows(&readme, OPTION_HEADER), expected);
}

#[test]
fn the_usage_lists_every_format() {
    use mshconv_app::Format;
    let readme = readme();
    let targets: Vec<&str> = Format::exports()
        .chain([Format::Msh])
        .map(Format::name)
        .collect();
    let to = format!("--to {}", targets.join("|"));
    assert!(
        readme.contains(&format!("mshconv batch    INPUT... {to} ")),
        "{to}"
    );
    let readable: Vec<&str> = Format::readable().map(Format::name).collect();
    assert!(readme.contains(&format!("`from={}`", readable.join("|"))));
}
