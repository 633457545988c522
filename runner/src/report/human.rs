//! Terminal rendering: one line per finished vector, failure details with
//! diffs, and a summary.

use std::fmt::Write as _;

use crate::assert::diff;
use crate::outcome::{Status, VectorOutcome};
use crate::report::model::Report;

/// One line for a finished vector.
pub fn vector_line(outcome: &VectorOutcome) -> String {
    let label = match outcome.status {
        Status::Pass => "PASS ",
        Status::Fail => "FAIL ",
        Status::Skip => "SKIP ",
        Status::Error => "ERROR",
    };
    let mut line = format!(
        "{label} {} ({} ms)",
        outcome.id,
        outcome.duration.as_millis()
    );
    if !outcome.reason.is_empty() {
        let _ = write!(line, ": {}", outcome.reason);
    }
    line
}

/// Details of every failure, then the totals.
pub fn summary(report: &Report) -> String {
    let mut s = String::new();
    for v in report.vectors.iter().filter(|v| v.status == Status::Fail) {
        let _ = writeln!(s, "\n--- {} ({}) failed: {}", v.id, v.part, v.title);
        for f in &v.failures {
            let _ = writeln!(s, "  {}: {}", f.key, f.message);
            if let Some(d) = &f.diff {
                for line in d.lines() {
                    let _ = writeln!(s, "    {line}");
                }
            } else if let Some(a) = &f.actual {
                let _ = writeln!(s, "    actual: {}", diff::pretty(a));
            }
        }
    }
    let t = report.totals;
    let _ = writeln!(
        s,
        "\n{} vectors: {} passed, {} failed, {} skipped, {} errors ({} applicable) against {}",
        report.vectors.len(),
        t.pass,
        t.fail,
        t.skip,
        t.error,
        t.applicable(),
        report.spec
    );
    s
}
