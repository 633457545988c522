//! Composition, modes and seams at the emitter level: the decisions of
//! DECISIONS.md and the clauses no upstream vector pins.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::Barrier;

use ctk_agent_hooks_reference_host::compose::dispatch::{
    BoxFuture, Interceptor, InterceptorAnswer, Registration,
};
use ctk_agent_hooks_reference_host::compose::profile::{Composition, Knob, Mode, OnApproval};
use ctk_agent_hooks_reference_host::context::build::AgentIdentity;
use ctk_agent_hooks_reference_host::identity::provider::{
    CustomIdentityProvider, IdentityProvider,
};
use ctk_agent_hooks_reference_host::point::Point;
use ctk_agent_hooks_reference_host::seam::approval::ResolverAnswer;
use ctk_agent_hooks_reference_host::{Emitter, SpecVersion};

use crate::reserved_reasons::EmitFields;
use crate::support::{approving, builder, fields_for, returning, tool_fields, with_fn, FnResolver};

fn allow() -> Value {
    json!({"decision": "allow"})
}
fn liftable(reason: &str) -> Value {
    json!({"decision": "deny", "reason": reason, "approval": {}})
}
fn transform(path: &str, value: Value) -> Value {
    json!({"decision": "transform", "transform": {"path": path, "value": value}})
}

#[tokio::test]
async fn resume_with_an_allow_keeps_the_consulted_index() {
    let b = builder().composition(Composition::FirstDeny {
        on_approval: OnApproval::Resume,
    });
    let b = returning(returning(returning(b, allow()), liftable("ctk:a")), allow());
    let out = b
        .approval_resolver(approving(allow()))
        .build()
        .emit_fields(Point::Output)
        .await;
    assert!(out.proceed);
    assert_eq!(out.record["decided_by"], 1);
    assert_eq!(out.record["resolved_by"], "approval");
    assert_eq!(out.record["fold_truncated"], false);
    assert_eq!(out.record["verdicts"].as_array().map(Vec::len), Some(3));
}

#[tokio::test]
async fn host_synthesized_rejection_keeps_the_consulted_index() {
    let r = FnResolver(|_: &Value| ResolverAnswer::Raised);
    let b =
        returning(returning(builder(), liftable("ctk:a")), allow()).approval_resolver(Arc::new(r));
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:approval_resolver_failed"
    );
    assert_eq!(out.record["decided_by"], 0);
    assert_eq!(out.record["fold_truncated"], true);
}

