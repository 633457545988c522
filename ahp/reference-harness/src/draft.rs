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
//! - **replies** (judged in [`crate::classify`], by the harness's line):
//!   `effects` may be absent (no effect);
//!   several `deny` effects are a deny (the first one's reason and code are
//!   reported); a `deny` is closed (`type`, `reason`, `code`, `extensions`);
//!   an unadvertised effect, or any effect this harness cannot enforce,
//!   rejects the whole response;
//! - **observation** (`observation-disposition.md`, decision DD-04 reading
//!   (a)): when the chain short-circuits, every remaining uncalled intercept
//!   subscription on `tool.before` receives the event as `hooks/observe`.

use serde_json::{json, Map, Value};

use ctk_ahp_wire::draft::{holds, tables};

use crate::loading::Refusal;

pub use ctk_ahp_wire::version::DRAFT_WIRE_VERSION;

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
                            if !v.as_str().is_some_and(|s| holds(&tables().content_values, s)) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        // The one definition of the draft request the kit judges harnesses
        // by (schemas/ahp/draft/) accepts what this harness sends.
        let problems = ctk_ahp_wire::draft::DraftSchema::InterceptRequest.problems(&r);
        assert!(problems.is_empty(), "{problems:?}");
    }
}
