//! `ctk-ahp-harness --freedoms` (issue 26): ids are checked, and the
//! freedoms taken change what the harness sends and does, as the binary
//! runs. A per-event backend (`support/raw_backend.py`) keeps the exact
//! bytes it read.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use support::*;

/// Run the binary with `args` and no stdin; its exit code and stderr.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ctk-ahp-harness"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run ctk-ahp-harness");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn unknown_freedoms_are_usage_errors_naming_them() {
    let (code, err) = run(&["--freedoms", "json-member-order,no-such-freedom"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unknown freedom \"no-such-freedom\""), "{err}");
    // Every harness-role id of the catalog is taken now, the parallel
    // calls' one included, on both lines.
    for line in ["0.1", "draft"] {
        let (code, err) = run(&["--spec", line, "--freedoms", "persistent-outstanding-limit"]);
        assert_eq!(code, Some(0), "{line}: {err}");
    }
    let (code, err) = run(&["--freedoms"]);
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn each_line_refuses_the_ids_it_does_not_take() {
    // The draft line takes its own ids and 0.1's that still apply.
    for ids in ["all", "none", "tool-kind-optional,json-member-order"] {
        let (code, err) = run(&["--spec", "draft", "--freedoms", ids]);
        assert_eq!(code, Some(0), "{ids}: {err}");
    }
    // A 0.1 id the draft supersedes, on the draft line.
    for id in [
        "tool-kind-classification",
        "observer-dispatch-order",
        "tool-mcp",
    ] {
        let (code, err) = run(&["--freedoms", id, "--spec", "draft"]);
        assert_eq!(code, Some(2), "{id}: {err}");
        assert!(
            err.contains(&format!("\"{id}\"")) && err.contains("supersedes"),
            "{err}"
        );
    }
    // A draft id on 0.1.
    let (code, err) = run(&["--freedoms", "closed-object-members"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("\"closed-object-members\"") && err.contains("--spec draft"),
        "{err}"
    );
    let (code, err) = run(&["--spec", "draft", "--freedoms", "no-such-freedom"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unknown freedom \"no-such-freedom\""), "{err}");
}

/// A per-event transport running `raw_backend.py OUT MODE [REASON]`.
fn raw(out: &Path, mode: &str, reason: Option<&str>) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/raw_backend.py");
    let mut args = vec![
        "python3".to_owned(),
        script.display().to_string(),
        out.display().to_string(),
        mode.to_owned(),
    ];
    args.extend(reason.map(str::to_owned));
    json!({"type": "stdio", "command": "/usr/bin/env", "args": args, "lifecycle": "per_event"})
}

/// A harness started with `--freedoms freedoms` and initialized.
fn harness(freedoms: &str) -> Adapter {
    let mut a = Adapter::start_args(&["--freedoms", freedoms], &[]);
    let r = a.call("initialize", json!({"adapter": "ctk-ahp-adapter/1"}));
    assert_eq!(r["adapter"], "ctk-ahp-adapter/1");
    a
}

