//! `mshconv convert`: the real binary in a temp folder.

use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mshconv"))
}

fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/small")
        .join(rel)
}

#[test]
fn msh_to_glb_and_gltf_match_the_library_and_are_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("models/m127_tank.msh");
    let bytes = std::fs::read(&input).unwrap();
    for (ext, format) in [
        ("glb", mshconv_gltf::GltfFormat::Glb),
        ("gltf", mshconv_gltf::GltfFormat::Gltf),
    ] {
        let out = dir.path().join(format!("tank.{ext}"));
        let status = bin().arg("convert").arg(&input).arg(&out).status().unwrap();
        assert!(status.success());
        let options = mshconv_gltf::ExportOptions {
            format,
            name: "m127_tank".into(),
            ..Default::default()
        };
        let (expected, _) = mshconv_gltf::msh_to_gltf(&bytes, &options).unwrap();
        assert_eq!(
            std::fs::read(&out).unwrap(),
            expected,
            "{ext} equals the library's output"
        );
    }
    // Nothing but the two outputs: no temporary files left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn options_reach_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.gltf");
    let status = bin()
        .args([
            "convert",
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
        ])
        .arg(fixture("models/m127_tank.msh"))
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let o = &json["scenes"][0]["extras"]["msh"]["options"];
    assert_eq!(o["lod"], 1);
    assert_eq!(o["fps"], 30.0);
    assert_eq!(o["axis"], "z-up");
    assert_eq!(o["rotation"], "stored");
}

