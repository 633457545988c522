//! The interoperability matrix (`ctk matrix`): one column per
//! implementation, one table per vector suite, rows by part, built from
//! reports and a triage file so nobody edits it by hand.
//!
//! Every failure or error of every report must be classified in the triage
//! file (`ctk-triage/1`): an implementation defect by the spec text (with
//! the sentence), or a surface the implementation lacks. A failure that is
//! neither is a defect of the kit and must be fixed, so the matrix refuses
//! to render with an unclassified failure, a `kit_defect` entry, or an
//! entry whose vector no longer fails (a stale one).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::model::{Report, Totals, VectorEntry};
use ctk_core::outcome::Status;

/// The `format` of a triage file.
pub const TRIAGE_FORMAT: &str = "ctk-triage/1";

/// How a failure of an implementation is explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriageClass {
    /// The implementation breaks the spec text (the entry quotes the sentence).
    ImplementationDefect,
    /// The implementation lacks a surface its declaration should not claim.
    Surface,
    /// Another reading the text allows (advisory vectors only: they pin the
    /// project's preferred reading).
    OtherReading,
    /// The kit is wrong; never allowed to stand in a published matrix.
    KitDefect,
}

impl TriageClass {
    /// The class's words, as the matrix prints them.
    pub fn label(self) -> &'static str {
        match self {
            TriageClass::ImplementationDefect => "implementation defect",
            TriageClass::Surface => "surface",
            TriageClass::OtherReading => "another reading the text allows",
            TriageClass::KitDefect => "kit defect",
        }
    }
}

/// One classified failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriageEntry {
    /// The implementation: a report's `host.name`.
    pub implementation: String,
    /// The vector id.
    pub vector: String,
    /// The classification.
    pub class: TriageClass,
    /// The clause the vector checks (e.g. `10.2-b`).
    pub clause: String,
    /// The spec sentence the implementation breaks (implementation defects).
    #[serde(default)]
    pub sentence: Option<String>,
    /// One line a maintainer can act on.
    pub diagnosis: String,
}

/// A triage file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Triage {
    /// [`TRIAGE_FORMAT`].
    pub format: String,
    /// The entries.
    pub entries: Vec<TriageEntry>,
}

/// Why a matrix cannot be rendered; each problem is one line.
pub type Problems = Vec<String>;

/// A report's suite label: the released embedded set or the folder's name.
fn suite(report: &Report) -> String {
    match report.vector_set.source.strip_prefix("embedded:") {
        Some(spec) if spec.ends_with("draft") => format!("draft suite ({spec}, never claimable)"),
        Some(spec) => format!("released suite ({spec})"),
        None => {
            let source = report.vector_set.source.trim_end_matches('/');
            let last = source.rsplit('/').next().unwrap_or(source);
            if source.contains("upstream") {
                "upstream vectors".to_owned()
            } else {
                format!("vectors from {last}")
            }
        }
    }
}

/// A matrix cell's text: gating `pass / fail / skip`, and errors when any.
pub fn cell(t: &Totals) -> String {
    let mut c = format!("{} / {} / {}", t.pass, t.fail, t.skip);
    if t.error > 0 {
        let _ = write!(c, " / {} err", t.error);
    }
    c
}

/// A column's heading: the implementation's name and version.
pub fn implementation(report: &Report) -> String {
    format!("{} {}", report.host.name, report.host.version)
}

/// Check the triage against the reports: every failure and error
/// classified, no kit defect, no stale entry, an implementation defect
/// quotes its sentence.
pub fn check(reports: &[Report], triage: &Triage) -> Problems {
    let mut problems = Vec::new();
    if triage.format != TRIAGE_FORMAT {
        problems.push(format!("triage format is not {TRIAGE_FORMAT}"));
    }
    // (implementation, vector) -> whether the failing vector is advisory.
    let mut failing: BTreeMap<(&str, String), bool> = BTreeMap::new();
    for r in reports {
        for v in &r.vectors {
            if matches!(v.status, Status::Fail | Status::Error) {
                failing.insert((r.host.name.as_str(), v.id.clone()), v.advisory.is_some());
            }
        }
    }
    let mut classified: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (i, e) in triage.entries.iter().enumerate() {
        let key = (e.implementation.as_str(), e.vector.as_str());
        let failing_key = (e.implementation.as_str(), e.vector.clone());
        if !classified.insert(key) {
            problems.push(format!(
                "/entries/{i}: {} {} is classified twice",
                e.implementation, e.vector
            ));
        }
        if e.class == TriageClass::OtherReading && failing.get(&failing_key) == Some(&false) {
            problems.push(format!(
                "/entries/{i}: {} {} is a gating vector: a gating vector asserts only what every reading shares, so \"another reading\" means the vector is wrong",
                e.implementation, e.vector
            ));
        }
        if !failing.contains_key(&failing_key) {
            problems.push(format!(
                "/entries/{i}: {} {} does not fail in any report (a stale entry: remove it)",
                e.implementation, e.vector
            ));
        }
        if e.class == TriageClass::KitDefect {
            problems.push(format!(
                "/entries/{i}: {} {} is a kit defect: fix the kit, do not publish it",
                e.implementation, e.vector
            ));
        }
        if e.class == TriageClass::ImplementationDefect
            && e.sentence.as_deref().is_none_or(|s| s.trim().is_empty())
        {
            problems.push(format!(
                "/entries/{i}: {} {}: an implementation defect quotes the sentence it breaks",
                e.implementation, e.vector
            ));
        }
    }
    for (implementation, vector) in failing
        .keys()
        .filter(|(i, v)| !classified.contains(&(*i, v.as_str())))
    {
        problems.push(format!(
            "{implementation} {vector} fails and is not classified in the triage file"
        ));
    }
    problems
}

