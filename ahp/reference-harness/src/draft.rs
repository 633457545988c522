//! The draft line (wire `protocolVersion` `"draft"`): what the harness does
//! differently when it serves the upstream mutable draft instead of 0.1
//! (`ctk-ahp-harness --spec draft`, [`crate::adapter::serve_line`]).
//!
//! The draft followed is the revision the PyPI `agenthooksprotocol` 0.10.1
//! bundles (repository commit `1d98c19`), as `spec/ahp/draft/DIFFERENCES.md`
//! and `DECISIONS.md` describe it:
//!
//! - **registration** ([`registration_problems`], [`as_released`]): the
//!   document says `"protocolVersion": "draft"`; every subscription has a
//!   `content` selection with a `default` (`body`, `metadata` or `omit`;
//!   per-category keys take the same values); a bearer entry names exactly
//!   one of `tokenEnv` and `tokenRef` (this harness resolves `tokenEnv`
//!   only, so it refuses `tokenRef`). The remaining rules are the ones 0.1
//!   shares with the draft and are checked by the kit's 0.1 loader;
//! - **requests** ([`event`]): every event carries `harness{name, version}`;
//!   tool events carry `call{id}`, `path` `"native"` and `tool{name, kind,
//!   input, origin: "native"}` (no `tool.callId`); an intercept request adds
//!   `state` `{candidate: null, permission: "none"}`;
//! - **replies** ([`classify_result`]): `effects` may be absent (no effect);
//!   several `deny` effects are a deny (the first one's reason and code are
//!   reported); a `deny` is closed (`type`, `reason`, `code`, `extensions`);
//!   an unadvertised effect, or any effect this harness cannot enforce,
//!   rejects the whole response;
//! - **observation** (`observation-disposition.md`, decision DD-04 reading
//!   (a)): when the chain short-circuits, every remaining uncalled intercept
//!   subscription on `tool.before` receives the event as `hooks/observe`.

use serde_json::{json, Map, Value};

use crate::classify::{Decision, Failure};
use crate::harness::Refusal;

pub use ctk_ahp_wire::version::DRAFT_WIRE_VERSION;

/// The members of a draft `deny` effect (the draft closes it).
const DENY_MEMBERS: &[&str] = &["type", "reason", "code", "extensions"];
/// The values of a `content` selection.
const CONTENT_VALUES: &[&str] = &["body", "metadata", "omit"];

/// Whether `s` is a reverse-DNS name: two or more dot-separated labels,
/// each a letter followed by letters, digits, `_` or `-`.
pub fn is_reverse_dns(s: &str) -> bool {
    let labels: Vec<&str> = s.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            let mut c = l.chars();
            c.next().is_some_and(|f| f.is_ascii_alphabetic())
                && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '-')
        })
}

/// The draft-only problems of a registration document (already strict
/// JSON): the `content` selections and the bearer token source. An empty
/// list means the 0.1 loader decides the rest.
pub fn registration_problems(doc: &Value) -> Vec<Refusal> {
    let mut out = Vec::new();
    let refuse = |out: &mut Vec<Refusal>, pointer: String, reason: &str| {
        out.push(Refusal {
            pointer,
            reason: reason.to_owned(),
        });
    };
    let Some(hooks) = doc.get("hooks").and_then(Value::as_array) else {
        return out;
    };
    for (i, hook) in hooks.iter().enumerate() {
        if let Some(subs) = hook.get("subscriptions").and_then(Value::as_array) {
            for (j, sub) in subs.iter().enumerate() {
                let pointer = format!("/hooks/{i}/subscriptions/{j}/content");
                match sub.get("content").and_then(Value::as_object) {
                    None => refuse(
                        &mut out,
                        pointer,
                        "every draft subscription needs a content selection with a default (DIFFERENCES.md item 22)",
                    ),
                    Some(c) => {
                        if !c.contains_key("default") {
                            refuse(
                                &mut out,
                                format!("{pointer}/default"),
                                "a content selection needs a default",
                            );
                        }
                        for (k, v) in c {
                            if !v.as_str().is_some_and(|s| CONTENT_VALUES.contains(&s)) {
                                refuse(
                                    &mut out,
                                    format!("{pointer}/{k}"),
                                    "a content selection value is body, metadata or omit",
                                );
                            }
                        }
                    }
                }
            }
        }
        if let Some(auth) = hook.get("authentication").and_then(Value::as_object) {
            if auth.get("type").and_then(Value::as_str) == Some("bearer") {
                let pointer = format!("/hooks/{i}/authentication");
                match (auth.contains_key("tokenEnv"), auth.contains_key("tokenRef")) {
                    (true, false) => {}
                    (true, true) | (false, false) => refuse(
                        &mut out,
                        pointer,
                        "bearer authentication names exactly one of tokenEnv and tokenRef (DIFFERENCES.md item 27)",
                    ),
                    (false, true) => refuse(
                        &mut out,
                        format!("{pointer}/tokenRef"),
                        "this harness resolves bearer tokens from tokenEnv only",
                    ),
                }
            }
        }
    }
    out
}

