//! `ctk claim`: the CLAIMS.md row of a report, or why no claim may be made.
//!
//! A claim names exactly the released suite: the report's vectors must be the
//! embedded vectors of its spec (same count, same ids, same digest and same
//! advisory marking for each), whatever folder or filter the run used; a
//! folder whose files equal the released ones byte for byte in RFC 8785 form
//! is that suite. Advisory results never block a claim: only the gating
//! totals are read. A report that applied a `--baseline` is never
//! claimable (an expected failure is a failure), nor is one shard of a
//! `--partition` run; the complete `ctk merge` of every shard is. Every
//! string the row takes from the host (its name and version from
//! `initialize`, the declaration's capabilities, profiles, identity
//! provider, posture and exposure bound) is escaped for a Markdown
//! table cell and bounded in length.

use std::collections::BTreeMap;

use crate::report::model::{Report, VectorEntry};
use crate::set::{self, VectorMeta};
use crate::suite::{Protocol, Suite};

/// The claimable Agent Hooks line.
pub const CLAIMABLE_SPEC: &str = "agent-hooks/0.1";

/// The claimable AHP line.
pub const CLAIMABLE_AHP_SPEC: &str = "agent-hooks-protocol/0.1";

/// The header of the CLAIMS.md table the row belongs to.
pub const CLAIM_HEADER: &str = "| host | version | spec | capabilities | profiles | identity provider | tool-seam posture | statements | passed | report digest |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";

/// The header of the AHP table of CLAIMS.md: the role, binding, lifecycle,
/// profiles and both version strings a report names (AHP §21).
pub const AHP_CLAIM_HEADER: &str = "| implementation | version | spec | role | binding | lifecycle | profiles | protocolVersion | revision | passed | report digest |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";

/// The CLAIMS.md table header a report's row belongs to.
pub fn header(report: &Report) -> &'static str {
    if report.protocol == Protocol::Ahp.as_str() {
        AHP_CLAIM_HEADER
    } else {
        CLAIM_HEADER
    }
}

/// Longest a host-supplied name (host name, version, capability, profile,
/// provider, posture) may be in a row, in characters, before it is cut with
/// an ellipsis: long enough for any honest name, short enough that a hostile
/// host cannot flood CLAIMS.md.
pub const NAME_BOUND: usize = 64;

/// The same bound for host-supplied free text (the exposure bound).
pub const TEXT_BOUND: usize = 240;

/// How many differing vectors a refusal names before it says how many more.
const NAMED: usize = 3;

/// Why a report cannot back a claim (empty: it can). `verify_problems` are
/// the problems `ctk verify` found. The report's vectors are compared with
/// the released suite of its spec ([`crate::set::released`]).
pub fn refusals(report: &Report, verify_problems: &[String]) -> Vec<String> {
    refusals_against(
        report,
        verify_problems,
        released_suite(report).as_deref().map_err(Clone::clone),
    )
}

/// The released vectors a report of its spec must have run: the embedded
/// set of its suite, and for a suite with roles (AHP) the vectors of the
/// role the report certified. `Err` says why there is none.
pub fn released_suite(report: &Report) -> Result<Vec<VectorMeta>, String> {
    let role = report
        .declaration
        .surface
        .get("role")
        .and_then(|r| r.as_str())
        .filter(|_| report.protocol == Protocol::Ahp.as_str());
    match Suite::parse(&report.spec) {
        Some(suite) => set::released(suite).map(|all| {
            all.iter()
                .filter(|m| m.role.as_deref() == role)
                .cloned()
                .collect()
        }),
        None => Err(format!("no released suite for {}", report.spec)),
    }
}

