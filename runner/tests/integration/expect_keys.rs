//! Every `expect` key, passing and failing, as pure functions of
//! (Expect, RunRecord, recorded contexts, posture) with hand-built records.

use ctk_agent_hooks_adapter::RunRecord;
use ctk_agent_hooks_suite::assert::{assert_vector, AssertionFailure, Observed};
use ctk_agent_hooks_suite::declaration::Posture;
use ctk_agent_hooks_suite::vector::model::Expect;
use serde_json::{json, Value};

fn ctx(point: &str, seq: u64, extra: Value) -> Value {
    let mut c = json!({
        "spec": "agent-hooks/0.1", "interception_point": point, "timestamp": "2026-01-01T00:00:00.000Z",
        "sequence": seq, "agent": {"id": "ref-agent", "framework": "reference-agent"}, "session": {"id": "sess-1"},
        "target": {}
    });
    let conditional = match point {
        "agent_startup" => json!({"agent_init": {"tools_registered": []}}),
        "input" => json!({"input": {"content": "hi", "role": "user"}}),
        "pre_tool_call" => json!({"tool_call": {"id": "tc-1", "name": "calc", "args": {"x": 1}}}),
        "output" => json!({"output": {"content": "done"}}),
        "agent_shutdown" => json!({"summary": {"reason": "completed"}}),
        _ => json!({}),
    };
    for source in [conditional, extra] {
        if let (Some(obj), Value::Object(more)) = (c.as_object_mut(), source) {
            obj.extend(more);
        }
    }
    c
}

fn contexts() -> Vec<Value> {
    vec![
        ctx("agent_startup", 0, json!({})),
        ctx("input", 1, json!({})),
        ctx("pre_tool_call", 2, json!({"target": {"x": 1}})),
        ctx("output", 3, json!({})),
        ctx("agent_shutdown", 4, json!({})),
    ]
}

fn record() -> Value {
    json!({
        "outcome": "completed",
        "final_output": "done",
        "tool_invocations": [{"name": "calc", "args": {"x": 1}}],
        "records": [
            {"interception_point": "input", "verdict": {"decision": "allow"}, "input_identity": "sha256:a", "enforced_identity": "sha256:a", "decided_by": null},
            {"interception_point": "pre_tool_call", "verdict": {"decision": "deny", "reason": "ctk:no"}, "input_identity": "sha256:b", "enforced_identity": "sha256:b", "decided_by": 0, "timestamp": "t"}
        ],
        "released_output": "part one",
        "persisted": {"history": ["hi", "done"]}
    })
}

fn check_with(
    expect: Value,
    record: Value,
    recorded: &[Value],
    posture: Posture,
) -> Vec<AssertionFailure> {
    let mut expect = expect;
    if let Some(obj) = expect.as_object_mut() {
        obj.entry("sequence_strict").or_insert(json!(false));
        obj.entry("run_outcome").or_insert(json!("completed"));
    }
    let expect: Expect = serde_json::from_value(expect).expect("an expect block");
    let record: RunRecord = serde_json::from_value(record).expect("a run record");
    assert_vector(
        &expect,
        Observed {
            record: &record,
            recorded,
            approval_requests: &[],
            posture,
            interceptor_zero_first: false,
        },
    )
}

fn check(expect: Value) -> Vec<AssertionFailure> {
    check_with(expect, record(), &contexts(), Posture::Continue)
}

fn passes(expect: Value) {
    let failures = check(expect.clone());
    assert!(failures.is_empty(), "{expect} should pass: {failures:#?}");
}

fn fails(expect: Value, key: &str) -> Vec<AssertionFailure> {
    let failures = check(expect.clone());
    assert!(
        failures.iter().any(|f| f.key.starts_with(key)),
        "{expect} should fail at {key}: {failures:#?}"
    );
    failures
}

#[test]
fn interceptions_strict() {
    let all = json!([{"interception_point": "agent_startup"}, {"interception_point": "input"},
        {"interception_point": "pre_tool_call"}, {"interception_point": "output"}, {"interception_point": "agent_shutdown"}]);
    passes(json!({"sequence_strict": true, "interceptions": all}));
    let f = fails(
        json!({"sequence_strict": true, "interceptions": [{"interception_point": "input"}]}),
        "interceptions",
    );
    assert_eq!(f[0].expected, Some(json!(["input"])));
    assert!(
        f[0].diff
            .as_deref()
            .is_some_and(|d| d.contains("+  \"agent_startup\",")),
        "{:?}",
        f[0].diff
    );
}

