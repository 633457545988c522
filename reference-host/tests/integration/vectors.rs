//! Every upstream vector, run through `ReferenceHost` with the throwaway
//! driver. A smoke check of the run-level expectations (outcome under the
//! default `continue` posture, output, tool log, record fields, releases);
//! the runner's engine remains the judge of conformance.

use serde_json::{json, Value};

use crate::driver::{all_ids, lookup, run_vector};

/// What interceptor 0 saw against `interceptions`, `interceptions_absent`
/// and the context expectations (strict order or forward subsequence).
fn check_seen(id: &str, seen: &[Value], expect: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    let wanted: Vec<Value> = expect
        .get("interceptions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let strict = expect
        .get("sequence_strict")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let seen_points: Vec<&Value> = seen.iter().map(|c| &c["interception_point"]).collect();
    if strict {
        let want_points: Vec<&Value> = wanted.iter().map(|w| &w["interception_point"]).collect();
        if seen_points != want_points {
            failures.push(format!("{id}: saw {seen_points:?}, want {want_points:?}"));
            return failures;
        }
    }
    let mut cursor = 0;
    for want in &wanted {
        let Some(pos) = seen[cursor..]
            .iter()
            .position(|c| c["interception_point"] == want["interception_point"])
        else {
            failures.push(format!(
                "{id}: interceptor 0 never saw {}",
                want["interception_point"]
            ));
            return failures;
        };
        let ctx = &seen[cursor + pos];
        cursor += pos + 1;
        for (path, value) in want
            .get("context")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if lookup(ctx, path) != Some(value) {
                failures.push(format!(
                    "{id}: context {path} = {:?}, want {value}",
                    lookup(ctx, path)
                ));
            }
        }
        let text = ctx.to_string();
        for needle in want
            .get("context_must_contain")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !text.contains(needle.as_str().unwrap_or_default()) {
                failures.push(format!("{id}: context lacks {needle}"));
            }
        }
        for needle in want
            .get("context_must_not_contain")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if text.contains(needle.as_str().unwrap_or_default()) {
                failures.push(format!("{id}: context contains {needle}"));
            }
        }
    }
    for absent in expect
        .get("interceptions_absent")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if seen_points.contains(&absent) {
            failures.push(format!("{id}: interceptor 0 saw {absent}"));
        }
    }
    let seqs: Vec<Option<i64>> = seen.iter().map(|c| c["sequence"].as_i64()).collect();
    if seqs.iter().any(Option::is_none) || seqs.windows(2).any(|w| w[0] >= w[1]) {
        failures.push(format!("{id}: sequences not strictly increasing: {seqs:?}"));
    }
    failures
}

fn check(id: &str, record: &ctk_harness_protocol::RunRecord, doc: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    let expect = &doc["expect"];
    let want = expect
        .pointer("/run_outcome_by_posture/outcomes/continue")
        .or_else(|| expect.get("run_outcome"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if record.outcome.as_str() != want {
        failures.push(format!(
            "{id}: outcome {} != {want} ({:?})",
            record.outcome.as_str(),
            record.error
        ));
    }
    if let Some(f) = expect.get("final_output") {
        if &record.final_output != f {
            failures.push(format!("{id}: final_output {} != {f}", record.final_output));
        }
    }
    if let Some(t) = expect.get("tool_invocations") {
        let got = serde_json::to_value(&record.tool_invocations).expect("serializes");
        if &got != t {
            failures.push(format!("{id}: tool_invocations {got} != {t}"));
        }
    }
    for name in expect
        .get("tool_not_invoked")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if record
            .tool_invocations
            .iter()
            .any(|i| Some(i.name.as_str()) == name.as_str())
        {
            failures.push(format!("{id}: {name} was invoked"));
        }
    }
    let mut cursor = 0;
    for want in expect
        .get("records")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let point = &want["interception_point"];
        let Some(pos) = record.records[cursor..]
            .iter()
            .position(|r| &r["interception_point"] == point)
        else {
            failures.push(format!("{id}: no record at {point}"));
            break;
        };
        let rec = &record.records[cursor + pos];
        cursor += pos + 1;
        for (path, value) in want
            .get("assert")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if lookup(rec, path) != Some(value) {
                failures.push(format!(
                    "{id}: record {point} {path} = {:?}, want {value}",
                    lookup(rec, path)
                ));
            }
        }
        for path in want
            .get("absent")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if lookup(rec, path.as_str().unwrap_or_default()).is_some() {
                failures.push(format!("{id}: record {point} has {path}"));
            }
        }
        for path in want
            .get("present")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if lookup(rec, path.as_str().unwrap_or_default()).is_none() {
                failures.push(format!("{id}: record {point} lacks {path}"));
            }
        }
    }
    if let Some(eq) = expect.get("identities_equal").and_then(Value::as_bool) {
        let all_equal = record
            .records
            .iter()
            .all(|r| r["input_identity"] == r["enforced_identity"]);
        if all_equal != eq {
            failures.push(format!("{id}: identities_equal is {all_equal}"));
        }
    }
    if let Some(r) = expect.get("released_output") {
        if record.released_output.as_ref() != Some(r) {
            failures.push(format!(
                "{id}: released_output {:?} != {r}",
                record.released_output
            ));
        }
    }
    let persisted = serde_json::to_string(&record.persisted).expect("serializes");
    for needle in expect
        .get("persisted_must_not_contain")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if persisted.contains(needle.as_str().unwrap_or_default()) {
            failures.push(format!("{id}: persisted contains {needle}"));
        }
    }
    failures
}

