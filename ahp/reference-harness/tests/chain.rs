//! The interceptor chain over stdio: every failure class under both
//! policies, serial order, short-circuit, deadlines and late replies, the
//! prompt semantics, and the request the harness sends.

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

/// Load [failing backend under `policy`, well-behaved `next`], make one call;
/// the outcome and the frames `next` received.
fn run_case(
    a: &mut Adapter,
    lifecycle: &str,
    mode: &str,
    param: Option<&str>,
    policy: &str,
    timeout_ms: u64,
) -> (Value, Vec<Value>) {
    let tag = format!("{lifecycle}-{mode}-{}-{policy}", param.unwrap_or(""));
    let first = a.dir.path().join(format!("{tag}.first.log"));
    let next = a.dir.path().join(format!("{tag}.next.log"));
    a.load(registration(vec![
        entry(
            "com.example.first",
            stdio(&first, lifecycle, mode, param),
            vec![intercept(policy, timeout_ms)],
        ),
        entry(
            "com.example.next",
            stdio(&next, "persistent", "ok", None),
            vec![intercept("fail-closed", 10_000)],
        ),
    ]));
    let outcome = a.tool("Bash");
    let got = received(&next);
    (outcome, got)
}

fn assert_failure_class(
    a: &mut Adapter,
    lifecycle: &str,
    mode: &str,
    param: Option<&str>,
    timeout_ms: u64,
) {
    let (open, next) = run_case(a, lifecycle, mode, param, "fail-open", timeout_ms);
    assert_eq!(
        open,
        json!({"outcome": "executed"}),
        "{lifecycle} {mode} fail-open; stderr:\n{}",
        a.stderr()
    );
    assert_eq!(
        next.len(),
        1,
        "{lifecycle} {mode} fail-open: the next backend is called"
    );
    let (closed, next) = run_case(a, lifecycle, mode, param, "fail-closed", timeout_ms);
    assert_eq!(
        closed,
        json!({"outcome": "denied", "synthetic": true, "reason": SYNTHETIC, "code": null}),
        "{lifecycle} {mode} fail-closed; stderr:\n{}",
        a.stderr()
    );
    assert!(
        next.is_empty(),
        "{lifecycle} {mode} fail-closed: the chain stops"
    );
}

/// Modes whose reply is an operational failure on either lifecycle.
const REPLY_FAILURES: &[(&str, Option<&str>)] = &[
    ("not-json", None),
    ("not-utf8", None),
    ("batch", None),
    ("no-jsonrpc", None),
    ("both", None),
    ("wrong-id", None),
    ("null-id", None),
    ("rpc-error", Some("-32001")),
    ("rpc-error", Some("-32002")),
    ("rpc-error", Some("-32003")),
    ("rpc-error", Some("-32004")),
    ("rpc-error", Some("-32601")),
    ("wrong-version", None),
    ("no-version", None),
    ("no-effects", None),
    ("allow", None),
    ("ext-effect", None),
    ("two-deny", None),
    ("deny-empty", None),
    ("bad-code", None),
    ("banner", None),
    ("pretty", None),
    ("close", None),
    ("exit", Some("3")),
    ("silent", None),
];

#[test]
fn every_failure_class_under_both_policies_persistent() {
    let mut a = Adapter::start();
    for (mode, param) in REPLY_FAILURES {
        // "silent" never answers: the deadline is the failure.
        let t = if *mode == "silent" { 300 } else { 10_000 };
        assert_failure_class(&mut a, "persistent", mode, *param, t);
    }
    // Deadline exceeded: the reply comes after 2 x timeoutMs (D-01).
    assert_failure_class(&mut a, "persistent", "delay", Some("1.0"), 300);
    a.shutdown();
}

#[test]
fn every_failure_class_under_both_policies_per_event() {
    let mut a = Adapter::start();
    for (mode, param) in REPLY_FAILURES {
        let t = if *mode == "silent" { 300 } else { 10_000 };
        assert_failure_class(&mut a, "per_event", mode, *param, t);
    }
    assert_failure_class(&mut a, "per_event", "delay", Some("1.0"), 300);
    // A no-effect reply followed by a nonzero exit (spec 17.3; D-02).
    assert_failure_class(&mut a, "per_event", "ok-exit", Some("4"), 10_000);
    a.shutdown();
}

