//! Sharding for slow hosts: `ctk run --partition hash:K/N` (or `count:K/N`)
//! runs one shard of the selection, and `ctk merge REPORT...` puts the
//! shards' reports back together.
//!
//! The convention is nextest's: `K` is 1-based. `hash` puts a vector in
//! shard `1 + (h mod N)`, `h` being the first eight bytes (big-endian) of
//! the SHA-256 of its id, so a vector's shard depends on its id alone and
//! never moves when others are added. `count` deals the selection out in
//! order, the `i`-th vector (from 0) to shard `1 + (i mod N)`. Either way
//! the shards are disjoint and together cover the set.
//!
//! A shard's report names its shard and the whole selection it was cut
//! from ([`PartitionInfo`]) and is never claimable. [`merge`] refuses shards
//! that were not cut from the same run (suite, subject, declaration, set,
//! scheme, shard count, baseline) or that overlap. When every shard is
//! there, the merged report is exactly the report the unsharded run would
//! have written, `results_digest` included (only `timing` differs), so it
//! verifies and, like that run's, may back a claim. Otherwise it names the
//! shards it holds and stays unclaimable. (An AHP subject's `profiles` are
//! those of the vectors that applied, so they differ between shards; the
//! merge lists their union, as the unsharded run does.) Its `timing`, outside
//! `results_digest`, holds the earliest shard's start, the longest shard's
//! time (the shards ran side by side) and every vector's time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::str::FromStr;

use sha2::{Digest as _, Sha256};

use crate::build::{self, vector_set_digest};
use serde_json::{json, Value};

use crate::model::{
    BaselineInfo, DeclarationInfo, Entries, PartitionInfo, Report, VectorEntry, VectorSet,
    VectorTimes,
};
use ctk_core::digest;
use ctk_core::suite::Protocol;

/// How a partition assigns vectors to shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// By a stable hash of the vector id.
    Hash,
    /// By position in the selection, round robin.
    Count,
}

impl Scheme {
    /// The spelling in `--partition` and in a report.
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Hash => "hash",
            Scheme::Count => "count",
        }
    }
}

/// One shard: `--partition SCHEME:K/N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// The scheme.
    pub scheme: Scheme,
    /// The shard, 1-based.
    pub shard: usize,
    /// How many shards.
    pub of: usize,
}

/// A `--partition` value that is not `hash:K/N` or `count:K/N` with
/// `1 <= K <= N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--partition {given}: {detail} (expected hash:K/N or count:K/N, K from 1 to N, e.g. hash:1/4)"
)]
pub struct PartitionParseError {
    /// What was given.
    pub given: String,
    /// What is wrong.
    pub detail: String,
}

impl FromStr for Partition {
    type Err = PartitionParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = |detail: &str| PartitionParseError {
            given: text.to_owned(),
            detail: detail.to_owned(),
        };
        let (scheme, rest) = text.split_once(':').ok_or_else(|| err("no scheme"))?;
        let scheme = match scheme {
            "hash" => Scheme::Hash,
            "count" => Scheme::Count,
            _ => return Err(err("unknown scheme")),
        };
        let (k, n) = rest.split_once('/').ok_or_else(|| err("no /N"))?;
        let shard: usize = k.parse().map_err(|_| err("K is not a number"))?;
        let of: usize = n.parse().map_err(|_| err("N is not a number"))?;
        if of == 0 || shard == 0 || shard > of {
            return Err(err("K must be from 1 to N"));
        }
        Ok(Self { scheme, shard, of })
    }
}

/// The `hash` shard (1-based) of a vector id among `of` shards.
pub fn hash_shard(id: &str, of: usize) -> usize {
    let sum = Sha256::digest(id.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&sum[..8]);
    let of = u64::try_from(of.max(1)).unwrap_or(u64::MAX);
    // The remainder is below `of`, which came from a usize.
    usize::try_from(u64::from_be_bytes(head) % of).unwrap_or(0) + 1
}

impl Partition {
    /// Whether the vector at `position` (0-based, in selection order) with
    /// `id` belongs to this shard.
    pub fn contains(&self, position: usize, id: &str) -> bool {
        match self.scheme {
            Scheme::Hash => hash_shard(id, self.of) == self.shard,
            Scheme::Count => position % self.of + 1 == self.shard,
        }
    }

