//! JSON-RPC 2.0 reply shapes and the error codes the backend answers with.
//!
//! `ctk-ahp-protocol` does not (yet) export these, so the crate keeps its
//! own small copy: the standard JSON-RPC 2.0 codes and the ones AHP 0.1
//! reserves (spec 16).

use serde_json::{json, Value};

/// JSON-RPC 2.0: the message is not JSON (or not UTF-8).
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: the message is JSON but not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0: the method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC 2.0: the params are not what the method requires.
pub const INVALID_PARAMS: i64 = -32602;
/// AHP `unsupported_protocol_version`: `params.protocolVersion` is not one
/// the backend supports.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32001;
/// AHP `unsupported_event`: the event type is not supported by the method.
pub const UNSUPPORTED_EVENT: i64 = -32002;

/// The fixed `error.message` for `code` (never built from request content).
pub fn message(code: i64) -> &'static str {
    match code {
        PARSE_ERROR => "Parse error",
        INVALID_REQUEST => "Invalid Request",
        METHOD_NOT_FOUND => "Method not found",
        INVALID_PARAMS => "Invalid params",
        UNSUPPORTED_PROTOCOL_VERSION => "Unsupported AHP protocol version",
        UNSUPPORTED_EVENT => "Unsupported AHP event type for this method",
        _ => "Error",
    }
}

/// A success response: `{"jsonrpc":"2.0","id":id,"result":result}`.
pub fn success_response(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response with the fixed message for `code` and optional `data`.
pub fn error_response(id: Value, code: i64, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message(code)});
    if let Some(d) = data {
        error["data"] = d;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}
