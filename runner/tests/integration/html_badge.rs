//! `report.html`, the HTML matrix and the badge: what a page holds for a
//! passing, a failing and a draft report, that host-supplied strings are
//! escaped, and the `ctk report --html` / `ctk badge` / `ctk run
//! --report-dir` / `ctk matrix --html` commands.

use std::path::Path;
use std::process::Command;

use ctk::outcome::Status;
use ctk::report::badge::{self, BadgeState};
use ctk::report::html;
use ctk::report::model::Report;
use ctk_agent_hooks_suite::assert::AssertionFailure;
use serde_json::json;

use crate::reports::{released_report, report};
use crate::support::{ctk, text};

/// The gating vectors of the released suite: a passing report's count.
fn gating(r: &Report) -> usize {
    r.vectors.iter().filter(|v| v.advisory.is_none()).count()
}

#[test]
fn a_failing_page_holds_the_matrix_the_diff_the_error_the_refusals_and_the_digests() {
    let r = report("agent-hooks/0.1", false);
    let page = html::render(&r, &[], ctk::set::released);
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("<meta name=\"viewport\""), "{page}");
    assert!(page.contains("<a class=\"skip\" href=\"#main\">"), "{page}");
    assert!(
        page.contains("✗ FAILING: 1/3 applicable vectors passed (1 failed, 1 errors, 3 skipped)"),
        "{page}"
    );
    // The per-part matrix: a row header per part, the counts, a total row.
    assert!(
        page.contains("<tr><th scope=\"row\">fail_closed/verdict_gate</th><td class=\"n\">1</td><td class=\"n\">1</td><td class=\"n\">2</td><td class=\"n\">1</td><td class=\"n\">3</td></tr>"),
        "{page}"
    );
    assert!(
        page.contains("<tfoot><tr><th scope=\"row\">total</th>"),
        "{page}"
    );
    // The failure, with its diff in a details element, -/+ kept as text.
    assert!(page.contains("<span class=\"fail\"><span aria-hidden=\"true\">✗</span> FAIL</span> <code>AH-CTK-903</code>"), "{page}");
    assert!(
        page.contains("<code>run_outcome</code>: run outcome differs"),
        "{page}"
    );
    assert!(
        page.contains("<details class=\"diff\" open><summary>Diff of expected"),
        "{page}"
    );
    assert!(
        page.contains("<span class=\"del\">-&quot;blocked&quot;</span>"),
        "{page}"
    );
    assert!(
        page.contains("<span class=\"ins\">+&quot;completed&quot;</span>"),
        "{page}"
    );
    // The error, without a stderr tail (this one has none) and saying so.
    assert!(
        page.contains(
            "<p>harness error: run: boom</p><p class=\"note\">The report carries no host stderr"
        ),
        "{page}"
    );
    // No claim, with every reason.
    assert!(
        page.contains("<strong>No claim can be made from this report:</strong>"),
        "{page}"
    );
    assert!(page.contains("<li>1 vector(s) failed</li>"), "{page}");
    assert!(!page.contains("id=\"claim-row\""), "{page}");
    // The digests, and how to verify them.
    assert!(
        page.contains(&format!(
            "<dt>Report digest</dt><dd><code>{}</code></dd>",
            r.digest
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "<dt>Results digest</dt><dd><code>{}</code></dd>",
            r.results_digest
        )),
        "{page}"
    );
    assert!(
        page.contains("<code>ctk verify report.json</code>"),
        "{page}"
    );
    // The declared surface.
    assert!(
        page.contains("<h2 id=\"surface\">Declared surface</h2>"),
        "{page}"
    );
    assert!(
        page.contains(
            "<th scope=\"row\"><code>identity_provider</code></th><td><code>jcs-sha256</code></td>"
        ),
        "{page}"
    );
    // Self-contained: no script, no external reference.
    for banned in ["<script", "http://", "https://", "<link", "src="] {
        assert!(!page.contains(banned), "{banned}: {page}");
    }
}

