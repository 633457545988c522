//! [`assert_vector`]: every key, in pass order.

use ctk_agent_hooks_adapter::RunRecord;
use serde_json::Value;

use crate::assert::{approval, interceptions, load, records, run};
use crate::declaration::Posture;
use crate::vector::model::Expect;

pub use ctk_core::outcome::AssertionFailure;

/// Check that every dotted `path` of `expected` resolves in `actual` to an
/// equal value (numbers by value); each miss becomes a failure keyed
/// `<key>.<path>`. Shared by `interceptions[].context` and `records[].assert`.
pub(crate) fn check_paths<'a>(
    key: &str,
    actual: &Value,
    expected: impl IntoIterator<Item = (&'a String, &'a Value)>,
    failures: &mut Vec<AssertionFailure>,
) {
    for (path, want) in expected {
        match crate::json_path::lookup(actual, path) {
            Some(got) if crate::json_path::json_eq(got, want) => {}
            got => failures.push(AssertionFailure::mismatch(
                format!("{key}.{path:?}"),
                if got.is_some() {
                    "value differs"
                } else {
                    "path does not resolve"
                },
                want,
                got,
            )),
        }
    }
}

/// The `interception_point` of a recorded context or record (`?` if none).
pub(crate) fn point(value: &Value) -> &str {
    value
        .get("interception_point")
        .and_then(Value::as_str)
        .unwrap_or("?")
}

/// Pair each expected item with the first actual value at its point after
/// the previous pair's (a forward scan by point). The scan stops at the
/// first expected item without such a value: its index is returned too.
pub(crate) fn forward_scan<'e, 'a, E>(
    expected: &'e [E],
    point_of: impl Fn(&E) -> &str,
    actual: &'a [Value],
) -> (Vec<(usize, &'e E, &'a Value)>, Option<usize>) {
    let mut pairs = Vec::new();
    let mut next = 0;
    for (i, e) in expected.iter().enumerate() {
        let Some(offset) = actual[next..].iter().position(|v| point(v) == point_of(e)) else {
            return (pairs, Some(i));
        };
        pairs.push((i, e, &actual[next + offset]));
        next += offset + 1;
    }
    (pairs, None)
}

/// Everything the assertions look at.
#[derive(Debug, Clone, Copy)]
pub struct Observed<'a> {
    /// What the host reported.
    pub record: &'a RunRecord,
    /// Contexts interceptor 0 received.
    pub recorded: &'a [Value],
    /// Approval requests the kit's resolver received, in arrival order.
    pub approval_requests: &'a [Value],
    /// The declared tool-seam posture.
    pub posture: Posture,
    /// Whether interceptor 0 runs first at every point (the setup's
    /// `interceptors` list, not a declaration's per-point bindings), so the
    /// context it received is the one the host identified before dispatch.
    pub interceptor_zero_first: bool,
}

/// Check every key of `expect`; an empty list means pass.
pub fn assert_vector(expect: &Expect, observed: Observed<'_>) -> Vec<AssertionFailure> {
    let mut failures = Vec::new();
    if load::check(expect, observed, &mut failures) == load::Continue::Stop {
        return failures;
    }
    interceptions::check(
        expect,
        observed.recorded,
        Some(observed.record.records.as_slice()),
        &mut failures,
    );
    run::check(expect, observed, &mut failures);
    run::check_notices(expect, observed.record, &mut failures);
    records::check_records(expect, observed.record, &mut failures);
    interceptions::check_sequence(observed.recorded, &mut failures);
    records::check_identities(expect, observed.record, &mut failures);
    if observed.interceptor_zero_first {
        records::check_input_identities(observed.record, observed.recorded, &mut failures);
    }
    approval::check_requests(observed.approval_requests, &mut failures);
    failures
}
