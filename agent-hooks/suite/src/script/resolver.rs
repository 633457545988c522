//! The scripted approval resolver (stateless rules).

use ctk_agent_hooks_adapter::ResolverReply;
use serde_json::{json, Map, Value};

use crate::identity;
use crate::script::interceptor::matches;
use crate::vector::model::ApprovalRule;

/// Resolve an `ApprovalRequest`: the first rule whose `match` holds on the
/// request context answers; no rule means `unresolved` echoing the request's
/// identity.
pub fn resolve(rules: &[ApprovalRule], request: &Value) -> ResolverReply {
    let context = request.get("context").unwrap_or(&Value::Null);
    let request_identity = request
        .get("context_identity")
        .cloned()
        .unwrap_or(Value::Null);
    let Some(rule) = rules.iter().find(|r| matches(&r.match_, context)) else {
        return ResolverReply::Resolution(
            json!({"outcome": "unresolved", "context_identity": request_identity}),
        );
    };
    let resolve = &rule.resolve;
    if resolve.fault.is_some() {
        return ResolverReply::Raised {
            message: "ctk: scripted resolver raised".into(),
        };
    }
    let identity = if resolve.echo_recomputed {
        match identity::context_identity(context) {
            Ok(id) => Value::String(id),
            Err(_) if request_identity.is_null() => Value::Null,
            Err(_) => Value::String(String::new()),
        }
    } else if let Some(over) = &resolve.identity_override {
        Value::String(over.clone())
    } else {
        request_identity
    };
    let mut out = Map::new();
    out.insert(
        "outcome".into(),
        json!(resolve.outcome.as_deref().unwrap_or("unresolved")),
    );
    out.insert("context_identity".into(), identity);
    if let Some(verdict) = resolve.verdict.as_ref().or(resolve.verdict_raw.as_ref()) {
        out.insert("verdict".into(), verdict.clone());
    }
    ResolverReply::Resolution(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(v: Value) -> Vec<ApprovalRule> {
        serde_json::from_value(v).expect("rules")
    }

    fn ctx() -> Value {
        json!({"spec": "agent-hooks/0.1", "interception_point": "pre_tool_call", "timestamp": "t", "sequence": 4,
               "agent": {"id": "a", "framework": "f"}, "session": {"id": "s"}, "target": {"amount": "[redacted]"},
               "tool_call": {"id": "tc", "name": "w", "args": {"amount": "[redacted]"}}})
    }

    fn request() -> Value {
        json!({"context_identity": "sha256:req", "interception_point": "pre_tool_call", "verdict": {"decision": "deny"}, "context": ctx()})
    }

    #[test]
    fn echoes_the_request_identity_by_default() {
        let r = resolve(
            &rules(json!([{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}])),
            &request(),
        );
        assert_eq!(
            r,
            ResolverReply::Resolution(
                json!({"outcome": "approve", "context_identity": "sha256:req", "verdict": {"decision": "allow"}})
            )
        );
    }

    #[test]
    fn carries_a_raw_verdict_verbatim() {
        let r = resolve(
            &rules(
                json!([{"resolve": {"outcome": "approve", "verdict_raw": {"decision": "perhaps"}}}]),
            ),
            &request(),
        );
        assert_eq!(
            r,
            ResolverReply::Resolution(
                json!({"outcome": "approve", "context_identity": "sha256:req", "verdict": {"decision": "perhaps"}})
            )
        );
    }

    #[test]
    fn recomputes_or_overrides_the_identity() {
        let recomputed = identity::context_identity(&ctx()).expect("identity");
        let r = resolve(
            &rules(
                json!([{"match": {"target.amount": "[redacted]"}, "resolve": {"outcome": "approve", "echo_recomputed": true, "identity_override": "x"}}]),
            ),
            &request(),
        );
        assert_eq!(
            r,
            ResolverReply::Resolution(
                json!({"outcome": "approve", "context_identity": recomputed})
            )
        );
        let r = resolve(
            &rules(json!([{"resolve": {"outcome": "reject", "identity_override": "sha256:0"}}])),
            &request(),
        );
        assert_eq!(
            r,
            ResolverReply::Resolution(json!({"outcome": "reject", "context_identity": "sha256:0"}))
        );
    }

    #[test]
    fn no_rule_is_unresolved_and_fault_raises() {
        let r = resolve(
            &rules(json!([{"match": {"target.amount": 1}, "resolve": {"outcome": "approve"}}])),
            &request(),
        );
        assert_eq!(
            r,
            ResolverReply::Resolution(
                json!({"outcome": "unresolved", "context_identity": "sha256:req"})
            )
        );
        assert!(matches!(
            resolve(&rules(json!([{"resolve": {"fault": "raise"}}])), &request()),
            ResolverReply::Raised { .. }
        ));
    }
}
