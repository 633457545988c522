//! `ctk-reference-host --freedoms` as a vendor meets it: an id the catalog
//! does not know ends the binary with exit status 2 and names the id, before
//! it reads anything; a known one serves (issue 26).

use std::io::Write;
use std::process::{Command, Stdio};

fn host(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctk-reference-host"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the host starts");
    // A shutdown request, so that a host that serves ends at once.
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}\n");
    child.wait_with_output().expect("the host ends")
}

#[test]
fn an_unknown_freedom_is_refused_by_name_with_exit_2() {
    let out = host(&["--freedoms", "member-order,no-such-freedom"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown freedom \"no-such-freedom\""), "{err}");
    assert!(out.stdout.is_empty(), "nothing is served");
}

#[test]
fn known_freedoms_serve_and_answer_with_the_spacing_they_ask() {
    let out = host(&["--freedoms", "whitespace,member-order"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reply = String::from_utf8_lossy(&out.stdout);
    assert!(reply.contains("\": "), "spaced: {reply}");
    let plain = host(&["--freedoms", "none"]);
    assert_eq!(plain.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&plain.stdout).contains("\": "));
}
