//! Report types, mirroring `schemas/report.schema.json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::entries::{Entries, VectorTimes};
use ctk_core::outcome::AssertionFailure;
use ctk_core::outcome::Status;

/// The `format` value of every report this runner writes.
pub const REPORT_FORMAT: &str = "ctk-report/1";

/// The runner that produced a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunnerInfo {
    /// Always `ctk`.
    pub name: String,
    /// The runner's version.
    pub version: String,
}

/// The host under test, as it identified itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostIdentity {
    /// Name.
    pub name: String,
    /// Version.
    pub version: String,
    /// Wire spec versions it emits.
    pub spec_versions: Vec<String>,
    /// The adapter features it announced in its handshake (absent from
    /// report.json when it announced none: a base adapter, or a subject
    /// without an adapter contract, such as an AHP backend).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
}

/// The declaration the surface came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeclarationInfo {
    /// `host` (the host's own) or the `--declaration` file name.
    pub source: String,
    /// `sha256:` digest of the document's RFC 8785 form.
    pub sha256: String,
    /// The document itself.
    pub document: Value,
    /// The surface the runner derived from it.
    pub surface: Value,
}

/// The vector set that was run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorSet {
    /// `embedded:<spec>` or the folder.
    pub source: String,
    /// Number of vectors in the report.
    pub count: usize,
    /// Whether `--part`/`--id` narrowed the set (such a report is incomplete
    /// and cannot back a claim).
    pub filtered: bool,
    /// `sha256:` digest of the RFC 8785 form of the ordered list of vector digests.
    pub sha256: String,
}

/// One vector's entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorEntry {
    /// Vector id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Part.
    pub part: String,
    /// The decision id of an advisory vector (its `advisory` member), absent
    /// for a gating one. An advisory result is counted in
    /// [`Report::advisory_totals`] and `parts[].advisory`, never in the
    /// gating totals, so it never changes the exit code or blocks a claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advisory: Option<String>,
    /// File name.
    pub file: String,
    /// `sha256:` digest of the vector's RFC 8785 form.
    pub sha256: String,
    /// Status.
    pub status: Status,
    /// Skip reason, harness error or failure summary.
    pub reason: String,
    /// Failed expectations.
    pub failures: Vec<AssertionFailure>,
    /// The `--baseline` entry that names this vector, when it made a
    /// failure [`Status::ExpectedFail`]; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineNote>,
    /// The clauses a failed vector covers, each with the sentence of the
    /// text it rests on, so a vendor sees the rule they are said to break
    /// and can dispute it; for a vector skipped for an adapter feature, the
    /// clauses the skip left unchecked by it; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clauses: Vec<ClauseQuote>,
    /// The adapter feature whose absence skipped the vector (status
    /// `skip`); absent otherwise. A report holding one is never claimable:
    /// a partial adapter must not claim (Agent Hooks §13.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter_feature: Option<String>,
}

/// A clause as a failed vector's entry cites it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ClauseQuote {
    /// Clause id, e.g. `10.3-j`.
    pub id: String,
    /// The catalog's paraphrase.
    pub text: String,
    /// Where the quote comes from (`agent-hooks/spec/AGENT-HOOKS-0.1.md`,
    /// a schema, or `seed:000`); absent when the catalog quotes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The sentence, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

impl ClauseQuote {
    /// One line: `clause 10.3-j: "<quote>" (<source>)`, or the paraphrase
    /// when the catalog quotes nothing.
    pub fn line(&self) -> String {
        match (&self.quote, &self.source) {
            (Some(q), Some(src)) => format!(
                "clause {}: \"{}\" ({src})",
                self.id,
                q.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            (Some(q), None) => format!(
                "clause {}: \"{}\"",
                self.id,
                q.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            _ => format!(
                "clause {}: {} (the catalog's paraphrase; no sentence quoted)",
                self.id, self.text
            ),
        }
    }
}

/// The vectors one missing adapter feature skipped, and the clauses they
/// left unchecked: what [`Report::feature_gaps`] groups for every output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureGap {
    /// The feature's name.
    pub feature: String,
    /// The skipped vectors' ids, in run order.
    pub vectors: Vec<String>,
    /// The clauses those vectors cover, once each, by id.
    pub clauses: Vec<ClauseQuote>,
}

/// A baseline entry as a report carries it beside the failure it excuses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineNote {
    /// Why the vector is expected to fail.
    pub reason: String,
    /// Who is to fix it.
    pub owner: String,
    /// Last day the entry holds (RFC 3339 full-date).
    pub expires: String,
}

/// The `--baseline` a run applied ([`crate::baseline`]). A report
/// carrying one is never claimable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineInfo {
    /// The file, as given.
    pub source: String,
    /// `sha256:` digest of the file's RFC 8785 form.
    pub sha256: String,
    /// How many entries the file holds.
    pub entries: usize,
    /// Entries whose vector ran and did not fail (or is not in the set):
    /// each fails the run, so a baseline cannot rot. Sorted by id.
    pub stale: Vec<BaselineProblem>,
    /// Entries past their expiry date: each fails the run, and its vector's
    /// failure stays a plain `fail`. Sorted by id.
    pub expired: Vec<BaselineProblem>,
}

impl BaselineInfo {
    /// Whether a stale or expired entry fails the run.
    pub fn fails_run(&self) -> bool {
        !self.stale.is_empty() || !self.expired.is_empty()
    }
}

