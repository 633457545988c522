//! The draft line (`ctk-ahp-harness --spec draft`): the adapter declares
//! `protocolVersions` ["draft"], loads only draft registrations, sends the
//! draft `tool.before`, judges replies by the draft's rules, and tells the
//! uncalled interceptors about a short-circuit (DD-04 reading (a)).

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::*;

fn draft_adapter() -> Adapter {
    let mut a = Adapter::start_args(&["--spec", "draft"], &[]);
    let r = a.call("initialize", json!({"adapter": "ctk-ahp-adapter/1"}));
    assert_eq!(r["protocolVersions"], json!(["draft"]));
    a
}

/// A draft subscription: 0.1's plus the required content selection.
fn with_content(mut sub: Value) -> Value {
    sub["content"] = json!({"default": "body"});
    sub
}

fn draft_registration(hooks: Vec<Value>) -> Value {
    json!({"protocolVersion": "draft", "hooks": hooks})
}

/// The reference backend speaking the draft (`--spec draft`).
fn draft_reference() -> Value {
    json!({"type": "stdio", "command": reference_backend().display().to_string(),
           "args": ["--quiet", "--spec", "draft", "stdio"], "lifecycle": "persistent"})
}

#[test]
fn only_draft_registrations_load() {
    let mut a = draft_adapter();
    let log = a.dir.path().join("a.log");
    let sub = intercept("fail-closed", 5000);
    // A 0.1 document, and a draft one without content, are refused whole.
    let released = registration(vec![entry(
        "com.example.a",
        stdio(&log, "persistent", "ok", None),
        vec![sub.clone()],
    )]);
    let no_content = draft_registration(vec![entry(
        "com.example.a",
        stdio(&log, "persistent", "ok", None),
        vec![sub.clone()],
    )]);
    let mut both_tokens = draft_registration(vec![entry(
        "com.example.a",
        json!({"type": "http", "url": "http://127.0.0.1:9/"}),
        vec![with_content(sub.clone())],
    )]);
    both_tokens["hooks"][0]["authentication"] =
        json!({"type": "bearer", "tokenEnv": "T", "tokenRef": "vault:t"});
    for doc in [released, no_content, both_tokens] {
        let r = a.load_env(doc.clone(), json!({}));
        assert_eq!(r["loaded"], false, "{doc} -> {r}");
    }
    a.load(draft_registration(vec![entry(
        "com.example.a",
        draft_reference(),
        vec![with_content(sub)],
    )]));
    a.shutdown();
}

#[test]
fn the_draft_chain_with_the_draft_reference_backend() {
    let mut a = draft_adapter();
    let obs = a.dir.path().join("o.log");
    a.load(draft_registration(vec![
        entry(
            "com.example.a",
            draft_reference(),
            vec![with_content(intercept("fail-closed", 5000))],
        ),
        entry(
            "com.example.o",
            stdio(&obs, "persistent", "ok", None),
            vec![with_content(observe(&["tool.before", "tool.after"]))],
        ),
    ]));
    // A draft no-effect reply: the tool runs.
    assert_eq!(a.tool("Bash"), json!({"outcome": "executed"}));
    // The reference's draft deny is an explicit denial.
    let r = a.call(
        "harness/tool_call",
        json!({"tool": {"name": "Bash", "kind": "shell", "input": {"command": "git push --force"}},
               "callId": "c-9", "hostPermission": "allow"}),
    );
    assert_eq!(r["outcome"], "denied", "{r}; stderr:\n{}", a.stderr());
    assert_eq!(r["synthetic"], false);
    wait_until("three notifications", Duration::from_secs(10), || {
        received(&obs).len() >= 3
    });
    for note in received(&obs) {
        assert!(note.get("id").is_none(), "{note}");
        assert_eq!(note["params"]["protocolVersion"], "draft", "{note}");
        let e = &note["params"]["event"];
        assert!(e["harness"]["version"].is_string(), "{note}");
        assert!(e["call"]["id"].is_string(), "{note}");
        assert_eq!(e["tool"]["origin"], "native", "{note}");
        assert!(e["tool"].get("callId").is_none(), "{note}");
    }
    a.shutdown();
}

#[test]
fn draft_replies_and_observation_of_the_uncalled() {
    let mut a = draft_adapter();
    let b = a.dir.path().join("b.log");
    // A (the python backend answering 0.1) is a failure on the draft line:
    // fail-closed denies, and B, never called, is told by hooks/observe.
    let a_log = a.dir.path().join("a.log");
    a.load(draft_registration(vec![
        entry(
            "com.example.a",
            stdio(&a_log, "persistent", "ok", None),
            vec![with_content(intercept("fail-closed", 5000))],
        ),
        entry(
            "com.example.b",
            stdio(&b, "persistent", "ok", None),
            vec![with_content(intercept("fail-open", 5000))],
        ),
    ]));
    let r = a.tool("Bash");
    assert_eq!(r["outcome"], "denied", "{r}");
    assert_eq!(r["synthetic"], true, "a 0.1 reply is a draft failure");
    let request = &received(&a_log)[0];
    assert_eq!(request["params"]["protocolVersion"], "draft");
    assert_eq!(request["params"]["state"]["permission"], "none");
    assert_eq!(request["id"], request["params"]["event"]["id"]);
    wait_until("B's notification", Duration::from_secs(10), || {
        !received(&b).is_empty()
    });
    let got = received(&b);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["method"], "hooks/observe");
    assert!(got[0].get("id").is_none());
    assert_eq!(
        got[0]["params"]["event"]["id"],
        request["params"]["event"]["id"]
    );
    a.shutdown();
}
