//! The failure matrix of the harness-role vectors: which §14.1 failure
//! classes run under which failure policy, over which transport and stdio
//! lifecycle. A harness meets each class wherever its backends can produce
//! it, so a class that runs somewhere must run under both policies there
//! and, over stdio, in both lifecycles; a class that is not tied to one
//! transport must run over both. What is tied to one place is data
//! ([`Exemption`]), each with its reason, so a hole is either filled or
//! explained.
//!
//! The observe half ([`observe_matrix`]) does the same for the classes an
//! observer can exhibit on a notification. No failure policy applies there:
//! whatever the observer does, the interceptor's decision must stand
//! (§13.2), so each class runs beside an interceptor that lets the tool
//! run and beside one that denies it.

use std::collections::{BTreeMap, BTreeSet};

use super::vector::HarnessVector;
use crate::vector::{BindingSel, LifecycleSel};

/// Where a vector's backend A fails: stdio persistent, stdio per_event, or
/// HTTP.
pub const COLUMNS: [&str; 3] = ["stdio persistent", "stdio per_event", "http"];

/// A class that legitimately runs in fewer places, and why.
#[derive(Debug, Clone, Copy)]
pub struct Exemption {
    /// The failure class; a trailing `*` names every class with that
    /// prefix (`http_*`).
    pub class: &'static str,
    /// The only columns it can run in ([`COLUMNS`] names).
    pub columns: &'static [&'static str],
    /// Whether it may run under one policy only (a class that is a
    /// decision under one policy, not a failure).
    pub one_policy: bool,
    /// Why.
    pub reason: &'static str,
}

const STDIO: &[&str] = &["stdio persistent", "stdio per_event"];

/// The failure classes of the 0.1 line tied to fewer places than every
/// transport and lifecycle, each with its reason (`ctk coverage --protocol
/// ahp --spec 0.1` shows them beside the matrix).
pub const TIED_0_1: &[Exemption] = &[
    Exemption { class: "http_*", columns: &["http"], one_policy: false, reason: "an HTTP status or redirect (18.1)" },
    Exemption { class: "wrong_content_type", columns: &["http"], one_policy: false, reason: "an HTTP header (18.1)" },
    Exemption { class: "abnormal_exit", columns: STDIO, one_policy: false, reason: "a process exit status (17.3)" },
    Exemption { class: "multi_line_frame", columns: STDIO, one_policy: false, reason: "stdio framing (17.1); an HTTP body may span lines" },
    Exemption { class: "banner_line", columns: STDIO, one_policy: false, reason: "non-protocol stdout (17.1)" },
    Exemption { class: "nonzero_exit_after_reply", columns: &["stdio per_event"], one_policy: false, reason: "the exit status after a reply is a per_event notion (17.3); a persistent backend that exits is connection_lost for the next request" },
    Exemption { class: "extension_key_not_reverse_dns", columns: STDIO, one_policy: false, reason: "a clause-gap row (9.5) beside the reply-content classes, which run over HTTP too; not yet repeated over HTTP" },
];

/// The draft line's, likewise (`ctk coverage --protocol ahp --spec draft`).
pub const TIED_DRAFT: &[Exemption] = &[
    Exemption { class: "http_403", columns: &["http"], one_policy: true, reason: "an authorization challenge (capability-auth), run where it decides: fail-closed" },
    Exemption { class: "http_*", columns: &["http"], one_policy: false, reason: "an HTTP status or redirect (transports/http.md)" },
    Exemption { class: "wrong_content_type", columns: &["http"], one_policy: false, reason: "an HTTP header" },
    Exemption { class: "authentication", columns: &["http"], one_policy: true, reason: "an unresolved 401 challenge, run where it matters (fail-open must not fall back to unauthenticated delivery)" },
    Exemption { class: "abnormal_exit", columns: STDIO, one_policy: false, reason: "a process exit status" },
    Exemption { class: "banner_line", columns: STDIO, one_policy: false, reason: "non-protocol stdout (transports/stdio.md)" },
    Exemption { class: "nonzero_exit_after_reply", columns: &["stdio per_event"], one_policy: false, reason: "a per_event notion" },
    Exemption { class: "effects_missing", columns: &["stdio persistent", "http"], one_policy: true, reason: "a decision in the draft (DIFF-13: no effect), not a failure: one policy shows it" },
    Exemption { class: "two_denies", columns: &["stdio persistent"], one_policy: true, reason: "a decision in the draft (DIFF-14: two denies deny), not a failure" },
];

