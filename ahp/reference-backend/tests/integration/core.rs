//! The transport-free core, driven in process through the library.

use ctk_ahp_reference_backend::policy::Policy;
use ctk_ahp_reference_backend::{respond, Backend, Disposition};
use serde_json::{json, Value};

use crate::support::*;

fn reply(frame: &[u8]) -> Option<Value> {
    respond(&Backend::default(), frame).map(|l| {
        assert!(!l.contains('\n'), "a reply is one line: {l}");
        serde_json::from_str(&l).unwrap()
    })
}

fn reply_to(v: &Value) -> Value {
    reply(line(v).as_bytes()).expect("a request gets a reply")
}

#[test]
fn a_call_no_rule_matches_gets_an_empty_effect_list_echoing_the_id() {
    assert_no_effect(&reply_to(&harmless("evt-1")), "evt-1");
}

#[test]
fn a_matching_rule_gives_exactly_one_deny_with_reason_and_code() {
    let r = reply_to(&force_push("evt-2"));
    assert_deny(&r, "evt-2");
    assert_eq!(
        r["result"]["effects"][0]["code"],
        "dev.agent-hooks-ctk.reference.force_push"
    );
    let probe = reply_to(&intercept("evt-3", "ctk_deny", "other", json!({})));
    assert_deny(&probe, "evt-3");
}

#[test]
fn an_unsupported_protocol_version_gets_32001_naming_the_supported_one() {
    for version in [json!("0.2"), json!("draft"), json!("0.1.0"), json!(0.1)] {
        let mut req = harmless("evt-v");
        req["params"]["protocolVersion"] = version.clone();
        let r = reply_to(&req);
        assert_error(&r, -32001, &json!("evt-v"));
        assert_eq!(r["error"]["data"]["supported"], json!(["0.1"]), "{version}");
    }
    let mut missing = harmless("evt-m");
    missing["params"]
        .as_object_mut()
        .unwrap()
        .remove("protocolVersion");
    assert_error(&reply_to(&missing), -32602, &json!("evt-m"));
}

#[test]
fn an_event_other_than_tool_before_sent_to_intercept_gets_32002() {
    for ty in [
        "tool.after",
        "tool.error",
        "session.start",
        "session.end",
        "turn.start",
    ] {
        let mut req = harmless("evt-e");
        req["params"]["event"]["type"] = json!(ty);
        assert_error(&reply_to(&req), -32002, &json!("evt-e"));
    }
}

#[test]
fn an_unknown_method_gets_32601_with_the_request_id() {
    let req = json!({"jsonrpc": "2.0", "id": "evt-u", "method": "hooks/capabilities",
                     "params": {"protocolVersion": "0.1"}});
    assert_error(&reply_to(&req), -32601, &json!("evt-u"));
    let numeric = json!({"jsonrpc": "2.0", "id": 7, "method": "nope"});
    assert_error(&reply_to(&numeric), -32601, &json!(7));
}

#[test]
fn malformed_json_and_non_utf8_get_32700_with_a_null_id() {
    for frame in [
        &b"{"[..],
        b"not json",
        b"{\"jsonrpc\":\"2.0\",\"id\":\"a\"} trailing",
        b"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"hooks/intercept\"}",
    ] {
        let r = reply(frame).expect("a parse error is answered");
        assert_error(&r, -32700, &Value::Null);
    }
}

#[test]
fn invalid_requests_get_32600_with_a_null_id() {
    let cases = [
        json!([]),
        json!([harmless("evt-b")]),
        json!("hooks/intercept"),
        json!(42),
        json!({"foo": "bar"}),
        json!({"jsonrpc": "2.0", "method": 1, "params": "bar"}),
        json!({"jsonrpc": "1.0", "id": "evt-j", "method": "hooks/intercept", "params": {}}),
        json!({"id": "evt-j", "method": "hooks/intercept", "params": {}}),
        json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "hooks/intercept", "params": {}}),
        json!({"jsonrpc": "2.0", "id": "evt-p", "method": "hooks/intercept", "params": "x"}),
    ];
    for c in cases {
        let r = reply_to(&c);
        assert_error(&r, -32600, &Value::Null);
    }
    // Repeated member names make a message mean two things.
    let dup = br#"{"jsonrpc":"2.0","id":"a","id":"b","method":"hooks/intercept","params":{}}"#;
    assert_error(&reply(dup).unwrap(), -32600, &Value::Null);
}

