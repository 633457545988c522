//! The binary over the HTTP binding, on a 127.0.0.1 ephemeral port.

use std::process::Command;
use std::time::Duration;

use hyper::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::*;

#[test]
fn prints_one_loopback_url_line_and_nothing_else_on_stdout() {
    let mut b = HttpBackend::start(&[], &[]);
    assert!(b.url.starts_with("http://127.0.0.1:"), "{}", b.url);
    assert_ne!(b.addr.port(), 0);
    assert_no_effect(&post_json(b.addr, &harmless("evt-1"), &[]).json(), "evt-1");
    drop(b.stdin.take());
    wait_with_deadline(&mut b.child);
    assert!(
        b.more_stdout.recv_timeout(Duration::from_secs(2)).is_err(),
        "stdout holds only the URL"
    );
}

#[test]
fn an_intercept_gets_200_application_json_with_the_decision() {
    let b = HttpBackend::start(&[], &[]);
    let r = post_json(b.addr, &force_push("evt-2"), &[]);
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.content_type(), Some("application/json"));
    assert_deny(&r.json(), "evt-2");
    let r = post_json(b.addr, &harmless("evt-3"), &[]);
    assert_eq!(r.status, StatusCode::OK);
    assert_no_effect(&r.json(), "evt-3");
    // A charset parameter on the request's media type is still JSON.
    let r = http_request(
        b.addr,
        Method::POST,
        &[("content-type", "application/json; charset=utf-8")],
        line(&harmless("evt-4")).into_bytes(),
    );
    assert_no_effect(&r.json(), "evt-4");
}

#[test]
fn a_notification_gets_202_and_no_body() {
    let b = HttpBackend::start(&[], &[]);
    for n in [
        observe("evt-o"),
        json!({"jsonrpc": "2.0", "method": "hooks/observe", "params": {"protocolVersion": "9"}}),
    ] {
        let r = post_json(b.addr, &n, &[]);
        assert_eq!(r.status, StatusCode::ACCEPTED);
        assert!(r.body.is_empty(), "{:?}", r.body);
    }
}

#[test]
fn json_rpc_errors_come_back_as_200_json_bodies() {
    let b = HttpBackend::start(&[], &[]);
    let r = http_request(
        b.addr,
        Method::POST,
        &[("content-type", "application/json")],
        b"{oops".to_vec(),
    );
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.content_type(), Some("application/json"));
    assert_error(&r.json(), -32700, &Value::Null);
    let mut v = harmless("evt-v");
    v["params"]["protocolVersion"] = json!("0.2");
    let r = post_json(b.addr, &v, &[]);
    assert_error(&r.json(), -32001, &json!("evt-v"));
    assert_eq!(r.json()["error"]["data"]["supported"], json!(["0.1"]));
    let mut e = harmless("evt-e");
    e["params"]["event"]["type"] = json!("tool.after");
    assert_error(&post_json(b.addr, &e, &[]).json(), -32002, &json!("evt-e"));
    let m = json!({"jsonrpc": "2.0", "id": "evt-m", "method": "hooks/other", "params": {}});
    assert_error(&post_json(b.addr, &m, &[]).json(), -32601, &json!("evt-m"));
    let batch = json!([harmless("evt-b")]);
    assert_error(&post_json(b.addr, &batch, &[]).json(), -32600, &Value::Null);
}

#[test]
fn other_methods_get_405_and_other_media_types_415() {
    let b = HttpBackend::start(&[], &[]);
    for m in [Method::GET, Method::PUT, Method::DELETE] {
        let r = http_request(b.addr, m.clone(), &[], Vec::new());
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{m}");
        assert_eq!(r.headers.get("allow").unwrap(), "POST");
    }
    let body = line(&harmless("evt-t")).into_bytes();
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let headers: Vec<(&str, &str)> = ct.map(|c| ("content-type", c)).into_iter().collect();
        let r = http_request(b.addr, Method::POST, &headers, body.clone());
        assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct:?}");
        assert!(r.body.is_empty());
    }
}

