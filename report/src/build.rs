//! Outcomes → [`Report`]: per-part totals and digests.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::*;
use ctk_core::digest;
use ctk_core::outcome::VectorOutcome;
use ctk_core::set::VectorMeta;

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
    // The RFC 8785 form of the list, hashed as each digest is written: the
    // list of a 100,000-vector set is never built (issue 30).
    let mut w = digest::DigestWriter::new();
    w.punct("[");
    for (i, d) in digests.into_iter().enumerate() {
        if i > 0 {
            w.punct(",");
        }
        if w.string(d).is_err() {
            return String::new();
        }
    }
    w.punct("]");
    w.finish()
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

/// The catalogs a report of `suite` cites clauses from, the first that has
/// an id winning: the suite's own, then, for a draft line, its released
/// line's, since a draft keeps every released clause it does not change
/// (`spec/draft/README.md`, `spec/ahp/draft/DIFFERENCES.md`). The quote then
/// names the released text it comes from.
fn catalogs_for(spec: &str) -> Vec<ctk_core::catalog::Catalog> {
    use ctk_core::suite::{AhpLine, SpecVersion, Suite};
    let Some(suite) = Suite::parse(spec) else {
        return Vec::new();
    };
    let released = match suite {
        Suite::AgentHooks(SpecVersion::Draft) => Some(Suite::AgentHooks(SpecVersion::V0_1)),
        Suite::Ahp(AhpLine::Draft) => Some(Suite::Ahp(AhpLine::V0_1)),
        _ => None,
    };
    [Some(suite), released]
        .into_iter()
        .flatten()
        .filter_map(|s| ctk_core::catalog::embedded_for(s).ok())
        .collect()
}

/// The clauses `covers` names, as the catalogs quote them, in the order
/// the vector lists them; an id no catalog has is left out.
fn cited(catalogs: &[ctk_core::catalog::Catalog], covers: &[String]) -> Vec<ClauseQuote> {
    covers
        .iter()
        .filter_map(|id| {
            catalogs
                .iter()
                .find_map(|catalog| catalog.clauses.iter().find(|c| &c.id == id))
        })
        .map(|c| ClauseQuote {
            id: c.id.clone(),
            text: c.text.clone(),
            source: c.source.clone(),
            quote: c.quote.clone(),
        })
        .collect()
}

