//! The adapter surface, registration refusal, the reference backend,
//! observers over stdio, the per-event lifecycle, process hygiene (args,
//! cwd, environment) and cleanup.

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

#[test]
fn initialize_declares_the_contract_and_unknown_calls_are_errors() {
    let mut a = Adapter::start_with(&[]);
    let r = a.call("initialize", json!({"adapter": "ctk-ahp-adapter/1"}));
    assert_eq!(r["adapter"], "ctk-ahp-adapter/1");
    assert_eq!(r["name"], "ctk-ahp-harness");
    assert_eq!(r["protocolVersions"], json!(["0.1"]));
    assert_eq!(r["bindings"], json!(["stdio", "http"]));
    assert_eq!(r["lifecycles"], json!(["persistent", "per_event"]));
    assert_eq!(
        r["profiles"],
        json!([
            "base",
            "tool-interception",
            "lifecycle-observation",
            "stdio",
            "http"
        ])
    );
    assert_eq!(
        a.call_reply("harness/unknown", json!({}))["error"]["code"],
        -32601
    );
    let before_load = a.call_reply(
        "harness/tool_call",
        json!({"tool": {"name": "Bash", "kind": "shell", "input": {}}, "callId": null, "hostPermission": "allow"}),
    );
    assert!(before_load.get("error").is_some(), "{before_load}");
    // Params that cannot become a valid tool.before are refused, not sent.
    let log = a.dir.path().join("never.log");
    a.load(registration(vec![entry(
        "com.example.ok",
        stdio(&log, "persistent", "ok", None),
        vec![intercept("fail-closed", 5000)],
    )]));
    for bad in [
        json!({"tool": {"name": "Bash", "kind": "rocket", "input": {}}, "callId": null, "hostPermission": "allow"}),
        json!({"tool": {"name": "Bash", "kind": "shell", "input": "{\"a\":1}"}, "callId": null, "hostPermission": "allow"}),
        json!({"tool": {"name": "", "kind": "shell", "input": {}}, "callId": null, "hostPermission": "allow"}),
        json!({"tool": {"name": "Bash", "kind": "shell", "input": {}}, "callId": null, "hostPermission": "maybe"}),
    ] {
        let r = a.call_reply("harness/tool_call", bad.clone());
        assert_eq!(r["error"]["code"], -32602, "{bad} -> {r}");
    }
    assert!(received(&log).is_empty());
    assert_eq!(
        a.call_reply("initialize", json!({"adapter": "ctk-ahp-adapter/2"}))["error"]["code"],
        -32602
    );
    a.shutdown();
}

