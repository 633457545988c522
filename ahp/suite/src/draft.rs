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

/// Event-level members a `tool.before` must not hold (they belong to
/// `tool.after`).
const AFTER_ONLY: &[&str] = &["outcome", "execution", "durationMs", "fileChanges"];

fn non_empty(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str).is_some_and(|s| !s.is_empty())
}

/// An RFC 3339 date-time (§5.6), by the `time` crate's parser. RFC 3339
/// lets `T` and `Z` be lower case, so the text is read in upper case; that
/// parser also takes a space between date and time, which the grammar (and
/// JSON Schema's `date-time`) does not, so the separator is checked first.
fn is_date_time(s: &str) -> bool {
    s.as_bytes()
        .get(10)
        .is_some_and(|b| matches!(b, b'T' | b't'))
        && time::OffsetDateTime::parse(
            &s.to_ascii_uppercase(),
            &time::format_description::well_known::Rfc3339,
        )
        .is_ok()
}

/// Why `m` is not a draft `hooks/intercept` request for `tool.before`, as
/// the PyPI SDK 0.10.1 revision shapes it (DIFFERENCES.md section 2, fact
/// sheet 11): `params` holds `protocolVersion` `"draft"`, `event`,
/// `capabilities.effects` (strings) and `state` (an object); the event
/// holds `id`, `source`, `type` `"tool.before"`, `time` (RFC 3339),
/// `harness{name, version}`, `call{id}` and `path`, and none of the
/// `tool.after` members; `tool` holds `name`, an object `input`, `origin`
/// (`native` or `mcp`, with `mcp` exactly when `mcp`) and an optional
/// non-empty `kind`. `harness`, `call` and `tool` need their required
/// members; a member of the harness's own inside them is allowed (DD-01:
/// the draft's schemas close them, its prose says receivers ignore unknown
/// fields). An empty list means valid.
pub fn intercept_request_problems(m: &Value) -> Vec<String> {
    let mut p = Vec::new();
    if m.get("jsonrpc") != Some(&Value::from("2.0")) {
        p.push("jsonrpc is not \"2.0\"".to_owned());
    }
    if !non_empty(m.get("id")) && !m.get("id").is_some_and(Value::is_i64) {
        p.push("id is not a non-empty string or an integer".to_owned());
    }
    if m.get("method") != Some(&Value::from("hooks/intercept")) {
        p.push("method is not hooks/intercept".to_owned());
    }
    let Some(params) = m.get("params").and_then(Value::as_object) else {
        p.push("params is not an object".to_owned());
        return p;
    };
    if params.get("protocolVersion") != Some(&Value::from(crate::vector::DRAFT_LINE)) {
        p.push("params.protocolVersion is not \"draft\"".to_owned());
    }
    match params.get("capabilities").and_then(|c| c.get("effects")) {
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
        _ => p.push("params.capabilities.effects is not an array of effect names".to_owned()),
    }
    if !params.get("state").is_some_and(Value::is_object) {
        p.push("params.state is absent or not an object".to_owned());
    }
    let Some(e) = params.get("event").and_then(Value::as_object) else {
        p.push("params.event is not an object".to_owned());
        return p;
    };
    for k in ["id", "source", "path"] {
        if !non_empty(e.get(k)) {
            p.push(format!("event.{k} is absent or not a non-empty string"));
        }
    }
    if e.get("source")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.contains(':'))
    {
        p.push("event.source is not an absolute URI".to_owned());
    }
    if e.get("type") != Some(&Value::from("tool.before")) {
        p.push("event.type is not tool.before".to_owned());
    }
    if !e
        .get("time")
        .and_then(Value::as_str)
        .is_some_and(is_date_time)
    {
        p.push("event.time is absent or not an RFC 3339 date-time".to_owned());
    }
    for k in AFTER_ONLY {
        if e.contains_key(*k) {
            p.push(format!("event.{k} is present; tool.before never holds it"));
        }
    }
    if let Some(s) = e.get("session") {
        if !non_empty(s.get("id")) {
            p.push("event.session has no non-empty id".to_owned());
        }
    }
    let required_members = |name: &str, required: &[&str], p: &mut Vec<String>| {
        let Some(o) = e.get(name).and_then(Value::as_object) else {
            p.push(format!("event.{name} is absent or not an object"));
            return;
        };
        for r in required {
            if !non_empty(o.get(*r)) {
                p.push(format!(
                    "event.{name}.{r} is absent or not a non-empty string"
                ));
            }
        }
        // The draft's schemas close these objects while its prose says
        // receivers ignore unknown fields (DD-01): whether a harness may put
        // a member of its own there is the freedom `closed-object-members`
        // of spec/ahp/draft/freedoms.json, so an unknown member is not held
        // against the request here.
    };
    required_members("harness", &["name", "version"], &mut p);
    required_members("call", &["id"], &mut p);
    required_members("tool", &["name"], &mut p);
    if let Some(t) = e.get("tool").and_then(Value::as_object) {
        if !t.get("input").is_some_and(Value::is_object) {
            p.push("event.tool.input is absent or not an object".to_owned());
        }
        match t.get("origin").and_then(Value::as_str) {
            Some("native") if !t.contains_key("mcp") => {}
            Some("mcp") if t.get("mcp").is_some_and(Value::is_object) => {}
            other => p.push(format!(
                "event.tool.origin is {other:?}: native (without mcp) or mcp (with an mcp object)"
            )),
        }
        if t.get("kind").is_some_and(|k| !non_empty(Some(k))) {
            p.push("event.tool.kind is present but not a non-empty string".to_owned());
        }
    }
    p
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_rfc_3339_date_time_is_read_by_the_time_crate() {
        for ok in [
            "2026-08-24T08:51:14Z",
            "2026-08-24t08:51:14z",
            "2026-08-24T08:51:14.123456+02:00",
            "2026-08-24T08:51:14-05:30",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2026-13-24T08:51:14Z",
            "2026-02-30T08:51:14Z",
            "2026-08-24T08:51Z",
            "2026-08-24T08:51:14",
            "2026-08-24 08:51:14Z",
            "2026-08-24T08:51:14.Z",
            "",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }

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

    /// A draft `tool.before` request as the PyPI SDK 0.10.1 sends it.
    fn sdk_request() -> Value {
        json!({"jsonrpc": "2.0", "id": "evt-1", "method": "hooks/intercept", "params": {
            "protocolVersion": "draft",
            "event": {"path": "native", "call": {"id": "call-1"},
                      "tool": {"input": {"command": "ls"}, "kind": "shell", "name": "Bash", "origin": "native"},
                      "id": "evt-1", "source": "urn:uuid:1", "harness": {"name": "h", "version": "1"},
                      "type": "tool.before", "time": "2026-12-01T11:37:31.063119+00:00"},
            "capabilities": {"effects": ["deny"]},
            "state": {"candidate": null, "permission": "none"}}})
    }

    #[test]
    fn the_draft_request_shape_is_checked() {
        assert_eq!(
            intercept_request_problems(&sdk_request()),
            Vec::<String>::new()
        );
        let mut no_kind = sdk_request();
        no_kind["params"]["event"]["tool"]
            .as_object_mut()
            .unwrap()
            .remove("kind");
        assert!(
            intercept_request_problems(&no_kind).is_empty(),
            "kind is optional"
        );
        for (ptr, bad) in [
            ("/params/protocolVersion", json!("0.1")),
            ("/params/state", json!(null)),
            ("/params/event/path", json!("")),
            ("/params/event/time", json!("yesterday")),
            ("/params/event/tool/origin", json!("plugin")),
            ("/params/event/harness", json!({"name": "h"})),
            ("/params/event/call", json!({"x": 1})),
        ] {
            let mut r = sdk_request();
            *r.pointer_mut(ptr).unwrap() = bad;
            assert!(!intercept_request_problems(&r).is_empty(), "{ptr}");
        }
        // A member of the harness's own inside harness, call or tool (0.1's
        // callId, say) is the harness's choice (DD-01, the freedom
        // closed-object-members): the draft's prose says receivers ignore it.
        let mut callid = sdk_request();
        callid["params"]["event"]["tool"]["callId"] = json!("call-1");
        callid["params"]["event"]["call"]["x-extra"] = json!(1);
        assert!(intercept_request_problems(&callid).is_empty());
        // No call object at all.
        let mut nocall = sdk_request();
        nocall["params"]["event"]
            .as_object_mut()
            .unwrap()
            .remove("call");
        assert!(!intercept_request_problems(&nocall).is_empty());
        let mut after = sdk_request();
        after["params"]["event"]["outcome"] = json!("ok");
        assert!(!intercept_request_problems(&after).is_empty());
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
