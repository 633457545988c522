//! `ReferenceHost` through the `Harness` trait: handshake, setup refusals,
//! and the failure mappings the runner's replies must produce.

use ctk_harness_protocol::{
    Composition, Harness, InterceptorBinding, Knob, Profile, RunOutcome, VectorSetup,
};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use ctk_reference_host::{ReferenceHost, HOST_DECLARATION};

use crate::driver::{load, prepare, run, run_vector};

fn record_at<'a>(records: &'a [Value], point: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["interception_point"] == point)
        .expect("record at point")
}

#[tokio::test]
async fn info_names_both_versions_and_the_declaration() {
    let info = ReferenceHost::new().info().await.expect("info");
    assert_eq!(
        info.spec_versions,
        vec!["agent-hooks/0.1", "agent-hooks/draft"]
    );
    let declared: Value = serde_json::from_str(HOST_DECLARATION).expect("json");
    assert_eq!(info.declaration, Some(declared));
}

#[tokio::test]
async fn a_raised_interceptor_is_interceptor_failed() {
    let (record, _, _) = run_vector("AH-CTK-070").await;
    assert_eq!(
        record_at(&record.records, "pre_tool_call")["verdict"]["reason"],
        "host_error:interceptor_failed"
    );
    let (record, _, _) = run_vector("AH-CTK-094").await;
    let pre = record_at(&record.records, "pre_tool_call");
    assert_eq!(pre["verdict"]["reason"], "host_error:interceptor_failed");
    assert_eq!(pre["decided_by"], 1);
}

#[tokio::test]
async fn a_raised_resolver_is_approval_resolver_failed() {
    let (record, _, _) = run_vector("AH-CTK-073").await;
    assert_eq!(
        record_at(&record.records, "pre_tool_call")["verdict"]["reason"],
        "host_error:approval_resolver_failed"
    );
}

#[tokio::test]
async fn a_silent_interceptor_times_out_at_the_configured_limit() {
    let v = load("AH-CTK-070");
    let (mut setup, _) = prepare(&v);
    setup.interceptor_timeout_ms = Some(20);
    let mut v2 = v;
    v2.doc["interceptor_script"] = json!([{"at": "pre_tool_call", "fault": "hang"}]);
    let (_, script) = prepare(&v2);
    let record = run(setup, script).await;
    assert_eq!(record.outcome, RunOutcome::Completed);
    assert_eq!(
        record_at(&record.records, "pre_tool_call")["verdict"]["reason"],
        "host_error:interceptor_timeout"
    );
}

#[tokio::test]
async fn run_all_failed_fold_reports_truncation_through_the_host() {
    let (record, _, _) = run_vector("AH-CTK-102").await;
    let pre = record_at(&record.records, "pre_tool_call");
    assert_eq!(pre["fold_truncated"], true);
    assert_eq!(pre["verdicts"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn stamps_mode_profile_and_per_point_counts() {
    let (record, _, _) = run_vector("AH-CTK-087").await;
    let pre = record_at(&record.records, "pre_tool_call");
    assert_eq!(
        pre["composition"],
        json!({"profile": "parallel/unanimous", "on_disagreement": "deny"})
    );
    assert_eq!(pre["interceptors_registered"], 2);
    assert!(pre.get("fold_truncated").is_none());
}

fn minimal_setup() -> VectorSetup {
    let scenario = RawValue::from_string(r#"{"input": {"content": "hi", "role": "user"},
        "model_script": [{"respond": {"content": "ok", "tool_calls": [], "finish_reason": "stop"}}]}"#.into()).expect("raw");
    let mut s = VectorSetup::new("T-1", "agent-hooks/0.1", scenario);
    s.interceptors = vec![InterceptorBinding::everywhere()];
    s
}

#[tokio::test]
async fn setup_refuses_what_the_host_cannot_honour() {
    let mut host = ReferenceHost::new();
    let mut s = minimal_setup();
    s.spec = "agent-hooks/9.9".into();
    assert!(host.setup(s).await.is_err());
    let mut s = minimal_setup();
    s.identity_provider = Some("unregistered".into());
    assert!(host.setup(s).await.is_err());
    let mut s = minimal_setup();
    s.composition = Composition {
        profile: Profile::SequentialRunAll,
        on_approval: None,
        on_disagreement: Some(Knob::Deny),
        on_transform_conflict: None,
    };
    assert!(
        host.setup(s).await.is_err(),
        "an unconsulted knob is refused, not cleared"
    );
    assert!(host.setup(minimal_setup()).await.is_ok());
}

#[tokio::test]
async fn a_refused_declaration_is_a_load_outcome_never_a_run() {
    let v = load("AH-CTK-003");
    let (_, script) = prepare(&v);
    let mut s = minimal_setup();
    s.declaration = Some(json!({"declaration": "agent-hooks-declaration/1.1",
        "spec": "agent-hooks/0.1", "bindings": []}));
    let record = run(s, script.clone()).await;
    let load = record.load.expect("load outcome");
    assert_eq!(
        load.class.as_deref(),
        Some("declaration_error:version_unsupported")
    );
    assert_eq!(load.paths_equivalent, Some(true));
    assert!(record.records.is_empty());
    assert!(script.seen.lock().expect("lock").is_empty());
}

#[tokio::test]
async fn draft_runs_emit_draft_contexts() {
    let mut s = minimal_setup();
    s.spec = "agent-hooks/draft".into();
    let v = load("AH-CTK-003");
    let (_, script) = prepare(&v);
    let record = run(s, script.clone()).await;
    assert_eq!(record.outcome, RunOutcome::Completed);
    let seen = script.seen.lock().expect("lock").clone();
    assert!(seen.iter().all(|c| c["spec"] == "agent-hooks/draft"));
}

#[tokio::test]
async fn evaluate_only_records_failures_and_proceeds() {
    let v = load("AH-CTK-096");
    let (mut setup, script) = prepare(&v);
    setup.mode = ctk_harness_protocol::Mode::EvaluateOnly;
    let record = run(setup, script).await;
    assert_eq!(record.outcome, RunOutcome::Completed);
    let startup = record_at(&record.records, "agent_startup");
    assert_eq!(startup["verdict"]["reason"], "host_error:context_invalid");
    assert_eq!(startup["mode"], "evaluate_only");
    assert_eq!(record.tool_invocations.len(), 1);
}
