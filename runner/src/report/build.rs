//! Outcomes → [`Report`]: per-part totals and digests.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::digest;
use crate::outcome::VectorOutcome;
use crate::report::model::*;
use crate::set::VectorMeta;

/// Everything a report states besides the outcomes.
#[derive(Debug, Clone)]
pub struct RunContext {
    /// Wire spec version.
    pub spec: String,
    /// The host.
    pub host: HostIdentity,
    /// Where the declaration came from.
    pub declaration_source: String,
    /// The declaration document.
    pub declaration: Value,
    /// The derived surface, serialized.
    pub surface: Value,
    /// The vector source.
    pub vector_source: String,
    /// Whether `--part`/`--id` narrowed the set.
    pub filtered: bool,
    /// When the run started, RFC 3339 in UTC to the second
    /// ([`rfc3339`] of the start time); recorded in `timing`, outside
    /// `results_digest`.
    pub started_at: String,
    /// Total wall time, milliseconds.
    pub total_ms: u64,
}

/// A time as RFC 3339 in UTC to the second, e.g. `2026-12-01T08:25:30Z`:
/// the form of [`RunContext::started_at`].
pub fn rfc3339(at: std::time::SystemTime) -> String {
    let at = time::OffsetDateTime::from(at);
    let at = at.replace_nanosecond(0).unwrap_or(at);
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_owned())
}

/// `sha256:` digest over the ordered vector digests.
pub fn vector_set_digest<'a>(digests: impl IntoIterator<Item = &'a str>) -> String {
    let list: Vec<&str> = digests.into_iter().collect();
    digest::digest_value(&json!(list)).unwrap_or_default()
}

/// Recompute `(results_digest, digest)` of a report value.
pub fn digests(report: &Value) -> (String, String) {
    let mut v = report.clone();
    if let Some(obj) = v.as_object_mut() {
        obj.remove("digest");
        obj.remove("results_digest");
    }
    let mut results = v.clone();
    if let Some(obj) = results.as_object_mut() {
        obj.remove("timing");
    }
    let results_digest = digest::digest_value(&results).unwrap_or_default();
    if let Some(obj) = v.as_object_mut() {
        obj.insert(
            "results_digest".into(),
            Value::String(results_digest.clone()),
        );
    }
    (results_digest, digest::digest_value(&v).unwrap_or_default())
}

/// Build a report; `outcomes[i]` belongs to `vectors[i]`.
pub fn build(ctx: RunContext, vectors: &[VectorMeta], outcomes: &[VectorOutcome]) -> Report {
    // (gating, advisory) per part.
    let mut parts: BTreeMap<String, (Totals, Totals)> = BTreeMap::new();
    let mut totals = Totals::default();
    let mut advisory_totals = Totals::default();
    let mut entries = Vec::new();
    let mut vectors_ms = BTreeMap::new();
    for (v, o) in vectors.iter().zip(outcomes) {
        let part = parts.entry(v.part.clone()).or_default();
        if v.advisory.is_some() {
            part.1.add(o.status);
            advisory_totals.add(o.status);
        } else {
            part.0.add(o.status);
            totals.add(o.status);
        }
        vectors_ms.insert(
            v.id.clone(),
            u64::try_from(o.duration.as_millis()).unwrap_or(u64::MAX),
        );
        entries.push(VectorEntry {
            id: v.id.clone(),
            title: v.title.clone(),
            part: v.part.clone(),
            advisory: v.advisory.clone(),
            file: v.file_name.clone(),
            sha256: v.sha256.clone(),
            status: o.status,
            reason: o.reason.clone(),
            failures: o.failures.clone(),
            baseline: None,
        });
    }
    let mut report = Report {
        format: REPORT_FORMAT.into(),
        runner: RunnerInfo {
            name: "ctk".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        protocol: crate::suite::Suite::parse(&ctx.spec)
            .map_or(
                crate::suite::Protocol::AgentHooks,
                crate::suite::Suite::protocol,
            )
            .as_str()
            .to_owned(),
        spec: ctx.spec,
        host: ctx.host,
        declaration: DeclarationInfo {
            source: ctx.declaration_source,
            sha256: digest::digest_value(&ctx.declaration).unwrap_or_default(),
            document: ctx.declaration,
            surface: ctx.surface,
        },
        vector_set: VectorSet {
            source: ctx.vector_source,
            count: vectors.len(),
            filtered: ctx.filtered,
            sha256: vector_set_digest(vectors.iter().map(|v| v.sha256.as_str())),
        },
        complete: !ctx.filtered
            && outcomes.len() == vectors.len()
            && !outcomes
                .iter()
                .any(|o| ctk_agent_hooks_suite::engine::never_ran(&o.reason)),
        baseline: None,
        partition: None,
        vectors: entries,
        parts: parts
            .into_iter()
            .map(|(part, (totals, advisory))| PartTotals {
                part,
                totals,
                advisory,
            })
            .collect(),
        totals,
        advisory_totals,
        timing: Timing {
            started_at: ctx.started_at,
            total_ms: ctx.total_ms,
            vectors_ms,
        },
        results_digest: String::new(),
        digest: String::new(),
    };
    seal(&mut report);
    report
}

/// Recompute `parts`, `totals` and `advisory_totals` from the report's
/// entries, exactly as [`build`] counts them: for a step that changes
/// statuses after the build (a baseline) or gathers entries from several
/// reports (a merge). Call [`seal`] afterwards.
pub fn recount(report: &mut Report) {
    let mut parts: BTreeMap<String, (Totals, Totals)> = BTreeMap::new();
    let mut totals = Totals::default();
    let mut advisory_totals = Totals::default();
    for v in &report.vectors {
        let part = parts.entry(v.part.clone()).or_default();
        if v.advisory.is_some() {
            part.1.add(v.status);
            advisory_totals.add(v.status);
        } else {
            part.0.add(v.status);
            totals.add(v.status);
        }
    }
    report.parts = parts
        .into_iter()
        .map(|(part, (totals, advisory))| PartTotals {
            part,
            totals,
            advisory,
        })
        .collect();
    report.totals = totals;
    report.advisory_totals = advisory_totals;
}

/// Fill `results_digest` and `digest`.
pub fn seal(report: &mut Report) {
    let value = serde_json::to_value(&*report).unwrap_or(Value::Null);
    let (results, whole) = digests(&value);
    report.results_digest = results;
    report.digest = whole;
}