#[test]
fn interceptions_subsequence() {
    passes(
        json!({"interceptions": [{"interception_point": "input"}, {"interception_point": "output"}]}),
    );
    fails(
        json!({"interceptions": [{"interception_point": "output"}, {"interception_point": "input"}]}),
        "interceptions[1]",
    );
}

#[test]
fn interception_context_paths() {
    passes(
        json!({"interceptions": [{"interception_point": "pre_tool_call", "context": {"tool_call.args.x": 1.0, "target": {"x": 1}}}]}),
    );
    let f = fails(
        json!({"interceptions": [{"interception_point": "pre_tool_call", "context": {"tool_call.name": "rm"}}]}),
        "interceptions[0].context",
    );
    assert_eq!(f[0].actual, Some(json!("calc")));
    let f = fails(
        json!({"interceptions": [{"interception_point": "pre_tool_call", "context": {"tool_call.nope": 1}}]}),
        "interceptions[0].context",
    );
    assert_eq!(f[0].message, "path does not resolve");
}

#[test]
fn context_must_validate() {
    passes(
        json!({"interceptions": [{"interception_point": "input", "context_must_validate": true}]}),
    );
    let mut broken = contexts();
    if let Some(obj) = broken[1].as_object_mut() {
        obj.remove("input");
    }
    let expect = json!({"interceptions": [{"interception_point": "input"}]});
    let f = check_with(expect.clone(), record(), &broken, Posture::Continue);
    assert!(
        f.iter()
            .any(|f| f.key == "interceptions[0].context_must_validate"
                && f.message.contains("input")),
        "{f:#?}"
    );
    let off =
        json!({"interceptions": [{"interception_point": "input", "context_must_validate": false}]});
    assert!(check_with(off, record(), &broken, Posture::Continue).is_empty());
}

#[test]
fn context_must_contain_and_not_contain() {
    passes(
        json!({"interceptions": [{"interception_point": "input", "context_must_contain": ["hi"], "context_must_not_contain": ["SECRET"]}]}),
    );
    fails(
        json!({"interceptions": [{"interception_point": "input", "context_must_contain": ["SECRET"]}]}),
        "interceptions[0].context_must_contain",
    );
    fails(
        json!({"interceptions": [{"interception_point": "input", "context_must_not_contain": ["hi"]}]}),
        "interceptions[0].context_must_not_contain",
    );
}

#[test]
fn interceptions_absent() {
    passes(json!({"interceptions_absent": ["post_tool_call"]}));
    fails(
        json!({"interceptions_absent": ["output"]}),
        "interceptions_absent",
    );
}

#[test]
fn run_outcome() {
    passes(json!({"run_outcome": "completed"}));
    let f = fails(json!({"run_outcome": "blocked"}), "run_outcome");
    assert_eq!(
        (f[0].expected.clone(), f[0].actual.clone()),
        (Some(json!("blocked")), Some(json!("completed")))
    );
}

#[test]
fn run_outcome_by_posture() {
    let by = json!({"run_outcome": "completed", "run_outcome_by_posture": {"posture": "tool_seam_host_error", "outcomes": {"continue": "completed", "terminate": "blocked"}}});
    passes(by.clone());
    let f = check_with(by.clone(), record(), &contexts(), Posture::Terminate);
    assert!(
        f.iter()
            .any(|f| f.key == "run_outcome_by_posture.outcomes.terminate"),
        "{f:#?}"
    );
    let mut blocked = record();
    blocked["outcome"] = json!("blocked");
    assert!(check_with(by, blocked, &contexts(), Posture::Terminate).is_empty());
    let inconsistent = json!({"run_outcome": "blocked", "run_outcome_by_posture": {"posture": "tool_seam_host_error", "outcomes": {"continue": "completed", "terminate": "blocked"}}});
    fails(inconsistent, "run_outcome_by_posture.outcomes.continue");
}

#[test]
fn final_output() {
    passes(json!({"final_output": "done"}));
    fails(json!({"final_output": null}), "final_output");
}

#[test]
fn tool_invocations() {
    passes(json!({"tool_invocations": [{"name": "calc", "args": {"x": 1.0}}]}));
    fails(
        json!({"tool_invocations": [{"name": "calc", "args": {"x": 2}}]}),
        "tool_invocations",
    );
    fails(json!({"tool_invocations": []}), "tool_invocations");
}

#[test]
fn tool_not_invoked() {
    passes(json!({"tool_not_invoked": ["rm"]}));
    fails(json!({"tool_not_invoked": ["calc"]}), "tool_not_invoked");
}

