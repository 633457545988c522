//! `ctk run` as a user meets it: no green without evidence, a host that
//! dies at start, output that breaks, a run that is killed, and the
//! terminal lines.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{ctk, text};
use serde_json::Value;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// The reference host's declaration with `edit` applied, written to a file.
fn declaration(dir: &Path, edit: impl FnOnce(&mut Value)) -> String {
    let text =
        std::fs::read_to_string(repo("agent-hooks/reference-host/host.json")).expect("host.json");
    let mut doc: Value = serde_json::from_str(&text).expect("json");
    edit(&mut doc);
    let path = dir.join("host.json");
    std::fs::write(&path, doc.to_string()).expect("write");
    path.display().to_string()
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json written");
    serde_json::from_str(&text).expect("report.json is JSON")
}

#[test]
fn a_run_in_which_no_vector_applies_is_not_green() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // A declaration that omits interception_points offers the floor points
    // only, and one that offers parallel/strictest alone skips the floor
    // vector of the part (CTK-1455, sequential/first_deny): every vector is
    // skipped.
    let decl = declaration(tmp.path(), |doc| {
        doc["surface"]
            .as_object_mut()
            .expect("surface")
            .remove("interception_points");
        doc["surface"]["profiles"] = serde_json::json!({"parallel/strictest": {}});
        doc["configuration"]["composition"] = serde_json::json!({"profile": "parallel/strictest"});
    });
    let base = ["run", "--part", "verdict/warnings", "--declaration", &decl];
    let out = ctk(&base);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("no vector ran"),
        "{}",
        text(&out.stderr)
    );
    let stdout = text(&out.stdout);
    assert!(stdout.contains("skipped 10, by reason:"), "{stdout}");
    assert!(
        stdout.contains("the surface omits interception points"),
        "{stdout}"
    );
    let warn = ctk(&[&base[..], &["--no-tests", "warn"]].concat());
    assert_eq!(warn.status.code(), Some(0), "{}", text(&warn.stderr));
    assert!(text(&warn.stderr).contains("warning: no vector ran"));
    let pass = ctk(&[&base[..], &["--no-tests", "pass"]].concat());
    assert_eq!(pass.status.code(), Some(0), "{}", text(&pass.stderr));
    assert!(!text(&pass.stderr).contains("no vector ran"));
}

