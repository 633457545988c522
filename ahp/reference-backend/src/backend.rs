//! The transport-free core: one inbound JSON-RPC message in, at most one
//! reply out.
//!
//! Every binding (stdio persistent, stdio per event, HTTP, in-process) goes
//! through [`Backend::handle_bytes`], so they cannot disagree about what a
//! message means. The reply depends only on the message and the policy, so
//! a duplicate delivery gets the same answer (spec 15: "return the same
//! semantic result").
//!
//! Nothing the harness sent is copied into an error: error `data` holds
//! only fixed texts and JSON pointers the backend itself spells, so a
//! credential or a prompt inside a request can never come back out
//! (spec 16: error `data` MUST NOT contain secrets; spec 18.3).

use ctk_ahp_wire::json::{parse_bytes, JsonError};
use ctk_ahp_wire::version::{AhpLine, WIRE_VERSION};
use serde_json::{json, Map, Value};

use crate::policy::{Policy, ToolCall};
use crate::rpc::{self, ErrorCode};

/// The only event type `hooks/intercept` accepts in AHP 0.1 (spec 10.1).
pub const INTERCEPTABLE_EVENT: &str = "tool.before";

/// The `tool.kind` values AHP 0.1 defines (spec 9.3); any other value is
/// unsupported semantics (spec 7.3), not an ignorable field.
pub const TOOL_KINDS: [&str; 9] = [
    "shell",
    "file_read",
    "file_write",
    "file_edit",
    "search",
    "fetch",
    "task",
    "mcp",
    "other",
];

/// What the backend made of one inbound message, for its stderr log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposition {
    /// A valid intercept that no rule objected to: `effects: []`.
    NoEffect,
    /// A valid intercept a rule denied; holds the rule's label, if any.
    Denied(Option<String>),
    /// The message got a JSON-RPC error with this code.
    Error(i64),
    /// A notification (no `id`): never answered (spec 8.4).
    Notification,
    /// A frame left unanswered that is no notification (a stdio line that
    /// is not JSON, under the `non-json-line` freedom).
    Ignored,
}

/// The outcome of one inbound message.
#[derive(Debug, Clone, PartialEq)]
pub struct Handled {
    /// The reply to send, or `None` for a notification.
    pub reply: Option<Value>,
    /// What happened, for the log.
    pub disposition: Disposition,
    /// The method, when the message named one (for the log).
    pub method: Option<String>,
}

impl Handled {
    fn error(id: Value, method: Option<String>, code: ErrorCode, data: Option<Value>) -> Handled {
        Handled {
            reply: Some(rpc::error_response(id, code, data)),
            disposition: Disposition::Error(code.code()),
            method,
        }
    }

    /// The reply as one JSON line without its newline, as every binding
    /// sends it (compact JSON never holds a raw newline, spec 17.1).
    pub fn reply_line(&self) -> Option<String> {
        self.reply
            .as_ref()
            .map(|v| serde_json::to_string(v).expect("a JSON value serializes"))
    }
}

/// The reference backend: a policy and the message rules of one protocol
/// line (AHP 0.1 unless built [`Backend::with_line`] for the draft).
#[derive(Debug, Clone)]
pub struct Backend {
    policy: Policy,
    line: AhpLine,
}

impl Default for Backend {
    fn default() -> Self {
        Backend::new(Policy::builtin())
    }
}

/// Why a `hooks/intercept` request cannot be decided.
pub(crate) struct Refusal {
    pub(crate) code: ErrorCode,
    pub(crate) data: Option<Value>,
}

impl Refusal {
    pub(crate) fn params(pointer: &str, problem: &str) -> Refusal {
        Refusal {
            code: ErrorCode::InvalidParams,
            data: Some(json!({"pointer": pointer, "problem": problem})),
        }
    }
}

/// A JSON object of a message.
type Object = Map<String, Value>;

/// The head every line's `hooks/intercept` shares: `params` an object,
/// `protocolVersion` the line's own (checked before anything else: another
/// version may shape the rest of the message differently, spec 7.2), an
/// `event` of the one interceptable type, and a request id equal to its
/// non-empty `event.id`. `Ok` with `params` and `event`.
pub(crate) fn envelope<'a>(
    id: &Value,
    obj: &'a Map<String, Value>,
    wire_version: &str,
) -> Result<(&'a Object, &'a Object), Refusal> {
    let params = obj
        .get("params")
        .and_then(Value::as_object)
        .ok_or_else(|| Refusal::params("/params", "params must be an object"))?;
    match params.get("protocolVersion") {
        None => {
            return Err(Refusal::params(
                "/params/protocolVersion",
                "protocolVersion is required",
            ))
        }
        Some(Value::String(v)) if v == wire_version => {}
        Some(_) => {
            return Err(Refusal {
                code: ErrorCode::UnsupportedProtocolVersion,
                data: Some(json!({ "supported": [wire_version] })),
            })
        }
    }
    let event = params
        .get("event")
        .and_then(Value::as_object)
        .ok_or_else(|| Refusal::params("/params/event", "event must be an object"))?;
    let event_type = event
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| Refusal::params("/params/event/type", "type must be a string"))?;
    if event_type != INTERCEPTABLE_EVENT {
        return Err(Refusal {
            code: ErrorCode::UnsupportedEvent,
            data: Some(json!({ "supported": [INTERCEPTABLE_EVENT] })),
        });
    }
    let event_id = non_empty_str(event, "id")
        .ok_or_else(|| Refusal::params("/params/event/id", "id must be a non-empty string"))?;
    if id.as_str() != Some(event_id) {
        return Err(Refusal::params(
            "/id",
            "the request id must equal params.event.id",
        ));
    }
    Ok((params, event))
}

