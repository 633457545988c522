//! Typed AHP 0.1 JSON-RPC messages.
//!
//! These types read and write well-formed messages; they do not judge a
//! message (that is [`crate::validate`]'s job, which works on the raw JSON
//! so it can report every problem with a pointer). Unknown members are
//! kept in each object's `unknown` map, because AHP receivers ignore
//! unknown fields (spec 7.3) while a proxy or a test must be able to send
//! them on unchanged. Enumerations keep unknown values (`Other`) instead of
//! failing, because an unknown event type or tool kind is "unsupported
//! semantics" a backend answers with an error, not unreadable input.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::version::WIRE_VERSION;

/// The JSON-RPC version marker every message carries.
pub const JSONRPC_VERSION: &str = "2.0";
/// The decision request method (Tool Interception profile).
pub const METHOD_INTERCEPT: &str = "hooks/intercept";
/// The one-way observation method (Lifecycle Observation profile).
pub const METHOD_OBSERVE: &str = "hooks/observe";
/// The only effect of AHP 0.1.
pub const EFFECT_DENY: &str = "deny";

/// Whether `name` is a reverse-DNS name as AHP uses them (extension keys,
/// deny codes, extension effects): two or more dot-separated labels, each a
/// letter followed by letters, digits, `_` or `-`. The schemas' pattern
/// (`definitions#/$defs/reverseDnsName`) says the same; a test holds them
/// together, and this is the one copy code calls.
pub fn is_reverse_dns(name: &str) -> bool {
    let labels: Vec<&str> = name.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            let mut chars = l.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// A JSON-RPC request id as AHP allows it: a non-empty string or an
/// integer. An intercept id equals the string event id, so it is a string
/// in practice.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A string id.
    String(String),
    /// An integer id.
    Integer(i64),
}

impl From<&str> for RequestId {
    fn from(s: &str) -> RequestId {
        RequestId::String(s.to_owned())
    }
}

/// An AHP event type: the five of 0.1, or any other name (kept so it can be
/// answered with `-32002 unsupported_event`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum EventType {
    /// `tool.before`: the only interceptable event.
    ToolBefore,
    /// `tool.after`: a tool call succeeded.
    ToolAfter,
    /// `tool.error`: a tool call failed (never for an AHP denial).
    ToolError,
    /// `session.start`: the session's first event.
    SessionStart,
    /// `session.end`: best effort.
    SessionEnd,
    /// A name 0.1 does not define.
    Other(String),
}

impl EventType {
    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            EventType::ToolBefore => "tool.before",
            EventType::ToolAfter => "tool.after",
            EventType::ToolError => "tool.error",
            EventType::SessionStart => "session.start",
            EventType::SessionEnd => "session.end",
            EventType::Other(s) => s,
        }
    }

    /// Whether the event carries a `tool` member.
    pub fn is_tool_event(&self) -> bool {
        matches!(
            self,
            EventType::ToolBefore | EventType::ToolAfter | EventType::ToolError
        )
    }
}

impl From<String> for EventType {
    fn from(s: String) -> EventType {
        match s.as_str() {
            "tool.before" => EventType::ToolBefore,
            "tool.after" => EventType::ToolAfter,
            "tool.error" => EventType::ToolError,
            "session.start" => EventType::SessionStart,
            "session.end" => EventType::SessionEnd,
            _ => EventType::Other(s),
        }
    }
}

impl From<EventType> for String {
    fn from(t: EventType) -> String {
        t.as_str().to_owned()
    }
}

/// The coarse, portable tool classification of 0.1 (spec 9.3), or another
/// value (unsupported semantics).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum ToolKind {
    /// `shell`.
    Shell,
    /// `file_read`.
    FileRead,
    /// `file_write`.
    FileWrite,
    /// `file_edit`.
    FileEdit,
    /// `search`.
    Search,
    /// `fetch`.
    Fetch,
    /// `task`.
    Task,
    /// `mcp`.
    Mcp,
    /// `other`: the harness has no closer class.
    Other,
    /// A value 0.1 does not define.
    Unknown(String),
}

