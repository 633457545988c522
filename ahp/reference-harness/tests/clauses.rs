//! Catalog clauses no live vector can observe, pinned on the reference
//! harness (which is its own compatibility adapter): call ids it
//! synthesizes (9.3-g, 22-e), the optional session members it leaves out
//! (9.2-f), what a backend sees of the native call (22-a, 22-j), where it
//! accepts a blocking policy (22-i), and what it infers from a reply to a
//! request that carried an optional member (7.3-b).

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::*;

/// The `tool.callId` of every frame in `frames`.
fn call_ids(frames: &[Value]) -> Vec<Value> {
    frames
        .iter()
        .map(|f| f["params"]["event"]["tool"]["callId"].clone())
        .collect()
}

/// The member names of the object at `value`, sorted.
fn keys(value: &Value) -> Vec<String> {
    let mut out: Vec<String> = value
        .as_object()
        .unwrap_or_else(|| panic!("{value} is not an object"))
        .keys()
        .cloned()
        .collect();
    out.sort();
    out
}

/// ahp-9.3-g, ahp-22-e: when the native call has no id (`callId` null in
/// `harness/tool_call`), the harness makes one, and it is the same id in
/// every message about that call: in `tool.before` to each interceptor and
/// each observer, and in `tool.after`; a second call gets another one.
#[test]
fn a_synthesized_call_id_is_stable_across_one_tool_call() {
    let mut a = Adapter::start();
    let first = a.dir.path().join("first.log");
    let second = a.dir.path().join("second.log");
    let observer = a.dir.path().join("observer.log");
    a.load(registration(vec![
        entry(
            "com.example.first",
            stdio(&first, "persistent", "ok", None),
            vec![intercept("fail-closed", 10_000)],
        ),
        entry(
            "com.example.second",
            stdio(&second, "per_event", "ok", None),
            vec![intercept("fail-closed", 10_000)],
        ),
        entry(
            "com.example.observer",
            stdio(&observer, "persistent", "ok", None),
            vec![observe(&["tool.before", "tool.after"])],
        ),
    ]));
    for _ in 0..2 {
        assert_eq!(a.tool_with("Bash", "allow", None)["outcome"], "executed");
    }
    wait_until("4 observer notifications", Duration::from_secs(20), || {
        received(&observer).len() >= 4
    });
    let first_ids = call_ids(&received(&first));
    let second_ids = call_ids(&received(&second));
    let notes = received(&observer);
    assert_eq!(first_ids.len(), 2, "{first_ids:?}");
    for id in &first_ids {
        assert!(
            id.as_str().is_some_and(|s| !s.is_empty()),
            "a synthesized callId is a non-empty string: {id}"
        );
    }
    assert_eq!(first_ids, second_ids, "the same id for every interceptor");
    assert_ne!(first_ids[0], first_ids[1], "each call has its own id");
    for (call, id) in first_ids.iter().enumerate() {
        let about: Vec<&Value> = notes
            .iter()
            .filter(|n| &n["params"]["event"]["tool"]["callId"] == id)
            .collect();
        let types: Vec<&Value> = about
            .iter()
            .map(|n| &n["params"]["event"]["type"])
            .collect();
        assert_eq!(
            types,
            [&json!("tool.before"), &json!("tool.after")],
            "call {call}: tool.before and tool.after carry the synthesized id; notes: {notes:?}"
        );
    }
    a.shutdown();
}

/// ahp-9.2-f: the reference harness leaves every optional session member
/// (`cwd`, `workspaceRoots`, `model`, `agent`) out of every event it sends,
/// intercepts, tool notifications and session notifications alike, so
/// nothing sensitive about the session is sent unless configured.
#[test]
fn no_optional_session_member_is_sent() {
    let mut a = Adapter::start();
    let interceptor = a.dir.path().join("interceptor.log");
    let observer = a.dir.path().join("observer.log");
    a.load(registration(vec![
        entry(
            "com.example.interceptor",
            stdio(&interceptor, "persistent", "ok", None),
            vec![intercept("fail-open", 10_000)],
        ),
        entry(
            "com.example.observer",
            stdio(&observer, "persistent", "ok", None),
            vec![observe(&[
                "session.start",
                "tool.before",
                "tool.after",
                "session.end",
            ])],
        ),
    ]));
    assert_eq!(
        a.call("harness/session", json!({"event": "session.start"})),
        json!({})
    );
    assert_eq!(a.tool("Read")["outcome"], "executed");
    assert_eq!(
        a.call("harness/session", json!({"event": "session.end"})),
        json!({})
    );
    wait_until("4 observer notifications", Duration::from_secs(20), || {
        received(&observer).len() >= 4
    });
    let mut frames = received(&interceptor);
    frames.extend(received(&observer));
    assert_eq!(frames.len(), 5, "{frames:?}");
    for f in &frames {
        assert_eq!(
            keys(&f["params"]["event"]["session"]),
            ["id"],
            "only the required session id: {f}"
        );
    }
    a.shutdown();
}