/// The observe classes of the 0.1 line tied to fewer places than every
/// transport and lifecycle, each with its reason (both decisions run
/// wherever a class does).
pub const OBSERVE_TIED_0_1: &[Exemption] = &[
    Exemption { class: "http_*", columns: &["http"], one_policy: false, reason: "an HTTP status or redirect answering a notification (18.1: 202 or 204 accept it, any other status is an operational failure)" },
    Exemption { class: "abnormal_exit", columns: STDIO, one_policy: false, reason: "a process exit status (17.3)" },
];

/// The draft line's observe classes tied to fewer places.
pub const OBSERVE_TIED_DRAFT: &[Exemption] = &[
    Exemption {
        class: "http_*",
        columns: &["http"],
        one_policy: false,
        reason: "an HTTP status or redirect answering a notification (transports/http.md)",
    },
    Exemption {
        class: "abnormal_exit",
        columns: STDIO,
        one_policy: false,
        reason: "a process exit status",
    },
];

/// The exemptions as a Markdown list, one class a line.
pub fn render_exemptions(exempt: &[Exemption]) -> String {
    exempt
        .iter()
        .map(|e| {
            format!(
                "- `{}`: {}{}; {}\n",
                e.class,
                e.columns.join(", "),
                if e.one_policy { ", one policy" } else { "" },
                e.reason
            )
        })
        .collect()
}

/// The matrix: class → column → policies with at least one vector.
pub type Matrix = BTreeMap<String, BTreeMap<&'static str, BTreeSet<String>>>;

fn column(v: &HarnessVector) -> Option<&'static str> {
    match (v.binding, v.lifecycle) {
        (BindingSel::Http, _) => Some(COLUMNS[2]),
        (BindingSel::Stdio, LifecycleSel::PerEvent) => Some(COLUMNS[1]),
        (BindingSel::Stdio, _) => Some(COLUMNS[0]),
        (BindingSel::Any, _) => None,
    }
}

/// The matrix of `vectors` (those naming a failure class and a policy).
pub fn failure_matrix(vectors: &[HarnessVector]) -> Matrix {
    let mut m = Matrix::new();
    for v in vectors {
        let (Some(class), Some(policy), Some(col)) =
            (&v.failure_class, &v.failure_policy, column(v))
        else {
            continue;
        };
        m.entry(class.clone())
            .or_default()
            .entry(col)
            .or_default()
            .insert(policy.clone());
    }
    m
}

/// The observe half of the matrix: class → column → the outcomes the
/// vectors' tool calls expect (`executed`, `denied`), from the vectors that
/// name an `observer_failure`.
pub fn observe_matrix(vectors: &[HarnessVector]) -> Matrix {
    let mut m = Matrix::new();
    for v in vectors {
        let (Some(class), Some(col)) = (&v.observer_failure, column(v)) else {
            continue;
        };
        let cell = m.entry(class.clone()).or_default().entry(col).or_default();
        for t in &v.triggers {
            for part in std::iter::once(t).chain(&t.parallel) {
                for o in &part.expect.outcome {
                    if let Ok(serde_json::Value::String(name)) = serde_json::to_value(o) {
                        cell.insert(name);
                    }
                }
            }
        }
    }
    m
}

/// Each place a class should run and does not, in words; empty when the
/// matrix is complete. `exempt` names the classes tied to fewer places.
pub fn holes(m: &Matrix, exempt: &[Exemption]) -> Vec<String> {
    holes_by(m, exempt, "only under", 2)
}

/// The classes every line's observe half runs: those §14.1 names that an
/// observer can exhibit on a notification whatever its transport (the
/// HTTP statuses are rows of their own, under `http_*`).
pub const OBSERVE_CLASSES: &[&str] = &[
    "stalls",
    "connection_lost",
    "unreachable",
    "abnormal_exit",
    "malformed_json",
    "jsonrpc_error_32603",
];

