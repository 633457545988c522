//! How a reply to a draft-line vector (`"ahp": "draft"`) is judged.
//!
//! The upstream `draft` line is mutable and never claimable; its vectors
//! (`vectors/ahp/draft/AHP-DB-*.json`) are run for information. The rules
//! below follow `spec/ahp/draft/DIFFERENCES.md` (section 3) for the revision
//! the PyPI `agenthooksprotocol` 0.10.1 bundles (repository commit
//! `1d98c19`), where they differ from 0.1 ([`crate::assert::decision`]):
//!
//! - the result carries `protocolVersion` `"draft"`;
//! - `effects` may be absent (no effect);
//! - several effects are allowed, applied in order and atomically: a deny
//!   among them makes the decision a deny;
//! - a `deny` effect is closed: only `type`, `reason` (non-empty), `code`
//!   (reverse-DNS) and `extensions` (reverse-DNS keys);
//! - every effect's `type` must be one the request advertised in
//!   `params.capabilities.effects` (an unadvertised effect rejects the
//!   whole response). The members of advertised effects other than `deny`
//!   are not judged here: the draft vectors that advertise them test only
//!   that the request is accepted;
//! - the result holds neither `manifest` nor `configuration` (those belong
//!   to the other draft methods).

use serde_json::Value;

use crate::assert::{check_extensions, envelope_problems, is_reverse_dns, Decision};

/// The members a draft `deny` effect may hold (the draft closes it).
const DENY_MEMBERS: &[&str] = &["type", "reason", "code", "extensions"];

