//! How `mshconv batch` runs: `--jobs` giving identical outputs, usage and I/O
//! errors before any work, the progress bar, and SIGINT.

use super::*;

#[test]
fn jobs_1_and_jobs_2_give_identical_outputs_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let mut reports = Vec::new();
    let mut trees = Vec::new();
    for jobs in ["1", "2"] {
        let out = format!("out{jobs}");
        let report_name = format!("r{jobs}.json");
        run(
            dir.path(),
            &[
                "batch",
                small("").to_str().unwrap(),
                "--to",
                "gltf",
                "--out",
                &out,
                "--jobs",
                jobs,
                "--report",
                &report_name,
                "--quiet",
            ],
        )
        .expect(1);
        trees.push(tree(&dir.path().join(&out)));
        let mut report = report(&dir.path().join(&report_name));
        // Timings and the output folder's name are all that may differ.
        report["summary"]["seconds"] = Value::Null;
        for file in report["files"].as_array_mut().unwrap() {
            file["ms"] = Value::Null;
            if let Some(output) = file["output"].as_str() {
                file["output"] = Value::from(output.replacen(&out, "OUT", 1));
            }
        }
        reports.push(report);
    }
    assert!(trees[0].len() > 50, "{} outputs", trees[0].len());
    assert_eq!(names(&trees[0]), names(&trees[1]));
    for (name, bytes) in &trees[0] {
        assert!(
            &trees[1][name] == bytes,
            "{name} differs between --jobs 1 and 2"
        );
    }
    assert_eq!(reports[0], reports[1]);
}

#[test]
fn usage_and_io_errors_about_the_command_are_exit_2_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy(&small("models/m127_tank.msh"), &d.join("tank.msh"));
    std::fs::write(d.join("file"), "a file, not a folder").unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["batch", "tank.msh", "--to", "glb", "--out", "file/out"],
            "error[io.",
        ),
        (
            &["batch", "missing", "--to", "glb", "--out", "out"],
            "error[io.not_found]",
        ),
        (
            &[
                "batch",
                "tank.msh",
                "--to",
                "glb",
                "--out",
                "out",
                "--include",
                "[a",
            ],
            "error[option.invalid]",
        ),
        (
            &[
                "batch", "tank.msh", "--to", "glb", "--out", "out", "--fps", "0",
            ],
            "error[option.invalid]",
        ),
        (
            &[
                "batch",
                "tank.msh",
                "--to",
                "glb",
                "--out",
                "out",
                "--report",
                "no/such/r.json",
            ],
            "error[io.not_found]",
        ),
        (
            &[
                "batch", "tank.msh", "--to", "glb", "--out", "out", "--jobs", "0",
            ],
            "--jobs",
        ),
    ];
    for (args, expected) in cases {
        let r = run(d, args).expect(2);
        assert!(r.stderr.contains(expected), "{args:?}: {}", r.stderr);
        assert!(!d.join("out").exists(), "{args:?} did work");
    }
    // No --to, no --out: clap's usage error.
    run(d, &["batch", "tank.msh", "--out", "out"]).expect(2);
    run(d, &["batch", "tank.msh", "--to", "glb"]).expect(2);
}

#[test]
fn the_progress_bar_is_drawn_only_on_a_terminal_and_not_with_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let models = small("models");
    // Not a terminal: stderr holds the notes and the summary, nothing drawn.
    let r = run(
        dir.path(),
        &[
            "batch",
            models.to_str().unwrap(),
            "--to",
            "glb",
            "--out",
            "a",
        ],
    )
    .expect(0);
    assert!(
        !r.stderr.contains('\r') && !r.stderr.contains('\u{1b}'),
        "{}",
        r.stderr
    );
    assert!(r
        .stderr
        .lines()
        .all(|l| l.starts_with("note[") || l.starts_with("batch: ")));

    // A terminal (util-linux `script` gives the command a pseudo-terminal).
    let in_terminal = |args: &str| -> String {
        let output = Command::new("script")
            .args(["-qec", &format!("{BIN} {args}"), "/dev/null"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("`script` (util-linux) runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let models = models.display();
    let shown = in_terminal(&format!("batch {models} --to glb --out b"));
    assert!(
        shown.contains("/25 eta"),
        "no progress bar on a terminal: {shown:?}"
    );
    assert!(shown.contains("batch: 25 converted"), "{shown:?}");
    let quiet = in_terminal(&format!("batch {models} --to glb --out c --quiet"));
    assert!(!quiet.contains("/25 eta"), "--quiet still draws: {quiet:?}");
    assert!(
        !quiet.contains("note["),
        "--quiet still prints notes: {quiet:?}"
    );
    assert!(quiet.contains("batch: 25 converted"), "{quiet:?}");
}

/// SIGINT in the middle of a batch: the workers finish the files they have and
/// start no other, the summary and report cover what was done, the exit code
/// is 130, and OUT holds only complete outputs and no temporary file.
#[test]
fn sigint_leaves_only_complete_outputs_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    // 40 copies of the 25 committed models: far more work than the time it
    // takes to see the first output and send the signal.
    let models: Vec<PathBuf> = std::fs::read_dir(small("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for copy_index in 0..40 {
        for model in &models {
            copy(
                model,
                &input
                    .join(format!("copy{copy_index:02}"))
                    .join(model.file_name().unwrap()),
            );
        }
    }
    let total = 40 * models.len();
    let out = dir.path().join("out");
    let mut child = Command::new(BIN)
        .args(["batch", "in", "--to", "glb", "--out", "out", "--jobs", "2"])
        .args(["--report", "report.json", "--quiet"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the batch writes (so its handler is installed), then interrupt.
    let started_writing = || {
        std::fs::read_dir(&out).ok().is_some_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().is_dir() && std::fs::read_dir(e.path()).unwrap().next().is_some())
        })
    };
    while !started_writing() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the batch ended before writing anything"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("batch (interrupted): "), "{stderr}");

    let written = tree(&out);
    let mut problems = Vec::new();
    for (name, bytes) in &written {
        let file_name = name.rsplit('/').next().unwrap();
        if file_name.starts_with('.') || name.ends_with(".tmp") {
            problems.push(format!("{name}: a temporary file was left"));
        } else if let Err(e) = check_glb(bytes) {
            problems.push(format!("{name}: {e}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let report = report(&dir.path().join("report.json"));
    let summary = &report["summary"];
    assert_eq!(summary["interrupted"], true);
    assert_eq!(summary["failed"], 0);
    let converted = summary["converted"].as_u64().unwrap() as usize;
    let skipped = summary["skipped"].as_u64().unwrap() as usize;
    assert_eq!(converted + skipped, total, "every input is in the report");
    assert_eq!(
        written.len(),
        converted,
        "every converted file is in OUT, and only those"
    );
    assert!(skipped > 0, "the batch stopped early");
    for file in report["files"].as_array().unwrap() {
        match file["status"].as_str().unwrap() {
            "converted" => {
                let output = file["output"].as_str().unwrap();
                let rel = output.strip_prefix("out/").unwrap();
                assert_eq!(
                    written[rel].len() as u64,
                    file["bytes_out"].as_u64().unwrap()
                );
            }
            status => {
                assert_eq!(status, "skipped");
                assert_eq!(file["code"], "run.interrupted");
                assert!(file["output"].is_null());
            }
        }
    }
}