#[test]
fn a_passing_released_page_holds_the_claim_row() {
    let r = released_report("agent-hooks/0.1", true);
    let page = html::render(&r, &[], ctk::set::released);
    let n = gating(&r);
    assert!(
        page.contains(&format!(
            "✓ PASSING: {n}/{n} applicable vectors passed; a claim can be made"
        )),
        "{page}"
    );
    assert!(page.contains("<table id=\"claim-row\">"), "{page}");
    assert!(
        page.contains("<th scope=\"col\">report digest</th>"),
        "{page}"
    );
    assert!(
        page.contains("<tbody><tr><td>fake</td><td>1.2.3</td><td>agent-hooks/0.1</td>"),
        "{page}"
    );
    assert!(
        page.contains(&format!("<td>{n}/{n}</td><td>{}</td></tr>", r.digest)),
        "{page}"
    );
    // The Markdown row, verbatim for CLAIMS.md.
    assert!(
        page.contains(&html::escape(&ctk::report::claim::row(&r))),
        "{page}"
    );
    assert!(page.contains("<p>None: no vector failed.</p>"), "{page}");
}

#[test]
fn a_draft_page_refuses_the_claim() {
    let r = report("agent-hooks/draft", true);
    let page = html::render(&r, &[], ctk::set::released);
    assert!(
        page.contains(
            "<li>the report is for agent-hooks/draft; only agent-hooks/0.1 can be claimed</li>"
        ),
        "{page}"
    );
}

#[test]
fn verify_problems_are_shown_and_block_the_claim() {
    let r = released_report("agent-hooks/0.1", true);
    let page = html::render(
        &r,
        &["digest mismatch: <edited>".to_owned()],
        ctk::set::released,
    );
    assert!(
        page.contains("<strong>This report does not verify:</strong>"),
        "{page}"
    );
    assert!(
        page.contains("<li>report does not verify: digest mismatch: &lt;edited&gt;</li>"),
        "{page}"
    );
    assert!(!page.contains("id=\"claim-row\""), "{page}");
}

/// A report whose every host-supplied string is hostile markup.
fn hostile() -> Report {
    let mut r = report("agent-hooks/0.1", false);
    r.host.name = "<script>alert('name')</script>".into();
    r.host.version = "\"><img src=x onerror=alert(1)>".into();
    r.declaration.surface["posture"] = json!("<script>alert('surface')</script>");
    r.declaration.document["host"]["name"] = json!("</pre><script>x()</script>");
    for v in r.vectors.held_mut() {
        match v.status {
            Status::Error => {
                v.reason = "harness error: setup: the host exited; host stderr (last lines): <script>alert('stderr')</script> | </code></pre><b>bold</b>".into();
            }
            Status::Fail => {
                v.failures = vec![AssertionFailure::mismatch(
                    "records[0].assert.\"<key>\"",
                    "<i>differs</i>",
                    &json!("<b>want</b>"),
                    Some(&json!("</pre><script>alert('diff')</script>")),
                )];
            }
            Status::Skip => v.reason = "<svg onload=alert(1)>".into(),
            _ => {}
        }
    }
    r
}

#[test]
fn every_host_supplied_string_is_escaped_in_the_page() {
    let page = html::render(&hostile(), &[], ctk::set::released);
    for raw in [
        "<script",
        "<img",
        "<svg",
        "<b>",
        "<i>",
        "</pre><script",
        "</code></pre><b>",
        "onerror=alert(1)>",
    ] {
        assert!(
            !page.contains(raw),
            "{raw} reached the page unescaped: {page}"
        );
    }
    assert!(
        page.contains("&lt;script&gt;alert('name')&lt;/script&gt;"),
        "{page}"
    );
    // The stderr tail is split into its lines, each escaped.
    assert!(
        page.contains("<summary>Host stderr (last lines)</summary><pre class=\"stderr\"><code>&lt;script&gt;alert('stderr')&lt;/script&gt;\n&lt;/code&gt;&lt;/pre&gt;&lt;b&gt;bold&lt;/b&gt;</code></pre>"),
        "{page}"
    );
    assert!(
        page.contains("&lt;/pre&gt;&lt;script&gt;alert('diff')&lt;/script&gt;"),
        "{page}"
    );
}

#[test]
fn every_host_supplied_string_is_escaped_in_the_badge() {
    let r = hostile();
    let mut b = badge::badge(&r, &[], ctk::set::released);
    b.label = r.host.name.clone();
    let svg = badge::render(&b);
    assert!(!svg.contains("<script"), "{svg}");
    assert!(svg.contains("&lt;script&gt;"), "{svg}");
}

