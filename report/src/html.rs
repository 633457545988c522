//! `report.html` and the HTML interop matrix: one self-contained page each
//! (inline CSS, no script, no network, no external asset), for people who
//! read results in a browser.
//!
//! The pages are maud templates, so every value a page takes from a report
//! is escaped by construction: host names and versions, the declaration,
//! skip and error reasons (which carry the host's stderr), failure
//! messages, actual values and diffs all come from the host or a vendor's
//! vector folder, and none of them can become markup unless the code says
//! `PreEscaped` (only the page's own style does). The page is
//! keyboard-usable (a skip link, headings, tables with `th`/`scope`,
//! `details`/`summary` for diffs, a visible focus ring), says every status in
//! words and symbols (colour only repeats it), and fits a phone (a viewport
//! meta, wide tables scroll sideways inside their own region).
//!
//! Every page goes through [`document`], which owns the shell (head, style,
//! skip link, footer); a further page (a mutation report, say) renders its
//! own `<main>` body as [`Markup`] and hands it to [`document`].

use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::Value;

use crate::claim;
use crate::human;
use crate::matrix::{self, Triage};
use crate::model::{ClauseQuote, PartTotals, Report, Totals, VectorEntry};
use ctk_core::diff;
use ctk_core::outcome::Status;
use ctk_core::suite::Protocol;

/// Text escaped for HTML element content and quoted attribute values, by
/// the same escaping the templates apply (for markup written outside them,
/// such as the SVG badge).
pub fn escape(text: &str) -> String {
    html! { (text) }.into_string()
}

/// The page's style: system fonts, a visible focus ring, tables that scroll
/// inside their own region on a narrow screen, status colours that only
/// repeat the status word beside them.
const STYLE: &str = r#"
:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #fff; --muted: #555; --line: #c8c8c8; --code: #f3f3f3;
  --pass: #11602b; --fail: #a4161a; --skip: #6b5300; --error: #7a1f7a; --focus: #0b57d0; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e8e8e8; --bg: #161616; --muted: #b0b0b0; --line: #444; --code: #252525;
    --pass: #7fd99a; --fail: #ff8a8a; --skip: #e8c95a; --error: #e59be5; --focus: #8ab4f8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: var(--fg); background: var(--bg); }
main, header, footer { max-width: 72rem; margin: 0 auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; line-height: 1.25; overflow-wrap: anywhere; }
h2 { font-size: 1.3rem; margin-top: 2rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; overflow-wrap: anywhere; }
a { color: var(--focus); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999rem; top: 0; background: var(--bg); padding: .5rem 1rem; }
.skip:focus { left: 1rem; z-index: 1; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border: 1px solid var(--line); padding: .3rem .6rem; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
tfoot th, tfoot td { font-weight: 700; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .9em; }
code { overflow-wrap: anywhere; }
pre { background: var(--code); padding: .6rem; overflow-x: auto; white-space: pre; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 40rem) { dl { grid-template-columns: 1fr; } dd { margin-left: 1rem; } }
tbody th { max-width: 24rem; overflow-wrap: break-word; }
td pre { margin: 0; }
@media (max-width: 40rem) { th, td { padding: .2rem .35rem; } tbody th { max-width: 9rem; } }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; padding: 0; }
summary { cursor: pointer; }
.verdict { font-size: 1.15rem; font-weight: 700; padding: .5rem .75rem; border-left: .4rem solid; }
.pass { color: var(--pass); } .fail { color: var(--fail); } .skip-s { color: var(--skip); }
.error { color: var(--error); } .expected { color: var(--skip); }
.del { color: var(--fail); } .ins { color: var(--pass); }
article { border-top: 1px solid var(--line); padding-top: .25rem; }
.note { color: var(--muted); }
"#;

