//! What an AHP conformance report and its claim must state (AHP §6, §6.1,
//! §7.2, §21), pinned on the kit's own report and claim tooling: the
//! catalog clauses about claims and published artifacts, which no run of
//! an implementation can observe.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use ctk::outcome::VectorOutcome;
use ctk::report::build::{build, RunContext};
use ctk::report::claim;
use ctk::report::model::{HostIdentity, Report};
use ctk::set::{self, VectorMeta};
use ctk::suite::{AhpLine, Suite};
use ctk_agent_hooks_suite::assert::AssertionFailure;
use serde_json::{json, Value};
// The integration tests' helpers; this binary uses only some of them.
#[allow(dead_code)]
#[path = "integration/support.rs"]
mod support;
use support::ctk;

/// The capability profiles of AHP 0.1 (§6.2, §6.3): the ones beside the
/// Base Protocol profile and the binding profiles.
const CAPABILITY_PROFILES: [&str; 2] = ["tool-interception", "lifecycle-observation"];

/// The transport bindings of AHP 0.1 (§17, §18).
const BINDINGS: [&str; 2] = ["stdio", "http"];

/// The released AHP 0.1 vectors of `role`.
fn released(role: &str) -> Vec<VectorMeta> {
    set::released(Suite::Ahp(AhpLine::V0_1))
        .expect("the released AHP suite")
        .iter()
        .filter(|m| m.role.as_deref() == Some(role))
        .cloned()
        .collect()
}

/// The `profiles` of every embedded AHP 0.1 vector file, by vector id.
fn vector_profiles() -> Vec<(String, Vec<String>)> {
    set::embedded_files(Suite::Ahp(AhpLine::V0_1))
        .map(|(name, text)| {
            let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let profiles = v["profiles"]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: no profiles"))
                .iter()
                .map(|p| p.as_str().expect("a profile name").to_owned())
                .collect();
            (v["id"].as_str().expect("an id").to_owned(), profiles)
        })
        .collect()
}

/// How one vector ends in [`report`].
#[derive(Clone, Copy, PartialEq)]
enum End {
    Pass,
    Fail,
    Error,
    Skip,
}

/// A report of `role` over the released suite, every vector ending as
/// `end` says, for a subject the run described as `subject` (the document
/// `ctk run --protocol ahp` writes: role, binding, lifecycle, profiles and
/// both version strings).
fn report(role: &str, subject: Value, end: impl Fn(&VectorMeta) -> End) -> Report {
    let vectors = released(role);
    let outcomes: Vec<VectorOutcome> = vectors
        .iter()
        .map(|v| {
            let d = Duration::from_millis(1);
            match end(v) {
                End::Pass => VectorOutcome::from_failures(&v.id, Vec::new(), d),
                End::Fail => VectorOutcome::from_failures(
                    &v.id,
                    vec![AssertionFailure::message("reply", "differs")],
                    d,
                ),
                End::Error => VectorOutcome::error(&v.id, "the backend died".into(), d),
                End::Skip => VectorOutcome::skip(&v.id, "not applicable".into()),
            }
        })
        .collect();
    build(
        RunContext {
            spec: "agent-hooks-protocol/0.1".into(),
            host: HostIdentity {
                name: "acme-hooks".into(),
                version: "1.2.0".into(),
                spec_versions: vec!["0.1".into()],
                features: Vec::new(),
            },
            declaration_source: "command line".into(),
            declaration: subject.clone(),
            surface: subject,
            vector_source: "embedded:ahp/0.1".into(),
            filtered: false,
            started_at: "2026-12-01T08:25:30Z".into(),
            total_ms: 1,
        },
        &vectors,
        &outcomes,
    )
}

fn subject(role: &str, binding: &str, lifecycle: &str, profiles: &[&str]) -> Value {
    json!({
        "role": role,
        "binding": binding,
        "lifecycle": lifecycle,
        "profiles": profiles,
        "protocol_version": AhpLine::V0_1.wire_version(),
        "revision": AhpLine::V0_1.revision(),
    })
}

/// The claim row of `r` as (column, cell) pairs, by the AHP header.
fn cells(r: &Report) -> Vec<(String, String)> {
    let split = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_owned())
            .collect()
    };
    assert_eq!(claim::header(r), claim::AHP_CLAIM_HEADER);
    let header = split(claim::AHP_CLAIM_HEADER.lines().next().expect("a header"));
    let row = split(&claim::row(r));
    assert_eq!(header.len(), row.len(), "{}", claim::row(r));
    header.into_iter().zip(row).collect()
}