#[test]
fn the_badge_says_passing_failing_draft_and_not_claimable_in_words() {
    let pass = released_report("agent-hooks/0.1", true);
    let n = gating(&pass);
    let b = badge::badge(&pass, &[], ctk::set::released);
    assert_eq!(
        (b.label.as_str(), b.state),
        ("agent-hooks 0.1", BadgeState::Claimable)
    );
    assert_eq!(b.message, format!("{n}/{n}"));
    let svg = badge::render(&b);
    assert!(
        svg.contains(&format!("aria-label=\"agent-hooks 0.1: {n}/{n}\"")),
        "{svg}"
    );
    assert!(svg.contains(&format!(">{n}/{n}</text>")), "{svg}");

    let fail = badge::badge(&report("agent-hooks/0.1", false), &[], ctk::set::released);
    assert_eq!(fail.state, BadgeState::Failing);
    assert_eq!(fail.message, "failing 1/3 (1 failed, 1 errors)");

    let draft = badge::badge(&report("agent-hooks/draft", true), &[], ctk::set::released);
    assert_eq!(draft.state, BadgeState::Draft);
    assert_eq!(draft.label, "agent-hooks draft");
    assert_eq!(draft.message, "draft, not claimable · 6/6");
    let failing_draft = badge::badge(&report("agent-hooks/draft", false), &[], ctk::set::released);
    assert_eq!(
        failing_draft.message,
        "draft, not claimable · failing 1/3 (1 failed, 1 errors)"
    );

    // Passing, but the engine test vectors are not the released suite.
    let folder = badge::badge(&report("agent-hooks/0.1", true), &[], ctk::set::released);
    assert_eq!(folder.state, BadgeState::NotClaimable);
    assert_eq!(folder.message, "6/6 · not claimable");
    // A released, passing report that does not verify.
    let edited = badge::badge(&pass, &["digest mismatch".to_owned()], ctk::set::released);
    assert_eq!(edited.state, BadgeState::NotClaimable);

    let colours: std::collections::BTreeSet<&str> =
        [b.state, fail.state, draft.state, folder.state]
            .iter()
            .map(|s| s.color())
            .collect();
    assert_eq!(colours.len(), 4, "each state has its own colour");
}

/// A `ctk run --report-dir` over two engine vectors, the second a wrong
/// copy of the first, so it fails; returns the report dir.
fn failing_run(dir: &Path) -> std::path::PathBuf {
    let vectors = dir.join("vectors");
    std::fs::create_dir_all(&vectors).expect("mkdir");
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine");
    let pass = std::fs::read_to_string(engine.join("AH-CTK-901-deny-input.json")).expect("901");
    std::fs::write(vectors.join("AH-CTK-901.json"), &pass).expect("write");
    let mut wrong: serde_json::Value = serde_json::from_str(&pass).expect("json");
    wrong["id"] = "AH-CTK-904".into();
    wrong["expect"]["records"][0]["assert"]["verdict.reason"] = "ctk:other".into();
    std::fs::write(vectors.join("AH-CTK-904.json"), wrong.to_string()).expect("write");
    let out_dir = dir.join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args(["run", "--vectors"])
        .arg(&vectors)
        .arg("--report-dir")
        .arg(&out_dir)
        .output()
        .expect("ctk runs");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("report.html"),
        "{}",
        text(&out.stdout)
    );
    out_dir
}