    /// Keep this shard's items of a selection, in order.
    pub fn select<T>(&self, items: Vec<T>, id: impl Fn(&T) -> &str) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, item)| self.contains(*i, id(item)))
            .map(|(_, item)| item)
            .collect()
    }

    /// What a shard's report records: this shard and the whole `set` it
    /// was cut from.
    pub fn info(&self, set: VectorSet) -> PartitionInfo {
        PartitionInfo {
            scheme: self.scheme.as_str().to_owned(),
            shards: vec![self.shard],
            of: self.of,
            set,
        }
    }
}

/// Why shard reports cannot be merged. Each names the report file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// Nothing to merge.
    #[error("ctk merge needs at least one shard report")]
    Empty,
    /// A shard report that does not verify.
    #[error("{path}: does not verify, so it cannot be merged: {problems}")]
    DoesNotVerify {
        /// The report.
        path: PathBuf,
        /// What `ctk verify` found.
        problems: String,
    },
    /// A report that is not a shard (`ctk run` without `--partition`).
    #[error("{path}: not a shard report (it has no partition; run the shards with --partition hash:K/N)")]
    NotAShard {
        /// The report.
        path: PathBuf,
    },
    /// A report from another run than the first one's.
    #[error("{path}: {what} differs from {first}'s, so the shards are not of one run: {this} vs {theirs}")]
    Mismatch {
        /// The report.
        path: PathBuf,
        /// The first report.
        first: PathBuf,
        /// What differs.
        what: &'static str,
        /// Its value in `path`.
        this: String,
        /// Its value in `first`.
        theirs: String,
    },
    /// Two reports hold the same shard or the same vector.
    #[error("{path}: overlaps {other}: both hold {what}; merge each shard once")]
    Overlap {
        /// The report.
        path: PathBuf,
        /// The report it overlaps.
        other: PathBuf,
        /// The shard or vector both hold.
        what: String,
    },
    /// A report lists a vector its shard does not hold.
    #[error("{path}: {id} is not in shard {shards} of {scheme}/{of}; the report was not cut by its own partition")]
    WrongShard {
        /// The report.
        path: PathBuf,
        /// The vector.
        id: String,
        /// The shards the report claims.
        shards: String,
        /// The scheme.
        scheme: String,
        /// Shard count.
        of: usize,
    },
    /// Every shard is there, yet the vectors are not the set they were cut from.
    #[error("all {of} shards are present, but their {count} vectors are not the selection they were cut from ({set_count} vectors, {set_sha256})")]
    NotTheSet {
        /// Shard count.
        of: usize,
        /// Vectors gathered.
        count: usize,
        /// The selection's count.
        set_count: usize,
        /// The selection's digest.
        set_sha256: String,
    },
}