#[test]
fn records_assert_absent_present() {
    passes(
        json!({"records": [{"interception_point": "pre_tool_call", "assert": {"verdict.reason": "ctk:no", "decided_by": 0}, "absent": ["verdict.transform"], "present": ["timestamp"]}]}),
    );
    passes(json!({"records": [{"interception_point": "input", "assert": {"decided_by": null}}]}));
    fails(
        json!({"records": [{"interception_point": "pre_tool_call", "assert": {"verdict.reason": "ctk:yes"}}]}),
        "records[0].assert",
    );
    fails(
        json!({"records": [{"interception_point": "input", "absent": ["decided_by"]}]}),
        "records[0].absent",
    );
    fails(
        json!({"records": [{"interception_point": "input", "present": ["timestamp"]}]}),
        "records[0].present",
    );
    fails(
        json!({"records": [{"interception_point": "pre_tool_call"}, {"interception_point": "input"}]}),
        "records[1]",
    );
    let mut empty = record();
    empty["records"] = json!([]);
    let f = check_with(
        json!({"records": [{"interception_point": "input"}]}),
        empty,
        &contexts(),
        Posture::Continue,
    );
    assert_eq!(f[0].key, "records");
}

#[test]
fn implicit_sequence_check() {
    let mut recorded = contexts();
    recorded[3]["sequence"] = json!(1);
    let f = check_with(json!({}), record(), &recorded, Posture::Continue);
    assert!(f.iter().any(|f| f.key == "sequence"), "{f:#?}");
    passes(json!({}));
}

fn tool(point: &str, seq: u64, id: &str) -> Value {
    ctx(
        point,
        seq,
        json!({"tool_call": {"id": id, "name": "calc", "args": {}}, "tool_result": {"value": 1, "is_error": false}}),
    )
}

#[test]
fn parallel_tool_calls_may_interleave_but_never_repeat_or_invert_a_pair() {
    let run = |contexts: Vec<Value>| {
        let mut f = Vec::new();
        ctk_agent_hooks_suite::assert::interceptions::check_sequence(&contexts, &mut f);
        f
    };
    let head = || {
        vec![
            ctx("agent_startup", 0, json!({})),
            ctx("input", 1, json!({})),
        ]
    };
    // Two concurrent calls whose emissions reached interceptor 0 out of order: fine.
    let mut interleaved = head();
    interleaved.extend([tool("pre_tool_call", 3, "b"), tool("pre_tool_call", 2, "a")]);
    interleaved.extend([
        tool("post_tool_call", 5, "a"),
        tool("post_tool_call", 4, "b"),
    ]);
    interleaved.push(ctx("output", 6, json!({})));
    assert!(run(interleaved.clone()).is_empty());
    // A repeated sequence is never fine.
    let mut repeated = interleaved.clone();
    repeated[3]["sequence"] = json!(3);
    assert!(run(repeated)[0].message.contains("repeats"));
    // A post_tool_call numbered before its own pre_tool_call is not fine.
    let mut inverted = head();
    inverted.extend([
        tool("pre_tool_call", 4, "a"),
        tool("post_tool_call", 3, "a"),
    ]);
    assert!(run(inverted)[0].message.contains("does not follow"));
    // Outside the tool seam, order must hold.
    let mut late_output = interleaved;
    late_output[6]["sequence"] = json!(1);
    assert!(!run(late_output).is_empty());
}

#[test]
fn identities_equal() {
    passes(json!({"identities_equal": true}));
    fails(json!({"identities_equal": false}), "identities_equal");
    let mut differs = record();
    differs["records"][1]["enforced_identity"] = json!("sha256:c");
    assert!(check_with(
        json!({"identities_equal": false}),
        differs.clone(),
        &contexts(),
        Posture::Continue
    )
    .is_empty());
    let f = check_with(
        json!({"identities_equal": true}),
        differs,
        &contexts(),
        Posture::Continue,
    );
    assert_eq!(f[0].key, "identities_equal");
}

#[test]
fn released_output() {
    passes(json!({"released_output": "part one"}));
    fails(
        json!({"released_output": "part one, part two"}),
        "released_output",
    );
    let mut none = record();
    none.as_object_mut().map(|o| o.remove("released_output"));
    let f = check_with(
        json!({"released_output": "x"}),
        none,
        &contexts(),
        Posture::Continue,
    );
    assert_eq!(f[0].message, "the host reported no released_output");
}

