//! The claim rules against real declarations and the released Agent Hooks
//! suite: the unit tests pinning the claim clauses of the catalog (10.1-e,
//! 12.1a-c, 12.1a-d, 13-a, 13-b, 13-c, 13-e) that no vector can test. They
//! live here, beside the suites, because the report code imports none.

use std::time::Duration;

use ctk::outcome::{AssertionFailure, VectorOutcome};
use ctk::report::build::{build, RunContext};
use ctk::report::claim::*;
use ctk::report::model::{HostIdentity, Report};
use ctk::suite::{SpecVersion, Suite};
use serde_json::{json, Value};

/// A report over the released suite (the embedded 0.1 vectors, so it is
/// claimable): every vector passes, except that `fail` makes the first
/// gating one fail.
fn report(spec: &str, fail: bool, document: Value) -> Report {
    let vectors =
        ctk::set::released(Suite::AgentHooks(SpecVersion::V0_1)).expect("the released suite");
    let first_gating = vectors
        .iter()
        .position(|v| v.advisory.is_none())
        .expect("a gating vector");
    report_of(spec, document, |i, id| {
        let failures = if fail && i == first_gating {
            vec![AssertionFailure::message("run_outcome", "differs")]
        } else {
            Vec::new()
        };
        VectorOutcome::from_failures(id, failures, Duration::from_millis(1))
    })
}

/// A report over the released suite whose `i`-th vector (id `id`) came to
/// `outcome(i, id)`.
fn report_of(
    spec: &str,
    document: Value,
    outcome: impl Fn(usize, &str) -> VectorOutcome,
) -> Report {
    let vectors =
        ctk::set::released(Suite::AgentHooks(SpecVersion::V0_1)).expect("the released suite");
    let outcomes: Vec<VectorOutcome> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| outcome(i, &v.id))
        .collect();
    let surface = ctk_agent_hooks_suite::declaration::surface(&document);
    build(
        RunContext {
            spec: spec.into(),
            host: HostIdentity {
                name: "acme-agents".into(),
                version: "2.4.0".into(),
                spec_versions: vec![spec.into()],
                features: Vec::new(),
            },
            declaration_source: "host".into(),
            declaration: document,
            surface: serde_json::to_value(&surface).expect("surface"),
            vector_source: "embedded:0.1".into(),
            filtered: false,
            started_at: "2026-12-01T08:25:30Z".into(),
            total_ms: 1,
        },
        vectors,
        &outcomes,
    )
}

/// A fixed full declaration (a copy of the reference host's), so these
/// tests do not move when the reference host's surface does.
fn reference() -> Value {
    serde_json::from_str(include_str!("../data/declarations/host-full.json")).expect("json")
}

fn with(mut doc: Value, pointer: &str, value: Value) -> Value {
    if let Some(slot) = doc.pointer_mut(pointer) {
        *slot = value;
    }
    doc
}

#[test]
fn claim_states_identity_binding() {
    let unbound = with(reference(), "/configuration/identity_provider", Value::Null);
    let r = report("agent-hooks/0.1", false, unbound);
    assert!(
        row(&r).contains("identity-unbound (identity_provider null)"),
        "{}",
        row(&r)
    );
    let custom = with(
        reference(),
        "/configuration/identity_provider",
        json!("hmac-sha256-k1"),
    );
    let r = report("agent-hooks/0.1", false, custom);
    assert!(
        row(&r).contains(
            "custom identity provider hmac-sha256-k1; whether it is content-derived must be stated"
        ),
        "{}",
        row(&r)
    );
    let r = report("agent-hooks/0.1", false, reference());
    assert!(!row(&r).contains("identity-unbound"), "{}", row(&r));
}

#[test]
fn unbuffered_claim_states_no_retraction() {
    let r = report("agent-hooks/0.1", false, reference());
    assert!(
        row(&r).contains("buffered_output false: released output cannot be retracted"),
        "{}",
        row(&r)
    );
    let buffered = with(reference(), "/surface/buffered_output", json!(true));
    let r = report("agent-hooks/0.1", false, buffered);
    assert!(!row(&r).contains("cannot be retracted"), "{}", row(&r));
}

#[test]
fn incremental_claim_states_exposure_bound() {
    let bound = reference()
        .pointer("/surface/exposure_bound")
        .and_then(Value::as_str)
        .expect("the reference host states its exposure bound")
        .to_owned();
    let r = report("agent-hooks/0.1", false, reference());
    assert!(
        row(&r).contains(&format!("exposure bound: {bound}")),
        "{}",
        row(&r)
    );
}