/// The decision of a success response to `request` under the draft's rules,
/// or why it is not a valid draft intercept result. `request` is the message
/// sent (its `params.capabilities.effects` is the advertised set); `None`
/// means nothing beyond `deny` was advertised.
pub fn decision(v: &Value, request: Option<&Value>) -> Result<Decision, Vec<String>> {
    let mut p = envelope_problems(v);
    let Some(result) = v.get("result") else {
        if let Some(e) = v.get("error") {
            p.push(format!("the backend answered with a JSON-RPC error: {e}"));
        }
        return Err(p);
    };
    let Some(r) = result.as_object() else {
        p.push("result is not an object".to_owned());
        return Err(p);
    };
    match r.get("protocolVersion") {
        Some(Value::String(s)) if s == crate::vector::DRAFT_LINE => {}
        other => p.push(format!(
            "result.protocolVersion is {}, not \"draft\"",
            other.map_or("absent".to_owned(), Value::to_string)
        )),
    }
    for member in ["manifest", "configuration"] {
        if r.contains_key(member) {
            p.push(format!(
                "result.{member} is present; an intercept result never holds it"
            ));
        }
    }
    check_extensions(r.get("extensions"), "result.extensions", &mut p);
    let advertised: Vec<&str> = request
        .and_then(|m| m.pointer("/params/capabilities/effects"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_else(|| vec!["deny"]);
    let d = match r.get("effects") {
        // The draft makes `effects` optional: absent is no effect.
        None => Some(Decision::NoEffect),
        Some(Value::Array(effects)) if effects.is_empty() => Some(Decision::NoEffect),
        Some(Value::Array(effects)) => {
            let before = p.len();
            let mut deny = false;
            for (k, effect) in effects.iter().enumerate() {
                let Some(e) = effect.as_object() else {
                    p.push(format!("effects[{k}] is not an object"));
                    continue;
                };
                let Some(kind) = e.get("type").and_then(Value::as_str) else {
                    p.push(format!("effects[{k}].type is absent or not a string"));
                    continue;
                };
                if !advertised.contains(&kind) {
                    p.push(format!(
                        "effects[{k}].type {kind:?} was not advertised (the request offered {advertised:?}); \
                         one unadvertised effect rejects the whole response"
                    ));
                    continue;
                }
                if kind == "deny" {
                    deny = true;
                    deny_problems(e, k, &mut p);
                }
            }
            (p.len() == before).then_some(if deny {
                Decision::Deny
            } else {
                Decision::Other
            })
        }
        Some(other) => {
            p.push(format!("result.effects is {other}, not an array"));
            None
        }
    };
    match d {
        Some(d) if p.is_empty() => Ok(d),
        _ => Err(p),
    }
}

/// The problems of one draft `deny` effect (closed object).
fn deny_problems(e: &serde_json::Map<String, Value>, k: usize, p: &mut Vec<String>) {
    match e.get("reason") {
        Some(Value::String(s)) if !s.is_empty() => {}
        other => p.push(format!(
            "effects[{k}].reason is {}; a deny needs a non-empty reason",
            other.map_or("absent".to_owned(), Value::to_string)
        )),
    }
    match e.get("code") {
        None => {}
        Some(Value::String(s)) if is_reverse_dns(s) => {}
        Some(other) => p.push(format!(
            "effects[{k}].code {other} is not a reverse-DNS name"
        )),
    }
    check_extensions(e.get("extensions"), &format!("effects[{k}].extensions"), p);
    for key in e.keys() {
        if !DENY_MEMBERS.contains(&key.as_str()) {
            p.push(format!(
                "effects[{k}] holds member {key:?}; the draft's deny effect is closed \
                 (type, reason, code, extensions)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": "e", "result": result})
    }

    #[test]
    fn draft_validity_differs_from_0_1() {
        // Absent effects: no effect in the draft (a failure in 0.1).
        let absent = ok(json!({"protocolVersion": "draft"}));
        assert_eq!(decision(&absent, None), Ok(Decision::NoEffect));
        assert!(crate::assert::decision(&absent).is_err());
        // Two denies: a deny in the draft (a failure in 0.1).
        let two = ok(json!({"protocolVersion": "draft", "effects": [
            {"type": "deny", "reason": "a"}, {"type": "deny", "reason": "b"}]}));
        assert_eq!(decision(&two, None), Ok(Decision::Deny));
        // An unknown member in a deny: invalid in the draft (ignored in 0.1).
        let extra = ok(json!({"protocolVersion": "draft", "effects": [
            {"type": "deny", "reason": "a", "severity": "high"}]}));
        assert!(decision(&extra, None).is_err());
    }

    #[test]
    fn version_and_deny_members_are_checked() {
        for bad in [
            ok(json!({"protocolVersion": "0.1", "effects": []})),
            ok(json!({"effects": []})),
            ok(json!({"protocolVersion": "draft", "effects": [{"type": "deny", "reason": ""}]})),
            ok(json!({"protocolVersion": "draft", "effects": [{"type": "deny"}]})),
            ok(json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "r", "code": "force_push"}]})),
            ok(json!({"protocolVersion": "draft", "effects": {}})),
            ok(json!({"protocolVersion": "draft", "effects": [], "manifest": {}})),
            ok(json!({"protocolVersion": "draft", "effects": [], "extensions": {"bare": 1}})),
        ] {
            assert!(decision(&bad, None).is_err(), "{bad}");
        }
        let good = ok(json!({"protocolVersion": "draft", "effects": [
            {"type": "deny", "reason": "r", "code": "org.example.x",
             "extensions": {"org.example.y": 1}}]}));
        assert_eq!(decision(&good, None), Ok(Decision::Deny));
    }

    #[test]
    fn only_advertised_effects_are_valid() {
        let allow = ok(json!({"protocolVersion": "draft", "effects": [{"type": "allow"}]}));
        assert!(decision(&allow, None).is_err(), "allow was not advertised");
        let request = json!({"params": {"capabilities": {"effects": ["deny", "allow"]}}});
        assert_eq!(decision(&allow, Some(&request)), Ok(Decision::Other));
        let mixed = ok(json!({"protocolVersion": "draft", "effects": [
            {"type": "deny", "reason": "r"}, {"type": "ask"}]}));
        assert!(
            decision(&mixed, Some(&request)).is_err(),
            "one unadvertised effect rejects the whole response"
        );
    }
}
