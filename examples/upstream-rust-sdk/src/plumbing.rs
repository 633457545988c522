//! Plumbing: the kit's callbacks as the crate's interceptor, resolver,
//! redactor and identity-provider types, and the conformance registry
//! (HOSTS.md §3.1) the crate's loader resolves names in.
//!
//! The crate's traits are typed and infallible (`Interceptor::intercept`
//! returns a `Verdict`), while the kit's interceptors answer with raw JSON or
//! raise. The mapping keeps every decision with the crate:
//!
//! - a raw answer goes through the crate's §5 gate
//!   (`InterceptorResponse::from_wire`); what it accepts is handed to the
//!   emitter as is. What it refuses is handed over as a verdict the crate's
//!   emitter itself refuses the same way: a path the gate refused travels
//!   unchanged, so the emitter's transform step (the same path parser)
//!   denies it with the gate's class; every other refusal travels as a
//!   transform without a body, which the emitter's `Verdict::validate` turns
//!   into `host_error:verdict_invalid`;
//! - an interceptor, resolver or redactor that raised, or a redactor that did
//!   not answer within the approval timeout, panics inside the crate's
//!   isolation (`catch_unwind`), which the crate turns into its own failure
//!   deny (`interceptor_failed`, `approval_resolver_failed`);
//! - timeouts of interceptors and the resolver are the crate's (feature
//!   `ctk` enables `tokio-timeout`).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_hooks::ctk::async_trait;
use agent_hooks::declaration::KindResolver;
use agent_hooks::{
    AgentContext, ApprovalOutcome, ApprovalRequest, ApprovalResolution, ApprovalResolver, Decision,
    HostError, HostRegistry, HostSurface, Interceptor, InterceptorResponse, Verdict,
};
use ctk_agent_hooks_adapter::{Callbacks, InterceptorReply, RedactorReply, ResolverReply};
use serde_json::{json, Value};

/// Name of the kit's binding kind (HOSTS.md §3.1).
pub const CTK_SCRIPTED_KIND: &str = "ctk.scripted";
/// Name of the kit's approval resolver.
pub const CTK_SCRIPTED_RESOLVER: &str = "ctk-scripted";
/// Name of the kit's redactor.
pub const CTK_REDACTOR: &str = "ctk-redact";
/// Name of the kit's failing identity provider.
pub const CTK_FAULT_PROVIDER: &str = "ctk-fault";

/// The kit's callbacks of the running vector. Empty until `vector/run`
/// starts: the registry (and so the emitter of a field-configured vector) is
/// built at setup, before the callbacks exist.
#[derive(Clone, Default)]
pub struct CallbackSlot(Arc<Mutex<Option<Arc<dyn Callbacks>>>>);

impl CallbackSlot {
    /// Make `callbacks` the ones every registered component calls.
    pub fn set(&self, callbacks: Arc<dyn Callbacks>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(callbacks);
    }

    /// The callbacks of the running vector. Panics outside `vector/run`;
    /// the crate isolates the panic as that component's failure.
    fn get(&self) -> Arc<dyn Callbacks> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .expect("the kit's callbacks exist only while the vector runs")
    }
}

/// The approval timeout the redactor answers within; `None` is unbounded.
/// Shared because it is known only once the crate resolved the document.
#[derive(Clone, Default)]
pub struct RedactorTimeout(Arc<Mutex<Option<Duration>>>);

impl RedactorTimeout {
    /// Set the bound.
    pub fn set(&self, limit: Option<Duration>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = limit;
    }

