//! The service and the CLI give the same bytes: a `.glb` (and a `.gltf`) from
//! `POST /v1/convert` equals what `mshconv convert` writes for the same input
//! and options. The model's name follows the same rule (the upload's file
//! stem, as the CLI takes the input's).
//!
//! Both call `mshconv_convert::msh_to_gltf`; the test compares the service with the
//! library always, and with the real CLI binary when it has been built beside
//! this test (`cargo test --workspace`, as `scripts/test.sh` runs, builds it).

mod common;

use common::*;
use std::path::PathBuf;

/// `target/<profile>/mshconv`, beside this test's `deps/` folder, if built.
fn cli_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let profile_dir = exe.parent()?.parent()?;
    let cli = profile_dir.join(format!("mshconv{}", std::env::consts::EXE_SUFFIX));
    cli.is_file().then_some(cli)
}

struct Case {
    /// The CLI's input argument (from the repository root).
    input: &'static str,
    /// The upload: its bytes' fixture, file name, and query.
    upload: &'static str,
    file_name: &'static str,
    query: &'static str,
    /// The CLI's output file name and flags.
    output: &'static str,
    flags: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        input: WALKER,
        upload: WALKER,
        file_name: "m095_walker.msh",
        query: "to=glb",
        output: "out.glb",
        flags: &[],
    },
    Case {
        input: WALKER,
        upload: WALKER,
        file_name: "m095_walker.msh",
        query: "to=glb&lod=1&group=0&fps=30&axis=z-up&rotation=stored",
        output: "out.glb",
        flags: &[
            "--lod",
            "1",
            "--group",
            "0",
            "--fps",
            "30",
            "--axis",
            "z-up",
            "--rotation",
            "stored",
        ],
    },
    Case {
        input: "fixtures/small/models/m127_tank.msh",
        upload: "fixtures/small/models/m127_tank.msh",
        file_name: "m127_tank.msh",
        query: "to=gltf",
        output: "out.gltf",
        flags: &[],
    },
    Case {
        input: "fixtures/small/archives/small.rlb:M123_DOME.MSH",
        upload: ARCHIVE,
        file_name: "small.rlb",
        query: "to=glb&entry=M123_DOME.MSH",
        output: "out.glb",
        flags: &[],
    },
];

fn library(case: &Case) -> Vec<u8> {
    let bytes = fixture(case.upload);
    let (bytes, name) = match case.input.rsplit_once(':') {
        Some((_, entry)) => {
            let archive = nres::Archive::parse(&bytes).unwrap();
            let data = archive.find_by_name(entry).unwrap().data().to_vec();
            (data, entry.rsplit_once('.').unwrap().0.to_string())
        }
        None => (
            bytes,
            case.file_name.rsplit_once('.').unwrap().0.to_string(),
        ),
    };
    let q = |key: &str| {
        case.query
            .split('&')
            .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
    };
    let options = mshconv_convert::ExportOptions {
        lod: q("lod").map_or(0, |v| v.parse().unwrap()),
        group: q("group").map_or(0, |v| v.parse().unwrap()),
        fps: q("fps").map_or(24.0, |v| v.parse().unwrap()),
        axis: q("axis").map_or(Default::default(), |v| v.parse().unwrap()),
        rotation: q("rotation").map_or(Default::default(), |v| {
            mshconv_convert::parse_rotation(v).unwrap()
        }),
        format: if q("to") == Some("gltf") {
            mshconv_convert::GltfFormat::Gltf
        } else {
            mshconv_convert::GltfFormat::Glb
        },
        name,
    };
    mshconv_convert::msh_to_gltf(&bytes, &options).unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_writes_what_the_cli_writes() {
    let server = TestServer::start(config()).await;
    let cli = cli_binary();
    if cli.is_none() {
        eprintln!("note: the mshconv binary is not built beside this test; comparing with the library only (cargo test --workspace builds it)");
    }
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in CASES {
        let r = client()
            .post(server.url(&format!("/v1/convert?{}", case.query)))
            .multipart(form(fixture(case.upload), case.file_name))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{}", case.query);
        let served = r.bytes().await.unwrap().to_vec();
        if served != library(case) {
            failures.push(format!("{} {}: service != library", case.input, case.query));
        }
        if let Some(cli) = &cli {
            let out = scratch.path().join(case.output);
            let status = std::process::Command::new(cli)
                .arg("convert")
                .arg(case.input)
                .arg(&out)
                .args(case.flags)
                .arg("--quiet")
                .current_dir(repo())
                .status()
                .unwrap();
            assert!(status.success(), "mshconv convert {} failed", case.input);
            let written = std::fs::read(&out).unwrap();
            if written != served {
                failures.push(format!(
                    "{} {}: service != `mshconv convert` (if the CLI binary is stale, rebuild it)",
                    case.input, case.query
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    server.stop().await;
}
