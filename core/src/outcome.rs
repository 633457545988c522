//! The result of one vector.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use serde_json::Value;

use crate::diff;

/// Pass, fail, skip or error; `expected-fail` only in a report, for a
/// failure a `--baseline` entry names (the engine never yields it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every expectation held.
    Pass,
    /// At least one expectation failed: non-conformance.
    Fail,
    /// The vector does not apply to the declared surface.
    Skip,
    /// The host or the link failed; says nothing about conformance.
    Error,
    /// A failure that a `--baseline` entry (still in date) names: it does
    /// not fail the run, yet counts as a failure for a claim, so a report
    /// holding one is never claimable. Set by `ctk_report::baseline`
    /// on a report, never by the engine.
    #[serde(rename = "expected-fail")]
    ExpectedFail,
}

impl Status {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Error => "error",
            Status::ExpectedFail => "expected-fail",
        }
    }
}

/// Reason given for a vector an interrupted run never started.
pub const NOT_RUN_INTERRUPTED: &str = "not run: the run was interrupted";

/// Reason given for a vector `--fail-fast` never started.
pub const NOT_RUN_FAIL_FAST: &str = "not run: --fail-fast stopped the run after a failure";

/// Whether an outcome's reason says the vector never ran (an interrupted
/// or fail-fast run); such errors say nothing about the subject.
pub fn never_ran(reason: &str) -> bool {
    reason == NOT_RUN_INTERRUPTED || reason == NOT_RUN_FAIL_FAST
}

/// Where an error's reason starts the subject's stderr tail, and what joins
/// its lines: a report keeps the tail inside the reason, and a page that
/// shows it apart splits it back out with [`split_stderr_tail`].
const STDERR_MARKER: &str = "; host stderr (last lines): ";
const STDERR_SEPARATOR: &str = " | ";

/// `reason` with the subject's last stderr lines appended (unchanged when
/// there are none).
pub fn with_stderr_tail(reason: &str, lines: &[String]) -> String {
    if lines.is_empty() {
        return reason.to_owned();
    }
    format!("{reason}{STDERR_MARKER}{}", lines.join(STDERR_SEPARATOR))
}

/// An error's reason apart from the stderr tail [`with_stderr_tail`] put in
/// it, and the tail's lines (`None`: the reason carries none).
pub fn split_stderr_tail(reason: &str) -> (&str, Option<Vec<&str>>) {
    match reason.split_once(STDERR_MARKER) {
        Some((reason, tail)) => (reason, Some(tail.split(STDERR_SEPARATOR).collect())),
        None => (reason, None),
    }
}

/// What happened to one vector.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorOutcome {
    /// Vector id.
    pub id: String,
    /// Status.
    pub status: Status,
    /// Skip reason, harness error, or a one-line failure summary; empty on pass.
    pub reason: String,
    /// The failed expectations (status `fail`).
    pub failures: Vec<AssertionFailure>,
    /// Wall time spent on the vector.
    pub duration: Duration,
    /// The adapter feature whose absence skipped the vector
    /// ([`crate::features`]); `None` for every other outcome. A report
    /// holding one is never claimable: a partial adapter must not claim.
    pub adapter_feature: Option<String>,
}

impl VectorOutcome {
    /// Build an outcome from assertion failures.
    pub fn from_failures(id: &str, failures: Vec<AssertionFailure>, duration: Duration) -> Self {
        let (status, reason) = match failures.as_slice() {
            [] => (Status::Pass, String::new()),
            [one] => (Status::Fail, format!("{}: {}", one.key, one.message)),
            [first, rest @ ..] => (
                Status::Fail,
                format!("{}: {} (and {} more)", first.key, first.message, rest.len()),
            ),
        };
        Self {
            id: id.to_owned(),
            status,
            reason,
            failures,
            duration,
            adapter_feature: None,
        }
    }

    /// A skipped vector.
    pub fn skip(id: &str, reason: String) -> Self {
        Self {
            id: id.to_owned(),
            status: Status::Skip,
            reason,
            failures: Vec::new(),
            duration: Duration::ZERO,
            adapter_feature: None,
        }
    }

    /// A vector skipped because the subject's adapter lacks `feature`;
    /// `reason` names it ([`crate::features::Feature::skip_reason`]).
    pub fn lacks_feature(id: &str, feature: &str, reason: String) -> Self {
        Self {
            adapter_feature: Some(feature.to_owned()),
            ..Self::skip(id, reason)
        }
    }

    /// A vector that ended in a host or harness error.
    pub fn error(id: &str, reason: String, duration: Duration) -> Self {
        Self {
            id: id.to_owned(),
            status: Status::Error,
            reason,
            failures: Vec::new(),
            duration,
            adapter_feature: None,
        }
    }
}