/// The bytes one `tool.before` request reached a per-event backend as,
/// with the harness taking `freedoms`.
fn request_bytes(freedoms: &str) -> String {
    let mut a = harness(freedoms);
    let out = a.dir.path().join("raw.bin");
    a.load(registration(vec![entry(
        "com.example.raw",
        raw(&out, "ok", None),
        vec![intercept("fail-closed", 10_000)],
    )]));
    let r = a.call(
        "harness/tool_call",
        json!({"tool": {"name": "fetch/é", "kind": "mcp", "input": {"n": 3}},
               "callId": null, "hostPermission": "allow"}),
    );
    assert_eq!(r["outcome"], "executed", "{r}\n{}", a.stderr());
    // Read before shutdown: the backend's directory goes with the adapter.
    let bytes = std::fs::read(&out).expect("the backend kept its stdin");
    a.shutdown();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn representation_freedoms_change_the_bytes_a_backend_reads() {
    let plain = request_bytes("none");
    assert!(plain.starts_with("{\"jsonrpc\":\"2.0\",\"id\":"), "{plain}");
    assert!(plain.ends_with("}\n") && !plain.contains('\r'), "{plain:?}");
    assert!(
        plain.contains("\"n\":3}") && plain.contains("fetch/é"),
        "{plain}"
    );

    let other = request_bytes(
        "json-member-order,json-insignificant-whitespace,json-number-spelling,json-string-escapes,\
         stdio-carriage-return,stdio-blank-lines,stdio-write-chunking",
    );
    assert!(other.starts_with("{ \"params\": { "), "{other}");
    assert!(other.ends_with(" }\r\n\n"), "{other:?}");
    assert!(other.contains("\"n\": 3.0"), "{other}");
    assert!(other.contains("fetch\\/\\u00e9"), "{other}");
    // Only the spelling differs: the same request once parsed.
    let a: Value = serde_json::from_str(plain.trim_end()).unwrap();
    let b: Value = serde_json::from_str(other.trim_end()).unwrap();
    assert_eq!(
        a["params"]["event"]["tool"]["name"],
        b["params"]["event"]["tool"]["name"]
    );
    assert_eq!(b["params"]["event"]["tool"]["input"]["n"], 3.0);
}

#[test]
fn member_and_format_freedoms_change_the_request() {
    let sent = request_bytes(
        "request-unknown-members,session-optional-members,event-extensions,tool-mcp,\
         capabilities-extension-effects,event-id-format,session-and-call-id-format,source-uri,\
         event-time-spelling",
    );
    let r: Value = serde_json::from_str(sent.trim_end()).unwrap();
    let event = &r["params"]["event"];
    assert_eq!(r["x-ctk-freedom"], true, "{r}");
    assert_eq!(event["tool"]["x-ctk-freedom"], true, "{r}");
    assert_eq!(event["session"]["model"], "ctk-freedom-model", "{r}");
    assert_eq!(event["session"]["agent"]["id"], "main", "{r}");
    assert_eq!(event["tool"]["mcp"]["server"], "ctk", "{r}");
    assert_eq!(event["tool"]["mcp"]["tool"], "fetch/é", "{r}");
    assert_eq!(
        r["params"]["capabilities"]["effects"],
        json!(["dev.agent-hooks-ctk.freedom.noop", "deny"])
    );
    assert!(event["extensions"]["org.w3c.trace_context"]["traceparent"].is_string());
    let uuid = |v: &Value| {
        v.as_str()
            .is_some_and(|s| s.len() == 36 && &s[14..15] == "4")
    };
    assert!(uuid(&event["id"]) && r["id"] == event["id"], "{r}");
    assert!(
        uuid(&event["session"]["id"]) && uuid(&event["tool"]["callId"]),
        "{r}"
    );
    assert!(
        event["source"]
            .as_str()
            .is_some_and(|s| s.starts_with("urn:uuid:")),
        "{r}"
    );
    assert!(
        event["time"]
            .as_str()
            .is_some_and(|t| t.len() == 25 && t.ends_with("+00:00")),
        "{r}"
    );
}

#[test]
fn behaviour_freedoms_change_what_the_harness_does() {
    // harness-reason-wording: the backend's reason is not passed on.
    let mut a = harness("harness-reason-wording,tool-kind-classification");
    let out = a.dir.path().join("deny.bin");
    a.load(registration(vec![entry(
        "com.example.deny",
        raw(&out, "deny", Some("secret reason")),
        vec![intercept("fail-open", 10_000)],
    )]));
    let r = a.tool("Bash");
    assert_eq!(r["outcome"], "denied", "{r}");
    assert_eq!(r["synthetic"], false);
    assert_eq!(r["reason"], "Denied by policy");
    let sent: Value =
        serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim_end()).unwrap();
    assert_eq!(sent["params"]["event"]["tool"]["kind"], "other");
    a.shutdown();

    // whitespace-only-reason: a blank reason is a malformed effect, so a
    // fail-closed interceptor makes a synthetic denial.
    for (freedoms, synthetic) in [("none", false), ("whitespace-only-reason", true)] {
        let mut a = harness(freedoms);
        let out = a.dir.path().join("blank.bin");
        a.load(registration(vec![entry(
            "com.example.blank",
            raw(&out, "deny", Some("  ")),
            vec![intercept("fail-closed", 10_000)],
        )]));
        let r = a.tool("Bash");
        assert_eq!(r["outcome"], "denied", "{freedoms}: {r}");
        assert_eq!(r["synthetic"], synthetic, "{freedoms}: {r}");
        a.shutdown();
    }

    // per-event-exit-after-reply: reading (b) of D-02 makes a deny
    // followed by a nonzero exit a failure (fail-open: the tool runs);
    // a no-effect reply followed by one is a failure in every reading
    // (fail-closed: a synthetic denial, 17.3).
    for (freedoms, deny_outcome) in [
        ("none", "denied"),
        ("per-event-exit-after-reply", "executed"),
    ] {
        let mut a = harness(freedoms);
        let out = a.dir.path().join("exit.bin");
        a.load(registration(vec![entry(
            "com.example.exit",
            raw(&out, "deny-exit3", None),
            vec![intercept("fail-open", 10_000)],
        )]));
        let r = a.tool("Bash");
        assert_eq!(r["outcome"], deny_outcome, "{freedoms}: {r}");
        a.shutdown();
        let mut a = harness(freedoms);
        let out = a.dir.path().join("exit.bin");
        a.load(registration(vec![entry(
            "com.example.exit",
            raw(&out, "ok-exit3", None),
            vec![intercept("fail-closed", 10_000)],
        )]));
        let r = a.tool("Bash");
        assert_eq!(r["outcome"], "denied", "{freedoms}: {r}");
        assert_eq!(r["synthetic"], true, "{freedoms}: {r}");
        a.shutdown();
    }

    // timeout-range: a deadline outside 100..=30000 refuses the document.
    for (freedoms, loaded) in [("none", true), ("timeout-range", false)] {
        let mut a = harness(freedoms);
        let out = a.dir.path().join("never.bin");
        let r = a.call(
            "harness/load",
            json!({"registration": registration(vec![entry(
                "com.example.quick",
                raw(&out, "ok", None),
                vec![intercept("fail-open", 50)],
            )]), "env": {}, "cwd": null}),
        );
        assert_eq!(r["loaded"], loaded, "{freedoms}: {r}");
        if !loaded {
            assert_eq!(
                r["refused"][0]["pointer"],
                "/hooks/0/subscriptions/0/timeoutMs"
            );
        }
        a.shutdown();
    }
}