fn non_empty_str<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

impl Backend {
    /// A backend of the released line (wire `"0.1"`) deciding by `policy`.
    pub fn new(policy: Policy) -> Backend {
        Backend::with_line(policy, AhpLine::V0_1)
    }

    /// A backend of `line` deciding by `policy`: [`AhpLine::V0_1`]
    /// (what [`Backend::new`] builds) or [`AhpLine::Draft`], the
    /// upstream mutable draft ([`crate::draft`]: wire `"draft"`, its
    /// `tool.before` shape; every other version gets `-32001` with
    /// `data.supported` `["draft"]`). A backend serves one line only.
    pub fn with_line(policy: Policy, line: AhpLine) -> Backend {
        Backend { policy, line }
    }

    /// The protocol line this backend speaks.
    pub fn line(&self) -> AhpLine {
        self.line
    }

    /// The policy this backend decides by.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Handle one message given as the raw bytes of one frame (one stdio
    /// line without its newline, or one HTTP body).
    pub fn handle_bytes(&self, frame: &[u8]) -> Handled {
        match parse_bytes(frame) {
            Ok(v) => self.handle_value(&v),
            Err(JsonError::DuplicateKey { .. }) => {
                // Valid JSON syntax, but ambiguous: which of two `id`s or
                // `protocolVersion`s counts? Refused as an invalid request,
                // except that a notification is still never answered.
                let lenient: Option<Value> = serde_json::from_slice(frame).ok();
                if lenient.as_ref().is_some_and(is_notification) {
                    return Handled {
                        reply: None,
                        disposition: Disposition::Notification,
                        method: lenient
                            .as_ref()
                            .and_then(|v| v.get("method"))
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    };
                }
                Handled::error(
                    Value::Null,
                    None,
                    ErrorCode::InvalidRequest,
                    Some(json!({"problem": "an object repeats a member name"})),
                )
            }
            Err(JsonError::NotUtf8 { .. }) => Handled::error(
                Value::Null,
                None,
                ErrorCode::ParseError,
                Some(json!({"problem": "the message is not UTF-8"})),
            ),
            Err(JsonError::Syntax { .. }) => Handled::error(
                Value::Null,
                None,
                ErrorCode::ParseError,
                Some(json!({"problem": "the message is not one JSON value"})),
            ),
        }
    }

    /// Handle one message already parsed as JSON.
    pub fn handle_value(&self, msg: &Value) -> Handled {
        let Some(obj) = msg.as_object() else {
            // A batch is forbidden in 0.1 (spec 7.1) and gets one error,
            // not an array; any other non-object is no request at all.
            let problem = if msg.is_array() {
                "batches are not used in AHP 0.1"
            } else {
                "a JSON-RPC message is an object"
            };
            return Handled::error(
                Value::Null,
                None,
                ErrorCode::InvalidRequest,
                Some(json!({ "problem": problem })),
            );
        };
        let method = obj.get("method").and_then(Value::as_str).map(str::to_owned);
        if is_notification(msg) {
            return Handled {
                reply: None,
                disposition: Disposition::Notification,
                method,
            };
        }
        let invalid = |problem: &str| {
            Handled::error(
                Value::Null,
                method.clone(),
                ErrorCode::InvalidRequest,
                Some(json!({ "problem": problem })),
            )
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return invalid("jsonrpc must be \"2.0\"");
        }
        let Some(method_name) = method.clone() else {
            return invalid("method must be a string");
        };
        // `is_notification` returned early for a message without `id`.
        let id = obj.get("id").cloned().unwrap_or(Value::Null);
        if !matches!(id, Value::String(_) | Value::Number(_) | Value::Null) {
            return invalid("id must be a string, a number or null");
        }
        if let Some(p) = obj.get("params") {
            if !p.is_object() && !p.is_array() {
                return invalid("params must be an object or an array");
            }
        }
        match method_name.as_str() {
            "hooks/intercept" => {
                let decided = match self.line {
                    AhpLine::V0_1 => self.intercept(&id, obj),
                    AhpLine::Draft => crate::draft::intercept(&self.policy, &id, obj),
                };
                match decided {
                    Ok((result, disposition)) => Handled {
                        reply: Some(rpc::success_response(id, result)),
                        disposition,
                        method,
                    },
                    Err(r) => Handled::error(id, method, r.code, r.data),
                }
            }
            "hooks/observe" => Handled::error(
                id,
                method,
                ErrorCode::InvalidRequest,
                Some(json!({"problem": "hooks/observe is a notification and carries no id"})),
            ),
            _ => Handled::error(id, method, ErrorCode::MethodNotFound, None),
        }
    }

