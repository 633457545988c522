//! ahp-10.3-b: the error object of `tool.error` carries `message`.
//!
//! No kit implementation emits `tool.error` (the reference harness's probe
//! tool never fails, and the adapter contract has no failing call), so the
//! clause is pinned where the kit judges one: the static validator every
//! harness frame goes through refuses a `tool.error` whose error object has
//! no `message`, and accepts one that has it.

use ctk_ahp_wire::validate::check_message;
use serde_json::{json, Value};

fn tool_error(error: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "hooks/observe",
        "params": {
            "protocolVersion": "0.1",
            "event": {
                "id": "evt-1",
                "source": "urn:example:harness",
                "type": "tool.error",
                "time": "2026-12-01T08:25:30Z",
                "session": {"id": "s-1"},
                "tool": {
                    "callId": "c-1",
                    "name": "Bash",
                    "kind": "shell",
                    "input": {"command": "false"},
                    "error": error
                }
            }
        }
    })
}

/// A `tool.error` with `error.message` is valid.
#[test]
fn a_tool_error_with_a_message_is_valid() {
    let findings = check_message(&tool_error(json!({"message": "exit status 1"})));
    assert!(findings.is_empty(), "{findings:?}");
}

/// A `tool.error` whose error object lacks `message` is refused, with a
/// finding that points into the error object.
#[test]
fn a_tool_error_without_a_message_is_refused() {
    for error in [json!({}), json!({"code": "ENOENT"})] {
        let findings = check_message(&tool_error(error.clone()));
        assert!(
            findings
                .iter()
                .any(|f| f.pointer.starts_with("/params/event/tool/error")),
            "{error}: {findings:?}"
        );
    }
}