#[test]
fn http_freedoms_change_the_request_a_backend_reads() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // One connection: the raw request bytes, until the chunked body's end.
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 65536];
        while !got.ends_with(b"0\r\n\r\n") {
            match conn.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        let _ =
            conn.write_all(b"HTTP/1.1 500 Test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        String::from_utf8_lossy(&got).into_owned()
    });
    let mut a = harness(
        "http-message-framing,bearer-scheme-case,http-content-type-parameters,http-body-layout",
    );
    let r = a.load_env(
        registration(vec![json!({
            "id": "com.example.http",
            "transport": {"type": "http", "url": format!("http://127.0.0.1:{port}/hook")},
            "authentication": {"type": "bearer", "tokenEnv": "CTK_TEST_TOKEN"},
            "subscriptions": [intercept("fail-open", 10_000)],
        })]),
        json!({"CTK_TEST_TOKEN": "t0ken"}),
    );
    assert_eq!(r["loaded"], true, "{r}");
    assert_eq!(a.tool("Bash")["outcome"], "executed");
    let request = server.join().unwrap();
    a.shutdown();
    for line in [
        "Content-Type: application/json; charset=utf-8\r\n",
        "Authorization: bearer t0ken\r\n",
        "Connection: close\r\n",
        "X-Ctk-Freedom: http-message-framing\r\n",
        "Transfer-Encoding: chunked\r\n",
        "\r\n{\n  \"jsonrpc\": \"2.0\",\n",
    ] {
        assert!(request.contains(line), "{line:?} not in {request}");
    }
    assert!(!request.contains("Content-Length"), "{request}");
}

#[test]
fn command_lookup_resolves_a_bare_name_in_the_backend_directory() {
    let support = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support");
    for (freedoms, outcome) in [("none", "denied"), ("command-lookup", "executed")] {
        let mut a = harness(freedoms);
        let out = a.dir.path().join("raw.bin");
        // A bare name no PATH holds: found only in the backend's cwd.
        a.load(registration(vec![entry(
            "com.example.bare",
            json!({"type": "stdio", "command": "raw_backend.py",
                   "args": [out.display().to_string(), "ok"],
                   "lifecycle": "per_event", "cwd": support.display().to_string()}),
            vec![intercept("fail-closed", 10_000)],
        )]));
        let r = a.tool("Bash");
        assert_eq!(r["outcome"], outcome, "{freedoms}: {r}\n{}", a.stderr());
        a.shutdown();
    }
}

