//! `ReferenceHost` through the `HostAdapter` trait: handshake, setup refusals,
//! and the failure mappings the runner's replies must produce.

use ctk_agent_hooks_adapter::{
    Composition, DeclarationFileFault, HostAdapter, InterceptorBinding, Knob, OnApproval, Profile,
    RunOutcome, VectorSetup,
};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use ctk_agent_hooks_reference_host::declaration::kinds::{with_reference_kinds, ALLOW_ALL};
use ctk_agent_hooks_reference_host::declaration::{
    HostRegistry, HostSurface, Loader, RefusalClass,
};
use ctk_agent_hooks_reference_host::host_adapter::{
    load_on_every_path, load_source, load_text_on_every_path, DocumentSource,
};
use ctk_agent_hooks_reference_host::{ReferenceHost, HOST_DECLARATION};

use crate::support::{run, tool_setup, Act, Scripted};

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
    let script = Scripted::new(vec![vec![("pre_tool_call", Act::Raise)]]);
    let record = run(tool_setup(1), script).await;
    assert_eq!(
        record_at(&record.records, "pre_tool_call")["verdict"]["reason"],
        "host_error:interceptor_failed"
    );
    assert!(record.tool_invocations.is_empty());
    // The second of two raises: the failure is attributed to it.
    let script = Scripted::new(vec![
        vec![("pre_tool_call", Act::Verdict(json!({"decision": "allow"})))],
        vec![("pre_tool_call", Act::Raise)],
    ]);
    let mut setup = tool_setup(2);
    setup.composition = Composition {
        profile: Profile::SequentialFirstDeny,
        on_approval: Some(OnApproval::Stop),
        on_disagreement: None,
        on_transform_conflict: None,
    };
    let record = run(setup, script).await;
    let pre = record_at(&record.records, "pre_tool_call");
    assert_eq!(pre["verdict"]["reason"], "host_error:interceptor_failed");
    assert_eq!(pre["decided_by"], 1);
}

#[tokio::test]
async fn a_raised_resolver_is_approval_resolver_failed() {
    let liftable = json!({"decision": "deny", "reason": "ctk:requires_approval", "approval": {}});
    let script = Scripted::raising_resolver(vec![vec![("pre_tool_call", Act::Verdict(liftable))]]);
    let mut setup = tool_setup(1);
    setup.approval_resolver = true;
    let record = run(setup, script).await;
    assert_eq!(
        record_at(&record.records, "pre_tool_call")["verdict"]["reason"],
        "host_error:approval_resolver_failed"
    );
    assert!(record.tool_invocations.is_empty());
}

#[tokio::test]
async fn a_silent_interceptor_times_out_at_the_configured_limit() {
    let mut setup = tool_setup(1);
    setup.interceptor_timeout_ms = Some(20);
    let script = Scripted::new(vec![vec![("pre_tool_call", Act::Hang)]]);
    let record = run(setup, script).await;
    assert_eq!(record.outcome, RunOutcome::Completed);
    assert_eq!(
        record_at(&record.records, "pre_tool_call")["verdict"]["reason"],
        "host_error:interceptor_timeout"
    );
}