/// ahp-22-a, ahp-22-j: a backend sees the tool call only in the 0.1 shape:
/// the request, its params, the event and the tool carry only members 0.1
/// defines, and the native call (provider, native event name, raw payload)
/// appears only inside `native`, and only for a subscription that asked for
/// it (`includeNative: true`).
#[test]
fn the_backend_sees_only_ahp_members_and_provider_data_only_in_native() {
    let mut a = Adapter::start();
    let plain = a.dir.path().join("plain.log");
    let native = a.dir.path().join("native.log");
    let mut with_native = intercept("fail-closed", 10_000);
    with_native["includeNative"] = json!(true);
    a.load(registration(vec![
        entry(
            "com.example.plain",
            stdio(&plain, "persistent", "ok", None),
            vec![intercept("fail-closed", 10_000)],
        ),
        entry(
            "com.example.native",
            stdio(&native, "persistent", "ok", None),
            vec![with_native],
        ),
    ]));
    assert_eq!(
        a.tool_with("Bash", "allow", Some("native-7"))["outcome"],
        "executed"
    );
    let plain_frames = received(&plain);
    let native_frames = received(&native);
    assert_eq!(plain_frames.len(), 1, "{plain_frames:?}");
    assert_eq!(native_frames.len(), 1, "{native_frames:?}");
    for (frame, event_keys) in [
        (
            &plain_frames[0],
            vec!["id", "session", "source", "time", "tool", "type"],
        ),
        (
            &native_frames[0],
            vec!["id", "native", "session", "source", "time", "tool", "type"],
        ),
    ] {
        assert!(
            ctk_ahp_wire::validate::check_message(frame).is_empty(),
            "a valid 0.1 request: {frame}"
        );
        assert_eq!(
            keys(frame),
            ["id", "jsonrpc", "method", "params"],
            "{frame}"
        );
        assert_eq!(
            keys(&frame["params"]),
            ["capabilities", "event", "protocolVersion"],
            "{frame}"
        );
        assert_eq!(keys(&frame["params"]["event"]), event_keys, "{frame}");
        assert_eq!(
            keys(&frame["params"]["event"]["tool"]),
            ["callId", "input", "kind", "name"],
            "{frame}"
        );
        assert_eq!(
            frame["params"]["event"]["tool"]["input"],
            json!({"command": "echo hi"}),
            "the input as the native call gave it, parsed into an object"
        );
    }
    let n = &native_frames[0]["params"]["event"]["native"];
    assert_eq!(n["provider"], "ctk-ahp-harness", "{n}");
    assert_eq!(n["eventName"], "tool.before", "{n}");
    assert_eq!(n["payload"]["callId"], "native-7", "{n}");
    assert_eq!(n["payload"]["name"], "Bash", "{n}");
    a.shutdown();
}

/// ahp-22-i: the harness accepts a failure policy (fail-closed included)
/// only on the one event it can block, `tool.before`: a registration that
/// asks for a fail-closed intercept of a session event (which it can only
/// observe) is refused as a whole, so it never claims enforcement there.
#[test]
fn a_fail_closed_intercept_of_an_event_it_cannot_block_is_refused() {
    let mut a = Adapter::start();
    let log = a.dir.path().join("never.log");
    for event in ["session.start", "session.end", "tool.after", "tool.error"] {
        let mut sub = intercept("fail-closed", 10_000);
        sub["events"] = json!([event]);
        let r = a.load_env(
            registration(vec![entry(
                "com.example.blocker",
                stdio(&log, "persistent", "ok", None),
                vec![sub],
            )]),
            json!({}),
        );
        assert_eq!(r["loaded"], false, "{event}: {r}");
        let refused = r["refused"].as_array().expect("refusals");
        assert!(
            refused
                .iter()
                .any(|f| f["pointer"] == "/hooks/0/subscriptions/0/events"
                    || f["pointer"] == "/hooks/0/subscriptions/0/events/0"),
            "{event}: the refusal names the subscription's events: {r}"
        );
        let call = a.call_reply(
            "harness/tool_call",
            json!({"tool": {"name": "Bash", "kind": "shell", "input": {}},
                   "callId": null, "hostPermission": "allow"}),
        );
        assert_eq!(
            call["error"]["code"], -32000,
            "{event}: nothing is loaded: {call}"
        );
    }
    assert!(received(&log).is_empty(), "the backend was never started");
    a.shutdown();
}

