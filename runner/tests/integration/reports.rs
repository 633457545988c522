//! Report building, rendering (whole strings), verify and claim.

use std::path::Path;
use std::time::Duration;

use ctk::outcome::VectorOutcome;
use ctk::report::build::{build, RunContext};
use ctk::report::model::{HostIdentity, Report};
use ctk::report::{claim, human, json, junit, markdown, verify};
use ctk_agent_hooks_suite::assert::AssertionFailure;
use ctk_agent_hooks_suite::vector::load::{load, LoadedVector, VectorSource};
use ctk_agent_hooks_suite::vector::model::SpecVersion;
use serde_json::{json, Value};

pub(crate) fn vectors() -> Vec<LoadedVector> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
    load(&VectorSource::Dir(dir)).expect("test vectors")
}

/// The released suite (the embedded 0.1 vectors): the only set a claim names.
pub(crate) fn released() -> Vec<LoadedVector> {
    ctk_agent_hooks_suite::vector::embedded::released(SpecVersion::V0_1)
        .expect("the released suite")
        .to_vec()
}

/// A report over the engine test vectors (a `--vectors DIR` run): the first
/// passes; unless `all_pass`, the second errs, the third fails and the rest
/// skip.
pub(crate) fn report(spec: &str, all_pass: bool) -> Report {
    build_with(spec, &outcomes(&vectors(), all_pass))
}

/// The same outcomes over the released suite, so a passing one is claimable.
pub(crate) fn released_report(spec: &str, all_pass: bool) -> Report {
    let vectors = released();
    build_from(
        spec,
        &vectors,
        &outcomes(&vectors, all_pass),
        "embedded:0.1",
        false,
    )
}

/// The outcomes of [`report`]: the positions count gating vectors only
/// (advisory ones pass), so the failing report fails whatever the released
/// suite marks advisory.
/// The core's view of loaded vectors.
fn metas(
    vectors: &[ctk_agent_hooks_suite::vector::load::LoadedVector],
) -> Vec<ctk::set::VectorMeta> {
    vectors.iter().map(|v| v.meta()).collect()
}

fn outcomes(vectors: &[LoadedVector], all_pass: bool) -> Vec<VectorOutcome> {
    let ms = |n| Duration::from_millis(n);
    let mut gating = 0..;
    vectors
        .iter()
        .map(|v| {
            let i = match v.vector.advisory {
                Some(_) => 0,
                None => gating.next().unwrap_or(usize::MAX),
            };
            (i, v)
        })
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
        .collect()
}

fn build_with(spec: &str, outcomes: &[VectorOutcome]) -> Report {
    build_from(spec, &vectors(), outcomes, "tests/data/engine", false)
}

