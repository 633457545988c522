//! `ctk run --protocol ahp --role backend`: the AHP suite on the core's
//! frame, against the bundled reference backend and a broken one.

use std::path::Path;
use std::process::Command;

use crate::support::{ctk, text};
use serde_json::Value;

fn report(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report"))
        .expect("json")
}

#[test]
fn the_bundled_reference_backend_passes_and_its_report_backs_an_ahp_claim() {
    for lifecycle in ["persistent", "per-event"] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("out");
        let dir_s = dir.display().to_string();
        let out = ctk(&[
            "run",
            "--protocol",
            "ahp",
            "--role",
            "backend",
            "--lifecycle",
            lifecycle,
            "--report-dir",
            &dir_s,
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{lifecycle}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        let r = report(&dir);
        assert_eq!(r["protocol"], "agent-hooks-protocol");
        assert_eq!(r["spec"], "agent-hooks-protocol/0.1");
        let subject = &r["declaration"]["surface"];
        assert_eq!(subject["role"], "backend");
        assert_eq!(subject["binding"], "stdio");
        assert_eq!(subject["lifecycle"], lifecycle.replace('-', "_"));
        assert_eq!(subject["protocol_version"], "0.1");
        assert_eq!(subject["revision"], "0.1.0-draft.1");
        assert!(r["totals"]["pass"].as_u64().is_some_and(|n| n > 20), "{r}");
        assert_eq!(r["totals"]["fail"], 0);
        let report_s = dir.join("report.json").display().to_string();
        let verify = ctk(&["verify", &report_s]);
        assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
        assert!(text(&verify.stdout).contains("verified"));
        assert!(
            !text(&verify.stdout).contains("not checked"),
            "the embedded AHP set is checked"
        );
        let claim = ctk(&["claim", &report_s]);
        assert_eq!(claim.status.code(), Some(0), "{}", text(&claim.stderr));
        let row = text(&claim.stdout);
        assert!(
            row.contains("| implementation | version | spec | role | binding | lifecycle |"),
            "{row}"
        );
        assert!(
            row.contains(&format!(
                "| backend | stdio | {} |",
                lifecycle.replace('-', "_")
            )),
            "{row}"
        );
        assert!(row.contains("| 0.1 | 0.1.0-draft.1 |"), "{row}");
    }
}

#[test]
fn a_broken_backend_fails_and_cannot_be_claimed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Answers every line with a valid-looking result under the wrong id.
    let backend = tmp.path().join("wrong_id.py");
    std::fs::write(
        &backend,
        "import json, sys\n\
         for line in sys.stdin:\n\
         \x20   try:\n\
         \x20       m = json.loads(line)\n\
         \x20   except Exception:\n\
         \x20       continue\n\
         \x20   if 'id' not in m:\n\
         \x20       continue\n\
         \x20   print(json.dumps({'jsonrpc': '2.0', 'id': 'not-' + str(m['id']), 'result': {'protocolVersion': '0.1', 'effects': []}}), flush=True)\n",
    )
    .expect("write");
    let dir = tmp.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args([
            "run",
            "--protocol",
            "ahp",
            "--role",
            "backend",
            "--report-dir",
        ])
        .arg(&dir)
        .args([
            "--subject-name",
            "wrong-id",
            "--subject-version",
            "9",
            "--",
            "python3",
        ])
        .arg(&backend)
        .output()
        .expect("ctk runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let r = report(&dir);
    assert_eq!(r["host"]["name"], "wrong-id");
    assert!(r["totals"]["fail"].as_u64().is_some_and(|n| n > 10), "{r}");
    // An AHP failure carries expected and actual, and every view shows the
    // diff, as for an Agent Hooks failure (issue 28).
    let id_failure = r["vectors"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|v| v["failures"].as_array().into_iter().flatten())
        .find(|f| f["actual"].as_str().is_some_and(|a| a.starts_with("not-")))
        .unwrap_or_else(|| panic!("no failure carries the wrong id as its actual value: {r}"));
    let expected = id_failure["expected"].as_str().expect("the expected id");
    assert_eq!(id_failure["actual"], format!("not-{expected}"));
    let diff_line = format!("+\"not-{expected}\"");
    assert!(
        id_failure["diff"]
            .as_str()
            .is_some_and(|d| d.contains(&diff_line)),
        "{id_failure}"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).expect("report.md");
    assert!(md.contains("```diff") && md.contains(&diff_line), "{md}");
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    assert!(
        html.contains("<pre class=\"diff\">")
            && html.contains(&format!("+&quot;not-{expected}&quot;")),
        "no diff in report.html"
    );
    assert!(
        text(&out.stdout).contains(&diff_line),
        "{}",
        text(&out.stdout)
    );
    let claim = ctk(&["claim", &dir.join("report.json").display().to_string()]);
    assert_eq!(claim.status.code(), Some(1));
    assert!(
        text(&claim.stderr).contains("vector(s) failed"),
        "{}",
        text(&claim.stderr)
    );
}

#[test]
fn ahp_flags_are_checked() {
    for (args, why) in [
        (
            vec!["run", "--protocol", "ahp"],
            "needs --role backend|harness",
        ),
        (
            vec![
                "run",
                "--protocol",
                "ahp",
                "--role",
                "harness",
                "--policy",
                "ctk.deny-force-push",
            ],
            "describe a backend",
        ),
        (
            vec![
                "run",
                "--protocol",
                "ahp",
                "--role",
                "harness",
                "--url",
                "http://127.0.0.1:9/",
            ],
            "--url names a backend",
        ),
        (
            vec![
                "run",
                "--protocol",
                "ahp",
                "--role",
                "backend",
                "--url",
                "http://127.0.0.1:9/",
                "--",
                "x",
            ],
            "not both",
        ),
        (
            vec![
                "run",
                "--protocol",
                "ahp",
                "--role",
                "backend",
                "--url",
                "ftp://x",
            ],
            "not an http:// or https:// URL",
        ),
        (
            vec![
                "run",
                "--protocol",
                "ahp",
                "--role",
                "backend",
                "--policy",
                "nope",
            ],
            "no such policy",
        ),
        (vec!["run", "--role", "backend"], "--role is an AHP flag"),
    ] {
        let out = ctk(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(why),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_backend_that_cannot_start_is_an_error_never_a_pass() {
    let out = ctk(&[
        "run",
        "--protocol",
        "ahp",
        "--role",
        "backend",
        "--id",
        "AHP-B-0001",
        "--",
        "ctk-no-such-backend",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("ERROR AHP-B-0001"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn ahp_coverage_gates_its_own_catalog() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = tmp.path().join("vectors");
    std::fs::create_dir(&vectors).expect("mkdir");
    let released = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/ahp/0.1/AHP-B-0001.json");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(released).expect("AHP-B-0001"))
            .expect("json");
    v["covers"] = serde_json::json!(["ahp-8.1-a"]);
    std::fs::write(vectors.join("AHP-B-0001.json"), v.to_string()).expect("write");
    let catalog = |clauses: Value| {
        let path = tmp
            .path()
            .join(format!("clauses-{}.json", clauses.to_string().len()));
        std::fs::write(
            &path,
            serde_json::json!({"spec": "agent-hooks-protocol/0.1", "catalog_version": 1, "clauses": clauses})
                .to_string(),
        )
        .expect("write");
        path.display().to_string()
    };
    let one = serde_json::json!([{"id": "ahp-8.1-a", "keyword": "MUST", "section": "8.1", "text": "one reply per request"}]);
    let v_s = vectors.display().to_string();
    let ok = ctk(&[
        "coverage",
        "--protocol",
        "ahp",
        "--vectors",
        &v_s,
        "--clauses",
        &catalog(one),
    ]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}{}",
        text(&ok.stdout),
        text(&ok.stderr)
    );
    let two = serde_json::json!([
        {"id": "ahp-8.1-a", "keyword": "MUST", "section": "8.1", "text": "one reply per request"},
        {"id": "ahp-17.3-a", "keyword": "MUST", "section": "17.3", "text": "per_event exits after one message"}
    ]);
    let bad = ctk(&[
        "coverage",
        "--protocol",
        "ahp",
        "--vectors",
        &v_s,
        "--clauses",
        &catalog(two),
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("MUST clause ahp-17.3-a is not covered"),
        "{}",
        text(&bad.stderr)
    );
    let ah = ctk(&[
        "coverage",
        "--vectors",
        &v_s,
        "--clauses",
        &catalog(serde_json::json!([])),
    ]);
    assert_eq!(
        ah.status.code(),
        Some(2),
        "an AHP catalog is no Agent Hooks catalog"
    );
}

#[test]
fn the_bundled_reference_harness_passes_harness_vectors_over_both_bindings() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("out");
    let dir_s = dir.display().to_string();
    // A deadline vector and a stdio and an HTTP failure class under both
    // policies: the whole set runs in CI, this keeps the test short.
    let ids = [
        "AHP-H-0001",
        "AHP-H-0002",
        "AHP-H-0025",
        "AHP-H-0026",
        "AHP-H-0033",
    ];
    let mut args = vec![
        "run",
        "--protocol",
        "ahp",
        "--role",
        "harness",
        "--report-dir",
        &dir_s,
    ];
    for id in &ids {
        args.extend(["--id", id]);
    }
    let out = ctk(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let r = report(&dir);
    assert_eq!(r["protocol"], "agent-hooks-protocol");
    let subject = &r["declaration"]["surface"];
    assert_eq!(subject["role"], "harness");
    assert_eq!(subject["binding"], "stdio+http");
    assert_eq!(r["host"]["name"], "ctk-ahp-harness");
    assert_eq!(r["totals"]["pass"].as_u64(), Some(ids.len() as u64), "{r}");
    let report_s = dir.join("report.json").display().to_string();
    let verify = ctk(&["verify", &report_s]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    let claim = ctk(&["claim", &report_s]);
    assert_eq!(claim.status.code(), Some(1), "a narrowed run is no claim");
    assert!(
        text(&claim.stderr).contains("narrowed"),
        "{}",
        text(&claim.stderr)
    );
}

#[test]
fn an_adapter_that_is_no_adapter_is_an_error_never_a_pass() {
    let out = ctk(&[
        "run",
        "--protocol",
        "ahp",
        "--role",
        "harness",
        "--id",
        "AHP-H-0001",
        "--",
        "python3",
        "-c",
        "print('hello, not json-rpc')",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("ERROR AHP-H-0001"),
        "{}",
        text(&out.stdout)
    );
}

/// The draft line's harness vectors run through the CLI (`--spec draft`)
/// against a small draft harness (ahp/suite/tests/harness/draft_adapter.py);
/// the report names the draft line and can never become a claim.
#[test]
fn draft_harness_vectors_run_with_spec_draft_and_their_report_is_never_claimable() {
    let adapter = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ahp/suite/tests/harness/draft_adapter.py")
        .display()
        .to_string();
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("out");
    let dir_s = dir.display().to_string();
    // A no-effect request-shape vector, an explicit deny, and a draft
    // validity difference (a result without effects is no effect).
    let ids = ["AHP-DH-0047", "AHP-DH-0050", "AHP-DH-0051"];
    let mut args = vec![
        "run",
        "--protocol",
        "ahp",
        "--role",
        "harness",
        "--spec",
        "draft",
        "--report-dir",
        &dir_s,
    ];
    for id in &ids {
        args.extend(["--id", id]);
    }
    args.extend(["--", "python3", &adapter, "--mode", "correct"]);
    let out = ctk(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let r = report(&dir);
    assert_eq!(r["totals"]["pass"].as_u64(), Some(ids.len() as u64), "{r}");
    assert_eq!(r["spec"], "agent-hooks-protocol/draft", "{r}");
    let subject = &r["declaration"]["surface"];
    assert_eq!(subject["role"], "harness");
    assert_eq!(subject["protocol_version"], "draft");
    assert_eq!(subject["revision"], "draft");
    let report_s = dir.join("report.json").display().to_string();
    let claim = ctk(&["claim", &report_s]);
    assert_eq!(claim.status.code(), Some(1), "{}", text(&claim.stdout));
    assert!(
        text(&claim.stderr).contains("agent-hooks-protocol/draft"),
        "the refusal names the draft line: {}",
        text(&claim.stderr)
    );
    // The same harness breaking a draft rule fails that vector.
    let out = ctk(&[
        "run",
        "--protocol",
        "ahp",
        "--role",
        "harness",
        "--spec",
        "draft",
        "--id",
        "AHP-DH-0047",
        "--",
        "python3",
        &adapter,
        "--mode",
        "missing-effects",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("FAIL  AHP-DH-0047"),
        "{}",
        text(&out.stdout)
    );
}

/// `--vectors DIR` with a malformed draft harness vector: a usage error
/// naming the file and the JSON pointer; a 0.1 harness vector in a draft
/// run is refused too.
#[test]
fn a_malformed_draft_harness_vector_is_an_error_naming_file_and_pointer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/ahp/draft/AHP-DH-0001.json");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(&src).expect("vector")).expect("json");
    v["backends"]["A"]["script"]["intercept"][0][0] = serde_json::json!({"do": "sleep"});
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("AHP-DH-0001.json"), v.to_string()).expect("write");
    let dir_s = tmp.path().display().to_string();
    let out = ctk(&[
        "run",
        "--protocol",
        "ahp",
        "--role",
        "harness",
        "--spec",
        "draft",
        "--vectors",
        &dir_s,
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("AHP-DH-0001.json") && err.contains("/backends/A/script/intercept/0/0"),
        "{err}"
    );
    let released = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/ahp/0.1/AHP-H-0001.json");
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::copy(&released, tmp.path().join("AHP-H-0001.json")).expect("copy");
    let dir_s = tmp.path().display().to_string();
    let out = ctk(&[
        "run",
        "--protocol",
        "ahp",
        "--role",
        "harness",
        "--spec",
        "draft",
        "--vectors",
        &dir_s,
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("the run is for the draft line"),
        "{}",
        text(&out.stderr)
    );
}
