//! How a reply to a draft-line vector (`"ahp": "draft"`) is judged.
//!
//! The upstream `draft` line is mutable and never claimable; its vectors
//! (`vectors/ahp/draft/AHP-DB-*.json`) are run for information. The rules
//! are the draft schemas (`schemas/ahp/draft/`, through
//! [`ctk_ahp_wire::draft`], the definition both reference implementations
//! read too) plus the advertised set, which no schema can know. They follow
//! `spec/ahp/draft/DIFFERENCES.md` (section 3) for the revision
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

use ctk_ahp_wire::draft::DraftSchema;
use serde_json::Value;

use crate::assert::{envelope_problems, Decision};

/// The decision of a success response to `request` under the draft's rules,
/// or why it is not a valid draft intercept result. `request` is the message
/// sent (its `params.capabilities.effects` is the advertised set); `None`
/// means nothing beyond `deny` was advertised.
///
/// The result's shape is the draft schema's
/// ([`DraftSchema::InterceptResponse`], `schemas/ahp/draft/`); the envelope
/// is judged by the rules 0.1 shares, and what the schema cannot know (the
/// advertised set) is checked here.
pub fn decision(v: &Value, request: Option<&Value>) -> Result<Decision, Vec<String>> {
    let mut p = envelope_problems(v);
    let Some(result) = v.get("result") else {
        if let Some(e) = v.get("error") {
            p.push(format!("the backend answered with a JSON-RPC error: {e}"));
        }
        return Err(p);
    };
    p.extend(
        DraftSchema::InterceptResponse
            .problems(v)
            .iter()
            .filter(|f| f.pointer.starts_with("/result"))
            .map(ToString::to_string),
    );
    let advertised: Vec<&str> = request
        .and_then(|m| m.pointer("/params/capabilities/effects"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_else(|| vec!["deny"]);
    // The draft makes `effects` optional: absent is no effect.
    let effects = result
        .get("effects")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    // (index in `effects`, type) of every effect with a string type; the
    // schema reports the others.
    let kinds: Vec<(usize, &str)> = effects
        .iter()
        .enumerate()
        .filter_map(|(k, e)| Some((k, e.get("type").and_then(Value::as_str)?)))
        .collect();
    for &(k, kind) in &kinds {
        if !advertised.contains(&kind) {
            p.push(format!(
                "effects[{k}].type {kind:?} was not advertised (the request offered {advertised:?}); \
                 one unadvertised effect rejects the whole response"
            ));
        }
    }
    if !p.is_empty() {
        return Err(p);
    }
    // Effects apply in order and atomically: a deny among them makes the
    // decision a deny.
    Ok(if kinds.iter().any(|&(_, kind)| kind == "deny") {
        Decision::Deny
    } else if kinds.is_empty() {
        Decision::NoEffect
    } else {
        Decision::Other
    })
}

/// Why `m` is not a draft `hooks/intercept` request for `tool.before`, as
/// the PyPI SDK 0.10.1 revision shapes it (DIFFERENCES.md section 2, fact
/// sheet 11), by the draft schema ([`DraftSchema::InterceptRequest`]).
/// `harness`, `call` and `tool` need their required members; a member of
/// the harness's own inside them is allowed (DD-01: the draft's schemas
/// close them, its prose says receivers ignore unknown fields; the freedom
/// `closed-object-members` of `spec/ahp/draft/freedoms.json`). An empty list
/// means valid.
pub fn intercept_request_problems(m: &Value) -> Vec<String> {
    DraftSchema::InterceptRequest
        .problems(m)
        .iter()
        .map(ToString::to_string)
        .collect()
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
    fn a_request_is_judged_by_the_draft_schema_and_each_problem_says_where() {
        // The schema's cases are ctk_ahp_wire::draft's tests; here, that
        // the suite's judgement is that schema's, in words a report shows.
        let problems = intercept_request_problems(&json!({
            "jsonrpc": "2.0", "id": "e", "method": "hooks/intercept",
            "params": {"protocolVersion": "0.1"}}));
        for at in ["/params/protocolVersion: ", "/params: "] {
            assert!(
                problems.iter().any(|p| p.starts_with(at)),
                "{at} {problems:?}"
            );
        }
        assert!(!intercept_request_problems(&json!({})).is_empty());
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
        // The message names the effect's place in the array, whatever
        // comes before it.
        let late = ok(json!({"protocolVersion": "draft", "effects": [1, {"type": "ask"}]}));
        let problems = decision(&late, Some(&request)).unwrap_err();
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("effects[1].type \"ask\"")),
            "{problems:?}"
        );
    }
}