/// A draft harness started with `--freedoms freedoms` and initialized.
fn draft_harness(freedoms: &str) -> Adapter {
    let mut a = Adapter::start_args(&["--spec", "draft", "--freedoms", freedoms], &[]);
    let r = a.call("initialize", json!({"adapter": "ctk-ahp-adapter/1"}));
    assert_eq!(r["protocolVersions"], json!(["draft"]));
    a
}

/// A draft registration: every subscription with a content selection.
fn draft_registration(hooks: Vec<Value>) -> Value {
    let mut doc = json!({"protocolVersion": "draft", "hooks": hooks});
    for hook in doc["hooks"].as_array_mut().unwrap() {
        for sub in hook["subscriptions"].as_array_mut().unwrap() {
            sub["content"] = json!({"default": "body"});
        }
    }
    doc
}

/// The bytes one draft `tool.before` request reached a per-event backend
/// as, with the draft harness taking `freedoms`, and the outcome.
fn draft_request(freedoms: &str, mode: &str) -> (String, Value) {
    let mut a = draft_harness(freedoms);
    let out = a.dir.path().join("raw.bin");
    a.load(draft_registration(vec![entry(
        "com.example.raw",
        raw(&out, mode, None),
        vec![intercept("fail-closed", 10_000)],
    )]));
    let r = a.call(
        "harness/tool_call",
        json!({"tool": {"name": "fetch", "kind": "mcp", "input": {"n": 3}},
               "callId": "c-1", "hostPermission": "allow"}),
    );
    let bytes = std::fs::read(&out).expect("the backend kept its stdin");
    a.shutdown();
    (String::from_utf8(bytes).unwrap(), r)
}

#[test]
fn draft_freedoms_change_the_draft_request() {
    let (plain, r) = draft_request("none", "ok");
    assert_eq!(r["outcome"], "executed", "{r}");
    let plain: Value = serde_json::from_str(plain.trim_end()).unwrap();
    let e = &plain["params"]["event"];
    assert_eq!(e["tool"]["kind"], "mcp", "{plain}");
    assert!(e["session"]["id"].is_string(), "{plain}");
    assert!(e["tool"].get("x-ctk-freedom").is_none(), "{plain}");
    assert_eq!(plain["params"]["capabilities"]["effects"], json!(["deny"]));

    let (sent, r) = draft_request(
        "tool-kind-optional,closed-object-members,session-event-specific,\
         extension-effects-tool-before,request-unknown-members",
        "ok",
    );
    assert_eq!(r["outcome"], "executed", "{r}");
    let sent: Value = serde_json::from_str(sent.trim_end()).unwrap();
    let e = &sent["params"]["event"];
    // tool-kind-optional: no kind; closed-object-members: a member inside
    // the closed tool; session-event-specific: no session.
    assert!(e["tool"].get("kind").is_none(), "{sent}");
    assert_eq!(e["tool"]["x-ctk-freedom"], true, "{sent}");
    assert_eq!(e["tool"]["origin"], "native", "{sent}");
    assert!(e.get("session").is_none(), "{sent}");
    // request-unknown-members everywhere but inside harness and call.
    assert_eq!(sent["x-ctk-freedom"], true, "{sent}");
    assert_eq!(e["x-ctk-freedom"], true, "{sent}");
    assert_eq!(sent["params"]["state"]["x-ctk-freedom"], true, "{sent}");
    assert!(e["harness"].get("x-ctk-freedom").is_none(), "{sent}");
    assert!(e["call"].get("x-ctk-freedom").is_none(), "{sent}");
    assert_eq!(e["call"]["id"], "c-1", "{sent}");
    assert_eq!(
        sent["params"]["capabilities"]["effects"],
        json!(["dev.agent-hooks-ctk.freedom.noop", "deny"])
    );
}