/// A whole page: `title`, the sections `nav` links to (anchor, words), and
/// the `<main>` content `body`. The one place the page shell lives, so
/// every page is self-contained and keyboard-usable the same way: the skip
/// link passes the heading and the section links.
pub fn document(title: &str, nav: &[(&str, &str)], body: Markup) -> String {
    shell(title, nav, body).into_string()
}

fn shell(title: &str, nav: &[(&str, &str)], body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta http-equiv="Content-Security-Policy"
                    content="default-src 'none'; style-src 'unsafe-inline'; img-src data:";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                a.skip href="#main" { "Skip to the results" }
                header {
                    h1 { (title) }
                    @if !nav.is_empty() {
                        nav aria-label="Sections" {
                            ul {
                                @for (anchor, words) in nav {
                                    li { a href={ "#" (anchor) } { (words) } }
                                }
                            }
                        }
                    }
                }
                main #main tabindex="-1" { (body) }
                footer {
                    p.note {
                        "Written by ctk " (env!("CARGO_PKG_VERSION"))
                        ". This page is a rendering; the report.json beside it is what a claim cites."
                    }
                }
            }
        }
    }
}

/// Where a shell's content goes when the content is written in pieces: no
/// rendered text can hold it (maud escapes `<`, and the only text after it
/// is the kit's own), so the last occurrence is the shell's.
const BODY: &str = "<ctk-body/>";

/// The text of `shell` before and after its [`BODY`].
fn halves(shell: Markup) -> (String, String) {
    let text = shell.into_string();
    match text.rsplit_once(BODY) {
        Some((head, tail)) => (head.to_owned(), tail.to_owned()),
        None => unreachable!("every shell holds BODY"),
    }
}

/// A status in words with a symbol, so it reads without colour.
fn status_label(status: Status) -> Markup {
    let (class, symbol) = match status {
        Status::Pass => ("pass", "✓"),
        Status::Fail => ("fail", "✗"),
        Status::Skip => ("skip-s", "–"),
        Status::Error => ("error", "!"),
        Status::ExpectedFail => ("expected", "≈"),
    };
    html! {
        span class=(class) { span aria-hidden="true" { (symbol) } " " (status.as_str().to_uppercase()) }
    }
}

/// A wide table inside a region that scrolls sideways and is reachable by
/// keyboard (a scrolling region must be focusable to scroll without a mouse).
pub(crate) fn scroll(label: &str, table: Markup) -> Markup {
    html! {
        div.scroll role="region" aria-label=(label) tabindex="0" { (table) }
    }
}

/// The anchor of the `index`-th vector: vector ids come from a vendor's
/// folder too, so the anchor is never built from one.
fn anchor(index: usize) -> String {
    format!("vector-{index}")
}

/// The verdict line on top: what the run says, in words.
fn verdict(report: &Report, refusals: &[String]) -> Markup {
    let t = report.totals;
    let counts = format!("{}/{} applicable vectors passed", t.pass, t.applicable());
    let stale_baseline = report.baseline.as_ref().is_some_and(|b| b.fails_run());
    let (class, word) = if t.fail > 0 || t.error > 0 {
        ("fail", "✗ FAILING")
    } else if stale_baseline {
        ("fail", "✗ FAILING (a stale or expired baseline entry)")
    } else if t.expected_fail > 0 {
        ("expected", "≈ PASSING ONLY WITH EXPECTED FAILURES")
    } else if t.pass == 0 {
        ("skip-s", "– NOTHING CHECKED")
    } else {
        ("pass", "✓ PASSING")
    };
    let mut detail = Vec::new();
    if t.fail > 0 {
        detail.push(format!("{} failed", t.fail));
    }
    if t.error > 0 {
        detail.push(format!("{} errors", t.error));
    }
    if t.expected_fail > 0 {
        detail.push(format!("{} expected failures (baselined)", t.expected_fail));
    }
    if t.skip > 0 {
        detail.push(format!("{} skipped", t.skip));
    }
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!(" ({})", detail.join(", "))
    };
    html! {
        p class={ "verdict " (class) } {
            (word) ": " (counts) (detail) "; "
            @if refusals.is_empty() {
                "a claim can be made (see " a href="#claim" { "the claim row" } ")"
            } @else {
                "no claim can be made (see " a href="#claim" { "why" } ")"
            }
            "."
        }
    }
}

