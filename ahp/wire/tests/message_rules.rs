//! One project-authored message fixture per message rule
//! (`tests/data/message/`): `.json` files are single messages, `.jsonl`
//! files stdio transcripts checked line by line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctk_ahp_wire::validate::{self, Rule};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/message")
}

/// Every (line, rule, pointer) the validator reports for `file` (line 0
/// for a single `.json` message).
fn findings(file: &str) -> BTreeSet<(usize, Rule, String)> {
    let bytes = std::fs::read(dir().join(file)).unwrap();
    if file.ends_with(".jsonl") {
        validate::check_transcript(&bytes)
            .into_iter()
            .map(|f| (f.line, f.finding.rule, f.finding.pointer))
            .collect()
    } else {
        validate::check_message_bytes(&bytes)
            .into_iter()
            .map(|f| (0, f.rule, f.pointer))
            .collect()
    }
}

/// Findings a fixture must produce: (line, rule, pointer).
type Expected = Vec<(usize, Rule, &'static str)>;

/// (file, expected (line, rule, pointer) set); valid files expect none.
fn expectations() -> Vec<(&'static str, Expected)> {
    use Rule::*;
    vec![
        ("intercept-request.valid.json", vec![]),
        ("deny-response.valid.json", vec![]),
        ("no-effect-response.valid.json", vec![]),
        ("error-unsupported-version.valid.json", vec![]),
        ("observe-tool-after.valid.json", vec![]),
        ("transcript.valid.jsonl", vec![]),
        (
            "intercept-id-mismatch.invalid.json",
            vec![(0, InterceptIdIsEventId, "/id")],
        ),
        (
            "intercept-integer-id.invalid.json",
            vec![(0, InterceptIdIsEventId, "/id")],
        ),
        (
            "intercept-no-deny.invalid.json",
            vec![(0, DenyAdvertised, "/params/capabilities/effects")],
        ),
        (
            "intercept-wrong-version.invalid.json",
            vec![(0, WireVersion, "/params/protocolVersion")],
        ),
        (
            "intercept-bare-extension-key.invalid.json",
            vec![(0, ExtensionKeys, "/params/event/extensions")],
        ),
        (
            "intercept-input-string.invalid.json",
            vec![(0, Schema, "/params/event/tool/input")],
        ),
        (
            "intercept-tool-after.invalid.json",
            vec![(0, InterceptToolBefore, "/params/event/type")],
        ),
        (
            "deny-two-effects.invalid.json",
            vec![(0, OneEffect, "/result/effects")],
        ),
        (
            "allow-effect.invalid.json",
            vec![
                (0, DenyOnly, "/result/effects/0/type"),
                (0, Schema, "/result/effects/0"),
            ],
        ),
        (
            "deny-empty-reason.invalid.json",
            vec![(0, Schema, "/result/effects/0/reason")],
        ),
        ("effects-missing.invalid.json", vec![(0, Schema, "/result")]),
        (
            "error-and-result.invalid.json",
            vec![(0, Schema, "/result")],
        ),
        (
            "observe-with-id.invalid.json",
            vec![(0, NotificationHasNoId, "/id")],
        ),
        (
            "observe-unknown-event.invalid.json",
            vec![(0, Schema, "/params/event/type")],
        ),
        (
            "unknown-method.invalid.json",
            vec![(0, KnownMethod, "/method")],
        ),
        ("batch.invalid.json", vec![(0, NoBatch, "")]),
        (
            "duplicate-member.invalid.json",
            vec![(0, UniqueMembers, "/result/protocolVersion")],
        ),
        ("not-utf8.invalid.json", vec![(0, Utf8, "")]),
        (
            "transcript-banner.invalid.jsonl",
            vec![(1, StdioProtocolOnly, "")],
        ),
        (
            "transcript-blank-line.invalid.jsonl",
            vec![(2, StdioProtocolOnly, "")],
        ),
        (
            "transcript-crlf.invalid.jsonl",
            vec![(1, StdioNoCarriageReturn, "")],
        ),
        (
            "transcript-no-final-lf.invalid.jsonl",
            vec![(2, StdioTerminator, "")],
        ),
        (
            "transcript-reply-id.invalid.jsonl",
            vec![(2, ReplyIdEcho, "/id")],
        ),
        (
            "transcript-reply-null-id.invalid.jsonl",
            vec![(2, ReplyIdEcho, "/id")],
        ),
        (
            "transcript-reply-to-notification.invalid.jsonl",
            vec![(2, NoReplyToNotification, "")],
        ),
        (
            "transcript-two-outstanding.invalid.jsonl",
            vec![(2, OneOutstandingIntercept, "/id")],
        ),
        (
            "transcript-unadvertised.invalid.jsonl",
            vec![
                (1, DenyAdvertised, "/params/capabilities/effects"),
                (2, AdvertisedEffects, "/result/effects/0/type"),
            ],
        ),
    ]
}

#[test]
fn every_fixture_breaks_exactly_its_rules() {
    let table = expectations();
    let mut on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    // Checked on its own below: it yields one finding per physical line.
    assert!(on_disk.remove("transcript-pretty.invalid.jsonl"));
    let listed: BTreeSet<String> = table.iter().map(|(f, _)| (*f).to_owned()).collect();
    assert_eq!(
        listed, on_disk,
        "every fixture file has an expectation, and no more"
    );
    let mut failures = Vec::new();
    for (file, expected) in &table {
        assert_eq!(
            file.contains(".valid."),
            expected.is_empty(),
            "{file}: name says valid?"
        );
        let want: BTreeSet<(usize, Rule, String)> = expected
            .iter()
            .map(|(l, r, p)| (*l, *r, (*p).to_owned()))
            .collect();
        let got = findings(file);
        if got != want {
            failures.push(format!("{file}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_pretty_printed_message_fails_framing_on_its_lines() {
    let got = findings("transcript-pretty.invalid.jsonl");
    let lines = std::fs::read_to_string(dir().join("transcript-pretty.invalid.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(lines > 5);
    let framing: BTreeSet<usize> = got
        .iter()
        .filter(|(_, r, _)| *r == Rule::StdioProtocolOnly)
        .map(|(l, _, _)| *l)
        .collect();
    assert!(framing.contains(&1) && framing.contains(&lines), "{got:?}");
}

#[test]
fn one_frame_must_be_one_line_ended_by_one_lf() {
    let good = b"{\"jsonrpc\":\"2.0\",\"id\":\"e\",\"result\":{\"protocolVersion\":\"0.1\",\"effects\":[]}}\n";
    let (v, f) = validate::check_stdio_frame(good);
    assert!(v.is_some() && f.is_empty(), "{f:?}");
    let rules = |bytes: &[u8]| -> Vec<Rule> {
        validate::check_stdio_frame(bytes)
            .1
            .iter()
            .map(|f| f.rule)
            .collect()
    };
    let body = &good[..good.len() - 1];
    assert_eq!(rules(body), [Rule::StdioTerminator]);
    assert_eq!(
        rules(&[good.as_slice(), b"\n"].concat()),
        [Rule::StdioOneLine]
    );
    let crlf = [body, b"\r\n"].concat();
    assert_eq!(rules(&crlf), [Rule::StdioNoCarriageReturn]);
    let split = b"{\"jsonrpc\":\"2.0\",\n\"id\":\"e\",\"result\":{\"protocolVersion\":\"0.1\",\"effects\":[]}}\n";
    let (v, f) = validate::check_stdio_frame(split);
    assert!(v.is_some(), "the content is still read");
    assert_eq!(
        f.iter().map(|f| f.rule).collect::<Vec<_>>(),
        [Rule::StdioOneLine]
    );
}

#[test]
fn a_reply_echoes_the_request_id_exactly() {
    let request = serde_json::json!({"jsonrpc": "2.0", "id": "7", "method": "hooks/intercept",
        "params": {"capabilities": {"effects": ["deny"]}}});
    let reply = |id: serde_json::Value| {
        serde_json::json!({"jsonrpc": "2.0", "id": id,
        "result": {"protocolVersion": "0.1", "effects": []}})
    };
    assert_eq!(validate::check_reply(&request, &reply("7".into())), vec![]);
    for wrong in [serde_json::json!(7), serde_json::Value::Null, "8".into()] {
        let f = validate::check_reply(&request, &reply(wrong.clone()));
        assert_eq!(f.len(), 1, "{wrong}: {f:?}");
        assert_eq!(
            (f[0].rule, f[0].pointer.as_str()),
            (Rule::ReplyIdEcho, "/id")
        );
    }
    let notification =
        serde_json::json!({"jsonrpc": "2.0", "method": "hooks/observe", "params": {}});
    let f = validate::check_reply(&notification, &reply("7".into()));
    assert_eq!(f[0].rule, Rule::NoReplyToNotification);
}