#[test]
fn a_body_over_the_bound_gets_413() {
    let b = HttpBackend::start(&["--max-body-bytes", "512"], &[]);
    let big = harmless("evt-big");
    let mut big2 = big.clone();
    big2["params"]["event"]["tool"]["input"]["pad"] = json!("x".repeat(600));
    assert_eq!(
        post_json(b.addr, &big2, &[]).status,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    // Under the bound is still served.
    assert_no_effect(&post_json(b.addr, &big, &[]).json(), "evt-big");
}

#[test]
fn a_required_bearer_token_gates_every_request_and_never_comes_back() {
    let canary = "ctk-canary-token-8c2f";
    let b = HttpBackend::start(
        &["--token-env", "CTK_TEST_AHP_TOKEN"],
        &[("CTK_TEST_AHP_TOKEN", canary)],
    );
    let good = format!("Bearer {canary}");
    let r = post_json(b.addr, &harmless("evt-a"), &[]);
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.headers.get("www-authenticate").unwrap(), "Bearer");
    let r = post_json(
        b.addr,
        &harmless("evt-a"),
        &[("authorization", "Bearer wrong")],
    );
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = post_json(b.addr, &harmless("evt-a"), &[("authorization", canary)]);
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "the scheme is required");
    let r = post_json(b.addr, &harmless("evt-a"), &[("authorization", &good)]);
    assert_eq!(r.status, StatusCode::OK);
    assert_no_effect(&r.json(), "evt-a");
    // Replies of every kind, with the token present, never carry it.
    let mut bad_version = force_push("evt-b");
    bad_version["params"]["protocolVersion"] = json!("0.2");
    let frames = [
        line(&force_push("evt-c")),
        line(&bad_version),
        "{broken".to_owned(),
        line(&json!({"jsonrpc": "2.0", "id": "evt-d", "method": "x"})),
    ];
    for f in frames {
        let r = http_request(
            b.addr,
            Method::POST,
            &[
                ("content-type", "application/json"),
                ("authorization", &good),
            ],
            f.into_bytes(),
        );
        assert_eq!(r.status, StatusCode::OK);
        assert!(!String::from_utf8_lossy(&r.body).contains(canary));
        for v in r.headers.values() {
            assert!(!v.to_str().unwrap_or("").contains(canary));
        }
    }
}

#[test]
fn a_missing_token_variable_or_a_non_loopback_address_is_refused_at_start() {
    let run = run_once_env(&["http", "--token-env", "CTK_TEST_AHP_UNSET_VAR"], b"", &[]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("CTK_TEST_AHP_UNSET_VAR"),
        "{}",
        run.stderr
    );
    let run = run_once(&["http", "--listen", "0.0.0.0:0"], b"");
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("loopback"), "{}", run.stderr);
}

#[test]
fn the_server_stops_on_sigterm() {
    let mut b = HttpBackend::start(&[], &[]);
    assert_no_effect(&post_json(b.addr, &harmless("evt-s"), &[]).json(), "evt-s");
    let killed = Command::new("kill")
        .args(["-TERM", &b.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = wait_with_deadline(&mut b.child);
    assert_eq!(status.code(), Some(0));
    assert!(
        std::net::TcpStream::connect(b.addr).is_err(),
        "no longer listening"
    );
}

#[test]
fn the_server_stops_at_stdin_eof_unless_told_to_ignore_it() {
    let mut b = HttpBackend::start(&[], &[]);
    drop(b.stdin.take());
    assert_eq!(wait_with_deadline(&mut b.child).code(), Some(0));

    let mut kept = HttpBackend::start(&["--ignore-stdin"], &[]);
    drop(kept.stdin.take());
    std::thread::sleep(Duration::from_millis(300));
    assert!(kept.child.try_wait().unwrap().is_none(), "still serving");
    assert_no_effect(
        &post_json(kept.addr, &harmless("evt-k"), &[]).json(),
        "evt-k",
    );
}

#[test]
fn a_duplicate_delivery_over_http_gets_the_same_body() {
    let b = HttpBackend::start(&[], &[]);
    for req in [force_push("evt-x"), harmless("evt-y")] {
        let first = post_json(b.addr, &req, &[]);
        let second = post_json(b.addr, &req, &[]);
        assert_eq!(first.status, second.status);
        assert_eq!(first.body, second.body);
    }
}

#[test]
fn a_chunked_body_without_a_length_is_still_bounded() {
    use std::io::{Read, Write};
    let b = HttpBackend::start(&["--max-body-bytes", "512"], &[]);
    let mut s = std::net::TcpStream::connect(b.addr).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    let chunk = "x".repeat(600);
    let req = format!(
        "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
        b.addr,
        chunk.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut response = Vec::new();
    let _ = s.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
}