impl ToolKind {
    /// The wire value.
    pub fn as_str(&self) -> &str {
        match self {
            ToolKind::Shell => "shell",
            ToolKind::FileRead => "file_read",
            ToolKind::FileWrite => "file_write",
            ToolKind::FileEdit => "file_edit",
            ToolKind::Search => "search",
            ToolKind::Fetch => "fetch",
            ToolKind::Task => "task",
            ToolKind::Mcp => "mcp",
            ToolKind::Other => "other",
            ToolKind::Unknown(s) => s,
        }
    }
}

impl From<String> for ToolKind {
    fn from(s: String) -> ToolKind {
        match s.as_str() {
            "shell" => ToolKind::Shell,
            "file_read" => ToolKind::FileRead,
            "file_write" => ToolKind::FileWrite,
            "file_edit" => ToolKind::FileEdit,
            "search" => ToolKind::Search,
            "fetch" => ToolKind::Fetch,
            "task" => ToolKind::Task,
            "mcp" => ToolKind::Mcp,
            "other" => ToolKind::Other,
            _ => ToolKind::Unknown(s),
        }
    }
}

impl From<ToolKind> for String {
    fn from(k: ToolKind) -> String {
        k.as_str().to_owned()
    }
}

/// The optional subagent identity of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    /// Subagent id (non-empty).
    pub id: String,
    /// Provider-defined subagent type.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Session identity and the optional context an administrator may leave
/// out (spec 9.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// Stable session id.
    pub id: String,
    /// Working directory when the event was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Workspace roots visible to the harness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_roots: Option<Vec<String>>,
    /// Harness-reported model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Current subagent, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Agent>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Tool failure information on `tool.error` (spec 10.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolFailure {
    /// What went wrong (required).
    pub message: String,
    /// `code`, `category` and provider extension data, kept verbatim (0.1
    /// gives them no types).
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The `tool` member of a tool event (spec 9.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Invocation id, the same on `tool.before`, `tool.after`, `tool.error`.
    pub call_id: String,
    /// The harness's tool name, verbatim.
    pub name: String,
    /// Coarse classification.
    pub kind: ToolKind,
    /// Parsed input object (on all three tool events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Map<String, Value>>,
    /// Output (`tool.after` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// Failure (`tool.error` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolFailure>,
    /// MCP server and tool identity, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<Map<String, Value>>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The provider's own event, sent only when local policy enables it
/// (spec 9.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Native {
    /// Provider name, e.g. `claude-code`.
    pub provider: String,
    /// The provider's event name, e.g. `PreToolUse`.
    pub event_name: String,
    /// The provider payload.
    pub payload: Map<String, Value>,
}

/// An AHP event: the common members of spec 9.1 plus the event-specific
/// ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Event id, unique per harness and stable across retries.
    pub id: String,
    /// Stable, non-secret URI of the harness installation.
    pub source: String,
    /// Event type.
    #[serde(rename = "type")]
    pub event_type: EventType,
    /// RFC 3339 creation time.
    pub time: String,
    /// Session identity.
    pub session: Session,
    /// Tool identity and data (tool events only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<Tool>,
    /// `session.end` outcome: `completed`, `cancelled`, `error`, `unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// Provider fidelity payload (off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<Native>,
    /// Reverse-DNS keyed extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// What the harness can enforce for one interception (spec 11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// Effect names: `deny` and any advertised reverse-DNS extension effect.
    pub effects: Vec<String>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

impl Capabilities {
    /// `{"effects": ["deny"]}`: what every 0.1 Tool Interception harness
    /// advertises for `tool.before`.
    pub fn deny_only() -> Capabilities {
        Capabilities {
            effects: vec![EFFECT_DENY.to_owned()],
            unknown: Map::new(),
        }
    }
}

