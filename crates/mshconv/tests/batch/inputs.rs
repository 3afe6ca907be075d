//! `mshconv batch` over folders and explicit inputs: the mirrored tree under
//! `--out`, globs, an `--out` inside the input folder, inputs that do not
//! convert, and GLB inputs converted back to MSH.

use super::*;

#[test]
fn a_folder_is_mirrored_under_out_and_globs_filter_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let models = [
        ("a.msh", "models/m095_walker.msh"),
        ("sub/b.msh", "models/m127_tank.msh"),
        ("sub/deep/C.MSH", "models/m143_robot.msh"),
        ("sub/b_old.msh", "models/m252_wreck.msh"),
    ];
    for (rel, fixture) in models {
        copy(&small(fixture), &input.join(rel));
    }
    std::fs::write(input.join("readme.txt"), "not a model").unwrap();
    // A .glb is already the --to format: a folder does not offer it.
    std::fs::write(input.join("sub/x.glb"), "not even a glb").unwrap();

    let r = run(dir.path(), &["batch", "in", "--to", "glb", "--out", "all"]).expect(0);
    let all = tree(&dir.path().join("all"));
    assert_eq!(
        names(&all),
        ["a.glb", "sub/b.glb", "sub/b_old.glb", "sub/deep/C.glb"]
    );
    assert_eq!(summary_counts(&r.stderr), (4, 0, 0), "{}", r.stderr);
    // Each output is what `convert` writes for that file.
    for (rel, fixture) in models {
        let out = format!("{}.glb", rel.rsplit_once('.').unwrap().0);
        let stem = Path::new(rel).file_stem().unwrap().to_str().unwrap();
        assert_eq!(
            all[&out],
            glb_of(&std::fs::read(small(fixture)).unwrap(), stem),
            "{out}"
        );
    }

    run(
        dir.path(),
        &[
            "batch",
            "in",
            "--to",
            "glb",
            "--out",
            "excluded",
            "--exclude",
            "*_old.msh",
            "--exclude",
            "sub/deep/**",
        ],
    )
    .expect(0);
    assert_eq!(
        names(&tree(&dir.path().join("excluded"))),
        ["a.glb", "sub/b.glb"]
    );

    run(
        dir.path(),
        &[
            "batch",
            "in",
            "--to",
            "glb",
            "--out",
            "included",
            "--include",
            "sub/*.msh",
        ],
    )
    .expect(0);
    assert_eq!(
        names(&tree(&dir.path().join("included"))),
        ["sub/b.glb", "sub/b_old.glb"]
    );

    // Globs compare letters in either case, like the game's file names.
    run(
        dir.path(),
        &[
            "batch",
            "in",
            "--to",
            "glb",
            "--out",
            "upper",
            "--include",
            "c.msh",
        ],
    )
    .expect(0);
    assert_eq!(names(&tree(&dir.path().join("upper"))), ["sub/deep/C.glb"]);
}

#[test]
fn out_inside_the_input_folder_is_not_converted_again() {
    let dir = tempfile::tempdir().unwrap();
    copy(
        &small("models/m127_tank.msh"),
        &dir.path().join("m/tank.msh"),
    );
    run(dir.path(), &["batch", "m", "--to", "obj", "--out", "m/out"]).expect(0);
    // A second run into the same folder must not pick up m/out/tank.obj.
    let r = run(
        dir.path(),
        &[
            "batch", "m", "--to", "msh", "--out", "m/out2", "--report", "r.json",
        ],
    )
    .expect(0);
    assert_eq!(summary_counts(&r.stderr), (1, 0, 0));
    let report = report(&dir.path().join("r.json"));
    assert_eq!(report["files"][0]["input"], "m/out/tank.obj");
    assert_eq!(
        names(&tree(&dir.path().join("m"))),
        [
            "out/tank.mtl",
            "out/tank.obj",
            "out2/out/tank.msh",
            "tank.msh"
        ]
    );
}

#[test]
fn explicit_inputs_that_do_not_convert_are_skipped_and_outputs_never_collide() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(&small("models/m127_tank.msh"), &d.join("in/tank.msh"));
    run(d, &["convert", "in/tank.msh", "in/tank.glb"]).expect(0);
    run(d, &["convert", "in/tank.msh", "in/tank.gltf"]).expect(0);
    std::fs::write(d.join("in/notes.txt"), "text").unwrap();
    let r = run(
        d,
        &[
            "batch",
            "in/tank.glb",
            "in",
            "in/tank.msh",
            "in/notes.txt",
            "in/tank.glb",
            "--to",
            "msh",
            "--out",
            "out",
            "--report",
            "r.json",
        ],
    )
    .expect(1);
    let report = report(&d.join("r.json"));
    let files: Vec<(&str, &str, &str)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["input"].as_str().unwrap(),
                f["status"].as_str().unwrap(),
                f["code"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    // in/tank.glb is named twice and found in the folder: converted once.
    // in/tank.gltf would write out/tank.msh too: the first by input wins.
    assert_eq!(
        files,
        [
            ("in/notes.txt", "skipped", "input.not_convertible"),
            ("in/tank.glb", "converted", "-"),
            ("in/tank.gltf", "failed", "output.conflict"),
            ("in/tank.msh", "skipped", "input.not_convertible"),
        ]
    );
    assert_eq!(
        std::fs::read(d.join("out/tank.msh")).unwrap(),
        std::fs::read(d.join("in/tank.msh")).unwrap()
    );
    assert!(r.stderr.contains("error[output.conflict]: in/tank.gltf: "));
}

#[test]
fn glb_inputs_convert_back_to_the_identical_msh() {
    let dir = tempfile::tempdir().unwrap();
    run(
        dir.path(),
        &[
            "batch",
            small("models").to_str().unwrap(),
            small("edge").to_str().unwrap(),
            "--to",
            "glb",
            "--out",
            "glb",
            "--quiet",
        ],
    )
    .expect(0);
    // With --to msh a folder offers its .glb/.gltf/.obj files, not .msh or .rlb.
    copy(
        &small("models/m127_tank.msh"),
        &dir.path().join("glb/tank.msh"),
    );
    copy(
        &small("archives/small.rlb"),
        &dir.path().join("glb/small.rlb"),
    );
    let r = run(
        dir.path(),
        &["batch", "glb", "--to", "msh", "--out", "back", "--quiet"],
    )
    .expect(0);
    let back = tree(&dir.path().join("back"));
    let mut originals = BTreeMap::new();
    for folder in ["models", "edge"] {
        for entry in std::fs::read_dir(small(folder)).unwrap() {
            let path = entry.unwrap().path();
            originals.insert(
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&path).unwrap(),
            );
        }
    }
    assert_eq!(
        names(&back),
        originals.keys().map(String::as_str).collect::<Vec<_>>()
    );
    let differ: Vec<&String> = originals
        .iter()
        .filter(|(name, bytes)| &back[*name] != *bytes)
        .map(|(name, _)| name)
        .collect();
    assert!(
        differ.is_empty(),
        "not identical after msh -> glb -> msh: {differ:?}"
    );
    assert_eq!(summary_counts(&r.stderr), (originals.len(), 0, 0));
}
