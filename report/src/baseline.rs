//! Expected-failure baselines (`ctk run --baseline FILE`), for a vendor
//! working toward conformance.
//!
//! A baseline file (`schemas/baseline.schema.json`, format
//! `ctk-baseline/1`) lists vectors expected to fail, each with a reason, an
//! owner and an expiry date. [`apply`] turns a report's failures that an
//! entry names into [`Status::ExpectedFail`], which does not fail the run;
//! the report records the baseline, and a report that carries one is never
//! claimable ([`crate::claim`]). A baseline cannot rot: an entry
//! whose vector ran and did not fail is *stale*, an entry past its expiry
//! date is *expired*, and either fails the run
//! (`ctk`'s exit code). An expired entry excuses nothing:
//! its vector's failure stays a plain `fail`.
//!
//! Data flows one way: build the report, [`apply`] the baseline, seal,
//! render. [`update`] goes the other way round only in the sense that it
//! reads a finished report and writes a new file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{json, Value};

use crate::build;
use crate::model::{BaselineInfo, BaselineNote, BaselineProblem, Report};
use ctk_core::digest;
use ctk_core::errors::Location;
use ctk_core::outcome::Status;

/// The `format` of a baseline file.
pub const BASELINE_FORMAT: &str = "ctk-baseline/1";

/// The baseline schema, compiled into the binary.
pub const BASELINE_SCHEMA: &str = include_str!("../../schemas/baseline.schema.json");

/// A baseline file could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BaselineError {
    /// Reading or writing the file failed.
    #[error("failed to access baseline {path}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Not JSON.
    #[error("{location}: baseline is not valid JSON: {detail}")]
    Json {
        /// Where.
        location: Location,
        /// Parser message.
        detail: String,
    },
    /// Breaks `schemas/baseline.schema.json`, or a rule the schema cannot
    /// state (a real calendar date, one entry per vector).
    #[error("{location}: baseline: {detail}")]
    Schema {
        /// Where.
        location: Location,
        /// What is wrong.
        detail: String,
    },
    /// `ctk baseline update` found failures no entry covers and was not
    /// told who owns them or until when.
    #[error("{count} failure(s) have no baseline entry yet ({first}): pass {missing} to write new entries")]
    NeedsOwner {
        /// How many new entries are needed.
        count: usize,
        /// The first vector needing one.
        first: String,
        /// The flags missing, e.g. `--owner and --expires`.
        missing: String,
    },
}

/// One entry: a vector expected to fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The vector id.
    pub id: String,
    /// Why it fails.
    pub reason: String,
    /// Who is to fix it.
    pub owner: String,
    /// The last day the entry holds.
    pub expires: time::Date,
}

impl Entry {
    /// The entry as a report carries it.
    pub fn note(&self) -> BaselineNote {
        BaselineNote {
            reason: self.reason.clone(),
            owner: self.owner.clone(),
            expires: date_text(self.expires),
        }
    }
}

/// A parsed, checked baseline file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Baseline {
    /// The file, as given.
    pub source: String,
    /// `sha256:` digest of the document's RFC 8785 form.
    pub sha256: String,
    /// The entries, in file order (ids are unique).
    pub entries: Vec<Entry>,
}

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(BASELINE_SCHEMA).expect("the baseline schema is JSON");
        jsonschema::validator_for(&schema).expect("the baseline schema compiles")
    })
}

/// An RFC 3339 full-date (`YYYY-MM-DD`) that names a real day; `None`
/// otherwise.
pub fn parse_date(text: &str) -> Option<time::Date> {
    let mut parts = text.splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    if !(y.bytes().chain(m.bytes()).chain(d.bytes())).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let month = time::Month::try_from(m.parse::<u8>().ok()?).ok()?;
    time::Date::from_calendar_date(y.parse().ok()?, month, d.parse().ok()?).ok()
}

