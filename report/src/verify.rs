//! `ctk verify`: recompute every digest of a report and check that the file
//! is exactly the runner's rendering of its content; optionally check the
//! vector digests against a vector folder or the embedded set.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::build::{digests, vector_set_digest};
use crate::json::render_value;
use crate::merge;
use crate::model::{Report, Totals, REPORT_FORMAT};
use ctk_core::digest;
use ctk_core::outcome::Status;
use ctk_core::set::VectorMeta;

/// Why a report does not verify; each problem is one line.
pub type Problems = Vec<String>;

/// Parse report text into a [`Report`] (after checking the format tag).
pub fn parse(text: &str) -> Result<(Value, Report), String> {
    let value: Value =
        ctk_support::depth::from_str_within(text, ctk_support::depth::REPORT_NESTING)
            .map_err(|e| format!("not JSON: {e}"))?;
    if value.get("format").and_then(Value::as_str) != Some(REPORT_FORMAT) {
        return Err(format!("format is not {REPORT_FORMAT}"));
    }
    let report: Report =
        serde_json::from_value(value.clone()).map_err(|e| format!("not a report: {e}"))?;
    Ok((value, report))
}

/// Verify report text; `vectors`, when given, are the vectors it must cite.
pub fn verify(text: &str, vectors: Option<&[VectorMeta]>) -> Problems {
    match parse(text) {
        Ok((value, report)) => verify_parsed(text, &value, &report, vectors),
        Err(e) => vec![e],
    }
}

/// [`verify`] for a report already parsed from `text` (`value` and `report`).
pub fn verify_parsed(
    text: &str,
    value: &Value,
    report: &Report,
    vectors: Option<&[VectorMeta]>,
) -> Problems {
    let mut problems = Vec::new();
    if render_value(value) != text {
        problems.push(
            "the file is not the runner's rendering of its content (edited by hand?)".to_owned(),
        );
    }
    let (results, whole) = digests(value);
    if results != report.results_digest {
        problems.push(format!(
            "results_digest mismatch: recorded {}, recomputed {results}",
            report.results_digest
        ));
    }
    if whole != report.digest {
        problems.push(format!(
            "digest mismatch: recorded {}, recomputed {whole}",
            report.digest
        ));
    }
    let declared = digest::digest_value(&report.declaration.document).unwrap_or_default();
    if declared != report.declaration.sha256 {
        problems.push(format!(
            "declaration sha256 mismatch: recorded {}, recomputed {declared}",
            report.declaration.sha256
        ));
    }
    let set = vector_set_digest(report.vectors.iter().map(|v| v.sha256.clone()));
    if set != report.vector_set.sha256 || report.vector_set.count != report.vectors.len() {
        problems.push("vector_set does not match the listed vectors".to_owned());
    }
    problems.extend(count_problems(report));
    problems.extend(section_problems(report));
    if let Some(vectors) = vectors {
        let known: BTreeMap<&str, (&str, &str)> = vectors
            .iter()
            .map(|v| (v.id.as_str(), (v.sha256.as_str(), v.file_name.as_str())))
            .collect();
        for entry in &report.vectors {
            match known.get(entry.id.as_str()) {
                None => problems.push(format!("{}: not among the given vectors", entry.id)),
                Some((sha, file)) if *sha != entry.sha256 => problems.push(format!(
                    "{}: the vector's bytes changed since the run: {file} is now {sha}, the report ran {}",
                    entry.id, entry.sha256
                )),
                Some(_) => {}
            }
        }
        if !report.vector_set.filtered && known.len() != report.vectors.len() {
            problems.push(format!(
                "the report lists {} vectors, the given set has {}",
                report.vectors.len(),
                known.len()
            ));
        }
    }
    problems
}

/// Whether the counts a report states are the counts of its entries:
/// `totals` over the gating entries, `advisory_totals` over the advisory
/// ones, and the same split per part. The digests alone cannot show this
/// (anyone can re-seal a report), and the exit code and a claim read the
/// gating totals, so an entry moved between the columns must not go unseen.
fn count_problems(report: &Report) -> Problems {
    let mut gating = Totals::default();
    let mut advisory = Totals::default();
    let mut parts: BTreeMap<String, (Totals, Totals)> = BTreeMap::new();
    for v in &report.vectors {
        let part = parts.entry(v.part.clone()).or_default();
        if v.advisory.is_some() {
            advisory.add(v.status);
            part.1.add(v.status);
        } else {
            gating.add(v.status);
            part.0.add(v.status);
        }
    }
    let mut problems = Vec::new();
    if gating != report.totals {
        problems.push(format!(
            "totals {:?} are not the counts of the gating vectors listed, {gating:?}",
            report.totals
        ));
    }
    if advisory != report.advisory_totals {
        problems.push(format!(
            "advisory_totals {:?} are not the counts of the advisory vectors listed, {advisory:?}",
            report.advisory_totals
        ));
    }
    let stated: Vec<(&str, (Totals, Totals))> = report
        .parts
        .iter()
        .map(|p| (p.part.as_str(), (p.totals, p.advisory)))
        .collect();
    let listed: Vec<(&str, (Totals, Totals))> =
        parts.iter().map(|(part, t)| (part.as_str(), *t)).collect();
    if stated != listed {
        problems.push("parts are not the per-part counts of the vectors listed".to_owned());
    }
    problems
}

/// Whether the baseline and partition sections agree with the entries: an
/// `expected-fail` entry carries the baseline entry that excused it, in a
/// report that applied a baseline; a `hash` shard lists only vectors of its
/// shards. A report edited to hide a failure as expected, or to pass one
/// shard off as another, must not verify.
fn section_problems(report: &Report) -> Problems {
    let mut problems = Vec::new();
    for v in &report.vectors {
        if v.status == Status::ExpectedFail && (v.baseline.is_none() || report.baseline.is_none()) {
            problems.push(format!(
                "{}: expected-fail without the baseline entry that excuses it",
                v.id
            ));
        }
        if v.status != Status::ExpectedFail && v.baseline.is_some() {
            problems.push(format!(
                "{}: carries a baseline entry but is {}",
                v.id,
                v.status.as_str()
            ));
        }
    }
    if let Some(p) = &report.partition {
        if p.scheme == merge::Scheme::Hash.as_str() {
            for v in &report.vectors {
                if !p.shards.contains(&merge::hash_shard(&v.id, p.of)) {
                    problems.push(format!(
                        "{}: not in the report's shard(s) {:?} of hash/{}",
                        v.id, p.shards, p.of
                    ));
                }
            }
        }
        if p.shards.is_empty() || p.shards.iter().any(|k| *k == 0 || *k > p.of) {
            problems.push(format!(
                "partition shards {:?} are not between 1 and {}",
                p.shards, p.of
            ));
        }
    }
    problems
}
