//! `interceptions`, `sequence_strict`, `interceptions_absent`, the context
//! checks and the implicit sequence check, over the contexts interceptor 0
//! recorded.

use serde_json::{json, Value};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

use crate::assert::check::{check_paths, forward_scan, point};
use crate::assert::AssertionFailure;

use crate::script::redactor::write_back_field;
use crate::vector::model::{Expect, ExpectedInterception};

/// Where a run that missed an expected context diverged first, when the
/// host's records say: its first own deny (`host_error:*`), which stops
/// dispatch, so the missing context is a symptom of it.
fn first_host_deny(records: &[Value]) -> Option<String> {
    records.iter().enumerate().find_map(|(n, r)| {
        let verdict = r.get("verdict")?;
        let reason = verdict.get("reason")?.as_str()?;
        (verdict.get("decision")?.as_str()? == "deny" && reason.starts_with("host_error:")).then(
            || {
                format!(
                    "; the run diverged earlier: records[{n}] ({}) is the host's own deny {reason}",
                    point(r)
                )
            },
        )
    })
}

/// Check the expected interceptions against the recorded contexts;
/// `records` (the host's interception records, when it reported them) name
/// where a run diverged when an expected context never came.
pub fn check(
    expect: &Expect,
    recorded: &[Value],
    records: Option<&[Value]>,
    failures: &mut Vec<AssertionFailure>,
) {
    let expected = expect.interceptions.as_deref().unwrap_or_default();
    let pairs: Vec<(usize, &ExpectedInterception, &Value)> = if expect.sequence_strict {
        let want: Vec<&str> = expected
            .iter()
            .map(|e| e.interception_point.as_str())
            .collect();
        let got: Vec<&str> = recorded.iter().map(point).collect();
        if want != got {
            failures.push(AssertionFailure::mismatch(
                "interceptions",
                "the recorded interception points differ from the expected sequence (sequence_strict)",
                &json!(want),
                Some(&json!(got)),
            ));
            Vec::new()
        } else {
            expected
                .iter()
                .zip(recorded)
                .enumerate()
                .map(|(i, (e, c))| (i, e, c))
                .collect()
        }
    } else {
        let (pairs, unmatched) =
            forward_scan(expected, |e| e.interception_point.as_str(), recorded);
        if let Some(i) = unmatched {
            let e = &expected[i];
            let got: Vec<&str> = recorded.iter().map(point).collect();
            failures.push(AssertionFailure::mismatch(
                format!("interceptions[{i}]"),
                format!(
                    "no {} context recorded after the previous match{}",
                    e.interception_point,
                    records.and_then(first_host_deny).unwrap_or_default()
                ),
                &json!(e.interception_point),
                Some(&json!(got)),
            ));
        }
        pairs
    };
    for (i, e, ctx) in pairs {
        check_context(i, e, ctx, failures);
    }
    for p in &expect.interceptions_absent {
        if let Some(n) = recorded.iter().position(|c| point(c) == p) {
            failures.push(AssertionFailure::message(
                "interceptions_absent",
                format!("{p} must not reach interceptor 0, but recorded context #{n} is one"),
            ));
        }
    }
}

fn check_context(
    i: usize,
    e: &ExpectedInterception,
    ctx: &Value,
    failures: &mut Vec<AssertionFailure>,
) {
    let key = format!("interceptions[{i}]");
    if e.context_must_validate {
        if let Err(problem) = envelope(ctx) {
            failures.push(AssertionFailure::message(
                format!("{key}.context_must_validate"),
                format!("invalid §4 envelope: {problem}"),
            ));
        }
    }
    check_paths(&format!("{key}.context"), ctx, &e.context, failures);
    let text = serde_json::to_string(ctx).unwrap_or_default();
    for needle in &e.context_must_contain {
        if !text.contains(needle.as_str()) {
            failures.push(AssertionFailure::message(
                format!("{key}.context_must_contain"),
                format!("{needle:?} does not appear in the context"),
            ));
        }
    }
    for needle in &e.context_must_not_contain {
        if text.contains(needle.as_str()) {
            failures.push(AssertionFailure::message(
                format!("{key}.context_must_not_contain"),
                format!("{needle:?} appears in the context"),
            ));
        }
    }
}

