//! JSON-RPC 2.0 reply shapes built from `ctk-ahp-wire`'s error codes.
//!
//! Error messages are the fixed texts of [`ErrorCode::message`], never
//! built from request content.

pub use ctk_ahp_wire::wire::ErrorCode;
use serde_json::{json, Value};

/// A success response: `{"jsonrpc":"2.0","id":id,"result":result}`.
pub fn success_response(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response with the fixed message for `code` and optional `data`.
pub fn error_response(id: Value, code: ErrorCode, data: Option<Value>) -> Value {
    let mut error = json!({"code": code.code(), "message": code.message()});
    if let Some(d) = data {
        error["data"] = d;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}
