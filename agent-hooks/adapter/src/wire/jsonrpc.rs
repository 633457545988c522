//! JSON-RPC 2.0 envelopes, decoded by hand (envelope first, typed params
//! second), request ids, and the reserved and ctk error codes.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error of the receiver.
pub const INTERNAL_ERROR: i64 = -32603;
/// ctk: the host cannot do what was asked (a `AdapterError` on its side);
/// `data.phase` names the phase.
pub const HOST_ERROR: i64 = -32000;
/// ctk: the host does not speak the protocol version the runner asked for.
pub const UNSUPPORTED_PROTOCOL: i64 = -32001;
/// ctk: a request other than `initialize` came before `initialize`.
pub const NOT_INITIALIZED: i64 = -32002;

/// A request id: an integer or a string, chosen by the request's sender.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "Value", try_from = "Value")]
#[non_exhaustive]
pub enum Id {
    /// An integer id.
    Int(i64),
    /// A string id.
    Str(String),
}

impl From<Id> for Value {
    fn from(id: Id) -> Self {
        match id {
            Id::Int(n) => Value::from(n),
            Id::Str(s) => Value::String(s),
        }
    }
}

impl TryFrom<Value> for Id {
    type Error = WireError;
    fn try_from(value: Value) -> Result<Self, WireError> {
        match value {
            Value::Number(n) => n.as_i64().map(Id::Int).ok_or_else(|| {
                WireError::InvalidEnvelope(format!("id {n} is not an integer in the i64 range"))
            }),
            Value::String(s) => Ok(Id::Str(s)),
            other => Err(WireError::InvalidEnvelope(format!(
                "id must be an integer or a string, not {other}"
            ))),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Int(n) => write!(f, "{n}"),
            Id::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ErrorObject {
    /// A JSON-RPC or ctk error code (the constants of this module).
    pub code: i64,
    /// Human-readable text.
    pub message: String,
    /// Structured detail; for [`HOST_ERROR`], `{"phase": ...}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error object with no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error, carrying `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// One decoded message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message {
    /// A request, to be answered.
    Request {
        /// Its id.
        id: Id,
        /// The method name.
        method: String,
        /// The params (an empty object when absent).
        params: Value,
    },
    /// A notification (a request without id), never answered.
    Notification {
        /// The method name.
        method: String,
        /// The params (an empty object when absent).
        params: Value,
    },
    /// A successful response.
    Response {
        /// The id of the request it answers.
        id: Id,
        /// The result.
        result: Value,
    },
    /// An error response.
    Error {
        /// The id of the request it answers; `None` when the peer could not
        /// read that id.
        id: Option<Id>,
        /// The error.
        error: ErrorObject,
    },
}

/// A message that could not be decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The line is not JSON.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// The line nests deeper than the kit reads ([`super::depth`]).
    #[error("{0}")]
    TooDeep(#[from] super::depth::TooDeep),
    /// The line is JSON but not a JSON-RPC 2.0 message.
    #[error("not a JSON-RPC 2.0 message: {0}")]
    InvalidEnvelope(String),
    /// The message does not match the schema of its method or the envelope.
    #[error("{what} does not match its schema: {detail}")]
    Schema {
        /// What was checked, e.g. `params of vector/setup`.
        what: String,
        /// The first violation, with its JSON pointer.
        detail: String,
    },
    /// The params or result match the schema but not the Rust type.
    #[error("{what}: {detail}")]
    Decode {
        /// What was decoded.
        what: String,
        /// The serde error.
        detail: String,
    },
}

impl Message {
    /// Parse one line into a message, checking the envelope by hand. A
    /// line may nest up to [`super::depth::MAX_NESTING`] levels.
    pub fn decode(line: &str) -> Result<Message, WireError> {
        super::depth::check(line)?;
        let value: Value =
            super::depth::parse_checked(line).map_err(|e| WireError::NotJson(e.to_string()))?;
        Message::from_value(value)
    }

    /// Decode an already parsed message.
    pub fn from_value(value: Value) -> Result<Message, WireError> {
        let Value::Object(mut obj) = value else {
            return Err(WireError::InvalidEnvelope(
                "a message must be a JSON object".into(),
            ));
        };
        match obj.get("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            _ => {
                return Err(WireError::InvalidEnvelope(
                    "`jsonrpc` must be \"2.0\"".into(),
                ))
            }
        }
        let id = obj.remove("id");
        let method = obj.remove("method");
        let params = obj.remove("params");
        let result = obj.remove("result");
        let error = obj.remove("error");
        obj.remove("jsonrpc");
        if let Some(extra) = obj.keys().next() {
            return Err(WireError::InvalidEnvelope(format!(
                "unknown member `{extra}`"
            )));
        }
        let params = match params {
            None => Value::Object(Map::new()),
            Some(p @ Value::Object(_)) => p,
            Some(_) => {
                return Err(WireError::InvalidEnvelope(
                    "`params` must be an object".into(),
                ))
            }
        };
        match (method, result, error) {
            (Some(Value::String(method)), None, None) => match id {
                None => Ok(Message::Notification { method, params }),
                Some(id) => Ok(Message::Request {
                    id: Id::try_from(id)?,
                    method,
                    params,
                }),
            },
            (Some(_), None, None) => Err(WireError::InvalidEnvelope(
                "`method` must be a string".into(),
            )),
            (None, Some(result), None) => {
                let id = id
                    .ok_or_else(|| WireError::InvalidEnvelope("a response needs an `id`".into()))?;
                Ok(Message::Response {
                    id: Id::try_from(id)?,
                    result,
                })
            }
            (None, None, Some(error)) => {
                let id = match id {
                    None | Some(Value::Null) => None,
                    Some(id) => Some(Id::try_from(id)?),
                };
                let error = serde_json::from_value(error)
                    .map_err(|e| WireError::InvalidEnvelope(format!("bad `error` member: {e}")))?;
                Ok(Message::Error { id, error })
            }
            _ => Err(WireError::InvalidEnvelope(
                "a message has exactly one of `method`, `result` or `error`".into(),
            )),
        }
    }
}

#[derive(Serialize)]
struct RequestOut<'a, P: Serialize + ?Sized> {
    jsonrpc: &'static str,
    id: &'a Id,
    method: &'a str,
    params: &'a P,
}

#[derive(Serialize)]
struct NotificationOut<'a, P: Serialize + ?Sized> {
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a P,
}

