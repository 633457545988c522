//! Terminal rendering: one line per finished vector, failure details with
//! diffs, and a summary. Pure text; `cli::terminal` decides where it goes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::Report;
use ctk_core::outcome::{Shown, Status, VectorOutcome};

/// Whether terminal text carries ANSI colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Colour the status labels and the summary.
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// The fixed-width status label, coloured by status.
    pub fn label(self, status: Status) -> String {
        let (code, text) = match status {
            Status::Pass => ("32", "PASS "),
            Status::Fail => ("1;31", "FAIL "),
            Status::Skip => ("33", "SKIP "),
            Status::Error => ("1;35", "ERROR"),
            Status::ExpectedFail => ("36", "XFAIL"),
        };
        self.paint(code, text)
    }
}

/// One line for a finished vector: label, id, title, time (not for skips,
/// which take none) and reason.
pub fn vector_line(outcome: &VectorOutcome, title: &str, style: Style) -> String {
    let mut line = format!("{} {}", style.label(outcome.status), outcome.id);
    if !title.is_empty() {
        let _ = write!(line, " {title}");
    }
    if outcome.status != Status::Skip {
        let _ = write!(line, " ({} ms)", outcome.duration.as_millis());
    }
    if !outcome.reason.is_empty() {
        let _ = write!(line, ": {}", outcome.reason);
    }
    line
}

/// Skip reasons with how many vectors each skipped, most frequent first
/// (ties in reason order), so the summary says why the run checked less.
pub fn skips_by_reason(report: &Report) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for v in report.vectors.iter().filter(|v| v.status == Status::Skip) {
        match counts.get_mut(&v.reason) {
            Some(n) => *n += 1,
            None => {
                counts.insert(v.reason.clone(), 1);
            }
        }
    }
    let mut out: Vec<(String, usize)> = counts.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Details of every failure, then the totals and the skips grouped by reason.
pub fn summary(report: &Report, style: Style) -> String {
    let mut s = String::new();
    for v in report
        .vectors
        .iter()
        .filter(|v| matches!(v.status, Status::Fail | Status::ExpectedFail))
    {
        let advisory = v
            .advisory
            .as_ref()
            .map(|d| format!(" [advisory {d}: never gates]"))
            .unwrap_or_default();
        let label = match &v.baseline {
            Some(b) => style.paint(
                "36",
                &format!(
                    "failed as expected (baseline: {}; owner {}; expires {})",
                    b.reason, b.owner, b.expires
                ),
            ),
            None => style.paint("1;31", "failed"),
        };
        let _ = writeln!(
            s,
            "\n--- {} ({}){advisory} {label}: {}",
            v.id, v.part, v.title
        );
        for f in &v.failures {
            let _ = writeln!(s, "  {}: {}", f.key, f.message);
            match f.shown() {
                Shown::Diff(text) | Shown::Values(text) => {
                    for line in text.lines() {
                        let _ = writeln!(s, "    {line}");
                    }
                }
                Shown::Nothing => {}
            }
        }
        for c in &v.clauses {
            let _ = writeln!(s, "  {}", c.line());
        }
    }
    let t = report.totals;
    let a = report.advisory_totals;
    let advisory = a.applicable() + a.skip;
    let counted = if advisory > 0 {
        format!(
            "{} vectors, {} gating",
            report.vectors.len(),
            report.vectors.len() - advisory
        )
    } else {
        format!("{} vectors", report.vectors.len())
    };
    let _ = writeln!(
        s,
        "\n{counted}: {} passed, {} failed, {} skipped, {} errors ({} applicable) against {}",
        t.pass,
        t.fail,
        t.skip,
        t.error,
        t.applicable(),
        report.spec
    );
    if advisory > 0 {
        let _ = writeln!(
            s,
            "{advisory} advisory (they never gate and never block a claim): {} passed, {} failed, {} skipped, {} errors",
            a.pass, a.fail, a.skip, a.error
        );
    }
    let expected = t.expected_fail + a.expected_fail;
    if expected > 0 {
        let _ = writeln!(
            s,
            "{expected} expected failure(s) excused by a baseline: they do not fail the run, but a baselined report is never claimable"
        );
    }
    if let Some(b) = &report.baseline {
        for (kind, problems) in [("stale", &b.stale), ("expired", &b.expired)] {
            for p in problems {
                let _ = writeln!(
                    s,
                    "{} baseline entry {}: {} ({})",
                    style.paint("1;31", kind),
                    p.id,
                    p.detail,
                    b.source
                );
            }
        }
    }
    if let Some(p) = &report.partition {
        let shards: Vec<String> = p.shards.iter().map(usize::to_string).collect();
        let _ = writeln!(
            s,
            "shard(s) {} of {} ({} partition) of {} vectors: ctk merge the shards for the whole run",
            shards.join(", "),
            p.of,
            p.scheme,
            p.set.count
        );
    }
    let skips = skips_by_reason(report);
    if !skips.is_empty() {
        let _ = writeln!(s, "skipped {}, by reason:", t.skip + a.skip);
        for (reason, n) in skips {
            let _ = writeln!(s, "  {n:>4}  {reason}");
        }
    }
    let gaps = report.feature_gaps();
    if !gaps.is_empty() {
        let _ = writeln!(
            s,
            "{}",
            style.paint(
                "33",
                "adapter features the subject does not announce (a partial adapter must not \
                 claim, §13.1; the exit code counts only the vectors that ran):"
            )
        );
        for g in gaps {
            let ids: Vec<&str> = g.clauses.iter().map(|c| c.id.as_str()).collect();
            let _ = writeln!(
                s,
                "  {}: {} vector(s) skipped; clauses they left unchecked: {}",
                g.feature,
                g.vectors.len(),
                if ids.is_empty() {
                    "none".to_owned()
                } else {
                    ids.join(", ")
                }
            );
        }
    }
    s
}