#[test]
fn launch_failure_under_both_policies() {
    let mut a = Adapter::start();
    for lifecycle in ["persistent", "per_event"] {
        for policy in ["fail-open", "fail-closed"] {
            let next = a
                .dir
                .path()
                .join(format!("launch-{lifecycle}-{policy}.log"));
            a.load(registration(vec![
                entry(
                    "com.example.missing",
                    json!({"type": "stdio", "command": "/nonexistent/ctk-backend", "lifecycle": lifecycle}),
                    vec![intercept(policy, 5000)],
                ),
                entry("com.example.next", stdio(&next, "persistent", "ok", None), vec![intercept("fail-open", 10_000)]),
            ]));
            let r = a.tool("Bash");
            if policy == "fail-open" {
                assert_eq!(r["outcome"], "executed");
                assert_eq!(received(&next).len(), 1);
            } else {
                assert_eq!(r["synthetic"], true, "{r}");
                assert!(received(&next).is_empty());
            }
        }
    }
    a.shutdown();
}

#[test]
fn valid_replies_and_explicit_denials() {
    let mut a = Adapter::start();
    for lifecycle in ["persistent", "per_event"] {
        for policy in ["fail-open", "fail-closed"] {
            // A deny denies under either policy, and is not synthetic.
            let (r, next) = run_case(
                &mut a,
                lifecycle,
                "deny",
                Some("no shells today"),
                policy,
                10_000,
            );
            assert_eq!(
                r,
                json!({"outcome": "denied", "synthetic": false, "reason": "no shells today", "code": "com.example.test.deny"})
            );
            assert!(next.is_empty(), "a deny short-circuits");
            // Whitespace-only reason: a valid deny (D-05).
            let (r, _) = run_case(&mut a, lifecycle, "deny-ws", None, policy, 10_000);
            assert_eq!(r["synthetic"], false, "{r}");
            assert_eq!(r["reason"], "   ");
            // Unknown members are ignored (spec 7.3, D-32).
            let (r, next) = run_case(&mut a, lifecycle, "extra-fields", None, policy, 10_000);
            assert_eq!(r["outcome"], "executed");
            assert_eq!(next.len(), 1);
            let (r, _) = run_case(&mut a, lifecycle, "deny-extra", None, policy, 10_000);
            assert_eq!(r["reason"], "extra");
            assert_eq!(r["synthetic"], false);
        }
        // D-02: a valid deny followed by a nonzero exit still denies.
        if lifecycle == "per_event" {
            for policy in ["fail-open", "fail-closed"] {
                let (r, _) = run_case(&mut a, lifecycle, "deny-exit", Some("3"), policy, 10_000);
                assert_eq!(r["outcome"], "denied", "{policy}: {r}");
                assert_eq!(r["synthetic"], false, "{policy}: {r}");
            }
        }
    }
    a.shutdown();
}

#[test]
fn serial_order_without_overlap_and_short_circuit() {
    let mut a = Adapter::start();
    let d = a.dir.path().to_path_buf();
    let logs: Vec<_> = ["a", "b", "c", "d"]
        .iter()
        .map(|n| d.join(format!("{n}.log")))
        .collect();
    a.load(registration(vec![
        entry(
            "com.example.a",
            stdio(&logs[0], "persistent", "delay", Some("0.3")),
            vec![intercept("fail-closed", 10_000)],
        ),
        entry(
            "com.example.b",
            stdio(&logs[1], "per_event", "delay", Some("0.2")),
            vec![intercept("fail-closed", 10_000)],
        ),
        entry(
            "com.example.c",
            stdio(&logs[2], "persistent", "deny", Some("c says no")),
            vec![intercept("fail-open", 10_000)],
        ),
        entry(
            "com.example.d",
            stdio(&logs[3], "persistent", "ok", None),
            vec![intercept("fail-closed", 10_000)],
        ),
    ]));
    let r = a.tool("Bash");
    assert_eq!(r["reason"], "c says no");
    assert_eq!(r["synthetic"], false);
    // Each request arrives only after the previous backend replied.
    let time_of = |log: &std::path::Path, key: &str| -> f64 {
        log_lines(log)
            .iter()
            .find(|l| l.get(key).is_some())
            .unwrap_or_else(|| panic!("{key} in {}", log.display()))["t"]
            .as_f64()
            .unwrap()
    };
    assert!(
        time_of(&logs[0], "sent") <= time_of(&logs[1], "recv"),
        "b only after a replied"
    );
    assert!(
        time_of(&logs[1], "sent") <= time_of(&logs[2], "recv"),
        "c only after b replied"
    );
    assert!(received(&logs[3]).is_empty(), "nothing after the deny");
    // The same event went to every interceptor.
    let ids: Vec<Value> = logs[..3]
        .iter()
        .map(|l| received(l)[0]["id"].clone())
        .collect();
    assert!(ids.iter().all(|i| *i == ids[0]), "{ids:?}");
    a.shutdown();
}

