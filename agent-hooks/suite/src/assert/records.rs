//! `records` (forward scan by point), `identities_equal` (over the
//! records' `input_identity` / `enforced_identity` pairs) and the implicit
//! recomputation of `jcs-sha256` input identities.

use ctk_agent_hooks_adapter::RunRecord;
use serde_json::{json, Value};

use crate::assert::check::{check_paths, forward_scan, point};
use crate::assert::AssertionFailure;
use crate::identity::context_identity;
use crate::json_path::{json_eq, lookup};
use crate::vector::model::{Expect, ExpectedRecord};

/// Check `expect.records`.
pub fn check_records(expect: &Expect, record: &RunRecord, failures: &mut Vec<AssertionFailure>) {
    let Some(expected) = &expect.records else {
        return;
    };
    if expected.is_empty() {
        return;
    }
    if record.records.is_empty() {
        failures.push(AssertionFailure::message(
            "records",
            "the host reported no interception records",
        ));
        return;
    }
    let (pairs, unmatched) =
        forward_scan(expected, |e| e.interception_point.as_str(), &record.records);
    for (i, e, actual) in pairs {
        let key = format!("records[{i}]");
        check_paths(&format!("{key}.assert"), actual, &e.assert, failures);
        for path in &e.absent {
            if let Some(got) = lookup(actual, path) {
                failures.push(AssertionFailure {
                    key: format!("{key}.absent.{path:?}"),
                    message: "path must not resolve, but does".into(),
                    expected: None,
                    actual: Some(got.clone()),
                    diff: None,
                });
            }
        }
        for path in &e.present {
            if lookup(actual, path).is_none() {
                failures.push(AssertionFailure::message(
                    format!("{key}.present.{path:?}"),
                    "path must resolve, but does not",
                ));
            }
        }
        check_freedom_forms(&key, actual, e, failures);
        check_choice_forms(&key, actual, e, failures);
    }
    if let Some(i) = unmatched {
        let e = &expected[i];
        let got: Vec<&str> = record.records.iter().map(point).collect();
        failures.push(AssertionFailure::mismatch(
            format!("records[{i}]"),
            format!(
                "no {} record after the previous match",
                e.interception_point
            ),
            &json!(e.interception_point),
            Some(&json!(got)),
        ));
    }
}

/// The forms that accept every spelling the text allows: `absent_or_null`,
/// `no_entries`, `same_members` and `contains` (vector grammar 1.1).
fn check_freedom_forms(
    key: &str,
    actual: &Value,
    e: &ExpectedRecord,
    failures: &mut Vec<AssertionFailure>,
) {
    for path in &e.absent_or_null {
        match lookup(actual, path) {
            None | Some(Value::Null) => {}
            Some(got) => failures.push(AssertionFailure::mismatch(
                format!("{key}.absent_or_null.{path:?}"),
                "path must be absent or null, but holds a value",
                &Value::Null,
                Some(got),
            )),
        }
    }
    for path in &e.no_entries {
        match lookup(actual, path) {
            None => {}
            Some(Value::Array(items)) if items.is_empty() => {}
            Some(got) => failures.push(AssertionFailure::mismatch(
                format!("{key}.no_entries.{path:?}"),
                "path must be absent or an empty array",
                &json!([]),
                Some(got),
            )),
        }
    }
    for (path, want) in &e.same_members {
        let key = format!("{key}.same_members.{path:?}");
        match lookup(actual, path) {
            Some(Value::Array(got)) if same_multiset(got, want) => {}
            got => failures.push(AssertionFailure::mismatch(
                key,
                match got {
                    None => "path does not resolve",
                    Some(Value::Array(_)) => "the array's members differ (order is not compared)",
                    Some(_) => "not an array",
                },
                want,
                got,
            )),
        }
    }
    for (path, parts) in &e.contains {
        let key = format!("{key}.contains.{path:?}");
        match lookup(actual, path) {
            Some(Value::String(text)) => {
                let missing: Vec<&String> = parts
                    .iter()
                    .filter(|p| !text.contains(p.as_str()))
                    .collect();
                if !missing.is_empty() {
                    failures.push(AssertionFailure::mismatch(
                        key,
                        "the string lacks a part the text fixes",
                        &json!(missing),
                        Some(&Value::String(text.clone())),
                    ));
                }
            }
            got => failures.push(AssertionFailure::mismatch(
                key,
                if got.is_some() {
                    "not a string"
                } else {
                    "path does not resolve"
                },
                &json!(parts),
                got,
            )),
        }
    }
}

