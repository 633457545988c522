//! Each of the fourteen reserved reasons, produced by a real emission and
//! asserted on the record the emitter wrote.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use ctk_agent_hooks_reference_host::compose::dispatch::{InterceptorAnswer, Registration};
use ctk_agent_hooks_reference_host::compose::profile::{Composition, Knob, Mode};
use ctk_agent_hooks_reference_host::point::Point;
use ctk_agent_hooks_reference_host::reason::ReservedReason;
use ctk_agent_hooks_reference_host::seam::approval::ResolverAnswer;

use crate::support::{
    approving, builder, fields_for, returning, tool_fields, with_fn, FnResolver, Hang,
    RaisingRedactor,
};
use crate::upstream::upstream;

fn reason(record: &Value) -> &str {
    record["verdict"]["reason"].as_str().unwrap_or_default()
}

const LIFTABLE: &str = r#"{"decision": "deny", "reason": "ctk:needs", "approval": {}}"#;

fn liftable() -> Value {
    serde_json::from_str(LIFTABLE).expect("json")
}

/// The reason ids a reserved-reasons document lists, in order.
fn listed(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("json");
    doc["reasons"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect()
}

fn ours() -> Vec<String> {
    ReservedReason::ALL
        .iter()
        .map(|r| r.as_str().to_owned())
        .collect()
}

#[test]
fn the_enum_lists_exactly_the_project_reserved_reasons() {
    let project =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec/reserved-reasons.json");
    // The project file orders by section 11's table; the enum by emission
    // path. The set is the fact.
    let mut ours = ours();
    let mut listed = listed(&project);
    ours.sort();
    listed.sort();
    assert_eq!(ours, listed);
    assert_eq!(ours.len(), 14);
}

#[test]
fn the_enum_lists_exactly_the_upstream_reserved_reasons() {
    let Some(path) = upstream("agent-hooks/spec/reserved-reasons.json") else {
        return;
    };
    assert_eq!(ours(), listed(&path));
}

#[tokio::test]
async fn context_invalid_when_the_envelope_fails_and_nothing_is_dispatched() {
    let (b, calls) = with_fn(builder(), |_| {
        InterceptorAnswer::Returned(json!({"decision": "allow"}))
    });
    let e = b.build();
    let mut ctx = e.context(Point::PreToolCall, tool_fields(json!({})));
    ctx.as_object_mut().expect("object").remove("tool_call");
    let out = e.emit(ctx).await;
    assert!(!out.proceed);
    assert_eq!(reason(&out.record), "host_error:context_invalid");
    assert_eq!(out.record["input_identity"], Value::Null);
    assert_eq!(out.record["enforced_identity"], Value::Null);
    assert_eq!(out.record["decided_by"], Value::Null);
    assert!(out.record.get("verdicts").is_none());
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[tokio::test]
async fn interceptor_failed_when_it_raises() {
    let (b, _) = with_fn(builder(), |_| InterceptorAnswer::Raised);
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(reason(&out.record), "host_error:interceptor_failed");
    assert_eq!(out.record["decided_by"], 0);
}

#[tokio::test]
async fn interceptor_timeout_when_it_never_answers() {
    let e = builder()
        .interceptor(Registration::everywhere(Arc::new(Hang)))
        .interceptor_timeout(Some(Duration::from_millis(10)))
        .build();
    let out = e.emit_fields(Point::Output).await;
    assert_eq!(reason(&out.record), "host_error:interceptor_timeout");
    assert_eq!(out.record["decided_by"], 0);
    assert!(!out.proceed);
}

#[tokio::test]
async fn verdict_invalid_when_the_gate_refuses() {
    let out = returning(builder(), json!({"decision": "maybe"}))
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(reason(&out.record), "host_error:verdict_invalid");
    assert_eq!(
        out.record["verdicts"][0]["reason"],
        "host_error:verdict_invalid"
    );
}

#[tokio::test]
async fn transform_invalid_when_the_path_does_not_resolve() {
    let t = json!({"decision": "transform", "transform": {"path": "$target.missing", "value": 1}});
    let out = returning(builder(), t)
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(reason(&out.record), "host_error:transform_invalid");
    assert_eq!(out.record["decided_by"], Value::Null);
}

#[tokio::test]
async fn transform_target_forbidden_at_startup() {
    let t = json!({"decision": "transform", "transform": {"path": "$target.tools_registered", "value": []}});
    let out = returning(builder(), t)
        .build()
        .emit_fields(Point::AgentStartup)
        .await;
    assert_eq!(reason(&out.record), "host_error:transform_target_forbidden");
    assert!(!out.proceed);
}

#[tokio::test]
async fn transform_conflict_under_strictest_deny() {
    let b = builder().composition(Composition::Strictest {
        on_transform_conflict: Knob::Deny,
    });
    let b = returning(
        b,
        json!({"decision": "transform", "transform": {"path": "$target.content", "value": "a"}}),
    );
    let b = returning(
        b,
        json!({"decision": "transform", "transform": {"path": "$target.content", "value": "b"}}),
    );
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(reason(&out.record), "host_error:transform_conflict");
    assert_eq!(out.record["decided_by"], Value::Null);
    assert!(out.record.get("fold_truncated").is_none());
}

#[tokio::test]
async fn composition_disagreement_under_unanimous_deny() {
    let b = builder().composition(Composition::Unanimous {
        on_disagreement: Knob::Deny,
    });
    let b = returning(b, json!({"decision": "allow"}));
    let b = returning(b, json!({"decision": "deny", "reason": "ctk:no"}));
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(reason(&out.record), "host_error:composition_disagreement");
    assert_eq!(out.record["verdicts"][1]["reason"], "ctk:no");
}

#[tokio::test]
async fn approval_resolver_failed_when_the_resolver_raises() {
    let b = returning(builder(), liftable())
        .approval_resolver(Arc::new(FnResolver(|_: &Value| ResolverAnswer::Raised)));
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(reason(&out.record), "host_error:approval_resolver_failed");
    assert_eq!(out.record["resolved_by"], "rejection");
}

#[tokio::test]
async fn approval_resolver_failed_when_the_redactor_raises() {
    let b = returning(builder(), liftable())
        .approval_resolver(approving(json!({"decision": "allow"})))
        .redactor(Arc::new(RaisingRedactor));
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(reason(&out.record), "host_error:approval_resolver_failed");
    assert_eq!(out.record["resolved_by"], "rejection");
}

#[tokio::test]
async fn approval_resolver_failed_when_the_resolver_times_out() {
    struct Slow;
    impl ctk_agent_hooks_reference_host::seam::approval::ApprovalResolver for Slow {
        fn resolve(
            &self,
            _r: Value,
        ) -> ctk_agent_hooks_reference_host::compose::dispatch::BoxFuture<ResolverAnswer> {
            Box::pin(std::future::pending())
        }
    }
    let b = returning(builder(), liftable())
        .approval_resolver(Arc::new(Slow))
        .approval_timeout(Some(Duration::from_millis(10)));
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(reason(&out.record), "host_error:approval_resolver_failed");
}

#[tokio::test]
async fn approval_unresolved_when_the_resolver_cannot_decide() {
    let r = FnResolver(|req: &Value| {
        ResolverAnswer::Resolution(
            json!({"outcome": "unresolved", "context_identity": req["context_identity"]}),
        )
    });
    let out = returning(builder(), liftable())
        .approval_resolver(Arc::new(r))
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(reason(&out.record), "host_error:approval_unresolved");
    assert_eq!(out.record["resolved_by"], "rejection");
    assert_eq!(out.record["decided_by"], 0);
}

#[tokio::test]
async fn approval_identity_mismatch_when_the_echo_differs() {
    let r = FnResolver(|_: &Value| {
        ResolverAnswer::Resolution(
            json!({"outcome": "approve", "context_identity": "sha256:00", "verdict": {"decision": "allow"}}),
        )
    });
    let out = returning(builder(), liftable())
        .approval_resolver(Arc::new(r))
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(reason(&out.record), "host_error:approval_identity_mismatch");
    assert!(!out.proceed);
}

#[tokio::test]
async fn adapter_unsupported_at_a_point_outside_the_surface() {
    let surface = [
        Point::AgentStartup,
        Point::Input,
        Point::PreModelCall,
        Point::PostModelCall,
        Point::Output,
        Point::AgentShutdown,
    ];
    let e = returning(builder(), json!({"decision": "allow"}))
        .surface(surface)
        .build();
    let out = e.emit_fields(Point::PreToolCall).await;
    assert_eq!(reason(&out.record), "host_error:adapter_unsupported");
    assert!(!out.proceed);
    assert_eq!(out.record["interception_point"], "pre_tool_call");
}

#[tokio::test]
async fn no_interceptor_in_both_modes() {
    let out = builder().build().emit_fields(Point::Output).await;
    assert_eq!(reason(&out.record), "host_error:no_interceptor");
    assert!(!out.proceed);
    let out = builder()
        .mode(Mode::EvaluateOnly)
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(reason(&out.record), "host_error:no_interceptor");
    assert_eq!(out.record["mode"], "evaluate_only");
    assert!(out.proceed, "evaluate_only proceeds");
}

#[tokio::test]
async fn streaming_unsupported_for_unevaluated_residue() {
    let e = returning(builder(), json!({"decision": "allow"})).build();
    let ctx = e.context(Point::PostModelCall, {
        let mut m = serde_json::Map::new();
        m.insert("model".into(), json!({"id": "mock"}));
        m.insert(
            "response".into(),
            json!({"content": "part", "tool_calls": [], "finish_reason": "stream_incomplete"}),
        );
        m
    });
    let out = e
        .emit_self_denied(ctx, ReservedReason::StreamingUnsupported)
        .await;
    assert_eq!(reason(&out.record), "host_error:streaming_unsupported");
    assert!(out.record["input_identity"].is_string());
    assert!(!out.proceed);
}

/// Emit the trivial context of a point.
pub(crate) trait EmitFields {
    async fn emit_fields(&self, point: Point) -> ctk_agent_hooks_reference_host::Emitted;
}

impl EmitFields for ctk_agent_hooks_reference_host::Emitter {
    async fn emit_fields(&self, point: Point) -> ctk_agent_hooks_reference_host::Emitted {
        self.emit(self.context(point, fields_for(point))).await
    }
}
