//! `ctk-ahp-backend --freedoms` (issue 26) as a binary: ids are checked
//! against the catalogs, and the other readings change what goes on the
//! wire, on stdio and on HTTP.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use hyper::StatusCode;
use serde_json::{json, Value};

use crate::support::*;

#[test]
fn an_unknown_or_refused_freedom_exits_2_and_names_it() {
    let r = run_once(
        &["--freedoms", "json-member-order,no-such-freedom", "stdio"],
        b"",
    );
    assert_eq!(r.status.code(), Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("no-such-freedom"), "{}", r.stderr);
    // A draft-line freedom is not one of the released line's.
    let r = run_once(&["--freedoms", "several-effects", "stdio"], b"");
    assert_eq!(r.status.code(), Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("several-effects"), "{}", r.stderr);
    // The draft supersedes this one: refused by name on that line.
    let r = run_once(
        &[
            "--spec",
            "draft",
            "--freedoms",
            "extension-effect-advertised",
            "stdio",
        ],
        b"",
    );
    assert_eq!(r.status.code(), Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("extension-effect-advertised"),
        "{}",
        r.stderr
    );
}

#[test]
fn on_stdio_the_decision_the_codes_and_the_spelling_change() {
    let mut input = String::new();
    for v in [
        harmless("evt-1"),
        json!({"jsonrpc": "2.0", "id": 9, "method": "no/such"}),
    ] {
        input.push_str(&line(&v));
        input.push('\n');
    }
    input.push_str("not json\n");
    let r = run_once(
        &[
            "--freedoms",
            "decision-policy,unknown-method-error-code,error-data,non-json-line,json-insignificant-whitespace,stdio-carriage-return",
            "stdio",
        ],
        input.as_bytes(),
    );
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
    let frames: Vec<&str> = r.stdout.split_inclusive('\n').collect();
    // Two answers (the line that is not JSON is ignored), each a CR LF
    // frame with a space after every separator.
    assert_eq!(frames.len(), 2, "{}", r.stdout);
    assert!(
        frames
            .iter()
            .all(|f| f.ends_with("\r\n") && f.contains("\": ")),
        "{frames:?}"
    );
    let deny: Value = serde_json::from_str(frames[0].trim_end()).unwrap();
    assert_deny(&deny, "evt-1");
    let error: Value = serde_json::from_str(frames[1].trim_end()).unwrap();
    assert_eq!(error["error"]["code"], -32600);
    assert!(error["error"].get("data").is_none(), "{error}");
    // The default reading answers the harmless call with no effect.
    let r = run_once(&["--freedoms", "none", "stdio"], input.as_bytes());
    let first: Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_no_effect(&first, "evt-1");
}

#[test]
fn per_event_exit_is_1_after_a_notification() {
    let note = format!("{}\n", line(&observe("evt-n")));
    let r = run_once(
        &["--freedoms", "per-event-exit", "stdio", "--per-event"],
        note.as_bytes(),
    );
    assert_eq!(r.status.code(), Some(1), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let r = run_once(&["stdio", "--per-event"], note.as_bytes());
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
}

#[test]
fn on_http_statuses_media_type_and_layout_change() {
    let b = HttpBackend::start(
        &[
            "--freedoms",
            "http-notification-status,http-error-status,http-content-type-parameters,http-body-layout",
        ],
        &[],
    );
    let r = post_json(b.addr, &observe("evt-o"), &[]);
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.is_empty());
    let r = post_json(
        b.addr,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "no/such"}),
        &[],
    );
    assert_eq!(r.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(r.content_type(), Some("application/json; charset=utf-8"));
    assert_eq!(r.json()["error"]["code"], -32601);
    let r = post_json(b.addr, &force_push("evt-f"), &[]);
    assert_eq!(r.status, StatusCode::OK);
    let text = String::from_utf8(r.body.to_vec()).unwrap();
    assert!(text.contains("\n  \"") && text.ends_with("}\n"), "{text}");
    assert_deny(&r.json(), "evt-f");
}

#[test]
fn http_message_framing_is_chunked_closed_and_title_cased_on_the_wire() {
    let b = HttpBackend::start(&["--freedoms", "http-message-framing"], &[]);
    let body = line(&harmless("evt-h"));
    let mut s = TcpStream::connect(b.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "POST / HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        b.addr,
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    // The server closes the connection after its answer.
    s.read_to_string(&mut raw).unwrap();
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.contains("Transfer-Encoding: chunked"), "{raw}");
    assert!(raw.contains("Connection: close"), "{raw}");
    assert!(raw.contains("Content-Type: application/json"), "{raw}");
    assert!(raw.contains("X-Ctk-Freedom: http-message-framing"), "{raw}");
    assert!(
        !raw.to_ascii_lowercase().contains("content-length"),
        "{raw}"
    );
}

#[test]
fn the_draft_line_takes_its_own_freedoms() {
    // A "0.1" request at a draft backend, answered as a 0.1 backend.
    let input = format!("{}\n", line(&force_push("evt-d")));
    let r = run_once(
        &[
            "--spec",
            "draft",
            "--freedoms",
            "released-version-at-draft-backend",
            "stdio",
        ],
        input.as_bytes(),
    );
    let reply: Value = serde_json::from_str(r.stdout.trim_end()).unwrap();
    assert_deny(&reply, "evt-d");
    let r = run_once(&["--spec", "draft", "stdio"], input.as_bytes());
    let reply: Value = serde_json::from_str(r.stdout.trim_end()).unwrap();
    assert_error(&reply, -32001, &json!("evt-d"));
}
