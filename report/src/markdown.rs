//! `report.md`: per-part table of the gating vectors, a second table of the
//! advisory ones (only when there are any), what did not pass (advisory
//! entries marked with their decision, each failure with its diff of
//! expected against actual), and the CLAIMS.md row.
//! Carries no durations, so it is reproducible.

use std::fmt::Write as _;

use crate::claim;
use crate::model::{PartTotals, Report, Totals};
use ctk_core::outcome::{AssertionFailure, Shown, Status};

/// Render the Markdown report.
pub fn render(report: &Report, released: claim::ReleasedSets) -> String {
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
    let groups = crate::rules::gating_groups(report);
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
    let gaps = report.feature_gaps();
    if !gaps.is_empty() {
        let _ = writeln!(
            s,
            "## Adapter features not implemented\n\n\
             The subject's adapter does not announce these features, so the vectors needing \
             them were skipped, not failed (the exit code counts only the vectors that ran). A \
             partial adapter must not claim conformance (§13.1), so no claim can be made from \
             this report.\n"
        );
        for g in &gaps {
            let _ = writeln!(
                s,
                "- **{}**: {} vector(s) skipped ({})",
                g.feature,
                g.vectors.len(),
                g.vectors.join(", ")
            );
            for c in &g.clauses {
                let _ = writeln!(s, "  - left unchecked: {}", c.line());
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
            failures_block(&mut s, &v.failures);
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
    let refusals = claim::refusals(report, &[], released);
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

/// Each failed expectation of a vector under its line: the key and message,
/// then the diff of expected against actual (or the one value there is) in
/// a fenced block, so a reader sees what differed without the JSON.
fn failures_block(s: &mut String, failures: &[AssertionFailure]) {
    for f in failures {
        let _ = writeln!(s, "  - `{}`: {}", f.key.replace('`', "'"), f.message);
        let (language, body) = match f.shown() {
            Shown::Diff(d) => ("diff", d),
            Shown::Values(text) => ("json", text),
            Shown::Nothing => continue,
        };
        // A fence longer than any backtick run inside, so a value holding
        // backticks cannot close the block early.
        let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        let _ = writeln!(s, "\n    {fence}{language}");
        for line in body.lines() {
            let _ = writeln!(s, "    {line}");
        }
        let _ = writeln!(s, "    {fence}\n");
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use ctk_core::outcome::VectorOutcome;
    use ctk_core::set::VectorMeta;
    use ctk_core::suite::Suite;
    use serde_json::json;

    use super::*;
    use crate::build::{build, RunContext};
    use crate::model::HostIdentity;

    fn no_sets(_: Suite) -> Result<&'static [VectorMeta], String> {
        Err("no released set in this test".into())
    }

    #[test]
    fn a_failure_shows_its_diff_in_a_fence_no_value_can_close() {
        let meta = VectorMeta {
            id: "AHP-H-0001".into(),
            title: "t".into(),
            part: "AHP-TB-001".into(),
            file_name: "AHP-H-0001.json".into(),
            sha256: ctk_core::digest::digest_value(&json!(1)).expect("digest"),
            advisory: None,
            covers: Vec::new(),
            role: Some("harness".into()),
        };
        let failure = AssertionFailure::mismatch(
            "triggers[0].outcome",
            "outcome Executed, expected one of [Denied]",
            &json!(["denied"]),
            Some(&json!("exe```cuted")),
        );
        let outcome =
            VectorOutcome::from_failures("AHP-H-0001", vec![failure], Duration::from_millis(1));
        let report = build(
            RunContext {
                spec: "agent-hooks-protocol/0.1".into(),
                host: HostIdentity {
                    name: "h".into(),
                    version: "1".into(),
                    spec_versions: vec!["0.1".into()],
                    features: Vec::new(),
                },
                declaration_source: "command line".into(),
                declaration: json!({}),
                surface: json!({}),
                vector_source: "tests".into(),
                filtered: false,
                started_at: "2026-12-01T08:25:30Z".into(),
                total_ms: 1,
            },
            &[meta],
            &[outcome],
        );
        let md = render(&report, no_sets);
        assert!(
            md.contains("  - `triggers[0].outcome`: outcome Executed, expected one of [Denied]"),
            "{md}"
        );
        assert!(md.contains("\n    ````diff\n"), "{md}");
        assert!(md.contains("    -  \"denied\""), "{md}");
        assert!(md.contains("    +\"exe```cuted\""), "{md}");
    }
}
