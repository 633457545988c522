//! `ctk matrix`: every failure classified, nothing stale, the published
//! matrix equal to a fresh one.

use std::path::Path;
use std::process::Command;

use crate::support::{ctk, text};
use serde_json::{json, Value};

/// A report of two vectors: AH-CTK-901 passes, AH-CTK-904 (gating) fails.
fn failing_report(dir: &Path) -> String {
    let vectors = dir.join("vectors");
    std::fs::create_dir_all(&vectors).expect("mkdir");
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
    let pass = std::fs::read_to_string(engine.join("AH-CTK-901-deny-input.json")).expect("901");
    std::fs::write(vectors.join("AH-CTK-901.json"), &pass).expect("write");
    let mut wrong: Value = serde_json::from_str(&pass).expect("json");
    wrong["id"] = "AH-CTK-904".into();
    wrong["expect"]["records"][0]["assert"]["verdict.reason"] = "ctk:other".into();
    std::fs::write(vectors.join("AH-CTK-904.json"), wrong.to_string()).expect("write");
    let out_dir = dir.join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args(["run", "--vectors"])
        .arg(&vectors)
        .arg("--report-dir")
        .arg(&out_dir)
        .output()
        .expect("ctk runs");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    out_dir.join("report.json").display().to_string()
}

fn triage(dir: &Path, entries: Value) -> String {
    let path = dir.join(format!("triage-{}.json", entries.to_string().len()));
    std::fs::write(
        &path,
        json!({"format": "ctk-triage/1", "entries": entries}).to_string(),
    )
    .expect("write");
    path.display().to_string()
}

fn entry(class: &str, vector: &str) -> Value {
    json!({"implementation": "ctk-reference-host", "vector": vector, "class": class,
           "clause": "5-a", "sentence": "The host MUST refuse it.", "diagnosis": "answers ctk:no"})
}

#[test]
fn every_failure_is_classified_and_nothing_stale_stands() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let report = failing_report(tmp.path());
    let none = ctk(&[
        "matrix",
        "--triage",
        &triage(tmp.path(), json!([])),
        &report,
    ]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        text(&none.stderr).contains("ctk-reference-host AH-CTK-904 fails and is not classified"),
        "{}",
        text(&none.stderr)
    );
    let ok = ctk(&[
        "matrix",
        "--triage",
        &triage(
            tmp.path(),
            json!([entry("implementation_defect", "AH-CTK-904")]),
        ),
        &report,
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    let matrix = text(&ok.stdout);
    assert!(
        matrix.contains("| fail_closed/verdict_gate | 1 / 1 / 0 |"),
        "{matrix}"
    );
    assert!(
        matrix.contains("`AH-CTK-904`, clause 5-a: **implementation defect**: answers ctk:no Fails: `records[0].assert.\"verdict.reason\": value differs`. The text: \"The host MUST refuse it.\""),
        "{matrix}"
    );
    for (entries, why) in [
        (
            json!([
                entry("surface", "AH-CTK-904"),
                entry("surface", "AH-CTK-901")
            ]),
            "AH-CTK-901 does not fail in any report (a stale entry",
        ),
        (
            json!([entry("kit_defect", "AH-CTK-904")]),
            "is a kit defect",
        ),
        (
            json!([entry("other_reading", "AH-CTK-904")]),
            "is a gating vector",
        ),
    ] {
        let out = ctk(&["matrix", "--triage", &triage(tmp.path(), entries), &report]);
        assert_eq!(out.status.code(), Some(1), "{why}");
        assert!(
            text(&out.stderr).contains(why),
            "{why}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn the_published_matrix_must_equal_a_fresh_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let report = failing_report(tmp.path());
    let t = triage(tmp.path(), json!([entry("surface", "AH-CTK-904")]));
    let fresh = ctk(&["matrix", "--triage", &t, &report]);
    let published = tmp.path().join("README.md");
    std::fs::write(&published, &fresh.stdout).expect("write");
    let p = published.display().to_string();
    let same = ctk(&["matrix", "--triage", &t, "--check", &p, &report]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    std::fs::write(
        &published,
        text(&fresh.stdout).replace("1 / 1 / 0", "2 / 0 / 0"),
    )
    .expect("write");
    let differs = ctk(&["matrix", "--triage", &t, "--check", &p, &report]);
    assert_eq!(differs.status.code(), Some(1));
    assert!(text(&differs.stderr).contains("-| fail_closed/verdict_gate | 2 / 0 / 0 |"));
}
