//! `expect.load`: the declaration load outcome.

use serde_json::json;

use crate::assert::{AssertionFailure, Observed};
use crate::vector::model::Expect;
use ctk_agent_hooks_adapter::LoadOutcome;

/// Whether the remaining assertions run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Continue {
    /// Go on.
    Go,
    /// Stop: a refusal (expected or not) ends the checks.
    Stop,
}

/// Check `expect.load` against the host's load record.
pub fn check(
    expect: &Expect,
    observed: Observed<'_>,
    failures: &mut Vec<AssertionFailure>,
) -> Continue {
    let Some(actual) = &observed.record.load else {
        if let Some(want) = &expect.load {
            failures.push(AssertionFailure::mismatch(
                "load",
                "the host reported no load outcome",
                &json!(want.outcome),
                None,
            ));
        }
        return Continue::Go;
    };
    let outcome = match actual.outcome {
        LoadOutcome::Accepted => "accepted",
        LoadOutcome::Refused => "refused",
    };
    if actual.paths_equivalent == Some(false) {
        failures.push(AssertionFailure::message(
            "load.paths_equivalent",
            format!(
                "construction paths disagree: {}",
                actual.detail.as_deref().unwrap_or("no detail")
            ),
        ));
    }
    let Some(want) = &expect.load else {
        if actual.outcome == LoadOutcome::Refused {
            failures.push(AssertionFailure::mismatch(
                "load",
                format!(
                    "declaration refused ({}) but the vector expects it to load",
                    actual.class.as_deref().unwrap_or("no class")
                ),
                &json!("accepted"),
                Some(&json!(outcome)),
            ));
            return Continue::Stop;
        }
        return Continue::Go;
    };
    if want.outcome != outcome {
        failures.push(AssertionFailure::mismatch(
            "load.outcome",
            "load outcome differs",
            &json!(want.outcome),
            Some(&json!(outcome)),
        ));
    }
    if let Some(class) = &want.class {
        if actual.class.as_deref() != Some(class.as_str()) {
            failures.push(AssertionFailure::mismatch(
                "load.class",
                "refusal class differs",
                &json!(class),
                Some(&json!(actual.class)),
            ));
        }
    }
    if let Some(eq) = want.paths_equivalent {
        if actual.paths_equivalent != Some(eq) {
            failures.push(AssertionFailure::mismatch(
                "load.paths_equivalent",
                "path equivalence differs",
                &json!(eq),
                Some(&json!(actual.paths_equivalent)),
            ));
        }
    }
    if actual.outcome == LoadOutcome::Refused {
        // A detail the host left out cannot name anything: each wanted
        // string is then missing, never assumed.
        let detail = actual.detail.as_deref().unwrap_or("");
        let missing: Vec<&String> = want
            .detail_contains
            .iter()
            .filter(|s| !detail.contains(s.as_str()))
            .collect();
        if !missing.is_empty() {
            failures.push(AssertionFailure::mismatch(
                "load.detail_contains",
                if actual.detail.is_none() {
                    "the host reported no refusal detail to search".to_owned()
                } else {
                    "the refusal's detail does not name what its class requires".to_owned()
                },
                &json!(missing),
                actual.detail.as_ref().map(|d| json!(d)).as_ref(),
            ));
        }
        if !observed.recorded.is_empty() {
            failures.push(AssertionFailure::message(
                "load",
                format!(
                    "refused declaration, yet {} context(s) reached interceptor 0",
                    observed.recorded.len()
                ),
            ));
        }
        if !observed.record.records.is_empty() {
            failures.push(AssertionFailure::message(
                "load",
                format!(
                    "refused declaration, yet {} record(s) were written",
                    observed.record.records.len()
                ),
            ));
        }
        return Continue::Stop;
    }
    Continue::Go
}
