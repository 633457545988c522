//! Outcomes → [`Report`]: per-part totals and digests.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::*;
use crate::ReportError;
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
pub fn vector_set_digest<S: AsRef<str>>(digests: impl IntoIterator<Item = S>) -> String {
    // The RFC 8785 form of the list, hashed as each digest is written: the
    // list of a 100,000-vector set is never built (issue 30).
    let mut w = digest::DigestWriter::new();
    w.punct("[");
    for (i, d) in digests.into_iter().enumerate() {
        if i > 0 {
            w.punct(",");
        }
        if w.string(d.as_ref()).is_err() {
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
/// by reference, one at a time: a run need not copy its vectors' metas). A
/// vector past the last outcome counts in the vector set but has no entry.
pub fn build<'a>(
    ctx: RunContext,
    vectors: impl IntoIterator<Item = &'a VectorMeta>,
    outcomes: &[VectorOutcome],
) -> Report {
    let mut builder = Builder::new(&ctx.spec);
    for (i, v) in vectors.into_iter().enumerate() {
        builder.vector(v, outcomes.get(i).cloned());
    }
    let entries = std::mem::take(&mut builder.held);
    let times = std::mem::take(&mut builder.times);
    builder.assemble(ctx, Entries::from(entries), VectorTimes::from(times))
}

/// Builds a report a vector at a time, in run order, as the vectors finish
/// ([`ctk_core::vector_loop::run_each`]): counts, parts and the vector
/// set's digest as running totals, and each entry either held or, for a
/// run, [spooled](Builder::spooled) to a file, so that nothing that grows
/// with the run is held (issue 30). [`build`] is this with every entry held.
pub struct Builder {
    catalogs: Vec<ctk_core::catalog::Catalog>,
    /// (gating, advisory) per part.
    parts: BTreeMap<String, (Totals, Totals)>,
    totals: Totals,
    advisory_totals: Totals,
    /// The vector set's digest, a vector digest at a time.
    set: digest::DigestWriter,
    count: usize,
    judged: usize,
    never_ran: bool,
    /// Whether a vector's digest could not be written into the set's.
    set_broken: bool,
    /// The entries and durations, when there is no spool.
    held: Vec<VectorEntry>,
    times: BTreeMap<String, u64>,
    spool: Option<crate::entries::SpoolWriter>,
    /// The first spool write that failed, naming the file.
    failed: Option<String>,
}

impl Builder {
    /// A builder that holds every entry in memory.
    pub fn new(spec: &str) -> Self {
        Self::with(spec, None)
    }

    /// A builder that writes every entry to a spool file in the temporary
    /// folder as it comes, and renders the report from there. The file has
    /// no name: it goes with the last report that reads it, or with the
    /// process if it is killed.
    pub fn spooled(spec: &str) -> Result<Self, ReportError> {
        let spool = crate::entries::SpoolWriter::new().map_err(|e| {
            ReportError::Spool(format!(
                "cannot make a spool file for the report's entries in {}: {e} (set TMPDIR \
                 to a writable folder)",
                std::env::temp_dir().display()
            ))
        })?;
        Ok(Self::with(spec, Some(spool)))
    }

    fn with(spec: &str, spool: Option<crate::entries::SpoolWriter>) -> Self {
        let mut set = digest::DigestWriter::new();
        set.punct("[");
        Self {
            catalogs: catalogs_for(spec),
            parts: BTreeMap::new(),
            totals: Totals::default(),
            advisory_totals: Totals::default(),
            set,
            count: 0,
            judged: 0,
            never_ran: false,
            set_broken: false,
            held: Vec::new(),
            times: BTreeMap::new(),
            spool,
            failed: None,
        }
    }

    /// The next vector of the run, with its outcome; `None` counts it in
    /// the vector set without an entry.
    pub fn vector(&mut self, v: &VectorMeta, outcome: Option<VectorOutcome>) {
        if self.count > 0 {
            self.set.punct(",");
        }
        self.count += 1;
        // A digest that cannot be written leaves the set's empty, as the
        // digest of a list that cannot be written.
        self.set_broken |= self.set.string(&v.sha256).is_err();
        let Some(o) = outcome else { return };
        self.judged += 1;
        self.never_ran |= ctk_core::outcome::never_ran(&o.reason);
        let part = self.parts.entry(v.part.clone()).or_default();
        if v.advisory.is_some() {
            part.1.add(o.status);
            self.advisory_totals.add(o.status);
        } else {
            part.0.add(o.status);
            self.totals.add(o.status);
        }
        let ms = u64::try_from(o.duration.as_millis()).unwrap_or(u64::MAX);
        let entry = VectorEntry {
            id: v.id.clone(),
            title: v.title.clone(),
            part: v.part.clone(),
            advisory: v.advisory.clone(),
            file: v.file_name.clone(),
            sha256: v.sha256.clone(),
            status: o.status,
            clauses: if o.status == ctk_core::outcome::Status::Fail || o.adapter_feature.is_some() {
                cited(&self.catalogs, &v.covers)
            } else {
                Vec::new()
            },
            reason: o.reason,
            failures: o.failures,
            baseline: None,
            adapter_feature: o.adapter_feature,
        };
        match &mut self.spool {
            None => {
                self.times.insert(entry.id.clone(), ms);
                self.held.push(entry);
            }
            Some(spool) => {
                if self.failed.is_none() {
                    if let Err(e) = spool.push(&entry, ms) {
                        self.failed = Some(format!(
                            "cannot write the report's entries to a spool file in {}: {e}",
                            spool.dir().display()
                        ));
                    }
                }
            }
        }
    }

    /// The report, sealed. `Err` when the spool could not be written or
    /// read back: the message names its folder.
    pub fn finish(mut self, ctx: RunContext) -> Result<Report, ReportError> {
        if let Some(why) = self.failed.take() {
            return Err(ReportError::Spool(why));
        }
        let (vectors, vectors_ms) = match self.spool.take() {
            None => (
                Entries::from(std::mem::take(&mut self.held)),
                VectorTimes::from(std::mem::take(&mut self.times)),
            ),
            Some(spool) => {
                let dir = spool.dir().to_path_buf();
                spool.finish().map_err(|e| {
                    ReportError::Spool(format!(
                        "cannot write the report's entries to a spool file in {}: {e}",
                        dir.display()
                    ))
                })?
            }
        };
        let report = self.assemble(ctx, vectors, vectors_ms);
        match report.failure() {
            Some(why) => Err(ReportError::Spool(why)),
            None => Ok(report),
        }
    }

    /// The sealed report of the counts gathered and these entries.
    fn assemble(self, ctx: RunContext, vectors: Entries, vectors_ms: VectorTimes) -> Report {
        let Builder {
            parts,
            totals,
            advisory_totals,
            mut set,
            count,
            judged,
            never_ran,
            set_broken,
            ..
        } = self;
        set.punct("]");
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
                count,
                filtered: ctx.filtered,
                sha256: if set_broken {
                    String::new()
                } else {
                    set.finish()
                },
            },
            complete: !ctx.filtered && judged == count && !never_ran,
            baseline: None,
            partition: None,
            vectors,
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
    let no_entries = Entries::default();
    let shell = DigestView {
        vectors: &no_entries,
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
                vectors_ms: VectorTimes::default(),
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
                let sorted = t.vectors_ms.in_member_order();
                w.object_in_order(sorted.iter(), |w, _, ms| w.value(&Value::from(ms)))
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
    vectors: &'a Entries,
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

    fn ctx() -> RunContext {
        RunContext {
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
        }
    }

    /// A run's vectors of every kind: parts out of order, a failure citing
    /// clauses, an advisory one, a skip for an adapter feature, an error
    /// that never ran, and ids whose byte order is not their UTF-16 order.
    fn mixed() -> (Vec<VectorMeta>, Vec<VectorOutcome>) {
        let failure =
            AssertionFailure::mismatch("k", "differs", &json!("deny"), Some(&json!("allow")));
        let mut metas = Vec::new();
        let mut outcomes = Vec::new();
        for i in 0..40usize {
            let id = match i {
                7 => "CTK-\u{1f600}".to_owned(),
                8 => "CTK-\u{ff61}".to_owned(),
                _ => format!("CTK-{:04}", 97 * i % 101),
            };
            let mut m = meta(&id, (i % 9 == 4).then_some("D-01"));
            m.part = ["loop", "tools", "approval"][i % 3].to_owned();
            m.covers = vec!["10.3-j".into(), "3-a".into()];
            let ms = Duration::from_millis(u64::try_from(i * 7 % 13).unwrap_or(0));
            let outcome = match i % 5 {
                1 => VectorOutcome::from_failures(&id, vec![failure.clone()], ms),
                2 => {
                    let mut o = VectorOutcome::skip(&id, "not declared: tool_calls".into());
                    if i % 4 == 2 {
                        o.adapter_feature = Some("persisted-state".into());
                    }
                    o
                }
                3 if i == 13 => VectorOutcome::error(
                    &id,
                    ctk_core::outcome::NOT_RUN_INTERRUPTED.into(),
                    Duration::ZERO,
                ),
                3 => VectorOutcome::error(&id, "harness error: setup: gone".into(), ms),
                _ => VectorOutcome::from_failures(&id, vec![], ms),
            };
            metas.push(m);
            outcomes.push(outcome);
        }
        (metas, outcomes)
    }

    fn spooled(metas: &[VectorMeta], outcomes: &[VectorOutcome]) -> Report {
        let mut b = Builder::spooled("agent-hooks/0.1").expect("a spool in TMPDIR");
        for (m, o) in metas.iter().zip(outcomes) {
            b.vector(m, Some(o.clone()));
        }
        b.finish(ctx()).expect("the spool is written and read back")
    }

    fn no_suite(_: ctk_core::suite::Suite) -> Result<&'static [VectorMeta], String> {
        Err("no released suite in this test".into())
    }

    /// Every rendering and digest of a spooled run is the held one's, byte
    /// for byte: the spool changes where the entries live, nothing else.
    #[test]
    fn a_spooled_report_renders_and_digests_as_the_held_one() {
        let (metas, outcomes) = mixed();
        let held = build(ctx(), &metas, &outcomes);
        let spooled = spooled(&metas, &outcomes);
        assert!(format!("{:?}", spooled.vectors).contains("spooled: 40"));
        assert_eq!(held.vectors.len(), 40);
        assert_eq!(held.complete, spooled.complete);
        assert!(!held.complete, "an interrupted vector never ran");
        assert_eq!(
            (&held.results_digest, &held.digest),
            (&spooled.results_digest, &spooled.digest)
        );
        assert_eq!(held, spooled);
        assert_eq!(crate::json::render(&held), crate::json::render(&spooled));
        let mut streamed = Vec::new();
        crate::json::write(&spooled, &mut streamed).expect("written");
        assert_eq!(
            String::from_utf8(streamed).ok(),
            Some(crate::json::render(&held))
        );
        assert_eq!(
            crate::markdown::render(&held, no_suite),
            crate::markdown::render(&spooled, no_suite)
        );
        assert_eq!(
            crate::html::render(&held, &[], no_suite),
            crate::html::render(&spooled, &[], no_suite)
        );
        assert_eq!(
            crate::junit::render(&held).expect("junit"),
            crate::junit::render(&spooled).expect("junit")
        );
        let style = crate::human::Style { color: false };
        assert_eq!(
            crate::human::summary(&held, style),
            crate::human::summary(&spooled, style)
        );
        assert_eq!(held.feature_gaps(), spooled.feature_gaps());
        assert_eq!(
            crate::rules::gating_groups(&held),
            crate::rules::gating_groups(&spooled)
        );
        // Read back alone, an entry and its duration are the held ones.
        for i in [0, 7, 8, 39] {
            assert_eq!(held.timed_at(i), spooled.timed_at(i));
        }
        assert_eq!(spooled.timed_at(40), None);
        assert_eq!(
            spooled.timing.vectors_ms.get("CTK-\u{ff61}"),
            Some(7 * 8 % 13)
        );
        assert_eq!(spooled.failure(), None);
        // A report read back from its file is the same report.
        let again: Report = serde_json::from_str(&crate::json::render(&spooled)).expect("parses");
        assert_eq!(again, spooled);
    }

    /// A failure quotes what the host sent, as deep as the kit reads it
    /// (past serde_json's default recursion limit): its entry is read back
    /// from the spool as it went in.
    #[test]
    fn a_failure_nested_as_deep_as_the_kit_reads_is_read_back_from_the_spool() {
        let mut deep = json!("bottom");
        for i in 0..ctk_support::depth::MAX_NESTING - 1 {
            deep = if i % 2 == 0 {
                json!([deep])
            } else {
                json!({"k": deep})
            };
        }
        let failure = AssertionFailure::mismatch("k", "differs", &deep, Some(&json!("allow")));
        let metas = [meta("CTK-0001", None), meta("CTK-0002", None)];
        let outcomes = [
            VectorOutcome::from_failures("CTK-0001", vec![failure], Duration::from_millis(3)),
            VectorOutcome::from_failures("CTK-0002", vec![], Duration::from_millis(5)),
        ];
        let held = build(ctx(), &metas, &outcomes);
        let spooled = spooled(&metas, &outcomes);
        assert_eq!(spooled.failure(), None);
        assert_eq!(held, spooled);
        assert_eq!(crate::json::render(&held), crate::json::render(&spooled));
    }

    /// A spool that cannot be read back whole (a full disk, a cut file)
    /// leaves every rendering failing with its folder named, never a report
    /// that quietly lists fewer vectors.
    #[test]
    fn a_spool_that_cannot_be_read_back_fails_every_written_rendering() {
        let (metas, outcomes) = mixed();
        let report = spooled(&metas, &outcomes);
        report.vectors.truncate_spool().expect("cut short");
        let dir = std::env::temp_dir().display().to_string();
        let json = crate::json::write(&report, Vec::new()).expect_err("json fails");
        assert!(json.to_string().contains(&dir), "{json}");
        let junit = crate::junit::write(&report, Vec::new()).expect_err("junit fails");
        assert!(junit.to_string().contains("spool file"), "{junit}");
        let html = crate::html::write(&report, &[], no_suite, Vec::new()).expect_err("html fails");
        assert!(html.to_string().contains("spool file"), "{html}");
        let why = report.failure().expect("the failure is kept");
        assert!(why.contains("ends after 1 of its 40 lines"), "{why}");
        // Made held, the entries it could read are kept, and so is why.
        let mut held = report.clone();
        assert_eq!(held.vectors.held_mut().len(), 1);
        assert!(held.vectors.failure().is_some());
    }

    #[test]
    fn the_vector_set_digest_is_that_of_the_list() {
        let list = ["sha256:00", "sha256:\u{1f600}\\\"", "x"];
        assert_eq!(
            vector_set_digest(list),
            digest::digest_value(&json!(list)).expect("digest")
        );
        assert_eq!(
            vector_set_digest::<&str>([]),
            digest::digest_value(&json!([])).expect("digest")
        );
    }

    /// `seal` digests the struct without building its `Value`; `verify`
    /// digests the `Value` a report file parses to. Both must agree on every
    /// member, the optional ones included, and on numbers (durations, 1.5).
    #[test]
    fn seal_digests_what_verify_recomputes_from_the_value() {
        let ctx = ctx();
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
        assert_eq!(report.vectors.held_mut()[1].status, Status::Fail);
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