fn text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Merge shard reports (each with the file it came from, for errors) into
/// one report; see the module docs. The caller checks that each verifies.
pub fn merge(reports: &[(PathBuf, Report)]) -> Result<Report, MergeError> {
    let (first_path, first) = reports.first().ok_or(MergeError::Empty)?;
    let mut shard_of: BTreeMap<usize, &PathBuf> = BTreeMap::new();
    let mut vector_of: BTreeMap<String, &PathBuf> = BTreeMap::new();
    let part0 = first
        .partition
        .as_ref()
        .ok_or_else(|| MergeError::NotAShard {
            path: first_path.clone(),
        })?;
    for (path, r) in reports {
        let part = r
            .partition
            .as_ref()
            .ok_or_else(|| MergeError::NotAShard { path: path.clone() })?;
        let same = |what: &'static str, this: String, theirs: String| {
            if this == theirs {
                Ok(())
            } else {
                Err(MergeError::Mismatch {
                    path: path.clone(),
                    first: first_path.clone(),
                    what,
                    this,
                    theirs,
                })
            }
        };
        same("format", r.format.clone(), first.format.clone())?;
        same("runner", text(&r.runner), text(&first.runner))?;
        same("protocol", r.protocol.clone(), first.protocol.clone())?;
        same("spec", r.spec.clone(), first.spec.clone())?;
        same("host", text(&r.host), text(&first.host))?;
        same(
            "declaration",
            text(&comparable_declaration(r)),
            text(&comparable_declaration(first)),
        )?;
        same(
            "partition scheme",
            part.scheme.clone(),
            part0.scheme.clone(),
        )?;
        same("shard count", part.of.to_string(), part0.of.to_string())?;
        same("vector set", text(&part.set), text(&part0.set))?;
        same(
            "baseline",
            text(&r.baseline.as_ref().map(|b| &b.sha256)),
            text(&first.baseline.as_ref().map(|b| &b.sha256)),
        )?;
        for shard in &part.shards {
            if let Some(other) = shard_of.insert(*shard, path) {
                return Err(MergeError::Overlap {
                    path: path.clone(),
                    other: other.clone(),
                    what: format!("shard {shard}/{}", part.of),
                });
            }
        }
        for v in &r.vectors {
            if let Some(other) = vector_of.insert(v.id.clone(), path) {
                return Err(MergeError::Overlap {
                    path: path.clone(),
                    other: other.clone(),
                    what: format!("vector {}", v.id),
                });
            }
            if part.scheme == Scheme::Hash.as_str()
                && !part.shards.contains(&hash_shard(&v.id, part.of))
            {
                return Err(MergeError::WrongShard {
                    path: path.clone(),
                    id: v.id.clone(),
                    shards: part
                        .shards
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(","),
                    scheme: part.scheme.clone(),
                    of: part.of,
                });
            }
        }
    }
    let mut merged = first.clone();
    let mut all: Vec<VectorEntry> = reports
        .iter()
        .flat_map(|(_, r)| r.vectors.iter().map(std::borrow::Cow::into_owned))
        .collect();
    // Every loader runs its selection in file-name order, so that order
    // restores the unsharded run's; the set digest below confirms it.
    all.sort_by(|a, b| a.file.cmp(&b.file).then_with(|| a.id.cmp(&b.id)));
    let shards: Vec<usize> = shard_of.keys().copied().collect();
    let whole = shards.len() == part0.of;
    if whole {
        let sha256 = vector_set_digest(all.iter().map(|v| v.sha256.as_str()));
        if all.len() != part0.set.count || sha256 != part0.set.sha256 {
            return Err(MergeError::NotTheSet {
                of: part0.of,
                count: all.len(),
                set_count: part0.set.count,
                set_sha256: part0.set.sha256.clone(),
            });
        }
        merged.vector_set = part0.set.clone();
        merged.partition = None;
        // As `build` judges an unsharded run.
        merged.complete =
            !part0.set.filtered && !all.iter().any(|v| ctk_core::outcome::never_ran(&v.reason));
    } else {
        merged.vector_set = VectorSet {
            source: part0.set.source.clone(),
            count: all.len(),
            filtered: true,
            sha256: vector_set_digest(all.iter().map(|v| v.sha256.as_str())),
        };
        merged.partition = Some(PartitionInfo {
            shards,
            ..part0.clone()
        });
        merged.complete = false;
    }
    if merged.protocol == Protocol::Ahp.as_str() {
        let mut all: Vec<String> = reports
            .iter()
            .flat_map(|(_, r)| profiles(&r.declaration.document))
            .collect();
        all.sort();
        all.dedup();
        for doc in [
            &mut merged.declaration.document,
            &mut merged.declaration.surface,
        ] {
            if let Some(obj) = doc.as_object_mut() {
                obj.insert("profiles".to_owned(), json!(all));
            }
        }
        merged.declaration.sha256 =
            digest::digest_value(&merged.declaration.document).unwrap_or_default();
    }
    merged.baseline = merge_baselines(reports);
    merged.timing.started_at = reports
        .iter()
        .map(|(_, r)| r.timing.started_at.clone())
        .min()
        .unwrap_or_default();
    merged.vectors = Entries::from(all);
    merged.timing.total_ms = reports
        .iter()
        .map(|(_, r)| r.timing.total_ms)
        .max()
        .unwrap_or(0);
    let mut times = std::collections::BTreeMap::new();
    for (_, r) in reports {
        for (id, ms) in r.timing.vectors_ms.sorted().iter() {
            times.insert(id.to_owned(), ms);
        }
    }
    merged.timing.vectors_ms = VectorTimes::from(times);
    build::recount(&mut merged);
    build::seal(&mut merged);
    Ok(merged)
}