/// Build a report; `outcomes[i]` belongs to the `i`th of `vectors` (taken
/// by reference, one at a time: a run need not copy its vectors' metas).
pub fn build<'a>(
    ctx: RunContext,
    vectors: impl IntoIterator<Item = &'a VectorMeta>,
    outcomes: &[VectorOutcome],
) -> Report {
    // (gating, advisory) per part.
    let mut parts: BTreeMap<String, (Totals, Totals)> = BTreeMap::new();
    let mut totals = Totals::default();
    let mut advisory_totals = Totals::default();
    let mut entries = Vec::with_capacity(outcomes.len());
    let mut vectors_ms = BTreeMap::new();
    let mut digests: Vec<&str> = Vec::new();
    let catalogs = catalogs_for(&ctx.spec);
    for (i, v) in vectors.into_iter().enumerate() {
        digests.push(&v.sha256);
        let Some(o) = outcomes.get(i) else { continue };
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
            clauses: if o.status == ctk_core::outcome::Status::Fail || o.adapter_feature.is_some() {
                cited(&catalogs, &v.covers)
            } else {
                Vec::new()
            },
            adapter_feature: o.adapter_feature.clone(),
        });
    }
    let mut report = Report {
        format: REPORT_FORMAT.into(),
        runner: RunnerInfo {
            name: "ctk".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        protocol: ctk_core::suite::Suite::parse(&ctx.spec)
            .map_or(
                ctk_core::suite::Protocol::AgentHooks,
                ctk_core::suite::Suite::protocol,
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
            count: digests.len(),
            filtered: ctx.filtered,
            sha256: vector_set_digest(digests.iter().copied()),
        },
        complete: !ctx.filtered
            && outcomes.len() == digests.len()
            && !outcomes
                .iter()
                .any(|o| ctk_core::outcome::never_ran(&o.reason)),
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
    let results = digest_of(&DigestView::of(report, false));
    report.results_digest = results;
    report.digest = digest_of(&DigestView::of(report, true));
}

fn digest_of(view: &DigestView<'_>) -> String {
    streamed_digest(view).unwrap_or_default()
}

/// RFC 8785 over the view as over its `Value` (key order and number forms
/// are the canonical writer's), hashed as it is written. Only the members
/// that grow with the run are written a piece at a time: `vectors` an entry
/// at a time and `timing.vectors_ms` a member at a time. Everything else is
/// small and goes through its `Value`. The whole report as one `Value` (or
/// serde_jcs, which buffers every object until its members are sorted)
/// held the report twice over at 100,000 vectors (issue 30).
fn streamed_digest(view: &DigestView<'_>) -> Option<String> {
    let shell = DigestView {
        vectors: &[],
        timing: None,
        ..*view
    };
    let Value::Object(mut members) = serde_json::to_value(shell).ok()? else {
        return None;
    };
    let timing = match view.timing {
        Some(t) => {
            let empty = Timing {
                started_at: t.started_at.clone(),
                total_ms: t.total_ms,
                vectors_ms: BTreeMap::new(),
            };
            members.insert("timing".into(), serde_json::to_value(&empty).ok()?);
            Some(t)
        }
        None => None,
    };
    let mut w = digest::DigestWriter::new();
    let failed = |e: serde_json::Error| digest::CanonicalError(e.to_string());
    let top = members.iter().map(|(name, value)| (name.as_str(), value));
    w.object(top.collect(), |w, name, value| match name {
        "vectors" => {
            w.punct("[");
            for (i, entry) in view.vectors.iter().enumerate() {
                if i > 0 {
                    w.punct(",");
                }
                w.value(&serde_json::to_value(entry).map_err(failed)?)?;
            }
            w.punct("]");
            Ok(())
        }
        "timing" => {
            let (Value::Object(inner), Some(t)) = (value, timing) else {
                return w.value(value);
            };
            let inner = inner.iter().map(|(name, value)| (name.as_str(), value));
            w.object(inner.collect(), |w, name, value| {
                if name != "vectors_ms" {
                    return w.value(value);
                }
                let ids = t.vectors_ms.iter().map(|(id, ms)| (id.as_str(), *ms));
                w.object(ids.collect(), |w, _, ms| w.value(&Value::from(ms)))
            })
        }
        _ => w.value(value),
    })
    .ok()?;
    Some(w.finish())
}

/// A report as its digests see it: every member but `digest`, and `timing`
/// and `results_digest` only in the whole digest. The destructuring in
/// [`DigestView::of`] names every field, so a member added to [`Report`]
/// cannot be left out of the digests unnoticed.
#[derive(serde::Serialize, Clone, Copy)]
struct DigestView<'a> {
    format: &'a String,
    runner: &'a RunnerInfo,
    protocol: &'a String,
    spec: &'a String,
    host: &'a HostIdentity,
    declaration: &'a DeclarationInfo,
    vector_set: &'a VectorSet,
    vectors: &'a [VectorEntry],
    parts: &'a [PartTotals],
    totals: &'a Totals,
    advisory_totals: &'a Totals,
    complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a BaselineInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    partition: Option<&'a PartitionInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<&'a Timing>,
    #[serde(skip_serializing_if = "Option::is_none")]
    results_digest: Option<&'a String>,
}