#[test]
fn notifications_are_never_answered_whatever_they_hold() {
    let cases = [
        observe("evt-o1"),
        json!({"jsonrpc": "2.0", "method": "hooks/observe", "params": {"protocolVersion": "0.2"}}),
        json!({"jsonrpc": "2.0", "method": "hooks/observe"}),
        json!({"jsonrpc": "2.0", "method": "hooks/observe", "params": "junk"}),
        json!({"jsonrpc": "2.0", "method": "no/such/method", "params": {}}),
        json!({"jsonrpc": "1.0", "method": "hooks/observe", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "hooks/intercept", "params": {}}),
    ];
    for c in cases {
        assert_eq!(reply(line(&c).as_bytes()), None, "{c}");
    }
    let dup = br#"{"jsonrpc":"2.0","method":"hooks/observe","params":{},"params":{}}"#;
    assert_eq!(reply(dup), None);
    let h = Backend::default().handle_value(&observe("evt-o2"));
    assert_eq!(h.disposition, Disposition::Notification);
}

#[test]
fn observe_sent_as_a_request_is_refused_not_treated_as_a_decision() {
    let mut req = observe("evt-o3");
    req["id"] = json!("evt-o3");
    assert_error(&reply_to(&req), -32600, &json!("evt-o3"));
}

#[test]
fn unknown_fields_and_extensions_everywhere_do_not_change_the_answer() {
    fn decorate(mut req: Value) -> Value {
        req["x-root"] = json!({"nested": [1, 2]});
        req["params"]["x-params"] = json!(true);
        req["params"]["extensions"] = json!({"com.example.params": {"k": "v"}});
        let ev = &mut req["params"]["event"];
        ev["x-event"] = json!("u");
        ev["extensions"] = json!({"org.w3c.trace_context": {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}});
        ev["native"] = json!({"provider": "p", "eventName": "PreToolUse", "payload": {"a": 1}});
        ev["tool"]["x-tool"] = json!(null);
        ev["tool"]["mcp"] = json!({"server": "s", "tool": "t"});
        ev["session"]["x-session"] = json!(3);
        ev["session"]["agent"] = json!({"id": "agent-1"});
        req["params"]["capabilities"]["effects"] = json!(["deny", "com.example.redact"]);
        req["params"]["capabilities"]["x-cap"] = json!(1);
        req
    }
    for plain in [harmless("evt-k1"), force_push("evt-k2")] {
        assert_eq!(reply_to(&decorate(plain.clone())), reply_to(&plain));
    }
}

#[test]
fn a_duplicate_delivery_gets_the_same_answer() {
    let backend = Backend::default();
    for req in [
        harmless("evt-d1"),
        force_push("evt-d2"),
        json!({"jsonrpc": "2.0", "id": "x", "method": "m"}),
    ] {
        let frame = line(&req);
        let first = respond(&backend, frame.as_bytes());
        assert!(first.is_some());
        for _ in 0..3 {
            assert_eq!(respond(&backend, frame.as_bytes()), first);
        }
    }
}

#[test]
fn an_id_other_than_the_event_id_is_invalid_params() {
    let mut req = harmless("evt-outer");
    req["params"]["event"]["id"] = json!("evt-inner");
    let r = reply_to(&req);
    assert_error(&r, -32602, &json!("evt-outer"));
    assert_eq!(r["error"]["data"]["pointer"], "/id");
    let mut numeric = harmless("evt-n");
    numeric["id"] = json!(5);
    assert_error(&reply_to(&numeric), -32602, &json!(5));
}

