//! The real `ctk` binary: exit codes and messages.

use std::path::Path;
use std::process::Output;

use ctk::report::json;

use crate::reports::report;
use crate::support::ctk;
use crate::upstream::{upstream, UPSTREAM_VECTORS};

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
        .display()
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn corrupted_vector_exits_2_naming_file_and_pointer() {
    let file = data("bad/AH-CTK-950-corrupt.json");
    for args in [
        vec!["validate", "vector", file.as_str()],
        vec!["run", "--vectors", &data("bad")],
    ] {
        let out = ctk(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{file} at /interceptor_script/0/return/decision")),
            "{err}"
        );
        assert!(err.contains("AH-CTK-950"), "{err}");
    }
}

#[test]
fn zero_vectors_is_an_error_never_a_pass() {
    let empty = tempfile::tempdir().expect("tempdir");
    let out = ctk(&["run", "--vectors", &empty.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no vectors found in"),
        "{}",
        stderr(&out)
    );
    // Filters that match nothing are no input error but a run of nothing:
    // `--no-tests` decides, and by default it is not green (exit 4).
    let out = ctk(&["run", "--vectors", &data("engine"), "--id", "AH-CTK-000"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("matches the --part/--id filters"));
}

#[test]
fn a_stdio_host_that_cannot_start_is_a_harness_error() {
    let out = ctk(&[
        "run",
        "--vectors",
        &data("engine"),
        "--",
        "ctk-no-such-host-program",
        "--flag",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ctk-no-such-host-program"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn help_documents_exit_codes() {
    let out = ctk(&["run", "--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3  host or harness error"), "{text}");
}

#[test]
fn validate_declaration_names_pointer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("host.json");
    std::fs::write(&bad, r#"{"declaration":"agent-hooks-declaration/1.0","bindings":[],"surface":{"capabilities":["telepathy"]}}"#)
        .expect("write");
    let out = ctk(&["validate", "declaration", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("host.json at /surface/capabilities/0"),
        "{}",
        stderr(&out)
    );
    let good =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../agent-hooks/reference-host/host.json");
    assert_eq!(
        ctk(&["validate", "declaration", &good.display().to_string()])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn validate_vector_lints_the_upstream_set() {
    let Some(upstream) = upstream(UPSTREAM_VECTORS) else {
        return;
    };
    let files: Vec<String> = ctk_agent_hooks_suite::vector::load::vector_files(&upstream)
        .expect("list")
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut args = vec!["validate", "vector"];
    args.extend(files.iter().map(String::as_str));
    let out = ctk(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "51 file(s) valid (schema and lint)\n"
    );
}

#[test]
fn run_writes_reports_that_verify_and_a_narrowed_run_cannot_be_claimed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reports = dir.path().display().to_string();
    let vectors = data("engine");
    let out = ctk(&[
        "run",
        "--vectors",
        &vectors,
        "--id",
        "AH-CTK-901",
        "--id",
        "AH-CTK-905",
        "--report-dir",
        &reports,
        "--jobs",
        "2",
    ]);
    // One passes against the bundled reference host, the other is skipped
    // (the host declares no buffered output): a clean run, but narrowed.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for name in ["report.json", "report.md", "junit.xml"] {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
    let report = dir.path().join("report.json").display().to_string();
    assert_eq!(ctk(&["validate", "report", &report]).status.code(), Some(0));
    let verified = ctk(&["verify", &report, "--vectors", &vectors]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
    let claim = ctk(&["claim", &report]);
    assert_eq!(claim.status.code(), Some(1));
    assert!(
        stderr(&claim).contains("narrowed with --part/--id"),
        "{}",
        stderr(&claim)
    );
}

#[test]
fn verify_and_claim_on_written_reports() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    // A claim names the released suite, so the claimable report is over it.
    let good = json::render(&crate::reports::released_report("agent-hooks/0.1", true));
    let good_path = write("good.json", &good);
    assert_eq!(ctk(&["verify", &good_path]).status.code(), Some(0));
    let claim = ctk(&["claim", &good_path]);
    assert_eq!(claim.status.code(), Some(0), "{}", stderr(&claim));
    assert!(String::from_utf8_lossy(&claim.stdout).contains("| fake | 1.2.3 | agent-hooks/0.1 |"));

    let tampered = write("tampered.json", &good.replacen("1.2.3", "1.2.4", 1));
    let out = ctk(&["verify", &tampered]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("digest mismatch"), "{}", stderr(&out));
    let out = ctk(&["claim", &tampered]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("report does not verify"),
        "{}",
        stderr(&out)
    );

    let draft = write(
        "draft.json",
        &json::render(&report("agent-hooks/draft", true)),
    );
    let out = ctk(&["claim", &draft]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("only agent-hooks/0.1 can be claimed"),
        "{}",
        stderr(&out)
    );

    let failing = write(
        "failing.json",
        &json::render(&report("agent-hooks/0.1", false)),
    );
    let out = ctk(&["claim", &failing]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("1 vector(s) failed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn malformed_report_exits_2_naming_file_and_pointer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let good = json::render(&report("agent-hooks/0.1", true));
    let bad_status = write(
        "bad-status.json",
        &good.replacen("\"status\": \"pass\"", "\"status\": \"passed\"", 1),
    );
    let not_json = write("not-json.json", "{ this is not a report");
    for (file, pointer) in [(&bad_status, "/vectors/0/status"), (&not_json, "/")] {
        for command in ["verify", "claim", "validate"] {
            let args: Vec<&str> = match command {
                "validate" => vec!["validate", "report", file],
                other => vec![other, file],
            };
            let out = ctk(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains(&format!("{file} at {pointer}")),
                "{args:?}: {}",
                stderr(&out)
            );
        }
    }
}

#[test]
fn a_report_file_that_cannot_be_written_costs_no_other() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("report.json")).expect("mkdir");
    let out = ctk(&[
        "run",
        "--vectors",
        &data("engine"),
        "--id",
        "AH-CTK-901",
        "--report-dir",
        &dir.path().display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("report.json"), "{}", stderr(&out));
    for name in ["report.md", "junit.xml"] {
        assert!(dir.path().join(name).is_file(), "{name} was not written");
    }
}

/// The embedded 0.1 set is what a bare `ctk run` runs: while it is empty
/// that is the zero-vectors error, once it has vectors `ctk list` shows
/// every one of them (no branch returns without asserting).
#[test]
fn the_embedded_set_is_listed_or_is_the_zero_vectors_error() {
    let embedded = ctk_agent_hooks_suite::vector::embedded::files(
        ctk_agent_hooks_suite::vector::model::SpecVersion::V0_1,
    )
    .count();
    if embedded == 0 {
        let out = ctk(&["run"]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(stderr(&out), "error: no vectors found in embedded:0.1\n");
    } else {
        let out = ctk(&["list"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let listed = String::from_utf8_lossy(&out.stdout).lines().count();
        assert_eq!(listed, embedded);
    }
}

#[test]
fn list_names_part_and_id() {
    let out = ctk(&[
        "list",
        "--vectors",
        &data("engine"),
        "--part",
        "session/multi_turn",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "session/multi_turn::AH-CTK-906  [draft]  belongs to the draft\n"
    );
}

/// A reader that has gone (`ctk list | head`, `ctk verify ... | head -0`)
/// ends the output, not the command: no panic, the command's own exit code.
#[test]
fn a_closed_stdout_ends_the_output_not_the_command() {
    for args in [&["list"][..], &["list", "--protocol", "ahp"][..]] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        // Closed before ctk writes a byte: its first line meets EPIPE.
        drop(reader);
        let out = crate::support::command()
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("the ctk binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `ctk list --protocol ahp` lists what a run of the role would run: every
/// embedded vector of the line, once, each with its role; `--role` narrows
/// to one role, and an Agent Hooks list refuses `--role`.
#[test]
fn list_protocol_ahp_lists_each_role_of_the_line() {
    let embedded = |folder: &str, prefix: &str| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/");
        std::fs::read_dir(format!("{dir}{folder}"))
            .expect("vectors folder")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
            .count()
    };
    let lines = |args: &[&str]| {
        let out = ctk(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let all = lines(&["list", "--protocol", "ahp"]);
    assert_eq!(all.len(), embedded("ahp/0.1", "AHP-"));
    let backend = lines(&["list", "--protocol", "ahp", "--role", "backend"]);
    let harness = lines(&["list", "--protocol", "ahp", "--role", "harness"]);
    assert!(!backend.is_empty() && !harness.is_empty());
    assert_eq!(backend.len() + harness.len(), all.len());
    assert!(
        backend.iter().all(|l| l.contains("  [backend, 0.1]  ")),
        "{backend:?}"
    );
    assert!(
        harness.iter().all(|l| l.contains("  [harness, 0.1]  ")),
        "{harness:?}"
    );
    let draft = lines(&[
        "list",
        "--protocol",
        "ahp",
        "--spec",
        "draft",
        "--role",
        "harness",
    ]);
    assert_eq!(draft.len(), embedded("ahp/draft", "AHP-DH-"));
    assert!(draft
        .iter()
        .all(|l| l.contains("::AHP-DH-") && l.contains("[harness, draft]")));
    let one = lines(&[
        "list",
        "--protocol",
        "ahp",
        "--id",
        "AHP-DH-0001",
        "--spec",
        "draft",
    ]);
    assert_eq!(one.len(), 1, "{one:?}");
    let out = ctk(&["list", "--role", "backend"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--role is an AHP option"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_format_prints_the_report() {
    let out = ctk(&[
        "run",
        "--vectors",
        &data("engine"),
        "--id",
        "AH-CTK-901",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        ctk::report::verify::verify(&text, None).is_empty(),
        "{text}"
    );
}

#[test]
fn jobs_zero_is_a_usage_error() {
    let out = ctk(&["run", "--vectors", &data("engine"), "--jobs", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "error: --jobs must be at least 1\n");
}

#[test]
fn list_shows_skip_reasons_for_a_declaration() {
    let dir = tempfile::tempdir().expect("tempdir");
    let decl = dir.path().join("host.json");
    std::fs::write(&decl, r#"{"declaration":"agent-hooks-declaration/1.0","bindings":[],"surface":{"interception_points":["agent_startup","input","output","agent_shutdown"],"capabilities":[],"buffered_output":false,"exposure_bound":"x"}}"#)
        .expect("write");
    let out = ctk(&[
        "list",
        "--vectors",
        &data("engine"),
        "--id",
        "AH-CTK-901",
        "--id",
        "AH-CTK-905",
        "--declaration",
        &decl.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "fail_closed/verdict_gate::AH-CTK-901  [0.1]  a scripted deny at input reaches the record\n\
         fail_closed/verdict_gate::AH-CTK-905  [0.1]  needs a capability nobody declares  (skip: missing capabilities [\"buffered_output\"])\n"
    );
}

#[test]
fn a_draft_run_never_yields_a_claim() {
    let out_dir = tempfile::tempdir().expect("tempdir");
    let reports = out_dir.path().display().to_string();
    let out = ctk(&[
        "run",
        "--spec",
        "draft",
        "--vectors",
        &data("draft"),
        "--report-dir",
        &reports,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report_json = out_dir.path().join("report.json").display().to_string();
    let text = std::fs::read_to_string(&report_json).expect("report.json");
    assert!(text.contains("\"spec\": \"agent-hooks/draft\""), "{text}");
    let out = ctk(&["claim", &report_json]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("only agent-hooks/0.1 can be claimed"));
    assert!(out.stdout.is_empty(), "no row on stdout");
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).expect("report.md");
    assert!(!md.contains(ctk::report::claim::CLAIM_HEADER), "{md}");
    // The embedded draft set: the zero-vectors error while it is empty.
    let out = ctk(&["run", "--spec", "draft"]);
    if ctk_agent_hooks_suite::vector::embedded::files(
        ctk_agent_hooks_suite::vector::model::SpecVersion::Draft,
    )
    .next()
    .is_none()
    {
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(stderr(&out), "error: no vectors found in embedded:draft\n");
    } else {
        assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("against agent-hooks/draft"));
    }
}
