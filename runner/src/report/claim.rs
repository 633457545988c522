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
