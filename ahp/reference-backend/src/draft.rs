//! The draft line (wire `protocolVersion` `"draft"`): how the backend
//! decides a `hooks/intercept` request when it serves the upstream mutable
//! draft instead of 0.1 ([`crate::Backend::with_line`], `--spec draft`).
//!
//! The draft followed is the revision the PyPI `agenthooksprotocol` 0.10.1
//! bundles (repository commit `1d98c19`), as `spec/ahp/draft/DIFFERENCES.md`
//! and `DECISIONS.md` describe it. Where it differs from 0.1:
//!
//! - the version is `"draft"`; any other (`"0.1"` included: a backend of one
//!   line, DD-02) gets `-32001` with `data.supported` `["draft"]`;
//! - the event carries `harness{name, version}`, `call{id, synthesized?}`
//!   and a non-empty `path`; `session` is optional (with a non-empty `id`
//!   when present); `native` is opaque JSON;
//! - `tool` holds `name`, an object `input`, `origin` (`native`, or `mcp`
//!   with an `mcp` object), an optional non-empty free-form `kind`, and
//!   nothing else: `harness`, `call` and `tool` are closed (DD-01 reading
//!   (a), the bundled schemas); 0.1's `tool.callId` is therefore refused;
//! - the event-level `tool.after` members (`outcome`, `execution`,
//!   `durationMs`, `fileChanges`) are refused on `tool.before`;
//! - `params.state` is optional; when present it holds `candidate` and
//!   `permission` (`none`, `allow`, `ask` or `deny`);
//! - `capabilities.effects` holds unique core effect names (no reverse-DNS
//!   extension effect on `tool.before`, DD-03) and includes `deny`; a
//!   `modify` block may only name `input`, and a `flow` block may only offer
//!   `stop` (`tool.before` may not request `continue`).
//!
//! The member lists and values are the draft's one definition
//! (`schemas/ahp/draft/`, read through [`ctk_ahp_wire::draft::tables`]);
//! the checks stay here, in this order, so each refusal names the exact
//! pointer a harness must fix.
//!
//! Unknown members at the root, in `params` and at the event level are
//! ignored, as in 0.1. The reply is `{"protocolVersion": "draft",
//! "effects": [...]}` with no effect or one closed `deny` (`type`, `reason`,
//! `code`, `extensions`), which the draft and 0.1 both accept.

use ctk_ahp_wire::draft::{holds, tables};
use serde_json::{json, Map, Value};

use crate::backend::{envelope, Disposition, Refusal};
use crate::policy::{Policy, ToolCall};

/// The wire `protocolVersion` of the draft line.
pub use ctk_ahp_wire::version::DRAFT_WIRE_VERSION;

fn non_empty<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The closed object `event.<name>`: required and an object, every required
/// member a non-empty string, no member outside the ones the draft defines
/// for it (DD-01 reading (a): `closed*` in `schemas/ahp/draft/`).
fn closed<'a>(
    event: &'a Map<String, Value>,
    name: &str,
    required: &[&str],
) -> Result<&'a Map<String, Value>, Refusal> {
    let members = tables()
        .closed_members(name)
        .expect("the draft closes harness, call and tool");
    let pointer = format!("/params/event/{name}");
    let obj = event
        .get(name)
        .and_then(Value::as_object)
        .ok_or_else(|| Refusal::params(&pointer, "a required object member is missing"))?;
    for r in required {
        if non_empty(obj, r).is_none() {
            return Err(Refusal::params(
                &format!("{pointer}/{r}"),
                "a required non-empty string member is missing",
            ));
        }
    }
    // The member's name is the harness's text: only the object's pointer
    // is echoed.
    if obj.keys().any(|k| !holds(members, k)) {
        return Err(Refusal::params(
            &pointer,
            "the draft closes this object; it holds a member the draft does not define",
        ));
    }
    Ok(obj)
}