/// [`holes`] for the observe half: each class of `required` runs, and each
/// class runs beside an interceptor that lets the tool run and one that
/// denies it.
pub fn observe_holes(m: &Matrix, exempt: &[Exemption], required: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = required
        .iter()
        .filter(|c| !m.contains_key(**c))
        .map(|c| format!("{c}: no observer vector"))
        .collect();
    out.extend(holes_by(m, exempt, "only with the tool", 2));
    for (class, cols) in m {
        for (col, outcomes) in cols {
            if outcomes.iter().any(|o| o != "executed" && o != "denied") {
                out.push(format!(
                    "{class}: over {col} a tool call expects {}, not executed or denied",
                    outcomes.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    out
}

fn holes_by(m: &Matrix, exempt: &[Exemption], only: &str, both: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (class, cols) in m {
        let ex = exempt.iter().find(|e| {
            e.class
                .strip_suffix('*')
                .map_or(e.class == class, |prefix| class.starts_with(prefix))
        });
        let want: Vec<&str> = match ex {
            Some(e) => e.columns.to_vec(),
            None => COLUMNS.to_vec(),
        };
        for col in &want {
            match cols.get(col) {
                None => out.push(format!("{class}: no vector over {col}")),
                Some(p) if !ex.is_some_and(|e| e.one_policy) && p.len() < both => {
                    out.push(format!(
                        "{class}: over {col} {only} {}",
                        p.iter().cloned().collect::<Vec<_>>().join(", ")
                    ))
                }
                Some(_) => {}
            }
        }
        for col in cols.keys() {
            if !want.contains(col) {
                out.push(format!(
                    "{class}: runs over {col}, which its exemption says it cannot"
                ));
            }
        }
    }
    out
}

/// The matrix as a Markdown table: one row per class, one cell per
/// column, holding the policies that run there.
pub fn render_markdown(m: &Matrix) -> String {
    render_table(m, "failure class")
}

/// The observe half as a Markdown table: one row per class an observer
/// exhibits, each cell holding the outcomes its tool calls run with.
pub fn render_observe_markdown(m: &Matrix) -> String {
    render_table(m, "observer failure class")
}

fn render_table(m: &Matrix, head: &str) -> String {
    let mut s = format!("| {head} | {} |\n| --- |", COLUMNS.join(" | "));
    s.push_str(&" --- |".repeat(COLUMNS.len()));
    s.push('\n');
    for (class, cols) in m {
        let cells: Vec<String> = COLUMNS
            .iter()
            .map(|c| {
                cols.get(c).map_or_else(
                    || "-".to_owned(),
                    |p| p.iter().cloned().collect::<Vec<_>>().join(", "),
                )
            })
            .collect();
        s.push_str(&format!("| `{class}` | {} |\n", cells.join(" | ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: &[(&str, &'static str, &str)]) -> Matrix {
        let mut m = Matrix::new();
        for (c, col, p) in rows {
            m.entry((*c).to_owned())
                .or_default()
                .entry(col)
                .or_default()
                .insert((*p).to_owned());
        }
        m
    }

    #[test]
    fn a_complete_row_has_no_hole_and_each_gap_is_named() {
        let mut rows = Vec::new();
        for col in COLUMNS {
            for p in ["fail-open", "fail-closed"] {
                rows.push(("late_reply", col, p));
            }
        }
        assert!(holes(&m(&rows), &[]).is_empty());
        rows.pop();
        rows.retain(|r| r.1 != COLUMNS[1]);
        let h = holes(&m(&rows), &[]);
        assert_eq!(
            h,
            vec![
                "late_reply: no vector over stdio per_event".to_owned(),
                "late_reply: over http only under fail-open".to_owned(),
            ]
        );
    }

    #[test]
    fn the_observe_half_wants_both_decisions_and_names_a_stray_outcome() {
        let mut rows = Vec::new();
        for col in COLUMNS {
            rows.push(("connection_lost", col, "executed"));
            rows.push(("connection_lost", col, "denied"));
        }
        assert!(observe_holes(&m(&rows), &[], &["connection_lost"]).is_empty());
        assert_eq!(
            observe_holes(&m(&rows), &[], &["stalls"]),
            vec!["stalls: no observer vector".to_owned()]
        );
        rows.retain(|r| !(r.1 == COLUMNS[2] && r.2 == "denied"));
        rows.push(("connection_lost", COLUMNS[0], "prompted"));
        assert_eq!(
            observe_holes(&m(&rows), &[], &[]),
            vec![
                "connection_lost: over http only with the tool executed".to_owned(),
                "connection_lost: over stdio persistent a tool call expects denied, executed, prompted, not executed or denied".to_owned(),
            ]
        );
        assert!(render_observe_markdown(&m(&rows)).starts_with("| observer failure class |"));
    }

    #[test]
    fn an_exemption_narrows_the_places_and_is_held_to_them() {
        let ex = [Exemption {
            class: "http_500",
            columns: &["http"],
            one_policy: false,
            reason: "an HTTP status",
        }];
        let ok = m(&[
            ("http_500", "http", "fail-open"),
            ("http_500", "http", "fail-closed"),
        ]);
        assert!(holes(&ok, &ex).is_empty());
        let stray = m(&[
            ("http_500", "http", "fail-open"),
            ("http_500", "http", "fail-closed"),
            ("http_500", "stdio persistent", "fail-open"),
        ]);
        assert_eq!(holes(&stray, &ex).len(), 1);
        let md = render_markdown(&ok);
        assert!(
            md.contains("| `http_500` | - | - | fail-closed, fail-open |"),
            "{md}"
        );
    }
}