#[test]
fn released_output_null_asks_for_none() {
    // A run that streamed nothing: the member is absent, or null on the wire.
    let mut none = record();
    none.as_object_mut().map(|o| o.remove("released_output"));
    let mut null = record();
    null["released_output"] = Value::Null;
    for silent in [none, null] {
        assert!(check_with(
            json!({"released_output": null}),
            silent,
            &contexts(),
            Posture::Continue
        )
        .is_empty());
    }
    // Any string, the empty one included, says the run streamed.
    for got in ["part one", ""] {
        let mut streamed = record();
        streamed["released_output"] = json!(got);
        let f = check_with(
            json!({"released_output": null}),
            streamed,
            &contexts(),
            Posture::Continue,
        );
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].key, "released_output");
        assert_eq!(
            f[0].message,
            "the host reported a released_output, but the run streamed nothing"
        );
        assert_eq!(f[0].actual, Some(json!(got)));
    }
}

#[test]
fn persisted_must_not_contain() {
    passes(json!({"persisted_must_not_contain": ["SECRET"]}));
    fails(
        json!({"persisted_must_not_contain": ["done"]}),
        "persisted_must_not_contain",
    );
    // Not reporting `persisted` is no evidence that nothing leaked.
    let mut silent = record();
    silent.as_object_mut().map(|o| o.remove("persisted"));
    let f = check_with(
        json!({"persisted_must_not_contain": ["SECRET"]}),
        silent,
        &contexts(),
        Posture::Continue,
    );
    assert_eq!(f.len(), 1, "{f:#?}");
    assert!(f[0].message.contains("reported no `persisted`"), "{f:#?}");
    let mut empty = record();
    empty["persisted"] = json!({});
    assert!(check_with(
        json!({"persisted_must_not_contain": ["SECRET"]}),
        empty,
        &contexts(),
        Posture::Continue,
    )
    .is_empty());
}

#[test]
fn persisted_must_contain() {
    passes(json!({"persisted_must_contain": ["done", "hi"]}));
    let f = check_with(
        json!({"persisted_must_contain": ["hi", "ctk-label"]}),
        record(),
        &contexts(),
        Posture::Continue,
    );
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].key, "persisted_must_contain", "{f:#?}");
    assert!(
        f[0].message.contains("\"ctk-label\" was not persisted"),
        "{f:#?}"
    );
    // Neither an absent `persisted` nor an empty one holds a label.
    let mut silent = record();
    silent.as_object_mut().map(|o| o.remove("persisted"));
    let f = check_with(
        json!({"persisted_must_contain": ["hi"]}),
        silent,
        &contexts(),
        Posture::Continue,
    );
    assert_eq!(f.len(), 1, "{f:#?}");
    assert!(f[0].message.contains("reported no `persisted`"), "{f:#?}");
    let mut empty = record();
    empty["persisted"] = json!({});
    assert_eq!(
        check_with(
            json!({"persisted_must_contain": ["hi"]}),
            empty,
            &contexts(),
            Posture::Continue,
        )
        .len(),
        1
    );
}

#[test]
fn load() {
    let mut accepted = record();
    accepted["load"] = json!({"outcome": "accepted", "paths_equivalent": true});
    let ok = |e: Value, r: &Value| check_with(e, r.clone(), &contexts(), Posture::Continue);
    assert!(ok(
        json!({"load": {"outcome": "accepted", "paths_equivalent": true}}),
        &accepted
    )
    .is_empty());
    assert_eq!(
        ok(json!({"load": {"outcome": "refused"}}), &accepted)[0].key,
        "load.outcome"
    );
    let mut refused = record();
    refused["load"] = json!({"outcome": "refused", "class": "declaration_error:unknown_field"});
    refused["records"] = json!([]);
    let expect = json!({"load": {"outcome": "refused", "class": "declaration_error:unknown_field"}, "run_outcome": "blocked"});
    assert!(
        check_with(expect, refused.clone(), &[], Posture::Continue).is_empty(),
        "a refusal stops the checks"
    );
    let wrong_class =
        json!({"load": {"outcome": "refused", "class": "declaration_error:malformed"}});
    assert_eq!(
        check_with(wrong_class, refused.clone(), &[], Posture::Continue)[0].key,
        "load.class"
    );
    let unexpected = check_with(json!({}), refused.clone(), &[], Posture::Continue);
    assert_eq!(unexpected.len(), 1);
    assert_eq!(unexpected[0].key, "load");
    let leaked = check_with(
        json!({"load": {"outcome": "refused"}}),
        refused,
        &contexts(),
        Posture::Continue,
    );
    assert!(
        leaked
            .iter()
            .any(|f| f.message.contains("reached interceptor 0")),
        "{leaked:#?}"
    );
    let mut split = record();
    split["load"] = json!({"outcome": "accepted", "paths_equivalent": false, "detail": "byte 12"});
    assert_eq!(ok(json!({}), &split)[0].key, "load.paths_equivalent");
    assert_eq!(
        ok(json!({"load": {"outcome": "accepted"}}), &record())[0].key,
        "load"
    );
}

