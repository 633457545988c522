//! Expected-failure baselines (`ctk run --baseline FILE`, `ctk baseline
//! update`): an expected failure does not fail the run but is never
//! claimable; a stale or an expired entry fails the run; a malformed file is
//! refused before anything runs.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{ctk, text};
use ctk::outcome::Status;
use ctk::report::baseline;
use ctk::report::{build, claim, json, verify};
use serde_json::{json, Value};

/// A folder of two vectors: AH-CTK-901 passes against the reference host,
/// AH-CTK-904 (gating) cannot.
fn vectors(dir: &Path) -> String {
    let vectors = dir.join("vectors");
    std::fs::create_dir(&vectors).expect("mkdir");
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
    let pass = std::fs::read_to_string(engine.join("AH-CTK-901-deny-input.json")).expect("901");
    std::fs::write(vectors.join("AH-CTK-901.json"), &pass).expect("write");
    let mut wrong: Value = serde_json::from_str(&pass).expect("json");
    wrong["id"] = "AH-CTK-904".into();
    // The host answers `ctk:no`; this expectation cannot hold.
    wrong["expect"]["records"][0]["assert"]["verdict.reason"] = "ctk:other".into();
    std::fs::write(vectors.join("AH-CTK-904.json"), wrong.to_string()).expect("write");
    vectors.display().to_string()
}

fn entry(id: &str, expires: &str) -> Value {
    json!({ "id": id, "reason": "verdict reason not yet mapped", "owner": "team-hooks", "expires": expires })
}

fn baseline_file(dir: &Path, entries: Value) -> String {
    let path = dir.join("baseline.json");
    let doc = json!({ "format": "ctk-baseline/1", "entries": entries });
    std::fs::write(&path, doc.to_string()).expect("write");
    path.display().to_string()
}

/// `ctk run --vectors VECTORS --baseline BASELINE --report-dir DIR`.
fn run(vectors: &str, baseline: &str, dir: &Path) -> Output {
    let dir = dir.display().to_string();
    ctk(&[
        "run",
        "--color",
        "never",
        "--vectors",
        vectors,
        "--baseline",
        baseline,
        "--report-dir",
        &dir,
    ])
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json written");
    serde_json::from_str(&text).expect("JSON")
}

fn status_of<'a>(report: &'a Value, id: &str) -> &'a str {
    report["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .find(|v| v["id"] == id)
        .and_then(|v| v["status"].as_str())
        .expect("the vector is listed")
}

#[test]
fn an_expected_failure_does_not_fail_the_run_and_is_reported_as_such() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = vectors(tmp.path());
    let out_dir = tmp.path().join("out");
    // Without the baseline the run fails: the baseline is what turns it green.
    let plain = ctk(&["run", "--vectors", &vectors]);
    assert_eq!(plain.status.code(), Some(1), "{}", text(&plain.stdout));
    let b = baseline_file(tmp.path(), json!([entry("AH-CTK-904", "2999-12-31")]));
    let out = run(&vectors, &b, &out_dir);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("XFAIL AH-CTK-904"), "{stdout}");
    assert!(
        stdout.contains("failed as expected (baseline: verdict reason not yet mapped; owner team-hooks; expires 2999-12-31)"),
        "{stdout}"
    );
    assert!(stdout.contains("1 expected failure(s)"), "{stdout}");
    let r = report(&out_dir);
    assert_eq!(status_of(&r, "AH-CTK-904"), "expected-fail");
    assert_eq!(status_of(&r, "AH-CTK-901"), "pass");
    assert_eq!(r["totals"]["expected_fail"], 1);
    assert_eq!(r["totals"]["fail"], 0);
    assert_eq!(r["baseline"]["stale"], json!([]));
    assert_eq!(r["baseline"]["expired"], json!([]));
    let path = out_dir.join("report.json").display().to_string();
    let verified = ctk(&["verify", &path]);
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}",
        text(&verified.stderr)
    );
    let claimed = ctk(&["claim", &path]);
    assert_eq!(claimed.status.code(), Some(1));
    let refusal = text(&claimed.stderr);
    assert!(
        refusal.contains("a baselined report is never claimable"),
        "{refusal}"
    );
    let junit = std::fs::read_to_string(out_dir.join("junit.xml")).expect("junit.xml");
    assert!(!junit.contains("<failure"), "{junit}");
    assert!(
        junit.contains("<skipped message=\"expected failure (baseline: verdict reason not yet mapped; owner team-hooks; expires 2999-12-31)"),
        "{junit}"
    );
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(
        md.contains("| part | pass | fail | skip | error | expected-fail |"),
        "{md}"
    );
    assert!(
        md.contains("**expected-fail** (baseline: verdict reason"),
        "{md}"
    );
    assert!(md.contains("## Baseline"), "{md}");
}

#[test]
fn a_stale_entry_fails_the_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = vectors(tmp.path());
    let out_dir = tmp.path().join("out");
    let b = baseline_file(
        tmp.path(),
        json!([
            entry("AH-CTK-904", "2999-12-31"),
            entry("AH-CTK-901", "2999-12-31"),
            entry("AH-CTK-999", "2999-12-31"),
        ]),
    );
    let out = run(&vectors, &b, &out_dir);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("stale baseline entry AH-CTK-901: the vector passes now: remove the entry"),
        "{stdout}"
    );
    let r = report(&out_dir);
    let stale: Vec<&str> = r["baseline"]["stale"]
        .as_array()
        .expect("stale")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(stale, ["AH-CTK-901", "AH-CTK-999"]);
    // The failure the file does excuse stays excused.
    assert_eq!(status_of(&r, "AH-CTK-904"), "expected-fail");
}