    fn get(&self) -> Option<Duration> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A verdict the crate's `Verdict::validate` refuses (a transform without a
/// body), so that the emitter substitutes `host_error:verdict_invalid`.
fn refused_by_validate() -> Verdict {
    Verdict {
        decision: Decision::Transform,
        ..Verdict::allow()
    }
}

/// The crate's §5 gate on a raw answer, as a typed verdict for the emitter
/// (module docs). `envelope`: whether a §5.5 response envelope is accepted
/// (interceptors: yes; a resolution's verdict: a bare verdict only).
pub fn gate(raw: &Value, envelope: bool) -> Verdict {
    let judged = if envelope {
        InterceptorResponse::from_wire(raw).map(|r| r.verdict)
    } else {
        agent_hooks::verdict_from_wire(raw)
    };
    match judged {
        Ok(verdict) => verdict,
        Err((HostError::TransformInvalid | HostError::TransformTargetForbidden, _)) => {
            refused_path(raw, envelope).unwrap_or_else(refused_by_validate)
        }
        Err(_) => refused_by_validate(),
    }
}

/// A verdict the gate refused for its transform path only: the same verdict
/// with that path, which the emitter's transform step refuses with the class
/// the gate gave (both use the crate's one path parser).
fn refused_path(raw: &Value, envelope: bool) -> Option<Verdict> {
    let mut probe = raw.clone();
    let verdict = if envelope && probe.get("verdict").is_some() {
        probe.get_mut("verdict")?
    } else {
        &mut probe
    };
    let path = verdict.get("transform")?.get("path")?.as_str()?.to_owned();
    verdict["transform"]["path"] = Value::String("$target".into());
    let judged = if envelope {
        InterceptorResponse::from_wire(&probe).map(|r| r.verdict)
    } else {
        agent_hooks::verdict_from_wire(&probe)
    };
    let mut typed = judged.ok()?;
    typed.transform.as_mut()?.path = path;
    Some(typed)
}

/// An interceptor whose verdicts come from the kit's interceptor `index`.
pub struct CallbackInterceptor {
    slot: CallbackSlot,
    index: usize,
}

#[async_trait]
impl Interceptor for CallbackInterceptor {
    async fn intercept(&self, context: &AgentContext) -> Verdict {
        // The interceptor's own deep copy: a change it makes stays in it.
        let mut own = Value::Object(context.clone());
        match self.slot.get().intercept(self.index, &mut own).await {
            InterceptorReply::Response(raw) => gate(&raw, true),
            // Raised (or a reply this host does not know): the crate's
            // isolation turns the panic into host_error:interceptor_failed.
            _ => panic!("interceptor {} raised", self.index),
        }
    }
}

/// The kit's approval resolver.
pub struct CallbackResolver {
    slot: CallbackSlot,
}

#[async_trait]
impl ApprovalResolver for CallbackResolver {
    async fn resolve(&self, request: ApprovalRequest<'_>) -> ApprovalResolution {
        let wire = json!({
            "context_identity": request.context_identity,
            "interception_point": request.interception_point.as_str(),
            "verdict": serde_json::to_value(request.verdict).unwrap_or(Value::Null),
            "context": Value::Object(request.context.clone()),
        });
        match self.slot.get().resolve_approval(&wire).await {
            ResolverReply::Resolution(raw) => resolution(&raw),
            _ => panic!("the approval resolver raised"),
        }
    }
}

/// A raw `ApprovalResolution` as the crate's typed one; the crate then checks
/// it in its own order (echo, presence, §5, consistency). A value the typed
/// form cannot carry at all (not an object, an outcome outside the closed
/// set, a non-string identity) panics: the crate records a resolver failure.
pub fn resolution(raw: &Value) -> ApprovalResolution {
    let object = raw
        .as_object()
        .expect("an ApprovalResolution is a JSON object");
    let outcome = match object.get("outcome").and_then(Value::as_str) {
        Some("approve") => ApprovalOutcome::Approve,
        Some("reject") => ApprovalOutcome::Reject,
        Some("unresolved") => ApprovalOutcome::Unresolved,
        other => panic!("resolution outcome {other:?} is outside approve|reject|unresolved"),
    };
    let context_identity = match object.get("context_identity") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => panic!("resolution context_identity is neither a string nor null"),
    };
    let verdict = match object.get("verdict") {
        None | Some(Value::Null) => None,
        Some(v) => Some(gate(v, false)),
    };
    ApprovalResolution {
        outcome,
        context_identity,
        verdict,
    }
}

/// The crate's redactor is a synchronous function; the kit's answers
/// asynchronously, so this blocks the worker thread on it (the runtime must
/// be multi-threaded), under the approval timeout.
fn redact(slot: &CallbackSlot, limit: &RedactorTimeout, context: &AgentContext) -> AgentContext {
    let callbacks = slot.get();
    let value = Value::Object(context.clone());
    let limit = limit.get();
    let handle = tokio::runtime::Handle::current();
    let reply = tokio::task::block_in_place(|| {
        handle.block_on(async {
            match limit {
                Some(d) => tokio::time::timeout(d, callbacks.redact(&value)).await.ok(),
                None => Some(callbacks.redact(&value).await),
            }
        })
    });
    match reply {
        Some(RedactorReply::Redacted(Value::Object(presented))) => presented,
        Some(RedactorReply::Redacted(_)) => panic!("the redactor returned a non-object context"),
        Some(_) => panic!("the redactor raised"),
        None => panic!("the redactor did not answer within the approval timeout"),
    }
}