/// The document the kit's 0.1 loader checks for the rules both lines share:
/// `protocolVersion` set to `"0.1"` and the draft-only members (`content`)
/// taken out. JSON pointers into it are pointers into the draft document.
pub fn as_released(mut doc: Value) -> Value {
    if let Some(o) = doc.as_object_mut() {
        o.insert(
            "protocolVersion".into(),
            Value::from(ctk_ahp_wire::version::WIRE_VERSION),
        );
    }
    if let Some(hooks) = doc.get_mut("hooks").and_then(Value::as_array_mut) {
        for hook in hooks {
            if let Some(subs) = hook.get_mut("subscriptions").and_then(Value::as_array_mut) {
                for sub in subs {
                    if let Some(s) = sub.as_object_mut() {
                        s.remove("content");
                    }
                }
            }
        }
    }
    doc
}

/// The facts of one draft event.
pub struct EventParts<'a> {
    /// `event.id`.
    pub id: &'a str,
    /// `event.source`.
    pub source: &'a str,
    /// `event.type`.
    pub event_type: &'a str,
    /// `event.time` (RFC 3339).
    pub time: &'a str,
    /// `event.session.id`.
    pub session_id: &'a str,
    /// For tool events: the call id, name, kind and input.
    pub tool: Option<(&'a str, &'a str, &'a str, &'a Map<String, Value>)>,
}

/// A draft event: `harness` always; `call`, `path` and a closed `tool` for
/// tool events; `tool.after` adds `outcome` `{"status": "success"}`.
pub fn event(p: &EventParts<'_>) -> Value {
    let mut e = json!({
        "id": p.id,
        "source": p.source,
        "type": p.event_type,
        "time": p.time,
        "harness": {"name": "ctk-ahp-harness", "version": env!("CARGO_PKG_VERSION")},
        "session": {"id": p.session_id},
    });
    if let Some((call_id, name, kind, input)) = p.tool {
        e["call"] = json!({ "id": call_id });
        e["path"] = Value::from("native");
        e["tool"] = json!({"name": name, "kind": kind, "input": input, "origin": "native"});
        if p.event_type == "tool.after" {
            e["outcome"] = json!({"status": "success"});
        }
    }
    e
}

/// A draft `hooks/intercept` request for `event` (a `tool.before`),
/// advertising `deny` only.
pub fn intercept_request(event: Value) -> Value {
    let id = event.get("id").cloned().unwrap_or(Value::Null);
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "hooks/intercept",
        "params": {
            "protocolVersion": DRAFT_WIRE_VERSION,
            "event": event,
            "capabilities": {"effects": ["deny"]},
            "state": {"candidate": null, "permission": "none"},
        },
    })
}

/// A draft `hooks/observe` notification of `event`.
pub fn observe_notification(event: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "hooks/observe",
        "params": {"protocolVersion": DRAFT_WIRE_VERSION, "event": event},
    })
}

