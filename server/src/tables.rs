//! What the service says of formats and options elsewhere than in its code,
//! checked against the application layer's tables ([`mshconv_app::FORMATS`],
//! [`mshconv_app::OPTIONS`]): `openapi.json`'s parameters and enums and the
//! web page's lists. A row added to a table fails these tests until the
//! document and the page list it.

#[cfg(test)]
mod tests {
    use crate::extract::{archive_options, convert_options, import_options, keys, FromQuery};
    use crate::handlers::archive_put::ArchivePutRequest;
    use crate::handlers::convert::{ArchiveConvertRequest, ConvertRequest};
    use mshconv_app::{Format, OptionValues, FORMATS, OPTIONS};
    use serde_json::Value;
    use std::collections::BTreeSet;

    fn openapi() -> Value {
        serde_json::from_str(crate::routes::OPENAPI).unwrap()
    }

    /// The enum of a component parameter, as a set.
    fn enum_of(doc: &Value, parameter: &str) -> BTreeSet<String> {
        doc["components"]["parameters"][parameter]["schema"]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{parameter} has no enum"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    }

    fn names(formats: impl Iterator<Item = Format>) -> BTreeSet<String> {
        formats.map(|f| f.name().to_string()).collect()
    }

    /// The query names of an operation's parameters.
    fn parameters(doc: &Value, path: &str) -> BTreeSet<String> {
        doc["paths"][path]["post"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let name = p["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
                doc["components"]["parameters"][name]["name"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    fn set(keys: Vec<&str>) -> BTreeSet<String> {
        keys.into_iter().map(str::to_string).collect()
    }

    #[test]
    fn openapi_formats_are_the_table() {
        let doc = openapi();
        let targets = Format::ALL
            .into_iter()
            .filter(|&to| Format::ALL.iter().any(|from| from.converts_to(to)));
        assert_eq!(enum_of(&doc, "to"), names(targets));
        assert_eq!(enum_of(&doc, "archiveTo"), names(Format::exports()));
        assert_eq!(enum_of(&doc, "from"), names(Format::readable()));
        let parts: BTreeSet<String> = FORMATS
            .iter()
            .flat_map(|row| row.parts.iter().map(|p| p.to_string()))
            .collect();
        assert_eq!(enum_of(&doc, "part"), parts);
        let e = crate::handlers::convert::bad_part("x");
        assert_eq!(
            e.detail,
            "part=\"x\": part is obj or mtl, and only with to=obj"
        );
    }

    #[test]
    fn openapi_parameters_and_option_schemas_are_the_table() {
        let doc = openapi();
        assert_eq!(
            parameters(&doc, "/v1/convert"),
            set(keys::<ConvertRequest>())
        );
        assert_eq!(
            parameters(&doc, "/v1/archive/convert"),
            set(keys::<ArchiveConvertRequest>())
        );
        assert_eq!(
            parameters(&doc, "/v1/archive/put"),
            set(keys::<ArchivePutRequest>())
        );
        // The predicates say what the endpoints' own lists say.
        assert!(OPTIONS.iter().all(convert_options));
        for option in &OPTIONS {
            assert_eq!(
                ArchiveConvertRequest::takes(option),
                archive_options(option)
            );
            assert_eq!(ArchivePutRequest::takes(option), import_options(option));
            let schema = &doc["components"]["parameters"][option.query]["schema"];
            assert_eq!(
                doc["components"]["parameters"][option.query]["name"],
                option.query
            );
            match option.values {
                OptionValues::Integer { max } => {
                    assert_eq!(schema["type"], "integer", "{}", option.query);
                    assert_eq!(schema["minimum"], 0);
                    assert_eq!(schema["maximum"], max);
                }
                OptionValues::Number { max } => {
                    assert_eq!(schema["type"], "number", "{}", option.query);
                    assert_eq!(schema["minimum"], 0);
                    assert_eq!(schema["exclusiveMinimum"], true);
                    assert_eq!(schema["maximum"].as_f64(), Some(f64::from(max)));
                }
                OptionValues::OneOf(words) => {
                    assert_eq!(enum_of(&doc, option.query), set(words.to_vec()));
                }
                OptionValues::Text => assert_eq!(schema["type"], "string", "{}", option.query),
            }
            match (option.default, schema.get("default")) {
                (Some(d), Some(Value::String(s))) => assert_eq!(d, s, "{}", option.query),
                (Some(d), Some(Value::Number(n))) => assert_eq!(d, n.to_string()),
                (_, None) => {}
                (d, s) => panic!("{}: default {d:?} vs {s:?}", option.query),
            }
        }
    }

    /// The values of the page's `attribute="..."` occurrences inside `within`
    /// (the text after `start`, up to `end`).
    fn values(page: &str, start: &str, end: &str, attribute: &str) -> BTreeSet<String> {
        let from = page.find(start).unwrap_or_else(|| panic!("{start}"));
        let rest = &page[from..];
        let rest = &rest[..rest.find(end).unwrap_or(rest.len())];
        let marker = format!("{attribute}=\"");
        rest.match_indices(&marker)
            .map(|(i, _)| {
                let v = &rest[i + marker.len()..];
                v[..v.find('"').unwrap()].to_string()
            })
            .filter(|v| !v.is_empty())
            .collect()
    }

    /// The keys written `key:` at the start of a line of the object literal
    /// that opens with `start` (ending in `{`) in the function `function`
    /// of `js`, up to its first `}`.
    fn object_keys(js: &str, function: &str, start: &str) -> Vec<String> {
        let from = js.find(function).unwrap_or_else(|| panic!("{function}"));
        let rest = &js[from..];
        let body = &rest[rest.find(start).unwrap_or_else(|| panic!("{start}")) + start.len()..];
        let body = &body[..body.find('}').unwrap()];
        body.lines()
            .filter_map(|line| line.trim().split_once(':'))
            .map(|(key, _)| key.to_string())
            .filter(|key| key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .collect()
    }

    #[test]
    fn the_web_pages_option_parameters_are_the_table() {
        let options = crate::page::FILES
            .iter()
            .find(|f| f.path == "/app/options.js");
        let js = std::str::from_utf8(options.unwrap().bytes).unwrap();
        let query = |keep: fn(&&mshconv_app::OptionSpec) -> bool| -> Vec<String> {
            OPTIONS
                .iter()
                .filter(keep)
                .map(|o| o.query.to_string())
                .collect()
        };
        // The import's form: every option an import reads, each from its
        // `import-NAME` field, in the table's order.
        let import = object_keys(js, "function importParams()", "return {");
        assert_eq!(import, query(|o| o.import));
        for key in &import {
            assert!(js.contains(&format!("{key}: $('import-{key}')")), "{key}");
        }
        // The downloads: every option an export reads (after `to` and `entry`).
        let export = object_keys(js, "function download(", "const params = {");
        assert_eq!(export, query(|o| o.export));
    }

    #[test]
    fn the_web_page_lists_the_tables() {
        let html = std::str::from_utf8(crate::page::FILES[0].bytes).unwrap();
        let options = crate::page::FILES
            .iter()
            .find(|f| f.path == "/app/options.js");
        let js = std::str::from_utf8(options.unwrap().bytes).unwrap();
        let exports = names(Format::exports());
        assert_eq!(
            values(html, "data-download", "</div>", "data-download"),
            exports
        );
        assert_eq!(
            values(html, "<select id=\"archive-to\"", "</select>", "value"),
            exports
        );
        for option in &OPTIONS {
            if let OptionValues::OneOf(words) = option.values {
                // The export's picker, and the import's (`import-NAME`).
                let export = option.export.then(|| option.query.to_string());
                let import = option.import.then(|| format!("import-{}", option.query));
                for id in export.into_iter().chain(import) {
                    let select = format!("<select id=\"{id}\"");
                    assert_eq!(
                        values(html, &select, "</select>", "value"),
                        set(words.to_vec()),
                        "{id}"
                    );
                }
            }
            if let OptionValues::Number { max } = option.values {
                let input = format!("<input id=\"{}\"", option.query);
                let tag = &html[html.find(&input).unwrap()..];
                assert!(tag.contains(&format!("max=\"{max}\"")), "{}", option.query);
            }
        }
        // The exports that take the game's look, as the page's
        // app/options.js lists them.
        let look: Vec<String> = FORMATS
            .iter()
            .filter(|r| r.takes_look)
            .map(|r| format!("'{}'", r.name))
            .collect();
        assert!(
            js.contains(&format!("[{}].includes(to)", look.join(", "))),
            "app/options.js's look list"
        );
        // The file pickers take every readable format's extensions.
        let accept = values(html, "<input id=\"file\"", ">", "accept");
        let accept = accept.iter().next().unwrap();
        for f in Format::readable() {
            for ext in f.spec().extensions {
                assert!(accept.split(',').any(|a| a == format!(".{ext}")), "{ext}");
            }
        }
    }
}
