//! The §4 envelope check a host runs before dispatching any emission
//! (§10.2 step 1, §6.3): presence and JSON type of the required core and of
//! the point's conditional members. Messages are value-free.

use serde_json::Value;

pub use crate::errors::EnvelopeError;
use crate::point::Point;
use crate::spec_version::SpecVersion;

/// Validate the envelope of `context` for an emitter of `version`; on
/// success return the point it names.
pub fn validate_envelope(context: &Value, version: SpecVersion) -> Result<Point, EnvelopeError> {
    let obj = context.as_object().ok_or(EnvelopeError::NotObject)?;
    let spec = obj
        .get("spec")
        .and_then(Value::as_str)
        .ok_or(EnvelopeError::Member("spec"))?;
    if spec != version.wire() {
        return Err(EnvelopeError::OtherVersion);
    }
    let point = obj
        .get("interception_point")
        .and_then(Value::as_str)
        .ok_or(EnvelopeError::Member("interception_point"))?;
    let point = Point::parse(point).ok_or(EnvelopeError::UnknownPoint)?;
    if !obj.get("timestamp").is_some_and(Value::is_string) {
        return Err(EnvelopeError::Member("timestamp"));
    }
    if !obj.get("sequence").is_some_and(|s| s.is_u64()) {
        return Err(EnvelopeError::Member("sequence"));
    }
    let agent = obj
        .get("agent")
        .and_then(Value::as_object)
        .ok_or(EnvelopeError::Member("agent"))?;
    if agent
        .get("id")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err(EnvelopeError::Member("agent.id"));
    }
    let framework = agent
        .get("framework")
        .and_then(Value::as_str)
        .ok_or(EnvelopeError::Member("agent.framework"))?;
    if framework.is_empty()
        || !framework
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
    {
        return Err(EnvelopeError::Framework);
    }
    let session = obj
        .get("session")
        .and_then(Value::as_object)
        .ok_or(EnvelopeError::Member("session"))?;
    if session
        .get("id")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err(EnvelopeError::Member("session.id"));
    }
    if !obj.contains_key("target") {
        return Err(EnvelopeError::Member("target"));
    }
    if let Some(ext) = obj.get("extensions") {
        // Namespaces are checked, never interpreted: their contents pass verbatim.
        let ext = ext.as_object().ok_or(EnvelopeError::Extensions)?;
        if !ext.keys().all(|ns| valid_namespace(ns)) {
            return Err(EnvelopeError::Extensions);
        }
    }
    for (key, subfields) in point.conditional() {
        let member = obj.get(*key).ok_or(EnvelopeError::Conditional(key))?;
        if let Some(fields) = subfields {
            let inner = member.as_object().ok_or(EnvelopeError::Conditional(key))?;
            if !fields.iter().all(|f| inner.contains_key(*f)) {
                return Err(EnvelopeError::Conditional(key));
            }
        }
        if !conditional_types_hold(key, member) {
            return Err(EnvelopeError::Conditional(key));
        }
    }
    Ok(point)
}

/// The §4.2 JSON types of a conditional member's subfields. Checked on every
/// context, before dispatch and again after composition, so that a transform
/// can never hand the next step of the loop a value of the wrong shape
/// (DECISIONS.md D-35).
fn conditional_types_hold(key: &str, member: &Value) -> bool {
    let field = |name: &str| member.get(name).unwrap_or(&Value::Null);
    let one_of =
        |name: &str, allowed: &[&str]| field(name).as_str().is_some_and(|v| allowed.contains(&v));
    match key {
        "agent_init" => field("tools_registered")
            .as_array()
            .is_some_and(|tools| tools.iter().all(Value::is_string)),
        "input" => {
            one_of("role", &["user", "system", "external"])
                && (field("content").is_string() || field("content").is_object())
        }
        "model" => field("id").is_string(),
        "messages" => member
            .as_array()
            .is_some_and(|messages| messages.iter().all(Value::is_object)),
        "response" => field("tool_calls").is_array() && field("finish_reason").is_string(),
        "tool_call" => {
            field("id").is_string() && field("name").is_string() && field("args").is_object()
        }
        "tool_result" => field("is_error").is_boolean(),
        "summary" => one_of("reason", &["completed", "error", "cancelled"]),
        _ => true,
    }
}