/// [`refusals`] against a given released suite (`Err`: why it could not be
/// loaded), so tests can state the suite a report must match.
pub fn refusals_against(
    report: &Report,
    verify_problems: &[String],
    released: Result<&[VectorMeta], String>,
) -> Vec<String> {
    let mut out: Vec<String> = verify_problems
        .iter()
        .map(|p| format!("report does not verify: {p}"))
        .collect();
    let suite = Suite::parse(&report.spec);
    let claimable = suite.is_some_and(Suite::claimable);
    if !claimable {
        let line = match suite.map(Suite::protocol) {
            Some(Protocol::Ahp) => CLAIMABLE_AHP_SPEC,
            _ => CLAIMABLE_SPEC,
        };
        out.push(format!(
            "the report is for {}; only {line} can be claimed",
            report.spec
        ));
    }
    if report.totals.fail > 0 {
        out.push(format!("{} vector(s) failed", report.totals.fail));
    }
    if report.totals.expected_fail > 0 {
        out.push(format!(
            "{} vector(s) failed (marked expected-fail by a baseline; an expected failure is still a failure)",
            report.totals.expected_fail
        ));
    }
    if let Some(b) = &report.baseline {
        out.push(format!(
            "the run applied the baseline {} ({}); a baselined report is never claimable: run without --baseline",
            b.source, b.sha256
        ));
    }
    if let Some(p) = &report.partition {
        let shards: Vec<String> = p.shards.iter().map(usize::to_string).collect();
        out.push(format!(
            "the report holds shard(s) {} of {} ({} partition) only; a claim needs every shard, merged with ctk merge",
            shards.join(", "),
            p.of,
            p.scheme
        ));
    }
    if report.totals.error > 0 {
        out.push(format!(
            "{} vector(s) ended in a host or harness error",
            report.totals.error
        ));
    }
    if report.totals.pass == 0 {
        out.push("no vector passed".to_owned());
    }
    if !report.complete {
        out.push(if report.partition.is_some() {
            "the report is incomplete: it holds only part of the set".to_owned()
        } else if report.vector_set.filtered {
            "the run was narrowed with --part/--id; a claim needs the whole vector set".to_owned()
        } else {
            "the report is incomplete".to_owned()
        });
    }
    if claimable {
        match released {
            Ok(suite) => out.extend(suite_differences(report, suite)),
            Err(e) => out.push(format!(
                "the released {} suite cannot be loaded: {e}",
                report.spec
            )),
        }
    }
    if suite.map(Suite::protocol) != Some(Protocol::Ahp)
        && report.declaration.document.get("surface").is_none()
    {
        out.push("the declaration does not state its surface explicitly".to_owned());
    }
    out
}

/// The first [`NAMED`] items, then how many more there are.
fn first_few(items: &[String]) -> String {
    let mut text = items
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > NAMED {
        text.push_str(&format!(" and {} more", items.len() - NAMED));
    }
    text
}

/// How the report's vectors differ from the released suite, one line per
/// kind of difference, each naming the first vectors that differ.
fn suite_differences(report: &Report, released: &[VectorMeta]) -> Vec<String> {
    let prefix = format!("the vectors are not the released {} suite", report.spec);
    let suite: BTreeMap<&str, &VectorMeta> = released.iter().map(|v| (v.id.as_str(), v)).collect();
    let listed: BTreeMap<&str, &VectorEntry> =
        report.vectors.iter().map(|v| (v.id.as_str(), v)).collect();
    let mut out = Vec::new();
    if report.vectors.len() != released.len() {
        out.push(format!(
            "{prefix}: the report lists {} vectors, the suite has {}",
            report.vectors.len(),
            released.len()
        ));
    }
    let missing: Vec<String> = suite
        .keys()
        .filter(|id| !listed.contains_key(*id))
        .map(|id| (*id).to_owned())
        .collect();
    if !missing.is_empty() {
        out.push(format!(
            "{prefix}: {} released vector(s) missing from the report: {}",
            missing.len(),
            first_few(&missing)
        ));
    }
    let extra: Vec<String> = listed
        .keys()
        .filter(|id| !suite.contains_key(*id))
        .map(|id| (*id).to_owned())
        .collect();
    if !extra.is_empty() {
        out.push(format!(
            "{prefix}: {} vector(s) not in the suite: {}",
            extra.len(),
            first_few(&extra)
        ));
    }
    let mut changed = Vec::new();
    let mut marking = Vec::new();
    for (id, entry) in &listed {
        let Some(released) = suite.get(id) else {
            continue;
        };
        if entry.sha256 != released.sha256 {
            changed.push(format!(
                "{id} (report {}, suite {})",
                entry.sha256, released.sha256
            ));
        } else if entry.advisory != released.advisory {
            let say = |a: &Option<String>| {
                a.as_ref()
                    .map(|d| format!("advisory {d}"))
                    .unwrap_or_else(|| "gating".to_owned())
            };
            marking.push(format!(
                "{id} (report {}, suite {})",
                say(&entry.advisory),
                say(&released.advisory)
            ));
        }
    }
    if !changed.is_empty() {
        out.push(format!(
            "{prefix}: {} vector(s) have another digest: {}",
            changed.len(),
            first_few(&changed)
        ));
    }
    if !marking.is_empty() {
        out.push(format!(
            "{prefix}: {} vector(s) are marked otherwise than in the suite: {}",
            marking.len(),
            first_few(&marking)
        ));
    }
    out
}

