//! The `jcs-sha256` context identity (§10.2): the closed-whitelist
//! projection of a context, its domain checks, and the digest of its RFC 8785
//! form ([`ctk_core::digest`]), independent of the reference host, so the
//! host under test is never its own oracle.

use ctk_core::digest::{digest_value, CanonicalError};
use serde_json::{Map, Value};

/// Why a context identity could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdentityError {
    /// The context is not an object or lacks a known `interception_point`.
    #[error("context has no known interception_point")]
    UnknownPoint,
    /// An integral number beyond ±(2^53−1) sits in the projection.
    #[error("integer exceeds 2^53 in the identity projection")]
    OutOfDomain,
    /// The projection nests deeper than 128 levels.
    #[error("identity projection nests deeper than 128 levels")]
    TooDeep,
    /// Canonicalisation failed.
    #[error("canonicalisation failed: {0}")]
    Canonical(String),
}

impl From<CanonicalError> for IdentityError {
    fn from(e: CanonicalError) -> Self {
        IdentityError::Canonical(e.0)
    }
}

/// Largest integer I-JSON carries exactly.
const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// A member name and its subfield whitelist.
pub(crate) type Member = (&'static str, Option<&'static [&'static str]>);

/// The conditional members (§4.2) of each interception point, with their
/// subfields (`None` keeps the member whole): the `jcs-sha256` projection's
/// whitelist, and the members the envelope check requires.
pub(crate) fn conditional(point: &str) -> Option<&'static [Member]> {
    Some(match point {
        "agent_startup" => &[("agent_init", Some(&["tools_registered"]))],
        "input" => &[("input", Some(&["content", "role"]))],
        "pre_model_call" => &[("model", Some(&["id"])), ("messages", None)],
        "post_model_call" => &[
            ("model", Some(&["id"])),
            (
                "response",
                Some(&["content", "tool_calls", "finish_reason"]),
            ),
        ],
        "pre_tool_call" => &[("tool_call", Some(&["id", "name", "args"]))],
        "post_tool_call" => &[
            ("tool_call", Some(&["id", "name", "args"])),
            ("tool_result", Some(&["value", "is_error"])),
        ],
        "output" => &[("output", Some(&["content"]))],
        "agent_shutdown" => &[("summary", Some(&["reason"]))],
        _ => return None,
    })
}

fn pick(
    obj: &Map<String, Value>,
    key: &str,
    fields: Option<&[&str]>,
    out: &mut Map<String, Value>,
) {
    let Some(value) = obj.get(key) else { return };
    let kept = match (fields, value) {
        (Some(fields), Value::Object(inner)) => Value::Object(
            fields
                .iter()
                .filter_map(|f| inner.get(*f).map(|v| ((*f).to_owned(), v.clone())))
                .collect(),
        ),
        _ => value.clone(),
    };
    out.insert(key.to_owned(), kept);
}

/// The closed-whitelist projection of a context that `jcs-sha256` hashes.
pub fn projection(context: &Value) -> Result<Value, IdentityError> {
    let obj = context.as_object().ok_or(IdentityError::UnknownPoint)?;
    let point = obj
        .get("interception_point")
        .and_then(Value::as_str)
        .ok_or(IdentityError::UnknownPoint)?;
    let members = conditional(point).ok_or(IdentityError::UnknownPoint)?;
    let mut out = Map::new();
    for key in [
        "spec",
        "interception_point",
        "timestamp",
        "sequence",
        "target",
    ] {
        pick(obj, key, None, &mut out);
    }
    pick(obj, "agent", Some(&["id", "framework"]), &mut out);
    pick(obj, "session", Some(&["id"]), &mut out);
    for (key, fields) in members {
        pick(obj, key, *fields, &mut out);
    }
    Ok(Value::Object(out))
}

fn check_domain(value: &Value, depth: usize) -> Result<(), IdentityError> {
    if depth > 128 {
        return Err(IdentityError::TooDeep);
    }
    match value {
        Value::Number(n) => {
            // Integer tokens only: a float literal such as 1e+21 is in domain (G-03).
            let beyond = (n.is_i64() || n.is_u64())
                && n.as_i64()
                    .is_none_or(|i| i.unsigned_abs() > MAX_SAFE_INTEGER);
            if beyond {
                Err(IdentityError::OutOfDomain)
            } else {
                Ok(())
            }
        }
        Value::Array(items) => items.iter().try_for_each(|v| check_domain(v, depth + 1)),
        Value::Object(map) => map.values().try_for_each(|v| check_domain(v, depth + 1)),
        _ => Ok(()),
    }
}

/// The `jcs-sha256` identity of an agent context (§10.2).
pub fn context_identity(context: &Value) -> Result<String, IdentityError> {
    let projected = projection(context)?;
    check_domain(&projected, 1)?;
    Ok(digest_value(&projected)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The project's golden identities (`spec/0.1/golden-identities.json`):
    /// every identified case and every refusal this function is
    /// responsible for (the envelope case is the host's to refuse).
    #[test]
    fn matches_every_golden_identity() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../spec/0.1/golden-identities.json"
        );
        let text = std::fs::read_to_string(path).expect("spec/0.1/golden-identities.json");
        let doc: Value = serde_json::from_str(&text).expect("golden JSON");
        let cases = doc["cases"].as_array().expect("cases");
        assert!(cases.len() >= 20);
        for c in cases {
            let got = context_identity(&c["context"]);
            match c["refused"].as_str() {
                None => assert_eq!(got.as_deref().ok(), c["identity"].as_str(), "{}", c["name"]),
                Some("out_of_domain") => assert_eq!(got, Err(IdentityError::OutOfDomain)),
                Some("unknown_point") => assert_eq!(got, Err(IdentityError::UnknownPoint)),
                Some(_) => {}
            }
        }
    }

    #[test]
    fn projection_drops_optional_members() {
        let ctx = serde_json::json!({"interception_point": "input", "spec": "agent-hooks/0.1",
            "agent": {"id": "a", "framework": "f", "name": "x"}, "input": {"content": "c", "role": "user", "extra": 1},
            "trace": {"trace_id": "t"}});
        let p = projection(&ctx).expect("projects");
        assert_eq!(
            p,
            serde_json::json!({"interception_point": "input", "spec": "agent-hooks/0.1",
            "agent": {"id": "a", "framework": "f"}, "input": {"content": "c", "role": "user"}})
        );
    }

    #[test]
    fn unknown_point_is_refused() {
        assert_eq!(
            context_identity(&serde_json::json!({"interception_point": "nope"})),
            Err(IdentityError::UnknownPoint)
        );
    }
}