#[test]
fn request_shape_ids_and_native() {
    let mut a = Adapter::start();
    let plain = a.dir.path().join("plain.log");
    let native = a.dir.path().join("native.log");
    let mut with_native = intercept("fail-open", 10_000);
    with_native["includeNative"] = json!(true);
    a.load(registration(vec![
        entry(
            "com.example.plain",
            stdio(&plain, "persistent", "ok", None),
            vec![intercept("fail-closed", 10_000)],
        ),
        entry(
            "com.example.native",
            stdio(&native, "per_event", "ok", None),
            vec![with_native],
        ),
    ]));
    assert_eq!(
        a.tool_with("Bash", "allow", Some("call-7"))["outcome"],
        "executed"
    );
    assert_eq!(a.tool("Bash")["outcome"], "executed");
    let frames = received(&plain);
    assert_eq!(frames.len(), 2);
    for f in &frames {
        assert_eq!(f["jsonrpc"], "2.0");
        assert_eq!(f["method"], "hooks/intercept");
        assert!(f["id"].is_string());
        assert_eq!(
            f["id"], f["params"]["event"]["id"],
            "request id equals event id"
        );
        assert_eq!(f["params"]["protocolVersion"], "0.1");
        let effects = f["params"]["capabilities"]["effects"].as_array().unwrap();
        assert!(effects.contains(&json!("deny")));
        let ev = &f["params"]["event"];
        assert_eq!(ev["type"], "tool.before");
        assert!(ev["source"].as_str().unwrap().contains(':'));
        assert!(ev["time"].as_str().unwrap().ends_with('Z'));
        assert!(!ev["session"]["id"].as_str().unwrap().is_empty());
        assert_eq!(ev["tool"]["name"], "Bash");
        assert_eq!(ev["tool"]["kind"], "shell");
        assert_eq!(
            ev["tool"]["input"],
            json!({"command": "echo hi"}),
            "input is an object"
        );
        assert!(ev.get("native").is_none(), "native only when asked");
        assert!(ev["tool"].get("output").is_none() && ev["tool"].get("error").is_none());
        let findings = ctk_ahp_wire::validate::check_message(f);
        assert!(
            findings.is_empty(),
            "the kit's validator accepts the request: {findings:?}"
        );
    }
    assert_eq!(frames[0]["params"]["event"]["tool"]["callId"], "call-7");
    assert_ne!(frames[0]["id"], frames[1]["id"], "fresh event ids");
    assert_ne!(frames[1]["params"]["event"]["tool"]["callId"], "call-7");
    let n = received(&native);
    assert_eq!(n.len(), 2);
    assert_eq!(
        n[0]["id"], frames[0]["id"],
        "one event, one id, for every backend"
    );
    assert_eq!(
        n[0]["params"]["event"]["native"]["eventName"],
        "tool.before"
    );
    assert!(n[0]["params"]["event"]["native"]["payload"].is_object());
    assert!(ctk_ahp_wire::validate::check_message(&n[0]).is_empty());
    a.shutdown();
}