/// The forms that accept each value, or each type, a reading of the text
/// allows: `one_of` and `types` (vector grammar 1.3).
fn check_choice_forms(
    key: &str,
    actual: &Value,
    e: &ExpectedRecord,
    failures: &mut Vec<AssertionFailure>,
) {
    for (path, allowed) in &e.one_of {
        let got = lookup(actual, path);
        let ok = match got {
            None => allowed.iter().any(Value::is_null),
            Some(v) => allowed.iter().any(|a| json_eq(a, v)),
        };
        if !ok {
            failures.push(AssertionFailure::mismatch(
                format!("{key}.one_of.{path:?}"),
                if got.is_some() {
                    "the value is none of those the text allows"
                } else {
                    "path does not resolve, and null is not among the values allowed"
                },
                &Value::Array(allowed.clone()),
                got,
            ));
        }
    }
    for (path, allowed) in &e.types {
        let got = lookup(actual, path);
        let kind = match got {
            None => "absent",
            Some(Value::Null) => "null",
            Some(Value::Bool(_)) => "boolean",
            Some(Value::Number(_)) => "number",
            Some(Value::String(_)) => "string",
            Some(Value::Array(_)) => "array",
            Some(Value::Object(_)) => "object",
        };
        if !allowed.iter().any(|t| t == kind) {
            failures.push(AssertionFailure::mismatch(
                format!("{key}.types.{path:?}"),
                format!("the member is {kind}, a type the text does not allow there"),
                &json!(allowed),
                got,
            ));
        }
    }
}

/// Whether `got` holds the elements of `want` (an array) as a multiset,
/// numbers compared by value. A `want` that is not an array matches nothing.
fn same_multiset(got: &[Value], want: &Value) -> bool {
    let Value::Array(want) = want else {
        return false;
    };
    if got.len() != want.len() {
        return false;
    }
    let mut used = vec![false; got.len()];
    want.iter().all(|w| {
        let found = (0..got.len()).find(|&i| !used[i] && json_eq(&got[i], w));
        found.map(|i| used[i] = true).is_some()
    })
}

/// Check `expect.identities_equal`.
pub fn check_identities(expect: &Expect, record: &RunRecord, failures: &mut Vec<AssertionFailure>) {
    let Some(want_equal) = expect.identities_equal else {
        return;
    };
    if record.records.is_empty() {
        failures.push(AssertionFailure::message(
            "identities_equal",
            "the host reported no interception records",
        ));
        return;
    }
    let mut pairs = Vec::new();
    for (n, r) in record.records.iter().enumerate() {
        match (r.get("input_identity"), r.get("enforced_identity")) {
            (Some(i), Some(e)) => pairs.push((n, i, e)),
            _ => {
                failures.push(AssertionFailure::message(
                    "identities_equal",
                    format!(
                        "record #{n} ({}) lacks input_identity or enforced_identity",
                        point(r)
                    ),
                ));
                return;
            }
        }
    }
    let differing: Vec<Value> = pairs
        .iter()
        .filter(|(_, i, e)| i != e)
        .map(|(n, i, e)| json!({"record": n, "interception_point": point(&record.records[*n]), "input_identity": i, "enforced_identity": e}))
        .collect();
    if want_equal && !differing.is_empty() {
        failures.push(AssertionFailure::mismatch(
            "identities_equal",
            "input and enforced identities differ",
            &json!([]),
            Some(&Value::Array(differing)),
        ));
    } else if !want_equal && differing.is_empty() {
        failures.push(AssertionFailure::message("identities_equal", "expected some record whose enforced identity differs from its input identity; all are equal"));
    }
}

