//! The reference backend's replies judged by the kit's own AHP validator
//! (`ctk-ahp-wire`), so the backend and the checks the suite applies to
//! other backends cannot drift apart.

use ctk_ahp_wire::validate::{check_message, check_reply, check_transcript};
use serde_json::{json, Value};

use crate::support::*;

#[test]
fn a_persistent_stdio_transcript_passes_the_kit_transcript_check() {
    let mut wrong_version = harmless("evt-4");
    wrong_version["params"]["protocolVersion"] = json!("0.2");
    let mut wrong_event = harmless("evt-5");
    wrong_event["params"]["event"]["type"] = json!("tool.after");
    let sent = [
        harmless("evt-1"),
        observe("evt-2"),
        force_push("evt-3"),
        wrong_version,
        wrong_event,
        json!({"jsonrpc": "2.0", "id": "evt-6", "method": "hooks/unknown", "params": {}}),
    ];
    let mut b = StdioBackend::start(&["--quiet", "stdio"]);
    let mut transcript = String::new();
    let mut pairs: Vec<(Value, Value)> = Vec::new();
    // 1-based transcript line numbers of the replies, and of the requests
    // the kit rightly flags (the three deliberately unsupported ones).
    let mut reply_lines = Vec::new();
    let mut flagged_requests = Vec::new();
    let mut n = 0;
    for (i, msg) in sent.iter().enumerate() {
        transcript.push_str(&line(msg));
        transcript.push('\n');
        n += 1;
        if i >= 3 {
            flagged_requests.push(n);
        }
        b.send(msg);
        if msg.get("id").is_some() {
            let reply = b.recv();
            transcript.push_str(&line(&reply));
            transcript.push('\n');
            n += 1;
            reply_lines.push(n);
            pairs.push((msg.clone(), reply));
        }
    }
    let (status, rest, _) = b.finish();
    assert!(status.success());
    assert!(rest.is_empty(), "{rest:?}");
    let findings = check_transcript(transcript.as_bytes());
    // No finding about the replies or the pairing; the only findings are
    // the kit flagging the unsupported requests themselves.
    let lines: Vec<usize> = findings.iter().map(|f| f.line).collect();
    assert!(
        lines.iter().all(|l| flagged_requests.contains(l)),
        "{findings:?}\n{transcript}"
    );
    assert!(reply_lines.iter().all(|l| !lines.contains(l)));
    for (request, reply) in &pairs {
        let f = check_message(reply);
        assert!(f.is_empty(), "{reply}: {f:?}");
        let f = check_reply(request, reply);
        assert!(f.is_empty(), "{reply}: {f:?}");
    }
}
