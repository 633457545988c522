//! Run-record keys: `run_outcome`, `run_outcome_by_posture`, `final_output`,
//! `tool_invocations`, `tool_not_invoked`, `released_output`,
//! `persisted_must_not_contain`, `persisted_must_contain`, `principal_notices`.

use ctk_agent_hooks_adapter::RunRecord;
use serde_json::{json, Value};

use crate::assert::{AssertionFailure, Observed};
use crate::json_path::json_eq;
use crate::vector::model::Expect;

/// Check `expect.principal_notices`: same length, then each expected member
/// equals the actual member of the notice at the same index.
pub fn check_notices(expect: &Expect, record: &RunRecord, failures: &mut Vec<AssertionFailure>) {
    let Some(want) = &expect.principal_notices else {
        return;
    };
    let got = &record.principal_notices;
    let want_v = Value::Array(want.iter().cloned().map(Value::Object).collect());
    if want.len() != got.len() {
        failures.push(AssertionFailure::mismatch(
            "principal_notices",
            format!(
                "the host gave {} principal notice(s), the vector expects {}",
                got.len(),
                want.len()
            ),
            &want_v,
            Some(&Value::Array(got.clone())),
        ));
        return;
    }
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        let Some(g) = g.as_object() else {
            failures.push(AssertionFailure::mismatch(
                format!("principal_notices[{i}]"),
                "the notice is not an object",
                &Value::Object(w.clone()),
                Some(g),
            ));
            continue;
        };
        for (member, value) in w {
            match g.get(member) {
                Some(actual) if json_eq(value, actual) => {}
                actual => failures.push(AssertionFailure::mismatch(
                    format!("principal_notices[{i}].{member}"),
                    if actual.is_some() {
                        "value differs"
                    } else {
                        "the notice has no such member"
                    },
                    value,
                    actual,
                )),
            }
        }
    }
}

/// Check the run-record keys.
pub fn check(expect: &Expect, observed: Observed<'_>, failures: &mut Vec<AssertionFailure>) {
    let record = observed.record;
    let actual_outcome = json!(record.outcome.as_str());
    let mut want = expect.run_outcome.clone().unwrap_or_default();
    let mut key = "run_outcome".to_owned();
    if let Some(by) = &expect.run_outcome_by_posture {
        if by.posture != "tool_seam_host_error" {
            failures.push(AssertionFailure::message(
                "run_outcome_by_posture.posture",
                format!("unknown posture {:?}", by.posture),
            ));
        }
        let default = by
            .outcomes
            .get("continue")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if default != want {
            failures.push(AssertionFailure::mismatch(
                "run_outcome_by_posture.outcomes.continue",
                "vector authoring error: the default-posture outcome must equal run_outcome",
                &json!(want),
                Some(&json!(default)),
            ));
        }
        let posture = observed.posture.as_str();
        key = format!("run_outcome_by_posture.outcomes.{posture}");
        match by.outcomes.get(posture).and_then(Value::as_str) {
            Some(o) => want = o.to_owned(),
            None => {
                failures.push(AssertionFailure::message(
                    key,
                    format!("no outcome for the declared posture {posture}"),
                ));
                want = String::new();
                key = String::new();
            }
        }
    }
    if !key.is_empty() && json!(want) != actual_outcome {
        let detail = record
            .error
            .as_deref()
            .map(|e| format!(" (host error: {e})"))
            .unwrap_or_default();
        failures.push(AssertionFailure::mismatch(
            key,
            format!("run outcome differs{detail}"),
            &json!(want),
            Some(&actual_outcome),
        ));
    }
    if let Some(want) = &expect.final_output {
        if !json_eq(want, &record.final_output) {
            failures.push(AssertionFailure::mismatch(
                "final_output",
                "final output differs",
                want,
                Some(&record.final_output),
            ));
        }
    }
    if let Some(want) = &expect.tool_invocations {
        let want_v = Value::Array(
            want.iter()
                .map(|i| json!({"name": i.name, "args": i.args}))
                .collect(),
        );
        let got_v = Value::Array(
            record
                .tool_invocations
                .iter()
                .map(|i| json!({"name": i.name, "args": i.args}))
                .collect(),
        );
        if !json_eq(&want_v, &got_v) {
            failures.push(AssertionFailure::mismatch(
                "tool_invocations",
                "tool invocations differ",
                &want_v,
                Some(&got_v),
            ));
        }
    }
    for name in &expect.tool_not_invoked {
        if let Some(n) = record.tool_invocations.iter().position(|i| &i.name == name) {
            failures.push(AssertionFailure::message(
                "tool_not_invoked",
                format!("tool {name:?} was invoked (invocation #{n})"),
            ));
        }
    }
    if let Some(want) = &expect.released_output {
        match &record.released_output {
            // `null`: the run streamed nothing, so the host reports no
            // released output at all (D-19); a host can never report null.
            None if want.is_null() => {}
            Some(got) if json_eq(want, got) => {}
            got => failures.push(AssertionFailure::mismatch(
                "released_output",
                match got {
                    Some(_) if want.is_null() => {
                        "the host reported a released_output, but the run streamed nothing"
                    }
                    Some(_) => "released output differs",
                    None => "the host reported no released_output",
                },
                want,
                got.as_ref(),
            )),
        }
    }
    for (key, needles, must_occur) in [
        (
            "persisted_must_not_contain",
            &expect.persisted_must_not_contain,
            false,
        ),
        (
            "persisted_must_contain",
            &expect.persisted_must_contain,
            true,
        ),
    ] {
        if needles.is_empty() {
            continue;
        }
        // An absent `persisted` is not "nothing persisted": it is nothing
        // reported, and a pass would mean nothing was checked. A host that
        // keeps nothing reports `persisted: {}`.
        let Some(persisted) = record.persisted.as_ref() else {
            failures.push(AssertionFailure::message(
                key,
                "the host reported no `persisted` (a host that keeps nothing reports `persisted: {}`), so nothing could be checked",
            ));
            continue;
        };
        let text = serde_json::to_string(persisted).unwrap_or_default();
        for needle in needles {
            if text.contains(needle.as_str()) != must_occur {
                failures.push(AssertionFailure::message(
                    key,
                    if must_occur {
                        format!("{needle:?} was not persisted")
                    } else {
                        format!("{needle:?} was persisted")
                    },
                ));
            }
        }
    }
}