/// One stale or expired baseline entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineProblem {
    /// The vector id the entry names.
    pub id: String,
    /// What is wrong with it, for a person.
    pub detail: String,
}

/// The shards a `--partition` run (or an incomplete `ctk merge`) covers;
/// such a report holds only part of the set and is never claimable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionInfo {
    /// `hash` or `count` ([`crate::merge::Scheme`]).
    pub scheme: String,
    /// The 1-based shard numbers covered, ascending.
    pub shards: Vec<usize>,
    /// How many shards the set was cut into.
    pub of: usize,
    /// The whole selection the shards were cut from, before partitioning.
    pub set: VectorSet,
}

/// Counts per status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Skipped.
    pub skip: usize,
    /// Errored.
    pub error: usize,
    /// Failed, but named by a `--baseline` entry ([`Status::ExpectedFail`]);
    /// absent from report.json when zero, so reports of runs without a
    /// baseline keep their digests.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub expected_fail: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Totals {
    /// Every counted vector.
    pub fn count(&self) -> usize {
        self.pass + self.fail + self.skip + self.error + self.expected_fail
    }

    /// Vectors that applied (everything but skips).
    pub fn applicable(&self) -> usize {
        self.pass + self.fail + self.error + self.expected_fail
    }

    /// Count one status.
    pub fn add(&mut self, status: Status) {
        match status {
            Status::Pass => self.pass += 1,
            Status::Fail => self.fail += 1,
            Status::Skip => self.skip += 1,
            Status::Error => self.error += 1,
            Status::ExpectedFail => self.expected_fail += 1,
        }
    }
}

/// Totals of one part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartTotals {
    /// The part.
    pub part: String,
    /// Its gating vectors' counts (the ones the exit code and a claim read).
    #[serde(flatten)]
    pub totals: Totals,
    /// Its advisory vectors' counts, which never gate.
    pub advisory: Totals,
}

/// Durations: kept apart because they differ from run to run; excluded from
/// `results_digest`, which CI compares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// When the run started: RFC 3339 in UTC to the second
    /// (`2026-12-01T08:25:30Z`); JUnit's `timestamp`.
    pub started_at: String,
    /// Whole run, milliseconds.
    pub total_ms: u64,
    /// Per vector id, milliseconds.
    pub vectors_ms: VectorTimes,
}

/// A conformance report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Report {
    /// [`REPORT_FORMAT`].
    pub format: String,
    /// The runner.
    pub runner: RunnerInfo,
    /// The protocol the suite certifies ([`ctk_core::suite::Protocol::as_str`]).
    pub protocol: String,
    /// The suite's line the run targeted ([`ctk_core::suite::Suite::wire`]).
    pub spec: String,
    /// The host.
    pub host: HostIdentity,
    /// The declaration and surface.
    pub declaration: DeclarationInfo,
    /// The vector set.
    pub vector_set: VectorSet,
    /// Every vector, in run order.
    pub vectors: Entries,
    /// Totals per part, sorted by part.
    pub parts: Vec<PartTotals>,
    /// Totals of the gating vectors (no `advisory` member): the exit code
    /// and a claim read these only.
    pub totals: Totals,
    /// Totals of the advisory vectors, reported apart; they never gate.
    pub advisory_totals: Totals,
    /// Whether the whole vector set ran (not filtered) and every vector has a result.
    pub complete: bool,
    /// The baseline the run applied, if any (absent from report.json otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineInfo>,
    /// The shards this report holds, when it is not the whole selection
    /// (absent from report.json otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionInfo>,
    /// Durations.
    pub timing: Timing,
    /// Digest over everything except `timing`, `results_digest` and `digest`.
    pub results_digest: String,
    /// Digest over everything except `digest`.
    pub digest: String,
}

impl Report {
    /// Every entry with its duration, in run order: for a renderer that
    /// shows both, without a lookup by id per vector.
    pub fn timed(&self) -> impl Iterator<Item = (std::borrow::Cow<'_, VectorEntry>, u64)> + '_ {
        crate::entries::timed(&self.vectors, &self.timing.vectors_ms)
    }

    /// Entry `index` with its duration.
    pub fn timed_at(&self, index: usize) -> Option<(std::borrow::Cow<'_, VectorEntry>, u64)> {
        crate::entries::timed_at(&self.vectors, &self.timing.vectors_ms, index)
    }

    /// Why the report's entries could not all be read back from the spool
    /// its run wrote them to, if they could not: anything rendered then is
    /// missing entries and must not be written.
    pub fn failure(&self) -> Option<String> {
        self.vectors
            .failure()
            .or_else(|| self.timing.vectors_ms.failure())
    }

    /// The vectors skipped because the subject's adapter lacks a feature,
    /// grouped by feature (in name order) with the clauses they left
    /// unchecked; empty when there are none. Such a report is never
    /// claimable.
    pub fn feature_gaps(&self) -> Vec<FeatureGap> {
        let mut by: BTreeMap<String, (Vec<String>, BTreeMap<String, ClauseQuote>)> =
            BTreeMap::new();
        for v in &self.vectors {
            if let Some(f) = &v.adapter_feature {
                let (ids, clauses) = by.entry(f.clone()).or_default();
                ids.push(v.id.clone());
                for c in &v.clauses {
                    clauses.insert(c.id.clone(), c.clone());
                }
            }
        }
        by.into_iter()
            .map(|(feature, (vectors, clauses))| FeatureGap {
                feature,
                vectors,
                clauses: clauses.into_values().collect(),
            })
            .collect()
    }
}