#[test]
fn any_failure_blocks_conformance() {
    let r = report("agent-hooks/0.1", true, reference());
    assert_eq!(r.totals.fail, 1);
    assert_eq!(ctk::cli::run::exit_code_for(&r), ctk::exit_code::FAILURES);
    assert!(refusals(&r, &[], ctk::set::released).contains(&"1 vector(s) failed".to_owned()));
    let ok = report("agent-hooks/0.1", false, reference());
    assert_eq!(ctk::cli::run::exit_code_for(&ok), ctk::exit_code::SUCCESS);
    assert!(
        refusals(&ok, &[], ctk::set::released).is_empty(),
        "{:?}",
        refusals(&ok, &[], ctk::set::released)
    );
}

#[test]
fn claim_refuses_failed_report() {
    let r = report("agent-hooks/0.1", true, reference());
    assert_eq!(
        refusals(&r, &[], ctk::set::released),
        ["1 vector(s) failed"]
    );
    let implicit = {
        let mut doc = reference();
        doc.as_object_mut().map(|o| o.remove("surface"));
        report("agent-hooks/0.1", false, doc)
    };
    assert_eq!(
        refusals(&implicit, &[], ctk::set::released),
        ["the declaration does not state its surface explicitly"]
    );
}

#[test]
fn claim_row_has_every_tuple_member() {
    let terminate = with(
        reference(),
        "/configuration/posture/tool_seam_host_error",
        json!("terminate"),
    );
    let r = report("agent-hooks/0.1", false, terminate);
    let line = row(&r);
    let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
    let header: Vec<&str> = CLAIM_HEADER
        .lines()
        .next()
        .expect("header")
        .trim_matches('|')
        .split(" | ")
        .map(str::trim)
        .collect();
    assert_eq!(cells.len(), header.len(), "{line}");
    assert_eq!(
        &cells[..7],
        [
            "acme-agents",
            "2.4.0",
            "agent-hooks/0.1",
            "bigint_json, incremental_output, int64_json, model_calls, multi_turn, parallel_tool_calls, streaming, tool_calls",
            "parallel/strictest, parallel/unanimous, sequential/first_deny, sequential/run_all",
            "jcs-sha256",
            "terminate",
        ]
    );
    assert!(
        cells[7].starts_with("non-default posture: tool_seam_host_error terminate"),
        "{line}"
    );
    assert_eq!(cells[8], format!("{0}/{0}", r.totals.pass));
    assert_eq!(cells[9], format!("`{}`", r.digest));
}

#[test]
fn draft_report_refused() {
    let r = report("agent-hooks/draft", false, reference());
    assert_eq!(
        refusals(&r, &[], ctk::set::released),
        ["the report is for agent-hooks/draft; only agent-hooks/0.1 can be claimed"]
    );
    let md = ctk::report::markdown::render(&r, ctk::set::released);
    assert!(!md.contains(CLAIM_HEADER), "{md}");
}

#[test]
fn a_run_with_feature_skips_keeps_its_exit_code_and_cannot_claim() {
    let r = report_of("agent-hooks/0.1", reference(), |i, id| {
        if i < 3 {
            VectorOutcome::lacks_feature(
                id,
                "persisted-state",
                "adapter does not implement persisted-state (added in ctk 0.2.0)".into(),
            )
        } else {
            VectorOutcome::from_failures(id, Vec::new(), Duration::from_millis(1))
        }
    });
    assert_eq!(r.totals.fail + r.totals.error, 0);
    assert_eq!(ctk::cli::run::exit_code_for(&r), ctk::exit_code::SUCCESS);
    let skipped: Vec<String> = r.vectors.iter().take(3).map(|v| v.id.clone()).collect();
    assert_eq!(
        refusals(&r, &[], ctk::set::released),
        [format!(
            "3 vector(s) were skipped because the adapter does not implement persisted-state \
             ({}); a partial adapter must not claim (§13.1): implement it and announce it in \
             the handshake",
            skipped.join(", ")
        )]
    );
    // Each such skip names the clauses it left unchecked, with their text.
    for v in r.vectors.iter().take(3) {
        assert_eq!(v.adapter_feature.as_deref(), Some("persisted-state"));
        assert!(!v.clauses.is_empty(), "{} lists no clause", v.id);
    }
    assert!(r
        .vectors
        .iter()
        .skip(3)
        .all(|v| v.adapter_feature.is_none() && v.clauses.is_empty()));
}
