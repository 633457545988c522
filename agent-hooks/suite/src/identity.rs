//! The `jcs-sha256` context identity (§10.2): the closed-whitelist
//! projection of a context, its domain checks, and the digest of its RFC 8785
//! form ([`ctk_core::digest`]), independent of the reference host, so the
//! host under test is never its own oracle.

use ctk_core::digest::{CanonicalError, DigestWriter};
use serde_json::Value;

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

/// One member of the projection, borrowed from the context: kept whole, or
/// narrowed to its whitelisted subfields (in whitelist order).
enum Picked<'a> {
    Whole(&'a Value),
    Fields(Vec<(&'a str, &'a Value)>),
}

/// The projection's members in the order they are picked (the order the
/// domain checks visit them), borrowed: nothing of the context is copied
/// to compute its identity (issue 30: the copies were 9% of an in-process
/// run's allocations).
fn picked(context: &Value) -> Result<Vec<(&str, Picked<'_>)>, IdentityError> {
    let obj = context.as_object().ok_or(IdentityError::UnknownPoint)?;
    let point = obj
        .get("interception_point")
        .and_then(Value::as_str)
        .ok_or(IdentityError::UnknownPoint)?;
    let members = conditional(point).ok_or(IdentityError::UnknownPoint)?;
    let mut out = Vec::with_capacity(7 + members.len());
    let mut pick = |key: &'static str, fields: Option<&'static [&'static str]>| {
        let Some((key, value)) = obj.get_key_value(key) else {
            return;
        };
        let kept = match (fields, value) {
            (Some(fields), Value::Object(inner)) => Picked::Fields(
                fields
                    .iter()
                    .filter_map(|f| inner.get_key_value(*f))
                    .map(|(k, v)| (k.as_str(), v))
                    .collect(),
            ),
            _ => Picked::Whole(value),
        };
        // A member named twice (no point's list does so today) keeps its
        // first place and takes the later pick, as a map insert would.
        match out.iter_mut().find(|(k, _)| *k == key.as_str()) {
            Some(slot) => slot.1 = kept,
            None => out.push((key.as_str(), kept)),
        }
    };
    for key in [
        "spec",
        "interception_point",
        "timestamp",
        "sequence",
        "target",
    ] {
        pick(key, None);
    }
    pick("agent", Some(&["id", "framework"]));
    pick("session", Some(&["id"]));
    for (key, fields) in members {
        pick(key, *fields);
    }
    Ok(out)
}

/// The closed-whitelist projection of a context that `jcs-sha256` hashes.
pub fn projection(context: &Value) -> Result<Value, IdentityError> {
    let members = picked(context)?;
    Ok(Value::Object(
        members
            .into_iter()
            .map(|(key, kept)| {
                let value = match kept {
                    Picked::Whole(v) => v.clone(),
                    Picked::Fields(fields) => Value::Object(
                        fields
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v.clone()))
                            .collect(),
                    ),
                };
                (key.to_owned(), value)
            })
            .collect(),
    ))
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

/// The `jcs-sha256` identity of an agent context (§10.2): the projection's
/// domain checks and its RFC 8785 digest, written from the context's own
/// members (the digest of [`projection`]'s value, byte for byte).
pub fn context_identity(context: &Value) -> Result<String, IdentityError> {
    let members = picked(context)?;
    // The projection object is level 1, its members level 2, and the
    // subfields of a narrowed member level 3, as in the projection's value.
    for (_, kept) in &members {
        match kept {
            Picked::Whole(v) => check_domain(v, 2)?,
            Picked::Fields(fields) => fields.iter().try_for_each(|(_, v)| check_domain(v, 3))?,
        }
    }
    let mut w = DigestWriter::new();
    w.object(members, |w, _, kept| match kept {
        Picked::Whole(v) => w.value(v),
        Picked::Fields(fields) => w.object(fields, |w, _, v| w.value(v)),
    })?;
    Ok(w.finish())
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

    /// The identity written from borrowed members is the digest of the
    /// projection's value, with the same domain checks at the same depths:
    /// a member kept whole and a narrowed one, each nested to the last level
    /// allowed and one beyond.
    #[test]
    fn the_borrowed_identity_is_the_projections() {
        fn nested(levels: usize) -> Value {
            (0..levels).fold(Value::from(1), |v, _| serde_json::json!([v]))
        }
        let of_value = |ctx: &Value| -> Result<String, IdentityError> {
            let p = projection(ctx)?;
            check_domain(&p, 1)?;
            Ok(ctk_core::digest::digest_value(&p)?)
        };
        let mut cases = vec![
            serde_json::json!({"spec": "agent-hooks/0.1", "interception_point": "pre_tool_call",
            "timestamp": "t", "sequence": 3, "agent": {"id": "a", "framework": "f", "extra": 1},
            "session": {"id": "s"}, "target": {"\u{ff61}": 1, "\u{1f600}": 2, "b": [1.5, "x\n"]},
            "tool_call": {"name": "n", "id": "i", "args": {"z": 1, "a": 9007199254740991u64}, "other": 0}}),
        ];
        for levels in [124, 125, 126, 127] {
            cases.push(
                serde_json::json!({"interception_point": "output", "spec": "agent-hooks/0.1",
                "target": nested(levels), "output": {"content": "c"}}),
            );
            cases.push(
                serde_json::json!({"interception_point": "output", "spec": "agent-hooks/0.1",
                "output": {"content": nested(levels)}}),
            );
        }
        cases.push(
            serde_json::json!({"interception_point": "output", "spec": "agent-hooks/0.1",
            "target": 9007199254740992u64, "output": {"content": nested(200)}}),
        );
        let mut refused = 0;
        for ctx in &cases {
            let got = context_identity(ctx);
            refused += usize::from(got.is_err());
            assert_eq!(got, of_value(ctx), "{ctx}");
        }
        assert!(refused >= 3, "the cases reach the depth and domain bounds");
    }

    #[test]
    fn unknown_point_is_refused() {
        assert_eq!(
            context_identity(&serde_json::json!({"interception_point": "nope"})),
            Err(IdentityError::UnknownPoint)
        );
    }
}
