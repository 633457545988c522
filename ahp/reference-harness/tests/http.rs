//! The HTTP binding against a loopback test server: request shape and the
//! bearer token, every HTTP failure class under both policies, redirects
//! not followed, an unset token variable, and observers.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

const TOKEN: &str = "ctk-canary-token-8d1f0c";

fn reply(status: u16, ct: Option<&str>, body: &[u8]) -> HttpReply {
    HttpReply {
        status,
        content_type: ct.map(str::to_owned),
        body: body.to_vec(),
        delay: Duration::ZERO,
        extra_headers: Vec::new(),
    }
}

/// The scripted server: the path names the behaviour.
fn server() -> HttpServer {
    let script: Script = Arc::new(|path: &str, req: &Value| match path {
        "/ok" | "/next" => HttpReply::json(200, ok_reply(req)),
        "/ok-charset" => {
            let mut r = HttpReply::json(200, ok_reply(req));
            r.content_type = Some("application/json; charset=utf-8".into());
            r
        }
        "/deny" => HttpReply::json(200, deny_reply(req, "http says no")),
        "/auth" => HttpReply::json(200, ok_reply(req)),
        "/500" => HttpReply::json(500, ok_reply(req)),
        "/404" => HttpReply::json(404, ok_reply(req)),
        "/401" => reply(401, None, b""),
        "/reset" => reply(0, None, b""),
        "/204" => reply(204, None, b""),
        "/redirect" => {
            let mut r = reply(302, None, b"");
            r.extra_headers.push(("Location".into(), "/deny".into()));
            r
        }
        "/text-plain" => {
            let mut r = HttpReply::json(200, ok_reply(req));
            r.content_type = Some("text/plain".into());
            r
        }
        "/no-type" => {
            let mut r = HttpReply::json(200, ok_reply(req));
            r.content_type = None;
            r
        }
        "/not-json" => reply(200, Some("application/json"), b"CANARY-MALFORMED <html>"),
        "/rpc-error" => HttpReply::json(
            200,
            json!({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32003, "message": "busy"}}),
        ),
        "/wrong-id" => {
            let mut r = ok_reply(req);
            r["id"] = json!("other");
            HttpReply::json(200, r)
        }
        "/slow" => {
            let mut r = HttpReply::json(200, deny_reply(req, "late deny"));
            r.delay = Duration::from_millis(1500);
            r
        }
        "/observer-500" => HttpReply::json(500, json!({"error": "x"})),
        "/observer-slow" => {
            let mut r = reply(202, None, b"");
            r.delay = Duration::from_secs(15);
            r
        }
        _ => reply(202, None, b""),
    });
    HttpServer::start(script)
}

fn http(url: String) -> Value {
    json!({"type": "http", "url": url})
}

fn with_token(mut e: Value) -> Value {
    e["authentication"] = json!({"type": "bearer", "tokenEnv": "CTK_TEST_TOKEN"});
    e
}

