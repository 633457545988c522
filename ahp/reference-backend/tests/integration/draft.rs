//! The draft line: a backend built for `AhpLine::Draft` (or run with
//! `--spec draft`) answers draft requests with draft replies, refuses every
//! other version with -32001 `data.supported` ["draft"], and holds the
//! draft's `tool.before` shape; the default backend is unchanged.

use ctk_ahp_reference_backend::policy::Policy;
use ctk_ahp_reference_backend::{AhpLine, Backend};
use serde_json::{json, Value};

use crate::support::{assert_error, line, StdioBackend};

/// A draft `tool.before` request as the PyPI SDK 0.10.1 shapes it.
fn draft_request(id: &str, command: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "hooks/intercept", "params": {
        "protocolVersion": "draft",
        "event": {"id": id, "source": "urn:uuid:1", "type": "tool.before",
                  "time": "2026-12-01T09:00:00Z",
                  "harness": {"name": "h", "version": "1"}, "call": {"id": "call-1"},
                  "path": "native",
                  "tool": {"name": "Bash", "kind": "shell", "input": {"command": command},
                           "origin": "native"}},
        "capabilities": {"effects": ["deny"]},
        "state": {"candidate": null, "permission": "none"}}})
}

fn draft() -> Backend {
    Backend::with_line(Policy::builtin(), AhpLine::Draft)
}

fn reply(backend: &Backend, request: &Value) -> Value {
    backend
        .handle_value(request)
        .reply
        .expect("a request is answered")
}

#[test]
fn a_draft_backend_answers_draft_requests_in_the_draft() {
    let b = draft();
    assert_eq!(b.line(), AhpLine::Draft);
    let ok = reply(&b, &draft_request("e1", "ls"));
    assert_eq!(
        ok,
        json!({"jsonrpc": "2.0", "id": "e1", "result": {"protocolVersion": "draft", "effects": []}})
    );
    let deny = reply(&b, &draft_request("e2", "git push --force origin main"));
    assert_eq!(deny["result"]["protocolVersion"], "draft", "{deny}");
    let effects = deny["result"]["effects"].as_array().unwrap();
    assert_eq!(effects.len(), 1, "{deny}");
    assert_eq!(effects[0]["type"], "deny");
    // The draft closes the deny effect: type, reason, code only here.
    let keys: Vec<&str> = effects[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["type", "reason", "code"]);
}

#[test]
fn a_draft_backend_refuses_other_versions_and_the_released_shape() {
    let b = draft();
    let mut released = draft_request("e1", "ls");
    released["params"]["protocolVersion"] = json!("0.1");
    let r = reply(&b, &released);
    assert_error(&r, -32001, &json!("e1"));
    assert_eq!(r["error"]["data"]["supported"], json!(["draft"]));
    // 0.1's call identity (tool.callId, no event.call) is refused.
    let mut shaped = draft_request("e2", "ls");
    shaped["params"]["event"]
        .as_object_mut()
        .unwrap()
        .remove("call");
    shaped["params"]["event"]["tool"]["callId"] = json!("call-1");
    assert_error(&reply(&b, &shaped), -32602, &json!("e2"));
    for (ptr, bad) in [
        ("/params/event/harness", json!({"name": "h"})),
        ("/params/event/path", json!("")),
        ("/params/event/tool/origin", json!("plugin")),
        ("/params/event/tool/kind", json!("")),
        ("/params/state", json!({"permission": "none"})),
        ("/params/capabilities/effects", json!(["deny", "deny"])),
        (
            "/params/capabilities/effects",
            json!(["deny", "com.example.redact"]),
        ),
    ] {
        let mut r = draft_request("e3", "ls");
        *r.pointer_mut(ptr).unwrap() = bad;
        assert_error(&reply(&b, &r), -32602, &json!("e3"));
    }
    // Free-form or absent kind, no state, opaque native: decided.
    for (ptr, value) in [
        ("/params/event/tool/kind", Some(json!("browser"))),
        ("/params/event/tool/kind", None),
        ("/params/state", None),
        ("/params/event/native", Some(json!("opaque"))),
    ] {
        let mut r = draft_request("e4", "ls");
        match value {
            Some(v) => {
                let (parent, key) = ptr.rsplit_once('/').unwrap();
                r.pointer_mut(parent).unwrap()[key] = v;
            }
            None => {
                let (parent, key) = ptr.rsplit_once('/').unwrap();
                r.pointer_mut(parent)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove(key);
            }
        }
        assert_eq!(reply(&b, &r)["result"]["protocolVersion"], "draft", "{ptr}");
    }
}

#[test]
fn the_default_backend_still_refuses_the_draft() {
    let r = reply(&Backend::default(), &draft_request("e1", "ls"));
    assert_error(&r, -32001, &json!("e1"));
    assert_eq!(r["error"]["data"]["supported"], json!(["0.1"]));
}

#[test]
fn the_binary_speaks_the_draft_with_spec_draft() {
    let mut b = StdioBackend::start(&["--quiet", "--spec", "draft", "stdio"]);
    let r = b.call(&draft_request("e1", "git push --force"));
    assert_eq!(r["result"]["protocolVersion"], "draft", "{r}");
    assert_eq!(r["result"]["effects"][0]["type"], "deny", "{r}");
    let (status, _, _) = b.finish();
    assert!(status.success());
    let mut released = StdioBackend::start(&["--quiet", "stdio"]);
    let r = released.call(&draft_request("e2", "ls"));
    assert_eq!(r["error"]["code"], -32001, "{}", line(&r));
}