/// `params` of a `hooks/intercept` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterceptParams {
    /// Wire version, `"0.1"`.
    pub protocol_version: String,
    /// The event to decide on (`tool.before` in 0.1).
    pub event: Event,
    /// What the harness can enforce for this event.
    pub capabilities: Capabilities,
    /// Request-level extensions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A `hooks/intercept` request (spec 8.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InterceptRequest {
    /// `"2.0"`.
    pub jsonrpc: String,
    /// Request id; equals `params.event.id`.
    pub id: RequestId,
    /// `"hooks/intercept"`.
    pub method: String,
    /// Version, event, capabilities.
    pub params: InterceptParams,
}

impl InterceptRequest {
    /// A 0.1 request for `event` with `capabilities`, its id set to the
    /// event id as spec 8.1 requires.
    pub fn new(event: Event, capabilities: Capabilities) -> InterceptRequest {
        InterceptRequest {
            jsonrpc: JSONRPC_VERSION.to_owned(),
            id: RequestId::String(event.id.clone()),
            method: METHOD_INTERCEPT.to_owned(),
            params: InterceptParams {
                protocol_version: WIRE_VERSION.to_owned(),
                event,
                capabilities,
                extensions: None,
                unknown: Map::new(),
            },
        }
    }
}

/// The 0.1 deny effect (spec 12.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DenyEffect {
    /// Human-readable reason (non-empty; may be shown to the user or model).
    pub reason: String,
    /// Reverse-DNS machine code, e.g. `com.example.policy.force_push`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Reverse-DNS keyed backend metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// An effect in a result. 0.1 defines only `deny`; any other type makes
/// the reply an operational failure, so it does not deserialize.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Effect {
    /// Stop the operation.
    #[serde(rename = "deny")]
    Deny(DenyEffect),
}

/// The `result` of a successful `hooks/intercept` response (spec 8.2, 8.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterceptResult {
    /// Wire version, `"0.1"`.
    pub protocol_version: String,
    /// Empty (no objection, never a grant) or exactly one deny.
    pub effects: Vec<Effect>,
    /// Result-level extensions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

impl InterceptResult {
    /// A 0.1 no-effect result.
    pub fn no_effect() -> InterceptResult {
        InterceptResult {
            protocol_version: WIRE_VERSION.to_owned(),
            effects: Vec::new(),
            extensions: None,
            unknown: Map::new(),
        }
    }

    /// A 0.1 result with one deny.
    pub fn deny(reason: impl Into<String>, code: Option<String>) -> InterceptResult {
        InterceptResult {
            effects: vec![Effect::Deny(DenyEffect {
                reason: reason.into(),
                code,
                extensions: None,
                unknown: Map::new(),
            })],
            ..InterceptResult::no_effect()
        }
    }
}

/// A JSON-RPC error object (spec 16).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// The code; see [`ErrorCode`] for the reserved ones.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Extra data (never secrets), e.g. `{"supported": ["0.1"]}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The outcome a response carries: exactly one of `result` and `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ResponseBody {
    /// A success.
    #[serde(rename = "result")]
    Result(InterceptResult),
    /// A failure (an operational failure for the harness).
    #[serde(rename = "error")]
    Error(RpcError),
}

/// A response to `hooks/intercept`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InterceptResponse {
    /// `"2.0"`.
    pub jsonrpc: String,
    /// The request's id, or `null` when the request could not be read.
    pub id: Option<RequestId>,
    /// `result` or `error`.
    #[serde(flatten)]
    pub body: ResponseBody,
}

impl InterceptResponse {
    /// A success response to request `id`.
    pub fn result(id: RequestId, result: InterceptResult) -> InterceptResponse {
        InterceptResponse {
            jsonrpc: JSONRPC_VERSION.to_owned(),
            id: Some(id),
            body: ResponseBody::Result(result),
        }
    }

