//! `ctk claim`: the CLAIMS.md row of a report, or why no claim may be made.

use crate::report::model::Report;

/// The claimable spec.
pub const CLAIMABLE_SPEC: &str = "agent-hooks/0.1";

/// The header of the CLAIMS.md table the row belongs to.
pub const CLAIM_HEADER: &str = "| host | version | spec | capabilities | profiles | identity provider | tool-seam posture | statements | passed | report digest |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";

/// Why a report cannot back a claim (empty: it can). `verify_problems` are
/// the problems `ctk verify` found.
pub fn refusals(report: &Report, verify_problems: &[String]) -> Vec<String> {
    let mut out: Vec<String> = verify_problems
        .iter()
        .map(|p| format!("report does not verify: {p}"))
        .collect();
    if report.spec != CLAIMABLE_SPEC {
        out.push(format!(
            "the report is for {}; only {CLAIMABLE_SPEC} can be claimed",
            report.spec
        ));
    }
    if report.totals.fail > 0 {
        out.push(format!("{} vector(s) failed", report.totals.fail));
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
        out.push(if report.vector_set.filtered {
            "the run was narrowed with --part/--id; a claim needs the whole vector set".to_owned()
        } else {
            "the report is incomplete".to_owned()
        });
    }
    if report.declaration.document.get("surface").is_none() {
        out.push("the declaration does not state its surface explicitly".to_owned());
    }
    out
}

fn list(value: &serde_json::Value, key: &str) -> String {
    match value.get(key) {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        Some(serde_json::Value::Object(map)) => map.keys().cloned().collect::<Vec<_>>().join(", "),
        _ => String::new(),
    }
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
            "custom identity provider {custom}; whether it is content-derived must be stated"
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
            "buffered_output false: released output cannot be retracted; exposure bound: {bound}"
        ));
    }
    out
}

/// The CLAIMS.md row (no refusal check; see [`refusals`]).
pub fn row(report: &Report) -> String {
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
        report.host.name,
        report.host.version,
        report.spec,
        list(surface, "capabilities"),
        list(surface, "profiles"),
        provider,
        posture,
        statements(report).join("; ").replace('|', "\\|"),
        report.totals.pass,
        report.totals.applicable(),
        report.digest
    )
}

/// Unit tests pinning the claim clauses of the catalog (10.1-e, 12.1a-c,
/// 12.1a-d, 13-a, 13-b, 13-c, 13-e) that no vector can test.
#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use serde_json::{json, Value};

    use super::*;
    use crate::assert::AssertionFailure;
    use crate::outcome::VectorOutcome;
    use crate::report::build::{build, RunContext};
    use crate::report::model::HostIdentity;
    use crate::vector::load::{load, VectorSource};

    /// A report over the engine test vectors: every vector passes, except
    /// that `fail` makes the first one fail.
    fn report(spec: &str, fail: bool, document: Value) -> Report {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
        let vectors = load(&VectorSource::Dir(dir)).expect("test vectors");
        let outcomes: Vec<VectorOutcome> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let failures = if fail && i == 0 {
                    vec![AssertionFailure::message("run_outcome", "differs")]
                } else {
                    Vec::new()
                };
                VectorOutcome::from_failures(&v.vector.id, failures, Duration::from_millis(1))
            })
            .collect();
        let surface = crate::declaration::surface(&document);
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
                vector_source: "tests/data/engine".into(),
                filtered: false,
                total_ms: 1,
            },
            &vectors,
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
