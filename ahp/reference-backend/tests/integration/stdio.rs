//! The binary over the stdio binding, persistent and per event.

use serde_json::{json, Value};

use crate::support::*;

fn parse_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"))
        })
        .collect()
}

#[test]
fn persistent_answers_each_request_in_order_skips_notifications_and_exits_0_at_eof() {
    let mut b = StdioBackend::start(&["stdio"]);
    assert_no_effect(&b.call(&harmless("evt-1")), "evt-1");
    // A notification gets nothing: the next line out is the next request's
    // reply, not an answer to the notification.
    b.send(&observe("evt-obs"));
    assert_deny(&b.call(&force_push("evt-2")), "evt-2");
    b.send_raw(b"{not json\n");
    assert_error(&b.recv(), -32700, &Value::Null);
    // Still serving after a malformed line.
    assert_no_effect(&b.call(&harmless("evt-3")), "evt-3");
    b.send(&json!({"jsonrpc": "2.0", "id": "evt-4", "method": "hooks/unknown", "params": {}}));
    assert_error(&b.recv(), -32601, &json!("evt-4"));
    b.send(&observe("evt-obs-2"));
    let (status, rest, stderr) = b.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(
        rest.is_empty(),
        "no reply to the trailing notification: {rest:?}"
    );
    // Diagnostics went to stderr, not stdout.
    assert!(stderr.contains("hooks/intercept"), "{stderr}");
}

#[test]
fn persistent_gives_the_same_answer_to_a_duplicate_delivery() {
    let mut b = StdioBackend::start(&["--quiet", "stdio"]);
    for req in [force_push("evt-d"), harmless("evt-e")] {
        let first = b.call(&req);
        let second = b.call(&req);
        assert_eq!(first, second);
    }
    let (status, _, _) = b.finish();
    assert!(status.success());
}

#[test]
fn persistent_stdout_holds_only_single_line_protocol_objects() {
    let input = [
        line(&harmless("evt-a")),
        line(&observe("evt-b")),
        line(&force_push("evt-c")),
        "[]".to_owned(),
        "\u{1F600} not json".to_owned(),
    ]
    .join("\n")
        + "\n";
    let run = run_once(&["stdio"], input.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert!(run.stdout.ends_with('\n'));
    assert!(!run.stdout.contains('\r'));
    let replies = parse_lines(&run.stdout);
    assert_eq!(replies.len(), 4, "{}", run.stdout);
    for r in &replies {
        assert!(r.is_object() && r["jsonrpc"] == "2.0", "{r}");
    }
    assert_no_effect(&replies[0], "evt-a");
    assert_deny(&replies[1], "evt-c");
    assert_error(&replies[2], -32600, &Value::Null);
    assert_error(&replies[3], -32700, &Value::Null);
    assert!(!run.stderr.is_empty(), "diagnostics go to stderr");
}

#[test]
fn per_event_answers_one_request_and_exits_0() {
    for (req, deny) in [(harmless("evt-p1"), false), (force_push("evt-p2"), true)] {
        let run = run_once(
            &["stdio", "--per-event"],
            format!("{}\n", line(&req)).as_bytes(),
        );
        // A deny is a completed exchange too: exit 0 (spec 17.3).
        assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
        let replies = parse_lines(&run.stdout);
        assert_eq!(replies.len(), 1, "{}", run.stdout);
        let id = req["id"].as_str().unwrap();
        if deny {
            assert_deny(&replies[0], id);
        } else {
            assert_no_effect(&replies[0], id);
        }
    }
}

#[test]
fn per_event_answers_an_error_with_exit_0_and_a_notification_with_silence() {
    let mut bad = harmless("evt-v");
    bad["params"]["protocolVersion"] = json!("draft");
    let run = run_once(
        &["stdio", "--per-event"],
        format!("{}\n", line(&bad)).as_bytes(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert_error(&parse_lines(&run.stdout)[0], -32001, &json!("evt-v"));

    let run = run_once(
        &["stdio", "--per-event"],
        format!("{}\n", line(&observe("evt-o"))).as_bytes(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "", "a notification gets no reply");
}

#[test]
fn per_event_reads_exactly_one_frame() {
    let input = format!(
        "{}\n{}\n",
        line(&harmless("evt-1")),
        line(&force_push("evt-2"))
    );
    let run = run_once(&["stdio", "--per-event"], input.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    let replies = parse_lines(&run.stdout);
    assert_eq!(replies.len(), 1, "{}", run.stdout);
    assert_no_effect(&replies[0], "evt-1");
}

#[test]
fn per_event_replies_before_stdin_closes_and_then_exits() {
    let mut b = StdioBackend::start(&["--quiet", "stdio", "--per-event"]);
    // stdin stays open: the reply must not wait for EOF.
    assert_deny(&b.call(&force_push("evt-w")), "evt-w");
    let (status, rest, _) = b.finish();
    assert_eq!(status.code(), Some(0));
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn per_event_without_a_message_exits_nonzero_and_writes_nothing_to_stdout() {
    let run = run_once(&["stdio", "--per-event"], b"");
    assert_ne!(run.status.code(), Some(0));
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no message"), "{}", run.stderr);
}

#[test]
fn a_policy_file_replaces_the_default_and_a_bad_one_is_refused_at_start() {
    let dir = std::env::temp_dir().join(format!("ctk-ahp-ref-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("policy.json");
    std::fs::write(
        &good,
        r#"{"rules":[{"id":"no-rm","toolKind":"shell","inputContains":"rm -rf","reason":"Recursive deletes need a human.","code":"com.example.policy.rm"}]}"#,
    )
    .unwrap();
    let input = format!(
        "{}\n{}\n",
        line(&intercept(
            "evt-r",
            "Bash",
            "shell",
            json!({"command": "rm -rf /"})
        )),
        line(&force_push("evt-f"))
    );
    let run = run_once(
        &["stdio", "--policy", good.to_str().unwrap()],
        input.as_bytes(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    let replies = parse_lines(&run.stdout);
    assert_deny(&replies[0], "evt-r");
    assert_eq!(
        replies[0]["result"]["effects"][0]["reason"],
        "Recursive deletes need a human."
    );
    // The default rules are gone.
    assert_no_effect(&replies[1], "evt-f");

    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"rules":[{"toolName":"x","reason":""}]}"#).unwrap();
    let run = run_once(
        &["stdio", "--policy", bad.to_str().unwrap()],
        input.as_bytes(),
    );
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("empty reason"), "{}", run.stderr);
    let run = run_once(
        &[
            "stdio",
            "--policy",
            dir.join("absent.json").to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(
        run.stderr.contains("cannot read policy file"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_printed_default_policy_loads_and_behaves_like_the_builtin() {
    let printed = run_once(&["default-policy"], b"");
    assert!(printed.status.success());
    let p = ctk_ahp_reference_backend::Policy::from_json(&printed.stdout)
        .expect("the printed policy loads");
    assert_eq!(
        p.rules().len(),
        ctk_ahp_reference_backend::Policy::builtin().rules().len()
    );
}