impl<'a> DigestView<'a> {
    fn of(report: &'a Report, whole: bool) -> Self {
        let Report {
            format,
            runner,
            protocol,
            spec,
            host,
            declaration,
            vector_set,
            vectors,
            parts,
            totals,
            advisory_totals,
            complete,
            baseline,
            partition,
            timing,
            results_digest,
            digest: _,
        } = report;
        Self {
            format,
            runner,
            protocol,
            spec,
            host,
            declaration,
            vector_set,
            vectors,
            parts,
            totals,
            advisory_totals,
            complete: *complete,
            baseline: baseline.as_ref(),
            partition: partition.as_ref(),
            timing: whole.then_some(timing),
            results_digest: whole.then_some(results_digest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctk_core::outcome::{AssertionFailure, Status};
    use serde_json::json;
    use std::time::Duration;

    fn meta(id: &str, advisory: Option<&str>) -> VectorMeta {
        VectorMeta {
            id: id.into(),
            title: format!("title of {id}"),
            part: "loop".into(),
            file_name: format!("{id}.json"),
            sha256: format!("sha256:{}", "0".repeat(64)),
            advisory: advisory.map(str::to_owned),
            covers: vec!["3-a".into()],
            role: None,
        }
    }

    #[test]
    fn a_failure_cites_its_clauses_with_their_sentences_and_a_draft_falls_back_to_its_release() {
        let released = catalogs_for("agent-hooks/0.1");
        let got = cited(
            &released,
            &["10.3-j".into(), "no-such-1".into(), "3-a".into()],
        );
        let ids: Vec<&str> = got.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["10.3-j", "3-a"]);
        assert!(
            got.iter().all(|c| c.quote.is_some() && c.source.is_some()),
            "{got:#?}"
        );
        let draft = catalogs_for("agent-hooks/draft");
        assert!(
            draft.len() >= 2,
            "the draft's own catalog, then the released one"
        );
        assert_eq!(cited(&draft, &["3-a".into()]).len(), 1);
        assert_eq!(
            cited(
                &catalogs_for("agent-hooks-protocol/draft"),
                &["ahp-13.2-a".into()]
            )
            .len(),
            1
        );
        assert!(catalogs_for("no-such-spec").is_empty());
    }

    #[test]
    fn the_vector_set_digest_is_that_of_the_list() {
        let list = ["sha256:00", "sha256:\u{1f600}\\\"", "x"];
        assert_eq!(
            vector_set_digest(list),
            digest::digest_value(&json!(list)).expect("digest")
        );
        assert_eq!(
            vector_set_digest([]),
            digest::digest_value(&json!([])).expect("digest")
        );
    }

    /// `seal` digests the struct without building its `Value`; `verify`
    /// digests the `Value` a report file parses to. Both must agree on every
    /// member, the optional ones included, and on numbers (durations, 1.5).
    #[test]
    fn seal_digests_what_verify_recomputes_from_the_value() {
        let ctx = RunContext {
            spec: "agent-hooks/0.1".into(),
            host: HostIdentity {
                name: "h".into(),
                version: "1".into(),
                spec_versions: vec!["agent-hooks/0.1".into()],
                features: Vec::new(),
            },
            declaration_source: "d.json".into(),
            declaration: json!({"spec": "agent-hooks/0.1", "n": 1.5, "big": 9007199254740991u64}),
            surface: json!({"points": ["input"]}),
            vector_source: "embedded:0.1".into(),
            filtered: false,
            started_at: "2026-12-01T00:00:00Z".into(),
            total_ms: 12,
        };
        let failure =
            AssertionFailure::mismatch("k", "differs", &json!("deny"), Some(&json!("allow")));
        // Ids whose byte order is not their UTF-16 order (U+FF61 sorts after
        // U+1F600 in UTF-16), so `timing.vectors_ms`, a map in byte order,
        // must be re-sorted as it is digested.
        let (a, b) = ("CTK-\u{1f600}", "CTK-\u{ff61}");
        let outcomes = [
            VectorOutcome::from_failures("CTK-0001", vec![], Duration::from_millis(3)),
            VectorOutcome::from_failures("CTK-0002", vec![failure], Duration::from_millis(5)),
            VectorOutcome::from_failures(a, vec![], Duration::from_millis(7)),
            VectorOutcome::from_failures(b, vec![], Duration::from_millis(11)),
        ];
        let mut report = build(
            ctx,
            &[
                meta("CTK-0001", None),
                meta("CTK-0002", Some("D-01")),
                meta(a, None),
                meta(b, None),
            ],
            &outcomes,
        );
        assert_eq!(report.vectors[1].status, Status::Fail);
        let check = |report: &Report| {
            let value = serde_json::to_value(report).expect("serializes");
            assert_eq!(
                digests(&value),
                (report.results_digest.clone(), report.digest.clone())
            );
        };
        check(&report);
        report.baseline = Some(BaselineInfo {
            source: "b.json".into(),
            sha256: format!("sha256:{}", "1".repeat(64)),
            entries: 1,
            stale: vec![],
            expired: vec![],
        });
        report.partition = Some(PartitionInfo {
            scheme: "count".into(),
            shards: vec![1],
            of: 2,
            set: report.vector_set.clone(),
        });
        let before = report.digest.clone();
        seal(&mut report);
        assert_ne!(report.digest, before, "the optional members are digested");
        check(&report);
        let results = report.results_digest.clone();
        report.timing.total_ms += 1;
        seal(&mut report);
        assert_eq!(
            report.results_digest, results,
            "timing is outside results_digest"
        );
        check(&report);
    }
}