/// Whether `ns` is an extension namespace: `^[a-z][a-z0-9_]*$` (§4.6).
pub fn valid_namespace(ns: &str) -> bool {
    let mut b = ns.bytes();
    b.next().is_some_and(|c| c.is_ascii_lowercase())
        && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid() -> Value {
        json!({"spec": "agent-hooks/0.1", "interception_point": "output", "timestamp": "t", "sequence": 6,
            "agent": {"id": "a", "framework": "ref-1_x"}, "session": {"id": "s"},
            "target": {"content": "x"}, "output": {"content": "x"}})
    }

    #[test]
    fn a_complete_context_passes() {
        assert_eq!(
            validate_envelope(&valid(), SpecVersion::V0_1),
            Ok(Point::Output)
        );
    }

    #[test]
    fn another_version_is_refused() {
        assert_eq!(
            validate_envelope(&valid(), SpecVersion::Draft),
            Err(EnvelopeError::OtherVersion)
        );
    }

    #[test]
    fn each_required_member_is_checked() {
        for key in [
            "spec",
            "interception_point",
            "timestamp",
            "sequence",
            "agent",
            "session",
            "target",
            "output",
        ] {
            let mut ctx = valid();
            ctx.as_object_mut().expect("object").remove(key);
            assert!(validate_envelope(&ctx, SpecVersion::V0_1).is_err(), "{key}");
        }
    }

    #[test]
    fn negative_sequence_and_bad_framework_are_refused() {
        let mut ctx = valid();
        ctx["sequence"] = json!(-1);
        assert_eq!(
            validate_envelope(&ctx, SpecVersion::V0_1),
            Err(EnvelopeError::Member("sequence"))
        );
        let mut ctx = valid();
        ctx["agent"]["framework"] = json!("Ref");
        assert_eq!(
            validate_envelope(&ctx, SpecVersion::V0_1),
            Err(EnvelopeError::Framework)
        );
    }

    #[test]
    fn extension_namespaces_follow_the_grammar() {
        let mut ctx = valid();
        ctx["extensions"] = json!({"acme": {"anything": [1, {"x": null}]}, "a_1": 1});
        assert!(validate_envelope(&ctx, SpecVersion::V0_1).is_ok());
        for bad in [
            json!({"Acme": {}}),
            json!({"1x": {}}),
            json!({"a-b": {}}),
            json!({"": {}}),
            json!([]),
        ] {
            ctx["extensions"] = bad.clone();
            assert_eq!(
                validate_envelope(&ctx, SpecVersion::V0_1),
                Err(EnvelopeError::Extensions),
                "{bad}"
            );
        }
    }

    #[test]
    fn conditional_members_must_keep_their_types() {
        let cases = [
            ("tool_call", json!({"id": "tc", "name": "n", "args": "str"})),
            ("messages", json!({"role": "user"})),
            (
                "response",
                json!({"content": null, "tool_calls": "none", "finish_reason": "stop"}),
            ),
            ("input", json!({"content": "x", "role": "boss"})),
            ("input", json!("just text")),
            ("summary", json!({"reason": "exploded"})),
            ("tool_result", json!({"value": 1, "is_error": "no"})),
            ("agent_init", json!({"tools_registered": [1]})),
        ];
        for (key, bad) in cases {
            assert!(!conditional_types_hold(key, &bad), "{key}: {bad}");
        }
        assert!(conditional_types_hold(
            "tool_call",
            &json!({"id": "tc", "name": "n", "args": {}})
        ));
        assert!(conditional_types_hold(
            "input",
            &json!({"content": {"q": 1}, "role": "external"})
        ));
        assert!(conditional_types_hold(
            "messages",
            &json!([{"role": "user", "content": "hi"}])
        ));
    }

    #[test]
    fn missing_subfield_is_refused() {
        let mut ctx = valid();
        ctx["output"] = json!({});
        assert_eq!(
            validate_envelope(&ctx, SpecVersion::V0_1),
            Err(EnvelopeError::Conditional("output"))
        );
    }
}