fn spec_ok(spec: &str) -> bool {
    spec.strip_prefix("agent-hooks/").is_some_and(|v| {
        v == "draft"
            || v.split_once('.').is_some_and(|(a, b)| {
                !a.is_empty()
                    && !b.is_empty()
                    && a.chars().chain(b.chars()).all(|c| c.is_ascii_digit())
            })
    })
}

/// §4.1 `timestamp`: an RFC 3339 date-time (the schema's `format:
/// date-time`) naming a UTC instant, so its offset is zero: `Z`, `+00:00`
/// (or RFC 3339's `-00:00`).
fn timestamp_ok(value: &Value) -> Result<(), String> {
    let text = value.as_str().ok_or("timestamp is not a string")?;
    let at = OffsetDateTime::parse(text, &Rfc3339)
        .map_err(|e| format!("timestamp is not an RFC 3339 date-time: {text:?} ({e})"))?;
    if at.offset() != UtcOffset::UTC {
        return Err(format!(
            "timestamp is not a UTC instant (offset {}): {text:?}",
            at.offset()
        ));
    }
    Ok(())
}

/// The §4 envelope check: required core, conditional members, subfields.
pub fn envelope(ctx: &Value) -> Result<(), String> {
    let obj = ctx.as_object().ok_or("context is not an object")?;
    for key in [
        "spec",
        "interception_point",
        "timestamp",
        "sequence",
        "agent",
        "session",
        "target",
    ] {
        if !obj.contains_key(key) {
            return Err(format!("missing required member {key}"));
        }
    }
    if !obj["spec"].as_str().is_some_and(spec_ok) {
        return Err("spec is not agent-hooks/<major>.<minor>".into());
    }
    let p = point(ctx);
    if write_back_field(p).is_none() && p != "agent_startup" && p != "agent_shutdown" {
        return Err(format!("unknown interception_point {p:?}"));
    }
    timestamp_ok(&obj["timestamp"])?;
    if ctk_core::number::integral(&obj["sequence"]).is_none_or(|s| s < 0) {
        return Err("sequence is not an integer >= 0".into());
    }
    let agent_ok = obj["agent"]
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
        && obj["agent"]
            .get("framework")
            .and_then(Value::as_str)
            .is_some_and(|s| {
                !s.is_empty()
                    && s.chars().all(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'
                    })
            });
    if !agent_ok {
        return Err("agent.id / agent.framework missing or malformed".into());
    }
    if obj["session"]
        .get("id")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err("session.id missing or empty".into());
    }
    // The §4.2 conditional members are the identity projection's, one table
    // for both uses.
    for (member, fields) in crate::identity::conditional(p).unwrap_or(&[]) {
        let Some(value) = obj.get(*member) else {
            return Err(format!("missing conditional member {member} at {p}"));
        };
        if let Some(fields) = fields {
            let inner = value
                .as_object()
                .ok_or(format!("{member} is not an object"))?;
            if let Some(f) = fields.iter().find(|f| !inner.contains_key(**f)) {
                return Err(format!("missing {member}.{f}"));
            }
        }
    }
    Ok(())
}