/// ahp-7.3-b: the harness sends the optional `native` member, which a
/// backend may ignore; it never reads an empty reply to such a request as
/// the backend having acted on it: empty effects still grant nothing (the
/// host's prompt stands), exactly as for the request without `native`.
#[test]
fn an_ignored_optional_member_changes_nothing_the_harness_concludes() {
    for include_native in [false, true] {
        let mut a = Adapter::start();
        let log = a.dir.path().join("ignores.log");
        let mut sub = intercept("fail-closed", 10_000);
        sub["includeNative"] = json!(include_native);
        a.load(registration(vec![entry(
            "com.example.ignores",
            stdio(&log, "persistent", "ok", None),
            vec![sub],
        )]));
        assert_eq!(
            a.tool_with("Bash", "prompt", None)["outcome"],
            "prompted",
            "includeNative {include_native}: empty effects do not approve"
        );
        assert_eq!(
            a.tool_with("Bash", "allow", None)["outcome"],
            "executed",
            "includeNative {include_native}"
        );
        let frames = received(&log);
        assert_eq!(frames.len(), 2);
        assert_eq!(
            frames[0]["params"]["event"].get("native").is_some(),
            include_native,
            "{:?}",
            frames[0]
        );
        a.shutdown();
    }
}

/// ahp-22-f: the harness advertises only the effect it can enforce on the
/// event it sends: every `hooks/intercept` (always `tool.before`) carries
/// exactly `["deny"]`, and a deny is enforced (the tool does not run, no
/// `tool.after` follows); notifications, which nothing can block, carry no
/// capabilities at all.
#[test]
fn only_the_enforceable_deny_is_advertised() {
    let mut a = Adapter::start();
    let denier = a.dir.path().join("denier.log");
    let observer = a.dir.path().join("observer.log");
    a.load(registration(vec![
        entry(
            "com.example.denier",
            stdio(&denier, "persistent", "deny", Some("no shell")),
            vec![intercept("fail-open", 10_000)],
        ),
        entry(
            "com.example.observer",
            stdio(&observer, "persistent", "ok", None),
            vec![observe(&["tool.before", "tool.after"])],
        ),
    ]));
    for _ in 0..2 {
        let r = a.tool("Bash");
        assert_eq!(
            r["outcome"], "denied",
            "the advertised deny is enforced: {r}"
        );
        assert_eq!(r["synthetic"], false, "{r}");
    }
    wait_until("2 observer notifications", Duration::from_secs(20), || {
        received(&observer).len() >= 2
    });
    let requests = received(&denier);
    assert_eq!(requests.len(), 2, "{requests:?}");
    for f in &requests {
        assert_eq!(f["params"]["event"]["type"], "tool.before", "{f}");
        assert_eq!(
            f["params"]["capabilities"],
            json!({"effects": ["deny"]}),
            "{f}"
        );
    }
    let notes = received(&observer);
    for n in &notes {
        assert_eq!(
            n["params"]["event"]["type"], "tool.before",
            "no tool.after after a deny: {n}"
        );
        assert!(n["params"].get("capabilities").is_none(), "{n}");
    }
    a.shutdown();
}

