//! ahp-9.5-c: what a proxy built on the kit's typed messages sends on.
//!
//! None of the kit's implementations sits between a harness and a backend,
//! so the clause binds the one piece of ours a proxy would be made of: the
//! typed messages of [`ctk_ahp_wire::wire`]. Reading a message and
//! writing it again, unchanged, must carry every extension (event-level and
//! params-level, any JSON value) through intact, uninterpreted.

use ctk_ahp_wire::wire::{Event, InterceptRequest, Message, ObserveNotification};
use serde_json::{json, Value};

/// Extension values of every JSON kind, nested, under reverse-DNS keys.
fn extensions() -> Value {
    json!({
        "org.w3c.trace_context": {
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate": "congo=t61rcWkgMzE"
        },
        "com.example.policy": [1, -2.5, "three", null, true, {"nested": [[]]}],
        "com.example.empty": {},
        "com.example.null": null
    })
}

fn event() -> Value {
    json!({
        "id": "evt-1",
        "source": "urn:example:harness",
        "type": "tool.before",
        "time": "2026-12-01T08:25:30Z",
        "session": {"id": "s-1"},
        "tool": {"callId": "c-1", "name": "Bash", "kind": "shell", "input": {"command": "ls"}},
        "extensions": extensions()
    })
}

fn intercept() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": "evt-1",
        "method": "hooks/intercept",
        "params": {
            "protocolVersion": "0.1",
            "event": event(),
            "capabilities": {"effects": ["deny"]},
            "extensions": {"com.example.request": {"hop": 1}}
        }
    })
}

fn observe() -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "hooks/observe",
        "params": {"protocolVersion": "0.1", "event": event()}
    })
}

/// An event read and written again by a proxy keeps its extensions exactly.
#[test]
fn a_proxied_event_keeps_its_extensions_intact() {
    let typed: Event = serde_json::from_value(event()).expect("an event");
    let again = serde_json::to_value(&typed).expect("serializes");
    assert_eq!(again["extensions"], extensions());
    assert_eq!(again, event(), "the whole event passes unchanged");
}

/// A whole intercept request or observe notification, read as a typed
/// message and written again, keeps both the event's and the request's
/// extensions, through the typed structs and through [`Message`].
#[test]
fn a_proxied_message_keeps_event_and_request_extensions() {
    let request: InterceptRequest = serde_json::from_value(intercept()).expect("a request");
    assert_eq!(
        serde_json::to_value(&request).expect("serializes"),
        intercept()
    );
    let note: ObserveNotification = serde_json::from_value(observe()).expect("a notification");
    assert_eq!(serde_json::to_value(&note).expect("serializes"), observe());
    for original in [intercept(), observe()] {
        let forwarded = Message::from_value(original.clone())
            .expect("a message")
            .to_value();
        assert_eq!(
            forwarded["params"]["event"]["extensions"],
            extensions(),
            "{forwarded}"
        );
        assert_eq!(forwarded, original, "nothing is dropped or rewritten");
    }
}