fn summary_list(report: &Report) -> Markup {
    let subject = if report.protocol == Protocol::Ahp.as_str() {
        "Implementation"
    } else {
        "Host"
    };
    let vectors = format!(
        "{} ({} vectors{}{})",
        report.vector_set.source,
        report.vector_set.count,
        if report.vector_set.filtered {
            ", narrowed by --part/--id"
        } else {
            ""
        },
        if report.complete {
            ", complete"
        } else {
            ", incomplete"
        }
    );
    html! {
        dl {
            dt { (subject) } dd { (report.host.name) " " (report.host.version) }
            dt { "Protocol" } dd { (report.protocol) }
            dt { "Spec" } dd { code { (report.spec) } }
            @if !report.host.spec_versions.is_empty() {
                dt { "Spec versions it emits" } dd { (report.host.spec_versions.join(", ")) }
            }
            dt { "Vectors" } dd { (vectors) }
            dt { "Runner" } dd { (report.runner.name) " " (report.runner.version) }
            dt { "Started" }
            dd { (report.timing.started_at) " (" (report.timing.total_ms) " ms in all)" }
        }
    }
}

/// One row of a per-part table: its counts, with the expected-fail column
/// when the table has one.
fn parts_row(head: &str, t: &Totals, expected: bool) -> Markup {
    html! {
        tr {
            th scope="row" { (head) }
            td.n { (t.pass) }
            td.n { (t.fail) }
            @if expected { td.n { (t.expected_fail) } }
            td.n { (t.skip) }
            td.n { (t.error) }
            td.n { (t.applicable()) }
        }
    }
}

/// One per-part table; `counts` picks the gating or the advisory counts.
fn parts_table(
    caption: &str,
    report: &Report,
    counts: impl Fn(&PartTotals) -> Totals,
    total: Totals,
) -> Markup {
    let expected = total.expected_fail > 0;
    html! {
        table {
            caption { (caption) }
            thead {
                tr {
                    th scope="col" { "part" }
                    th scope="col" class="n" { "✓ pass" }
                    th scope="col" class="n" { "✗ fail" }
                    @if expected { th scope="col" class="n" { "≈ expected-fail" } }
                    th scope="col" class="n" { "– skip" }
                    th scope="col" class="n" { "! error" }
                    th scope="col" class="n" { "applicable" }
                }
            }
            tbody {
                @for p in &report.parts {
                    @let t = counts(p);
                    @if t.count() > 0 { (parts_row(&p.part, &t, expected)) }
                }
            }
            tfoot { (parts_row("total", &total, expected)) }
        }
    }
}

fn matrix_section(report: &Report) -> Markup {
    html! {
        section aria-labelledby="matrix" {
            h2 #matrix { "Results by part" }
            (scroll("Gating results by part", parts_table(
                "Gating vectors (the exit code and a claim read these)",
                report,
                |p| p.totals,
                report.totals,
            )))
            @if report.advisory_totals.count() > 0 {
                p {
                    "Advisory vectors pin the project's preferred reading where the spec text allows \
                     several; their results never change the exit code and never block a claim."
                }
                (scroll("Advisory results by part", parts_table(
                    "Advisory vectors (never gate)",
                    report,
                    |p| p.advisory,
                    report.advisory_totals,
                )))
            }
        }
    }
}

/// A unified diff with each line's `-`/`+` kept as text (colour repeats it).
fn diff_block(text: &str) -> Markup {
    let class = |line: &str| {
        if line.starts_with('-') && !line.starts_with("---") {
            Some("del")
        } else if line.starts_with('+') && !line.starts_with("+++") {
            Some("ins")
        } else {
            None
        }
    };
    html! {
        pre.diff {
            code {
                @for line in text.lines() {
                    @match class(line) {
                        Some(c) => { span class=(c) { (line) } }
                        None => { (line) }
                    }
                    "\n"
                }
            }
        }
    }
}

