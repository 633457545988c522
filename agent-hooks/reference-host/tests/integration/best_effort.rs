//! Draft §6.3.1: best-effort bindings (`on_error: continue`) and the
//! reserved `host_warning:*` namespace, through the emitter; and what 0.1
//! does with the same inputs.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use ctk_agent_hooks_reference_host::compose::dispatch::{
    BindingTimeout, InterceptorAnswer, OnError, Registration,
};
use ctk_agent_hooks_reference_host::compose::profile::Composition;
use ctk_agent_hooks_reference_host::context::build::AgentIdentity;
use ctk_agent_hooks_reference_host::point::Point;
use ctk_agent_hooks_reference_host::{Emitter, EmitterBuilder, SpecVersion};

use crate::support::{fields_for, FnInterceptor, Hang};

fn who() -> AgentIdentity {
    AgentIdentity {
        agent_id: "agent-1".into(),
        framework: "reference".into(),
        session_id: "sess-b".into(),
    }
}

fn named(
    name: &str,
    on_error: OnError,
    i: Arc<dyn ctk_agent_hooks_reference_host::compose::dispatch::Interceptor>,
) -> Registration {
    Registration {
        name: Some(name.into()),
        at: None,
        timeout: BindingTimeout::After(Duration::from_millis(30)),
        on_error,
        interceptor: i,
    }
}

fn answering(
    answer: InterceptorAnswer,
) -> Arc<dyn ctk_agent_hooks_reference_host::compose::dispatch::Interceptor> {
    Arc::new(FnInterceptor::new(move |_| answer.clone()))
}

async fn emit_one(b: EmitterBuilder) -> (Emitter, Value) {
    let e = b.build();
    let out = e
        .emit_point(Point::PreToolCall, fields_for(Point::PreToolCall), false)
        .await;
    (e, Arc::unwrap_or_clone(out.record))
}

fn failures() -> Vec<(
    &'static str,
    Arc<dyn ctk_agent_hooks_reference_host::compose::dispatch::Interceptor>,
)> {
    vec![
        (
            "host_error:interceptor_failed",
            answering(InterceptorAnswer::Raised),
        ),
        ("host_error:interceptor_timeout", Arc::new(Hang)),
        (
            "host_error:verdict_invalid",
            answering(InterceptorAnswer::Returned(
                json!({"decision": "transform"}),
            )),
        ),
    ]
}

#[tokio::test]
async fn each_failure_of_a_best_effort_binding_substitutes_an_allow_under_the_draft() {
    for (cause, interceptor) in failures() {
        let b = Emitter::builder(SpecVersion::Draft, who()).interceptor(named(
            "flaky",
            OnError::Continue,
            interceptor,
        ));
        let (e, record) = emit_one(b).await;
        assert_eq!(record["verdict"]["decision"], "allow", "{cause}");
        assert_eq!(
            record["verdict"]["warnings"],
            json!([{"reason": "host_warning:control_failed"}]),
            "{cause}"
        );
        assert_eq!(record["verdicts"][0]["substituted_for"], cause);
        assert_eq!(record["verdicts"][0]["decision"], "allow");
        assert!(record["verdicts"][0].get("reason").is_none());
        assert_eq!(record["decided_by"], Value::Null);
        let notices: Vec<Value> = e.notices().iter().map(|n| n.to_value()).collect();
        assert_eq!(
            notices,
            vec![
                json!({"interception_point": "pre_tool_call", "binding": "flaky",
                "warning": "host_warning:control_failed", "substituted_for": cause})
            ]
        );
    }
}

#[tokio::test]
async fn on_error_deny_keeps_the_reserved_deny_for_each_failure() {
    for (cause, interceptor) in failures() {
        let b = Emitter::builder(SpecVersion::Draft, who()).interceptor(named(
            "strict",
            OnError::Deny,
            interceptor,
        ));
        let (e, record) = emit_one(b).await;
        assert_eq!(record["verdict"]["decision"], "deny", "{cause}");
        assert_eq!(record["verdict"]["reason"], cause);
        assert_eq!(record["decided_by"], 0);
        assert!(record["verdicts"][0].get("substituted_for").is_none());
        assert!(e.notices().is_empty());
    }
}

