//! `report.md`: per-part table, what did not pass, and the CLAIMS.md row.
//! Carries no durations, so it is reproducible.

use std::fmt::Write as _;

use crate::outcome::Status;
use crate::report::claim;
use crate::report::model::Report;

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
    let _ = writeln!(
        s,
        "| part | pass | fail | skip | error |\n| --- | ---: | ---: | ---: | ---: |"
    );
    for p in &report.parts {
        let t = p.totals;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            p.part, t.pass, t.fail, t.skip, t.error
        );
    }
    let t = report.totals;
    let _ = writeln!(
        s,
        "| **total** | {} | {} | {} | {} |\n",
        t.pass, t.fail, t.skip, t.error
    );
    let not_passed: Vec<_> = report
        .vectors
        .iter()
        .filter(|v| v.status != Status::Pass)
        .collect();
    if !not_passed.is_empty() {
        let _ = writeln!(s, "## Not passed\n");
        for v in not_passed {
            let _ = writeln!(
                s,
                "- `{}` ({}) **{}**: {}",
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
        let _ = writeln!(s, "{}\n{}", claim::CLAIM_HEADER, claim::row(report));
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
