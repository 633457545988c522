//! Parallel tool calls (`harness/tool_calls`, adapter feature
//! `parallel-tool-calls`): the calls of one model turn run at once; a
//! persistent backend has one intercept outstanding across them by default
//! (D-17), and several, matched by id, under the freedom
//! `persistent-outstanding-limit`. The backend (`support/parallel_backend.py`)
//! logs each frame the moment it arrives, so every check is on the order of
//! arrivals and replies, not on how long anything took.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

/// A transport running `parallel_backend.py LOG MODE SECONDS`.
fn parallel(log: &Path, lifecycle: &str, mode: &str, seconds: f64) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/parallel_backend.py");
    json!({"type": "stdio", "command": "/usr/bin/env", "lifecycle": lifecycle,
           "args": ["python3", script.display().to_string(), log.display().to_string(),
                    mode, seconds.to_string()]})
}

/// One `harness/tool_calls` entry.
fn call(name: &str, call_id: &str, permission: &str) -> Value {
    json!({"tool": {"name": name, "kind": "shell", "input": {"command": "echo hi"}},
           "callId": call_id, "hostPermission": permission})
}

/// `harness/tool_calls` of `calls`; the results.
fn tool_calls(a: &mut Adapter, calls: Vec<Value>) -> Vec<Value> {
    let r = a.call("harness/tool_calls", json!({ "calls": calls }));
    r["results"].as_array().expect("results").clone()
}

/// The backend log as a sequence of "recv" / "sent" steps for intercept
/// requests (notifications left out), with the request id each concerns.
fn steps(log: &Path) -> Vec<(&'static str, Value)> {
    log_lines(log)
        .iter()
        .filter_map(|l| {
            if let Some(frame) = l.get("recv").and_then(Value::as_str) {
                let msg: Value = serde_json::from_str(frame).expect("frame is JSON");
                msg.get("id").map(|id| ("recv", id.clone()))
            } else {
                l.get("to").map(|id| ("sent", id.clone()))
            }
        })
        .collect()
}

/// The most requests the backend ever had read and not yet answered.
fn most_outstanding(steps: &[(&str, Value)]) -> usize {
    let (mut now, mut most) = (0usize, 0usize);
    for (what, _) in steps {
        if *what == "recv" {
            now += 1;
            most = most.max(now);
        } else {
            now = now.saturating_sub(1);
        }
    }
    most
}

/// The adapter of `line`, started with `args`, initialized.
fn started(args: &[&str]) -> Adapter {
    let mut a = Adapter::start_args(args, &[]);
    let r = a.call("initialize", json!({"adapter": "ctk-ahp-adapter/1"}));
    assert_eq!(r["features"], json!(["parallel-tool-calls"]), "{r}");
    a
}

/// A registration of one intercepting backend on `line` ("0.1" or
/// "draft", whose subscriptions also need `content`).
fn one_backend(line: &str, transport: Value, timeout_ms: u64) -> Value {
    let mut sub = intercept("fail-closed", timeout_ms);
    if line == "draft" {
        sub["content"] = json!({"default": "body"});
    }
    json!({"protocolVersion": line, "hooks": [entry("com.example.par", transport, vec![sub])]})
}

#[test]
fn both_lines_offer_the_feature() {
    for args in [&[][..], &["--spec", "draft"][..]] {
        started(args).shutdown();
    }
}

#[test]
fn parallel_calls_run_at_once_and_answer_in_calls_order() {
    let mut a = started(&[]);
    let log = a.dir.path().join("per-event.log");
    // Each per-event backend answers 3 s after reading: done one after the
    // other, every reply would come before the next request.
    a.load(one_backend(
        "0.1",
        parallel(&log, "per_event", "delay", 3.0),
        20_000,
    ));
    let results = tool_calls(
        &mut a,
        vec![
            call("Read", "c-1", "allow"),
            call("deny-Write", "c-2", "allow"),
            call("Bash", "c-3", "prompt"),
        ],
    );
    assert_eq!(
        results,
        vec![
            json!({"outcome": "executed"}),
            json!({"outcome": "denied", "synthetic": false, "reason": "deny deny-Write c-2", "code": null}),
            json!({"outcome": "prompted"}),
        ],
        "stderr:\n{}",
        a.stderr()
    );
    let steps = steps(&log);
    assert_eq!(steps.len(), 6, "{steps:?}");
    assert!(
        steps[..3].iter().all(|(what, _)| *what == "recv"),
        "every call's request was read before any was answered: {steps:?}"
    );
    a.shutdown();
}

#[test]
fn one_persistent_backend_never_has_two_intercepts_outstanding_by_default() {
    let mut a = started(&[]);
    let log = a.dir.path().join("persistent.log");
    a.load(one_backend(
        "0.1",
        parallel(&log, "persistent", "delay", 1.0),
        20_000,
    ));
    let results = tool_calls(
        &mut a,
        vec![
            call("Read", "c-1", "allow"),
            call("deny-Edit", "c-2", "allow"),
            call("Bash", "c-3", "allow"),
        ],
    );
    assert_eq!(results[0], json!({"outcome": "executed"}));
    assert_eq!(results[1]["reason"], "deny deny-Edit c-2", "{results:?}");
    assert_eq!(results[2], json!({"outcome": "executed"}));
    let steps = steps(&log);
    assert_eq!(steps.len(), 6, "{steps:?}");
    assert_eq!(
        most_outstanding(&steps),
        1,
        "each request was written only after the previous one was answered: {steps:?}"
    );
    assert_eq!(pids(&log).len(), 1, "one persistent process");
    a.shutdown();
}