    /// An error response to request `id` with a reserved or standard code.
    pub fn error(id: Option<RequestId>, code: ErrorCode, data: Option<Value>) -> InterceptResponse {
        InterceptResponse {
            jsonrpc: JSONRPC_VERSION.to_owned(),
            id,
            body: ResponseBody::Error(RpcError {
                code: code.code(),
                message: code.message().to_owned(),
                data,
            }),
        }
    }
}

/// `params` of a `hooks/observe` notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObserveParams {
    /// Wire version, `"0.1"`.
    pub protocol_version: String,
    /// The observed event.
    pub event: Event,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A `hooks/observe` notification (spec 8.4): no id, never answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObserveNotification {
    /// `"2.0"`.
    pub jsonrpc: String,
    /// `"hooks/observe"`.
    pub method: String,
    /// Version and event.
    pub params: ObserveParams,
}

impl ObserveNotification {
    /// A 0.1 notification for `event`.
    pub fn new(event: Event) -> ObserveNotification {
        ObserveNotification {
            jsonrpc: JSONRPC_VERSION.to_owned(),
            method: METHOD_OBSERVE.to_owned(),
            params: ObserveParams {
                protocol_version: WIRE_VERSION.to_owned(),
                event,
                unknown: Map::new(),
            },
        }
    }
}

/// JSON-RPC error codes an AHP backend sends: the four AHP reserves
/// (spec 16) and the standard JSON-RPC 2.0 ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `-32001 unsupported_protocol_version`: `params.protocolVersion` is
    /// not one the backend supports.
    UnsupportedProtocolVersion,
    /// `-32002 unsupported_event`: the event type is not supported by this
    /// method (e.g. `tool.after` sent to `hooks/intercept`).
    UnsupportedEvent,
    /// `-32003 backend_unavailable`: temporarily unable to evaluate.
    BackendUnavailable,
    /// `-32004 backend_internal_error`: failed while evaluating.
    BackendInternalError,
    /// `-32700` parse error (JSON-RPC 2.0).
    ParseError,
    /// `-32600` invalid request (JSON-RPC 2.0).
    InvalidRequest,
    /// `-32601` method not found (JSON-RPC 2.0; AHP does not restate it).
    MethodNotFound,
    /// `-32602` invalid params (JSON-RPC 2.0).
    InvalidParams,
    /// `-32603` internal error (JSON-RPC 2.0).
    InternalError,
}

impl ErrorCode {
    /// Every known code.
    pub const ALL: [ErrorCode; 9] = [
        ErrorCode::UnsupportedProtocolVersion,
        ErrorCode::UnsupportedEvent,
        ErrorCode::BackendUnavailable,
        ErrorCode::BackendInternalError,
        ErrorCode::ParseError,
        ErrorCode::InvalidRequest,
        ErrorCode::MethodNotFound,
        ErrorCode::InvalidParams,
        ErrorCode::InternalError,
    ];

    /// The integer code.
    pub fn code(self) -> i64 {
        match self {
            ErrorCode::UnsupportedProtocolVersion => -32001,
            ErrorCode::UnsupportedEvent => -32002,
            ErrorCode::BackendUnavailable => -32003,
            ErrorCode::BackendInternalError => -32004,
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
        }
    }

