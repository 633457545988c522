//! `records` (forward scan by point) and `identities_equal` (over the
//! records' `input_identity` / `enforced_identity` pairs).

use ctk_harness_protocol::RunRecord;
use serde_json::{json, Value};

use crate::assert::check::{check_paths, forward_scan, point};
use crate::assert::AssertionFailure;
use crate::json_path::lookup;
use crate::vector::model::Expect;

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