/// The profiles an AHP subject lists.
fn profiles(document: &Value) -> Vec<String> {
    document
        .get("profiles")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(str::to_owned))
        .collect()
}

/// The declaration as shards of one run share it. An AHP run lists as its
/// subject's profiles those of the vectors that applied (`run_ahp`), which
/// differ from shard to shard; the merge lists their union, as the
/// unsharded run would have, so they are left out of the comparison.
fn comparable_declaration(report: &Report) -> DeclarationInfo {
    let mut d = report.declaration.clone();
    if report.protocol == Protocol::Ahp.as_str() {
        for doc in [&mut d.document, &mut d.surface] {
            if let Some(obj) = doc.as_object_mut() {
                obj.remove("profiles");
            }
        }
        d.sha256 = String::new();
    }
    d
}

/// The shards' baseline sections as one: every shard judged expiry and
/// unknown ids for the whole file, each its own vectors' staleness, so the
/// union (one line per id) is what the unsharded run found.
fn merge_baselines(reports: &[(PathBuf, Report)]) -> Option<BaselineInfo> {
    let mut infos = reports.iter().filter_map(|(_, r)| r.baseline.as_ref());
    let mut out = infos.next()?.clone();
    let union = |a: &mut Vec<_>, b: &[crate::model::BaselineProblem]| {
        let mut seen: BTreeSet<String> = a
            .iter()
            .map(|p: &crate::model::BaselineProblem| p.id.clone())
            .collect();
        for p in b {
            if seen.insert(p.id.clone()) {
                a.push(p.clone());
            }
        }
        a.sort_by(|x, y| x.id.cmp(&y.id));
    };
    for info in infos {
        union(&mut out.stale, &info.stale);
        union(&mut out.expired, &info.expired);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::baseline;
    use crate::build::{build, RunContext};
    use crate::model::HostIdentity;
    use ctk_core::outcome::AssertionFailure;
    use ctk_core::outcome::{Status, VectorOutcome};
    use ctk_core::set::VectorMeta;

    fn meta(i: usize) -> VectorMeta {
        let id = format!("AH-{i:02}");
        VectorMeta {
            title: format!("{id} title"),
            part: if i.is_multiple_of(2) { "a" } else { "b" }.into(),
            file_name: format!("{id}.json"),
            sha256: ctk_core::digest::digest_value(&json!(id)).expect("digest"),
            advisory: None,
            covers: Vec::new(),
            role: None,
            id,
        }
    }

    /// Even vectors pass, odd ones fail.
    fn outcome(m: &VectorMeta, i: usize) -> VectorOutcome {
        let failures = if i % 2 == 1 {
            vec![AssertionFailure::message("run_outcome", "differs")]
        } else {
            Vec::new()
        };
        VectorOutcome::from_failures(&m.id, failures, Duration::from_millis(1))
    }

    fn run(metas: &[VectorMeta], outcomes: &[VectorOutcome], filtered: bool) -> Report {
        build(
            RunContext {
                spec: "agent-hooks/0.1".into(),
                host: HostIdentity {
                    name: "h".into(),
                    version: "1".into(),
                    spec_versions: vec!["agent-hooks/0.1".into()],
                    features: Vec::new(),
                },
                declaration_source: "host".into(),
                declaration: json!({}),
                surface: json!({}),
                vector_source: "embedded:0.1".into(),
                filtered,
                started_at: "2026-12-01T08:25:30Z".into(),
                total_ms: 1,
            },
            metas,
            outcomes,
        )
    }

    /// With a baseline that excuses a failure, names a passing vector, an
    /// unknown id and an expired entry, the merge of every shard is still
    /// the unsharded run's report: each shard judged the whole file.
    #[test]
    fn shards_with_a_baseline_merge_into_the_unsharded_report() {
        let metas: Vec<VectorMeta> = (0..12).map(meta).collect();
        let outcomes: Vec<VectorOutcome> = metas
            .iter()
            .enumerate()
            .map(|(i, m)| outcome(m, i))
            .collect();
        let universe: BTreeSet<String> = metas.iter().map(|m| m.id.clone()).collect();
        let text = json!({"format": "ctk-baseline/1", "entries": [
            {"id": "AH-01", "reason": "r", "owner": "o", "expires": "2999-01-01"},
            {"id": "AH-02", "reason": "r", "owner": "o", "expires": "2999-01-01"},
            {"id": "AH-03", "reason": "r", "owner": "o", "expires": "2020-01-01"},
            {"id": "AH-99", "reason": "r", "owner": "o", "expires": "2999-01-01"},
        ]})
        .to_string();
        let b = baseline::parse(std::path::Path::new("b.json"), &text).expect("valid");
        let today = baseline::parse_date("2026-12-01").expect("date");
        let mut whole = run(&metas, &outcomes, false);
        baseline::apply(&mut whole, &b, today, Some(&universe));
        let set = whole.vector_set.clone();
        let shards: Vec<(PathBuf, Report)> = (1..=4)
            .map(|k| {
                let p = Partition {
                    scheme: Scheme::Hash,
                    shard: k,
                    of: 4,
                };
                let (m, o): (Vec<VectorMeta>, Vec<VectorOutcome>) = metas
                    .iter()
                    .cloned()
                    .zip(outcomes.iter().cloned())
                    .enumerate()
                    .filter(|(i, (m, _))| p.contains(*i, &m.id))
                    .map(|(_, pair)| pair)
                    .unzip();
                let mut r = run(&m, &o, true);
                r.partition = Some(p.info(set.clone()));
                baseline::apply(&mut r, &b, today, Some(&universe));
                (PathBuf::from(format!("shard-{k}.json")), r)
            })
            .collect();
        assert!(shards.iter().all(|(_, r)| !r.vectors.is_empty()));
        let merged = merge(&shards).expect("merges");
        assert_eq!(
            merged.vectors.get(1).expect("a second entry").status,
            Status::ExpectedFail
        );
        assert_eq!(merged.baseline, whole.baseline);
        assert_eq!(merged.results_digest, whole.results_digest);
        let partial = merge(&shards[..3]).expect("merges");
        assert_eq!(
            partial.partition.as_ref().map(|p| p.shards.clone()),
            Some(vec![1, 2, 3])
        );
        assert!(!partial.complete);
    }

    #[test]
    fn partitions_parse_like_nextest() {
        let p: Partition = "hash:2/4".parse().expect("valid");
        assert_eq!((p.scheme, p.shard, p.of), (Scheme::Hash, 2, 4));
        let c: Partition = "count:1/1".parse().expect("valid");
        assert_eq!(c.scheme, Scheme::Count);
        for bad in [
            "hash:0/4",
            "hash:5/4",
            "hash:1/0",
            "slice:1/2",
            "hash:1",
            "hash:a/2",
            "1/2",
        ] {
            let e = bad.parse::<Partition>().expect_err(bad).to_string();
            assert!(e.starts_with(&format!("--partition {bad}:")), "{e}");
        }
    }

    #[test]
    fn shards_are_disjoint_and_cover_the_set() {
        let ids: Vec<String> = (0..200).map(|i| format!("AH-CTK-{i:03}")).collect();
        for scheme in ["hash", "count"] {
            let mut seen = BTreeMap::new();
            for k in 1..=4 {
                let p: Partition = format!("{scheme}:{k}/4").parse().expect("valid");
                let mine = p.select(ids.clone(), |s| s.as_str());
                assert!(!mine.is_empty(), "{scheme}:{k}/4 is empty");
                for id in mine {
                    assert!(
                        seen.insert(id, k).is_none(),
                        "{scheme}: a vector in two shards"
                    );
                }
            }
            assert_eq!(seen.len(), ids.len(), "{scheme}: shards cover the set");
        }
        // Stable: a vector's hash shard depends on its id alone.
        assert_eq!(hash_shard("AH-CTK-001", 4), hash_shard("AH-CTK-001", 4));
        let p: Partition = "count:2/3".parse().expect("valid");
        assert_eq!(p.select(vec!["a", "b", "c", "d", "e"], |s| s), ["b", "e"]);
    }
}