#[test]
fn filters_that_match_nothing_are_not_green() {
    let out = ctk(&["run", "--id", "CTK-NO-SUCH-VECTOR"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("matches the --part/--id filters"));
    let out = ctk(&["run", "--part", "no/such/part", "--no-tests", "pass"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_host_that_dies_at_start_still_leaves_every_report() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("out");
    let dir_s = dir.display().to_string();
    let out = ctk(&[
        "run",
        "--part",
        "verdict/warnings",
        "--declaration",
        &repo("agent-hooks/reference-host/host.json")
            .display()
            .to_string(),
        "--report-dir",
        &dir_s,
        "--",
        "python3",
        "-c",
        "import sys; sys.stderr.write('hots.py: No such file or directory\\n'); sys.exit(2)",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // Python's own message, not only the exit status.
    assert!(
        text(&out.stderr).contains("hots.py: No such file or directory"),
        "{}",
        text(&out.stderr)
    );
    for name in ["report.json", "report.md", "junit.xml", "events.jsonl"] {
        assert!(dir.join(name).is_file(), "{name} missing");
    }
    let r = report(&dir);
    let vectors = r["vectors"].as_array().expect("vectors");
    assert_eq!(vectors.len(), 10);
    assert!(vectors.iter().all(|v| v["status"] == "error"), "{r}");
    assert!(
        vectors.iter().all(|v| v["reason"]
            .as_str()
            .is_some_and(|r| r.contains("hots.py: No such file or directory"))),
        "{r}"
    );
    let junit = std::fs::read_to_string(dir.join("junit.xml")).expect("junit");
    assert!(junit.contains("<error"), "{junit}");
    let claim = ctk(&["claim", &dir.join("report.json").display().to_string()]);
    assert_eq!(claim.status.code(), Some(1), "{}", text(&claim.stderr));
    let validate = ctk(&[
        "validate",
        "report",
        &dir.join("report.json").display().to_string(),
    ]);
    assert_eq!(
        validate.status.code(),
        Some(0),
        "{}",
        text(&validate.stderr)
    );
}

#[test]
fn a_closed_stdout_never_costs_the_reports() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args(["run", "--part", "verdict/gate", "--report-dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctk starts");
    // `| head -1`: read one line, then close the pipe.
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a first line");
    assert!(first.starts_with("PASS"), "{first}");
    let status = child.wait().expect("ctk ends");
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
    }
    assert_ne!(status.code(), Some(101), "ctk panicked: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
    let r = report(&dir);
    let all = r["vectors"].as_array().expect("vectors");
    assert!(all.len() > 1);
    assert!(all.iter().all(|v| v["status"] == "pass"), "{r}");
}

/// A folder of three vectors: two that pass at once, then one whose only
/// interceptor never answers, under an interceptor timeout of ten minutes,
/// so the run sits in it until it is killed.
fn vectors_that_hang_third(dir: &Path) {
    let deny = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine/AH-CTK-901-deny-input.json"),
    )
    .expect("vector");
    for id in ["AH-CTK-961", "AH-CTK-962"] {
        std::fs::write(
            dir.join(format!("{id}.json")),
            deny.replace("AH-CTK-901", id),
        )
        .expect("write");
    }
    let mut hang: Value = serde_json::from_str(&deny).expect("json");
    hang["id"] = "AH-CTK-963".into();
    hang["interceptor_timeout_ms"] = 600_000.into();
    hang["interceptor_script"][0]["fault"] = "timeout".into();
    hang["interceptor_script"][0]
        .as_object_mut()
        .expect("rule")
        .remove("return");
    std::fs::write(dir.join("AH-CTK-963.json"), hang.to_string()).expect("write");
}

#[test]
fn a_killed_run_leaves_every_finished_result_on_disk() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = tmp.path().join("vectors");
    std::fs::create_dir(&vectors).expect("mkdir");
    vectors_that_hang_third(&vectors);
    let dir = tmp.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args([
            "run",
            "--jobs",
            "1",
            "--vector-timeout-ms",
            "600000",
            "--vectors",
        ])
        .arg(&vectors)
        .arg("--report-dir")
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("ctk starts");
    let events = dir.join("events.jsonl");
    let finished = |text: &str| text.matches("\"vector_finished\"").count();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = std::fs::read_to_string(&events).unwrap_or_default();
        if finished(&seen) >= 2 && seen.contains("\"vector_started\",\"index\":2") {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("two results did not arrive within 60 s: {seen}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let seen = std::fs::read_to_string(&events).expect("events.jsonl");
    let lines: Vec<Value> = seen
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is whole JSON"))
        .collect();
    let done: Vec<&str> = lines
        .iter()
        .filter(|v| v["event"] == "vector_finished")
        .map(|v| v["id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(done, ["AH-CTK-961", "AH-CTK-962"], "{seen}");
    assert!(lines
        .iter()
        .filter(|v| v["event"] == "vector_finished")
        .all(|v| v["status"] == "pass"));
    assert!(
        !seen.contains("\"run_finished\""),
        "the killed run cannot have finished"
    );
    assert!(!dir.join("report.json").exists());
}

#[test]
fn fail_fast_stops_after_the_first_failure_and_never_reads_green() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args([
            "run",
            // One vector at a time: with more, the vectors already running
            // when the failure lands finish with their own results.
            "--jobs",
            "1",
            "--fail-fast",
            "--vector-timeout-ms",
            "500",
            "--vectors",
        ])
        .arg(&data)
        .arg("--report-dir")
        .arg(&dir)
        .output()
        .expect("ctk runs");
    assert_ne!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r = report(&dir);
    let statuses: Vec<(&str, &str)> = r["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .map(|v| {
            (
                v["status"].as_str().unwrap_or(""),
                v["reason"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let first_bad = statuses
        .iter()
        .position(|(s, _)| *s == "fail" || *s == "error")
        .expect("the engine test vectors hold a failing one");
    assert!(first_bad + 1 < statuses.len(), "nothing left to stop");
    for (status, reason) in &statuses[first_bad + 1..] {
        assert!(
            *status == "skip" || reason.starts_with("not run: --fail-fast"),
            "{statuses:?}"
        );
    }
    assert!(
        statuses[first_bad + 1..]
            .iter()
            .any(|(_, r)| r.starts_with("not run: --fail-fast")),
        "{statuses:?}"
    );
    assert_eq!(r["complete"], false);
}

#[test]
fn lines_carry_titles_and_quiet_shows_only_what_went_wrong() {
    let out = ctk(&["run", "--part", "verdict/warnings", "--color", "never"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("PASS  CTK-0001 An allow carrying a warning at agent_startup"),
        "{stdout}"
    );
    assert!(!stdout.contains('\x1b'), "{stdout}");
    assert!(stdout.contains("no report written"), "{stdout}");
    let quiet = ctk(&["run", "--part", "verdict/warnings", "--quiet"]);
    let stdout = text(&quiet.stdout);
    assert!(!stdout.contains("PASS "), "{stdout}");
    assert!(stdout.contains("10 passed"), "{stdout}");
    let color = ctk(&["run", "--part", "verdict/warnings", "--color", "always"]);
    assert!(
        text(&color.stdout).contains("\x1b[32mPASS"),
        "{}",
        text(&color.stdout)
    );
}

#[test]
fn bad_flags_name_the_flag() {
    let out = ctk(&["run", "--vector-timeout-ms", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--vector-timeout-ms must be at least 1"));
    let file = repo("README.md").display().to_string();
    let out = ctk(&["run", "--vectors", &file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--vectors takes a folder"),
        "{}",
        text(&out.stderr)
    );
    let out = ctk(&["run", "--vectors", "/no/such/folder"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--vectors /no/such/folder: no such folder"));
}

#[test]
fn every_subcommand_help_states_its_exit_codes() {
    for sub in ["run", "list", "validate", "coverage", "claim", "verify"] {
        let out = ctk(&[sub, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{sub}");
        assert!(
            text(&out.stdout).contains("Exit codes:"),
            "{sub}: {}",
            text(&out.stdout)
        );
    }
    let top = ctk(&["--help"]);
    assert!(text(&top.stdout).contains("Certify an Agent Hooks host"));
}

#[test]
fn the_in_process_host_honours_the_vector_timeout() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = tmp.path().join("vectors");
    std::fs::create_dir(&vectors).expect("mkdir");
    vectors_that_hang_third(&vectors);
    let dir = tmp.path().join("out");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args(["run", "--vector-timeout-ms", "300", "--vectors"])
        .arg(&vectors)
        .arg("--report-dir")
        .arg(&dir)
        .output()
        .expect("ctk runs");
    // The interceptor would hang for ten minutes; the limit ends it long
    // before (a generous multiple, not a window).
    assert!(started.elapsed() < Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let r = report(&dir);
    let hung = &r["vectors"][2];
    assert_eq!(hung["status"], "error", "{r}");
    assert!(
        hung["reason"]
            .as_str()
            .is_some_and(|s| s.contains("did not finish within 300 ms")),
        "{hung}"
    );
    assert_eq!(r["vectors"][0]["status"], "pass");
}

#[test]
fn an_advisory_failure_is_shown_apart_and_never_fails_the_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = tmp.path().join("vectors");
    std::fs::create_dir(&vectors).expect("mkdir");
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
    let pass = std::fs::read_to_string(engine.join("AH-CTK-901-deny-input.json")).expect("901");
    std::fs::write(vectors.join("AH-CTK-901.json"), &pass).expect("write");
    let mut wrong: Value = serde_json::from_str(&pass).expect("json");
    wrong["id"] = "AH-CTK-904".into();
    // The host answers `ctk:no`; this expectation cannot hold.
    wrong["expect"]["records"][0]["assert"]["verdict.reason"] = "ctk:other".into();
    wrong["advisory"] = "D-29".into();
    std::fs::write(vectors.join("AH-CTK-904.json"), wrong.to_string()).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args(["run", "--color", "never", "--vectors"])
        .arg(&vectors)
        .output()
        .expect("ctk runs");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("FAIL  AH-CTK-904"), "{stdout}");
    assert!(stdout.contains("[advisory D-29]"), "{stdout}");
    assert!(
        stdout.contains("2 vectors, 1 gating: 1 passed, 0 failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 advisory (they never gate and never block a claim): 0 passed, 1 failed"),
        "{stdout}"
    );
}

#[test]
fn verify_names_the_vector_whose_bytes_changed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = tmp.path().join("vectors");
    std::fs::create_dir(&vectors).expect("mkdir");
    vectors_that_hang_third(&vectors);
    std::fs::remove_file(vectors.join("AH-CTK-963.json")).expect("rm");
    let dir = tmp.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args(["run", "--vectors"])
        .arg(&vectors)
        .arg("--report-dir")
        .arg(&dir)
        .output()
        .expect("ctk runs");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = dir.join("report.json").display().to_string();
    let vectors_s = vectors.display().to_string();
    let ok = ctk(&["verify", &report, "--vectors", &vectors_s]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    let file = vectors.join("AH-CTK-962.json");
    let changed = std::fs::read_to_string(&file)
        .expect("read")
        .replace("ctk:no", "ctk:changed");
    std::fs::write(&file, changed).expect("write");
    let bad = ctk(&["verify", &report, "--vectors", &vectors_s]);
    assert_eq!(bad.status.code(), Some(1));
    let err = text(&bad.stderr);
    assert!(
        err.contains("AH-CTK-962: the vector's bytes changed since the run: AH-CTK-962.json"),
        "{err}"
    );
    assert!(!err.contains("AH-CTK-961"), "{err}");
}