#[tokio::test]
async fn run_all_failed_fold_reports_truncation_through_the_host() {
    let bad = json!({"decision": "transform", "transform": {"path": "$target.missing.deep.path", "value": "x"}});
    let script = Scripted::new(vec![
        vec![("pre_tool_call", Act::Verdict(bad))],
        vec![(
            "pre_tool_call",
            Act::Verdict(json!({"decision": "allow", "reason": "ctk:should-not-run"})),
        )],
    ]);
    let mut setup = tool_setup(2);
    setup.composition = Composition {
        profile: Profile::SequentialRunAll,
        on_approval: None,
        on_disagreement: None,
        on_transform_conflict: None,
    };
    let record = run(setup, script).await;
    let pre = record_at(&record.records, "pre_tool_call");
    assert_eq!(pre["fold_truncated"], true);
    assert_eq!(pre["verdicts"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn stamps_mode_profile_and_per_point_counts() {
    let t = json!({"decision": "transform", "transform": {"path": "$target.url", "value": "x"}});
    let script = Scripted::new(vec![
        vec![("pre_tool_call", Act::Verdict(json!({"decision": "allow"})))],
        vec![("pre_tool_call", Act::Verdict(t))],
    ]);
    let mut setup = tool_setup(2);
    setup.composition = Composition {
        profile: Profile::ParallelUnanimous,
        on_approval: None,
        on_disagreement: Some(Knob::Deny),
        on_transform_conflict: None,
    };
    let record = run(setup, script).await;
    let pre = record_at(&record.records, "pre_tool_call");
    assert_eq!(
        pre["composition"],
        json!({"profile": "parallel/unanimous", "on_disagreement": "deny"})
    );
    assert_eq!(pre["interceptors_registered"], 2);
    assert_eq!(pre["mode"], "enforce");
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
    let script = Scripted::new(vec![vec![]]);
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
    assert!(script.seen().is_empty());
}

#[tokio::test]
async fn draft_runs_emit_draft_contexts() {
    let mut s = minimal_setup();
    s.spec = "agent-hooks/draft".into();
    let script = Scripted::new(vec![vec![]]);
    let record = run(s, script.clone()).await;
    assert_eq!(record.outcome, RunOutcome::Completed);
    let seen = script.seen();
    assert!(seen.iter().all(|c| c["spec"] == "agent-hooks/draft"));
}

#[tokio::test]
async fn evaluate_only_records_failures_and_proceeds() {
    let script = Scripted::new(vec![vec![(
        "pre_tool_call",
        Act::Verdict(json!({"decision": "allow", "reason": "ctk:should-not-run"})),
    )]]);
    let mut setup = tool_setup(1);
    setup.identity_provider = Some("ctk-fault".into());
    setup.mode = ctk_agent_hooks_adapter::Mode::EvaluateOnly;
    let record = run(setup, script).await;
    assert_eq!(record.outcome, RunOutcome::Completed);
    let startup = record_at(&record.records, "agent_startup");
    assert_eq!(startup["verdict"]["reason"], "host_error:context_invalid");
    assert_eq!(startup["mode"], "evaluate_only");
    assert_eq!(record.tool_invocations.len(), 1);
}

/// A document the reference host accepts, bound to script 0.
fn scripted_document() -> Value {
    json!({"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
           "bindings": [{"id": "guard", "kind": "ctk.scripted", "config": {"script": 0}}]})
}

/// What each file fault's refusal says, so that each is refused for its own
/// reason and not, say, because the file was never written.
const FAULT_DETAIL: [(DeclarationFileFault, &str); 5] = [
    (DeclarationFileFault::Missing, "cannot stat"),
    (DeclarationFileFault::Directory, "not a regular file"),
    (DeclarationFileFault::Bom, "byte-order mark"),
    (DeclarationFileFault::InvalidUtf8, "not valid UTF-8"),
    (DeclarationFileFault::Oversized, "larger than 1 MiB"),
];

#[tokio::test]
async fn every_file_fault_is_unreadable_through_the_file_path_alone() {
    let script = Scripted::new(vec![vec![]]);
    // The document itself loads: the fault alone is what gets refused.
    let mut s = minimal_setup();
    s.declaration = Some(scripted_document());
    let record = run(s, script.clone()).await;
    let load = record.load.expect("load outcome");
    assert_eq!(
        serde_json::to_value(&load).expect("json")["outcome"],
        "accepted"
    );
    script.seen.lock().expect("lock").clear();
    assert_eq!(FAULT_DETAIL.len(), DeclarationFileFault::ALL.len());
    for (fault, why) in FAULT_DETAIL {
        for text in [false, true] {
            let mut s = minimal_setup();
            if text {
                s.declaration_text = Some(scripted_document().to_string());
            } else {
                s.declaration = Some(scripted_document());
            }
            s.declaration_file = Some(fault);
            let record = run(s, script.clone()).await;
            assert_eq!(record.outcome, RunOutcome::Error, "{fault:?}");
            let load = record.load.expect("load outcome");
            assert_eq!(
                load.class.as_deref(),
                Some("declaration_error:unreadable"),
                "{fault:?}"
            );
            assert_eq!(load.paths_equivalent, Some(true), "{fault:?}");
            let error = record.error.expect("error text");
            assert!(error.contains(why), "{fault:?}: {error}");
            assert!(record.records.is_empty(), "{fault:?}");
            assert!(script.seen().is_empty(), "{fault:?}");
        }
    }
    // missing and directory need no document at all.
    for fault in [
        DeclarationFileFault::Missing,
        DeclarationFileFault::Directory,
    ] {
        let mut s = minimal_setup();
        s.declaration_file = Some(fault);
        let record = run(s, script.clone()).await;
        let load = record.load.expect("load outcome");
        assert_eq!(load.class.as_deref(), Some("declaration_error:unreadable"));
    }
}

#[tokio::test]
async fn text_the_value_path_cannot_carry_is_refused_as_malformed() {
    let script = Scripted::new(vec![vec![]]);
    for text in [
        r#"{"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1", "bindings": [], "bindings": []}"#.to_owned(),
        format!("{} {{}}", scripted_document()),
        "null".to_owned(),
    ] {
        let mut s = minimal_setup();
        s.declaration_text = Some(text.clone());
        let record = run(s, script.clone()).await;
        let load = record.load.expect("load outcome");
        assert_eq!(
            load.class.as_deref(),
            Some("declaration_error:malformed"),
            "{text}"
        );
        assert_eq!(load.paths_equivalent, Some(true), "{text}: {:?}", load.detail);
        assert!(record.records.is_empty());
    }
    // Text that loads runs like the value it holds.
    let mut s = minimal_setup();
    s.declaration_text = Some(scripted_document().to_string());
    let record = run(s, script.clone()).await;
    assert_eq!(record.outcome, RunOutcome::Completed);
    assert!(!record.records.is_empty());
}

fn registry() -> HostRegistry {
    with_reference_kinds(HostRegistry::new(HostSurface::reference())).expect("registry")
}

fn allow_all() -> Value {
    json!({"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
           "bindings": [{"id": "allow", "kind": ALLOW_ALL}]})
}

/// paths_equivalent compares only the paths that apply: a builder writes
/// only objects, and text a value cannot represent has no value path.
#[test]
fn only_the_paths_that_apply_are_compared() {
    let r = registry();
    let l = Loader::new(&r);
    let refused = |o: &ctk_agent_hooks_reference_host::host_adapter::PathsOutcome| {
        o.loaded.as_ref().map(|_| ()).expect_err("refused").class
    };
    let o = load_on_every_path(&l, &allow_all());
    assert_eq!(o.paths, ["value", "file", "text", "builder"]);
    assert!(o.loaded.is_ok() && o.equivalent, "{:?}", o.detail);
    for root in [
        json!([allow_all()]),
        json!(allow_all().to_string()),
        json!(3),
    ] {
        let o = load_on_every_path(&l, &root);
        assert_eq!(o.paths, ["value", "file", "text"], "{root}");
        assert_eq!(refused(&o), RefusalClass::Malformed, "{root}");
        assert!(o.equivalent, "{root}: {:?}", o.detail);
    }
    let mut deep = json!({});
    for _ in 0..31 {
        deep = json!({ "n": deep });
    }
    let mut doc = allow_all();
    doc["extensions"] = json!({ "deep": deep });
    let o = load_on_every_path(&l, &doc);
    assert_eq!(o.paths.len(), 4);
    assert_eq!(refused(&o), RefusalClass::Malformed);
    assert!(o.equivalent, "{:?}", o.detail);

    let o = load_text_on_every_path(&l, &allow_all().to_string());
    assert_eq!(o.paths, ["text", "file", "value", "builder"]);
    assert!(o.loaded.is_ok() && o.equivalent, "{:?}", o.detail);
    let o = load_text_on_every_path(&l, "[1, 2]");
    assert_eq!(o.paths, ["text", "file", "value"]);
    assert_eq!(refused(&o), RefusalClass::Malformed);
    assert!(o.equivalent, "{:?}", o.detail);
    for text in [
        r#"{"declaration": "agent-hooks-declaration/1.0", "declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1", "bindings": []}"#.to_owned(),
        format!("{} []", allow_all()),
        allow_all().to_string().trim_end_matches('}').to_owned(),
    ] {
        let o = load_text_on_every_path(&l, &text);
        assert_eq!(o.paths, ["text", "file"], "{text}");
        assert_eq!(refused(&o), RefusalClass::Malformed, "{text}");
        assert!(o.equivalent, "{text}");
    }

    for fault in DeclarationFileFault::ALL {
        let o = load_source(
            &l,
            &DocumentSource::File(fault, Some(allow_all().to_string())),
        );
        assert_eq!(o.paths, ["file"], "{fault:?}");
        assert_eq!(refused(&o), RefusalClass::Unreadable, "{fault:?}");
        assert!(o.equivalent);
    }
    // A fault with contents but no document text is still unreadable.
    let o = load_source(&l, &DocumentSource::File(DeclarationFileFault::Bom, None));
    assert_eq!(refused(&o), RefusalClass::Unreadable);
}

#[test]
fn the_setup_names_the_document_source() {
    let mut s = minimal_setup();
    assert_eq!(DocumentSource::of(&s), None);
    s.declaration = Some(allow_all());
    assert_eq!(
        DocumentSource::of(&s),
        Some(DocumentSource::Value(allow_all()))
    );
    s.declaration_file = Some(DeclarationFileFault::Bom);
    assert_eq!(
        DocumentSource::of(&s),
        Some(DocumentSource::File(
            DeclarationFileFault::Bom,
            Some(allow_all().to_string())
        ))
    );
    s.declaration = None;
    s.declaration_text = Some("{} {}".into());
    assert_eq!(
        DocumentSource::of(&s),
        Some(DocumentSource::File(
            DeclarationFileFault::Bom,
            Some("{} {}".into())
        ))
    );
    s.declaration_file = None;
    assert_eq!(
        DocumentSource::of(&s),
        Some(DocumentSource::Text("{} {}".into()))
    );
}

fn surface_document(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("surfaces")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("surface file")).expect("json")
}

/// A reference host on a surface of its own (§3.2) states that document and
/// emits only its points: as a tool router the tool runs and no model point
/// is emitted; as a floor host no model and no tool point is.
#[tokio::test]
async fn a_reference_host_on_a_narrower_surface_emits_only_its_points() {
    for (name, expected) in [
        (
            "tool-router",
            vec![
                "agent_startup",
                "input",
                "pre_tool_call",
                "post_tool_call",
                "output",
                "agent_shutdown",
            ],
        ),
        (
            "model",
            vec![
                "agent_startup",
                "input",
                "pre_model_call",
                "post_model_call",
                "output",
                "agent_shutdown",
            ],
        ),
    ] {
        let document = surface_document(name);
        let mut host = ReferenceHost::with_declaration(document.clone()).expect(name);
        assert_eq!(host.info().await.expect("info").declaration, Some(document));
        let mut setup = VectorSetup::new(
            "T-SURFACE",
            "agent-hooks/0.1",
            RawValue::from_string(
                json!({"input": {"content": "go", "role": "user"},
                  "tools": [{"name": "t", "behavior": [{"return": "R"}]}],
                  "model_script": [
                    {"respond": {"content": null, "finish_reason": "tool_calls",
                      "tool_calls": [{"id": "1", "name": "t", "args": {}}]}},
                    {"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}]})
                .to_string(),
            )
            .expect("raw"),
        );
        setup.interceptors = vec![InterceptorBinding::everywhere()];
        host.setup(setup).await.expect("setup");
        let record = host.run(Scripted::new(vec![vec![]])).await.expect("run");
        host.teardown().await.expect("teardown");
        let points: Vec<&str> = record
            .records
            .iter()
            .map(|r| r["interception_point"].as_str().unwrap_or_default())
            .collect();
        if name == "model" {
            // A host without tools is never given a tool call by a vector
            // that applies to it; this one fails as a host error.
            assert_eq!(record.outcome, RunOutcome::Error, "{name}");
            assert_eq!(
                points,
                [
                    "agent_startup",
                    "input",
                    "pre_model_call",
                    "post_model_call",
                    "agent_shutdown"
                ]
            );
        } else {
            assert_eq!(record.outcome, RunOutcome::Completed, "{name}");
            assert_eq!(points, expected, "{name}");
        }
    }
    let floor = ReferenceHost::with_declaration(surface_document("floor"));
    assert!(floor.is_ok());
}

/// A surface the reference code lacks, or a capability without its points,
/// is refused when the host is built, not discovered by a vector.
#[tokio::test]
async fn a_surface_the_reference_host_cannot_run_as_is_refused() {
    let mut document = surface_document("floor");
    document["surface"]["capabilities"] = json!(["model_calls"]);
    let refused = ReferenceHost::with_declaration(document).expect_err("capability without points");
    assert!(refused.contains("model_calls"), "{refused}");
    let mut document = surface_document("floor");
    document["surface"]["interception_points"] = json!(["input", "output", "agent_shutdown"]);
    assert!(ReferenceHost::with_declaration(document).is_err());
}