/// The conformance registry (HOSTS.md §3.1) over the crate's code surface:
/// kind `ctk.scripted` over `scripts` interceptor scripts, resolver
/// `ctk-scripted`, redactor `ctk-redact` and identity provider `ctk-fault`,
/// all reaching the kit through `slot`.
pub fn conformance_registry(
    surface: HostSurface,
    scripts: usize,
    slot: &CallbackSlot,
    redactor_timeout: &RedactorTimeout,
) -> HostRegistry {
    let kind_slot = slot.clone();
    let scripted: KindResolver = Box::new(move |config, _binding| {
        let config = config
            .as_object()
            .ok_or_else(|| "config must be an object".to_owned())?;
        let index = config
            .get("script")
            .and_then(Value::as_u64)
            .ok_or_else(|| "config.script must be a non-negative integer".to_owned())?;
        let index = usize::try_from(index)
            .ok()
            .filter(|i| *i < scripts)
            .ok_or_else(|| {
                format!(
                    "config.script {index} names no interceptor script (the vector has {scripts})"
                )
            })?;
        Ok(Box::new(CallbackInterceptor {
            slot: kind_slot.clone(),
            index,
        }) as Box<dyn Interceptor>)
    });
    let (redact_slot, redact_limit) = (slot.clone(), redactor_timeout.clone());
    // The four names are valid by construction: a failure here is a bug of
    // this host, not a property of any vector.
    HostRegistry::for_conformance(surface)
        .kind(CTK_SCRIPTED_KIND, scripted)
        .and_then(|r| {
            r.identity_provider(CTK_FAULT_PROVIDER, |_| {
                panic!("ctk-fault fails every computation")
            })
        })
        .and_then(|r| {
            r.approval_resolver(
                CTK_SCRIPTED_RESOLVER,
                Box::new(CallbackResolver { slot: slot.clone() }),
            )
        })
        .and_then(|r| {
            r.approval_redactor(CTK_REDACTOR, move |ctx| {
                redact(&redact_slot, &redact_limit, ctx)
            })
        })
        .expect("the kit's four registry names satisfy the crate's name rules")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_is_the_crates_and_its_refusals_reach_the_emitter_as_refusals() {
        let allow = gate(
            &json!({"verdict": {"decision": "allow"}, "extensions": {"acme": {}}}),
            true,
        );
        assert_eq!(allow.decision, Decision::Allow);
        // An unknown member: a verdict the emitter's validate refuses.
        let odd = gate(&json!({"decision": "allow", "colour": "red"}), true);
        assert!(odd.validate().is_err());
        // A path the gate refuses keeps that path for the emitter's parser.
        let path = gate(
            &json!({"decision": "transform", "transform": {"path": "$snapshot.x", "value": 1}}),
            true,
        );
        assert!(path.validate().is_ok());
        assert_eq!(path.transform.expect("kept").path, "$snapshot.x");
        // A resolution's verdict is bare: an envelope there is refused.
        let nested = gate(&json!({"verdict": {"decision": "allow"}}), false);
        assert!(nested.validate().is_err());
    }

    #[test]
    fn resolutions_map_to_the_crates_typed_form() {
        let r = resolution(
            &json!({"outcome": "approve", "context_identity": "sha256:x", "verdict": {"decision": "allow"}}),
        );
        assert_eq!(r.outcome, ApprovalOutcome::Approve);
        assert_eq!(r.context_identity.as_deref(), Some("sha256:x"));
        assert_eq!(r.verdict.expect("present").decision, Decision::Allow);
        let unresolved = resolution(&json!({"outcome": "unresolved", "context_identity": null}));
        assert_eq!(unresolved.context_identity, None);
        assert!(unresolved.verdict.is_none());
        let outside = std::panic::catch_unwind(|| resolution(&json!({"outcome": "maybe"})));
        assert!(outside.is_err());
    }
}