/// A date as an RFC 3339 full-date.
pub fn date_text(date: time::Date) -> String {
    format!(
        "{:04}-{:02}-{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    )
}

/// Today in UTC, the day expiry is judged against.
pub fn today() -> time::Date {
    time::OffsetDateTime::now_utc().date()
}

/// Parse and check baseline text; `file` names it in errors.
pub fn parse(file: &Path, text: &str) -> Result<Baseline, BaselineError> {
    let at = |pointer: String, detail: String| BaselineError::Schema {
        location: Location {
            file: file.to_path_buf(),
            pointer,
        },
        detail,
    };
    let document: Value = serde_json::from_str(text).map_err(|e| BaselineError::Json {
        location: Location {
            file: file.to_path_buf(),
            pointer: String::new(),
        },
        detail: e.to_string(),
    })?;
    if let Some(error) = validator().iter_errors(&document).next() {
        return Err(at(
            error.instance_path().as_str().to_owned(),
            error.to_string(),
        ));
    }
    let mut entries = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let items = document
        .get("entries")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, item) in items.iter().enumerate() {
        let text = |key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let id = text("id");
        if let Some(first) = seen.insert(id.clone(), i) {
            return Err(at(
                format!("/entries/{i}/id"),
                format!("{id} has an entry already (/entries/{first}); one entry per vector"),
            ));
        }
        let expires_text = text("expires");
        let expires = parse_date(&expires_text).ok_or_else(|| {
            at(
                format!("/entries/{i}/expires"),
                format!("{expires_text:?} is not a calendar date (YYYY-MM-DD)"),
            )
        })?;
        entries.push(Entry {
            id,
            reason: text("reason"),
            owner: text("owner"),
            expires,
        });
    }
    Ok(Baseline {
        source: file.display().to_string(),
        sha256: digest::digest_value(&document).unwrap_or_default(),
        entries,
    })
}

/// Read, parse and check a baseline file.
pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
    let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(path, &text)
}

/// Apply `baseline` to a built report, judging expiry against `today`, and
/// re-seal it. An entry past its date is expired and excuses nothing. An
/// in-date entry whose vector failed makes it `expected-fail`; one whose
/// vector passed or was skipped is stale. An entry whose vector is not in
/// the report is stale when `universe` (every vector id the run was
/// selected from, before any `--partition`) is given and lacks it, and is
/// left alone otherwise (another shard, or outside `--part`/`--id`). A
/// vector that ended in an error stays an error and its entry stands:
/// nothing about conformance was learned.
pub fn apply(
    report: &mut Report,
    baseline: &Baseline,
    today: time::Date,
    universe: Option<&BTreeSet<String>>,
) {
    let mut stale = Vec::new();
    let mut expired = Vec::new();
    // A baseline changes entries, so a spooled run's are read back whole:
    // a run with a baseline is the one that is not flat in memory.
    let source = &report.vector_set.source;
    let vectors = report.vectors.held_mut();
    let index: BTreeMap<&str, usize> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (v.id.as_str(), i))
        .collect();
    let mut changes = Vec::new();
    for entry in &baseline.entries {
        if entry.expires < today {
            expired.push(BaselineProblem {
                id: entry.id.clone(),
                detail: format!(
                    "expired on {} (owner {}): renew it or make the vector pass",
                    date_text(entry.expires),
                    entry.owner
                ),
            });
            continue;
        }
        match index.get(entry.id.as_str()) {
            Some(&i) => match vectors[i].status {
                Status::Fail => changes.push((i, entry.note())),
                Status::Pass => stale.push(BaselineProblem {
                    id: entry.id.clone(),
                    detail: "the vector passes now: remove the entry".to_owned(),
                }),
                Status::Skip => stale.push(BaselineProblem {
                    id: entry.id.clone(),
                    detail: format!(
                        "the vector does not apply to the declared surface ({}): remove the entry",
                        vectors[i].reason
                    ),
                }),
                Status::Error | Status::ExpectedFail => {}
            },
            None if universe.is_some_and(|u| !u.contains(&entry.id)) => {
                stale.push(BaselineProblem {
                    id: entry.id.clone(),
                    detail: format!("no vector of {} has this id: remove the entry", source),
                });
            }
            None => {}
        }
    }
    for (i, note) in changes {
        let v = &mut vectors[i];
        v.status = Status::ExpectedFail;
        v.baseline = Some(note);
    }
    stale.sort_by(|a, b| a.id.cmp(&b.id));
    expired.sort_by(|a, b| a.id.cmp(&b.id));
    report.baseline = Some(BaselineInfo {
        source: baseline.source.clone(),
        sha256: baseline.sha256.clone(),
        entries: baseline.entries.len(),
        stale,
        expired,
    });
    build::recount(report);
    build::seal(report);
}