fn build_from(
    spec: &str,
    vectors: &[LoadedVector],
    outcomes: &[VectorOutcome],
    source: &str,
    filtered: bool,
) -> Report {
    // A fixed copy of the reference host's declaration, so the rendered
    // reports do not move when the reference host's surface does.
    let doc: Value =
        serde_json::from_str(include_str!("../data/declarations/host-full.json")).expect("json");
    let surface = ctk_agent_hooks_suite::declaration::surface(&doc);
    let ctx = RunContext {
        spec: spec.into(),
        host: HostIdentity {
            name: "fake".into(),
            version: "1.2.3".into(),
            spec_versions: vec![spec.into()],
            features: Vec::new(),
        },
        declaration_source: "host".into(),
        declaration: doc,
        surface: serde_json::to_value(&surface).expect("surface"),
        vector_source: source.into(),
        filtered,
        started_at: "2026-12-01T08:25:30Z".into(),
        total_ms: 42,
    };
    build(ctx, &metas(vectors), outcomes)
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
        ctk_agent_hooks_suite::engine::NOT_RUN_INTERRUPTED.into(),
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

Runner ctk {VERSION}; vectors tests/data/engine (6, `{SET}`); declaration host (`{DECL}`).

| part | pass | fail | skip | error |
| --- | ---: | ---: | ---: | ---: |
| fail_closed/verdict_gate | 1 | 1 | 2 | 1 |
| session/multi_turn | 0 | 0 | 1 | 0 |
| **total** | 1 | 1 | 3 | 1 |

## Failures by rule

One line per assertion that failed in gating vectors, the most widespread first, with the clauses every one of those vectors cites.

- **1 vector**: `run_outcome`: run outcome differs (AH-CTK-903)

## Not passed

- `AH-CTK-902` (fail_closed/verdict_gate) **error**: harness error: run: boom
- `AH-CTK-903` (fail_closed/verdict_gate) **fail**: run_outcome: run outcome differs
  - `run_outcome`: run outcome differs

    ```diff
    --- expected
    +++ actual
    @@ -1 +1 @@
    -\"blocked\"
    +\"completed\"
    ```

- `AH-CTK-904` (fail_closed/verdict_gate) **skip**: missing capabilities [\"x\"]
- `AH-CTK-905` (fail_closed/verdict_gate) **skip**: missing capabilities [\"x\"]
- `AH-CTK-906` (session/multi_turn) **skip**: missing capabilities [\"x\"]

## CLAIMS.md row

No claim can be made from this report:

- 1 vector(s) failed
- 1 vector(s) ended in a host or harness error
- the vectors are not the released agent-hooks/0.1 suite: the report lists 6 vectors, the suite has {N}
- the vectors are not the released agent-hooks/0.1 suite: {N} released vector(s) missing from the report: {MISSING}
- the vectors are not the released agent-hooks/0.1 suite: 6 vector(s) not in the suite: AH-CTK-901, AH-CTK-902, AH-CTK-903 and 3 more

Report digest `{DIGEST}`; results digest `{RESULTS}`.
";
    let suite = released();
    let mut ids: Vec<&str> = suite.iter().map(|v| v.vector.id.as_str()).collect();
    ids.sort_unstable();
    let missing = format!("{} and {} more", ids[..3].join(", "), ids.len() - 3);
    let want = want
        .replace("{N}", &suite.len().to_string())
        .replace("{MISSING}", &missing)
        .replace("{VERSION}", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        placeholders(&markdown::render(&r, ctk::set::released), &r),
        want
    );
}

#[test]
fn passing_report_carries_the_claim_row() {
    let r = released_report("agent-hooks/0.1", true);
    let md = markdown::render(&r, ctk::set::released);
    let row = "| fake | 1.2.3 | agent-hooks/0.1 | bigint_json, incremental_output, int64_json, model_calls, multi_turn, parallel_tool_calls, streaming, tool_calls | parallel/strictest, parallel/unanimous, sequential/first_deny, sequential/run_all | jcs-sha256 | continue | buffered_output false: released output cannot be retracted; exposure bound: none: an incremental segment is released only after a verdict covering it permits; nothing is released ahead of a covering verdict | {N}/{N} | `{DIGEST}` |";
    let gating = released()
        .iter()
        .filter(|v| v.vector.advisory.is_none())
        .count();
    let row = row.replace("{N}", &gating.to_string());
    assert_eq!(placeholders(&claim::row(&r), &r), row);
    assert!(placeholders(&md, &r).contains(&format!("{}\n{row}\n", claim::CLAIM_HEADER)));
}

#[test]
fn junit_is_rendered_whole() {
    let r = report("agent-hooks/0.1", false);
    let xml = junit::render(&r).expect("junit");
    let want = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="ctk agent-hooks/0.1: fake 1.2.3" tests="6" failures="1" errors="1" skipped="3" time="{TIME}" timestamp="2026-12-01T08:25:30Z">
  <testsuite name="fail_closed/verdict_gate" tests="5" failures="1" errors="1" skipped="2" time="{TIME}" timestamp="2026-12-01T08:25:30Z" hostname="localhost" id="0" package="fail_closed/verdict_gate">
    <properties>
      <property name="spec" value="agent-hooks/0.1"/>
      <property name="host" value="fake 1.2.3"/>
      <property name="advisory" value="false"/>
      <property name="report_digest" value="{DIGEST}"/>
    </properties>
    <testcase name="AH-CTK-901: a scripted deny at input reaches the record" classname="fail_closed/verdict_gate" time="{TIME}"/>
    <testcase name="AH-CTK-902: the fake host fails this one" classname="fail_closed/verdict_gate" time="{TIME}">
      <error message="harness error: run: boom" type="harness"/>
    </testcase>
    <testcase name="AH-CTK-903: the fake host never answers" classname="fail_closed/verdict_gate" time="{TIME}">
      <failure message="run_outcome: run outcome differs" type="assertion">run_outcome: run outcome differs
--- expected
+++ actual
@@ -1 +1 @@
-"blocked"
+"completed"
</failure>
    </testcase>
    <testcase name="AH-CTK-904: expects an outcome the fake host does not produce" classname="fail_closed/verdict_gate" time="{TIME}">
      <skipped message="missing capabilities [&quot;x&quot;]"/>
    </testcase>
    <testcase name="AH-CTK-905: needs a capability nobody declares" classname="fail_closed/verdict_gate" time="{TIME}">
      <skipped message="missing capabilities [&quot;x&quot;]"/>
    </testcase>
  </testsuite>
  <testsuite name="session/multi_turn" tests="1" failures="0" errors="0" skipped="1" time="{TIME}" timestamp="2026-12-01T08:25:30Z" hostname="localhost" id="1" package="session/multi_turn">
    <properties>
      <property name="spec" value="agent-hooks/0.1"/>
      <property name="host" value="fake 1.2.3"/>
      <property name="advisory" value="false"/>
      <property name="report_digest" value="{DIGEST}"/>
    </properties>
    <testcase name="AH-CTK-906: belongs to the draft" classname="session/multi_turn" time="{TIME}">
      <skipped message="missing capabilities [&quot;x&quot;]"/>
    </testcase>
  </testsuite>
</testsuites>
"#;
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
    assert_eq!(placeholders(&normalized, &r), want);
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
skipped 3, by reason:
     3  missing capabilities [\"x\"]
";
    assert_eq!(human::summary(&r, human::Style::default()), want);
    let line = human::vector_line(
        &VectorOutcome::skip("AH-CTK-1", "why".into()),
        "a title",
        human::Style::default(),
    );
    assert_eq!(line, "SKIP  AH-CTK-1 a title: why", "no time on a skip");
    let pass = human::vector_line(
        &VectorOutcome::from_failures("AH-CTK-2", Vec::new(), std::time::Duration::from_millis(3)),
        "another",
        human::Style::default(),
    );
    assert_eq!(pass, "PASS  AH-CTK-2 another (3 ms)");
}

#[test]
fn report_json_matches_its_schema_and_verifies() {
    let r = report("agent-hooks/0.1", false);
    let text = json::render(&r);
    let value: Value = serde_json::from_str(&text).expect("json");
    ctk::cli::validate::check_report(Path::new("report.json"), &value)
        .expect("valid against report.schema.json");
    assert_eq!(
        verify::verify(&text, Some(&metas(&vectors()))),
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
    assert!(verify::verify(&text, Some(&metas(&other)))
        .iter()
        .any(|p| p.contains("AH-CTK-901")));
}

#[test]
fn claim_refuses_draft_failures_and_errors() {
    let ok = released_report("agent-hooks/0.1", true);
    assert_eq!(
        claim::refusals(&ok, &[], ctk::set::released),
        Vec::<String>::new()
    );
    let draft = released_report("agent-hooks/draft", true);
    assert_eq!(
        claim::refusals(&draft, &[], ctk::set::released),
        vec!["the report is for agent-hooks/draft; only agent-hooks/0.1 can be claimed"]
    );
    let failing = released_report("agent-hooks/0.1", false);
    assert_eq!(
        claim::refusals(&failing, &[], ctk::set::released),
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
    let draft = released_report("agent-hooks/draft", true);
    let md = markdown::render(&draft, ctk::set::released);
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
        ("terminal", human::summary(&draft, human::Style::default())),
    ] {
        assert!(!text.contains(header_line), "{name} carries a claim header");
        assert!(
            !text.contains(&claim::row(&draft)),
            "{name} carries a claim row"
        );
    }
    // The same report for the released spec does carry the row in report.md.
    let released = released_report("agent-hooks/0.1", true);
    assert!(markdown::render(&released, ctk::set::released).contains(claim::CLAIM_HEADER));
}

/// A report whose third vector is advisory and fails: a gating failure
/// nowhere, so exit 0 and claimable, and the failure shows in the advisory
/// column of report.md and in an advisory JUnit suite.
#[test]
fn an_advisory_failure_never_gates() {
    let mut vectors = vectors();
    vectors[2].vector.advisory = Some("D-29".into());
    let mut outcomes: Vec<VectorOutcome> = vectors
        .iter()
        .map(|v| VectorOutcome::from_failures(&v.vector.id, vec![], Duration::ZERO))
        .collect();
    outcomes[2] = VectorOutcome::from_failures(
        &vectors[2].vector.id,
        vec![AssertionFailure::message("run_outcome", "differs")],
        Duration::ZERO,
    );
    let r = build_from(
        "agent-hooks/0.1",
        &vectors,
        &outcomes,
        "embedded:0.1",
        false,
    );
    assert_eq!((r.totals.pass, r.totals.fail), (5, 0));
    assert_eq!((r.advisory_totals.pass, r.advisory_totals.fail), (0, 1));
    assert_eq!(
        r.vectors.get(2).expect("a third entry").advisory.as_deref(),
        Some("D-29")
    );
    assert_eq!(r.parts[0].advisory.fail, 1);
    assert_eq!(ctk::cli::run::exit_code_for(&r), ctk::exit_code::SUCCESS);
    // Claimable against a suite in which that vector is the advisory one.
    assert_eq!(
        claim::refusals_against(&r, &[], Ok(&metas(&vectors))),
        Vec::<String>::new()
    );
    let text = json::render(&r);
    let value: Value = serde_json::from_str(&text).expect("json");
    ctk::cli::validate::check_report(Path::new("report.json"), &value)
        .expect("valid against report.schema.json");
    assert!(value["vectors"][0].get("advisory").is_none(), "{text}");
    assert_eq!(verify::verify(&text, None), Vec::<String>::new());

    let md = markdown::render(&r, ctk::set::released);
    assert!(
        md.contains(
            "| part | pass | fail | skip | error |\n| --- | ---: | ---: | ---: | ---: |\n\
             | fail_closed/verdict_gate | 4 | 0 | 0 | 0 |\n\
             | session/multi_turn | 1 | 0 | 0 | 0 |\n\
             | **total** | 5 | 0 | 0 | 0 |\n"
        ),
        "{md}"
    );
    assert!(md.contains("## Advisory (never blocks a claim)\n"), "{md}");
    assert!(
        md.contains(
            "| fail_closed/verdict_gate | 0 | 1 | 0 | 0 |\n| **total** | 0 | 1 | 0 | 0 |\n"
        ),
        "{md}"
    );
    assert!(
        md.contains("- `AH-CTK-903` (fail_closed/verdict_gate) **fail** (advisory, D-29): run_outcome: differs"),
        "{md}"
    );

    let xml = junit::render(&r).expect("junit");
    assert_eq!(junit_problems(&xml), Vec::<String>::new());
    let advisory_suite = xml
        .split("<testsuite ")
        .find(|s| s.contains("name=\"advisory: fail_closed/verdict_gate\""))
        .unwrap_or_else(|| panic!("no advisory suite: {xml}"));
    assert!(advisory_suite.contains("failures=\"1\""), "{xml}");
    assert!(advisory_suite.contains("AH-CTK-903"), "{xml}");
    let gating_suite = xml
        .split("<testsuite ")
        .find(|s| s.contains("name=\"fail_closed/verdict_gate\""))
        .unwrap_or_else(|| panic!("no gating suite: {xml}"));
    assert!(gating_suite.contains("failures=\"0\""), "{xml}");
    assert!(!gating_suite.contains("AH-CTK-903"), "{xml}");
}

/// An entry moved between the gating and the advisory column (and the
/// report re-sealed) no longer matches its counts: verify says so.
#[test]
fn verify_recounts_both_columns() {
    let mut r = report("agent-hooks/0.1", false);
    r.vectors.held_mut()[2].advisory = Some("D-29".into());
    ctk::report::build::seal(&mut r);
    let problems = verify::verify(&json::render(&r), None);
    assert!(
        problems.iter().any(|p| p.starts_with("totals ")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with("advisory_totals ")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with("parts are not")),
        "{problems:?}"
    );
}

fn suite_refusals(r: &Report) -> Vec<String> {
    claim::refusals(r, &[], ctk::set::released)
        .into_iter()
        .filter(|p| p.starts_with("the vectors are not the released agent-hooks/0.1 suite: "))
        .map(|p| p["the vectors are not the released agent-hooks/0.1 suite: ".len()..].to_owned())
        .collect()
}

/// A `--vectors DIR` run of other vectors cannot back a claim, though every
/// vector passed.
#[test]
fn claim_refuses_a_folder_of_other_vectors() {
    let r = report("agent-hooks/0.1", true);
    assert_eq!(r.totals.fail + r.totals.error, 0);
    let n = released().len();
    let refusals = suite_refusals(&r);
    assert_eq!(refusals.len(), 3, "{refusals:?}");
    assert_eq!(
        refusals[0],
        format!("the report lists 6 vectors, the suite has {n}")
    );
    assert!(
        refusals[1].starts_with(&format!("{n} released vector(s) missing from the report: ")),
        "{refusals:?}"
    );
    assert_eq!(
        refusals[2],
        "6 vector(s) not in the suite: AH-CTK-901, AH-CTK-902, AH-CTK-903 and 3 more"
    );
}

/// A folder that is a copy of the released suite with one vector changed
/// (its title): refused, naming that vector; the unchanged copy is the suite.
#[test]
fn claim_refuses_a_copy_of_the_suite_with_one_vector_changed() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in ctk_agent_hooks_suite::vector::embedded::files(SpecVersion::V0_1) {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let copy = load(&VectorSource::Dir(dir.path().into())).expect("copy loads");
    let all_pass = |vectors: &[LoadedVector]| -> Vec<VectorOutcome> {
        vectors
            .iter()
            .map(|v| VectorOutcome::from_failures(&v.vector.id, vec![], Duration::ZERO))
            .collect()
    };
    let source = dir.path().display().to_string();
    let same = build_from("agent-hooks/0.1", &copy, &all_pass(&copy), &source, false);
    assert_eq!(suite_refusals(&same), Vec::<String>::new());

    let victim = copy[4].file.clone();
    let text = std::fs::read_to_string(&victim).expect("read");
    let mut value: Value = serde_json::from_str(&text).expect("json");
    value["title"] = json!("a title the suite does not have");
    std::fs::write(&victim, value.to_string()).expect("write");
    let changed = load(&VectorSource::Dir(dir.path().into())).expect("copy loads");
    let r = build_from(
        "agent-hooks/0.1",
        &changed,
        &all_pass(&changed),
        &source,
        false,
    );
    let refusals = suite_refusals(&r);
    let id = &copy[4].vector.id;
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert!(
        refusals[0].starts_with(&format!(
            "1 vector(s) have another digest: {id} (report {}, suite {})",
            changed[4].sha256, copy[4].sha256
        )),
        "{refusals:?}"
    );
}

/// A run narrowed with `--id` is refused as narrowed and as not the suite.
#[test]
fn claim_refuses_a_narrowed_report() {
    let suite = released();
    let few: Vec<LoadedVector> = suite.iter().take(2).cloned().collect();
    let outcomes: Vec<VectorOutcome> = few
        .iter()
        .map(|v| VectorOutcome::from_failures(&v.vector.id, vec![], Duration::ZERO))
        .collect();
    let r = build_from("agent-hooks/0.1", &few, &outcomes, "embedded:0.1", true);
    let all = claim::refusals(&r, &[], ctk::set::released);
    assert!(
        all.contains(
            &"the run was narrowed with --part/--id; a claim needs the whole vector set".to_owned()
        ),
        "{all:?}"
    );
    let refusals = suite_refusals(&r);
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert!(
        refusals[1].starts_with(&format!(
            "{} released vector(s) missing from the report: ",
            suite.len() - 2
        )),
        "{refusals:?}"
    );
}

/// A forged vector digest, re-sealed so that every digest verifies, is
/// still refused: the claim compares each digest with the suite's.
#[test]
fn claim_refuses_a_forged_vector_digest() {
    let mut r = released_report("agent-hooks/0.1", true);
    let forged = format!("sha256:{}", "0".repeat(64));
    r.vectors.held_mut()[1].sha256 = forged.clone();
    r.vector_set.sha256 =
        ctk::report::build::vector_set_digest(r.vectors.iter().map(|v| v.sha256.clone()));
    ctk::report::build::seal(&mut r);
    let text = json::render(&r);
    assert_eq!(verify::verify(&text, None), Vec::<String>::new());
    let refusals = suite_refusals(&r);
    assert_eq!(
        refusals,
        [format!(
            "1 vector(s) have another digest: {} (report {forged}, suite {})",
            r.vectors.get(1).expect("a second entry").id,
            released()[1].sha256
        )]
    );
}

/// A failing gating vector the report marks advisory (its digest left
/// alone) is refused: whether a vector gates is the suite's to say.
#[test]
fn claim_refuses_a_vector_the_report_marks_advisory() {
    let mut vectors = released();
    let i = vectors
        .iter()
        .position(|v| v.vector.advisory.is_none())
        .expect("a gating vector");
    vectors[i].vector.advisory = Some("D-999".into());
    let mut outcomes: Vec<VectorOutcome> = vectors
        .iter()
        .map(|v| VectorOutcome::from_failures(&v.vector.id, vec![], Duration::ZERO))
        .collect();
    outcomes[i] = VectorOutcome::from_failures(
        &vectors[i].vector.id,
        vec![AssertionFailure::message("run_outcome", "differs")],
        Duration::ZERO,
    );
    let r = build_from(
        "agent-hooks/0.1",
        &vectors,
        &outcomes,
        "embedded:0.1",
        false,
    );
    assert_eq!(r.totals.fail, 0);
    assert_eq!(
        suite_refusals(&r),
        [format!(
            "1 vector(s) are marked otherwise than in the suite: {} (report advisory D-999, suite gating)",
            vectors[i].vector.id
        )]
    );
}

/// Every string of the row that comes from the host is escaped and bounded:
/// the row stays one line of exactly ten cells.
#[test]
fn claim_row_survives_a_hostile_host() {
    let mut r = released_report("agent-hooks/0.1", true);
    r.host.name = format!("evil | `x` <b>\n| a | b |\r\u{7}\\{}", "A".repeat(200));
    r.host.version = "1.0\n\n## Injected heading".into();
    r.declaration.surface["capabilities"] = json!(["tool_calls | x", "a\nb"]);
    r.declaration.surface["identity_provider"] = json!(format!("p|{}", "B".repeat(100)));
    let line = claim::row(&r);
    assert!(!line.contains('\n') && !line.contains('\r'), "{line:?}");
    assert!(!line.chars().any(char::is_control), "{line:?}");
    // Split on the pipes that are not escaped.
    let mut cells = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let next = chars.next().expect("an escaped character");
                cells.last_mut().expect("a cell").extend([c, next]);
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().expect("a cell").push(c),
        }
    }
    let cells: Vec<&str> = cells[1..cells.len() - 1].iter().map(|c| c.trim()).collect();
    assert_eq!(cells.len(), 10, "{line}");
    assert!(
        cells[0].starts_with("evil \\| \\`x\\` \\<b\\> \\| a \\| b \\|  \\\\AAA"),
        "{}",
        cells[0]
    );
    assert!(cells[0].ends_with('…'), "{}", cells[0]);
    let mut unescaped = String::new();
    let mut chars = cells[0].chars();
    while let Some(c) = chars.next() {
        unescaped.push(if c == '\\' {
            chars.next().expect("escaped")
        } else {
            c
        });
    }
    assert_eq!(unescaped.chars().count(), claim::NAME_BOUND, "{}", cells[0]);
    assert_eq!(cells[1], "1.0  ## Injected heading");
    assert_eq!(cells[3], "tool_calls \\| x, a b");
    assert!(
        cells[5].starts_with("p\\|BBB") && cells[5].ends_with('…'),
        "{}",
        cells[5]
    );
    assert!(
        cells[7].contains("custom identity provider p\\|BBB"),
        "{}",
        cells[7]
    );
}

/// One element of an XML document: name, attributes, child elements.
#[derive(Debug, Default)]
struct Node {
    name: String,
    attrs: std::collections::BTreeMap<String, String>,
    children: Vec<Node>,
}

/// Parse XML into a [`Node`] tree of its elements (text is not kept).
fn parse_xml(text: &str) -> Node {
    use quick_xml::events::{BytesStart, Event};
    let node = |e: &BytesStart<'_>| Node {
        name: String::from_utf8_lossy(e.name().as_ref()).into_owned(),
        attrs: e
            .attributes()
            .map(|a| {
                let a = a.expect("a well-formed attribute");
                (
                    String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                    a.normalized_value(quick_xml::XmlVersion::default())
                        .expect("an attribute value")
                        .into_owned(),
                )
            })
            .collect(),
        children: Vec::new(),
    };
    let mut reader = quick_xml::Reader::from_str(text);
    let mut stack = vec![Node::default()];
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => stack.push(node(&e)),
            Event::Empty(e) => {
                let n = node(&e);
                stack.last_mut().expect("a parent").children.push(n);
            }
            Event::End(_) => {
                let done = stack.pop().expect("an open element");
                stack.last_mut().expect("a parent").children.push(done);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let mut root = stack.pop().expect("the document");
    assert!(stack.is_empty(), "unclosed elements");
    assert_eq!(root.children.len(), 1, "one root element");
    root.children.remove(0)
}

/// What junit.xsd declares of one element.
#[derive(Debug, Default)]
struct Rule {
    /// Attribute → (type, required).
    attrs: std::collections::BTreeMap<String, (String, bool)>,
    /// Child elements in sequence order, with whether more than one may occur.
    children: Vec<(String, bool)>,
    /// The children are an `xs:choice`: at most one of them.
    choice: bool,
}

/// Read runner/tests/data/junit.xsd into one [`Rule`] per element, so the
/// check below follows the file rather than a copy of it.
fn junit_rules() -> std::collections::BTreeMap<String, Rule> {
    let xsd = parse_xml(include_str!("../data/junit.xsd"));
    let mut types: std::collections::BTreeMap<String, &Node> = Default::default();
    for n in &xsd.children {
        if let Some(name) = n.attrs.get("name") {
            types.insert(name.clone(), n);
        }
    }
    fn attrs_of(node: &Node, rule: &mut Rule) {
        for n in &node.children {
            match n.name.as_str() {
                "xs:attribute" => {
                    rule.attrs.insert(
                        n.attrs["name"].clone(),
                        (
                            n.attrs["type"].clone(),
                            n.attrs.get("use").map(String::as_str) == Some("required"),
                        ),
                    );
                }
                "xs:element" => {}
                _ => attrs_of(n, rule),
            }
        }
    }
    fn walk(
        element: &Node,
        types: &std::collections::BTreeMap<String, &Node>,
        out: &mut std::collections::BTreeMap<String, Rule>,
    ) {
        let mut rule = Rule::default();
        let body: Vec<&Node> = match element.attrs.get("type") {
            Some(t) => vec![types[t.as_str()]],
            None => element.children.iter().collect(),
        };
        for b in &body {
            attrs_of(b, &mut rule);
        }
        // Child elements: under complexType > sequence | choice.
        for ct in body.iter().filter(|n| n.name == "xs:complexType") {
            for group in &ct.children {
                if !matches!(group.name.as_str(), "xs:sequence" | "xs:choice") {
                    continue;
                }
                rule.choice = group.name == "xs:choice";
                for child in group.children.iter().filter(|c| c.name == "xs:element") {
                    let many =
                        child.attrs.get("maxOccurs").map(String::as_str) == Some("unbounded");
                    rule.children.push((child.attrs["name"].clone(), many));
                    walk(child, types, out);
                }
            }
        }
        out.insert(element.attrs["name"].clone(), rule);
    }
    let mut out = Default::default();
    for root in xsd.children.iter().filter(|n| n.name == "xs:element") {
        walk(root, &types, &mut out);
    }
    assert!(out.contains_key("testcase"), "{out:?}");
    out
}

/// Whether `value` is of the XSD simple type `ty` (as junit.xsd defines it).
fn of_type(ty: &str, value: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match ty {
        "xs:string" => true,
        "count" => digits(value),
        "seconds" => value
            .split_once('.')
            .is_some_and(|(s, ms)| digits(s) && ms.len() == 3 && digits(ms)),
        "timestamp" => {
            let b = value.as_bytes();
            b.len() == 20
                && b.iter().enumerate().all(|(i, c)| match i {
                    4 | 7 => *c == b'-',
                    10 => *c == b'T',
                    13 | 16 => *c == b':',
                    19 => *c == b'Z',
                    _ => c.is_ascii_digit(),
                })
        }
        other => panic!("junit.xsd type {other} is not known to this check"),
    }
}

/// Check a node against the rules, recursively; problems go to `out`.
fn check_node(
    node: &Node,
    rules: &std::collections::BTreeMap<String, Rule>,
    out: &mut Vec<String>,
) {
    let Some(rule) = rules.get(&node.name) else {
        out.push(format!("<{}> is not in junit.xsd", node.name));
        return;
    };
    for (attr, (ty, required)) in &rule.attrs {
        match node.attrs.get(attr) {
            None if *required => out.push(format!("<{}> lacks {attr}", node.name)),
            Some(v) if !of_type(ty, v) => {
                out.push(format!("<{}> {attr}={v:?} is not a {ty}", node.name))
            }
            _ => {}
        }
    }
    for attr in node.attrs.keys() {
        if !rule.attrs.contains_key(attr) {
            out.push(format!("<{}> has undeclared attribute {attr}", node.name));
        }
    }
    if rule.choice && node.children.len() > 1 {
        out.push(format!("<{}> has more than one of a choice", node.name));
    }
    let mut at = 0;
    let mut last: Option<&str> = None;
    for child in &node.children {
        match rule.children[at..]
            .iter()
            .position(|(n, _)| *n == child.name)
        {
            Some(i) => {
                at += i;
                let (name, many) = &rule.children[at];
                if !many && !rule.choice && last == Some(name.as_str()) {
                    out.push(format!("<{}> repeats <{name}>", node.name));
                }
                last = Some(name.as_str());
            }
            None => out.push(format!(
                "<{}> may not hold <{}> here",
                node.name, child.name
            )),
        }
        check_node(child, rules, out);
    }
}

/// Every problem of a junit.xml against junit.xsd, plus the counts the XSD
/// cannot state: each suite's tests/failures/errors/skipped are its
/// testcases and the root carries their sums.
fn junit_problems(xml: &str) -> Vec<String> {
    let root = parse_xml(xml);
    let mut out = Vec::new();
    if root.name != "testsuites" {
        out.push(format!("the root is <{}>", root.name));
    }
    check_node(&root, &junit_rules(), &mut out);
    let count = |n: &Node, key: &str| -> usize {
        n.attrs
            .get(key)
            .and_then(|v| v.parse().ok())
            .unwrap_or(usize::MAX)
    };
    let mut sums = [0usize; 4];
    for suite in root.children.iter().filter(|n| n.name == "testsuite") {
        let cases: Vec<&Node> = suite
            .children
            .iter()
            .filter(|n| n.name == "testcase")
            .collect();
        let with = |child: &str| {
            cases
                .iter()
                .filter(|c| c.children.iter().any(|x| x.name == child))
                .count()
        };
        let found = [cases.len(), with("failure"), with("error"), with("skipped")];
        for (i, key) in ["tests", "failures", "errors", "skipped"]
            .into_iter()
            .enumerate()
        {
            if count(suite, key) != found[i] {
                out.push(format!(
                    "suite {:?}: {key}={} but {} testcases",
                    suite.attrs.get("name"),
                    count(suite, key),
                    found[i]
                ));
            }
            sums[i] += found[i];
        }
    }
    for (i, key) in ["tests", "failures", "errors", "skipped"]
        .into_iter()
        .enumerate()
    {
        if count(&root, key) != sums[i] {
            out.push(format!(
                "testsuites {key}={} but {}",
                count(&root, key),
                sums[i]
            ));
        }
    }
    out
}

/// The check itself catches what it should: a missing attribute, a wrong
/// count, an element junit.xsd does not know.
#[test]
fn the_junit_check_finds_broken_files() {
    let xml = junit::render(&report("agent-hooks/0.1", false)).expect("junit");
    assert_eq!(junit_problems(&xml), Vec::<String>::new());
    let no_skipped = xml.replacen(" skipped=\"2\"", "", 1);
    assert_eq!(
        junit_problems(&no_skipped),
        ["<testsuite> lacks skipped", "suite Some(\"fail_closed/verdict_gate\"): skipped=18446744073709551615 but 2 testcases"]
    );
    let miscounted = xml.replacen("failures=\"1\"", "failures=\"0\"", 1);
    assert_eq!(junit_problems(&miscounted), ["testsuites failures=0 but 1"]);
    let foreign = xml.replacen("<properties>", "<properties><bogus/>", 1);
    assert!(
        junit_problems(&foreign).contains(&"<properties> may not hold <bogus> here".to_owned()),
        "{:?}",
        junit_problems(&foreign)
    );
    let bad_time = xml.replacen(
        "timestamp=\"2026-12-01T08:25:30Z\"",
        "timestamp=\"yesterday\"",
        1,
    );
    assert_eq!(
        junit_problems(&bad_time),
        ["<testsuites> timestamp=\"yesterday\" is not a timestamp"]
    );
}

/// Every junit.xml these tests render (gating and advisory suites, every
/// status, the released suite) passes junit.xsd and adds up; testcases are
/// named `<id>: <title>`, and every suite carries the run's start.
#[test]
fn junit_files_match_the_xsd() {
    let mut advisory = vectors();
    advisory[1].vector.advisory = Some("D-29".into());
    let mixed = build_from(
        "agent-hooks/0.1",
        &advisory,
        &outcomes(&advisory, false),
        "tests/data/engine",
        false,
    );
    for r in [
        report("agent-hooks/0.1", false),
        report("agent-hooks/0.1", true),
        released_report("agent-hooks/0.1", false),
        mixed,
    ] {
        let xml = junit::render(&r).expect("junit");
        assert_eq!(junit_problems(&xml), Vec::<String>::new(), "{xml}");
        let root = parse_xml(&xml);
        for suite in &root.children {
            assert_eq!(suite.attrs["timestamp"], "2026-12-01T08:25:30Z");
            for case in &suite.children[1..] {
                let entry = r
                    .vectors
                    .iter()
                    .find(|v| case.attrs["name"] == format!("{}: {}", v.id, v.title))
                    .unwrap_or_else(|| panic!("no vector named {:?}", case.attrs["name"]));
                let want = match &entry.advisory {
                    Some(_) => format!("advisory: {}", entry.part),
                    None => entry.part.clone(),
                };
                assert_eq!(suite.attrs["name"], want);
            }
        }
    }
}

/// Upstream vectors are grouped by their real part: those that name one
/// keep it, the others (AH-CTK-001 to 074) get the part of the section they
/// cite first, so no report, JUnit suite or `--part` filter shows them as
/// `unspecified`.
#[test]
fn upstream_vectors_are_grouped_by_their_real_part() {
    let Some(dir) = crate::upstream::upstream(crate::upstream::UPSTREAM_VECTORS) else {
        return;
    };
    let vectors = load(&VectorSource::Dir(dir)).expect("upstream vectors");
    let part = |id: &str| {
        vectors
            .iter()
            .find(|v| v.vector.id == id)
            .unwrap_or_else(|| panic!("{id}"))
            .vector
            .part()
            .to_owned()
    };
    for v in &vectors {
        assert_ne!(v.vector.part(), "unspecified", "{}", v.vector.id);
        if let Some(own) = &v.vector.part {
            assert_eq!(v.vector.part(), own, "{}", v.vector.id);
        }
    }
    for (id, want) in [
        ("AH-CTK-001", "context/points"),
        ("AH-CTK-003", "context/points"),
        ("AH-CTK-010", "enforcement/points"),
        ("AH-CTK-074", "enforcement/points"),
        ("AH-CTK-020", "transform/targets"),
        ("AH-CTK-022", "transform/targets"),
        ("AH-CTK-040", "enforcement/evaluate_only"),
        ("AH-CTK-060", "composition/sequential_first_deny"),
        ("AH-CTK-070", "fail_closed/interceptor_failure"),
        ("AH-CTK-071", "verdict/gate"),
        ("AH-CTK-030", "approval_seam"),
    ] {
        assert_eq!(part(id), want, "{id}");
    }
    let outcomes: Vec<VectorOutcome> = vectors
        .iter()
        .map(|v| VectorOutcome::from_failures(&v.vector.id, vec![], Duration::ZERO))
        .collect();
    let r = build_from("agent-hooks/0.1", &vectors, &outcomes, "upstream", false);
    let xml = junit::render(&r).expect("junit");
    assert!(!xml.contains("unspecified"), "{xml}");
    assert_eq!(junit_problems(&xml), Vec::<String>::new());
}

/// Host-supplied text with characters XML 1.0 cannot carry (a host's
/// output may hold any) still makes a well-formed junit.xml.
#[test]
fn junit_survives_control_characters() {
    let mut r = report("agent-hooks/0.1", false);
    r.host.name = "evil\u{1}<&\"\u{1b}[31m".into();
    r.vectors.held_mut()[2].reason = "bell\u{7} and ]]> end".into();
    let xml = junit::render(&r).expect("junit");
    assert_eq!(junit_problems(&xml), Vec::<String>::new());
    assert!(!xml.contains('\u{1}') && !xml.contains('\u{7}'), "{xml}");
    assert!(
        xml.contains("evil\u{FFFD}&lt;&amp;&quot;\u{FFFD}[31m"),
        "{xml}"
    );
}

/// The released suite as it is: with every gating vector passing and every
/// advisory one failing, the run exits 0 and backs a claim whose row counts
/// the gating vectors only.
#[test]
fn the_released_suite_is_claimable_with_every_advisory_vector_failing() {
    let vectors = released();
    let advisory = vectors
        .iter()
        .filter(|v| v.vector.advisory.is_some())
        .count();
    assert!(advisory > 0, "the released suite has advisory vectors");
    let outcomes: Vec<VectorOutcome> = vectors
        .iter()
        .map(|v| {
            let failures = match v.vector.advisory {
                Some(_) => vec![AssertionFailure::message("run_outcome", "differs")],
                None => vec![],
            };
            VectorOutcome::from_failures(&v.vector.id, failures, Duration::ZERO)
        })
        .collect();
    let r = build_from(
        "agent-hooks/0.1",
        &vectors,
        &outcomes,
        "embedded:0.1",
        false,
    );
    assert_eq!(r.advisory_totals.fail, advisory);
    assert_eq!(r.totals.fail, 0);
    assert_eq!(ctk::cli::run::exit_code_for(&r), ctk::exit_code::SUCCESS);
    assert_eq!(
        claim::refusals(&r, &[], ctk::set::released),
        Vec::<String>::new()
    );
    let gating = vectors.len() - advisory;
    assert!(
        claim::row(&r).contains(&format!(" | {gating}/{gating} | ")),
        "{}",
        claim::row(&r)
    );
}

/// Every embedded vector marked advisory names a decision that its spec's
/// DECISIONS.md records (as a table row or a paragraph opening with the id) (a draft vector may name one of the 0.1 file too,
/// which the draft extends).
#[test]
fn every_advisory_vector_names_a_recorded_decision() {
    let decisions = |spec: &str| -> Vec<String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../spec")
            .join(spec)
            .join("DECISIONS.md");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // A decision is a table row (`| D-29 | ...`) or a paragraph that
        // opens with its id (`D-60 (new, taken here). ...`).
        text.lines()
            .map(|l| l.strip_prefix("| ").unwrap_or(l))
            .filter_map(|l| l.split([' ', '|', '(', ':', '.']).next())
            .map(str::to_owned)
            .collect()
    };
    let released_decisions = decisions("0.1");
    let mut draft_decisions = decisions("draft");
    draft_decisions.extend(released_decisions.iter().cloned());
    for (spec, known) in [
        (SpecVersion::V0_1, &released_decisions),
        (SpecVersion::Draft, &draft_decisions),
    ] {
        let vectors = load(&VectorSource::Embedded(spec)).expect("embedded vectors");
        for v in &vectors {
            if let Some(d) = &v.vector.advisory {
                assert!(
                    known.contains(d),
                    "{} names {d}, which spec/{}/DECISIONS.md does not record",
                    v.vector.id,
                    spec.as_str()
                );
            }
        }
    }
}
