//! The implicit check of every approval request the host sent the kit's
//! resolver (§9: the request carries the context identity, the interception
//! point and the liftable deny; upstream `approval.schema.json` `request`
//! requires exactly those three). A vector needs no key for it: a host whose
//! requests lack them fails every vector that consults the seam, whatever
//! the scripted resolver then answered.

use serde_json::Value;

use crate::assert::AssertionFailure;

/// The eight interception points (§3), the values `interception_point` takes.
const POINTS: [&str; 8] = [
    "agent_startup",
    "input",
    "pre_model_call",
    "post_model_call",
    "pre_tool_call",
    "post_tool_call",
    "output",
    "agent_shutdown",
];

/// Check each request: an object whose `context_identity` is a string or
/// `null`, whose `interception_point` is one of the eight points, and whose
/// `verdict` is the deny being consulted (an object with `decision` `deny`).
pub fn check_requests(requests: &[Value], failures: &mut Vec<AssertionFailure>) {
    for (n, request) in requests.iter().enumerate() {
        let key = format!("approval_requests[{n}]");
        let Some(obj) = request.as_object() else {
            failures.push(AssertionFailure::message(
                key,
                "the approval request is not a JSON object (§9)",
            ));
            continue;
        };
        let mut wrong = Vec::new();
        if !matches!(
            obj.get("context_identity"),
            Some(Value::String(_) | Value::Null)
        ) {
            wrong.push("context_identity is not a string or null");
        }
        if !obj
            .get("interception_point")
            .and_then(Value::as_str)
            .is_some_and(|p| POINTS.contains(&p))
        {
            wrong.push("interception_point is not one of the eight points");
        }
        let is_deny = obj
            .get("verdict")
            .and_then(Value::as_object)
            .and_then(|v| v.get("decision"))
            .and_then(Value::as_str)
            == Some("deny");
        if !is_deny {
            wrong.push("verdict is not the deny being consulted (an object with decision deny)");
        }
        if !wrong.is_empty() {
            failures.push(AssertionFailure::mismatch(
                key,
                format!(
                    "the approval request does not carry what §9 requires: {}",
                    wrong.join("; ")
                ),
                &Value::String(
                    "{context_identity: string|null, interception_point, verdict: {decision: deny, ...}, ...}"
                        .into(),
                ),
                // Without its context, which may be megabytes.
                Some(&Value::Object(
                    obj.iter()
                        .filter(|(k, _)| k.as_str() != "context")
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn failures(requests: &[Value]) -> Vec<AssertionFailure> {
        let mut f = Vec::new();
        check_requests(requests, &mut f);
        f
    }

    #[test]
    fn a_request_carrying_identity_point_and_deny_passes() {
        let ok = json!({"context_identity": "sha256:00", "interception_point": "pre_tool_call",
            "verdict": {"decision": "deny", "reason": "ctk:soft", "approval": {}}, "context": {}});
        let unbound = json!({"context_identity": null, "interception_point": "input",
            "verdict": {"decision": "deny", "approval": {}}});
        assert!(failures(&[ok, unbound]).is_empty());
    }

    #[test]
    fn each_missing_or_wrong_member_fails_with_its_index() {
        let base = json!({"context_identity": "sha256:00", "interception_point": "output",
            "verdict": {"decision": "deny", "approval": {}}});
        for (member, bad) in [
            ("verdict", Value::Null),
            ("verdict", json!({"decision": "allow"})),
            ("interception_point", json!("tool_call")),
            ("context_identity", json!(7)),
        ] {
            let mut r = base.clone();
            r[member] = bad;
            let f = failures(&[base.clone(), r]);
            assert_eq!(f.len(), 1, "{member}");
            assert_eq!(f[0].key, "approval_requests[1]");
            assert!(f[0].message.contains(member), "{}", f[0].message);
        }
        let mut r = base.clone();
        r.as_object_mut().map(|o| o.remove("context_identity"));
        assert_eq!(failures(&[r]).len(), 1);
        assert_eq!(failures(&[json!("request")]).len(), 1);
    }
}
