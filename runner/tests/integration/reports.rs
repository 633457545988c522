//! Report building, rendering (whole strings), verify and claim.

use std::path::Path;
use std::time::Duration;

use ctk::assert::AssertionFailure;
use ctk::outcome::VectorOutcome;
use ctk::report::build::{build, RunContext};
use ctk::report::model::{HostIdentity, Report};
use ctk::report::{claim, human, json, junit, markdown, verify};
use ctk::vector::load::{load, LoadedVector, VectorSource};
use serde_json::{json, Value};

pub(crate) fn vectors() -> Vec<LoadedVector> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
    load(&VectorSource::Dir(dir)).expect("test vectors")
}

pub(crate) fn report(spec: &str, all_pass: bool) -> Report {
    let vectors = vectors();
    let ms = |n| Duration::from_millis(n);
    let outcomes: Vec<VectorOutcome> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| match (all_pass, i) {
            (true, _) | (_, 0) => VectorOutcome::from_failures(&v.vector.id, vec![], ms(5)),
            (false, 1) => {
                VectorOutcome::error(&v.vector.id, "harness error: run: boom".into(), ms(7))
            }
            (false, 2) => VectorOutcome::from_failures(
                &v.vector.id,
                vec![AssertionFailure::mismatch(
                    "run_outcome",
                    "run outcome differs",
                    &json!("blocked"),
                    Some(&json!("completed")),
                )],
                ms(3),
            ),
            _ => VectorOutcome::skip(&v.vector.id, "missing capabilities [\"x\"]".into()),
        })
        .collect();
    build_with(spec, &outcomes)
}

fn build_with(spec: &str, outcomes: &[VectorOutcome]) -> Report {
    let vectors = vectors();
    // A fixed copy of the reference host's declaration, so the rendered
    // reports do not move when the reference host's surface does.
    let doc: Value =
        serde_json::from_str(include_str!("../data/declarations/host-full.json")).expect("json");
    let surface = ctk::declaration::surface(&doc);
    let ctx = RunContext {
        spec: spec.into(),
        host: HostIdentity {
            name: "fake".into(),
            version: "1.2.3".into(),
            spec_versions: vec![spec.into()],
        },
        declaration_source: "host".into(),
        declaration: doc,
        surface: serde_json::to_value(&surface).expect("surface"),
        vector_source: "tests/data/engine".into(),
        filtered: false,
        total_ms: 42,
    };
    build(ctx, &vectors, outcomes)
}

#[test]
fn an_interrupted_run_is_never_complete() {
    let vectors = vectors();
    let mut outcomes: Vec<VectorOutcome> = vectors
        .iter()
        .map(|v| VectorOutcome::from_failures(&v.vector.id, vec![], Duration::ZERO))
        .collect();
    assert!(build_with("agent-hooks/0.1", &outcomes).complete);
    let last = outcomes.len() - 1;
    outcomes[last] = VectorOutcome::error(
        &vectors[last].vector.id,
        ctk::engine::NOT_RUN_INTERRUPTED.into(),
        Duration::ZERO,
    );
    assert!(!build_with("agent-hooks/0.1", &outcomes).complete);
}

fn placeholders(text: &str, report: &Report) -> String {
    text.replace(&report.digest, "{DIGEST}")
        .replace(&report.results_digest, "{RESULTS}")
        .replace(&report.vector_set.sha256, "{SET}")
        .replace(&report.declaration.sha256, "{DECL}")
}