/// The implicit identity check: every record that names `jcs-sha256` and
/// carries an `input_identity` must carry the identity the kit computes
/// (§10.2, independently of any host) over the context interceptor 0
/// received at that emission, matched by point and `sequence`.
///
/// §10.3 makes `input_identity` the provider's output over the context
/// before dispatch, and interceptor 0, first in every chain, receives that
/// very context, so a conformant host cannot differ. Only the caller knows
/// that interceptor 0 is first ([`Observed`](crate::assert::Observed)).
/// A record no recorded context matches (an emission not dispatched, or not
/// to interceptor 0) is left to the other checks.
pub fn check_input_identities(
    record: &RunRecord,
    recorded: &[Value],
    failures: &mut Vec<AssertionFailure>,
) {
    for (n, r) in record.records.iter().enumerate() {
        if r.get("identity_provider").and_then(Value::as_str) != Some("jcs-sha256") {
            continue;
        }
        let Some(claimed) = r.get("input_identity").and_then(Value::as_str) else {
            continue;
        };
        let Some(context) = recorded.iter().find(|c| {
            point(c) == point(r)
                && c.get("sequence").is_some()
                && r.get("sequence")
                    .is_some_and(|s| json_eq(s, &c["sequence"]))
        }) else {
            continue;
        };
        let key = "input_identity";
        match context_identity(context) {
            Ok(id) if id == claimed => {}
            Ok(id) => failures.push(AssertionFailure::mismatch(
                key,
                format!(
                    "record #{n} ({}): its jcs-sha256 input identity is not the one computed over the context interceptor 0 received (sequence {})",
                    point(r),
                    r.get("sequence").unwrap_or(&Value::Null)
                ),
                &Value::String(id),
                Some(&Value::String(claimed.to_owned())),
            )),
            Err(e) => failures.push(AssertionFailure::message(
                key,
                format!(
                    "record #{n} ({}) carries a jcs-sha256 input identity, but the context interceptor 0 received has none: {e}",
                    point(r)
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctk_agent_hooks_adapter::RunOutcome;

    fn context(sequence: u64) -> Value {
        json!({"spec": "agent-hooks/0.1", "interception_point": "pre_tool_call", "timestamp": "2026-01-01T00:00:00.000Z",
               "sequence": sequence, "agent": {"id": "a", "framework": "f", "name": "dropped"}, "session": {"id": "s"},
               "target": {"q": "caf\u{e9} \"quoted\"\n", "n": [1, 2.5, -0.0]},
               "tool_call": {"id": "tc", "name": "lookup", "args": {"q": "caf\u{e9} \"quoted\"\n", "n": [1, 2.5, -0.0]}}})
    }

    fn run_with(records: Vec<Value>) -> RunRecord {
        let mut run = RunRecord::new(RunOutcome::Completed);
        run.records = records;
        run
    }

    fn record(provider: &str, identity: &str, sequence: u64) -> Value {
        json!({"interception_point": "pre_tool_call", "sequence": sequence, "identity_provider": provider,
               "input_identity": identity, "enforced_identity": identity})
    }

    fn failures(run: &RunRecord, recorded: &[Value]) -> Vec<AssertionFailure> {
        let mut failures = Vec::new();
        check_input_identities(run, recorded, &mut failures);
        failures
    }

    #[test]
    fn the_identity_of_the_dispatched_context_passes() {
        let id = context_identity(&context(4)).expect("an identity");
        let run = run_with(vec![record("jcs-sha256", &id, 4)]);
        assert_eq!(failures(&run, &[context(3), context(4)]), Vec::new());
    }

    #[test]
    fn a_self_consistent_but_wrong_identity_fails_with_both_values() {
        // The identity of another emission: well formed, just not this one's.
        let other = context_identity(&context(3)).expect("an identity");
        let run = run_with(vec![record("jcs-sha256", &other, 4)]);
        let got = failures(&run, &[context(4)]);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].key, "input_identity");
        assert!(
            got[0].message.contains("record #0 (pre_tool_call)"),
            "{got:#?}"
        );
        assert_eq!(
            got[0].expected,
            Some(Value::String(context_identity(&context(4)).unwrap()))
        );
        assert_eq!(got[0].actual, Some(Value::String(other)));
    }

    #[test]
    fn an_identity_over_a_context_outside_the_domain_fails() {
        let mut ctx = context(4);
        ctx["tool_call"]["args"]["n"] = json!(9_007_199_254_740_993_u64);
        let run = run_with(vec![record("jcs-sha256", "sha256:00", 4)]);
        let got = failures(&run, &[ctx]);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert!(got[0].message.contains("has none"), "{got:#?}");
    }

    #[test]
    fn other_providers_null_identities_and_unmatched_records_are_left_alone() {
        let run = run_with(vec![
            record("ctk-fault", "sha256:00", 4),
            json!({"interception_point": "pre_tool_call", "sequence": 4, "identity_provider": "jcs-sha256",
                   "input_identity": null, "enforced_identity": null}),
            record("jcs-sha256", "sha256:00", 5),
            json!({"interception_point": "post_tool_call", "sequence": 4, "identity_provider": "jcs-sha256",
                   "input_identity": "sha256:00"}),
        ]);
        assert_eq!(failures(&run, &[context(4)]), Vec::new());
    }

    fn forms(expected: Value, actual: Value) -> Vec<AssertionFailure> {
        let mut e = expected;
        e["interception_point"] = json!("pre_tool_call");
        let e: ExpectedRecord = serde_json::from_value(e).expect("an expected record");
        let mut failures = Vec::new();
        check_freedom_forms("records[0]", &actual, &e, &mut failures);
        check_choice_forms("records[0]", &actual, &e, &mut failures);
        failures
    }

    #[test]
    fn one_of_accepts_each_allowed_value_and_absence_only_with_null() {
        let want = json!({"one_of": {"resolved_by": [null, "rejection"]}});
        for ok in [
            json!({}),
            json!({"resolved_by": null}),
            json!({"resolved_by": "rejection"}),
        ] {
            assert_eq!(forms(want.clone(), ok.clone()), Vec::new(), "{ok}");
        }
        let got = forms(want, json!({"resolved_by": ""}));
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].key, "records[0].one_of.\"resolved_by\"");
        let numbers = json!({"one_of": {"sequence": [1]}});
        assert_eq!(forms(numbers.clone(), json!({"sequence": 1.0})), Vec::new());
        assert_eq!(forms(numbers, json!({})).len(), 1);
    }

    #[test]
    fn types_accepts_the_listed_types_and_absence_only_when_listed() {
        let want = json!({"types": {"verdicts[0].name": ["absent", "string"]}});
        for ok in [
            json!({"verdicts": [{}]}),
            json!({"verdicts": [{"name": "guard"}]}),
        ] {
            assert_eq!(forms(want.clone(), ok.clone()), Vec::new(), "{ok}");
        }
        for bad in [
            json!({"verdicts": [{"name": null}]}),
            json!({"verdicts": [{"name": 0}]}),
        ] {
            let got = forms(want.clone(), bad.clone());
            assert_eq!(got.len(), 1, "{bad}");
            assert!(
                got[0].message.contains("a type the text does not allow"),
                "{got:#?}"
            );
        }
        let present = json!({"types": {"verdicts": ["array"]}});
        assert_eq!(forms(present, json!({})).len(), 1);
    }

    #[test]
    fn absent_or_null_accepts_both_spellings_and_nothing_else() {
        let want = json!({"absent_or_null": ["resolved_by"]});
        assert_eq!(forms(want.clone(), json!({})), Vec::new());
        assert_eq!(
            forms(want.clone(), json!({"resolved_by": null})),
            Vec::new()
        );
        let got = forms(want, json!({"resolved_by": "approval"}));
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].key, "records[0].absent_or_null.\"resolved_by\"");
        assert_eq!(got[0].actual, Some(json!("approval")));
    }

    #[test]
    fn no_entries_accepts_absent_or_empty_and_refuses_entries_or_other_types() {
        let want = json!({"no_entries": ["verdicts"]});
        assert_eq!(forms(want.clone(), json!({})), Vec::new());
        assert_eq!(forms(want.clone(), json!({"verdicts": []})), Vec::new());
        assert_eq!(forms(want.clone(), json!({"verdicts": [{}]})).len(), 1);
        assert_eq!(forms(want.clone(), json!({"verdicts": null})).len(), 1);
        assert_eq!(forms(want, json!({"verdicts": {}})).len(), 1);
    }

    #[test]
    fn same_members_ignores_order_but_not_multiplicity_or_values() {
        let want = json!({"same_members": {"verdict.result_labels": ["a", "b", 1]}});
        let ok = json!({"verdict": {"result_labels": [1.0, "b", "a"]}});
        assert_eq!(forms(want.clone(), ok), Vec::new());
        for bad in [
            json!({"verdict": {"result_labels": ["a", "b"]}}),
            json!({"verdict": {"result_labels": ["a", "a", 1]}}),
            json!({"verdict": {"result_labels": ["a", "b", 1, 1]}}),
            json!({"verdict": {"result_labels": "a b 1"}}),
            json!({"verdict": {}}),
        ] {
            assert_eq!(forms(want.clone(), bad.clone()).len(), 1, "{bad}");
        }
    }

    #[test]
    fn contains_needs_every_part_in_a_string() {
        let want = json!({"contains": {"verdict.message": ["timeout", "5000"]}});
        let ok = json!({"verdict": {"message": "interceptor 0: timeout after 5000 ms"}});
        assert_eq!(forms(want.clone(), ok), Vec::new());
        let got = forms(want.clone(), json!({"verdict": {"message": "timed out"}}));
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].expected, Some(json!(["timeout", "5000"])));
        assert_eq!(
            forms(want.clone(), json!({"verdict": {"message": 5000}})).len(),
            1
        );
        assert_eq!(forms(want, json!({"verdict": {}})).len(), 1);
    }
}