#[tokio::test]
async fn run_all_failed_fold_is_truncated() {
    let b = builder().composition(Composition::RunAll);
    let (b, later) = with_fn(
        returning(b, transform("$target.missing.deep", json!(1))),
        |_| InterceptorAnswer::Returned(json!({"decision": "allow"})),
    );
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:transform_invalid"
    );
    assert_eq!(out.record["fold_truncated"], true);
    assert_eq!(out.record["decided_by"], Value::Null);
    assert_eq!(later.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn run_all_deny_discards_folds_but_identifies_the_folded_context() {
    let b = builder().composition(Composition::RunAll);
    let b = returning(
        returning(b, transform("$target.content", json!("scrubbed"))),
        json!({"decision": "deny", "reason": "ctk:no"}),
    );
    let out = b.build().emit_fields(Point::Output).await;
    assert!(!out.proceed);
    assert_eq!(
        out.context["output"]["content"], "done",
        "the fold is not enforced"
    );
    assert_ne!(
        out.record["input_identity"],
        out.record["enforced_identity"]
    );
    assert_eq!(out.record["decided_by"], 1);
}

#[tokio::test]
async fn combined_deny_carries_no_result_labels() {
    let b = builder().composition(Composition::RunAll);
    let b = returning(b, json!({"decision": "allow", "result_labels": ["l"]}));
    let b = returning(
        b,
        json!({"decision": "deny", "reason": "ctk:no", "result_labels": ["d"]}),
    );
    let out = b.build().emit_fields(Point::Output).await;
    assert!(out.record["verdict"].get("result_labels").is_none());
    assert!(out.verdict.result_labels.is_empty());
}

/// Waits at a barrier that only opens when both interceptors run at once.
struct Rendezvous(Arc<Barrier>);

impl Interceptor for Rendezvous {
    fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
        let b = self.0.clone();
        Box::pin(async move {
            b.wait().await;
            InterceptorAnswer::Returned(json!({"decision": "allow"}))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_profiles_dispatch_concurrently() {
    for composition in [
        Composition::Strictest {
            on_transform_conflict: Knob::Deny,
        },
        Composition::Unanimous {
            on_disagreement: Knob::Deny,
        },
    ] {
        let barrier = Arc::new(Barrier::new(2));
        let e = builder()
            .composition(composition)
            .interceptor_timeout(Some(Duration::from_secs(5)))
            .interceptor(Registration::everywhere(Arc::new(Rendezvous(
                barrier.clone(),
            ))))
            .interceptor(Registration::everywhere(Arc::new(Rendezvous(barrier))))
            .build();
        let out = e.emit_fields(Point::Output).await;
        assert_eq!(
            out.record["verdict"]["decision"], "allow",
            "{composition:?}"
        );
        assert!(out.record.get("fold_truncated").is_none());
    }
}

#[tokio::test]
async fn parallel_interceptors_see_one_untransformed_snapshot() {
    let b = builder().composition(Composition::Strictest {
        on_transform_conflict: Knob::Deny,
    });
    let b = returning(b, transform("$target.url", json!("clean")));
    let (b, _) = with_fn(b, |ctx| {
        let saw = ctx["tool_call"]["args"]["url"].clone();
        InterceptorAnswer::Returned(if saw == "x" {
            json!({"decision": "allow"})
        } else {
            json!({"decision": "deny", "reason": "ctk:leak"})
        })
    });
    let e = b.build();
    let out = e
        .emit(e.context(Point::PreToolCall, tool_fields(json!({"url": "x"}))))
        .await;
    assert!(out.proceed);
    assert_eq!(out.context["tool_call"]["args"]["url"], "clean");
    assert_eq!(out.record["decided_by"], 0);
}

#[tokio::test]
async fn strictest_approval_does_not_apply_lower_transforms() {
    let b = builder().composition(Composition::Strictest {
        on_transform_conflict: Knob::Deny,
    });
    let b = returning(
        returning(b, transform("$target.content", json!("rewritten"))),
        liftable("ctk:ask"),
    );
    let out = b
        .approval_resolver(approving(allow()))
        .build()
        .emit_fields(Point::Output)
        .await;
    assert!(out.proceed);
    assert_eq!(out.context["output"]["content"], "done");
    assert_eq!(out.record["decided_by"], 1);
    assert_eq!(out.record["resolved_by"], "approval");
}

#[tokio::test]
async fn unanimous_counts_a_failure_as_a_disagreement() {
    let b = builder().composition(Composition::Unanimous {
        on_disagreement: Knob::Deny,
    });
    let (b, _) = with_fn(returning(b, allow()), |_| InterceptorAnswer::Raised);
    let out = b.build().emit_fields(Point::Output).await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:composition_disagreement"
    );
    assert_eq!(
        out.record["verdicts"][1]["reason"],
        "host_error:interceptor_failed"
    );
    assert_eq!(out.record["decided_by"], Value::Null);

    let consulted = Arc::new(AtomicUsize::new(0));
    let c = consulted.clone();
    let r = FnResolver(move |req: &Value| {
        c.fetch_add(1, Ordering::SeqCst);
        ResolverAnswer::Resolution(
            json!({"outcome": "unresolved", "context_identity": req["context_identity"]}),
        )
    });
    let b = builder().composition(Composition::Unanimous {
        on_disagreement: Knob::Approval,
    });
    let (b, _) = with_fn(returning(b, allow()), |_| InterceptorAnswer::Raised);
    let out = b
        .approval_resolver(Arc::new(r))
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:approval_unresolved"
    );
    assert_eq!(out.record["resolved_by"], "rejection");
    assert_eq!(consulted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_pure_allow_carries_the_first_allows_members() {
    let evidence = json!({"artefact": "sha256:00", "verification_pointers": {"log": "https://audit.invalid/1"}});
    for composition in [
        Composition::default(),
        Composition::RunAll,
        Composition::Strictest {
            on_transform_conflict: Knob::Deny,
        },
        Composition::Unanimous {
            on_disagreement: Knob::Deny,
        },
    ] {
        let b = builder().composition(composition);
        let b = returning(
            returning(
                b,
                json!({"decision": "allow", "reason": "ctk:first", "evidence": evidence}),
            ),
            json!({"decision": "allow", "reason": "ctk:second"}),
        );
        let out = b.build().emit_fields(Point::Output).await;
        assert_eq!(
            out.record["verdict"]["reason"], "ctk:first",
            "{composition:?}"
        );
        assert_eq!(
            out.record["verdict"]["evidence"], evidence,
            "{composition:?}"
        );
        assert_eq!(out.record["decided_by"], Value::Null, "{composition:?}");
    }
}

#[tokio::test]
async fn unanimous_approval_knob_synthesizes_a_liftable_deny() {
    let b = builder().composition(Composition::Unanimous {
        on_disagreement: Knob::Approval,
    });
    let b = returning(
        returning(b, allow()),
        transform("$target.content", json!("x")),
    );
    let seen = Arc::new(std::sync::Mutex::new(Value::Null));
    let s = seen.clone();
    let r = FnResolver(move |req: &Value| {
        *s.lock().expect("lock") = req.clone();
        ResolverAnswer::Resolution(
            json!({"outcome": "approve", "context_identity": req["context_identity"], "verdict": {"decision": "allow"}}),
        )
    });
    let out = b
        .approval_resolver(Arc::new(r))
        .build()
        .emit_fields(Point::Output)
        .await;
    let request = seen.lock().expect("lock").clone();
    assert_eq!(
        request["verdict"],
        json!({"decision": "deny", "reason": "host_error:composition_disagreement", "approval": {}})
    );
    assert_eq!(request["context_identity"], out.record["input_identity"]);
    assert_eq!(request["interception_point"], "output");
    assert_eq!(out.record["decided_by"], Value::Null);
    assert_eq!(out.record["resolved_by"], "approval");
    assert!(out.proceed);
}

#[tokio::test]
async fn evaluate_only_validates_but_never_applies_or_consults() {
    let consulted = Arc::new(AtomicUsize::new(0));
    let c = consulted.clone();
    let r = FnResolver(move |_: &Value| {
        c.fetch_add(1, Ordering::SeqCst);
        ResolverAnswer::Raised
    });
    let e = returning(
        builder().mode(Mode::EvaluateOnly),
        transform("$target.content", json!("x")),
    )
    .build();
    let out = e.emit_fields(Point::Output).await;
    assert!(out.proceed);
    assert_eq!(out.context["output"]["content"], "done");
    assert_eq!(out.record["verdict"]["decision"], "transform");
    assert_eq!(
        out.record["input_identity"],
        out.record["enforced_identity"]
    );

    let e = returning(
        builder().mode(Mode::EvaluateOnly),
        transform("$target.nope", json!("x")),
    )
    .build();
    let out = e.emit_fields(Point::Output).await;
    assert!(out.proceed);
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:transform_invalid"
    );

    let e = returning(builder().mode(Mode::EvaluateOnly), liftable("ctk:ask"))
        .approval_resolver(Arc::new(r))
        .build();
    let out = e.emit_fields(Point::Output).await;
    assert!(out.proceed);
    assert!(out.record.get("resolved_by").is_none());
    assert_eq!(consulted.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn shutdown_never_consults_the_seam() {
    let e = returning(builder(), liftable("ctk:ask"))
        .approval_resolver(approving(allow()))
        .build();
    let out = e.emit_fields(Point::AgentShutdown).await;
    assert_eq!(out.record["verdict"]["reason"], "ctk:ask");
    assert!(out.record.get("resolved_by").is_none());
}

#[tokio::test]
async fn interceptor_mutation_does_not_leak() {
    let b = builder().composition(Composition::RunAll);
    let (b, _) = with_fn(b, |mut ctx| {
        ctx["target"] = json!("TAMPERED");
        InterceptorAnswer::Returned(json!({"decision": "allow"}))
    });
    let (b, _) = with_fn(b, |ctx| {
        InterceptorAnswer::Returned(if ctx["target"] == "TAMPERED" {
            json!({"decision": "deny", "reason": "ctk:leak"})
        } else {
            json!({"decision": "allow"})
        })
    });
    let out = b.build().emit_fields(Point::Output).await;
    assert!(out.proceed);
    assert_eq!(
        out.record["input_identity"],
        out.record["enforced_identity"]
    );
}

#[tokio::test]
async fn response_envelope_is_enforced_by_its_nested_verdict() {
    let env = json!({"verdict": {"decision": "deny", "reason": "ctk:env"}, "extensions": {"provider": {"receipt": {}}}});
    let out = returning(builder(), env)
        .build()
        .emit_fields(Point::Output)
        .await;
    assert!(!out.proceed);
    assert_eq!(out.record["verdict"]["reason"], "ctk:env");
}

#[tokio::test]
async fn an_emitter_refuses_a_context_of_another_version() {
    let who = AgentIdentity {
        agent_id: "a".into(),
        framework: "f".into(),
        session_id: "s".into(),
    };
    let draft = returning(Emitter::builder(SpecVersion::Draft, who.clone()), allow()).build();
    let ctx = draft.context(Point::Output, fields_for(Point::Output));
    assert_eq!(ctx["spec"], "agent-hooks/draft");
    assert!(draft.emit(ctx.clone()).await.proceed);
    let released = returning(Emitter::builder(SpecVersion::V0_1, who), allow()).build();
    let out = released.emit(ctx).await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:context_invalid"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_emissions_get_unique_sequences() {
    let e = Arc::new(returning(builder(), allow()).build());
    let handles: Vec<_> = (0..64)
        .map(|_| {
            let e = e.clone();
            tokio::spawn(async move {
                e.emit_fields(Point::Output).await.record["sequence"]
                    .as_i64()
                    .unwrap_or(-1)
            })
        })
        .collect();
    let mut seqs = Vec::new();
    for h in handles {
        seqs.push(h.await.expect("task"));
    }
    seqs.sort_unstable();
    assert_eq!(seqs, (0..64).collect::<Vec<i64>>());
}

#[tokio::test]
async fn oversized_contexts_are_refused_before_dispatch() {
    let e = returning(builder(), allow()).build();
    let mut fields = fields_for(Point::Output);
    fields.insert(
        "output".into(),
        json!({"content": "x".repeat(5 * 1024 * 1024 + 1)}),
    );
    let out = e.emit(e.context(Point::Output, fields)).await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:context_invalid"
    );
    assert_eq!(out.record["input_identity"], Value::Null);
}

struct Keyed;
impl CustomIdentityProvider for Keyed {
    fn compute(&self, context: &Value) -> Result<String, String> {
        Ok(format!("keyed:{}", context["sequence"]))
    }
}

#[tokio::test]
async fn custom_and_null_providers_are_stamped() {
    let p = IdentityProvider::Custom {
        name: "hmac-sha256-k1".into(),
        provider: Arc::new(Keyed),
    };
    let out = returning(builder().identity_provider(p), allow())
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(out.record["identity_provider"], "hmac-sha256-k1");
    assert_eq!(out.record["input_identity"], "keyed:0");
    let out = returning(builder().identity_provider(IdentityProvider::Null), allow())
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(out.record["identity_provider"], Value::Null);
    assert_eq!(out.record["input_identity"], Value::Null);
    assert_eq!(out.record["enforced_identity"], Value::Null);
}

/// A provider that is not content-derived: every compute is a new nonce.
struct Nonce(AtomicUsize);
impl CustomIdentityProvider for Nonce {
    fn compute(&self, _context: &Value) -> Result<String, String> {
        Ok(format!("nonce:{}", self.0.fetch_add(1, Ordering::SeqCst)))
    }
}

#[tokio::test]
async fn an_untouched_context_keeps_its_identity_and_a_custom_provider_is_asked_again() {
    // jcs-sha256 is a function of the context: nothing folded, same identity.
    let out = returning(builder(), allow())
        .build()
        .emit_fields(Point::Output)
        .await;
    assert_eq!(
        out.record["enforced_identity"],
        out.record["input_identity"]
    );
    // A custom provider need not be content-derived (§10.1): the enforced
    // identity is its own answer after composition, in both outcomes.
    for answer in [allow(), json!({"decision": "deny", "reason": "ctk:no"})] {
        let p = IdentityProvider::Custom {
            name: "nonce".into(),
            provider: Arc::new(Nonce(AtomicUsize::new(0))),
        };
        let out = returning(builder().identity_provider(p), answer)
            .build()
            .emit_fields(Point::Output)
            .await;
        assert_eq!(out.record["input_identity"], "nonce:0");
        assert_eq!(out.record["enforced_identity"], "nonce:1");
    }
}

#[tokio::test]
async fn bindings_scope_interceptors_and_counts_per_point() {
    let named = |name: &str, at: Option<Vec<Point>>| {
        let mut r = Registration::everywhere(Arc::new(crate::support::Hang));
        r.name = Some(name.into());
        r.at = at;
        r
    };
    let mut only_tools = named("a", Some(vec![Point::PreToolCall]));
    only_tools.interceptor = Arc::new(AllowAll);
    let mut everywhere = named("b", None);
    everywhere.interceptor = Arc::new(AllowAll);
    let e = builder()
        .interceptor(only_tools)
        .interceptor(everywhere)
        .build();
    let out = e.emit_fields(Point::Output).await;
    assert_eq!(out.record["interceptors_registered"], 1);
    assert_eq!(out.record["verdicts"][0]["name"], "b");
    let out = e
        .emit(e.context(Point::PreToolCall, tool_fields(json!({}))))
        .await;
    assert_eq!(out.record["interceptors_registered"], 2);
    assert_eq!(out.record["verdicts"][0]["name"], "a");
}

struct AllowAll;
impl Interceptor for AllowAll {
    fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
}

#[tokio::test]
async fn a_transform_that_breaks_the_bounds_fails_closed_at_finalize() {
    let huge = "x".repeat(5 * 1024 * 1024);
    for provider in [IdentityProvider::JcsSha256, IdentityProvider::Null] {
        let e = returning(
            builder().identity_provider(provider),
            transform("$target.content", json!(huge)),
        )
        .build();
        let out = e.emit_fields(Point::Output).await;
        assert!(!out.proceed);
        assert_eq!(
            out.record["verdict"]["reason"],
            "host_error:context_invalid"
        );
        assert_eq!(out.record["enforced_identity"], Value::Null);
        assert_eq!(out.record["decided_by"], Value::Null);
    }
}

#[tokio::test]
async fn foreign_extensions_pass_verbatim_and_stay_out_of_records() {
    let seen = Arc::new(std::sync::Mutex::new(Value::Null));
    let s = seen.clone();
    let (b, _) = with_fn(builder(), move |ctx| {
        *s.lock().expect("lock") = ctx["extensions"].clone();
        InterceptorAnswer::Returned(json!({"decision": "allow"}))
    });
    let e = b.build();
    let ext = json!({"acme": {"opaque": [1, {"n": null}], "redacted": ["$target.x"]}});
    let mut fields = fields_for(Point::Output);
    fields.insert("extensions".into(), ext.clone());
    let out = e.emit(e.context(Point::Output, fields)).await;
    assert_eq!(*seen.lock().expect("lock"), ext);
    assert_eq!(out.context["extensions"], ext);
    assert!(!out.record.to_string().contains("opaque"));
}

#[tokio::test]
async fn host_synthesized_messages_carry_no_payload() {
    let e = returning(builder(), allow()).build();
    let mut fields = fields_for(Point::Output);
    fields.insert(
        "output".into(),
        json!({"content": {"secret": "SECRET-VALUE", "n": 9_007_199_254_740_993_u64}}),
    );
    let out = e.emit(e.context(Point::Output, fields)).await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:context_invalid"
    );
    assert!(!out.record.to_string().contains("SECRET"));
    assert!(!out.record.to_string().contains("9007199254740993"));
    let mut ctx = e.context(Point::Output, fields_for(Point::Output));
    ctx["output"] = json!({"not_content": "SECRET-VALUE"});
    let out = e.emit(ctx).await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:context_invalid"
    );
    assert!(!out.record.to_string().contains("SECRET"));
}

#[tokio::test]
async fn a_context_that_cannot_be_read_still_leaves_a_record() {
    let e = returning(builder(), allow()).build();
    let out = e.emit(Value::Null).await;
    assert!(!out.proceed);
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:context_invalid"
    );
    assert_eq!(out.record["input_identity"], Value::Null);
    assert_eq!(out.record["session_id"], "");
    assert_eq!(out.record["sequence"], -1);
    assert_eq!(e.take_records().len(), 1);
}

#[tokio::test]
async fn shared_records_are_the_emitted_records_drained_in_order() {
    let e = returning(builder(), allow()).build();
    let first = e.emit_fields(Point::Input).await;
    let second = e.emit_fields(Point::Output).await;
    let drained = e.take_shared_records();
    assert_eq!(drained.len(), 2);
    // The very values the emissions returned, not copies of them.
    assert!(Arc::ptr_eq(&drained[0], &first.record));
    assert!(Arc::ptr_eq(&drained[1], &second.record));
    assert!(e.take_shared_records().is_empty(), "drained");
    assert!(e.take_records().is_empty(), "one buffer for both");
}

#[tokio::test]
async fn only_the_projection_reaches_the_record_sink() {
    let b = builder().composition(Composition::RunAll);
    let b = returning(
        b,
        json!({"decision": "transform", "message": "m", "transform": {"path": "$target.content", "value": "SECRET-REWRITE"}}),
    );
    let e = b.build();
    let out = e.emit_fields(Point::Output).await;
    assert_eq!(out.context["output"]["content"], "SECRET-REWRITE");
    let sink = serde_json::to_string(&e.take_records()).expect("json");
    assert!(!sink.contains("SECRET-REWRITE"));
    assert!(!sink.contains("\"done\""), "no context content in records");
    let e = returning(
        builder(),
        json!({"decision": "deny", "reason": "ctk:ask", "approval": {"ticket": "SECRET-TICKET"}}),
    )
    .build();
    let out = e.emit_fields(Point::Output).await;
    assert_eq!(out.record["verdict"]["approval"], json!({}));
    assert!(!serde_json::to_string(&e.take_records())
        .expect("json")
        .contains("SECRET-TICKET"));
}

struct PanickingRedactor;
impl ctk_agent_hooks_reference_host::seam::redaction::Redactor for PanickingRedactor {
    fn redact(
        &self,
        _context: Value,
    ) -> BoxFuture<ctk_agent_hooks_reference_host::seam::redaction::RedactorAnswer> {
        Box::pin(async { panic!("redactor bug") })
    }
}

#[tokio::test]
async fn a_panicking_redactor_denies_with_resolver_failed() {
    let e = returning(builder(), liftable("ctk:ask"))
        .approval_resolver(approving(allow()))
        .redactor(Arc::new(PanickingRedactor))
        .build();
    let out = e.emit_fields(Point::Output).await;
    assert_eq!(
        out.record["verdict"]["reason"],
        "host_error:approval_resolver_failed"
    );
    assert_eq!(out.record["resolved_by"], "rejection");
}

#[tokio::test]
async fn evidence_pointers_are_never_dereferenced() {
    // A listener the pointers name: if the host followed them, a connection
    // would be waiting here after the emission (§5.3, §14: no SSRF).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    listener.set_nonblocking(true).expect("non-blocking");
    let addr = listener.local_addr().expect("address");
    let evidence = json!({
        "artefact": "sha256:00",
        "verification_pointers": {"log": format!("http://{addr}/audit"), "raw": format!("{addr}")}
    });
    let b = returning(
        builder(),
        json!({"decision": "allow", "reason": "ctk:pointed", "evidence": evidence}),
    );
    let out = b.build().emit_fields(Point::PreToolCall).await;
    assert_eq!(out.record["verdict"]["evidence"], evidence);
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the host contacted a verification pointer: {other:?}"),
    }
}