    /// The name the spec gives it (`unsupported_protocol_version`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::UnsupportedProtocolVersion => "unsupported_protocol_version",
            ErrorCode::UnsupportedEvent => "unsupported_event",
            ErrorCode::BackendUnavailable => "backend_unavailable",
            ErrorCode::BackendInternalError => "backend_internal_error",
            ErrorCode::ParseError => "parse_error",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::MethodNotFound => "method_not_found",
            ErrorCode::InvalidParams => "invalid_params",
            ErrorCode::InternalError => "internal_error",
        }
    }

    /// A default human-readable message.
    pub fn message(self) -> &'static str {
        match self {
            ErrorCode::UnsupportedProtocolVersion => "Unsupported AHP protocol version",
            ErrorCode::UnsupportedEvent => "Unsupported event type for this method",
            ErrorCode::BackendUnavailable => "Backend temporarily unavailable",
            ErrorCode::BackendInternalError => "Backend internal error",
            ErrorCode::ParseError => "Parse error",
            ErrorCode::InvalidRequest => "Invalid request",
            ErrorCode::MethodNotFound => "Method not found",
            ErrorCode::InvalidParams => "Invalid params",
            ErrorCode::InternalError => "Internal error",
        }
    }

    /// Whether AHP reserves this code (spec 16), as opposed to JSON-RPC.
    pub fn is_ahp_reserved(self) -> bool {
        (-32004..=-32001).contains(&self.code())
    }

    /// The known code with integer value `code`.
    pub fn from_code(code: i64) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.code() == code)
    }
}

/// Any AHP message, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A `hooks/intercept` request.
    Intercept(InterceptRequest),
    /// A `hooks/observe` notification.
    Observe(ObserveNotification),
    /// A response (success or error).
    Response(InterceptResponse),
}

/// What an AHP message is, judged by its members alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// `method: "hooks/intercept"`.
    InterceptRequest,
    /// `method: "hooks/observe"`.
    ObserveNotification,
    /// A response with `result` (and no `method`).
    InterceptResponse,
    /// A response with `error` (and no `method`).
    ErrorResponse,
    /// Anything else: a batch, a non-object, another method, or no
    /// recognisable members.
    Unknown,
}

/// Classify a message by its members: `method` decides for requests and
/// notifications; otherwise `error` makes an error response (even beside
/// `result`, which its schema then refuses) and `result` a success.
pub fn classify(value: &Value) -> MessageKind {
    let Some(obj) = value.as_object() else {
        return MessageKind::Unknown;
    };
    match obj.get("method").and_then(Value::as_str) {
        Some(METHOD_INTERCEPT) => MessageKind::InterceptRequest,
        Some(METHOD_OBSERVE) => MessageKind::ObserveNotification,
        Some(_) => MessageKind::Unknown,
        None if obj.contains_key("method") => MessageKind::Unknown,
        None if obj.contains_key("error") => MessageKind::ErrorResponse,
        None if obj.contains_key("result") => MessageKind::InterceptResponse,
        None => MessageKind::Unknown,
    }
}

/// Why a JSON value is not a typed AHP message.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    /// The value is neither a known request, a notification nor a response.
    #[error("at (root): not an AHP message (no hooks/intercept or hooks/observe method, no result or error)")]
    Unrecognised,
    /// The members do not fit the type; run [`crate::validate`] for the
    /// pointer-precise findings.
    #[error("at (root): {0}")]
    Shape(#[from] serde_json::Error),
}

impl Message {
    /// Read `value` as a typed message, choosing the type by its members.
    pub fn from_value(value: Value) -> Result<Message, MessageError> {
        Ok(match classify(&value) {
            MessageKind::InterceptRequest => Message::Intercept(serde_json::from_value(value)?),
            MessageKind::ObserveNotification => Message::Observe(serde_json::from_value(value)?),
            MessageKind::InterceptResponse | MessageKind::ErrorResponse => {
                Message::Response(serde_json::from_value(value)?)
            }
            MessageKind::Unknown => return Err(MessageError::Unrecognised),
        })
    }

    /// The message as JSON.
    pub fn to_value(&self) -> Value {
        let v = match self {
            Message::Intercept(m) => serde_json::to_value(m),
            Message::Observe(m) => serde_json::to_value(m),
            Message::Response(m) => serde_json::to_value(m),
        };
        v.expect("AHP messages serialize")
    }