/// Every recorded context carries an integer `sequence`; sequences are
/// unique and strictly increasing in the order interceptor 0 received them.
///
/// The one exception is §12.2: the tool calls of one model response may run
/// concurrently, so tool-seam emissions may reach an interceptor out of
/// sequence order with each other. Even then every sequence stays unique and
/// each `post_tool_call` follows its own `pre_tool_call`.
pub fn check_sequence(recorded: &[Value], failures: &mut Vec<AssertionFailure>) {
    let is_tool_seam = |ctx: &Value| matches!(point(ctx), "pre_tool_call" | "post_tool_call");
    let all = || {
        Value::Array(
            recorded
                .iter()
                .map(|c| c.get("sequence").cloned().unwrap_or(Value::Null))
                .collect(),
        )
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut pre_tool: std::collections::BTreeMap<String, i64> = Default::default();
    let mut highest: Option<(i64, &Value)> = None;
    for (n, ctx) in recorded.iter().enumerate() {
        let Some(seq) = ctx.get("sequence").and_then(ctk_core::number::integral) else {
            failures.push(AssertionFailure::message(
                "sequence",
                format!(
                    "recorded context #{n} ({}) has no integer sequence",
                    point(ctx)
                ),
            ));
            return;
        };
        if !seen.insert(seq) {
            failures.push(AssertionFailure::message(
                "sequence",
                format!("sequence {seq} repeats at recorded context #{n}: {}", all()),
            ));
            return;
        }
        let call_id = ctx.pointer("/tool_call/id").and_then(Value::as_str);
        match (point(ctx), call_id) {
            ("pre_tool_call", Some(id)) => {
                pre_tool.insert(id.to_owned(), seq);
            }
            ("post_tool_call", Some(id)) if pre_tool.get(id).is_some_and(|&pre| seq <= pre) => {
                failures.push(AssertionFailure::message(
                    "sequence",
                    format!(
                        "post_tool_call of {id:?} does not follow its pre_tool_call: {}",
                        all()
                    ),
                ));
                return;
            }
            _ => {}
        }
        match highest {
            Some((top, top_ctx)) if seq <= top => {
                if !(is_tool_seam(ctx) && is_tool_seam(top_ctx)) {
                    failures.push(AssertionFailure::message(
                        "sequence",
                        format!(
                            "sequence is not strictly increasing at recorded context #{n}: {}",
                            all()
                        ),
                    ));
                    return;
                }
            }
            _ => highest = Some((seq, ctx)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn startup(timestamp: Value) -> Value {
        json!({"spec": "agent-hooks/0.1", "interception_point": "agent_startup",
            "timestamp": timestamp, "sequence": 0,
            "agent": {"id": "a", "framework": "f"}, "session": {"id": "s"},
            "target": {"tools_registered": []}, "agent_init": {"tools_registered": []}})
    }

    #[test]
    fn a_missing_context_names_the_hosts_own_deny_that_came_first() {
        let expect: Expect = serde_json::from_value(json!({
            "interceptions": [{"interception_point": "input"}, {"interception_point": "pre_tool_call"}],
            "sequence_strict": false
        }))
        .expect("expect");
        let recorded = [json!({"interception_point": "input"})];
        let records = [
            json!({"interception_point": "input", "verdict": {"decision": "allow"}}),
            json!({"interception_point": "pre_model_call",
                   "verdict": {"decision": "deny", "reason": "host_error:context_invalid"}}),
        ];
        let mut failures = Vec::new();
        check(&expect, &recorded, Some(&records), &mut failures);
        // (The bare contexts above also fail the §4 envelope check; only
        // the missing one's failure is about order.)
        failures.retain(|f| f.key == "interceptions[1]");
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(
            failures[0].message,
            "no pre_tool_call context recorded after the previous match; the run diverged \
             earlier: records[1] (pre_model_call) is the host's own deny host_error:context_invalid"
        );
        let mut plain = Vec::new();
        check(&expect, &recorded, Some(&records[..1]), &mut plain);
        plain.retain(|f| f.key == "interceptions[1]");
        assert_eq!(
            plain[0].message,
            "no pre_tool_call context recorded after the previous match"
        );
    }

    #[test]
    fn rfc3339_utc_timestamps_pass() {
        for t in [
            "2026-06-19T14:03:11.123Z",
            "2026-06-19T14:03:11Z",
            "2026-06-19T14:03:11.123456Z",
            "2026-06-19t14:03:11.123z",
            "2026-06-19T14:03:11.123+00:00",
            "2000-02-29T23:59:59.999Z",
            "2016-12-31T23:59:60Z",
        ] {
            assert_eq!(envelope(&startup(json!(t))), Ok(()), "{t}");
        }
    }

    #[test]
    fn other_timestamps_fail_naming_the_value() {
        for t in [
            "",
            "t",
            "2026-13-01T00:00:00.000Z",
            "2026-02-30T00:00:00.000Z",
            "2026-01-01T24:00:00.000Z",
            "2026-01-01T00:00:00.000",
            "2026-01-01",
            "2026-01-01T00:00:00.000Z ",
            "1767225600",
        ] {
            let err = envelope(&startup(json!(t))).expect_err(t);
            assert!(
                err.starts_with("timestamp is not an RFC 3339 date-time: ")
                    && err.contains(&format!("{t:?}")),
                "{t}: {err}"
            );
        }
        let err = envelope(&startup(json!("2026-06-19T16:03:11.123+02:00"))).expect_err("offset");
        assert!(
            err.contains("not a UTC instant") && err.contains("+02:00"),
            "{err}"
        );
        for v in [json!(1_767_225_600), json!(null)] {
            assert_eq!(
                envelope(&startup(v)),
                Err("timestamp is not a string".to_owned())
            );
        }
    }
}
