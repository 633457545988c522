//! The §5 verdict gate: an interceptor's answer becomes a [`Verdict`] or a
//! reserved reason. Accepts a bare verdict or the response envelope
//! `{"verdict": {...}, "extensions": {...}}` (project decision P-006); only
//! the nested verdict is judged and enforced.

use serde_json::{Map, Value};

use crate::identity::jcs::{write_canonical, ByteCounter};
use crate::reason::{is_reserved_under, ReservedReason};
use crate::spec_version::SpecVersion;
use crate::verdict::model::{Decision, Transform, Verdict, Warning};
use crate::verdict::path::TransformPath;

/// Largest canonical size of `evidence`, in bytes (§5.3).
pub const EVIDENCE_MAX_BYTES: usize = 10_240;

const VERDICT_MEMBERS: [&str; 8] = [
    "decision",
    "reason",
    "message",
    "warnings",
    "approval",
    "transform",
    "evidence",
    "result_labels",
];

/// Judge `answer`. The error is the reserved reason of the substituted deny:
/// `verdict_invalid` for a §5 failure, or the §5.2 reason of a path the
/// grammar refuses.
pub fn gate(answer: &Value) -> Result<Verdict, ReservedReason> {
    gate_for(answer, SpecVersion::V0_1)
}

/// [`gate`] with the rules of `version`: under the draft an interceptor may
/// not use the reserved `host_warning:*` namespace either, as a verdict
/// reason or as a warning reason.
pub fn gate_for(answer: &Value, version: SpecVersion) -> Result<Verdict, ReservedReason> {
    let obj = answer.as_object().ok_or(ReservedReason::VerdictInvalid)?;
    // A `verdict` member means the §5 response envelope; a verdict object
    // has no such member (an object with both is invalid either way).
    if obj.contains_key("verdict") {
        return gate_envelope(obj, version);
    }
    gate_verdict(obj, version)
}

fn gate_envelope(
    obj: &Map<String, Value>,
    version: SpecVersion,
) -> Result<Verdict, ReservedReason> {
    for (k, v) in obj {
        match k.as_str() {
            "verdict" => {}
            "extensions" if v.is_object() => {}
            _ => return Err(ReservedReason::VerdictInvalid),
        }
    }
    let inner = obj
        .get("verdict")
        .and_then(Value::as_object)
        .ok_or(ReservedReason::VerdictInvalid)?;
    gate_verdict(inner, version)
}

/// `null` for an optional member means the member is absent.
fn opt<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn opt_string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, ReservedReason> {
    match opt(obj, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ReservedReason::VerdictInvalid),
    }
}

fn gate_verdict(obj: &Map<String, Value>, version: SpecVersion) -> Result<Verdict, ReservedReason> {
    const INVALID: ReservedReason = ReservedReason::VerdictInvalid;
    if obj.keys().any(|k| !VERDICT_MEMBERS.contains(&k.as_str())) {
        return Err(INVALID);
    }
    let decision = match obj.get("decision").and_then(Value::as_str) {
        Some("allow") => Decision::Allow,
        Some("deny") => Decision::Deny,
        Some("transform") => Decision::Transform,
        _ => return Err(INVALID),
    };
    let reason = opt_string(obj, "reason")?;
    if reason
        .as_deref()
        .is_some_and(|r| is_reserved_under(r, version))
    {
        return Err(INVALID);
    }
    let message = opt_string(obj, "message")?;
    let warnings = match opt(obj, "warnings") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|w| gate_warning(w, version))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(INVALID),
    };
    let approval = match opt(obj, "approval") {
        None => None,
        Some(Value::Object(a)) if decision == Decision::Deny => Some(a.clone()),
        Some(_) => return Err(INVALID),
    };
    let transform = match (opt(obj, "transform"), decision) {
        (None, Decision::Transform) | (Some(_), Decision::Allow | Decision::Deny) => {
            return Err(INVALID)
        }
        (None, _) => None,
        (Some(t), _) => Some(gate_transform(t)?),
    };
    let evidence = match opt(obj, "evidence") {
        None => None,
        Some(e) => Some(gate_evidence(e)?),
    };
    let result_labels = match opt(obj, "result_labels") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|l| l.as_str().map(str::to_owned).ok_or(INVALID))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(INVALID),
    };
    Ok(Verdict {
        decision,
        reason,
        message,
        warnings,
        approval,
        transform,
        evidence,
        result_labels,
    })
}

fn gate_warning(w: &Value, version: SpecVersion) -> Result<Warning, ReservedReason> {
    let obj = w.as_object().ok_or(ReservedReason::VerdictInvalid)?;
    if obj.keys().any(|k| k != "reason" && k != "message") {
        return Err(ReservedReason::VerdictInvalid);
    }
    let reason = opt_string(obj, "reason")?;
    if reason
        .as_deref()
        .is_some_and(|r| is_reserved_under(r, version))
    {
        return Err(ReservedReason::VerdictInvalid);
    }
    Ok(Warning {
        reason,
        message: opt_string(obj, "message")?,
    })
}

