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
    let groups = crate::report::rules::gating_groups(report);
    if !groups.is_empty() {
        let _ = writeln!(
            s,
            "## Failures by rule\n\n\
             One line per assertion that failed in gating vectors, the most widespread first, \
             with the clauses every one of those vectors cites.\n"
        );
        for g in &groups {
            let ids: Vec<&str> = g.vectors.iter().map(|v| v.id.as_str()).collect();
            let n = g.vectors.len();
            let _ = writeln!(
                s,
                "- **{n} vector{}**: `{}`: {} ({})",
                if n == 1 { "" } else { "s" },
                g.key,
                g.message,
                ids.join(", ")
            );
            for c in &g.clauses {
                let _ = writeln!(s, "  - {}", c.line());
            }
        }
        s.push('\n');
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
            let excused = v
                .baseline
                .as_ref()
                .map(|b| {
                    format!(
                        " (baseline: {}; owner {}; expires {})",
                        b.reason, b.owner, b.expires
                    )
                })
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "- `{}` ({}) **{}**{advisory}{excused}: {}",
                v.id,
                v.part,
                v.status.as_str(),
                v.reason
            );
            for c in &v.clauses {
                let _ = writeln!(s, "  - {}", c.line());
            }
        }
        s.push('\n');
    }
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            s,
            "## Baseline\n\n\
             The run applied the baseline {} (`{}`, {} entries): {} expected failure(s). \
             A baselined report is never claimable.\n",
            b.source,
            b.sha256,
            b.entries,
            report.totals.expected_fail + report.advisory_totals.expected_fail
        );
        for (kind, problems) in [("stale", &b.stale), ("expired", &b.expired)] {
            for p in problems {
                let _ = writeln!(s, "- `{}` **{kind}** (fails the run): {}", p.id, p.detail);
            }
        }
        if b.fails_run() {
            s.push('\n');
        }
    }
    if let Some(p) = &report.partition {
        let shards: Vec<String> = p.shards.iter().map(usize::to_string).collect();
        let _ = writeln!(
            s,
            "## Partition\n\nThis report holds shard(s) {} of {} ({} partition) of {} vectors \
             (`{}`); `ctk merge` the shards' reports for the whole run.\n",
            shards.join(", "),
            p.of,
            p.scheme,
            p.set.count,
            p.set.sha256
        );
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
    // The expected-fail column only when a baseline excused something, so
    // a report without one reads as before.
    let expected = total.expected_fail > 0;
    let cell = |t: Totals| {
        if expected {
            format!(" {} |", t.expected_fail)
        } else {
            String::new()
        }
    };
    let _ = writeln!(
        s,
        "| part | pass | fail | skip | error |{}\n| --- | ---: | ---: | ---: | ---: |{}",
        if expected { " expected-fail |" } else { "" },
        if expected { " ---: |" } else { "" }
    );
    for p in &report.parts {
        let t = counts(p);
        if t.count() > 0 {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |{}",
                p.part,
                t.pass,
                t.fail,
                t.skip,
                t.error,
                cell(t)
            );
        }
    }
    let _ = writeln!(
        s,
        "| **total** | {} | {} | {} | {} |{}\n",
        total.pass,
        total.fail,
        total.skip,
        total.error,
        cell(total)
    );
}