#[test]
fn waiting_for_the_turn_keeps_each_decision_within_its_deadline() {
    let mut a = started(&[]);
    let log = a.dir.path().join("slow.log");
    // The backend answers after 4 s; each call's deadline is 1 s.
    a.load(one_backend(
        "0.1",
        parallel(&log, "persistent", "delay", 4.0),
        1000,
    ));
    let start = Instant::now();
    let results = tool_calls(
        &mut a,
        vec![call("Read", "c-1", "allow"), call("Bash", "c-2", "allow")],
    );
    let took = start.elapsed();
    for r in &results {
        assert_eq!(r["synthetic"], true, "fail-closed after the deadline: {r}");
    }
    assert!(
        took < Duration::from_millis(10 * 1000 + 5000),
        "decided in {took:?}"
    );
    a.shutdown();
}

/// Under the freedom, both requests reach the backend before it answers
/// either; it answers them in reverse order, and each call gets its own
/// reply's outcome.
fn several_outstanding_on(line: &str) {
    let mut args = vec!["--freedoms", "persistent-outstanding-limit"];
    if line == "draft" {
        args.extend(["--spec", "draft"]);
    }
    let mut a = started(&args);
    let log = a.dir.path().join("pair.log");
    // The backend waits up to 20 s for a second request before answering.
    a.load(one_backend(
        line,
        parallel(&log, "persistent", "pair", 20.0),
        30_000,
    ));
    for calls in [
        vec![
            call("deny-Write", "c-1", "allow"),
            call("Read", "c-2", "allow"),
        ],
        vec![
            call("Read", "c-3", "allow"),
            call("deny-Bash", "c-4", "allow"),
        ],
    ] {
        let results = tool_calls(&mut a, calls.clone());
        for (c, r) in calls.iter().zip(&results) {
            let name = c["tool"]["name"].as_str().unwrap();
            if name.starts_with("deny") {
                assert_eq!(
                    r,
                    &json!({"outcome": "denied", "synthetic": false,
                            "reason": format!("deny {name} {}", c["callId"].as_str().unwrap()),
                            "code": null}),
                    "{line}; stderr:\n{}",
                    a.stderr()
                );
            } else {
                assert_eq!(r, &json!({"outcome": "executed"}), "{line}");
            }
        }
    }
    let steps = steps(&log);
    assert_eq!(steps.len(), 8, "{line}: {steps:?}");
    for pair in steps.chunks(4) {
        let [(r1, a), (r2, b), (s1, x), (s2, y)] = pair else {
            unreachable!()
        };
        assert_eq!(
            [*r1, *r2, *s1, *s2],
            ["recv", "recv", "sent", "sent"],
            "{line}: {steps:?}"
        );
        assert_ne!(a, b);
        assert_eq!((x, y), (b, a), "{line}: answered in reverse: {steps:?}");
    }
    assert_eq!(pids(&log).len(), 1, "one persistent process");
    a.shutdown();
}

#[test]
fn under_the_freedom_replies_are_matched_by_id_on_both_lines() {
    several_outstanding_on("0.1");
    several_outstanding_on("draft");
}

#[test]
fn under_the_freedom_late_replies_are_dropped_and_malformed_output_still_counts() {
    let mut a = started(&["--freedoms", "persistent-outstanding-limit"]);
    // A late deny to an expired request never answers the next one.
    let late = a.dir.path().join("late.log");
    a.load(registration(vec![entry(
        "com.example.late",
        stdio(&late, "persistent", "first-late-deny", Some("4.0")),
        vec![intercept("fail-closed", 2000)],
    )]));
    assert_eq!(a.tool("Bash")["synthetic"], true);
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(
        a.tool("Bash"),
        json!({"outcome": "executed"}),
        "stderr:\n{}",
        a.stderr()
    );
    assert!(
        a.stderr_shows("late reply", Duration::from_secs(10)),
        "stderr:\n{}",
        a.stderr()
    );
    // D-28: ended after three malformed replies in a row, started again.
    let malformed = a.dir.path().join("malformed.log");
    a.load(registration(vec![entry(
        "com.example.malformed",
        stdio(&malformed, "persistent", "not-json", None),
        vec![intercept("fail-open", 10_000)],
    )]));
    for _ in 0..4 {
        assert_eq!(a.tool("Bash")["outcome"], "executed");
    }
    assert_eq!(pids(&malformed).len(), 2, "{}", a.stderr());
    a.shutdown();
}

#[test]
fn bad_tool_calls_params_are_refused_by_index() {
    let mut a = started(&[]);
    let good = call("Read", "c-1", "allow");
    let mut bad_kind = call("Read", "c-2", "allow");
    bad_kind["tool"]["kind"] = json!("teleport");
    for (params, says) in [
        (json!({}), "calls must be an array"),
        (json!({"calls": {"0": good}}), "calls must be an array"),
        (json!({"calls": []}), "at least one"),
        (json!({"calls": [good, 7]}), "calls[1]"),
        (json!({"calls": [good, bad_kind]}), "calls[1]: tool.kind"),
    ] {
        let r = a.call_reply("harness/tool_calls", params.clone());
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
        let msg = r["error"]["message"].as_str().unwrap();
        assert!(msg.contains(says), "{params}: {msg}");
    }
    // Good params before any load: nothing loaded.
    let r = a.call_reply("harness/tool_calls", json!({"calls": [good]}));
    assert_eq!(r["error"]["code"], -32000, "{r}");
    a.shutdown();
}
