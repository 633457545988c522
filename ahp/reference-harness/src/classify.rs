//! Judging one backend reply to a `hooks/intercept` request: a decision
//! (no effect, or one valid `deny`) or an operational failure (spec 14.1).
//!
//! The harness validates every reply before it applies an effect (spec
//! 6.1). The explicit checks below name the failure class; the kit's own
//! validator ([`ctk_ahp_wire::validate`]) then runs as a safety net, so
//! a reply the project's schemas refuse is never applied.
//!
//! Which rules judge the result is the harness's own line ([`Sent::line`]),
//! never read back from the message: 0.1's (`released_result`) or the
//! draft's (`draft_result`, whose member lists are the draft schemas'
//! through [`ctk_ahp_wire::draft`]). The envelope rules are shared.

use ctk_ahp_wire::draft::{holds, tables};
use ctk_ahp_wire::json::{self, JsonError};
use ctk_ahp_wire::validate;
use ctk_ahp_wire::version::{AhpLine, DRAFT_WIRE_VERSION, WIRE_VERSION};
use ctk_ahp_wire::wire::{is_reverse_dns, EFFECT_DENY, JSONRPC_VERSION};
use serde_json::{Map, Value};

/// An intercept request as the harness sent it, with the line whose rules
/// judge its reply.
#[derive(Debug, Clone, Copy)]
pub struct Sent<'a> {
    /// The line this harness speaks (its own setting).
    pub line: AhpLine,
    /// The request message: its id and its advertised effects.
    pub request: &'a Value,
}

/// What a valid reply decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// `effects: []`: this backend does not object. Never a grant (spec
    /// 12.3).
    NoEffect,
    /// One valid `deny` (spec 12.2): the tool must not run.
    Deny {
        /// The backend's reason (non-empty).
        reason: String,
        /// The backend's reverse-DNS code, if any.
        code: Option<String>,
    },
}