#[test]
fn an_expired_entry_fails_the_run_and_excuses_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = vectors(tmp.path());
    let out_dir = tmp.path().join("out");
    let b = baseline_file(tmp.path(), json!([entry("AH-CTK-904", "2020-01-31")]));
    let out = run(&vectors, &b, &out_dir);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("FAIL  AH-CTK-904"), "{stdout}");
    assert!(
        stdout.contains(
            "expired baseline entry AH-CTK-904: expired on 2020-01-31 (owner team-hooks)"
        ),
        "{stdout}"
    );
    let r = report(&out_dir);
    assert_eq!(status_of(&r, "AH-CTK-904"), "fail");
    assert_eq!(r["baseline"]["expired"][0]["id"], "AH-CTK-904");
}

#[test]
fn a_malformed_baseline_is_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = vectors(tmp.path());
    let out_dir = tmp.path().join("out");
    let path = tmp.path().join("baseline.json");
    std::fs::write(
        &path,
        json!({"format": "ctk-baseline/1", "entries": [
            entry("AH-CTK-904", "2999-12-31"),
            {"id": "AH-CTK-901", "reason": "r", "expires": "2999-12-31"},
        ]})
        .to_string(),
    )
    .expect("write");
    let b = path.display().to_string();
    let checked = ctk(&["validate", "baseline", &b]);
    assert_eq!(checked.status.code(), Some(2));
    assert!(
        text(&checked.stderr).contains(&format!("{b} at /entries/1: baseline:")),
        "{}",
        text(&checked.stderr)
    );
    let out = run(&vectors, &b, &out_dir);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("{b} at /entries/1: baseline:")),
        "{err}"
    );
    assert!(err.contains("owner"), "{err}");
    assert!(!out_dir.join("report.json").exists(), "a vector ran");
    std::fs::write(
        &path,
        json!({"format": "ctk-baseline/1", "entries": [entry("AH-CTK-904", "2027-13-01")]})
            .to_string(),
    )
    .expect("write");
    let out = run(&vectors, &b, &out_dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("{b} at /entries/0/expires:")),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn baseline_update_writes_the_current_failures() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = vectors(tmp.path());
    let out_dir = tmp.path().join("out");
    let out = ctk(&[
        "run",
        "--vectors",
        &vectors,
        "--report-dir",
        &out_dir.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report = out_dir.join("report.json").display().to_string();
    let refused = ctk(&["baseline", "update", "--report", &report]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("AH-CTK-904")
            && text(&refused.stderr).contains("--owner and --expires"),
        "{}",
        text(&refused.stderr)
    );
    let file: PathBuf = tmp.path().join("new-baseline.json");
    let written = ctk(&[
        "baseline",
        "update",
        "--report",
        &report,
        "--owner",
        "team-hooks",
        "--expires",
        "2999-12-31",
        "--output",
        &file.display().to_string(),
    ]);
    assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("written")).expect("JSON");
    assert_eq!(doc["entries"].as_array().map(Vec::len), Some(1), "{doc}");
    assert_eq!(doc["entries"][0]["id"], "AH-CTK-904");
    assert_eq!(doc["entries"][0]["owner"], "team-hooks");
    let valid = ctk(&["validate", "baseline", &file.display().to_string()]);
    assert_eq!(valid.status.code(), Some(0), "{}", text(&valid.stderr));
    // The file it writes is one `ctk run --baseline` takes, and turns the run green.
    let again = run(
        &vectors,
        &file.display().to_string(),
        &tmp.path().join("again"),
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stdout));
}

/// In process, over the released suite: a report that would be claimable
/// is refused for exactly two reasons once one of its vectors fails and a
/// baseline excuses it.
#[test]
fn a_baselined_report_is_never_claimable() {
    let mut report = crate::reports::released_report("agent-hooks/0.1", true);
    assert!(
        claim::refusals(&report, &[], ctk::set::released).is_empty(),
        "{:?}",
        claim::refusals(&report, &[], ctk::set::released)
    );
    let first = report
        .vectors
        .iter()
        .position(|v| v.advisory.is_none())
        .expect("a gating vector");
    report.vectors.held_mut()[first].status = Status::Fail;
    report.vectors.held_mut()[first].reason = "run_outcome: differs".into();
    build::recount(&mut report);
    build::seal(&mut report);
    let id = report.vectors.held_mut()[first].id.clone();
    let text =
        json!({"format": "ctk-baseline/1", "entries": [entry(&id, "2999-12-31")]}).to_string();
    let b = baseline::parse(Path::new("baseline.json"), &text).expect("valid");
    baseline::apply(
        &mut report,
        &b,
        baseline::parse_date("2026-12-01").expect("date"),
        None,
    );
    assert_eq!(
        report.vectors.held_mut()[first].status,
        Status::ExpectedFail
    );
    assert_eq!(ctk::cli::run::exit_code_for(&report), 0);
    let rendered = json::render(&report);
    let problems = verify::verify(&rendered, None);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        claim::refusals(&report, &problems, ctk::set::released),
        [
            "1 vector(s) failed (marked expected-fail by a baseline; an expected failure is still a failure)".to_owned(),
            format!("the run applied the baseline baseline.json ({}); a baselined report is never claimable: run without --baseline", b.sha256),
        ]
    );
    // Passing the failure off as expected by hand is caught by verify.
    let mut forged = report.clone();
    forged.baseline = None;
    build::seal(&mut forged);
    let problems = verify::verify(&json::render(&forged), None);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("expected-fail without the baseline entry")),
        "{problems:?}"
    );
}