    /// Decide a `hooks/intercept` request: `Ok` with the `result` object,
    /// or the JSON-RPC error to answer with.
    fn intercept(
        &self,
        id: &Value,
        obj: &Map<String, Value>,
    ) -> Result<(Value, Disposition), Refusal> {
        let (params, event) = envelope(id, obj, WIRE_VERSION)?;
        for key in ["source", "time"] {
            if !event.get(key).is_some_and(Value::is_string) {
                return Err(Refusal::params(
                    &format!("/params/event/{key}"),
                    "a required string member is missing",
                ));
            }
        }
        let session = event
            .get("session")
            .and_then(Value::as_object)
            .ok_or_else(|| Refusal::params("/params/event/session", "session must be an object"))?;
        non_empty_str(session, "id").ok_or_else(|| {
            Refusal::params("/params/event/session/id", "id must be a non-empty string")
        })?;
        let tool = event
            .get("tool")
            .and_then(Value::as_object)
            .ok_or_else(|| Refusal::params("/params/event/tool", "tool must be an object"))?;
        non_empty_str(tool, "callId").ok_or_else(|| {
            Refusal::params(
                "/params/event/tool/callId",
                "callId must be a non-empty string",
            )
        })?;
        let name = non_empty_str(tool, "name").ok_or_else(|| {
            Refusal::params("/params/event/tool/name", "name must be a non-empty string")
        })?;
        let kind = tool
            .get("kind")
            .and_then(Value::as_str)
            .filter(|k| TOOL_KINDS.contains(k))
            .ok_or_else(|| {
                Refusal::params(
                    "/params/event/tool/kind",
                    "kind must be one of the AHP 0.1 tool kinds",
                )
            })?;
        let input = tool.get("input").filter(|v| v.is_object()).ok_or_else(|| {
            Refusal::params(
                "/params/event/tool/input",
                "input must be a JSON object (not an encoded string)",
            )
        })?;
        for key in ["output", "error"] {
            if tool.contains_key(key) {
                return Err(Refusal::params(
                    &format!("/params/event/tool/{key}"),
                    "tool.before carries no output or error",
                ));
            }
        }
        let effects = params
            .get("capabilities")
            .and_then(Value::as_object)
            .and_then(|c| c.get("effects"))
            .and_then(Value::as_array)
            .ok_or_else(|| {
                Refusal::params(
                    "/params/capabilities/effects",
                    "capabilities.effects must be an array",
                )
            })?;
        // The backend only ever returns `deny`; without it advertised there
        // is no answer it may give (spec 11), so the request is refused
        // rather than answered with a silent no-effect.
        if !effects.iter().any(|e| e == "deny") {
            return Err(Refusal::params(
                "/params/capabilities/effects",
                "capabilities.effects must advertise deny",
            ));
        }
        let call = ToolCall { name, kind, input };
        let (effects, disposition) = match self.policy.evaluate(&call) {
            Some(rule) => (
                vec![rule.deny_effect()],
                Disposition::Denied(rule.id.clone()),
            ),
            None => (Vec::new(), Disposition::NoEffect),
        };
        Ok((
            json!({"protocolVersion": WIRE_VERSION, "effects": effects}),
            disposition,
        ))
    }
}

/// What answers one inbound frame on a binding: the [`Backend`] itself, or
/// an edge around it that takes the other readings of the text
/// ([`crate::freedoms::FreedomBackend`]). The bindings ask only this, so
/// the choices the text leaves open stay out of their code.
pub trait Respond: Send + Sync {
    /// The outcome of one frame (one stdio line without its newline, or
    /// one HTTP body).
    fn respond_to(&self, frame: &[u8]) -> Handled;

    /// How long to wait before sending the reply of `handled` (the backend
    /// itself answers at once).
    fn delay(&self, _handled: &Handled) -> std::time::Duration {
        std::time::Duration::ZERO
    }
}

impl Respond for Backend {
    fn respond_to(&self, frame: &[u8]) -> Handled {
        self.handle_bytes(frame)
    }
}

/// Whether `msg` is a notification: an object with no `id` member that
/// names a method. Such a message is never answered, not even with an
/// error (spec 6.1: "notifications never receive error responses"), even
/// when the rest of it is malformed.
fn is_notification(msg: &Value) -> bool {
    msg.as_object()
        .is_some_and(|o| !o.contains_key("id") && o.get("method").is_some_and(Value::is_string))
}

/// Handle one frame with `backend` and return the reply line (no newline),
/// or `None` when the message is a notification. The in-process entry
/// point: no process, no transport.
pub fn respond(backend: &Backend, frame: &[u8]) -> Option<String> {
    backend.handle_bytes(frame).reply_line()
}
