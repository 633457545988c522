//! `report.html` and the HTML interop matrix: one self-contained page each
//! (inline CSS, no script, no network, no external asset), for people who
//! read results in a browser.
//!
//! Every string the page takes from a report is escaped with [`escape`]:
//! host names and versions, the declaration, skip and error reasons (which
//! carry the host's stderr), failure messages, actual values and diffs all
//! come from the host or a vendor's vector folder. The page is
//! keyboard-usable (a skip link, headings, tables with `th`/`scope`,
//! `details`/`summary` for diffs, a visible focus ring), says every status in
//! words and symbols (colour only repeats it), and fits a phone (a viewport
//! meta, wide tables scroll sideways inside their own region).
//!
//! Every page goes through [`document`], which owns the shell (head, style,
//! skip link, footer); a further page (a mutation report, say) renders its
//! own `<main>` body and hands it to [`document`].

use std::fmt::Write as _;

use serde_json::Value;

use crate::claim;
use crate::human;
use crate::matrix::{self, Triage};
use crate::model::{ClauseQuote, PartTotals, Report, Totals, VectorEntry};
use ctk_core::diff;
use ctk_core::outcome::Status;
use ctk_core::suite::Protocol;

/// Text escaped for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
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

/// A whole page: `title` (escaped here), the sections `nav` links to
/// (anchor, words), and the `<main>` content `body`, already HTML. The one
/// place the page shell lives, so every page is self-contained and
/// keyboard-usable the same way: the skip link passes the heading and the
/// section links.
pub fn document(title: &str, nav: &[(&str, &str)], body: &str) -> String {
    let title = escape(title);
    let mut links = String::new();
    if !nav.is_empty() {
        links.push_str("<nav aria-label=\"Sections\"><ul>");
        for (anchor, words) in nav {
            let _ = write!(
                links,
                "<li><a href=\"#{}\">{}</a></li>",
                escape(anchor),
                escape(words)
            );
        }
        links.push_str("</ul></nav>\n");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <a class=\"skip\" href=\"#main\">Skip to the results</a>\n\
         <header>\n<h1>{title}</h1>\n{links}</header>\n\
         <main id=\"main\" tabindex=\"-1\">\n{body}</main>\n\
         <footer><p class=\"note\">Written by ctk {}. This page is a rendering; the report.json beside it is what a claim cites.</p></footer>\n\
         </body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// A status in words with a symbol, so it reads without colour.
fn status_label(status: Status) -> String {
    let (class, symbol) = match status {
        Status::Pass => ("pass", "✓"),
        Status::Fail => ("fail", "✗"),
        Status::Skip => ("skip-s", "–"),
        Status::Error => ("error", "!"),
        Status::ExpectedFail => ("expected", "≈"),
    };
    format!(
        "<span class=\"{class}\"><span aria-hidden=\"true\">{symbol}</span> {}</span>",
        status.as_str().to_uppercase()
    )
}

/// A wide table inside a region that scrolls sideways and is reachable by
/// keyboard (a scrolling region must be focusable to scroll without a mouse).
fn scroll(s: &mut String, label: &str, table: &str) {
    let _ = write!(
        s,
        "<div class=\"scroll\" role=\"region\" aria-label=\"{}\" tabindex=\"0\">\n{table}</div>\n",
        escape(label)
    );
}

/// The anchor of the `index`-th vector: vector ids come from a vendor's
/// folder too, so the anchor is never built from one.
fn anchor(index: usize) -> String {
    format!("vector-{index}")
}

/// The verdict line on top: what the run says, in words.
fn verdict(report: &Report, refusals: &[String]) -> String {
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
    let claim = if refusals.is_empty() {
        "a claim can be made (see <a href=\"#claim\">the claim row</a>)"
    } else {
        "no claim can be made (see <a href=\"#claim\">why</a>)"
    };
    format!(
        "<p class=\"verdict {class}\">{word}: {}{}; {claim}.</p>\n",
        escape(&counts),
        escape(&detail)
    )
}

fn summary_list(report: &Report) -> String {
    let mut s = String::from("<dl>\n");
    let mut item = |k: &str, v: String| {
        let _ = writeln!(s, "<dt>{}</dt><dd>{v}</dd>", escape(k));
    };
    let subject = if report.protocol == Protocol::Ahp.as_str() {
        "Implementation"
    } else {
        "Host"
    };
    item(
        subject,
        format!(
            "{} {}",
            escape(&report.host.name),
            escape(&report.host.version)
        ),
    );
    item("Protocol", escape(&report.protocol));
    item("Spec", format!("<code>{}</code>", escape(&report.spec)));
    if !report.host.spec_versions.is_empty() {
        item(
            "Spec versions it emits",
            escape(&report.host.spec_versions.join(", ")),
        );
    }
    item(
        "Vectors",
        format!(
            "{} ({} vectors{}{})",
            escape(&report.vector_set.source),
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
        ),
    );
    item(
        "Runner",
        format!(
            "{} {}",
            escape(&report.runner.name),
            escape(&report.runner.version)
        ),
    );
    item(
        "Started",
        format!(
            "{} ({} ms in all)",
            escape(&report.timing.started_at),
            report.timing.total_ms
        ),
    );
    s.push_str("</dl>\n");
    s
}

/// One per-part table; `counts` picks the gating or the advisory counts.
fn parts_table(
    caption: &str,
    report: &Report,
    counts: impl Fn(&PartTotals) -> Totals,
    total: Totals,
) -> String {
    let expected = total.expected_fail > 0;
    let mut s = format!(
        "<table>\n<caption>{}</caption>\n<thead><tr><th scope=\"col\">part</th>\
         <th scope=\"col\" class=\"n\">✓ pass</th><th scope=\"col\" class=\"n\">✗ fail</th>{}\
         <th scope=\"col\" class=\"n\">– skip</th><th scope=\"col\" class=\"n\">! error</th>\
         <th scope=\"col\" class=\"n\">applicable</th></tr></thead>\n<tbody>\n",
        escape(caption),
        if expected {
            "<th scope=\"col\" class=\"n\">≈ expected-fail</th>"
        } else {
            ""
        }
    );
    let row = |s: &mut String, head: &str, t: &Totals| {
        let _ = writeln!(
            s,
            "<tr><th scope=\"row\">{head}</th><td class=\"n\">{}</td><td class=\"n\">{}</td>{}\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            t.pass,
            t.fail,
            if expected {
                format!("<td class=\"n\">{}</td>", t.expected_fail)
            } else {
                String::new()
            },
            t.skip,
            t.error,
            t.applicable()
        );
    };
    for p in &report.parts {
        let t = counts(p);
        if t.count() > 0 {
            row(&mut s, &escape(&p.part), &t);
        }
    }
    s.push_str("</tbody>\n<tfoot>\n");
    row(&mut s, "total", &total);
    s.push_str("</tfoot>\n</table>\n");
    s
}

fn matrix_section(s: &mut String, report: &Report) {
    s.push_str("<section aria-labelledby=\"matrix\">\n<h2 id=\"matrix\">Results by part</h2>\n");
    scroll(
        s,
        "Gating results by part",
        &parts_table(
            "Gating vectors (the exit code and a claim read these)",
            report,
            |p| p.totals,
            report.totals,
        ),
    );
    if report.advisory_totals.count() > 0 {
        s.push_str(
            "<p>Advisory vectors pin the project's preferred reading where the spec text allows \
             several; their results never change the exit code and never block a claim.</p>\n",
        );
        scroll(
            s,
            "Advisory results by part",
            &parts_table(
                "Advisory vectors (never gate)",
                report,
                |p| p.advisory,
                report.advisory_totals,
            ),
        );
    }
    s.push_str("</section>\n");
}

/// A unified diff with each line's `-`/`+` kept as text (colour repeats it).
fn diff_block(text: &str) -> String {
    let mut s = String::from("<pre class=\"diff\"><code>");
    for line in text.lines() {
        let class = if line.starts_with('-') && !line.starts_with("---") {
            Some("del")
        } else if line.starts_with('+') && !line.starts_with("+++") {
            Some("ins")
        } else {
            None
        };
        match class {
            Some(c) => {
                let _ = writeln!(s, "<span class=\"{c}\">{}</span>", escape(line));
            }
            None => {
                let _ = writeln!(s, "{}", escape(line));
            }
        }
    }
    s.push_str("</code></pre>");
    s
}

fn vector_heading(index: usize, v: &VectorEntry) -> String {
    let advisory = v
        .advisory
        .as_ref()
        .map(|d| {
            format!(
                " <span class=\"note\">(advisory, {}: never gates)</span>",
                escape(d)
            )
        })
        .unwrap_or_default();
    format!(
        "<h3 id=\"{}\">{} <code>{}</code> {}{advisory}</h3>\n\
         <p class=\"note\">Part <code>{}</code>, file <code>{}</code>, digest <code>{}</code>.</p>\n",
        anchor(index),
        status_label(v.status),
        escape(&v.id),
        escape(&v.title),
        escape(&v.part),
        escape(&v.file),
        escape(&v.sha256)
    )
}

fn failure_article(s: &mut String, index: usize, v: &VectorEntry) {
    s.push_str("<article>\n");
    s.push_str(&vector_heading(index, v));
    if let Some(b) = &v.baseline {
        let _ = writeln!(
            s,
            "<p>Expected to fail by the baseline: {} (owner {}, until {}).</p>",
            escape(&b.reason),
            escape(&b.owner),
            escape(&b.expires)
        );
    }
    if v.failures.is_empty() {
        let _ = writeln!(s, "<p>{}</p>", escape(&v.reason));
    } else {
        s.push_str("<ul>\n");
        for f in &v.failures {
            let _ = writeln!(
                s,
                "<li><p><code>{}</code>: {}</p>",
                escape(&f.key),
                escape(&f.message)
            );
            if let Some(d) = &f.diff {
                let _ = writeln!(
                    s,
                    "<details class=\"diff\" open><summary>Diff of expected (<code>-</code>) against actual (<code>+</code>)</summary>\n{}\n</details>",
                    diff_block(d)
                );
            } else {
                for (name, value) in [("expected", &f.expected), ("actual", &f.actual)] {
                    if let Some(value) = value {
                        let _ = writeln!(
                            s,
                            "<details open><summary>{name}</summary>\n<pre><code>{}</code></pre>\n</details>",
                            escape(&diff::pretty(value))
                        );
                    }
                }
            }
            s.push_str("</li>\n");
        }
        s.push_str("</ul>\n");
    }
    clauses_block(s, &v.clauses);
    s.push_str("</article>\n");
}

/// The clauses a failure cites, each with its sentence, so the reader sees
/// the rule and can dispute it.
fn clauses_block(s: &mut String, clauses: &[ClauseQuote]) {
    if clauses.is_empty() {
        return;
    }
    s.push_str("<div class=\"clauses\"><p>The text this rests on:</p>\n<ul>\n");
    for c in clauses {
        match &c.quote {
            Some(q) => {
                let _ = writeln!(
                    s,
                    "<li>clause <code>{}</code>: <blockquote>{}</blockquote>{}</li>",
                    escape(&c.id),
                    escape(q),
                    c.source
                        .as_ref()
                        .map(|src| format!(" <cite>{}</cite>", escape(src)))
                        .unwrap_or_default()
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "<li>clause <code>{}</code>: {} <em>(the catalog's paraphrase; no sentence quoted)</em></li>",
                    escape(&c.id),
                    escape(&c.text)
                );
            }
        }
    }
    s.push_str("</ul></div>\n");
}

/// The gating failures grouped by rule, above the failures one by one.
fn rules_section(s: &mut String, report: &Report) {
    let groups = crate::rules::gating_groups(report);
    if groups.is_empty() {
        return;
    }
    s.push_str("<section aria-labelledby=\"rules\">\n<h2 id=\"rules\">Failures by rule</h2>\n");
    s.push_str("<p>One entry per assertion that failed in gating vectors, the most widespread first, with the clauses every one of those vectors cites; each vector is listed below too.</p>\n<ul>\n");
    for g in &groups {
        let n = g.vectors.len();
        let ids: Vec<String> = g.vectors.iter().map(|v| escape(&v.id)).collect();
        let _ = writeln!(
            s,
            "<li><p><strong>{n} vector{}</strong>: <code>{}</code>: {}</p><p>{}</p>",
            if n == 1 { "" } else { "s" },
            escape(&g.key),
            escape(g.message),
            ids.join(", ")
        );
        let clauses: Vec<ClauseQuote> = g.clauses.iter().map(|c| (*c).clone()).collect();
        clauses_block(s, &clauses);
        s.push_str("</li>\n");
    }
    s.push_str("</ul>\n</section>\n");
}

/// The reason of an error, and the host's stderr tail apart from it when
/// the reason carries one.
fn error_article(s: &mut String, index: usize, v: &VectorEntry) {
    s.push_str("<article>\n");
    s.push_str(&vector_heading(index, v));
    match ctk_core::outcome::split_stderr_tail(&v.reason) {
        (reason, Some(tail)) => {
            let _ = writeln!(
                s,
                "<p>{}</p>\n<details open><summary>Host stderr (last lines)</summary>\n<pre class=\"stderr\"><code>{}</code></pre>\n</details>",
                escape(reason),
                escape(&tail.join("\n"))
            );
        }
        (_, None) => {
            let _ = writeln!(
                s,
                "<p>{}</p>\n<p class=\"note\">The report carries no host stderr for this error.</p>",
                escape(&v.reason)
            );
        }
    }
    s.push_str("</article>\n");
}

fn problems_sections(s: &mut String, report: &Report) {
    let pick = |statuses: &[Status]| -> Vec<(usize, &VectorEntry)> {
        report
            .vectors
            .iter()
            .enumerate()
            .filter(|(_, v)| statuses.contains(&v.status))
            .collect()
    };
    let failed = pick(&[Status::Fail, Status::ExpectedFail]);
    rules_section(s, report);
    s.push_str("<section aria-labelledby=\"failures\">\n<h2 id=\"failures\">Failures</h2>\n");
    if failed.is_empty() {
        s.push_str("<p>None: no vector failed.</p>\n");
    }
    for (i, v) in failed {
        failure_article(s, i, v);
    }
    s.push_str("</section>\n");
    let errors = pick(&[Status::Error]);
    s.push_str("<section aria-labelledby=\"errors\">\n<h2 id=\"errors\">Errors</h2>\n");
    if errors.is_empty() {
        s.push_str("<p>None: the host and the link never failed.</p>\n");
    } else {
        s.push_str(
            "<p>An error says the host or the link failed; it says nothing about conformance, \
             and it blocks a claim.</p>\n",
        );
    }
    for (i, v) in errors {
        error_article(s, i, v);
    }
    s.push_str("</section>\n");
}

/// The `--baseline` the run applied: its entries that are stale or expired
/// fail the run, so they are listed here, not only in the terminal.
fn baseline_section(s: &mut String, report: &Report) {
    let Some(b) = &report.baseline else {
        return;
    };
    let _ = writeln!(
        s,
        "<section aria-labelledby=\"baseline\">\n<h2 id=\"baseline\">Baseline</h2>\n\
         <p>The run applied the baseline {} (<code>{}</code>, {} entries). A \
         baselined failure is reported as expected-fail and still counts as a failure for a \
         claim; a stale or expired entry fails the run.</p>",
        escape(&b.source),
        escape(&b.sha256),
        b.entries
    );
    for (what, list) in [("Stale entries", &b.stale), ("Expired entries", &b.expired)] {
        if list.is_empty() {
            let _ = writeln!(s, "<p>{what}: none.</p>");
            continue;
        }
        let _ = writeln!(
            s,
            "<p><strong>✗ {what} (each fails the run):</strong></p>\n<ul>"
        );
        for e in list {
            let _ = writeln!(
                s,
                "<li><code>{}</code>: {}</li>",
                escape(&e.id),
                escape(&e.detail)
            );
        }
        s.push_str("</ul>\n");
    }
    s.push_str("</section>\n");
}

fn skips_section(s: &mut String, report: &Report) {
    let skips = human::skips_by_reason(report);
    if skips.is_empty() {
        return;
    }
    s.push_str(
        "<section aria-labelledby=\"skips\">\n<h2 id=\"skips\">Skipped, by reason</h2>\n\
         <p>A skipped vector does not apply to the declared surface.</p>\n",
    );
    let mut t = String::from(
        "<table>\n<caption>Skip reasons</caption>\n<thead><tr><th scope=\"col\" class=\"n\">vectors</th>\
         <th scope=\"col\">reason</th></tr></thead>\n<tbody>\n",
    );
    for (reason, n) in skips {
        let _ = writeln!(
            t,
            "<tr><td class=\"n\">{n}</td><td>{}</td></tr>",
            escape(&reason)
        );
    }
    t.push_str("</tbody>\n</table>\n");
    scroll(s, "Skip reasons", &t);
    s.push_str("</section>\n");
}

fn all_vectors_section(s: &mut String, report: &Report) {
    let _ = write!(
        s,
        "<section aria-labelledby=\"vectors\">\n<h2 id=\"vectors\">Every vector</h2>\n\
         <details><summary>All {} vectors, in run order</summary>\n",
        report.vectors.len()
    );
    let mut t = String::from(
        "<table>\n<caption>Every vector</caption>\n<thead><tr><th scope=\"col\">id</th><th scope=\"col\">status</th>\
         <th scope=\"col\">part</th><th scope=\"col\">title</th><th scope=\"col\">reason</th></tr></thead>\n<tbody>\n",
    );
    for (i, v) in report.vectors.iter().enumerate() {
        let id = if matches!(
            v.status,
            Status::Fail | Status::Error | Status::ExpectedFail
        ) {
            format!("<a href=\"#{}\">{}</a>", anchor(i), escape(&v.id))
        } else {
            escape(&v.id)
        };
        let _ = writeln!(
            t,
            "<tr><th scope=\"row\"><code>{id}</code></th><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            status_label(v.status),
            if v.advisory.is_some() { " (advisory)" } else { "" },
            escape(&v.part),
            escape(&v.title),
            escape(&v.reason)
        );
    }
    t.push_str("</tbody>\n</table>\n");
    scroll(s, "Every vector", &t);
    s.push_str("</details>\n</section>\n");
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

fn surface_section(s: &mut String, report: &Report) {
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
    let _ = write!(
        s,
        "<section aria-labelledby=\"surface\">\n<h2 id=\"surface\">{heading}</h2>\n<p>{what} \
         Declaration: {} (<code>{}</code>).</p>\n",
        escape(&report.declaration.source),
        escape(&report.declaration.sha256)
    );
    let mut t = format!(
        "<table>\n<caption>{heading}</caption>\n<thead><tr><th scope=\"col\">member</th><th scope=\"col\">value</th></tr></thead>\n<tbody>\n"
    );
    match &report.declaration.surface {
        Value::Object(map) => {
            for (k, v) in map {
                // A nested object keeps its lines: one line of JSON is unreadable.
                let (open, close) = if v.is_object() {
                    ("<pre><code>", "</code></pre>")
                } else {
                    ("<code>", "</code>")
                };
                let _ = writeln!(
                    t,
                    "<tr><th scope=\"row\"><code>{}</code></th><td>{open}{}{close}</td></tr>",
                    escape(k),
                    escape(&value_text(v))
                );
            }
        }
        other => {
            let _ = writeln!(
                t,
                "<tr><th scope=\"row\">surface</th><td><code>{}</code></td></tr>",
                escape(&value_text(other))
            );
        }
    }
    t.push_str("</tbody>\n</table>\n");
    scroll(s, heading, &t);
    let _ = writeln!(
        s,
        "<details><summary>The declaration document</summary>\n<pre><code>{}</code></pre>\n</details>\n</section>",
        escape(&diff::pretty(&report.declaration.document))
    );
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

fn claim_section(s: &mut String, report: &Report, refusals: &[String]) {
    s.push_str("<section aria-labelledby=\"claim\">\n<h2 id=\"claim\">Claim</h2>\n");
    if refusals.is_empty() {
        let header = claim::header(report).lines().next().unwrap_or_default();
        let row = claim::row(report);
        let mut t = String::from(
            "<table id=\"claim-row\">\n<caption>The CLAIMS.md row this report backs</caption>\n<thead><tr>",
        );
        for h in markdown_cells(header) {
            let _ = write!(t, "<th scope=\"col\">{}</th>", escape(&h));
        }
        t.push_str("</tr></thead>\n<tbody><tr>");
        for c in markdown_cells(&row) {
            let _ = write!(t, "<td>{}</td>", escape(&c));
        }
        t.push_str("</tr></tbody>\n</table>\n");
        scroll(s, "Claim row", &t);
        let _ = writeln!(
            s,
            "<p>The row as it goes into CLAIMS.md (what <code>ctk claim report.json</code> prints):</p>\n\
             <pre><code>{}\n{}</code></pre>",
            escape(claim::header(report)),
            escape(&row)
        );
    } else {
        s.push_str(
            "<p id=\"no-claim\"><strong>No claim can be made from this report:</strong></p>\n<ul class=\"refusals\">\n",
        );
        for r in refusals {
            let _ = writeln!(s, "<li>{}</li>", escape(r));
        }
        s.push_str("</ul>\n");
    }
    s.push_str("</section>\n");
}

fn digests_section(s: &mut String, report: &Report, verify_problems: &[String]) {
    let _ = write!(
        s,
        "<section aria-labelledby=\"digests\">\n<h2 id=\"digests\">Digests</h2>\n<dl>\n\
         <dt>Report digest</dt><dd><code>{}</code></dd>\n\
         <dt>Results digest</dt><dd><code>{}</code></dd>\n\
         <dt>Vector set</dt><dd><code>{}</code></dd>\n\
         <dt>Declaration</dt><dd><code>{}</code></dd>\n</dl>\n",
        escape(&report.digest),
        escape(&report.results_digest),
        escape(&report.vector_set.sha256),
        escape(&report.declaration.sha256)
    );
    s.push_str(
        "<p>How to verify: <code>ctk verify report.json</code> recomputes every digest from the \
         file and checks that it is the runner's own rendering (add <code>--vectors DIR</code> to \
         check the vector digests against a folder; a report of the embedded set is checked \
         against it). The report digest covers everything but itself; the results digest leaves \
         out the timing, so two runs with the same results share it. \
         <code>ctk claim report.json</code> prints the claim row, or why none can be made.</p>\n",
    );
    if !verify_problems.is_empty() {
        s.push_str("<p><strong>This report does not verify:</strong></p>\n<ul>\n");
        for p in verify_problems {
            let _ = writeln!(s, "<li>{}</li>", escape(p));
        }
        s.push_str("</ul>\n");
    }
    s.push_str("</section>\n");
}

/// The page of one report. `verify_problems` are what `ctk verify` found
/// (empty for a report the run has just built); they are shown with the
/// digests and block the claim. `released` gives the suite a claim is
/// compared with.
pub fn render(
    report: &Report,
    verify_problems: &[String],
    released: claim::ReleasedSets,
) -> String {
    let refusals = claim::refusals(report, verify_problems, released);
    let mut s = String::new();
    s.push_str(&verdict(report, &refusals));
    s.push_str(&summary_list(report));
    // What went wrong comes first: it is what a vendor opens the page for.
    problems_sections(&mut s, report);
    baseline_section(&mut s, report);
    matrix_section(&mut s, report);
    skips_section(&mut s, report);
    surface_section(&mut s, report);
    claim_section(&mut s, report, &refusals);
    digests_section(&mut s, report, verify_problems);
    all_vectors_section(&mut s, report);
    document(
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
        &s,
    )
}

/// The interop matrix as a page: one table per suite, one column per
/// implementation, then every failure with its classification.
pub fn render_matrix(reports: &[Report], triage: &Triage) -> String {
    let mut s = String::from(
        "<p>Generated by <code>ctk matrix</code> from reports and a triage file. Each cell is the \
         gating <code>pass / fail / skip</code> count (and errors when there are any); advisory \
         vectors are counted on their own row. Every failure is classified below.</p>\n",
    );
    for (n, table) in matrix::tables(reports).iter().enumerate() {
        let _ = writeln!(
            s,
            "<section aria-labelledby=\"suite-{n}\">\n<h2 id=\"suite-{n}\">{}</h2>",
            escape(&table.name)
        );
        let mut t = format!(
            "<table class=\"matrix\">\n<caption>{}: pass / fail / skip per part</caption>\n<thead><tr><th scope=\"col\">part</th>",
            escape(&table.name)
        );
        for r in &table.columns {
            let _ = write!(
                t,
                "<th scope=\"col\" class=\"n\">{}</th>",
                escape(&matrix::implementation(r))
            );
        }
        t.push_str("</tr></thead>\n<tbody>\n");
        for (part, counts) in &table.rows {
            let _ = write!(t, "<tr><th scope=\"row\">{}</th>", escape(part));
            for c in counts {
                let _ = write!(t, "<td class=\"n\">{}</td>", escape(&matrix::cell(c)));
            }
            t.push_str("</tr>\n");
        }
        t.push_str("</tbody>\n<tfoot>\n<tr><th scope=\"row\">total</th>");
        for r in &table.columns {
            let _ = write!(
                t,
                "<td class=\"n\">{}</td>",
                escape(&matrix::cell(&r.totals))
            );
        }
        t.push_str("</tr>\n<tr><th scope=\"row\">advisory (never gates)</th>");
        for r in &table.columns {
            let _ = write!(
                t,
                "<td class=\"n\">{}</td>",
                escape(&matrix::cell(&r.advisory_totals))
            );
        }
        t.push_str("</tr>\n</tfoot>\n</table>\n");
        scroll(&mut s, &table.name, &t);
        s.push_str("</section>\n");
    }
    s.push_str("<section aria-labelledby=\"failures\">\n<h2 id=\"failures\">Failures</h2>\n");
    let lines = matrix::failures(reports, triage);
    if lines.is_empty() {
        s.push_str("<p>None.</p>\n");
    } else {
        s.push_str("<ul>\n");
    }
    for line in &lines {
        let v = line.vector;
        let _ = write!(
            s,
            "<li>{} {} <code>{}</code>{}",
            escape(&matrix::implementation(line.report)),
            status_label(v.status),
            escape(&v.id),
            if v.advisory.is_some() {
                " (advisory)"
            } else {
                ""
            }
        );
        match line.entry {
            Some(e) => {
                let _ = write!(
                    s,
                    ", clause <code>{}</code>: <strong>{}</strong>: {} Fails: <code>{}</code>.",
                    escape(&e.clause),
                    escape(e.class.label()),
                    escape(&e.diagnosis),
                    escape(&v.reason)
                );
                if let Some(sentence) = &e.sentence {
                    let _ = write!(s, " The text: <q>{}</q>", escape(sentence));
                }
            }
            None => {
                let _ = write!(s, ": <strong>unclassified</strong>: {}", escape(&v.reason));
            }
        }
        s.push_str("</li>\n");
    }
    if !lines.is_empty() {
        s.push_str("</ul>\n");
    }
    s.push_str("</section>\n");
    document("Interoperability matrix", &[("failures", "Failures")], &s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_every_html_metacharacter() {
        assert_eq!(
            escape(r#"<script>alert("x&'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;&#39;y&#39;)&lt;/script&gt;"
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