#[tokio::test]
async fn all_upstream_vectors_pass_the_smoke_check() {
    let ids = all_ids();
    assert_eq!(ids.len(), 51, "upstream vector count");
    let mut failures = Vec::new();
    for id in &ids {
        let (record, script, doc) = run_vector(id).await;
        failures.extend(check(id, &record, &doc));
        let seen = script.seen.lock().expect("lock").clone();
        failures.extend(check_seen(id, &seen, &doc["expect"]));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn interceptor_zero_sees_the_points_vector_001_lists() {
    let (_, script, doc) = run_vector("AH-CTK-001").await;
    let seen: Vec<Value> = script
        .seen
        .lock()
        .expect("lock")
        .iter()
        .map(|c| c["interception_point"].clone())
        .collect();
    let want: Vec<Value> = doc["expect"]["interceptions"]
        .as_array()
        .expect("list")
        .iter()
        .map(|i| i["interception_point"].clone())
        .collect();
    assert_eq!(seen, want);
    let seqs: Vec<Value> = script
        .seen
        .lock()
        .expect("lock")
        .iter()
        .map(|c| c["sequence"].clone())
        .collect();
    assert_eq!(seqs, (0..10).map(|i| json!(i)).collect::<Vec<_>>());
}

#[tokio::test]
async fn context_expectations_of_vector_001_hold() {
    let (_, script, doc) = run_vector("AH-CTK-001").await;
    let seen = script.seen.lock().expect("lock").clone();
    for (ctx, want) in seen
        .iter()
        .zip(doc["expect"]["interceptions"].as_array().expect("list"))
    {
        for (path, value) in want
            .get("context")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            assert_eq!(lookup(ctx, path), Some(value), "{path}");
        }
        assert_eq!(
            ctx["agent"],
            json!({"id": "ref-agent", "framework": "reference-agent"})
        );
    }
}

#[tokio::test]
async fn post_tool_deny_is_never_incorporated() {
    let (_, script, _) = run_vector("AH-CTK-100").await;
    let seen = script.seen.lock().expect("lock").clone();
    let after: Vec<String> = seen
        .iter()
        .skip_while(|c| c["interception_point"] != "post_tool_call")
        .filter(|c| c["interception_point"] == "pre_model_call")
        .map(|c| c.to_string())
        .collect();
    assert_eq!(after.len(), 1);
    assert!(after[0].contains("ctk:tainted-result"));
    assert!(!after[0].contains("SECRET-RESULT"));
}

#[tokio::test]
async fn folded_transform_is_visible_to_the_next_interceptor() {
    // AH-CTK-060: the second interceptor would deny if it saw the original URL.
    let (record, _, _) = run_vector("AH-CTK-060").await;
    let pre = record
        .records
        .iter()
        .find(|r| r["interception_point"] == "pre_tool_call")
        .expect("record");
    assert_eq!(pre["verdict"]["decision"], "transform");
    assert_eq!(pre["verdicts"][1]["decision"], "allow");
}

#[tokio::test]
async fn approval_request_identity_is_over_the_redacted_context() {
    let (record, script, _) = run_vector("AH-CTK-099").await;
    let requests = script.requests.lock().expect("lock").clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["context"]["target"]["amount"], "[redacted]");
    let pre = record
        .records
        .iter()
        .find(|r| r["interception_point"] == "pre_tool_call")
        .expect("record");
    assert_ne!(requests[0]["context_identity"], pre["input_identity"]);
}

#[tokio::test]
async fn the_smoke_check_notices_missing_interceptions() {
    let (record, _, doc) = run_vector("AH-CTK-001").await;
    assert!(!check_seen("AH-CTK-001", &[], &doc["expect"]).is_empty());
    let mut wrong = record.clone();
    wrong.final_output = json!("something else");
    assert!(!check("AH-CTK-001", &wrong, &doc).is_empty());
}