#[test]
fn deadline_is_enforced_and_a_late_reply_is_ignored() {
    // timeoutMs 2000; the first reply (a deny) comes 4 s after the request
    // (2 x timeoutMs, D-01), while the second request is outstanding; the
    // second is answered at once. Fail-closed makes each possible harness
    // error visible: a timeout on the second call is a synthetic denial, the
    // stale deny applied to it an explicit one.
    let mut a = Adapter::start();
    let log = a.dir.path().join("late.log");
    a.load(registration(vec![entry(
        "com.example.late",
        stdio(&log, "persistent", "first-late-deny", Some("4.0")),
        vec![intercept("fail-closed", 2000)],
    )]));
    let start = Instant::now();
    let first = a.tool("Bash");
    let took = start.elapsed();
    assert_eq!(
        first["synthetic"], true,
        "the deadline passed: fail-closed ({first})"
    );
    assert!(
        took < Duration::from_millis(10 * 2000 + 5000),
        "gave up in {took:?}"
    );
    assert!(
        took < Duration::from_millis(3900),
        "the outcome came before the late reply ({took:?})"
    );
    std::thread::sleep(Duration::from_millis(1000));
    let second = a.tool("Bash");
    assert_eq!(
        second,
        json!({"outcome": "executed"}),
        "stderr:\n{}",
        a.stderr()
    );
    let frames = received(&log);
    assert_eq!(frames.len(), 2, "one process, both requests");
    assert_eq!(pids(&log).len(), 1, "persistent: one process");
    assert!(
        a.stderr_shows("late reply", Duration::from_secs(10)),
        "the late reply was seen and dropped; stderr:\n{}",
        a.stderr()
    );
    a.shutdown();
}

#[test]
fn huge_timeout_is_enforced_as_written() {
    let mut a = Adapter::start();
    let log = a.dir.path().join("huge.log");
    a.load(registration(vec![entry(
        "com.example.huge",
        stdio(&log, "persistent", "deny", None),
        vec![json!({"events": ["tool.before"], "mode": "intercept", "timeoutMs": 1_000_000_000_000_000_000u64, "failurePolicy": "fail-open"})],
    )]));
    let r = a.tool("Bash");
    assert_eq!(
        r["synthetic"], false,
        "the backend's deny, not a wrapped timer: {r}"
    );
    a.shutdown();
}

#[test]
fn empty_effects_grant_nothing_the_host_still_prompts() {
    let mut a = Adapter::start();
    let ok = a.dir.path().join("ok.log");
    a.load(registration(vec![entry(
        "com.example.ok",
        stdio(&ok, "persistent", "ok", None),
        vec![intercept("fail-closed", 10_000)],
    )]));
    assert_eq!(
        a.tool_with("Bash", "prompt", None),
        json!({"outcome": "prompted"})
    );
    assert_eq!(
        a.tool_with("Bash", "allow", None),
        json!({"outcome": "executed"})
    );
    assert_eq!(
        received(&ok).len(),
        2,
        "the interceptor ran before the prompt"
    );
    // A deny still wins over a prompt.
    let deny = a.dir.path().join("deny.log");
    a.load(registration(vec![entry(
        "com.example.deny",
        stdio(&deny, "persistent", "deny", None),
        vec![intercept("fail-open", 10_000)],
    )]));
    assert_eq!(a.tool_with("Bash", "prompt", None)["outcome"], "denied");
    // Without any interceptor there is no decision step at all.
    let obs = a.dir.path().join("obs.log");
    a.load(registration(vec![entry(
        "com.example.obs",
        stdio(&obs, "persistent", "reply-to-notes", None),
        vec![observe(&["tool.after"])],
    )]));
    assert_eq!(
        a.tool_with("Bash", "prompt", None),
        json!({"outcome": "prompted"})
    );
    a.shutdown();
}

#[test]
fn a_persistent_backend_that_keeps_sending_malformed_output_is_replaced() {
    let mut a = Adapter::start();
    let log = a.dir.path().join("malformed.log");
    a.load(registration(vec![entry(
        "com.example.malformed",
        stdio(&log, "persistent", "not-json", None),
        vec![intercept("fail-open", 10_000)],
    )]));
    for _ in 0..4 {
        assert_eq!(a.tool("Bash")["outcome"], "executed");
    }
    let pids = pids(&log);
    assert_eq!(
        pids.len(),
        2,
        "ended after 3 malformed replies, started again for the 4th"
    );
    wait_until("the first process to end", Duration::from_secs(5), || {
        gone(pids[0])
    });
    // A backend answering with JSON-RPC errors is not malformed: kept.
    let errs = a.dir.path().join("errors.log");
    a.load(registration(vec![entry(
        "com.example.errors",
        stdio(&errs, "persistent", "rpc-error", Some("-32003")),
        vec![intercept("fail-open", 10_000)],
    )]));
    for _ in 0..4 {
        assert_eq!(a.tool("Bash")["outcome"], "executed");
    }
    assert_eq!(support::pids(&errs).len(), 1);
    a.shutdown();
}