/// One table of the matrix: the reports of one vector suite, one column
/// each, rows by part. Shared by the Markdown and the HTML rendering.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteTable<'a> {
    /// The suite's label (the released set, the draft set, or a folder).
    pub name: String,
    /// The reports of the suite, one column each, in the order given.
    pub columns: Vec<&'a Report>,
    /// Per part (sorted), each column's gating counts.
    pub rows: Vec<(&'a str, Vec<Totals>)>,
}

/// The matrix's tables, one per suite (sorted by label), columns in the
/// order the reports were given.
pub fn tables(reports: &[Report]) -> Vec<SuiteTable<'_>> {
    let mut suites: BTreeMap<String, Vec<&Report>> = BTreeMap::new();
    for r in reports {
        suites.entry(suite(r)).or_default().push(r);
    }
    suites
        .into_iter()
        .map(|(name, columns)| {
            let parts: BTreeSet<&str> = columns
                .iter()
                .flat_map(|r| r.parts.iter().map(|p| p.part.as_str()))
                .collect();
            let rows = parts
                .into_iter()
                .map(|part| {
                    let counts = columns
                        .iter()
                        .map(|r| {
                            r.parts
                                .iter()
                                .find(|p| p.part == part)
                                .map(|p| p.totals)
                                .unwrap_or_default()
                        })
                        .collect();
                    (part, counts)
                })
                .collect();
            SuiteTable {
                name,
                columns,
                rows,
            }
        })
        .collect()
}

/// One failure or error of one report, with its triage entry if any.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureLine<'a> {
    /// The report (its implementation).
    pub report: &'a Report,
    /// The failing or erring vector.
    pub vector: std::borrow::Cow<'a, VectorEntry>,
    /// How the triage file classifies it (`None`: unclassified).
    pub entry: Option<&'a TriageEntry>,
}

/// Every failure and error, report by report in the order given, with its
/// triage entry.
pub fn failures<'a>(reports: &'a [Report], triage: &'a Triage) -> Vec<FailureLine<'a>> {
    let by_key: BTreeMap<(&str, &str), &TriageEntry> = triage
        .entries
        .iter()
        .map(|e| ((e.implementation.as_str(), e.vector.as_str()), e))
        .collect();
    reports
        .iter()
        .flat_map(|r| {
            r.vectors
                .iter()
                .filter(|v| matches!(v.status, Status::Fail | Status::Error))
                .map(move |v| (r, v))
        })
        .map(|(report, vector)| FailureLine {
            report,
            entry: by_key
                .get(&(report.host.name.as_str(), vector.id.as_str()))
                .copied(),
            vector,
        })
        .collect()
}

/// Render the matrix (reports in the order given: one column each, grouped
/// into one table per suite).
pub fn render(reports: &[Report], triage: &Triage) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Interoperability matrix\n\n\
         Generated by `ctk matrix` from the reports beside this file and `triage.json`; do not \
         edit it by hand. Each cell is gating `pass / fail / skip` (and errors when there are \
         any); advisory vectors are counted on their own row. Every failure is classified below, \
         with the assertion that failed.\n\n\
         Regenerate: run the `refresh` script beside this file with this folder as its output, \
         then `ctk matrix --triage triage.json` over the reports it wrote, into this file \
         (the script's header comment gives both commands).\n"
    );
    for table in tables(reports) {
        let _ = writeln!(s, "## {}\n", table.name);
        let mut header = String::from("| part |");
        let mut rule = String::from("| --- |");
        for r in &table.columns {
            let _ = write!(header, " {} |", implementation(r));
            rule.push_str(" ---: |");
        }
        let _ = writeln!(s, "{header}\n{rule}");
        for (part, counts) in &table.rows {
            let mut row = format!("| {part} |");
            for t in counts {
                let _ = write!(row, " {} |", cell(t));
            }
            let _ = writeln!(s, "{row}");
        }
        let mut total = String::from("| **total** |");
        let mut advisory = String::from("| advisory (never gates) |");
        for r in &table.columns {
            let _ = write!(total, " **{}** |", cell(&r.totals));
            let _ = write!(advisory, " {} |", cell(&r.advisory_totals));
        }
        let _ = writeln!(s, "{total}\n{advisory}\n");
    }
    let _ = writeln!(s, "## Failures\n");
    let lines = failures(reports, triage);
    for FailureLine {
        report: r,
        vector: v,
        entry,
    } in &lines
    {
        let advisory = if v.advisory.is_some() {
            " (advisory)"
        } else {
            ""
        };
        match entry {
            Some(e) => {
                let _ = write!(
                    s,
                    "- {} `{}`{advisory}, clause {}: **{}**: {} Fails: `{}`.",
                    implementation(r),
                    v.id,
                    e.clause,
                    e.class.label(),
                    e.diagnosis,
                    v.reason.replace('`', "'")
                );
                if let Some(sentence) = &e.sentence {
                    let _ = write!(s, " The text: \"{sentence}\"");
                }
                s.push('\n');
            }
            None => {
                let _ = writeln!(
                    s,
                    "- {} `{}`{advisory}: **unclassified**: {}",
                    implementation(r),
                    v.id,
                    v.reason
                );
            }
        }
    }
    let any = !lines.is_empty();
    if !any {
        let _ = writeln!(s, "None.");
    }
    s
}
