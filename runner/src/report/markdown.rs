//! `report.md`: per-part table of the gating vectors, a second table of the
//! advisory ones (only when there are any), what did not pass (advisory
//! entries marked with their decision), and the CLAIMS.md row.
//! Carries no durations, so it is reproducible.

use std::fmt::Write as _;

use crate::outcome::Status;
use crate::report::claim;
use crate::report::model::{PartTotals, Report, Totals};

/// Render the Markdown report.
pub fn render(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# ctk report: {} {} against {}\n",
        report.host.name, report.host.version, report.spec
    );
    let _ = writeln!(
        s,
        "Runner ctk {}; vectors {} ({}, `{}`); declaration {} (`{}`).\n",
        report.runner.version,
        report.vector_set.source,
        report.vector_set.count,
        report.vector_set.sha256,
        report.declaration.source,
        report.declaration.sha256
    );
    table(&mut s, report, |p| p.totals, report.totals);
    if report.advisory_totals.count() > 0 {
        let _ = writeln!(
            s,
            "## Advisory (never blocks a claim)\n\n\
             Advisory vectors pin the project's preferred reading where the spec text allows \
             several (the decision each names is in DECISIONS.md); their results never change \
             the exit code and never block a claim.\n"
        );
        table(&mut s, report, |p| p.advisory, report.advisory_totals);
    }
    let not_passed: Vec<_> = report
        .vectors
        .iter()
        .filter(|v| v.status != Status::Pass)
        .collect();
    if !not_passed.is_empty() {
        let _ = writeln!(s, "## Not passed\n");
        for v in not_passed {
            let advisory = v
                .advisory
                .as_ref()
                .map(|d| format!(" (advisory, {d})"))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "- `{}` ({}) **{}**{advisory}: {}",
                v.id,
                v.part,
                v.status.as_str(),
                v.reason
            );
        }
        s.push('\n');
    }
    let _ = writeln!(s, "## CLAIMS.md row\n");
    let refusals = claim::refusals(report, &[]);
    if refusals.is_empty() {
        let _ = writeln!(s, "{}\n{}", claim::header(report), claim::row(report));
    } else {
        let _ = writeln!(s, "No claim can be made from this report:\n");
        for r in refusals {
            let _ = writeln!(s, "- {r}");
        }
    }
    let _ = writeln!(
        s,
        "\nReport digest `{}`; results digest `{}`.",
        report.digest, report.results_digest
    );
    s
}

/// One per-part table of counts (`counts` picks the gating or the advisory
/// column of a part), leaving out parts with nothing to count in it.
fn table(s: &mut String, report: &Report, counts: impl Fn(&PartTotals) -> Totals, total: Totals) {
    let _ = writeln!(
        s,
        "| part | pass | fail | skip | error |\n| --- | ---: | ---: | ---: | ---: |"
    );
    for p in &report.parts {
        let t = counts(p);
        if t.count() > 0 {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                p.part, t.pass, t.fail, t.skip, t.error
            );
        }
    }
    let _ = writeln!(
        s,
        "| **total** | {} | {} | {} | {} |\n",
        total.pass, total.fail, total.skip, total.error
    );
}