#[test]
fn a_tool_before_missing_what_the_text_requires_is_invalid_params_with_a_pointer() {
    type Edit = fn(&mut Value);
    let cases: [(Edit, &str); 12] = [
        (
            |r| r["params"] = json!({"protocolVersion": "0.1"}),
            "/params/event",
        ),
        (
            |r| {
                r["params"]["event"]
                    .as_object_mut()
                    .unwrap()
                    .remove("source");
            },
            "/params/event/source",
        ),
        (
            |r| {
                r["params"]["event"].as_object_mut().unwrap().remove("time");
            },
            "/params/event/time",
        ),
        (
            |r| r["params"]["event"]["session"] = json!({}),
            "/params/event/session/id",
        ),
        (
            |r| {
                r["params"]["event"].as_object_mut().unwrap().remove("tool");
            },
            "/params/event/tool",
        ),
        (
            |r| r["params"]["event"]["tool"]["callId"] = json!(""),
            "/params/event/tool/callId",
        ),
        (
            |r| r["params"]["event"]["tool"]["kind"] = json!("browser"),
            "/params/event/tool/kind",
        ),
        (
            |r| r["params"]["event"]["tool"]["input"] = json!("{\"command\":\"ls\"}"),
            "/params/event/tool/input",
        ),
        (
            |r| r["params"]["event"]["tool"]["output"] = json!({}),
            "/params/event/tool/output",
        ),
        (
            |r| {
                r["params"].as_object_mut().unwrap().remove("capabilities");
            },
            "/params/capabilities/effects",
        ),
        (
            |r| r["params"]["capabilities"]["effects"] = json!(["com.example.redact"]),
            "/params/capabilities/effects",
        ),
        (
            |r| r["params"]["event"]["tool"]["name"] = json!(""),
            "/params/event/tool/name",
        ),
    ];
    for (edit, pointer) in cases {
        let mut req = harmless("evt-i");
        edit(&mut req);
        let r = reply_to(&req);
        assert_error(&r, -32602, &json!("evt-i"));
        assert_eq!(r["error"]["data"]["pointer"], pointer, "{r}");
    }
}

#[test]
fn nothing_the_request_carries_comes_back_in_a_reason_or_error_data() {
    let canary = "Bearer ctk-canary-5f1d9e";
    let mut plants: Vec<Value> = Vec::new();
    // Each error path, with the canary planted in every free-text spot.
    let mut base = force_push(canary);
    base["params"]["event"]["id"] = json!(canary);
    base["params"]["event"]["source"] = json!(format!("urn:x:{canary}"));
    base["params"]["event"]["tool"]["input"]["token"] = json!(canary);
    base["params"]["x-auth"] = json!(canary);
    plants.push(base.clone());
    let mut v = base.clone();
    v["params"]["protocolVersion"] = json!(canary);
    plants.push(v);
    let mut v = base.clone();
    v["params"]["event"]["type"] = json!(canary);
    plants.push(v);
    let mut v = base.clone();
    v["params"]["event"]["tool"]["kind"] = json!(canary);
    plants.push(v);
    let mut v = base.clone();
    v["method"] = json!(canary);
    plants.push(v);
    let mut v = base.clone();
    v["params"]["event"]["id"] = json!("other");
    plants.push(v);
    for req in plants {
        let r = reply_to(&req);
        // The id is echoed by design (it is the harness's own event id);
        // everything else must be free of the canary.
        let mut rest = r.clone();
        rest.as_object_mut().unwrap().remove("id");
        assert!(!line(&rest).contains("ctk-canary"), "{r}");
    }
    let parse = reply(format!("{{\"a\":\"{canary}\"").as_bytes()).unwrap();
    assert!(!line(&parse).contains("ctk-canary"), "{parse}");
}

#[test]
fn an_empty_policy_never_denies_and_a_custom_rule_denies_with_its_own_reason() {
    let open = Backend::new(Policy::empty());
    let r: Value =
        serde_json::from_str(&respond(&open, line(&force_push("evt-a")).as_bytes()).unwrap())
            .unwrap();
    assert_no_effect(&r, "evt-a");
    let custom = Backend::new(
        Policy::from_json(
            r#"{"rules":[{"toolName":"write_file","inputContains":".env","reason":"Secrets files are off limits.","code":"com.example.policy.env","extensions":{"com.example.policy":{"ruleId":"env-1"}}}]}"#,
        )
        .unwrap(),
    );
    let req = intercept(
        "evt-c",
        "write_file",
        "file_write",
        json!({"path": "app/.env"}),
    );
    let r: Value = serde_json::from_str(&respond(&custom, line(&req).as_bytes()).unwrap()).unwrap();
    assert_deny(&r, "evt-c");
    assert_eq!(
        r["result"]["effects"][0],
        json!({"type": "deny", "reason": "Secrets files are off limits.", "code": "com.example.policy.env",
               "extensions": {"com.example.policy": {"ruleId": "env-1"}}})
    );
}