/// A host-supplied string made safe to print: control characters (line
/// breaks included) become spaces, and text beyond `bound` characters is cut
/// with an ellipsis.
fn bounded(text: &str, bound: usize) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if clean.chars().count() > bound {
        let mut cut: String = clean.chars().take(bound - 1).collect();
        cut.push('…');
        cut
    } else {
        clean
    }
}

/// Text escaped for one Markdown table cell: a `|` would end the cell, a
/// backtick open a code span, `<`/`>` start HTML, a backslash escape the
/// next character.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '|' | '`' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A host-supplied name as one table cell: [`bounded`] by [`NAME_BOUND`],
/// then [`escaped`].
fn cell(text: &str) -> String {
    escaped(&bounded(text, NAME_BOUND))
}

fn list(value: &serde_json::Value, key: &str) -> String {
    let items: Vec<String> = match value.get(key) {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str())
            .map(|s| bounded(s, NAME_BOUND))
            .collect(),
        Some(serde_json::Value::Object(map)) => {
            map.keys().map(|s| bounded(s, NAME_BOUND)).collect()
        }
        _ => Vec::new(),
    };
    escaped(&items.join(", "))
}

/// The statements a claim must carry for this surface (§13.3): non-default
/// posture, identity-unbound or custom provider, unbuffered output with its
/// exposure bound.
pub fn statements(report: &Report) -> Vec<String> {
    let surface = &report.declaration.surface;
    let mut out = Vec::new();
    if surface.get("posture").and_then(|v| v.as_str()) == Some("terminate") {
        out.push("non-default posture: tool_seam_host_error terminate".to_owned());
    }
    match surface.get("identity_provider").and_then(|v| v.as_str()) {
        None => out.push("identity-unbound (identity_provider null)".to_owned()),
        Some("jcs-sha256") => {}
        Some(custom) => out.push(format!(
            "custom identity provider {}; whether it is content-derived must be stated",
            bounded(custom, NAME_BOUND)
        )),
    }
    if surface.get("buffered_output").and_then(|v| v.as_bool()) == Some(false) {
        let bound = report
            .declaration
            .document
            .pointer("/surface/exposure_bound")
            .and_then(|v| v.as_str())
            .unwrap_or("not stated");
        out.push(format!(
            "buffered_output false: released output cannot be retracted; exposure bound: {}",
            bounded(bound, TEXT_BOUND)
        ));
    }
    out
}