    /// The message as one stdio frame: compact JSON plus one LF (spec 17.1;
    /// `serde_json` escapes every newline inside strings).
    pub fn to_stdio_frame(&self) -> String {
        let mut line = self.to_value().to_string();
        line.push('\n');
        line
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reverse_dns_names_agree_with_the_schemas_pattern() {
        let pattern = crate::schema::compile(std::iter::once(format!(
            "{}definitions#/$defs/reverseDnsName",
            crate::schema::ID_BASE
        )))
        .remove(0);
        for name in [
            "com.example.policy",
            "org.example.a-b_c",
            "a.b",
            "A1.b2",
            "force_push",
            "",
            ".a",
            "a.",
            "a..b",
            "1a.b",
            "a.-b",
            "com.exämple.x",
            "a.b c",
            "_a.b",
        ] {
            assert_eq!(
                is_reverse_dns(name),
                pattern.is_valid(&Value::from(name)),
                "{name:?}"
            );
        }
    }

    use super::*;
    use serde_json::json;

    fn event() -> Event {
        serde_json::from_value(json!({
            "id": "evt_1", "source": "urn:uuid:00000000-0000-4000-8000-000000000001",
            "type": "tool.before", "time": "2026-01-01T00:00:00Z",
            "session": {"id": "s1", "x.y": 1},
            "tool": {"callId": "c1", "name": "Bash", "kind": "shell", "input": {"command": "ls"}},
            "future": true
        }))
        .unwrap()
    }

    #[test]
    fn a_built_request_is_valid_and_keeps_unknown_members() {
        let req = InterceptRequest::new(event(), Capabilities::deny_only());
        let msg = Message::Intercept(req);
        let v = msg.to_value();
        assert_eq!(v["id"], "evt_1");
        assert_eq!(v["params"]["event"]["future"], true);
        assert_eq!(v["params"]["event"]["session"]["x.y"], 1);
        assert_eq!(crate::validate::check_message(&v), vec![]);
        let frame = msg.to_stdio_frame();
        assert_eq!(
            crate::validate::check_stdio_frame(frame.as_bytes()).1,
            vec![]
        );
    }

    #[test]
    fn responses_round_trip() {
        let deny = InterceptResponse::result("evt_1".into(), InterceptResult::deny("no", None));
        let v = serde_json::to_value(&deny).unwrap();
        assert_eq!(v["result"]["effects"][0]["type"], "deny");
        assert_eq!(crate::validate::check_message(&v), vec![]);
        assert_eq!(Message::from_value(v).unwrap(), Message::Response(deny));
        let err = InterceptResponse::error(
            Some("evt_1".into()),
            ErrorCode::UnsupportedProtocolVersion,
            Some(json!({"supported": ["0.1"]})),
        );
        let v = serde_json::to_value(&err).unwrap();
        assert_eq!(v["error"]["code"], -32001);
        assert!(v.get("result").is_none());
        assert_eq!(crate::validate::check_message(&v), vec![]);
    }

    #[test]
    fn unknown_enum_values_are_kept_not_refused() {
        let mut e = event();
        e.event_type = EventType::from("turn.start".to_owned());
        assert_eq!(e.event_type, EventType::Other("turn.start".into()));
        let k: ToolKind = serde_json::from_value(json!("browser")).unwrap();
        assert_eq!(k.as_str(), "browser");
    }

    #[test]
    fn reserved_codes() {
        assert_eq!(
            ErrorCode::from_code(-32002),
            Some(ErrorCode::UnsupportedEvent)
        );
        assert!(ErrorCode::UnsupportedEvent.is_ahp_reserved());
        assert!(!ErrorCode::MethodNotFound.is_ahp_reserved());
        assert_eq!(ErrorCode::BackendUnavailable.name(), "backend_unavailable");
    }

    #[test]
    fn an_observe_notification_has_no_id() {
        let mut e = event();
        e.event_type = EventType::ToolAfter;
        let v = Message::Observe(ObserveNotification::new(e)).to_value();
        assert!(v.get("id").is_none());
        assert_eq!(crate::validate::check_message(&v), vec![]);
    }
}