#[test]
fn the_0_1_edge_freedoms_reach_the_draft_request() {
    let (sent, _) = draft_request(
        "json-member-order,json-insignificant-whitespace,stdio-carriage-return,event-id-format",
        "ok",
    );
    assert!(sent.starts_with("{ \"params\": { "), "{sent}");
    assert!(sent.ends_with(" }\r\n"), "{sent:?}");
    let r: Value = serde_json::from_str(sent.trim_end()).unwrap();
    assert_eq!(r["params"]["protocolVersion"], "draft");
    let id = r["params"]["event"]["id"].as_str().unwrap_or_default();
    assert!(id.len() == 36 && &id[14..15] == "4", "{r}");
}

#[test]
fn the_advertised_noop_effect_is_enforced_as_nothing_on_the_draft() {
    // Not advertised: an unadvertised effect fails the fail-closed
    // interceptor. Advertised: a no-op, so the tool runs.
    let (_, r) = draft_request("none", "noop");
    assert_eq!(r["outcome"], "denied", "{r}");
    assert_eq!(r["synthetic"], true, "{r}");
    let (_, r) = draft_request("extension-effects-tool-before", "noop");
    assert_eq!(r["outcome"], "executed", "{r}");
    // whitespace-only-reason applies on the draft line too.
    let mut a = draft_harness("whitespace-only-reason");
    let out = a.dir.path().join("blank.bin");
    a.load(draft_registration(vec![entry(
        "com.example.blank",
        raw(&out, "deny", Some("  ")),
        vec![intercept("fail-closed", 10_000)],
    )]));
    let r = a.tool("Bash");
    assert_eq!(r["outcome"], "denied", "{r}");
    assert_eq!(r["synthetic"], true, "{r}");
    a.shutdown();
}

/// Interceptor A (answering 0.1, so a failure on the draft line: a
/// fail-closed short-circuit), interceptor B never called, observer O;
/// the logs of A, B and O after one tool call, once O has heard of it and
/// B has (`b_told`) or has had a second more to.
fn short_circuit(freedoms: &str, b_told: bool) -> (Vec<Value>, Vec<Value>, Vec<Value>) {
    let mut a = draft_harness(freedoms);
    let logs: Vec<_> = ["a.log", "b.log", "o.log"]
        .iter()
        .map(|n| a.dir.path().join(n))
        .collect();
    a.load(draft_registration(vec![
        entry(
            "com.example.a",
            stdio(&logs[0], "persistent", "ok", None),
            vec![intercept("fail-closed", 5000)],
        ),
        entry(
            "com.example.b",
            stdio(&logs[1], "persistent", "ok", None),
            vec![intercept("fail-open", 5000)],
        ),
        entry(
            "com.example.o",
            stdio(&logs[2], "persistent", "ok", None),
            vec![observe(&["tool.before"])],
        ),
    ]));
    assert_eq!(a.tool("Bash")["outcome"], "denied");
    let limit = Duration::from_secs(10);
    wait_until("O's notification", limit, || !received(&logs[2]).is_empty());
    if b_told {
        wait_until("B's notification", limit, || !received(&logs[1]).is_empty());
    } else {
        std::thread::sleep(Duration::from_secs(1));
    }
    // Read before shutdown: the logs' directory goes with the adapter.
    let got = (log_lines(&logs[0]), received(&logs[1]), log_lines(&logs[2]));
    a.shutdown();
    got
}

#[test]
fn draft_observation_freedoms_change_who_is_told_and_when() {
    let (_, b, _) = short_circuit("none", true);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0]["method"], "hooks/observe");
    // uncalled-interceptor-observation: B is not told.
    let (_, b, _) = short_circuit("uncalled-interceptor-observation", false);
    assert!(b.is_empty(), "{b:?}");
    // observation-order: O hears of tool.before only after A answered.
    let (a, _, o) = short_circuit("observation-order", true);
    let answered = a
        .iter()
        .find(|l| l.get("sent").is_some())
        .and_then(|l| l["t"].as_f64())
        .expect("A answered");
    let heard = o
        .iter()
        .find(|l| l.get("recv").is_some())
        .and_then(|l| l["t"].as_f64())
        .expect("O was told");
    assert!(heard >= answered, "O at {heard}, A answered at {answered}");
}