fn vector_heading(index: usize, v: &VectorEntry) -> Markup {
    html! {
        h3 id=(anchor(index)) {
            (status_label(v.status)) " " code { (v.id) } " " (v.title)
            @if let Some(d) = &v.advisory {
                " " span.note { "(advisory, " (d) ": never gates)" }
            }
        }
        p.note {
            "Part " code { (v.part) } ", file " code { (v.file) } ", digest " code { (v.sha256) } "."
        }
    }
}

fn failure_article(index: usize, v: &VectorEntry) -> Markup {
    html! {
        article {
            (vector_heading(index, v))
            @if let Some(b) = &v.baseline {
                p {
                    "Expected to fail by the baseline: " (b.reason) " (owner " (b.owner)
                    ", until " (b.expires) ")."
                }
            }
            @if v.failures.is_empty() {
                p { (v.reason) }
            } @else {
                ul {
                    @for f in &v.failures {
                        li {
                            p { code { (f.key) } ": " (f.message) }
                            @if let Some(d) = &f.diff {
                                details.diff open {
                                    summary {
                                        "Diff of expected (" code { "-" } ") against actual (" code { "+" } ")"
                                    }
                                    (diff_block(d))
                                }
                            } @else {
                                @for (name, value) in [("expected", &f.expected), ("actual", &f.actual)] {
                                    @if let Some(value) = value {
                                        details open {
                                            summary { (name) }
                                            pre { code { (diff::pretty(value)) } }
                                        }
                                    }
                                }
                                @if f.expected.is_some() && f.actual.is_none() {
                                    p { "actual: (absent)" }
                                }
                            }
                        }
                    }
                }
            }
            (clauses_block(&v.clauses))
        }
    }
}