#[test]
fn load_detail_contains() {
    let refusal = |detail: Option<&str>| {
        let mut r = record();
        r["records"] = json!([]);
        r["load"] = json!({"outcome": "refused", "class": "declaration_error:version_unsupported"});
        if let Some(d) = detail {
            r["load"]["detail"] = json!(d);
        }
        r
    };
    let expect = json!({"load": {"outcome": "refused", "detail_contains": ["agent-hooks-declaration/1.0", "$.declaration"]}, "run_outcome": "blocked"});
    let run = |r: Value| check_with(expect.clone(), r, &[], Posture::Continue);
    assert!(run(refusal(Some(
        "version_unsupported at $.declaration; accepted: agent-hooks-declaration/1.0"
    )))
    .is_empty());
    let partial = run(refusal(Some("version_unsupported at $.declaration")));
    assert_eq!(partial.len(), 1, "{partial:#?}");
    assert_eq!(partial[0].key, "load.detail_contains");
    assert_eq!(
        partial[0].expected,
        Some(json!(["agent-hooks-declaration/1.0"])),
        "only the missing string is named"
    );
    let silent = run(refusal(None));
    assert_eq!(silent[0].key, "load.detail_contains");
    assert!(
        silent[0].message.contains("no refusal detail"),
        "{silent:#?}"
    );
    // A load the host accepted fails on its outcome, not on a detail it had
    // no reason to give.
    let mut accepted = record();
    accepted["load"] = json!({"outcome": "accepted", "paths_equivalent": true});
    let keys: Vec<String> = check_with(expect.clone(), accepted, &contexts(), Posture::Continue)
        .into_iter()
        .map(|f| f.key)
        .collect();
    assert!(keys.contains(&"load.outcome".to_owned()), "{keys:?}");
    assert!(
        !keys.contains(&"load.detail_contains".to_owned()),
        "{keys:?}"
    );
}

#[test]
fn principal_notices() {
    let mut r = record();
    r["principal_notices"] = json!([
        {"kind": "best_effort_failure", "interception_point": "input", "binding": 0, "reason": "host_error:interceptor_failed"},
        {"kind": "best_effort_failure", "interception_point": "output", "binding": 1.0}
    ]);
    let ok = |e: Value| check_with(e, r.clone(), &contexts(), Posture::Continue);
    assert!(ok(json!({"principal_notices": [
        {"kind": "best_effort_failure", "interception_point": "input", "binding": 0.0},
        {"interception_point": "output", "binding": 1}
    ]}))
    .is_empty());
    let f = ok(json!({"principal_notices": [{"kind": "best_effort_failure"}]}));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].key, "principal_notices");
    assert!(f[0]
        .message
        .contains("gave 2 principal notice(s), the vector expects 1"));
    let f = ok(json!({"principal_notices": [
        {"interception_point": "output"},
        {"interception_point": "output", "reason": "host_error:interceptor_timeout"}
    ]}));
    assert_eq!(
        f.iter().map(|f| f.key.as_str()).collect::<Vec<_>>(),
        [
            "principal_notices[0].interception_point",
            "principal_notices[1].reason"
        ]
    );
    assert_eq!(f[0].actual, Some(json!("input")));
    assert_eq!(f[1].message, "the notice has no such member");
    // No notices at all: an empty expectation passes, a non-empty one fails.
    passes(json!({"principal_notices": []}));
    fails(json!({"principal_notices": [{}]}), "principal_notices");
    // A notice that is not an object.
    let mut odd = record();
    odd["principal_notices"] = json!(["text"]);
    let f = check_with(
        json!({"principal_notices": [{"kind": "x"}]}),
        odd,
        &contexts(),
        Posture::Continue,
    );
    assert_eq!(f[0].key, "principal_notices[0]");
}

#[test]
fn load_refused_when_it_should_be_accepted() {
    let mut refused = record();
    refused["load"] = json!({"outcome": "refused", "class": "declaration_error:invalid_field"});
    let f = check_with(
        json!({"load": {"outcome": "accepted"}}),
        refused,
        &[],
        Posture::Continue,
    );
    assert_eq!(f[0].key, "load.outcome");
    assert_eq!(
        (f[0].expected.clone(), f[0].actual.clone()),
        (Some(json!("accepted")), Some(json!("refused")))
    );
}