#[derive(Serialize)]
struct ResultOut<'a, R: Serialize + ?Sized> {
    jsonrpc: &'static str,
    id: &'a Id,
    result: &'a R,
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    jsonrpc: &'static str,
    id: Option<&'a Id>,
    error: &'a ErrorObject,
}

/// Make serialised JSON one line. JSON strings cannot hold a raw line break,
/// so any `\n` or `\r` in the text is whitespace between tokens (it comes
/// from raw JSON embedded as written, e.g. a pretty-printed scenario) and
/// becomes a space; every token, integer literals included, is unchanged.
fn one_line(mut text: String) -> String {
    if memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_some() {
        text = text.replace(['\n', '\r'], " ");
    }
    text
}

/// Serialise a request as one line (no newline). Params are serialised
/// directly, so raw JSON inside them (a vector's scenario) keeps every token.
pub fn encode_request<P: Serialize + ?Sized>(id: &Id, method: &str, params: &P) -> String {
    one_line(
        serde_json::to_string(&RequestOut {
            jsonrpc: "2.0",
            id,
            method,
            params,
        })
        .expect("wire params serialise to JSON"),
    )
}

/// Serialise a notification (a request without id, never answered) as one
/// line (no newline).
pub fn encode_notification<P: Serialize + ?Sized>(method: &str, params: &P) -> String {
    one_line(
        serde_json::to_string(&NotificationOut {
            jsonrpc: "2.0",
            method,
            params,
        })
        .expect("wire params serialise to JSON"),
    )
}

/// Serialise a result response as one line (no newline).
pub fn encode_result<R: Serialize + ?Sized>(id: &Id, result: &R) -> String {
    one_line(
        serde_json::to_string(&ResultOut {
            jsonrpc: "2.0",
            id,
            result,
        })
        .expect("wire results serialise to JSON"),
    )
}

/// Serialise an error response as one line (no newline).
pub fn encode_error(id: Option<&Id>, error: &ErrorObject) -> String {
    one_line(
        serde_json::to_string(&ErrorOut {
            jsonrpc: "2.0",
            id,
            error,
        })
        .expect("wire errors serialise to JSON"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_without_params_gets_empty_object() {
        let m = Message::decode(r#"{"jsonrpc":"2.0","id":1,"method":"vector/run"}"#).unwrap();
        assert_eq!(
            m,
            Message::Request {
                id: Id::Int(1),
                method: "vector/run".into(),
                params: json!({})
            }
        );
    }

    #[test]
    fn notification_has_no_id() {
        let m = Message::decode(r#"{"jsonrpc":"2.0","method":"x","params":{"a":1}}"#).unwrap();
        assert!(matches!(m, Message::Notification { .. }));
    }

    #[test]
    fn error_with_null_id_decodes() {
        let m = Message::decode(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#,
        )
        .unwrap();
        assert_eq!(
            m,
            Message::Error {
                id: None,
                error: ErrorObject::new(PARSE_ERROR, "bad")
            }
        );
    }

    #[test]
    fn envelope_errors_are_named() {
        for bad in [
            "[]",
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#,
        ] {
            assert!(
                matches!(Message::decode(bad), Err(WireError::InvalidEnvelope(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            Message::decode("nope"),
            Err(WireError::NotJson(_))
        ));
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{}0{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(matches!(Message::decode(&deep), Err(WireError::TooDeep(_))));
    }

    #[test]
    fn raw_json_with_line_breaks_stays_on_one_line() {
        let raw = serde_json::value::RawValue::from_string(
            "{\r\n  \"big\": 123456789012345678901234567890,\n  \"s\": \"a\\nb\"\n}".to_owned(),
        )
        .unwrap();
        let line = encode_request(&Id::Int(1), "vector/setup", &raw);
        assert!(!line.contains(['\n', '\r']), "{line}");
        assert!(
            line.contains("123456789012345678901234567890") && line.contains(r#""a\nb""#),
            "{line}"
        );
    }

    #[test]
    fn encode_round_trips() {
        let id = Id::Str("a".into());
        let line = encode_request(&id, "m", &json!({"k": [1]}));
        assert_eq!(
            Message::decode(&line).unwrap(),
            Message::Request {
                id: id.clone(),
                method: "m".into(),
                params: json!({"k": [1]})
            }
        );
        let line = encode_error(None, &ErrorObject::new(INTERNAL_ERROR, "x"));
        assert!(line.contains("\"id\":null"));
    }
}
