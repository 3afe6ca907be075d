//! README.md's `## HTTP service` section runs as written: every line of its
//! `sh` blocks that starts with `curl` is run verbatim by `sh -c` against a
//! live server, `http://localhost:8080` replaced by the server's address, in a
//! scratch folder where `fixtures/` is the repository's (so paths from the
//! repository root work and outputs land in the scratch folder), in order (a
//! later line may upload what an earlier one downloaded).
//!
//! A line ending in `# STATUS CODE` is an error example: its output must be a
//! problem document with that status and code. Every other line must use
//! curl's `-f` (fail on HTTP errors), so exit status 0 means a 2xx answer.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

/// The `curl` lines of the `sh` blocks of the `## HTTP service` section.
fn curl_lines(readme: &str) -> Vec<String> {
    let start = readme
        .find("\n## HTTP service\n")
        .expect("README.md has a `## HTTP service` section");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    let section = &rest[..end];
    let mut lines = Vec::new();
    let mut in_sh = false;
    for line in section.lines() {
        let trimmed = line.trim();
        if let Some(tag) = trimmed.strip_prefix("```") {
            in_sh = !in_sh && tag.trim() == "sh";
            continue;
        }
        if in_sh && trimmed.starts_with("curl ") {
            lines.push(trimmed.to_string());
        }
    }
    lines
}

/// `(status, code)` of an error example's trailing `# STATUS CODE` comment.
fn expected_error(line: &str) -> Option<(u16, String)> {
    let (_, comment) = line.rsplit_once(" # ")?;
    let mut words = comment.split_whitespace();
    let status = words.next()?.parse().ok()?;
    Some((status, words.next()?.to_string()))
}

fn uses_fail_flag(line: &str) -> bool {
    line.split_whitespace().any(|w| {
        w == "--fail"
            || (w.starts_with('-') && !w.starts_with("--") && w.contains('f') && !w.contains('F'))
    })
}

#[test]
fn the_section_is_found_and_has_examples_for_every_endpoint() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = curl_lines(&readme);
    assert!(lines.len() >= 10, "{lines:#?}");
    let mut missing = Vec::new();
    // The files the web page loads need no example of their own.
    for route in mshconv_server::routes()
        .into_iter()
        .filter(|r| !mshconv_server::page::is_asset(r.path))
    {
        let url = format!("http://localhost:8080{}", route.path);
        let found = lines.iter().any(|l| {
            l.split(['\'', ' '])
                .any(|w| w == url || w.starts_with(&format!("{url}?")))
        });
        if !found {
            missing.push(format!("{} {}", route.method, route.path));
        }
    }
    assert!(missing.is_empty(), "no curl example for {missing:?}");
    for line in &lines {
        assert!(
            expected_error(line).is_some() || uses_fail_flag(line),
            "a success example must use -f so its exit status means 2xx: {line}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_curl_example_runs() {
    let curl_here = Command::new("curl").arg("--version").output();
    assert!(
        curl_here.is_ok_and(|o| o.status.success()),
        "curl is needed (scripts/test.sh installs it)"
    );
    let server = TestServer::start(config()).await;
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo().join("fixtures"), scratch.path().join("fixtures")).unwrap();
    let base = server.base.clone();
    let dir = scratch.path().to_path_buf();
    let failures = tokio::task::spawn_blocking(move || run_all(&readme, &base, &dir))
        .await
        .unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // What the examples downloaded is what they say.
    let glb = std::fs::read(scratch.path().join("m095_walker.glb")).unwrap();
    assert_eq!(glb, library_glb(&fixture(WALKER), "m095_walker"));
    let msh = std::fs::read(scratch.path().join("m095_walker.msh")).unwrap();
    assert_eq!(msh, fixture(WALKER), "glb -> msh gives the fixture back");
    // archive/put: the walker replaced the dome, then came in again from its
    // .glb as a new entry that the game's lookup finds.
    let put = std::fs::read(scratch.path().join("small-2.rlb")).unwrap();
    let put = nres::Archive::parse(&put).unwrap();
    for name in ["M123_DOME.MSH", "m999_walker.msh"] {
        let entry = put.find_by_name(name).unwrap_or_else(|| panic!("{name}"));
        assert!(entry.data() == &fixture(WALKER)[..], "{name}");
    }
    server.stop().await;
}

fn run_all(readme: &str, base: &str, dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    for line in curl_lines(readme) {
        let command = line.replace("http://localhost:8080", base);
        // Loopback only: no proxy, no ~/.curlrc (the command itself is as written).
        let out = Command::new("sh")
            .arg("-c")
            .arg(&command)
            .current_dir(dir)
            .env("HOME", dir)
            .env("CURL_HOME", dir)
            .env("NO_PROXY", "*")
            .env("no_proxy", "*")
            .env_remove("http_proxy")
            .env_remove("HTTP_PROXY")
            .env_remove("all_proxy")
            .env_remove("ALL_PROXY")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let report = || {
            format!(
                "{line}\n  exit {:?}\n  stdout {stdout}\n  stderr {stderr}",
                out.status.code()
            )
        };
        if !out.status.success() {
            failures.push(report());
            continue;
        }
        if let Some((status, code)) = expected_error(&line) {
            match serde_json::from_slice::<serde_json::Value>(&out.stdout) {
                Ok(p) if p["status"] == status && p["code"] == code.as_str() => {}
                _ => failures.push(format!("expected {status} {code}: {}", report())),
            }
        }
    }
    failures
}

#[test]
fn the_extraction_rules() {
    let text = "intro\n```sh\ncurl -sSf a\n```\n\n## HTTP service\n\n```sh\ncargo run\ncurl -sSf http://localhost:8080/healthz\n```\n```json\ncurl no\n```\n```sh\ncurl -sS x  # 415 input.unknown_format\n```\n## Next\n```sh\ncurl -sSf b\n```\n";
    assert_eq!(
        curl_lines(text),
        [
            "curl -sSf http://localhost:8080/healthz",
            "curl -sS x  # 415 input.unknown_format"
        ]
    );
    assert_eq!(
        expected_error("curl -sS x  # 415 input.unknown_format"),
        Some((415, "input.unknown_format".to_string()))
    );
    assert_eq!(expected_error("curl -sSf x"), None);
    assert!(uses_fail_flag("curl -sSf -F file=@x u"));
    assert!(uses_fail_flag("curl --fail u"));
    assert!(!uses_fail_flag("curl -sS -F file=@x u"));
}

/// The endpoint table's `to=` lists are the formats' table: every output of
/// `/v1/convert` (MSH's exports and MSH), every export for `/v1/archive/convert`.
#[test]
fn the_endpoint_table_lists_every_format() {
    use mshconv_app::Format;
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let names = |formats: Vec<Format>| {
        formats
            .into_iter()
            .map(Format::name)
            .collect::<Vec<_>>()
            .join("\\|")
    };
    let targets: Vec<Format> = Format::exports().chain([Format::Msh]).collect();
    let convert = format!("| `POST /v1/convert?to={}` |", names(targets));
    assert!(readme.contains(&convert), "{convert}");
    let archive = format!(
        "| `POST /v1/archive/convert?to={}` |",
        names(Format::exports().collect())
    );
    assert!(readme.contains(&archive), "{archive}");
}