#[tokio::test]
async fn a_release_emitter_has_no_failure_posture() {
    // 0.1 defines no on_error: a registration asking for best effort still
    // fails closed with the reserved deny, and nobody is notified.
    for (cause, interceptor) in failures() {
        let b = Emitter::builder(SpecVersion::V0_1, who()).interceptor(named(
            "flaky",
            OnError::Continue,
            interceptor,
        ));
        let (e, record) = emit_one(b).await;
        assert_eq!(record["verdict"]["reason"], cause);
        assert!(e.notices().is_empty());
    }
}

#[tokio::test]
async fn substitution_composes_like_any_allow() {
    let deny = answering(InterceptorAnswer::Returned(
        json!({"decision": "deny", "reason": "ctk:no"}),
    ));
    let b = Emitter::builder(SpecVersion::Draft, who())
        .interceptor(named(
            "flaky",
            OnError::Continue,
            answering(InterceptorAnswer::Raised),
        ))
        .interceptor(named("guard", OnError::Deny, deny));
    let (e, record) = emit_one(b).await;
    assert_eq!(record["verdict"]["reason"], "ctk:no");
    assert_eq!(record["decided_by"], 1);
    assert_eq!(
        record["verdict"]["warnings"][0]["reason"],
        "host_warning:control_failed"
    );
    assert_eq!(e.notices().len(), 1);
    let b = Emitter::builder(SpecVersion::Draft, who())
        .composition(Composition::Unanimous {
            on_disagreement: ctk_agent_hooks_reference_host::compose::profile::Knob::Deny,
        })
        .interceptor(named("flaky", OnError::Continue, Arc::new(Hang)))
        .interceptor(named(
            "steady",
            OnError::Deny,
            answering(InterceptorAnswer::Returned(json!({"decision": "allow"}))),
        ));
    let (_, record) = emit_one(b).await;
    assert_eq!(record["verdict"]["decision"], "allow");
}

#[tokio::test]
async fn host_warning_is_reserved_under_the_draft_only() {
    for answer in [
        json!({"decision": "allow", "reason": "host_warning:x"}),
        json!({"decision": "allow", "warnings": [{"reason": "host_warning:control_failed"}]}),
    ] {
        let draft = Emitter::builder(SpecVersion::Draft, who()).interceptor(named(
            "i",
            OnError::Deny,
            answering(InterceptorAnswer::Returned(answer.clone())),
        ));
        let (_, record) = emit_one(draft).await;
        assert_eq!(record["verdict"]["reason"], "host_error:verdict_invalid");
        // Under 0.1 the namespace does not exist: the verdict is valid and
        // its reason is recorded as the interceptor wrote it (draft DD-05).
        let released = Emitter::builder(SpecVersion::V0_1, who()).interceptor(named(
            "i",
            OnError::Deny,
            answering(InterceptorAnswer::Returned(answer.clone())),
        ));
        let (_, record) = emit_one(released).await;
        assert_eq!(record["verdict"]["decision"], "allow", "{answer}");
    }
}

#[tokio::test]
async fn a_deny_or_a_composition_failure_is_never_substituted() {
    let b = Emitter::builder(SpecVersion::Draft, who()).interceptor(named(
        "policy",
        OnError::Continue,
        answering(InterceptorAnswer::Returned(
            json!({"decision": "deny", "reason": "ctk:policy"}),
        )),
    ));
    let (e, record) = emit_one(b).await;
    assert_eq!(record["verdict"]["reason"], "ctk:policy");
    assert!(e.notices().is_empty());
    // A transform that passes the gate but cannot be applied is a
    // composition failure, not an interceptor failure.
    let b = Emitter::builder(SpecVersion::Draft, who()).interceptor(named(
        "rewriter",
        OnError::Continue,
        answering(InterceptorAnswer::Returned(
            json!({"decision": "transform", "transform": {"path": "$target.missing.deeper", "value": 1}}),
        )),
    ));
    let (e, record) = emit_one(b).await;
    assert_eq!(record["verdict"]["reason"], "host_error:transform_invalid");
    assert!(e.notices().is_empty());
}
