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

use std::collections::{BTreeMap, BTreeSet};

use crate::model::Report;
use ctk_core::set::VectorMeta;
use ctk_core::suite::{Protocol, Suite};

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

/// Where the report code finds a suite's released vectors. Each suite knows
/// its own and only the CLI knows every suite, so the CLI hands this in
/// (`ctk::set::released`); the report code imports no suite.
pub type ReleasedSets = fn(Suite) -> Result<&'static [VectorMeta], String>;

/// Why a report cannot back a claim (empty: it can). `verify_problems` are
/// the problems `ctk verify` found. The report's vectors are compared with
/// the released suite of its spec, as `released` gives it.
pub fn refusals(
    report: &Report,
    verify_problems: &[String],
    released: ReleasedSets,
) -> Vec<String> {
    refusals_against(
        report,
        verify_problems,
        released_suite(report, released)
            .as_deref()
            .map_err(Clone::clone),
    )
}

/// The released vectors a report of its spec must have run: the embedded
/// set of its suite, and for a suite with roles (AHP) the vectors of the
/// role the report certified. `Err` says why there is none.
pub fn released_suite(report: &Report, released: ReleasedSets) -> Result<Vec<VectorMeta>, String> {
    let role = report
        .declaration
        .surface
        .get("role")
        .and_then(|r| r.as_str())
        .filter(|_| report.protocol == Protocol::Ahp.as_str());
    match Suite::parse(&report.spec) {
        Some(suite) => released(suite).map(|all| {
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
    out.extend(feature_gaps(report));
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

/// One refusal per adapter feature whose absence skipped vectors: a
/// partial adapter may run vectors but must not claim (Agent Hooks §13.1:
/// "Partial adapters under development can run vector subsets locally but
/// MUST NOT claim conformance"), advisory vectors included, since the
/// adapter is partial whichever vectors need the feature.
fn feature_gaps(report: &Report) -> Vec<String> {
    report
        .feature_gaps()
        .into_iter()
        .map(|gap| {
            format!(
                "{} vector(s) were skipped because the adapter does not implement {} ({}); \
                 a partial adapter must not claim (§13.1): implement it and announce it in the handshake",
                gap.vectors.len(),
                gap.feature,
                first_few(&gap.vectors)
            )
        })
        .collect()
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
    let mut out = Vec::new();
    if report.vectors.len() != released.len() {
        out.push(format!(
            "{prefix}: the report lists {} vectors, the suite has {}",
            report.vectors.len(),
            released.len()
        ));
    }
    // One walk of the entries (a run's are read back from its spool),
    // keeping only what concerns the released suite, which is small: the
    // report may name a hundred thousand vectors that are not in it, and
    // only the first few of those are named.
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut extra_count = 0usize;
    let mut extra_first: BTreeSet<String> = BTreeSet::new();
    let mut changed: BTreeMap<String, String> = BTreeMap::new();
    let mut marking: BTreeMap<String, String> = BTreeMap::new();
    for entry in &report.vectors {
        let id = entry.id.as_str();
        let Some((&key, released)) = suite.get_key_value(id) else {
            extra_count += 1;
            extra_first.insert(id.to_owned());
            if extra_first.len() > NAMED {
                extra_first.pop_last();
            }
            continue;
        };
        seen.insert(key);
        if entry.sha256 != released.sha256 {
            changed.insert(
                id.to_owned(),
                format!("{id} (report {}, suite {})", entry.sha256, released.sha256),
            );
        } else if entry.advisory != released.advisory {
            let say = |a: &Option<String>| {
                a.as_ref()
                    .map(|d| format!("advisory {d}"))
                    .unwrap_or_else(|| "gating".to_owned())
            };
            marking.insert(
                id.to_owned(),
                format!(
                    "{id} (report {}, suite {})",
                    say(&entry.advisory),
                    say(&released.advisory)
                ),
            );
        } else {
            changed.remove(id);
            marking.remove(id);
        }
    }
    let missing: Vec<String> = suite
        .keys()
        .filter(|id| !seen.contains(**id))
        .map(|id| (*id).to_owned())
        .collect();
    if !missing.is_empty() {
        out.push(format!(
            "{prefix}: {} released vector(s) missing from the report: {}",
            missing.len(),
            first_few(&missing)
        ));
    }
    if extra_count > 0 {
        let mut named = extra_first.into_iter().collect::<Vec<_>>().join(", ");
        if extra_count > NAMED {
            named.push_str(&format!(" and {} more", extra_count - NAMED));
        }
        out.push(format!(
            "{prefix}: {extra_count} vector(s) not in the suite: {named}"
        ));
    }
    let changed: Vec<String> = changed.into_values().collect();
    let marking: Vec<String> = marking.into_values().collect();
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
