//! Judging one backend reply to a `hooks/intercept` request: a decision
//! (no effect, or one valid `deny`) or an operational failure (spec 14.1).
//!
//! The harness validates every reply before it applies an effect (spec
//! 6.1). The explicit checks below name the failure class; the kit's own
//! validator ([`ctk_ahp_wire::validate`]) then runs as a safety net, so
//! a reply the project's schemas refuse is never applied.

use ctk_ahp_wire::json::{self, JsonError};
use ctk_ahp_wire::validate;
use ctk_ahp_wire::version::WIRE_VERSION;
use ctk_ahp_wire::wire::{EFFECT_DENY, JSONRPC_VERSION};
use serde_json::Value;

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
/// HTTP body) as the answer to `request`.
pub fn classify(request: &Value, bytes: &[u8]) -> Result<Decision, Failure> {
    let reply = json::parse_bytes(bytes).map_err(|e| match e {
        JsonError::NotUtf8 { .. } => Failure::NotUtf8,
        JsonError::Syntax { .. } | JsonError::DuplicateKey { .. } => Failure::NotJson,
    })?;
    classify_value(request, &reply)
}

/// [`classify`] for a reply already parsed.
pub fn classify_value(request: &Value, reply: &Value) -> Result<Decision, Failure> {
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
    // A draft request is judged by the draft's rules (crate::draft).
    if request
        .pointer("/params/protocolVersion")
        .and_then(Value::as_str)
        == Some(crate::draft::DRAFT_WIRE_VERSION)
    {
        return crate::draft::classify_result(request, result);
    }
    if result.get("protocolVersion").and_then(Value::as_str) != Some(WIRE_VERSION) {
        return Err(Failure::WrongVersion);
    }
    let effects = result
        .get("effects")
        .and_then(Value::as_array)
        .ok_or(Failure::MissingEffects)?;
    let advertised: Vec<&str> = request
        .pointer("/params/capabilities/effects")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let decision = match effects.as_slice() {
        [] => Decision::NoEffect,
        [effect] => {
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
                // The extension effect the capabilities freedom advertises:
                // enforced as nothing, so the reply is a no-effect answer.
                return Ok(Decision::NoEffect);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> Value {
        json!({"jsonrpc": "2.0", "id": "e1", "method": "hooks/intercept",
               "params": {"protocolVersion": "0.1", "capabilities": {"effects": ["deny"]}}})
    }

    fn judge(reply: Value) -> Result<Decision, Failure> {
        classify_value(&request(), &reply)
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
        assert_eq!(classify(&request(), b"\xff"), Err(Failure::NotUtf8));
        assert_eq!(classify(&request(), b"{"), Err(Failure::NotJson));
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
}