/// The baseline document of a report's current gating failures (`fail`
/// and `expected-fail`), sorted by id. An entry that made a failure
/// expected is kept as it was; a failure without one gets the vector's
/// failure summary as its reason and `owner` and `expires`, which must then
/// be given. Advisory vectors never gate, so they get no entry.
pub fn update(
    report: &Report,
    owner: Option<&str>,
    expires: Option<time::Date>,
) -> Result<Value, BaselineError> {
    let mut entries: Vec<Value> = Vec::new();
    let mut new: Vec<&str> = Vec::new();
    let mut failures: Vec<_> = report
        .vectors
        .iter()
        .filter(|v| v.advisory.is_none())
        .filter(|v| matches!(v.status, Status::Fail | Status::ExpectedFail))
        .collect();
    failures.sort_by(|a, b| a.id.cmp(&b.id));
    for v in &failures {
        let note = match (&v.baseline, owner, expires) {
            (Some(note), _, _) if v.status == Status::ExpectedFail => note.clone(),
            (_, Some(owner), Some(expires)) => BaselineNote {
                reason: if v.reason.is_empty() {
                    "fails".to_owned()
                } else {
                    v.reason.clone()
                },
                owner: owner.to_owned(),
                expires: date_text(expires),
            },
            _ => {
                new.push(&v.id);
                continue;
            }
        };
        entries.push(json!({
            "id": v.id,
            "reason": note.reason,
            "owner": note.owner,
            "expires": note.expires,
        }));
    }
    if let Some(first) = new.first() {
        let missing = match (owner, expires) {
            (None, None) => "--owner and --expires",
            (None, Some(_)) => "--owner",
            _ => "--expires",
        };
        return Err(BaselineError::NeedsOwner {
            count: new.len(),
            first: (*first).to_owned(),
            missing: missing.to_owned(),
        });
    }
    Ok(json!({ "format": BASELINE_FORMAT, "entries": entries }))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::build::{build, RunContext};
    use crate::model::HostIdentity;
    use ctk_core::outcome::AssertionFailure;
    use ctk_core::outcome::VectorOutcome;
    use ctk_core::set::VectorMeta;

    fn meta(id: &str) -> VectorMeta {
        VectorMeta {
            id: id.into(),
            title: format!("{id} title"),
            part: "verdict".into(),
            file_name: format!("{id}.json"),
            sha256: digest::digest_value(&json!(id)).expect("digest"),
            advisory: None,
            covers: Vec::new(),
            role: None,
        }
    }

    /// A report of AH-1 (passes), AH-2 (fails), AH-3 (fails), AH-4 (skipped).
    fn report() -> Report {
        let vectors: Vec<VectorMeta> = ["AH-1", "AH-2", "AH-3", "AH-4"]
            .into_iter()
            .map(meta)
            .collect();
        let fail = |id: &str| {
            VectorOutcome::from_failures(
                id,
                vec![AssertionFailure::message("run_outcome", "differs")],
                Duration::ZERO,
            )
        };
        let outcomes = vec![
            VectorOutcome::from_failures("AH-1", Vec::new(), Duration::ZERO),
            fail("AH-2"),
            fail("AH-3"),
            VectorOutcome::skip("AH-4", "needs streaming".into()),
        ];
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
                filtered: false,
                started_at: "2026-12-01T08:25:30Z".into(),
                total_ms: 0,
            },
            &vectors,
            &outcomes,
        )
    }

    fn day(text: &str) -> time::Date {
        parse_date(text).expect("date")
    }

    fn baseline(entries: Value) -> Baseline {
        let text = json!({ "format": BASELINE_FORMAT, "entries": entries }).to_string();
        parse(Path::new("b.json"), &text).expect("a valid baseline")
    }

    fn entry(id: &str, expires: &str) -> Value {
        json!({ "id": id, "reason": "known", "owner": "team-a", "expires": expires })
    }

    #[test]
    fn a_baselined_failure_is_expected_and_a_rotten_entry_is_named() {
        let mut r = report();
        let universe: BTreeSet<String> = r.vectors.iter().map(|v| v.id.clone()).collect();
        let b = baseline(json!([
            entry("AH-2", "2026-12-01"),
            entry("AH-1", "2027-01-01"),
            entry("AH-3", "2026-11-30"),
            entry("AH-4", "2027-01-01"),
            entry("AH-99", "2027-01-01"),
        ]));
        apply(&mut r, &b, day("2026-12-01"), Some(&universe));
        // In date on its last day: excused.
        assert_eq!(r.vectors.held_mut()[1].status, Status::ExpectedFail);
        assert_eq!(
            r.vectors.held_mut()[1]
                .baseline
                .as_ref()
                .map(|n| n.owner.as_str()),
            Some("team-a")
        );
        // Expired the day before: the failure stands.
        assert_eq!(r.vectors.held_mut()[2].status, Status::Fail);
        assert_eq!(r.totals.expected_fail, 1);
        assert_eq!(r.totals.fail, 1);
        let info = r.baseline.as_ref().expect("baseline recorded");
        let ids = |p: &[BaselineProblem]| p.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&info.stale), ["AH-1", "AH-4", "AH-99"]);
        assert_eq!(ids(&info.expired), ["AH-3"]);
        assert!(info.fails_run());
        let value = serde_json::to_value(&r).expect("json");
        assert_eq!(build::digests(&value).1, r.digest, "re-sealed");
    }

    #[test]
    fn an_entry_outside_the_run_is_left_alone_without_a_universe() {
        let mut r = report();
        apply(
            &mut r,
            &baseline(json!([
                entry("AH-99", "2027-01-01"),
                entry("AH-2", "2027-01-01")
            ])),
            day("2026-12-01"),
            None,
        );
        let info = r.baseline.as_ref().expect("baseline");
        assert!(!info.fails_run(), "{info:?}");
        assert_eq!(r.totals.expected_fail, 1);
    }

    #[test]
    fn malformed_baselines_name_the_file_and_pointer() {
        let bad = |text: &str| {
            parse(Path::new("dir/b.json"), text)
                .expect_err("refused")
                .to_string()
        };
        let e =
            bad(r#"{"format":"ctk-baseline/1","entries":[{"id":"A","reason":"r","owner":"o"}]}"#);
        assert!(e.starts_with("dir/b.json at /entries/0: baseline:"), "{e}");
        assert!(e.contains("expires"), "{e}");
        let e = bad(
            &json!({"format": BASELINE_FORMAT, "entries": [entry("A", "2026-02-30")]}).to_string(),
        );
        assert!(e.starts_with("dir/b.json at /entries/0/expires:"), "{e}");
        let e = bad(
            &json!({"format": BASELINE_FORMAT, "entries": [entry("A", "2027-01-01"), entry("A", "2027-01-02")]})
                .to_string(),
        );
        assert!(e.starts_with("dir/b.json at /entries/1/id:"), "{e}");
        let e = bad("{");
        assert!(
            e.starts_with("dir/b.json at /: baseline is not valid JSON"),
            "{e}"
        );
    }

    #[test]
    fn update_writes_the_current_failures_and_keeps_their_entries() {
        let mut r = report();
        apply(
            &mut r,
            &baseline(json!([entry("AH-2", "2027-06-30")])),
            day("2026-12-01"),
            None,
        );
        let err = update(&r, None, None).expect_err("AH-3 needs an owner");
        assert!(err.to_string().contains("AH-3"), "{err}");
        assert!(err.to_string().contains("--owner and --expires"), "{err}");
        let doc = update(&r, Some("team-b"), Some(day("2027-03-01"))).expect("doc");
        assert_eq!(
            doc,
            json!({"format": BASELINE_FORMAT, "entries": [
                {"id": "AH-2", "reason": "known", "owner": "team-a", "expires": "2027-06-30"},
                {"id": "AH-3", "reason": "run_outcome: differs", "owner": "team-b", "expires": "2027-03-01"},
            ]})
        );
        let again =
            parse(Path::new("new.json"), &doc.to_string()).expect("update writes a valid file");
        assert_eq!(again.entries.len(), 2);
    }
}