#[test]
fn run_writes_report_html_and_the_commands_render_the_same_page_and_badge() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = failing_run(tmp.path());
    let written = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(written.contains("<code>AH-CTK-904</code>"), "{written}");
    assert!(
        written.contains("<details class=\"diff\" open>"),
        "{written}"
    );
    assert!(
        written.contains(
            "<span class=\"del\">-&quot;ctk:other&quot;</span>\n<span class=\"ins\">+&quot;ctk:no&quot;</span>"
        ),
        "{written}"
    );
    let json = out.join("report.json").display().to_string();
    let page = ctk(&["report", "--html", &json]);
    assert_eq!(page.status.code(), Some(0), "{}", text(&page.stderr));
    // The same page: both render the one report.
    assert_eq!(text(&page.stdout), written);
    let file = tmp.path().join("badge.svg");
    let b = ctk(&["badge", &json, "-o", &file.display().to_string()]);
    assert_eq!(b.status.code(), Some(0), "{}", text(&b.stderr));
    let svg = std::fs::read_to_string(&file).expect("badge.svg");
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains(">failing 1/2 (1 failed)</text>"), "{svg}");
    // --html is required: the subcommand has room for other formats.
    assert_eq!(ctk(&["report", &json]).status.code(), Some(2));
    // An edited report still renders, saying it does not verify.
    let edited = tmp.path().join("edited.json");
    std::fs::write(
        &edited,
        std::fs::read_to_string(&json)
            .expect("json")
            .replace("\"fail\": 1", "\"fail\": 0"),
    )
    .expect("write");
    let page = ctk(&["report", "--html", &edited.display().to_string()]);
    assert_eq!(page.status.code(), Some(0), "{}", text(&page.stderr));
    assert!(
        text(&page.stdout).contains("This report does not verify"),
        "{}",
        text(&page.stdout)
    );
    // Not a report: an input error naming the file.
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "{}").expect("write");
    let refused = ctk(&["badge", &bad.display().to_string()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("bad.json"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn matrix_html_has_one_column_per_implementation_and_the_classified_failure() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = failing_run(tmp.path());
    let triage = tmp.path().join("triage.json");
    std::fs::write(
        &triage,
        json!({"format": "ctk-triage/1", "entries": [{"implementation": "ctk-reference-host",
            "vector": "AH-CTK-904", "class": "implementation_defect", "clause": "5-a",
            "sentence": "The host MUST <refuse> it.", "diagnosis": "answers ctk:no"}]})
        .to_string(),
    )
    .expect("write");
    let page_file = tmp.path().join("matrix.html");
    let json = out.join("report.json").display().to_string();
    let run = ctk(&[
        "matrix",
        "--triage",
        &triage.display().to_string(),
        "--html",
        &page_file.display().to_string(),
        &json,
        &json,
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let page = std::fs::read_to_string(&page_file).expect("matrix.html");
    let heading = format!(
        "<th scope=\"col\" class=\"n\">ctk-reference-host {}</th>",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(
        page.matches(&heading).count(),
        2,
        "one column per report: {page}"
    );
    assert!(page.contains("<tr><th scope=\"row\">fail_closed/verdict_gate</th><td class=\"n\">1 / 1 / 0</td><td class=\"n\">1 / 1 / 0</td></tr>"), "{page}");
    assert!(
        page.contains("<strong>implementation defect</strong>: answers ctk:no"),
        "{page}"
    );
    assert!(
        page.contains("The text: <q>The host MUST &lt;refuse&gt; it.</q>"),
        "{page}"
    );
    // The Markdown matrix on stdout is unchanged by --html.
    assert!(
        text(&run.stdout).contains("| fail_closed/verdict_gate | 1 / 1 / 0 | 1 / 1 / 0 |"),
        "{}",
        text(&run.stdout)
    );
}

#[test]
fn a_host_that_dies_at_start_leaves_a_page_with_its_stderr_escaped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("out");
    let declaration =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../agent-hooks/reference-host/host.json");
    let out = ctk(&[
        "run",
        "--part",
        "verdict/warnings",
        "--declaration",
        &declaration.display().to_string(),
        "--report-dir",
        &dir.display().to_string(),
        "--",
        "python3",
        "-c",
        "import sys; sys.stderr.write('first\\n<script>alert(1)</script>\\n'); sys.exit(2)",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    assert!(
        page.contains("ERROR</span> <code>CTK-0001</code>"),
        "{page}"
    );
    assert!(
        page.contains("<summary>Host stderr (last lines)</summary><pre class=\"stderr\"><code>first\n&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>"),
        "{page}"
    );
    assert!(!page.contains("<script"), "{page}");
    assert!(
        page.contains("ended in a host or harness error</li>"),
        "{page}"
    );
}

/// A released, otherwise passing report in which a baseline marked the
/// first gating vector expected-fail; `stale` adds a stale entry.
fn baselined(stale: bool) -> Report {
    use ctk::report::model::{BaselineInfo, BaselineNote, BaselineProblem};
    let mut r = released_report("agent-hooks/0.1", true);
    let v = r
        .vectors
        .held_mut()
        .iter_mut()
        .find(|v| v.advisory.is_none())
        .expect("a gating vector");
    v.status = Status::ExpectedFail;
    v.baseline = Some(BaselineNote {
        reason: "<known> bug".into(),
        owner: "vendor".into(),
        expires: "2099-01-01".into(),
    });
    r.totals.pass -= 1;
    r.totals.expected_fail += 1;
    r.baseline = Some(BaselineInfo {
        source: "baseline.json".into(),
        sha256: "sha256:00".into(),
        entries: 1 + usize::from(stale),
        stale: if stale {
            vec![BaselineProblem {
                id: "CTK-0002".into(),
                detail: "the vector passes now".into(),
            }]
        } else {
            Vec::new()
        },
        expired: Vec::new(),
    });
    r
}

#[test]
fn a_baselined_report_is_never_shown_as_claimable_and_a_stale_entry_as_failing() {
    let r = baselined(false);
    let n = gating(&r);
    let page = html::render(&r, &[], ctk::set::released);
    assert!(
        page.contains("≈ PASSING ONLY WITH EXPECTED FAILURES"),
        "{page}"
    );
    assert!(page.contains("EXPECTED-FAIL</span> <code>"), "{page}");
    assert!(
        page.contains(
            "Expected to fail by the baseline: &lt;known&gt; bug (owner vendor, until 2099-01-01)."
        ),
        "{page}"
    );
    assert!(!page.contains("id=\"claim-row\""), "{page}");
    let b = badge::badge(&r, &[], ctk::set::released);
    assert_eq!(b.state, BadgeState::NotClaimable);
    assert_eq!(
        b.message,
        format!("{}/{n} (1 expected-fail) · not claimable", n - 1)
    );

    let r = baselined(true);
    let page = html::render(&r, &[], ctk::set::released);
    assert!(
        page.contains("✗ FAILING (a stale or expired baseline entry)"),
        "{page}"
    );
    assert!(
        page.contains("<li><code>CTK-0002</code>: the vector passes now</li>"),
        "{page}"
    );
    let b = badge::badge(&r, &[], ctk::set::released);
    assert_eq!(b.state, BadgeState::Failing);
    assert_eq!(
        b.message,
        format!(
            "failing {}/{n} (1 expected-fail, 1 stale baseline entries)",
            n - 1
        )
    );
}

/// The every-vector table is written a slice of rows at a time: a report
/// longer than several slices still has one table, every row once, and the
/// anchors of rows beyond the first slice count from the start of the run.
#[test]
fn a_long_report_is_one_table_with_every_row_and_its_anchor() {
    let mut r = report("agent-hooks/0.1", false);
    let passing = r
        .vectors
        .iter()
        .find(|v| v.status == Status::Pass)
        .expect("a passing vector")
        .into_owned();
    let failing = r
        .vectors
        .iter()
        .find(|v| v.status == Status::Fail)
        .expect("a failing vector")
        .into_owned();
    r.vectors = (0..2345)
        .map(|i| {
            let mut v = if i == 2100 {
                failing.clone()
            } else {
                passing.clone()
            };
            v.id = format!("AH-CTK-L{i:04}");
            v
        })
        .collect::<Vec<_>>()
        .into();
    let page = html::render(&r, &[], ctk::set::released);
    let table = &page[page.find("<h2 id=\"vectors\">").expect("the section")..];
    let table = &table[..table.find("</tbody>").expect("one table body")];
    assert_eq!(table.matches("<tbody>").count(), 1, "one table");
    assert_eq!(
        table.matches("<tr><th scope=\"row\">").count(),
        2345,
        "every row once"
    );
    assert!(table.contains("<code>AH-CTK-L0000</code>"), "the first row");
    assert!(table.contains("<code>AH-CTK-L2344</code>"), "the last row");
    assert!(
        table.contains("<a href=\"#vector-2100\">AH-CTK-L2100</a>"),
        "a row past the first slices links its own failure"
    );
    assert!(
        page.contains("id=\"vector-2100\""),
        "and the failure is there"
    );
    assert!(page.trim_end().ends_with("</html>"), "the page is closed");
    let mut written = Vec::new();
    html::write(&r, &[], ctk::set::released, &mut written).expect("written");
    assert_eq!(
        written,
        page.as_bytes(),
        "the streamed page is the rendered one"
    );
}