#[test]
fn markdown_is_rendered_whole() {
    let r = report("agent-hooks/0.1", false);
    let want = "# ctk report: fake 1.2.3 against agent-hooks/0.1

Runner ctk 0.1.0; vectors tests/data/engine (6, `{SET}`); declaration host (`{DECL}`).

| part | pass | fail | skip | error |
| --- | ---: | ---: | ---: | ---: |
| fail_closed/verdict_gate | 1 | 1 | 2 | 1 |
| session/multi_turn | 0 | 0 | 1 | 0 |
| **total** | 1 | 1 | 3 | 1 |

## Not passed

- `AH-CTK-902` (fail_closed/verdict_gate) **error**: harness error: run: boom
- `AH-CTK-903` (fail_closed/verdict_gate) **fail**: run_outcome: run outcome differs
- `AH-CTK-904` (fail_closed/verdict_gate) **skip**: missing capabilities [\"x\"]
- `AH-CTK-905` (fail_closed/verdict_gate) **skip**: missing capabilities [\"x\"]
- `AH-CTK-906` (session/multi_turn) **skip**: missing capabilities [\"x\"]

## CLAIMS.md row

No claim can be made from this report:

- 1 vector(s) failed
- 1 vector(s) ended in a host or harness error

Report digest `{DIGEST}`; results digest `{RESULTS}`.
";
    assert_eq!(placeholders(&markdown::render(&r), &r), want);
}

#[test]
fn passing_report_carries_the_claim_row() {
    let r = report("agent-hooks/0.1", true);
    let md = markdown::render(&r);
    let row = "| fake | 1.2.3 | agent-hooks/0.1 | bigint_json, incremental_output, int64_json, model_calls, multi_turn, parallel_tool_calls, streaming, tool_calls | parallel/strictest, parallel/unanimous, sequential/first_deny, sequential/run_all | jcs-sha256 | continue | buffered_output false: released output cannot be retracted; exposure bound: none: an incremental segment is released only after a verdict covering it permits; nothing is released ahead of a covering verdict | 6/6 | `{DIGEST}` |";
    assert_eq!(placeholders(&claim::row(&r), &r), row);
    assert!(placeholders(&md, &r).contains(&format!("{}\n{row}\n", claim::CLAIM_HEADER)));
}

#[test]
fn junit_is_rendered_whole() {
    let r = report("agent-hooks/0.1", false);
    let xml = junit::render(&r).expect("junit");
    let want = r#"<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite id="0" name="fail_closed/verdict_gate" package="testsuite/fail_closed/verdict_gate" tests="5" errors="1" failures="1" hostname="localhost" timestamp="1970-01-01T00:00:00Z" time="{TIME}"><testcase name="AH-CTK-901" time="{TIME}" classname="fail_closed/verdict_gate"/><testcase name="AH-CTK-902" time="{TIME}" classname="fail_closed/verdict_gate"><error type="harness" message="harness error: run: boom"/></testcase><testcase name="AH-CTK-903" time="{TIME}" classname="fail_closed/verdict_gate"><failure type="assertion" message="run_outcome: run outcome differs"/><system-out><![CDATA[run_outcome: run outcome differs
--- expected
+++ actual
@@ -1 +1 @@
-"blocked"
+"completed"
]]></system-out></testcase><testcase name="AH-CTK-904" time="{TIME}" classname="fail_closed/verdict_gate"><skipped type="not applicable" message="missing capabilities [&quot;x&quot;]"/></testcase><testcase name="AH-CTK-905" time="{TIME}" classname="fail_closed/verdict_gate"><skipped type="not applicable" message="missing capabilities [&quot;x&quot;]"/></testcase></testsuite><testsuite id="1" name="session/multi_turn" package="testsuite/session/multi_turn" tests="1" errors="0" failures="0" hostname="localhost" timestamp="1970-01-01T00:00:00Z" time="{TIME}"><testcase name="AH-CTK-906" time="{TIME}" classname="session/multi_turn"><skipped type="not applicable" message="missing capabilities [&quot;x&quot;]"/></testcase></testsuite></testsuites>"#;
    let mut normalized = String::new();
    let mut rest = xml.as_str();
    while let Some(i) = rest.find("time=\"") {
        normalized.push_str(&rest[..i + 6]);
        rest = &rest[i + 6..];
        let end = rest.find('"').expect("closing quote");
        normalized.push_str("{TIME}");
        rest = &rest[end..];
    }
    normalized.push_str(rest);
    assert_eq!(normalized, want);
}

#[test]
fn human_summary_is_rendered_whole() {
    let r = report("agent-hooks/0.1", false);
    let want = "
--- AH-CTK-903 (fail_closed/verdict_gate) failed: the fake host never answers
  run_outcome: run outcome differs
    --- expected
    +++ actual
    @@ -1 +1 @@
    -\"blocked\"
    +\"completed\"

6 vectors: 1 passed, 1 failed, 3 skipped, 1 errors (3 applicable) against agent-hooks/0.1
";
    assert_eq!(human::summary(&r), want);
    let line = human::vector_line(&VectorOutcome::skip("AH-CTK-1", "why".into()));
    assert_eq!(line, "SKIP  AH-CTK-1 (0 ms): why");
}

#[test]
fn report_json_matches_its_schema_and_verifies() {
    let r = report("agent-hooks/0.1", false);
    let text = json::render(&r);
    let value: Value = serde_json::from_str(&text).expect("json");
    ctk::cli::validate::check_report(Path::new("report.json"), &value)
        .expect("valid against report.schema.json");
    assert_eq!(
        verify::verify(&text, Some(&vectors())),
        Vec::<String>::new()
    );
}

#[test]
fn results_digest_ignores_durations_only() {
    let a = report("agent-hooks/0.1", false);
    let mut b = a.clone();
    b.timing.total_ms += 1000;
    ctk::report::build::seal(&mut b);
    assert_eq!(a.results_digest, b.results_digest);
    assert_ne!(a.digest, b.digest);
}

#[test]
fn any_one_byte_change_fails_verify() {
    let text = json::render(&report("agent-hooks/0.1", true));
    let at = text.find("\"pass\"").expect("a status");
    let tampered = format!("{}\"fail\"{}", &text[..at], &text[at + 6..]);
    assert!(!verify::verify(&tampered, None).is_empty());
    let spaced = text.replacen("{\n", "{ \n", 1);
    assert!(!verify::verify(&spaced, None).is_empty());
    let mut other = vectors();
    other[0].sha256 = "sha256:0000".into();
    assert!(verify::verify(&text, Some(&other))
        .iter()
        .any(|p| p.contains("AH-CTK-901")));
}

#[test]
fn claim_refuses_draft_failures_and_errors() {
    let ok = report("agent-hooks/0.1", true);
    assert!(claim::refusals(&ok, &[]).is_empty());
    let draft = report("agent-hooks/draft", true);
    assert_eq!(
        claim::refusals(&draft, &[]),
        vec!["the report is for agent-hooks/draft; only agent-hooks/0.1 can be claimed"]
    );
    let failing = report("agent-hooks/0.1", false);
    assert_eq!(
        claim::refusals(&failing, &[]),
        vec![
            "1 vector(s) failed",
            "1 vector(s) ended in a host or harness error"
        ]
    );
}

#[test]
fn claim_row_states_what_the_surface_obliges() {
    let mut r = report("agent-hooks/0.1", true);
    r.declaration.surface["posture"] = json!("terminate");
    r.declaration.surface["identity_provider"] = Value::Null;
    r.declaration.surface["buffered_output"] = json!(true);
    assert_eq!(
        claim::statements(&r),
        vec![
            "non-default posture: tool_seam_host_error terminate",
            "identity-unbound (identity_provider null)"
        ]
    );
    r.declaration.surface["identity_provider"] = json!("hmac-sha256-k1");
    assert_eq!(
        claim::statements(&r)[1],
        "custom identity provider hmac-sha256-k1; whether it is content-derived must be stated"
    );
}

#[test]
fn no_writer_produces_a_claim_for_the_draft() {
    let draft = report("agent-hooks/draft", true);
    let md = markdown::render(&draft);
    assert!(!md.contains(claim::CLAIM_HEADER), "{md}");
    assert!(!md.contains(&claim::row(&draft)), "{md}");
    assert!(
        md.contains("No claim can be made from this report:\n\n- the report is for agent-hooks/draft; only agent-hooks/0.1 can be claimed"),
        "{md}"
    );
    let header_line = claim::CLAIM_HEADER.lines().next().expect("a header line");
    for (name, text) in [
        ("report.json", json::render(&draft)),
        ("junit.xml", junit::render(&draft).expect("junit")),
        ("terminal", human::summary(&draft)),
    ] {
        assert!(!text.contains(header_line), "{name} carries a claim header");
        assert!(
            !text.contains(&claim::row(&draft)),
            "{name} carries a claim row"
        );
    }
    // The same report for the released spec does carry the row in report.md.
    let released = report("agent-hooks/0.1", true);
    assert!(markdown::render(&released).contains(claim::CLAIM_HEADER));
}