fn cell(r: &Report, column: &str) -> String {
    cells(r)
        .into_iter()
        .find(|(c, _)| c == column)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("the claim has no {column} column: {}", claim::row(r)))
}

/// ahp-6-a, ahp-6-b, ahp-6-c: a claim row names the implementation's role,
/// every transport binding it provides (both, for a harness whose adapter
/// declares both) and every capability profile, in their own columns.
#[test]
fn an_ahp_claim_names_role_bindings_and_profiles() {
    let cases = [
        (
            "backend",
            "stdio",
            "persistent",
            vec![
                "base",
                "lifecycle-observation",
                "stdio",
                "tool-interception",
            ],
        ),
        (
            "harness",
            "stdio+http",
            "persistent+per_event",
            vec![
                "base",
                "http",
                "lifecycle-observation",
                "stdio",
                "tool-interception",
            ],
        ),
    ];
    for (role, binding, lifecycle, profiles) in cases {
        let r = report(role, subject(role, binding, lifecycle, &profiles), |_| {
            End::Pass
        });
        assert!(
            claim::refusals(&r, &[], ctk::set::released).is_empty(),
            "{role}: {:?}",
            claim::refusals(&r, &[], ctk::set::released)
        );
        assert_eq!(cell(&r, "role"), role);
        assert_eq!(cell(&r, "binding"), binding);
        assert_eq!(cell(&r, "lifecycle"), lifecycle);
        assert_eq!(cell(&r, "profiles"), profiles.join(", "));
        let md = ctk::report::markdown::render(&r, ctk::set::released);
        assert!(
            md.contains(&claim::row(&r)),
            "report.md carries the row: {md}"
        );
    }
}

/// ahp-6-d: Base Protocol conformance alone cannot be claimed. A claim's
/// profiles are those of the vectors that ran (`ctk run` narrows them), a
/// claim needs at least one passed vector, and every released vector names
/// a capability profile beside `base`: so every claimable report names one.
#[test]
fn an_ahp_claim_always_names_a_capability_profile_beyond_base() {
    let all = vector_profiles();
    assert!(!all.is_empty());
    for (id, profiles) in &all {
        assert!(profiles.iter().any(|p| p == "base"), "{id}: {profiles:?}");
        assert!(
            profiles
                .iter()
                .any(|p| CAPABILITY_PROFILES.contains(&p.as_str())),
            "{id} names no capability profile, so a run of it alone would claim base only: {profiles:?}"
        );
    }
    for role in ["backend", "harness"] {
        let skipped = report(
            role,
            subject(role, "stdio", "persistent", &["base"]),
            |_| End::Skip,
        );
        assert!(
            claim::refusals(&skipped, &[], ctk::set::released)
                .contains(&"no vector passed".to_owned()),
            "{role}: {:?}",
            claim::refusals(&skipped, &[], ctk::set::released)
        );
    }
}

/// ahp-6.1-d: an implementation claims a profile only if it meets its
/// requirements: one failed or errored gating vector of a profile it claims
/// blocks the claim, and so does a report that left vectors of it out.
#[test]
fn an_ahp_claim_is_refused_when_a_claimed_profile_has_a_failure() {
    let profiles: std::collections::BTreeMap<String, Vec<String>> =
        vector_profiles().into_iter().collect();
    for role in ["backend", "harness"] {
        for capability in CAPABILITY_PROFILES {
            let first = released(role)
                .into_iter()
                .find(|m| m.advisory.is_none() && profiles[&m.id].iter().any(|p| p == capability))
                .unwrap_or_else(|| panic!("a gating {role} vector of {capability}"));
            let doc = subject(role, "stdio", "persistent", &["base", capability]);
            for (end, refusal) in [
                (End::Fail, "1 vector(s) failed"),
                (End::Error, "1 vector(s) ended in a host or harness error"),
            ] {
                let r = report(role, doc.clone(), |m| {
                    if m.id == first.id {
                        end
                    } else {
                        End::Pass
                    }
                });
                let refusals = claim::refusals(&r, &[], ctk::set::released);
                assert!(
                    refusals.contains(&refusal.to_owned()),
                    "{role} {capability} {}: {refusals:?}",
                    first.id
                );
            }
            let mut partial = report(role, doc, |_| End::Pass);
            partial.vectors.held_mut().retain(|v| v.id != first.id);
            assert!(
                claim::refusals(&partial, &[], ctk::set::released)
                    .iter()
                    .any(|r| r.contains("released vector(s) missing")),
                "{role} {capability}: {:?}",
                claim::refusals(&partial, &[], ctk::set::released)
            );
        }
    }
}