#[test]
fn stdin_to_stdout_and_notes_on_stderr() {
    let input = std::fs::read(fixture("edge/anim_map_values_noncanonical.msh")).unwrap();
    let mut child = bin()
        .args(["convert", "-", "-", "--from", "msh", "--to", "glb"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(&out.stdout[..4], b"glTF");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("note[export.animation_baked]"), "{err}");
}

#[test]
fn errors_have_codes_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("convert")
        .arg(fixture("damaged/anim4__anim_fallback_ffff.msh"))
        .arg(dir.path().join("x.glb"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[anim.fallback_range]"));
    assert!(
        !dir.path().join("x.glb").exists(),
        "no output for a failed conversion"
    );

    let out = bin()
        .arg("convert")
        .arg(fixture("models/m127_tank.msh"))
        .arg(dir.path().join("x.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[convert.unknown_format]"));

    let out = bin()
        .args(["convert", "--fps", "0"])
        .arg(fixture("models/m127_tank.msh"))
        .arg(dir.path().join("x.glb"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[option.invalid]"));
}

#[test]
fn glb_and_gltf_convert_back_to_the_identical_msh() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("models/m095_walker.msh");
    for ext in ["glb", "gltf"] {
        let mid = dir.path().join(format!("walker.{ext}"));
        let back = dir.path().join(format!("walker_{ext}.msh"));
        assert!(bin()
            .arg("convert")
            .arg(&input)
            .arg(&mid)
            .status()
            .unwrap()
            .success());
        let out = bin().arg("convert").arg(&mid).arg(&back).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(&input).unwrap(),
            "{ext}"
        );
    }
}

#[test]
fn a_gltf_with_a_side_car_buffer_reads_it_from_its_own_folder_only() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("models/m127_tank.msh");
    let gltf_path = dir.path().join("tank.gltf");
    assert!(bin()
        .arg("convert")
        .arg(&input)
        .arg(&gltf_path)
        .status()
        .unwrap()
        .success());
    // Move the embedded buffer to a side-car file.
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&gltf_path).unwrap()).unwrap();
    let uri = doc["buffers"][0]["uri"].as_str().unwrap().to_string();
    let data = uri.split_once(";base64,").unwrap().1;
    use base64::Engine as _;
    let bin_bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    std::fs::write(dir.path().join("tank.bin"), &bin_bytes).unwrap();
    doc["buffers"][0]["uri"] = "tank.bin".into();
    std::fs::write(&gltf_path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let back = dir.path().join("back.msh");
    let out = bin()
        .arg("convert")
        .arg(&gltf_path)
        .arg(&back)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(&input).unwrap()
    );
    // A path that leaves the folder is refused, even when the file exists.
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    doc["buffers"][0]["uri"] = "../tank.bin".into();
    std::fs::write(
        dir.path().join("sub/evil.gltf"),
        serde_json::to_vec(&doc).unwrap(),
    )
    .unwrap();
    let out = bin()
        .arg("convert")
        .arg(dir.path().join("sub/evil.gltf"))
        .arg(dir.path().join("x.msh"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[gltf.uri_refused]"));
}

#[test]
fn msh_to_obj_writes_an_mtl_beside_it_and_converts_back() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("tank.obj");
    assert!(bin()
        .arg("convert")
        .arg(fixture("models/m127_tank.msh"))
        .arg(&obj)
        .status()
        .unwrap()
        .success());
    let text = std::fs::read_to_string(&obj).unwrap();
    assert!(
        text.contains("mtllib tank.mtl"),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(std::fs::read_to_string(dir.path().join("tank.mtl"))
        .unwrap()
        .contains("newmtl mat"));
    let back = dir.path().join("back.msh");
    let out = bin().arg("convert").arg(&obj).arg(&back).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    msh::open(&std::fs::read(&back).unwrap(), msh::Mode::Strict).expect("a valid model");
    // A malformed OBJ: exit 1 with the line number.
    std::fs::write(dir.path().join("bad.obj"), "v 0 0 0\nf 1 2 3\n").unwrap();
    let out = bin()
        .arg("convert")
        .arg(dir.path().join("bad.obj"))
        .arg(dir.path().join("x.msh"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 2"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn formats_are_told_from_the_bytes_when_the_name_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("tank.glb");
    assert!(bin()
        .arg("convert")
        .arg(fixture("models/m127_tank.msh"))
        .arg(&glb)
        .status()
        .unwrap()
        .success());
    // A .glb renamed .msh converts back, with a note; so does one named .bin.
    for name in ["renamed.msh", "renamed.bin"] {
        let renamed = dir.path().join(name);
        std::fs::copy(&glb, &renamed).unwrap();
        let back = dir.path().join(format!("{name}.back.msh"));
        let out = bin()
            .arg("convert")
            .arg(&renamed)
            .arg(&back)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(fixture("models/m127_tank.msh")).unwrap()
        );
        assert_eq!(
            stderr.contains("note[input.format_sniffed]"),
            name.ends_with(".msh"),
            "{name}: {stderr}"
        );
    }
    // Bytes that are no format, under a name that is none either.
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, b"\x00\x01\x02").unwrap();
    let out = bin()
        .arg("convert")
        .arg(&junk)
        .arg(dir.path().join("x.glb"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[input.unknown_format]"));
}

#[test]
fn an_archive_without_an_entry_names_its_models() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("convert")
        .arg(fixture("archives/small.rlb"))
        .arg(dir.path().join("x.glb"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("error[request.entry_required]"), "{stderr}");
    assert!(stderr.contains("is an archive of"), "{stderr}");
    assert!(stderr.contains(":ENTRY"), "{stderr}");
    assert!(!dir.path().join("x.glb").exists());
}

#[test]
fn an_entry_named_with_entry_needs_no_from() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("convert")
        .arg(fixture("archives/small.rlb"))
        .args(["--entry", "m123_dome.msh"])
        .arg(dir.path().join("dome.glb"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let glb = std::fs::read(dir.path().join("dome.glb")).unwrap();
    assert!(glb.starts_with(b"glTF"));
}

#[test]
fn a_foreign_gltf_with_a_hidden_node_and_an_unused_odd_sampler_converts_with_notes() {
    // Issue 42: a node hidden by KHR_node_visibility is not drawn, and a
    // sampler nothing uses with a filter outside the list no longer refuses
    // the file; each says so on stderr.
    use base64::Engine as _;
    let quad: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_node_visibility"],
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "shown", "mesh": 0},
            {"name": "ghost", "mesh": 0, "translation": [2, 0, 0],
             "extensions": {"KHR_node_visibility": {"visible": false}}}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": 6}]}],
        "samplers": [{"magFilter": 1234}],
        "buffers": [{"byteLength": 48, "uri": format!("data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&quad))}],
        "bufferViews": [{"buffer": 0, "byteLength": 48}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
            "min": [0, 0, 0], "max": [1, 1, 0]}]
    });
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("foreign.gltf");
    std::fs::write(&input, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = dir.path().join("foreign.msh");
    let o = bin().arg("convert").arg(&input).arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("note[import.node_hidden]: 1 node hidden by KHR_node_visibility"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note[import.unused_ignored]: 1 object nothing uses holds")
            && stderr.contains("/samplers/0/magFilter"),
        "{stderr}"
    );
    // Two triangles drawn (the shown fan), not four.
    let msh = std::fs::read(&out).unwrap();
    let view = msh::open(&msh, msh::Mode::Strict).unwrap().view;
    assert_eq!(view.indices.len(), 6, "only the shown node's triangles");
}