/// The CLAIMS.md row (no refusal check; see [`refusals`]). Host-supplied
/// strings are bounded and escaped ([`NAME_BOUND`], [`TEXT_BOUND`]).
pub fn row(report: &Report) -> String {
    if report.protocol == Protocol::Ahp.as_str() {
        return ahp_row(report);
    }
    let surface = &report.declaration.surface;
    let provider = surface
        .get("identity_provider")
        .and_then(|v| v.as_str())
        .unwrap_or("null (identity-unbound)");
    let posture = surface
        .get("posture")
        .and_then(|v| v.as_str())
        .unwrap_or("continue");
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {}/{} | `{}` |",
        cell(&report.host.name),
        cell(&report.host.version),
        cell(&report.spec),
        list(surface, "capabilities"),
        list(surface, "profiles"),
        cell(provider),
        cell(posture),
        escaped(&statements(report).join("; ")),
        report.totals.pass,
        report.totals.applicable(),
        report.digest
    )
}

/// The AHP row: the implementation, the role, binding, lifecycle and
/// profiles it was certified in, and both version strings.
fn ahp_row(report: &Report) -> String {
    let subject = &report.declaration.surface;
    let text = |key: &str| cell(subject.get(key).and_then(|v| v.as_str()).unwrap_or(""));
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {}/{} | `{}` |",
        cell(&report.host.name),
        cell(&report.host.version),
        cell(&report.spec),
        text("role"),
        text("binding"),
        text("lifecycle"),
        list(subject, "profiles"),
        text("protocol_version"),
        text("revision"),
        report.totals.pass,
        report.totals.applicable(),
        report.digest
    )
}