/// Decide a draft `hooks/intercept` request: `Ok` with the `result`
/// object, or the JSON-RPC error to answer with.
pub(crate) fn intercept(
    policy: &Policy,
    id: &Value,
    obj: &Map<String, Value>,
) -> Result<(Value, Disposition), Refusal> {
    let (params, event) = envelope(id, obj, DRAFT_WIRE_VERSION)?;
    for key in ["source", "time"] {
        if non_empty(event, key).is_none() {
            return Err(Refusal::params(
                &format!("/params/event/{key}"),
                "a required string member is missing",
            ));
        }
    }
    if non_empty(event, "path").is_none() {
        return Err(Refusal::params(
            "/params/event/path",
            "path must be a non-empty string",
        ));
    }
    for key in &tables().after_only {
        if event.contains_key(key) {
            return Err(Refusal::params(
                &format!("/params/event/{key}"),
                "tool.before carries no tool.after member",
            ));
        }
    }
    if let Some(session) = event.get("session") {
        let ok = session
            .as_object()
            .is_some_and(|s| non_empty(s, "id").is_some());
        if !ok {
            return Err(Refusal::params(
                "/params/event/session/id",
                "a session needs a non-empty id",
            ));
        }
    }
    closed(event, "harness", &["name", "version"])?;
    let call = closed(event, "call", &["id"])?;
    if call.get("synthesized").is_some_and(|s| !s.is_boolean()) {
        return Err(Refusal::params(
            "/params/event/call/synthesized",
            "synthesized must be a boolean",
        ));
    }
    let tool = closed(event, "tool", &["name"])?;
    let name = non_empty(tool, "name").unwrap_or_default();
    let input = tool.get("input").filter(|v| v.is_object()).ok_or_else(|| {
        Refusal::params(
            "/params/event/tool/input",
            "input must be a JSON object (not an encoded string)",
        )
    })?;
    match tool.get("origin").and_then(Value::as_str) {
        Some("native") if !tool.contains_key("mcp") => {}
        Some("mcp") if tool.get("mcp").is_some_and(Value::is_object) => {}
        _ => {
            return Err(Refusal::params(
                "/params/event/tool/origin",
                "origin must be native (without mcp) or mcp (with an mcp object)",
            ))
        }
    }
    let kind = match tool.get("kind") {
        None => "",
        Some(Value::String(k)) if !k.is_empty() => k.as_str(),
        Some(_) => {
            return Err(Refusal::params(
                "/params/event/tool/kind",
                "kind, when present, must be a non-empty string",
            ))
        }
    };
    if let Some(state) = params.get("state") {
        let ok = state.as_object().is_some_and(|s| {
            s.contains_key("candidate")
                && s.get("permission")
                    .and_then(Value::as_str)
                    .is_some_and(|p| holds(&tables().permissions, p))
        });
        if !ok {
            return Err(Refusal::params(
                "/params/state",
                "state holds candidate and a permission of none, allow, ask or deny",
            ));
        }
    }
    capabilities(params)?;
    let call = ToolCall { name, kind, input };
    let (effects, disposition) = match policy.evaluate(&call) {
        Some(rule) => (
            vec![rule.deny_effect()],
            Disposition::Denied(rule.id.clone()),
        ),
        None => (Vec::new(), Disposition::NoEffect),
    };
    Ok((
        json!({"protocolVersion": DRAFT_WIRE_VERSION, "effects": effects}),
        disposition,
    ))
}

/// Check `params.capabilities` for `tool.before`.
fn capabilities(params: &Map<String, Value>) -> Result<(), Refusal> {
    const PTR: &str = "/params/capabilities/effects";
    let caps = params
        .get("capabilities")
        .and_then(Value::as_object)
        .ok_or_else(|| Refusal::params("/params/capabilities", "capabilities is required"))?;
    let effects = caps
        .get("effects")
        .and_then(Value::as_array)
        .ok_or_else(|| Refusal::params(PTR, "capabilities.effects must be an array"))?;
    let mut seen: Vec<&str> = Vec::with_capacity(effects.len());
    for e in effects {
        let Some(name) = e.as_str() else {
            return Err(Refusal::params(PTR, "every effect is named by a string"));
        };
        if !holds(&tables().core_effects, name) {
            return Err(Refusal::params(
                PTR,
                "only the draft's core effects can be advertised for tool.before",
            ));
        }
        if seen.contains(&name) {
            return Err(Refusal::params(PTR, "an effect is advertised twice"));
        }
        seen.push(name);
    }
    // The backend only ever returns `deny` (AHP-CAP-002: a Tool
    // Interception harness advertises it for tool.before).
    if !seen.contains(&"deny") {
        return Err(Refusal::params(
            PTR,
            "capabilities.effects must advertise deny",
        ));
    }
    if let Some(modify) = caps.get("modify") {
        let ok = modify
            .as_object()
            .is_some_and(|m| m.iter().all(|(k, v)| k == "input" && v.is_object()));
        if !ok {
            return Err(Refusal::params(
                "/params/capabilities/modify",
                "tool.before can only offer to modify its input",
            ));
        }
    }
    if let Some(flow) = caps.get("flow") {
        let ok = flow.as_object().is_some_and(|f| match f.get("operations") {
            None => true,
            Some(Value::Array(ops)) => ops.iter().all(|o| o == "stop"),
            Some(_) => false,
        });
        if !ok {
            return Err(Refusal::params(
                "/params/capabilities/flow",
                "tool.before can only offer the flow operation stop (never continue)",
            ));
        }
    }
    Ok(())
}