/// ahp-15-f: a notification about one event is never sent again under
/// another event id: even to an observer whose every delivery fails, each
/// (call, event type) reaches it under one event id only (the reference
/// harness does not retry notifications at all; README, "Retries: none").
#[test]
fn a_notification_is_never_resent_under_a_fresh_event_id() {
    let mut a = Adapter::start();
    let failing = a.dir.path().join("failing.log");
    let steady = a.dir.path().join("steady.log");
    a.load(registration(vec![
        entry(
            "com.example.failing",
            stdio(&failing, "per_event", "exit", Some("1")),
            vec![observe(&["tool.before", "tool.after"])],
        ),
        entry(
            "com.example.steady",
            stdio(&steady, "persistent", "ok", None),
            vec![observe(&["tool.before", "tool.after"])],
        ),
    ]));
    for _ in 0..3 {
        assert_eq!(a.tool_with("Bash", "allow", None)["outcome"], "executed");
    }
    for log in [&failing, &steady] {
        wait_until("6 notifications", Duration::from_secs(20), || {
            received(log).len() >= 6
        });
    }
    // Give a retrying harness time to send again.
    std::thread::sleep(Duration::from_millis(1500));
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .expect("README.md");
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        readme.contains("Observer notifications are not retried either"),
        "the README states the retry choice"
    );
    for log in [&failing, &steady] {
        let notes = received(log);
        let mut ids: std::collections::BTreeMap<(String, String), Vec<Value>> =
            std::collections::BTreeMap::new();
        for n in &notes {
            let event = &n["params"]["event"];
            ids.entry((
                event["tool"]["callId"]
                    .as_str()
                    .expect("a callId")
                    .to_owned(),
                event["type"].as_str().expect("a type").to_owned(),
            ))
            .or_default()
            .push(event["id"].clone());
        }
        assert_eq!(ids.len(), 6, "3 calls x 2 types: {notes:?}");
        for (key, event_ids) in &ids {
            assert!(
                event_ids.iter().all(|id| id == &event_ids[0]),
                "{key:?} was sent under several event ids: {event_ids:?}"
            );
        }
    }
    a.shutdown();
}

/// A self-signed certificate for `localhost` and 127.0.0.1 (valid in every
/// respect but its issuer, which no platform trusts), made with the
/// `openssl` command line; (certificate, key) paths.
fn self_signed(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    let out = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl runs (it is needed to make a test certificate)");
    assert!(
        out.status.success(),
        "openssl req: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (cert, key)
}

/// ahp-18.2-c: the harness validates an HTTPS backend's certificate
/// against the platform trust store: a TLS server whose certificate names
/// the right host but has an untrusted issuer gets the handshake aborted
/// with a certificate alert (bad_certificate, certificate_unknown or
/// unknown_ca), no request is sent, and the fail-closed
/// interceptor becomes a synthetic denial.
#[test]
fn an_untrusted_server_certificate_is_refused() {
    let mut a = Adapter::start();
    let (cert, key) = self_signed(a.dir.path());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let server_log = a.dir.path().join("s_server.log");
    let log_file = std::fs::File::create(&server_log).expect("log file");
    // Line-buffered, so the log is complete when read.
    let mut server = std::process::Command::new("stdbuf")
        .args(["-oL", "-eL", "openssl", "s_server"])
        .args(["-accept", &format!("127.0.0.1:{port}")])
        .arg("-cert")
        .arg(&cert)
        .arg("-key")
        .arg(&key)
        .arg("-www")
        .stdin(std::process::Stdio::null())
        .stdout(log_file.try_clone().expect("log file"))
        .stderr(log_file)
        .spawn()
        .expect("openssl s_server starts");
    wait_until("the TLS server listening", Duration::from_secs(20), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let url = format!("https://127.0.0.1:{port}/hook");
    a.load(registration(vec![entry(
        "com.example.tls",
        json!({"type": "http", "url": url}),
        vec![intercept("fail-closed", 10_000)],
    )]));
    let r = a.tool("Bash");
    wait_until("the audit line", Duration::from_secs(20), || {
        a.stderr().contains("interceptor com.example.tls failed")
    });
    let stderr = a.stderr();
    // SIGTERM, so the server flushes what it logged; read the log before
    // the adapter's shutdown removes its folder.
    let _ = std::process::Command::new("kill")
        .arg(server.id().to_string())
        .status();
    let _ = server.wait();
    let served = std::fs::read_to_string(&server_log).unwrap_or_default();
    a.shutdown();
    assert_eq!(r["outcome"], "denied", "{r}; harness stderr:\n{stderr}");
    assert_eq!(r["synthetic"], true, "{r}; TLS server:\n{served}");
    assert!(
        ["SSL alert number 42", "SSL alert number 46", "SSL alert number 48"]
            .iter()
            .any(|alert| served.contains(alert)),
        "the harness aborted the handshake for the untrusted issuer; TLS server:\n{served}\nharness stderr:\n{stderr}"
    );
    assert!(
        !served.contains("POST"),
        "no request was sent; TLS server:\n{served}"
    );
}