/// The clauses a failure cites, each with its sentence, so the reader sees
/// the rule and can dispute it.
fn clauses_block<C: std::borrow::Borrow<ClauseQuote>>(clauses: &[C]) -> Markup {
    html! {
        @if !clauses.is_empty() {
            div.clauses {
                p { "The text this rests on:" }
                ul {
                    @for c in clauses {
                        @let c = c.borrow();
                        @match &c.quote {
                            Some(q) => {
                                li {
                                    "clause " code { (c.id) } ": " blockquote { (q) }
                                    @if let Some(src) = &c.source { " " cite { (src) } }
                                }
                            }
                            None => {
                                li {
                                    "clause " code { (c.id) } ": " (c.text) " "
                                    em { "(the catalog's paraphrase; no sentence quoted)" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The gating failures grouped by rule, above the failures one by one.
fn rules_section(report: &Report) -> Markup {
    let groups = crate::rules::gating_groups(report);
    html! {
        @if !groups.is_empty() {
            section aria-labelledby="rules" {
                h2 #rules { "Failures by rule" }
                p {
                    "One entry per assertion that failed in gating vectors, the most widespread first, \
                     with the clauses every one of those vectors cites; each vector is listed below too."
                }
                ul {
                    @for g in &groups {
                        @let n = g.vectors.len();
                        li {
                            p {
                                strong { (n) " vector" @if n != 1 { "s" } } ": " code { (g.key) } ": " (g.message)
                            }
                            p {
                                @for (k, v) in g.vectors.iter().enumerate() {
                                    @if k > 0 { ", " }
                                    (v.id)
                                }
                            }
                            (clauses_block(&g.clauses))
                        }
                    }
                }
            }
        }
    }
}

/// The reason of an error, and the host's stderr tail apart from it when
/// the reason carries one.
fn error_article(index: usize, v: &VectorEntry) -> Markup {
    html! {
        article {
            (vector_heading(index, v))
            @match ctk_core::outcome::split_stderr_tail(&v.reason) {
                (reason, Some(tail)) => {
                    p { (reason) }
                    details open {
                        summary { "Host stderr (last lines)" }
                        pre.stderr { code { (tail.join("\n")) } }
                    }
                }
                (_, None) => {
                    p { (v.reason) }
                    p.note { "The report carries no host stderr for this error." }
                }
            }
        }
    }
}

fn problems_sections(report: &Report) -> Markup {
    let pick = |statuses: &[Status]| -> Vec<(usize, std::borrow::Cow<'_, VectorEntry>)> {
        report
            .vectors
            .iter()
            .enumerate()
            .filter(|(_, v)| statuses.contains(&v.status))
            .collect()
    };
    let failed = pick(&[Status::Fail, Status::ExpectedFail]);
    let errors = pick(&[Status::Error]);
    html! {
        (rules_section(report))
        section aria-labelledby="failures" {
            h2 #failures { "Failures" }
            @if failed.is_empty() { p { "None: no vector failed." } }
            @for (i, v) in &failed { (failure_article(*i, v)) }
        }
        section aria-labelledby="errors" {
            h2 #errors { "Errors" }
            @if errors.is_empty() {
                p { "None: the host and the link never failed." }
            } @else {
                p {
                    "An error says the host or the link failed; it says nothing about conformance, \
                     and it blocks a claim."
                }
            }
            @for (i, v) in &errors { (error_article(*i, v)) }
        }
    }
}

/// The `--baseline` the run applied: its entries that are stale or expired
/// fail the run, so they are listed here, not only in the terminal.
fn baseline_section(report: &Report) -> Markup {
    html! {
        @if let Some(b) = &report.baseline {
            section aria-labelledby="baseline" {
                h2 #baseline { "Baseline" }
                p {
                    "The run applied the baseline " (b.source) " (" code { (b.sha256) } ", "
                    (b.entries) " entries). A baselined failure is reported as expected-fail and \
                    still counts as a failure for a claim; a stale or expired entry fails the run."
                }
                @for (what, list) in [("Stale entries", &b.stale), ("Expired entries", &b.expired)] {
                    @if list.is_empty() {
                        p { (what) ": none." }
                    } @else {
                        p { strong { "✗ " (what) " (each fails the run):" } }
                        ul {
                            @for e in list.iter() { li { code { (e.id) } ": " (e.detail) } }
                        }
                    }
                }
            }
        }
    }
}

fn skips_section(report: &Report) -> Markup {
    let skips = human::skips_by_reason(report);
    html! {
        @if !skips.is_empty() {
            section aria-labelledby="skips" {
                h2 #skips { "Skipped, by reason" }
                p { "A skipped vector does not apply to the declared surface." }
                (scroll("Skip reasons", html! {
                    table {
                        caption { "Skip reasons" }
                        thead { tr { th scope="col" class="n" { "vectors" } th scope="col" { "reason" } } }
                        tbody {
                            @for (reason, n) in &skips { tr { td.n { (n) } td { (reason) } } }
                        }
                    }
                }))
            }
        }
    }
}

/// The adapter features the subject lacks: the vectors each skipped and
/// the clauses they left unchecked.
fn features_section(report: &Report) -> Markup {
    let gaps = report.feature_gaps();
    html! {
        @if !gaps.is_empty() {
            section aria-labelledby="features" {
                h2 #features { "Adapter features not implemented" }
                p {
                    "The subject's adapter does not announce these features, so the vectors "
                    "needing them were skipped, not failed (the exit code counts only the vectors "
                    "that ran). A partial adapter must not claim conformance (§13.1)."
                }
                @for g in &gaps {
                    article {
                        h3 { code { (g.feature) } ": " (g.vectors.len()) " vector(s) skipped" }
                        p { (g.vectors.join(", ")) }
                        (clauses_block(&g.clauses))
                    }
                }
            }
        }
    }
}

/// One row of the every-vector table.
fn vector_row(i: usize, v: &VectorEntry) -> Markup {
    html! {
        tr {
            th scope="row" {
                code {
                    @if matches!(v.status, Status::Fail | Status::Error | Status::ExpectedFail) {
                        a href={ "#" (anchor(i)) } { (v.id) }
                    } @else {
                        (v.id)
                    }
                }
            }
            td { (status_label(v.status)) @if v.advisory.is_some() { " (advisory)" } }
            td { (v.part) }
            td { (v.title) }
            td { (v.reason) }
        }
    }
}

/// The every-vector section with [`BODY`] where its rows go, so that its
/// rows can be written a slice at a time between the two halves.
fn all_vectors_shell(report: &Report) -> Markup {
    let table = html! {
        table {
            caption { "Every vector" }
            thead {
                tr {
                    th scope="col" { "id" } th scope="col" { "status" } th scope="col" { "part" }
                    th scope="col" { "title" } th scope="col" { "reason" }
                }
            }
            tbody { (PreEscaped(BODY)) }
        }
    };
    html! {
        section aria-labelledby="vectors" {
            h2 #vectors { "Every vector" }
            details {
                summary { "All " (report.vectors.len()) " vectors, in run order" }
                (scroll("Every vector", table))
            }
        }
    }
}

/// A surface value as text: strings bare, lists comma-joined, the rest JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        other => diff::pretty(other),
    }
}

fn surface_section(report: &Report) -> Markup {
    let ahp = report.protocol == Protocol::Ahp.as_str();
    let (heading, what) = if ahp {
        (
            "AHP subject",
            "The implementation under test, as the run described it.",
        )
    } else {
        (
            "Declared surface",
            "The surface the runner derived from the host's declaration; a vector outside it is skipped.",
        )
    };
    let table = html! {
        table {
            caption { (heading) }
            thead { tr { th scope="col" { "member" } th scope="col" { "value" } } }
            tbody {
                @match &report.declaration.surface {
                    Value::Object(map) => {
                        @for (k, v) in map {
                            tr {
                                th scope="row" { code { (k) } }
                                td {
                                    // A nested object keeps its lines: one
                                    // line of JSON is unreadable.
                                    @if v.is_object() {
                                        pre { code { (value_text(v)) } }
                                    } @else {
                                        code { (value_text(v)) }
                                    }
                                }
                            }
                        }
                    }
                    other => {
                        tr { th scope="row" { "surface" } td { code { (value_text(other)) } } }
                    }
                }
            }
        }
    };
    html! {
        section aria-labelledby="surface" {
            h2 #surface { (heading) }
            p {
                (what) " Declaration: " (report.declaration.source)
                " (" code { (report.declaration.sha256) } ")."
            }
            (scroll(heading, table))
            details {
                summary { "The declaration document" }
                pre { code { (diff::pretty(&report.declaration.document)) } }
            }
        }
    }
}

/// The cells of one Markdown table row, unescaped (`\|` is a `|` inside a
/// cell, [`claim`] escapes `\`, `|`, `` ` ``, `<` and `>` that way) and
/// without the code span's backticks.
fn markdown_cells(row: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = row.trim().trim_start_matches('|').chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    cell.push(next);
                }
            }
            '|' => cells.push(std::mem::take(&mut cell)),
            '`' => {}
            c => cell.push(c),
        }
    }
    if !cell.trim().is_empty() {
        cells.push(cell);
    }
    cells.into_iter().map(|c| c.trim().to_owned()).collect()
}

fn claim_section(report: &Report, refusals: &[String]) -> Markup {
    let header = claim::header(report);
    let row = claim::row(report);
    html! {
        section aria-labelledby="claim" {
            h2 #claim { "Claim" }
            @if refusals.is_empty() {
                (scroll("Claim row", html! {
                    table #claim-row {
                        caption { "The CLAIMS.md row this report backs" }
                        thead {
                            tr {
                                @for h in markdown_cells(header.lines().next().unwrap_or_default()) {
                                    th scope="col" { (h) }
                                }
                            }
                        }
                        tbody { tr { @for c in markdown_cells(&row) { td { (c) } } } }
                    }
                }))
                p {
                    "The row as it goes into CLAIMS.md (what " code { "ctk claim report.json" } " prints):"
                }
                pre { code { (header) "\n" (row) } }
            } @else {
                p #no-claim { strong { "No claim can be made from this report:" } }
                ul.refusals { @for r in refusals { li { (r) } } }
            }
        }
    }
}

fn digests_section(report: &Report, verify_problems: &[String]) -> Markup {
    html! {
        section aria-labelledby="digests" {
            h2 #digests { "Digests" }
            dl {
                dt { "Report digest" } dd { code { (report.digest) } }
                dt { "Results digest" } dd { code { (report.results_digest) } }
                dt { "Vector set" } dd { code { (report.vector_set.sha256) } }
                dt { "Declaration" } dd { code { (report.declaration.sha256) } }
            }
            p {
                "How to verify: " code { "ctk verify report.json" } " recomputes every digest from the \
                 file and checks that it is the runner's own rendering (add " code { "--vectors DIR" }
                " to check the vector digests against a folder; a report of the embedded set is checked \
                 against it). The report digest covers everything but itself; the results digest leaves \
                 out the timing, so two runs with the same results share it. "
                code { "ctk claim report.json" } " prints the claim row, or why none can be made."
            }
            @if !verify_problems.is_empty() {
                p { strong { "This report does not verify:" } }
                ul { @for p in verify_problems { li { (p) } } }
            }
        }
    }
}

/// Rows of the every-vector table rendered at once by [`write`]: the page of
/// a run of 100,000 vectors is tens of megabytes, and is never held whole.
const ROWS_AT_ONCE: usize = 1000;

/// The page of one report. `verify_problems` are what `ctk verify` found
/// (empty for a report the run has just built); they are shown with the
/// digests and block the claim. `released` gives the suite a claim is
/// compared with.
pub fn render(
    report: &Report,
    verify_problems: &[String],
    released: claim::ReleasedSets,
) -> String {
    let mut out = Vec::new();
    // Writing to memory fails only when a run's spool cannot be read back
    // whole; the page is then what could be read, and
    // `Report::failure` says what is missing.
    let _ = write(report, verify_problems, released, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| unreachable!("maud writes UTF-8: {e}"))
}

/// [`render`], written to `out` a section at a time and the every-vector
/// table a thousand rows at a time, so that only one piece of the page
/// is ever held (issue 30): the bytes are [`render`]'s.
pub fn write(
    report: &Report,
    verify_problems: &[String],
    released: claim::ReleasedSets,
    out: impl std::io::Write,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::new(out);
    let refusals = claim::refusals(report, verify_problems, released);
    let (head, tail) = halves(shell(
        &format!(
            "ctk report: {} {} against {}",
            report.host.name, report.host.version, report.spec
        ),
        &[
            ("failures", "Failures"),
            ("errors", "Errors"),
            ("matrix", "Results by part"),
            ("surface", "Surface"),
            ("claim", "Claim"),
            ("digests", "Digests"),
            ("vectors", "Every vector"),
        ],
        PreEscaped(BODY.to_owned()),
    ));
    out.write_all(head.as_bytes())?;
    let sections: [&dyn Fn() -> Markup; 10] = [
        &|| verdict(report, &refusals),
        &|| summary_list(report),
        // What went wrong comes first: it is what a vendor opens the page for.
        &|| problems_sections(report),
        &|| baseline_section(report),
        &|| matrix_section(report),
        &|| skips_section(report),
        &|| features_section(report),
        &|| surface_section(report),
        &|| claim_section(report, &refusals),
        &|| digests_section(report, verify_problems),
    ];
    for section in sections {
        out.write_all(section().into_string().as_bytes())?;
    }
    let (before, after) = halves(all_vectors_shell(report));
    out.write_all(before.as_bytes())?;
    let mut entries = report.vectors.iter().enumerate().peekable();
    while entries.peek().is_some() {
        let slice: Vec<_> = entries.by_ref().take(ROWS_AT_ONCE).collect();
        let rows = html! {
            @for (i, v) in &slice { (vector_row(*i, v)) }
        };
        out.write_all(rows.into_string().as_bytes())?;
    }
    out.write_all(after.as_bytes())?;
    out.write_all(tail.as_bytes())?;
    out.flush()?;
    // A spool that could not be read back whole left rows out: the page
    // must not stand as the report.
    match report.failure() {
        Some(why) => Err(std::io::Error::other(why)),
        None => Ok(()),
    }
}

/// One suite's table of the interop matrix.
fn matrix_table(n: usize, table: &matrix::SuiteTable<'_>) -> Markup {
    let grid = html! {
        table.matrix {
            caption { (table.name) ": pass / fail / skip per part" }
            thead {
                tr {
                    th scope="col" { "part" }
                    @for r in &table.columns { th scope="col" class="n" { (matrix::implementation(r)) } }
                }
            }
            tbody {
                @for (part, counts) in &table.rows {
                    tr {
                        th scope="row" { (part) }
                        @for c in counts { td.n { (matrix::cell(c)) } }
                    }
                }
            }
            tfoot {
                tr {
                    th scope="row" { "total" }
                    @for r in &table.columns { td.n { (matrix::cell(&r.totals)) } }
                }
                tr {
                    th scope="row" { "advisory (never gates)" }
                    @for r in &table.columns { td.n { (matrix::cell(&r.advisory_totals)) } }
                }
            }
        }
    };
    html! {
        section aria-labelledby={ "suite-" (n) } {
            h2 id={ "suite-" (n) } { (table.name) }
            (scroll(&table.name, grid))
        }
    }
}

/// The interop matrix as a page: one table per suite, one column per
/// implementation, then every failure with its classification.
pub fn render_matrix(reports: &[Report], triage: &Triage) -> String {
    let lines = matrix::failures(reports, triage);
    let body = html! {
        p {
            "Generated by " code { "ctk matrix" } " from reports and a triage file. Each cell is the \
             gating " code { "pass / fail / skip" } " count (and errors when there are any); advisory \
             vectors are counted on their own row. Every failure is classified below."
        }
        @for (n, table) in matrix::tables(reports).iter().enumerate() { (matrix_table(n, table)) }
        section aria-labelledby="failures" {
            h2 #failures { "Failures" }
            @if lines.is_empty() {
                p { "None." }
            } @else {
                ul {
                    @for line in &lines {
                        @let v = &*line.vector;
                        li {
                            (matrix::implementation(line.report)) " " (status_label(v.status))
                            " " code { (v.id) } @if v.advisory.is_some() { " (advisory)" }
                            @match line.entry {
                                Some(e) => {
                                    ", clause " code { (e.clause) } ": " strong { (e.class.label()) }
                                    ": " (e.diagnosis) " Fails: " code { (v.reason) } "."
                                    @if let Some(sentence) = &e.sentence { " The text: " q { (sentence) } }
                                }
                                None => { ": " strong { "unclassified" } ": " (v.reason) }
                            }
                        }
                    }
                }
            }
        }
    };
    document("Interoperability matrix", &[("failures", "Failures")], body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_every_html_metacharacter() {
        assert_eq!(
            escape(r#"<script>alert("x&'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;'y')&lt;/script&gt;"
        );
    }

    #[test]
    fn markdown_cells_undo_the_claim_escaping() {
        assert_eq!(
            markdown_cells(r"| a \| b | `sha256:1` | \<x\> |"),
            vec!["a | b", "sha256:1", "<x>"]
        );
    }
}