/// Unit tests pinning the claim clauses of the catalog (10.1-e, 12.1a-c,
/// 12.1a-d, 13-a, 13-b, 13-c, 13-e) that no vector can test.
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{json, Value};

    use super::*;
    use crate::outcome::VectorOutcome;
    use crate::report::build::{build, RunContext};
    use crate::report::model::HostIdentity;
    use ctk_agent_hooks_suite::assert::AssertionFailure;

    /// A report over the released suite (the embedded 0.1 vectors, so it is
    /// claimable): every vector passes, except that `fail` makes the first
    /// gating one fail.
    fn report(spec: &str, fail: bool, document: Value) -> Report {
        let vectors = set::released(Suite::AgentHooks(
            ctk_agent_hooks_suite::vector::model::SpecVersion::V0_1,
        ))
        .expect("the released suite");
        let first_gating = vectors
            .iter()
            .position(|v| v.advisory.is_none())
            .expect("a gating vector");
        let outcomes: Vec<VectorOutcome> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let failures = if fail && i == first_gating {
                    vec![AssertionFailure::message("run_outcome", "differs")]
                } else {
                    Vec::new()
                };
                VectorOutcome::from_failures(&v.id, failures, Duration::from_millis(1))
            })
            .collect();
        let surface = ctk_agent_hooks_suite::declaration::surface(&document);
        build(
            RunContext {
                spec: spec.into(),
                host: HostIdentity {
                    name: "acme-agents".into(),
                    version: "2.4.0".into(),
                    spec_versions: vec![spec.into()],
                },
                declaration_source: "host".into(),
                declaration: document,
                surface: serde_json::to_value(&surface).expect("surface"),
                vector_source: "embedded:0.1".into(),
                filtered: false,
                started_at: "2026-12-01T08:25:30Z".into(),
                total_ms: 1,
            },
            vectors,
            &outcomes,
        )
    }

    /// A fixed full declaration (a copy of the reference host's), so these
    /// tests do not move when the reference host's surface does.
    fn reference() -> Value {
        serde_json::from_str(include_str!("../../tests/data/declarations/host-full.json"))
            .expect("json")
    }

    fn with(mut doc: Value, pointer: &str, value: Value) -> Value {
        if let Some(slot) = doc.pointer_mut(pointer) {
            *slot = value;
        }
        doc
    }

    #[test]
    fn claim_states_identity_binding() {
        let unbound = with(reference(), "/configuration/identity_provider", Value::Null);
        let r = report("agent-hooks/0.1", false, unbound);
        assert!(
            row(&r).contains("identity-unbound (identity_provider null)"),
            "{}",
            row(&r)
        );
        let custom = with(
            reference(),
            "/configuration/identity_provider",
            json!("hmac-sha256-k1"),
        );
        let r = report("agent-hooks/0.1", false, custom);
        assert!(
            row(&r).contains(
                "custom identity provider hmac-sha256-k1; whether it is content-derived must be stated"
            ),
            "{}",
            row(&r)
        );
        let r = report("agent-hooks/0.1", false, reference());
        assert!(!row(&r).contains("identity-unbound"), "{}", row(&r));
    }

    #[test]
    fn unbuffered_claim_states_no_retraction() {
        let r = report("agent-hooks/0.1", false, reference());
        assert!(
            row(&r).contains("buffered_output false: released output cannot be retracted"),
            "{}",
            row(&r)
        );
        let buffered = with(reference(), "/surface/buffered_output", json!(true));
        let r = report("agent-hooks/0.1", false, buffered);
        assert!(!row(&r).contains("cannot be retracted"), "{}", row(&r));
    }

    #[test]
    fn incremental_claim_states_exposure_bound() {
        let bound = reference()
            .pointer("/surface/exposure_bound")
            .and_then(Value::as_str)
            .expect("the reference host states its exposure bound")
            .to_owned();
        let r = report("agent-hooks/0.1", false, reference());
        assert!(
            row(&r).contains(&format!("exposure bound: {bound}")),
            "{}",
            row(&r)
        );
    }

    #[test]
    fn any_failure_blocks_conformance() {
        let r = report("agent-hooks/0.1", true, reference());
        assert_eq!(r.totals.fail, 1);
        assert_eq!(
            crate::cli::run::exit_code_for(&r),
            crate::exit_code::FAILURES
        );
        assert!(refusals(&r, &[]).contains(&"1 vector(s) failed".to_owned()));
        let ok = report("agent-hooks/0.1", false, reference());
        assert_eq!(
            crate::cli::run::exit_code_for(&ok),
            crate::exit_code::SUCCESS
        );
        assert!(refusals(&ok, &[]).is_empty(), "{:?}", refusals(&ok, &[]));
    }

    #[test]
    fn claim_refuses_failed_report() {
        let r = report("agent-hooks/0.1", true, reference());
        assert_eq!(refusals(&r, &[]), ["1 vector(s) failed"]);
        let implicit = {
            let mut doc = reference();
            doc.as_object_mut().map(|o| o.remove("surface"));
            report("agent-hooks/0.1", false, doc)
        };
        assert_eq!(
            refusals(&implicit, &[]),
            ["the declaration does not state its surface explicitly"]
        );
    }

    #[test]
    fn claim_row_has_every_tuple_member() {
        let terminate = with(
            reference(),
            "/configuration/posture/tool_seam_host_error",
            json!("terminate"),
        );
        let r = report("agent-hooks/0.1", false, terminate);
        let line = row(&r);
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let header: Vec<&str> = CLAIM_HEADER
            .lines()
            .next()
            .expect("header")
            .trim_matches('|')
            .split(" | ")
            .map(str::trim)
            .collect();
        assert_eq!(cells.len(), header.len(), "{line}");
        assert_eq!(
            &cells[..7],
            [
                "acme-agents",
                "2.4.0",
                "agent-hooks/0.1",
                "bigint_json, incremental_output, int64_json, model_calls, multi_turn, parallel_tool_calls, streaming, tool_calls",
                "parallel/strictest, parallel/unanimous, sequential/first_deny, sequential/run_all",
                "jcs-sha256",
                "terminate",
            ]
        );
        assert!(
            cells[7].starts_with("non-default posture: tool_seam_host_error terminate"),
            "{line}"
        );
        assert_eq!(cells[8], format!("{0}/{0}", r.totals.pass));
        assert_eq!(cells[9], format!("`{}`", r.digest));
    }

    #[test]
    fn draft_report_refused() {
        let r = report("agent-hooks/draft", false, reference());
        assert_eq!(
            refusals(&r, &[]),
            ["the report is for agent-hooks/draft; only agent-hooks/0.1 can be claimed"]
        );
        let md = crate::report::markdown::render(&r);
        assert!(!md.contains(CLAIM_HEADER), "{md}");
    }
}