/// An operational failure of one interceptor (spec 14.1). The messages
/// name the class and never quote backend content or credentials, because
/// they go to the harness's log (spec 14.3, 18.3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The deadline passed before a usable reply arrived (spec 14.4).
    #[error("deadline of {0} ms exceeded")]
    Timeout(u64),
    /// The backend process could not be started.
    #[error("backend process failed to launch: {0}")]
    Launch(String),
    /// The backend process exited, or closed its stdout, without a usable
    /// reply; or a per-event process exited nonzero.
    #[error("backend process ended abnormally: {0}")]
    Exited(String),
    /// A per-event process wrote no reply before it exited.
    #[error("no reply from the backend")]
    NoReply,
    /// Connection refused, reset or lost, or any other transport error.
    #[error("transport failure: {0}")]
    Transport(String),
    /// The `tokenEnv` variable is not set; no unauthenticated request is
    /// sent (decision D-23).
    #[error("bearer token variable {0} is not set; request not sent")]
    TokenUnset(String),
    /// An HTTP status other than 200 for an intercept (spec 18.1).
    #[error("HTTP status {0} (an intercept needs 200)")]
    HttpStatus(u16),
    /// A reply whose media type is not `application/json` (spec 18.1,
    /// decision D-20).
    #[error("response media type is not application/json")]
    MediaType,
    /// A reply bigger than the harness accepts.
    #[error("reply larger than {0} bytes")]
    TooLarge(usize),
    /// The reply is not UTF-8 (spec 7.1).
    #[error("reply is not UTF-8")]
    NotUtf8,
    /// The reply is not one strict JSON value.
    #[error("reply is not JSON")]
    NotJson,
    /// More than one frame, or non-protocol output, where one reply was
    /// expected (spec 17.1, 17.3).
    #[error("output beyond one JSON-RPC frame")]
    ExtraOutput,
    /// The reply is JSON but not a JSON-RPC 2.0 response.
    #[error("reply is not a JSON-RPC 2.0 response: {0}")]
    NotJsonRpc(&'static str),
    /// The reply id differs from the request id (a `null` id matches
    /// nothing; decision D-09).
    #[error("reply id does not match the request id")]
    IdMismatch,
    /// A JSON-RPC error response (spec 16: any error is a failure).
    #[error("JSON-RPC error response (code {0})")]
    RpcError(String),
    /// `result.protocolVersion` missing or not `"0.1"`.
    #[error("result protocolVersion is missing or not \"0.1\"")]
    WrongVersion,
    /// On the draft line: `result.protocolVersion` missing or not
    /// `"draft"`.
    #[error("result protocolVersion is missing or not \"draft\"")]
    WrongDraftVersion,
    /// `result.effects` missing or not an array (spec 12.1).
    #[error("result effects is missing or not an array")]
    MissingEffects,
    /// Unknown, unadvertised, malformed or conflicting effects (spec 11,
    /// 12.1, 12.2).
    #[error("invalid effects: {0}")]
    BadEffects(&'static str),
    /// The project's validator refused the reply (rule id given).
    #[error("reply breaks {0}")]
    Invalid(&'static str),
}

impl Failure {
    /// Whether the backend wrote output that is not a usable protocol
    /// frame at all (as opposed to a well-formed answer the harness cannot
    /// accept, such as a JSON-RPC error): what spec 17.2 calls "malformed
    /// protocol output".
    pub fn is_malformed_output(&self) -> bool {
        matches!(
            self,
            Failure::NotUtf8
                | Failure::NotJson
                | Failure::NotJsonRpc(_)
                | Failure::ExtraOutput
                | Failure::Invalid(_)
                | Failure::TooLarge(_)
        )
    }
}

/// Judge `bytes` (one complete reply: a stdio frame without its LF, or an
/// HTTP body) as the answer to `sent`.
pub fn classify(sent: Sent<'_>, bytes: &[u8]) -> Result<Decision, Failure> {
    let reply = json::parse_bytes(bytes).map_err(|e| match e {
        JsonError::NotUtf8 { .. } => Failure::NotUtf8,
        JsonError::Syntax { .. } | JsonError::DuplicateKey { .. } => Failure::NotJson,
    })?;
    classify_value(sent, &reply)
}

/// [`classify`] for a reply already parsed.
pub fn classify_value(sent: Sent<'_>, reply: &Value) -> Result<Decision, Failure> {
    let request = sent.request;
    let obj = match reply {
        Value::Object(o) => o,
        Value::Array(_) => return Err(Failure::NotJsonRpc("a batch (array)")),
        _ => return Err(Failure::NotJsonRpc("not an object")),
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some(JSONRPC_VERSION) {
        return Err(Failure::NotJsonRpc("jsonrpc is not \"2.0\""));
    }
    if obj.contains_key("method") {
        return Err(Failure::NotJsonRpc(
            "a request or notification, not a response",
        ));
    }
    let has_result = obj.contains_key("result");
    let has_error = obj.contains_key("error");
    if has_result == has_error {
        return Err(Failure::NotJsonRpc("needs exactly one of result and error"));
    }
    // Ids compare as JSON values: type and value; null matches nothing.
    match (obj.get("id"), request.get("id")) {
        (Some(got), Some(want)) if got == want && !got.is_null() => {}
        _ => return Err(Failure::IdMismatch),
    }
    if let Some(error) = obj.get("error") {
        let code = error
            .get("code")
            .and_then(Value::as_i64)
            .map_or_else(|| "absent".to_owned(), |c| c.to_string());
        return Err(Failure::RpcError(code));
    }
    let result = obj
        .get("result")
        .and_then(Value::as_object)
        .ok_or(Failure::NotJsonRpc("result is not an object"))?;
    match sent.line {
        AhpLine::V0_1 => released_result(request, reply, result),
        AhpLine::Draft => draft_result(request, result),
    }
}

/// The advertised effect names of `request`.
fn advertised(request: &Value) -> Vec<&str> {
    request
        .pointer("/params/capabilities/effects")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The type of `effect`, which the request must have advertised; `None`
/// for the extension effect the capabilities freedoms advertise
/// (`extension-effects-tool-before` on the draft), which is enforced as
/// nothing.
fn enforced_type<'a>(effect: &'a Value, advertised: &[&str]) -> Result<Option<&'a str>, Failure> {
    let t = effect
        .get("type")
        .and_then(Value::as_str)
        .ok_or(Failure::BadEffects("an effect without a string type"))?;
    if !advertised.contains(&t) {
        return Err(Failure::BadEffects(
            "an effect type the request did not advertise",
        ));
    }
    if t == crate::freedoms::NOOP_EFFECT && crate::readings::get().noop_extension_effect {
        return Ok(None);
    }
    Ok(Some(t))
}

/// Judge the `result` of a success response to the 0.1 `request` (the
/// envelope, the id and a JSON-RPC error were judged already); `reply` is
/// the whole response, for the safety net.
fn released_result(
    request: &Value,
    reply: &Value,
    result: &Map<String, Value>,
) -> Result<Decision, Failure> {
    if result.get("protocolVersion").and_then(Value::as_str) != Some(WIRE_VERSION) {
        return Err(Failure::WrongVersion);
    }
    let effects = result
        .get("effects")
        .and_then(Value::as_array)
        .ok_or(Failure::MissingEffects)?;
    let advertised = advertised(request);
    let decision = match effects.as_slice() {
        [] => Decision::NoEffect,
        [effect] => {
            let Some(t) = enforced_type(effect, &advertised)? else {
                // The no-op extension effect: a no-effect answer.
                return Ok(Decision::NoEffect);
            };
            if t != EFFECT_DENY {
                // Only deny is advertised by this harness, so this is
                // unreachable today; an advertised extension effect this
                // harness cannot enforce would still be a failure.
                return Err(Failure::BadEffects("an effect this harness cannot enforce"));
            }
            let reason = effect
                .get("reason")
                .and_then(Value::as_str)
                .ok_or(Failure::BadEffects("a deny without a string reason"))?;
            if crate::readings::get().blank_reason_malformed && reason.trim().is_empty() {
                // The other reading of D-05: a reason with no visible text
                // is no reason, so the effect is malformed.
                return Err(Failure::BadEffects("a deny with a whitespace-only reason"));
            }
            if reason.is_empty() {
                // Whitespace-only text is a valid, unhelpful reason (D-05).
                return Err(Failure::BadEffects("a deny with an empty reason"));
            }
            let code = match effect.get("code") {
                None => None,
                Some(Value::String(c)) => Some(c.clone()),
                Some(_) => return Err(Failure::BadEffects("a deny code that is not a string")),
            };
            Decision::Deny {
                reason: reason.to_owned(),
                code,
            }
        }
        _ => return Err(Failure::BadEffects("more than one effect")),
    };
    // Safety net: the project's schemas and reply rules (reverse-DNS codes
    // and extension keys, member types) must accept the reply too.
    let mut findings = validate::check_message(reply);
    findings.extend(validate::check_reply(request, reply));
    if let Some(f) = findings.first() {
        return Err(Failure::Invalid(f.rule.id()));
    }
    Ok(decision)
}

/// Judge the `result` of a success response to the draft `request` (the
/// envelope, the id and a JSON-RPC error were judged already).
fn draft_result(request: &Value, result: &Map<String, Value>) -> Result<Decision, Failure> {
    if result.get("protocolVersion").and_then(Value::as_str) != Some(DRAFT_WIRE_VERSION) {
        return Err(Failure::WrongDraftVersion);
    }
    if let Some(ext) = result.get("extensions") {
        if !ext
            .as_object()
            .is_some_and(|o| o.keys().all(|k| is_reverse_dns(k)))
        {
            return Err(Failure::Invalid("result.extensions"));
        }
    }
    let effects = match result.get("effects") {
        // The draft makes `effects` optional: absent is no effect.
        None => return Ok(Decision::NoEffect),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(Failure::MissingEffects),
    };
    let advertised = advertised(request);
    // Every effect is checked before any is applied: one bad effect rejects
    // the whole response (atomic application).
    let mut decision = Decision::NoEffect;
    for effect in effects {
        let e = effect
            .as_object()
            .ok_or(Failure::BadEffects("an effect that is not an object"))?;
        let Some(t) = enforced_type(effect, &advertised)? else {
            continue;
        };
        if t != EFFECT_DENY {
            return Err(Failure::BadEffects("an effect this harness cannot enforce"));
        }
        if e.keys().any(|k| !holds(&tables().deny_members, k)) {
            return Err(Failure::BadEffects(
                "a deny with a member the draft does not define",
            ));
        }
        let reason = e
            .get("reason")
            .and_then(Value::as_str)
            .ok_or(Failure::BadEffects("a deny without a string reason"))?;
        if reason.is_empty() {
            return Err(Failure::BadEffects("a deny with an empty reason"));
        }
        if crate::readings::get().blank_reason_malformed && reason.trim().is_empty() {
            // The other reading of D-05, as on 0.1.
            return Err(Failure::BadEffects("a deny with a whitespace-only reason"));
        }
        let code = match e.get("code") {
            None => None,
            Some(Value::String(c)) if is_reverse_dns(c) => Some(c.clone()),
            Some(_) => {
                return Err(Failure::BadEffects(
                    "a deny code that is not a reverse-DNS name",
                ))
            }
        };
        if let Some(ext) = e.get("extensions") {
            if !ext
                .as_object()
                .is_some_and(|o| o.keys().all(|k| is_reverse_dns(k)))
            {
                return Err(Failure::BadEffects(
                    "deny extensions whose keys are not reverse-DNS names",
                ));
            }
        }
        if decision == Decision::NoEffect {
            decision = Decision::Deny {
                reason: reason.to_owned(),
                code,
            };
        }
    }
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> Value {
        json!({"jsonrpc": "2.0", "id": "e1", "method": "hooks/intercept",
               "params": {"protocolVersion": "0.1", "capabilities": {"effects": ["deny"]}}})
    }

    fn judge(reply: Value) -> Result<Decision, Failure> {
        classify_value(sent(&request()), &reply)
    }

    fn sent(request: &Value) -> Sent<'_> {
        Sent {
            line: AhpLine::V0_1,
            request,
        }
    }

    #[test]
    fn decisions() {
        assert_eq!(
            judge(
                json!({"jsonrpc": "2.0", "id": "e1", "result": {"protocolVersion": "0.1", "effects": [], "x": 1}})
            ),
            Ok(Decision::NoEffect)
        );
        assert_eq!(
            judge(
                json!({"jsonrpc": "2.0", "id": "e1", "result": {"protocolVersion": "0.1",
                "effects": [{"type": "deny", "reason": " ", "code": "com.example.x", "extra": true}]}})
            ),
            Ok(Decision::Deny {
                reason: " ".into(),
                code: Some("com.example.x".into())
            })
        );
    }

    #[test]
    fn failures() {
        let ok = |effects: Value| json!({"jsonrpc": "2.0", "id": "e1", "result": {"protocolVersion": "0.1", "effects": effects}});
        assert_eq!(classify(sent(&request()), b"\xff"), Err(Failure::NotUtf8));
        assert_eq!(classify(sent(&request()), b"{"), Err(Failure::NotJson));
        assert_eq!(
            judge(json!([])),
            Err(Failure::NotJsonRpc("a batch (array)"))
        );
        let mut null_id = ok(json!([]));
        null_id["id"] = Value::Null;
        assert_eq!(judge(null_id), Err(Failure::IdMismatch));
        let mut other_id = ok(json!([]));
        other_id["id"] = json!("e2");
        assert_eq!(judge(other_id), Err(Failure::IdMismatch));
        assert_eq!(
            judge(json!({"jsonrpc": "2.0", "id": "e1", "error": {"code": -32003, "message": "x"}})),
            Err(Failure::RpcError("-32003".into()))
        );
        assert!(matches!(
            judge(
                json!({"jsonrpc": "2.0", "id": "e1", "error": {"code": -32003, "message": "x"}, "result": {}})
            ),
            Err(Failure::NotJsonRpc(_))
        ));
        assert_eq!(
            judge(
                json!({"jsonrpc": "2.0", "id": "e1", "result": {"protocolVersion": "0.2", "effects": []}})
            ),
            Err(Failure::WrongVersion)
        );
        assert_eq!(
            judge(json!({"jsonrpc": "2.0", "id": "e1", "result": {"protocolVersion": "0.1"}})),
            Err(Failure::MissingEffects)
        );
        assert!(matches!(
            judge(ok(json!([{"type": "allow"}]))),
            Err(Failure::BadEffects(_))
        ));
        assert!(matches!(
            judge(ok(json!([{"type": "com.example.x"}]))),
            Err(Failure::BadEffects(_))
        ));
        assert!(matches!(
            judge(ok(json!([{"type": "deny", "reason": ""}]))),
            Err(Failure::BadEffects(_))
        ));
        assert!(matches!(
            judge(ok(
                json!([{"type": "deny", "reason": "a"}, {"type": "deny", "reason": "b"}])
            )),
            Err(Failure::BadEffects(_))
        ));
        assert!(matches!(
            judge(ok(
                json!([{"type": "deny", "reason": "a", "code": "notdns"}])
            )),
            Err(Failure::Invalid(_))
        ));
    }
    fn draft_request() -> Value {
        crate::draft::intercept_request(json!({"id": "e1", "type": "tool.before"}))
    }

    fn judge_draft(result: Value) -> Result<Decision, Failure> {
        let reply = json!({"jsonrpc": "2.0", "id": "e1", "result": result});
        let sent = Sent {
            line: AhpLine::Draft,
            request: &draft_request(),
        };
        classify_value(sent, &reply)
    }

    #[test]
    fn draft_validity_differs_from_0_1_by_the_harnesss_line() {
        // Absent effects: no effect (a failure in 0.1).
        assert_eq!(
            judge_draft(json!({"protocolVersion": "draft"})),
            Ok(Decision::NoEffect)
        );
        // Two denies: a deny, the first one reported (a failure in 0.1).
        assert_eq!(
            judge_draft(json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "a", "code": "org.example.a"},
                {"type": "deny", "reason": "b"}]})),
            Ok(Decision::Deny {
                reason: "a".into(),
                code: Some("org.example.a".into())
            })
        );
        // An unknown member in a deny: a failure (ignored in 0.1).
        assert!(judge_draft(json!({"protocolVersion": "draft", "effects": [
            {"type": "deny", "reason": "a", "severity": "high"}]}))
        .is_err());
    }

    #[test]
    fn bad_draft_results_are_failures() {
        for bad in [
            json!({"protocolVersion": "0.1", "effects": []}),
            json!({"effects": []}),
            json!({"protocolVersion": "draft", "effects": {}}),
            json!({"protocolVersion": "draft", "effects": [{"type": "deny", "reason": ""}]}),
            json!({"protocolVersion": "draft", "effects": [{"type": "deny"}]}),
            json!({"protocolVersion": "draft", "effects": [{"type": "allow"}]}),
            json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "r"}, {"type": "com.example.redact"}]}),
            json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "r", "code": "force_push"}]}),
            json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "r", "extensions": {"bare": 1}}]}),
        ] {
            assert!(judge_draft(bad.clone()).is_err(), "{bad}");
        }
    }
}