fn gate_transform(t: &Value) -> Result<Transform, ReservedReason> {
    let obj = t.as_object().ok_or(ReservedReason::VerdictInvalid)?;
    if obj.keys().any(|k| k != "path" && k != "value") {
        return Err(ReservedReason::VerdictInvalid);
    }
    let raw_path = obj
        .get("path")
        .and_then(Value::as_str)
        .ok_or(ReservedReason::VerdictInvalid)?;
    let path = TransformPath::parse(raw_path).map_err(|e| e.reason())?;
    Ok(Transform {
        raw_path: raw_path.to_owned(),
        path,
        value: obj.get("value").cloned().unwrap_or(Value::Null),
    })
}

fn gate_evidence(e: &Value) -> Result<Value, ReservedReason> {
    let obj = e.as_object().ok_or(ReservedReason::VerdictInvalid)?;
    for (k, v) in obj {
        let ok = match k.as_str() {
            "artefact" => v.is_null() || v.is_string(),
            "verification_pointers" => v
                .as_object()
                .is_some_and(|m| m.values().all(Value::is_string)),
            _ => false,
        };
        if !ok {
            return Err(ReservedReason::VerdictInvalid);
        }
    }
    let mut size = ByteCounter::default();
    write_canonical(e, &mut size);
    if size.0 > EVIDENCE_MAX_BYTES {
        return Err(ReservedReason::VerdictInvalid);
    }
    Ok(e.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rejects(v: Value) -> ReservedReason {
        gate(&v).expect_err("must be refused")
    }

    #[test]
    fn plain_verdicts_pass() {
        let v = gate(&json!({"decision": "deny", "reason": "ctk:x", "approval": {}, "warnings": [{"reason": "w"}],
            "result_labels": ["l"], "evidence": {"artefact": "sha256:00", "verification_pointers": {"a": "https://x"}}}))
            .expect("valid");
        assert!(v.is_liftable());
        assert_eq!(v.warnings.len(), 1);
    }

    #[test]
    fn null_members_count_as_absent() {
        let v = gate(&json!({"decision": "allow", "reason": null, "warnings": null, "approval": null, "transform": null}))
            .expect("valid");
        assert_eq!(v, Verdict::allow());
    }

    #[test]
    fn structural_failures_are_verdict_invalid() {
        for bad in [
            json!("allow"),
            json!({}),
            json!({"decision": "warn"}),
            json!({"decision": "allow", "reason": "host_error:no_interceptor"}),
            json!({"decision": "allow", "reason": 3}),
            json!({"decision": "transform"}),
            json!({"decision": "allow", "transform": {"path": "$target"}}),
            json!({"decision": "allow", "approval": {}}),
            json!({"decision": "transform", "approval": {}, "transform": {"path": "$target"}}),
            json!({"decision": "allow", "warnings": ["w"]}),
            json!({"decision": "allow", "warnings": [{"reason": "host_error:x"}]}),
            json!({"decision": "allow", "evidence": "e"}),
            json!({"decision": "allow", "evidence": {"other": 1}}),
            json!({"decision": "allow", "result_labels": [1]}),
            json!({"decision": "allow", "surprise": true}),
            json!({"decision": "transform", "transform": {"value": 1}}),
            json!({"decision": "transform", "transform": {"path": "$target", "extra": 1}}),
        ] {
            assert_eq!(
                rejects(bad.clone()),
                ReservedReason::VerdictInvalid,
                "{bad}"
            );
        }
    }

    #[test]
    fn evidence_cap_is_measured_canonically() {
        // {"artefact":"…"} adds 15 bytes around the string.
        let fits = "x".repeat(EVIDENCE_MAX_BYTES - 15);
        assert!(gate(&json!({"decision": "allow", "evidence": {"artefact": fits}})).is_ok());
        let over = "x".repeat(EVIDENCE_MAX_BYTES - 14);
        assert_eq!(
            rejects(json!({"decision": "allow", "evidence": {"artefact": over}})),
            ReservedReason::VerdictInvalid
        );
    }

    #[test]
    fn path_errors_take_the_transform_reasons() {
        assert_eq!(
            rejects(
                json!({"decision": "transform", "transform": {"path": "$context.x", "value": 1}})
            ),
            ReservedReason::TransformTargetForbidden
        );
        assert_eq!(
            rejects(
                json!({"decision": "transform", "transform": {"path": "$target[*]", "value": 1}})
            ),
            ReservedReason::TransformInvalid
        );
    }

    #[test]
    fn absent_transform_value_means_null() {
        let v = gate(&json!({"decision": "transform", "transform": {"path": "$target.a"}}))
            .expect("valid");
        assert_eq!(v.transform.expect("t").value, Value::Null);
    }

    #[test]
    fn response_envelope_is_accepted_and_only_the_verdict_counts() {
        let v = gate(&json!({"verdict": {"decision": "deny", "reason": "ctk:x"}, "extensions": {"p": {"receipt": {}}}}))
            .expect("valid");
        assert_eq!(v.decision, Decision::Deny);
        assert_eq!(
            rejects(json!({"verdict": {"decision": "allow", "extra": 1}})),
            ReservedReason::VerdictInvalid
        );
        assert_eq!(
            rejects(json!({"verdict": {"decision": "allow"}, "other": 1})),
            ReservedReason::VerdictInvalid
        );
        assert_eq!(
            rejects(json!({"verdict": "allow"})),
            ReservedReason::VerdictInvalid
        );
    }
}