#[test]
fn request_shape_and_bearer_token() {
    let s = server();
    let mut a = Adapter::start();
    let r = a.load_env(
        registration(vec![with_token(entry(
            "com.example.auth",
            http(s.url("/auth")),
            vec![intercept("fail-closed", 10_000)],
        ))]),
        json!({"CTK_TEST_TOKEN": TOKEN}),
    );
    assert_eq!(r["loaded"], true);
    assert_eq!(a.tool("Bash")["outcome"], "executed");
    let reqs = s.on("/auth");
    assert_eq!(reqs.len(), 1);
    let q = &reqs[0];
    assert_eq!(q.method, "POST");
    assert_eq!(q.header("content-type"), Some("application/json"));
    assert_eq!(
        q.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    let body = q.json();
    assert_eq!(body["id"], body["params"]["event"]["id"]);
    assert!(ctk_ahp_wire::validate::check_message(&body).is_empty());
    assert!(
        !String::from_utf8_lossy(&q.body).contains(TOKEN),
        "the token is in no payload"
    );
    assert!(!a.stderr().contains(TOKEN), "nor in the log");
    a.shutdown();
}

#[test]
fn explicit_deny_and_accepted_media_type_parameters() {
    let s = server();
    let mut a = Adapter::start();
    a.load(registration(vec![
        entry(
            "com.example.charset",
            http(s.url("/ok-charset")),
            vec![intercept("fail-closed", 10_000)],
        ),
        entry(
            "com.example.deny",
            http(s.url("/deny")),
            vec![intercept("fail-open", 10_000)],
        ),
        entry(
            "com.example.next",
            http(s.url("/next")),
            vec![intercept("fail-closed", 10_000)],
        ),
    ]));
    assert_eq!(
        a.tool("Bash"),
        json!({"outcome": "denied", "synthetic": false, "reason": "http says no", "code": "com.example.http.deny"})
    );
    assert_eq!(s.on("/ok-charset").len(), 1);
    assert!(s.on("/next").is_empty(), "short-circuit after the deny");
    a.shutdown();
}

fn http_failure(a: &mut Adapter, s: &HttpServer, url: String, timeout_ms: u64) {
    for policy in ["fail-open", "fail-closed"] {
        let before = s.on("/next").len();
        a.load(registration(vec![
            entry(
                "com.example.first",
                http(url.clone()),
                vec![intercept(policy, timeout_ms)],
            ),
            entry(
                "com.example.next",
                http(s.url("/next")),
                vec![intercept("fail-closed", 10_000)],
            ),
        ]));
        let r = a.tool("Bash");
        let next = s.on("/next").len() - before;
        if policy == "fail-open" {
            assert_eq!(r, json!({"outcome": "executed"}), "{url} fail-open");
            assert_eq!(next, 1, "{url}: the next backend is called");
        } else {
            assert_eq!(
                r,
                json!({"outcome": "denied", "synthetic": true, "reason": SYNTHETIC, "code": null}),
                "{url} fail-closed"
            );
            assert_eq!(next, 0, "{url}: the chain stops");
        }
    }
}

#[test]
fn every_http_failure_class_under_both_policies() {
    let s = server();
    let mut a = Adapter::start();
    for path in [
        "/500",
        "/404",
        "/401",
        "/204",
        "/redirect",
        "/text-plain",
        "/no-type",
        "/not-json",
        "/rpc-error",
        "/wrong-id",
    ] {
        http_failure(&mut a, &s, s.url(path), 10_000);
    }
    assert!(s.on("/deny").is_empty(), "the redirect was never followed");
    // Deadline: the deny comes 1.5 s after a 300 ms deadline and is ignored.
    let start = Instant::now();
    http_failure(&mut a, &s, s.url("/slow"), 300);
    assert!(
        start.elapsed() < Duration::from_millis(2 * 1500),
        "no wait for the late reply"
    );
    // Connection refused: a port nobody listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    http_failure(&mut a, &s, format!("http://127.0.0.1:{port}/gone"), 5000);
    assert!(
        !a.stderr().contains("CANARY-MALFORMED"),
        "malformed content stays out of the log"
    );
    a.shutdown();
}

#[test]
fn unset_token_variable_fails_without_an_unauthenticated_request() {
    let s = server();
    let mut a = Adapter::start();
    for policy in ["fail-open", "fail-closed"] {
        let r = a.load_env(
            registration(vec![with_token(entry(
                "com.example.auth",
                http(s.url("/auth")),
                vec![intercept(policy, 10_000)],
            ))]),
            json!({}),
        );
        assert_eq!(r["loaded"], true, "D-23: the document loads");
        let out = a.tool("Bash");
        if policy == "fail-open" {
            assert_eq!(out["outcome"], "executed");
        } else {
            assert_eq!(out["synthetic"], true);
        }
    }
    assert!(s.on("/auth").is_empty(), "no request without the header");
    a.shutdown();
}

#[test]
fn http_observers_never_block_and_their_failures_change_nothing() {
    let s = server();
    let mut a = Adapter::start();
    a.load(registration(vec![
        entry(
            "com.example.obs-slow",
            http(s.url("/observer-slow")),
            vec![observe(&["tool.before", "tool.after"])],
        ),
        entry(
            "com.example.obs-500",
            http(s.url("/observer-500")),
            vec![observe(&["tool.before", "tool.after"])],
        ),
        entry(
            "com.example.ok",
            http(s.url("/ok")),
            vec![intercept("fail-closed", 10_000)],
        ),
    ]));
    let start = Instant::now();
    assert_eq!(a.tool("Bash")["outcome"], "executed");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "a 15 s observer did not delay the tool"
    );
    wait_until(
        "tool.after at the observer",
        Duration::from_secs(10),
        || s.on("/observer-500").len() == 2,
    );
    let mut notes: Vec<Value> = s.on("/observer-500").iter().map(|r| r.json()).collect();
    assert!(notes
        .iter()
        .all(|n| n.get("id").is_none() && n["method"] == "hooks/observe"));
    // Each notification is its own HTTP request, sent without waiting: they
    // may reach the observer in either order (a loaded CI machine showed
    // tool.after first), so they are compared by type, not by arrival.
    notes.sort_by_key(|n| n["params"]["event"]["type"] != "tool.before");
    assert_eq!(notes[0]["params"]["event"]["type"], "tool.before");
    assert_eq!(notes[1]["params"]["event"]["type"], "tool.after");
    assert_eq!(
        notes[0]["params"]["event"]["tool"]["callId"],
        notes[1]["params"]["event"]["tool"]["callId"]
    );
    assert!(s
        .on("/ok")
        .iter()
        .all(|r| r.json()["method"] == "hooks/intercept"));
    a.shutdown();
}