/// What the text outputs show of a failure's values: the diff when both
/// values are there, else each value there is, with an expected value
/// whose actual is missing shown against `(absent)`, so that no output
/// drops the expected value of a path that does not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// A unified diff of expected against actual.
    Diff(String),
    /// `expected: ...` and `actual: ...` lines, pretty-printed JSON.
    Values(String),
    /// No value to show.
    Nothing,
}

/// One failed expectation: which key, what went wrong, expected against actual.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssertionFailure {
    /// The expect key, e.g. `records[1].assert."verdict.reason"`.
    pub key: String,
    /// What went wrong.
    pub message: String,
    /// The expected value, when there is one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub expected: Option<Value>,
    /// The actual value, when there is one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub actual: Option<Value>,
    /// Unified diff of expected against actual, when both are present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// A member that is present is `Some`, even when it is `null`: an expected
/// or actual `null` is a value, and only an absent member is none (a report
/// read back, from its spool or its file, must show what was written).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl AssertionFailure {
    /// What a text output shows of this failure's values ([`Shown`]).
    pub fn shown(&self) -> Shown {
        if let Some(d) = &self.diff {
            return Shown::Diff(d.clone());
        }
        let mut text = String::new();
        if let Some(e) = &self.expected {
            text.push_str(&format!("expected: {}\n", diff::pretty(e)));
            if self.actual.is_none() {
                text.push_str("actual: (absent)\n");
            }
        }
        if let Some(a) = &self.actual {
            text.push_str(&format!("actual: {}\n", diff::pretty(a)));
        }
        if text.is_empty() {
            Shown::Nothing
        } else {
            Shown::Values(text)
        }
    }

    /// A failure without values.
    pub fn message(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
            expected: None,
            actual: None,
            diff: None,
        }
    }

    /// A failure comparing `expected` with `actual` (absent when `None`).
    pub fn mismatch(
        key: impl Into<String>,
        message: impl Into<String>,
        expected: &Value,
        actual: Option<&Value>,
    ) -> Self {
        let diff = actual.map(|a| diff::json_diff(expected, a));
        Self {
            key: key.into(),
            message: message.into(),
            expected: Some(expected.clone()),
            actual: actual.cloned(),
            diff,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stderr_tail_splits_back_into_the_lines_it_was_joined_from() {
        let lines = vec!["first <line>".to_owned(), "second".to_owned()];
        let reason = with_stderr_tail("harness error: exited", &lines);
        assert_eq!(
            split_stderr_tail(&reason),
            (
                "harness error: exited",
                Some(vec!["first <line>", "second"])
            )
        );
        assert_eq!(with_stderr_tail("plain", &[]), "plain");
        assert_eq!(split_stderr_tail("plain"), ("plain", None));
    }

    #[test]
    fn an_expected_value_with_nothing_there_is_shown_against_absent() {
        let f = AssertionFailure::mismatch("k", "path does not resolve", &json!({"a": 1}), None);
        assert_eq!(
            f.shown(),
            Shown::Values("expected: {\n  \"a\": 1\n}\nactual: (absent)\n".into())
        );
        let both = AssertionFailure::mismatch("k", "differs", &json!(1), Some(&json!(2)));
        assert!(matches!(both.shown(), Shown::Diff(_)));
        assert_eq!(AssertionFailure::message("k", "m").shown(), Shown::Nothing);
    }

    #[test]
    fn a_null_expected_or_actual_survives_a_round_trip_and_an_absent_one_stays_absent() {
        let nulls = AssertionFailure::mismatch("k", "differs", &Value::Null, Some(&Value::Null));
        let text = serde_json::to_string(&nulls).expect("JSON");
        assert!(text.contains(r#""expected":null"#) && text.contains(r#""actual":null"#));
        let back: AssertionFailure = serde_json::from_str(&text).expect("read back");
        assert_eq!(back, nulls);
        let absent = AssertionFailure::mismatch("k", "path does not resolve", &Value::Null, None);
        let back: AssertionFailure =
            serde_json::from_str(&serde_json::to_string(&absent).expect("JSON")).expect("back");
        assert_eq!(back.actual, None);
        assert_eq!(back.shown(), absent.shown());
    }

    #[test]
    fn only_the_loop_s_own_reasons_say_a_vector_never_ran() {
        assert!(never_ran(NOT_RUN_INTERRUPTED) && never_ran(NOT_RUN_FAIL_FAST));
        assert!(!never_ran("harness error: exited"));
    }
}