/// ahp-7.2-c: a published artifact names the exact schema revision it
/// tests: the 0.1 line is wire `protocolVersion` "0.1", revision
/// `0.1.0-draft.1`, and the claim row carries both in their own columns;
/// a draft-line report is never claimable.
#[test]
fn an_ahp_claim_names_the_exact_schema_revision() {
    assert_eq!(AhpLine::V0_1.wire_version(), "0.1");
    assert_eq!(AhpLine::V0_1.revision(), "0.1.0-draft.1");
    let r = report(
        "backend",
        subject(
            "backend",
            "stdio",
            "persistent",
            &["base", "tool-interception"],
        ),
        |_| End::Pass,
    );
    assert_eq!(cell(&r, "spec"), "agent-hooks-protocol/0.1");
    assert_eq!(cell(&r, "protocolVersion"), "0.1");
    assert_eq!(cell(&r, "revision"), "0.1.0-draft.1");
    let mut draft = r.clone();
    draft.spec = "agent-hooks-protocol/draft".into();
    assert!(
        claim::refusals(&draft, &[], ctk::set::released)
            .iter()
            .any(|x| x.contains("only agent-hooks-protocol/0.1 can be claimed")),
        "{:?}",
        claim::refusals(&draft, &[], ctk::set::released)
    );
}

fn read_report(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report"))
        .expect("json")
}

/// ahp-21-a, ahp-6.1-c: the report `ctk run --protocol ahp` writes names
/// the role, the transport binding (always one of the 0.1 bindings: a run
/// has no other way to reach an implementation) and exactly the profiles
/// of the vectors that ran: those of a vector skipped for another binding
/// (AHP-B-0046, HTTP only, against a stdio backend) are not claimed.
#[test]
fn an_ahp_report_names_role_binding_and_profiles_under_test() {
    let ran = ["AHP-B-0001", "AHP-B-0060"];
    let skipped = "AHP-B-0046";
    let by_id: std::collections::BTreeMap<String, Vec<String>> =
        vector_profiles().into_iter().collect();
    let expected: BTreeSet<String> = ran.iter().flat_map(|id| by_id[*id].clone()).collect();
    assert!(
        by_id[skipped].iter().any(|p| !expected.contains(p)),
        "{skipped} names a profile the others do not: {:?}",
        by_id[skipped]
    );
    let ids = [ran[0], ran[1], skipped];
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("out");
    let dir_s = dir.display().to_string();
    let mut args = vec![
        "run",
        "--protocol",
        "ahp",
        "--role",
        "backend",
        "--report-dir",
        &dir_s,
    ];
    for id in ids {
        args.extend(["--id", id]);
    }
    let out = ctk(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let r = read_report(&dir);
    assert_eq!(r["totals"]["pass"], 2, "{r}");
    let statuses: Vec<(&Value, &Value)> = r["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .map(|v| (&v["id"], &v["status"]))
        .collect();
    assert!(
        statuses.contains(&(&json!(skipped), &json!("skip"))),
        "{statuses:?}"
    );
    let subject = &r["declaration"]["surface"];
    assert_eq!(subject["role"], "backend", "{subject}");
    assert!(
        subject["binding"]
            .as_str()
            .is_some_and(|b| BINDINGS.contains(&b)),
        "{subject}"
    );
    assert_eq!(subject["binding"], "stdio");
    let profiles: BTreeSet<String> = subject["profiles"]
        .as_array()
        .expect("profiles")
        .iter()
        .map(|p| p.as_str().expect("a name").to_owned())
        .collect();
    assert_eq!(profiles, expected, "{subject}");
    assert_eq!(subject["protocol_version"], "0.1");
    assert_eq!(subject["revision"], "0.1.0-draft.1");
}