/// Judge the `result` of a success response to the draft `request` (the
/// envelope, the id and a JSON-RPC error were judged already).
pub fn classify_result(request: &Value, result: &Map<String, Value>) -> Result<Decision, Failure> {
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
    let advertised: Vec<&str> = request
        .pointer("/params/capabilities/effects")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Every effect is checked before any is applied: one bad effect rejects
    // the whole response (atomic application).
    let mut decision = Decision::NoEffect;
    for effect in effects {
        let e = effect
            .as_object()
            .ok_or(Failure::BadEffects("an effect that is not an object"))?;
        let t = e
            .get("type")
            .and_then(Value::as_str)
            .ok_or(Failure::BadEffects("an effect without a string type"))?;
        if !advertised.contains(&t) {
            return Err(Failure::BadEffects(
                "an effect type the request did not advertise",
            ));
        }
        if t == crate::freedoms::NOOP_EFFECT && crate::readings::get().noop_extension_effect {
            // The extension effect the extension-effects-tool-before
            // freedom advertises: enforced as nothing.
            continue;
        }
        if t != "deny" {
            return Err(Failure::BadEffects("an effect this harness cannot enforce"));
        }
        if e.keys().any(|k| !DENY_MEMBERS.contains(&k.as_str())) {
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

    fn request() -> Value {
        intercept_request(json!({"id": "e1", "type": "tool.before"}))
    }

    fn judge(result: Value) -> Result<Decision, Failure> {
        classify_result(&request(), result.as_object().unwrap())
    }

    #[test]
    fn draft_validity_differs_from_0_1() {
        // Absent effects: no effect (a failure in 0.1).
        assert_eq!(
            judge(json!({"protocolVersion": "draft"})),
            Ok(Decision::NoEffect)
        );
        // Two denies: a deny, the first one reported (a failure in 0.1).
        assert_eq!(
            judge(json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "a", "code": "org.example.a"},
                {"type": "deny", "reason": "b"}]})),
            Ok(Decision::Deny {
                reason: "a".into(),
                code: Some("org.example.a".into())
            })
        );
        // An unknown member in a deny: a failure (ignored in 0.1).
        assert!(judge(json!({"protocolVersion": "draft", "effects": [
            {"type": "deny", "reason": "a", "severity": "high"}]}))
        .is_err());
    }

    #[test]
    fn bad_results_are_failures() {
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
            assert!(judge(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn registration_rules_of_the_draft() {
        let sub = |content: Value| {
            let mut s = json!({"events": ["tool.before"], "mode": "intercept",
                               "timeoutMs": 1000, "failurePolicy": "fail-open"});
            if !content.is_null() {
                s["content"] = content;
            }
            json!({"protocolVersion": "draft", "hooks": [{"id": "org.example.a",
                   "transport": {"type": "http", "url": "http://127.0.0.1:1/"},
                   "subscriptions": [s]}]})
        };
        assert!(registration_problems(&sub(json!({"default": "body"}))).is_empty());
        assert!(!registration_problems(&sub(Value::Null)).is_empty());
        assert!(!registration_problems(&sub(json!({"tool": "body"}))).is_empty());
        assert!(!registration_problems(&sub(json!({"default": "all"}))).is_empty());
        let mut both = sub(json!({"default": "omit"}));
        both["hooks"][0]["authentication"] =
            json!({"type": "bearer", "tokenEnv": "T", "tokenRef": "vault:t"});
        assert!(!registration_problems(&both).is_empty());
        let released = as_released(sub(json!({"default": "body"})));
        assert_eq!(released["protocolVersion"], "0.1");
        assert!(released["hooks"][0]["subscriptions"][0]
            .get("content")
            .is_none());
    }

    #[test]
    fn the_request_has_the_draft_shape() {
        let input = Map::new();
        let e = event(&EventParts {
            id: "evt-1",
            source: "urn:x",
            event_type: "tool.before",
            time: "2026-12-01T00:00:00Z",
            session_id: "s",
            tool: Some(("call-1", "Bash", "shell", &input)),
        });
        let r = intercept_request(e);
        assert_eq!(r["id"], "evt-1");
        assert_eq!(r["params"]["protocolVersion"], "draft");
        assert_eq!(r["params"]["event"]["call"]["id"], "call-1");
        assert_eq!(r["params"]["event"]["tool"]["origin"], "native");
        assert!(r["params"]["event"]["tool"].get("callId").is_none());
        assert_eq!(r["params"]["state"]["permission"], "none");
        assert!(r["params"]["event"]["harness"]["version"].is_string());
    }
}