#[test]
fn invalid_registrations_are_refused_whole() {
    let mut a = Adapter::start();
    let log = a.dir.path().join("never.log");
    let good = entry(
        "com.example.good",
        stdio(&log, "persistent", "deny", None),
        vec![intercept("fail-closed", 5000)],
    );
    let cases = vec![
        ("empty hooks", registration(vec![])),
        (
            "wrong version",
            json!({"protocolVersion": "0.2", "hooks": [good.clone()]}),
        ),
        (
            "single-label id",
            registration(vec![entry(
                "policy",
                stdio(&log, "persistent", "ok", None),
                vec![intercept("fail-open", 5000)],
            )]),
        ),
        (
            "duplicate subscription",
            registration(vec![entry(
                "com.example.dup",
                stdio(&log, "persistent", "ok", None),
                vec![intercept("fail-open", 5000), intercept("fail-closed", 5000)],
            )]),
        ),
        (
            "duplicate ids",
            registration(vec![good.clone(), good.clone()]),
        ),
        (
            "observe with failurePolicy",
            registration(vec![
                good.clone(),
                entry(
                    "com.example.obs",
                    stdio(&log, "persistent", "ok", None),
                    vec![
                        json!({"events": ["tool.after"], "mode": "observe", "failurePolicy": "fail-open"}),
                    ],
                ),
            ]),
        ),
        (
            "timeoutMs 0",
            registration(vec![entry(
                "com.example.zero",
                stdio(&log, "persistent", "ok", None),
                vec![
                    json!({"events": ["tool.before"], "mode": "intercept", "timeoutMs": 0, "failurePolicy": "fail-open"}),
                ],
            )]),
        ),
        (
            "literal token",
            registration(vec![
                good.clone(),
                json!({"id": "com.example.h", "transport": {"type": "http", "url": "http://127.0.0.1:9/x"},
                       "authentication": {"type": "bearer", "tokenEnv": "T", "token": "secret"},
                       "subscriptions": [intercept("fail-open", 5000)]}),
            ]),
        ),
        (
            "remote plain http",
            registration(vec![
                good.clone(),
                entry(
                    "com.example.remote",
                    json!({"type": "http", "url": "http://ahp-ctk.invalid/hook"}),
                    vec![intercept("fail-open", 5000)],
                ),
            ]),
        ),
    ];
    for (what, doc) in cases {
        let r = a.load_env(doc, json!({}));
        assert_eq!(r["loaded"], false, "{what}: {r}");
        let refused = r["refused"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: {r}"));
        assert!(!refused.is_empty(), "{what}");
        assert!(refused
            .iter()
            .all(|f| f["pointer"].is_string() && f["reason"].is_string()));
        // Nothing is loaded: no backend receives traffic (D-21).
        assert!(a.call_reply("harness/tool_call", json!({"tool": {"name": "Bash", "kind": "shell", "input": {}}, "callId": null, "hostPermission": "allow"})).get("error").is_some());
    }
    // A repeated member inside the registration reaches the loader as is.
    let r = a.raw(r#"{"jsonrpc":"2.0","id":"dup","method":"harness/load","params":{"registration":{"protocolVersion":"0.1","protocolVersion":"0.1","hooks":[]},"env":{},"cwd":null}}"#);
    assert_eq!(r["result"]["loaded"], false, "{r}");
    assert!(
        log_lines(&log).is_empty(),
        "no backend of a refused document ran"
    );
    a.shutdown();
}

#[test]
fn the_reference_backend_over_both_lifecycles() {
    let bin = reference_backend().display().to_string();
    let mut a = Adapter::start();
    for (args, lifecycle) in [
        (vec!["stdio"], "persistent"),
        (vec!["stdio", "--per-event"], "per_event"),
    ] {
        a.load(registration(vec![entry(
            "dev.agent-hooks-ctk.reference",
            json!({"type": "stdio", "command": bin, "args": args, "lifecycle": lifecycle}),
            vec![intercept("fail-closed", 10_000)],
        )]));
        assert_eq!(
            a.tool("Bash"),
            json!({"outcome": "executed"}),
            "{lifecycle}: {}",
            a.stderr()
        );
        let r = a.tool("ctk_deny");
        assert_eq!(r["outcome"], "denied", "{lifecycle}: {r}");
        assert_eq!(r["synthetic"], false);
        assert_eq!(r["code"], "dev.agent-hooks-ctk.reference.deny_probe");
        assert_eq!(
            a.tool("Bash"),
            json!({"outcome": "executed"}),
            "{lifecycle}"
        );
    }
    a.shutdown();
}

#[test]
fn observe_only_tool_before_adds_no_decision_step() {
    let mut a = Adapter::start();
    let log = a.dir.path().join("obs.log");
    // The observer writes a deny-shaped line for every notification.
    a.load(registration(vec![entry(
        "com.example.obs",
        stdio(&log, "persistent", "reply-to-notes", None),
        vec![observe(&["tool.before"])],
    )]));
    assert_eq!(a.tool("Bash"), json!({"outcome": "executed"}));
    wait_until("the notification", Duration::from_secs(10), || {
        !received(&log).is_empty()
    });
    let frames = received(&log);
    assert!(
        frames
            .iter()
            .all(|f| f["method"] == "hooks/observe" && f.get("id").is_none()),
        "{frames:?}"
    );
    assert!(frames
        .iter()
        .all(|f| ctk_ahp_wire::validate::check_message(f).is_empty()));
    a.shutdown();
}

#[test]
fn observers_see_the_call_and_never_delay_it() {
    let mut a = Adapter::start();
    let obs = a.dir.path().join("obs.log");
    let sleepy = a.dir.path().join("sleepy.log");
    let failing = a.dir.path().join("failing.log");
    let gate = a.dir.path().join("gate.log");
    a.load(registration(vec![
        entry(
            "com.example.obs",
            stdio(&obs, "persistent", "ok", None),
            vec![observe(&[
                "session.start",
                "tool.before",
                "tool.after",
                "tool.error",
                "session.end",
            ])],
        ),
        entry(
            "com.example.sleepy",
            stdio(&sleepy, "per_event", "sleep-notes", Some("20")),
            vec![observe(&["tool.before", "tool.after"])],
        ),
        entry(
            "com.example.failing",
            stdio(&failing, "per_event", "exit", Some("5")),
            vec![observe(&["tool.before"])],
        ),
        entry(
            "com.example.gate",
            stdio(&gate, "persistent", "ok", None),
            vec![intercept("fail-closed", 10_000), observe(&["tool.after"])],
        ),
    ]));
    assert_eq!(
        a.call("harness/session", json!({"event": "session.start"})),
        json!({})
    );
    let start = Instant::now();
    assert_eq!(
        a.tool_with("Bash", "allow", Some("call-1")),
        json!({"outcome": "executed"})
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "a 20 s observer delayed the tool"
    );
    assert_eq!(
        a.call("harness/session", json!({"event": "session.end"})),
        json!({})
    );
    wait_until("observer frames", Duration::from_secs(10), || {
        received(&obs).len() == 4
    });
    let frames = received(&obs);
    let types: Vec<&str> = frames
        .iter()
        .map(|f| f["params"]["event"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["session.start", "tool.before", "tool.after", "session.end"]
    );
    assert!(frames.iter().all(|f| f.get("id").is_none()));
    assert_eq!(frames[1]["params"]["event"]["tool"]["callId"], "call-1");
    assert_eq!(frames[2]["params"]["event"]["tool"]["callId"], "call-1");
    assert_eq!(
        frames[2]["params"]["event"]["tool"]["input"],
        json!({"command": "echo hi"})
    );
    let mut ids: Vec<&str> = frames
        .iter()
        .map(|f| f["params"]["event"]["id"].as_str().unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "distinct events, distinct ids");
    let session = &frames[0]["params"]["event"]["session"]["id"];
    assert!(frames
        .iter()
        .all(|f| f["params"]["event"]["session"]["id"] == *session));
    for f in &frames {
        assert!(ctk_ahp_wire::validate::check_message(f).is_empty(), "{f}");
    }
    // The backend with both an intercept and an observe subscription uses one
    // process for both.
    wait_until("gate observe", Duration::from_secs(10), || {
        received(&gate).len() == 2
    });
    assert_eq!(pids(&gate).len(), 1);
    // A denied call produces neither tool.after nor tool.error.
    let deny = a.dir.path().join("deny.log");
    let obs2 = a.dir.path().join("obs2.log");
    a.load(registration(vec![
        entry(
            "com.example.obs",
            stdio(&obs2, "persistent", "ok", None),
            vec![observe(&["tool.before", "tool.after", "tool.error"])],
        ),
        entry(
            "com.example.deny",
            stdio(&deny, "persistent", "deny", None),
            vec![intercept("fail-open", 10_000)],
        ),
    ]));
    assert_eq!(a.tool("Bash")["outcome"], "denied");
    wait_until("tool.before", Duration::from_secs(10), || {
        received(&obs2).len() == 1
    });
    std::thread::sleep(Duration::from_millis(300));
    let frames = received(&obs2);
    assert_eq!(frames.len(), 1, "only tool.before: {frames:?}");
    a.shutdown();
}

#[test]
fn per_event_gets_one_frame_then_eof() {
    let mut a = Adapter::start();
    let log = a.dir.path().join("pe.log");
    a.load(registration(vec![entry(
        "com.example.pe",
        stdio(&log, "per_event", "ok", None),
        vec![intercept("fail-closed", 10_000)],
    )]));
    assert_eq!(a.tool("Bash")["outcome"], "executed");
    assert_eq!(a.tool("Bash")["outcome"], "executed");
    let lines = log_lines(&log);
    assert_eq!(pids(&log).len(), 2, "one process per event");
    for pid in pids(&log) {
        let mine: Vec<&Value> = lines.iter().filter(|l| l["pid"] == pid).collect();
        assert_eq!(
            mine.iter().filter(|l| l.get("recv").is_some()).count(),
            1,
            "exactly one frame"
        );
        assert!(mine.iter().any(|l| l.get("eof").is_some()), "then EOF");
        wait_until(
            "the per-event process to end",
            Duration::from_secs(5),
            || gone(pid),
        );
    }
    a.shutdown();
}

#[test]
fn args_verbatim_cwd_and_a_minimal_environment() {
    let mut a = Adapter::start_with(&[("CTK_CANARY_SECRET", "canary-3b8e0a")]);
    a.call("initialize", json!({"adapter": "ctk-ahp-adapter/1"}));
    let log = a.dir.path().join("args.log");
    let work = a.dir.path().join("work dir");
    std::fs::create_dir(&work).unwrap();
    let mut transport = stdio(&log, "persistent", "ok", None);
    transport["cwd"] = json!(work.display().to_string());
    // Extra arguments after PARAM are ignored by the script but logged.
    transport["args"].as_array_mut().unwrap().extend([
        json!("unused"),
        json!("$HOME; echo *"),
        json!("a b 'c'"),
    ]);
    let r = a.load_env(
        registration(vec![entry(
            "com.example.args",
            transport,
            vec![intercept("fail-closed", 10_000)],
        )]),
        json!({"CTK_TEST_TOKEN": "tok"}),
    );
    assert_eq!(r["loaded"], true);
    assert_eq!(a.tool("Bash")["outcome"], "executed");
    let start = log_lines(&log)
        .into_iter()
        .find(|l| l.get("start").is_some())
        .unwrap();
    let argv: Vec<&str> = start["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        &argv[argv.len() - 2..],
        ["$HOME; echo *", "a b 'c'"],
        "no shell interpolation"
    );
    assert_eq!(
        start["cwd"],
        work.canonicalize().unwrap().display().to_string()
    );
    let env = start["env"].as_object().unwrap();
    assert!(
        !env.contains_key("CTK_CANARY_SECRET"),
        "unrelated variables stay out: {env:?}"
    );
    assert_eq!(
        env["CTK_TEST_TOKEN"], "tok",
        "the kit's env reaches stdio backends"
    );
    let frames = std::fs::read_to_string(&log).unwrap();
    let recv: String = log_lines(&log)
        .iter()
        .filter_map(|l| l.get("recv").and_then(Value::as_str).map(str::to_owned))
        .collect();
    assert!(
        !recv.contains("canary-3b8e0a") && !recv.contains("tok\""),
        "{frames}"
    );
    a.shutdown();
}

#[test]
fn no_process_is_left_after_shutdown_or_a_killed_harness() {
    for kill in [false, true] {
        let mut a = Adapter::start();
        let p = a.dir.path().join("p.log");
        let o = a.dir.path().join("o.log");
        let s = a.dir.path().join("s.log");
        let (o2, o3, o4) = (
            a.dir.path().join("o2.log"),
            a.dir.path().join("o3.log"),
            a.dir.path().join("o4.log"),
        );
        a.load(registration(vec![
            entry(
                "com.example.p",
                stdio(&p, "persistent", "ok", None),
                vec![intercept("fail-closed", 10_000)],
            ),
            entry(
                "com.example.o",
                stdio(&o, "persistent", "sleep-notes", Some("60")),
                vec![observe(&["tool.before"])],
            ),
            entry(
                "com.example.s",
                stdio(&s, "per_event", "sleep-notes", Some("60")),
                vec![observe(&["tool.before"])],
            ),
            entry(
                "com.example.o2",
                stdio(&o2, "persistent", "sleep-notes", Some("60")),
                vec![observe(&["tool.before"])],
            ),
            entry(
                "com.example.o3",
                stdio(&o3, "persistent", "sleep-notes", Some("60")),
                vec![observe(&["tool.before"])],
            ),
            entry(
                "com.example.o4",
                stdio(&o4, "persistent", "sleep-notes", Some("60")),
                vec![observe(&["tool.before"])],
            ),
        ]));
        assert_eq!(a.tool("Bash")["outcome"], "executed");
        wait_until("observers started", Duration::from_secs(10), || {
            !pids(&o).is_empty() && !pids(&s).is_empty()
        });
        wait_until("all observers started", Duration::from_secs(10), || {
            [&o2, &o3, &o4].iter().all(|l| !pids(l).is_empty())
        });
        let all: Vec<u64> = [&p, &o, &s, &o2, &o3, &o4]
            .iter()
            .flat_map(|l| pids(l))
            .collect();
        assert_eq!(all.len(), 6);
        assert!(
            all.iter().all(|pid| !gone(*pid)),
            "backends alive before the end"
        );
        if kill {
            a.kill();
        } else {
            // Backends that ignore EOF end in parallel: the kit's close
            // limit (5 s) is never reached.
            let start = Instant::now();
            a.shutdown();
            assert!(
                start.elapsed() < Duration::from_secs(4),
                "shutdown took {:?}",
                start.elapsed()
            );
        }
        for pid in all {
            wait_until(
                &format!("backend {pid} to end (killed harness: {kill})"),
                Duration::from_secs(10),
                || gone(pid),
            );
        }
    }
}
