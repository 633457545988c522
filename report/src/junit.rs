//! `junit.xml` in the common Jenkins/Ant JUnit format, which GitLab, GitHub
//! test-report actions, Jenkins and Azure read: `<testsuites>` with the run's
//! totals, one `<testsuite>` per part with `tests`, `failures`, `errors`,
//! `skipped`, `time` and `timestamp` (the run's start, `timing.started_at`),
//! and one `<testcase>` per vector named `<id>: <title>`. Assertion failures
//! are `<failure>` (the expectations and diffs as its text), host or harness errors
//! `<error>`, skips `<skipped>` with the reason, expected failures (a
//! `--baseline` entry) `<skipped>` too, with the entry in the message.
//!
//! Advisory vectors sit in suites of their own, `advisory: <part>`, after
//! the gating ones, with the suite property `advisory` = `true` and each
//! failure message starting `advisory (<decision>; never blocks a claim)`.
//! A verdict stays a verdict (an advisory failure is a `<failure>`, so CI
//! shows it as one), while the suite name and message say at a glance that
//! it does not gate; the exit code is what gates a CI job.
//!
//! Written with `quick-xml` rather than `junit-report`, which writes no
//! `skipped` counts and no properties. `runner/tests/data/junit.xsd` states
//! the format; the integration tests check every file against it.

use std::collections::BTreeMap;
use std::io;

use quick_xml::escape::partial_escape;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;

use crate::model::{Report, Totals, VectorEntry};
use crate::ReportError;
use ctk_core::outcome::{Shown, Status};

fn failure_text(failures: &[ctk_core::outcome::AssertionFailure]) -> String {
    let mut out = String::new();
    for f in failures {
        out.push_str(&format!("{}: {}\n", f.key, f.message));
        match f.shown() {
            Shown::Diff(text) | Shown::Values(text) => out.push_str(&text),
            Shown::Nothing => {}
        }
    }
    out
}

/// Text XML 1.0 can carry: a character it forbids even escaped (most
/// control characters, which a host's output may hold) becomes U+FFFD.
fn xml_text(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// Seconds with millisecond precision, as JUnit's `time` wants them.
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// One suite: its name, whether it is advisory, its vectors (by their
/// place in the report: a spooled run's entries are read back one at a
/// time as they are written), their counts and their summed duration.
#[derive(Default)]
struct Suite {
    name: String,
    advisory: bool,
    members: Vec<usize>,
    totals: Totals,
    ms: u64,
}

/// The suites of a report: gating parts first, then advisory ones, each in
/// part order, leaving out empty ones.
fn suites(report: &Report) -> Vec<Suite> {
    let mut by: BTreeMap<(bool, String), Suite> = BTreeMap::new();
    for (i, (v, ms)) in report.timed().enumerate() {
        let advisory = v.advisory.is_some();
        let s = by.entry((advisory, v.part.clone())).or_default();
        s.members.push(i);
        s.totals.add(v.status);
        s.ms += ms;
    }
    let mut out = Vec::new();
    for advisory in [false, true] {
        for part in &report.parts {
            let Some(mut suite) = by.remove(&(advisory, part.part.clone())) else {
                continue;
            };
            suite.name = if advisory {
                format!("advisory: {}", part.part)
            } else {
                part.part.clone()
            };
            suite.advisory = advisory;
            out.push(suite);
        }
    }
    out
}

fn write_case<W: io::Write>(
    w: &mut Writer<W>,
    suite: &str,
    v: &VectorEntry,
    ms: u64,
) -> io::Result<()> {
    let name = xml_text(&format!("{}: {}", v.id, v.title));
    let time = seconds(ms);
    let reason = xml_text(&match &v.advisory {
        Some(d) => format!("advisory ({d}; never blocks a claim): {}", v.reason),
        None => v.reason.clone(),
    });
    let case = w.create_element("testcase").with_attributes([
        ("name", name.as_str()),
        ("classname", suite),
        ("time", time.as_str()),
    ]);
    match v.status {
        Status::Pass => {
            case.write_empty()?;
        }
        Status::Fail => {
            let mut text = failure_text(&v.failures);
            for c in &v.clauses {
                text.push_str(&c.line());
                text.push('\n');
            }
            let details = xml_text(&text);
            case.write_inner_content(|w| {
                w.create_element("failure")
                    .with_attributes([("message", reason.as_str()), ("type", "assertion")])
                    .write_text_content(BytesText::from_escaped(partial_escape(&details)))?;
                Ok(())
            })?;
        }
        Status::Error => {
            case.write_inner_content(|w| {
                w.create_element("error")
                    .with_attributes([("message", reason.as_str()), ("type", "harness")])
                    .write_empty()?;
                Ok(())
            })?;
        }
        Status::ExpectedFail => {
            // As pytest writes an xfail: skipped, so CI tools do not count
            // it as a failure, with the baseline entry in the message.
            let why = v
                .baseline
                .as_ref()
                .map(|b| {
                    format!(
                        "expected failure (baseline: {}; owner {}; expires {}): ",
                        b.reason, b.owner, b.expires
                    )
                })
                .unwrap_or_else(|| "expected failure: ".to_owned());
            let message = xml_text(&format!("{why}{}", v.reason));
            case.write_inner_content(|w| {
                w.create_element("skipped")
                    .with_attribute(("message", message.as_str()))
                    .write_empty()?;
                Ok(())
            })?;
        }
        Status::Skip => {
            case.write_inner_content(|w| {
                w.create_element("skipped")
                    .with_attribute(("message", reason.as_str()))
                    .write_empty()?;
                Ok(())
            })?;
        }
    }
    Ok(())
}

fn write_xml<W: io::Write>(w: &mut Writer<W>, report: &Report) -> io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let suites = suites(report);
    let mut all = Totals::default();
    for s in &suites {
        let t = s.totals;
        all.pass += t.pass;
        all.fail += t.fail;
        all.skip += t.skip;
        all.error += t.error;
        all.expected_fail += t.expected_fail;
    }
    let timestamp = xml_text(&report.timing.started_at);
    let title = xml_text(&format!(
        "ctk {}: {} {}",
        report.spec, report.host.name, report.host.version
    ));
    let host = xml_text(&format!("{} {}", report.host.name, report.host.version));
    w.create_element("testsuites")
        .with_attributes([
            ("name", title.as_str()),
            ("tests", all.count().to_string().as_str()),
            ("failures", all.fail.to_string().as_str()),
            ("errors", all.error.to_string().as_str()),
            (
                "skipped",
                (all.skip + all.expected_fail).to_string().as_str(),
            ),
            ("time", seconds(report.timing.total_ms).as_str()),
            ("timestamp", timestamp.as_str()),
        ])
        .write_inner_content(|w| {
            for (id, s) in suites.iter().enumerate() {
                let (t, ms) = (s.totals, s.ms);
                let name = xml_text(&s.name);
                w.create_element("testsuite")
                    .with_attributes([
                        ("name", name.as_str()),
                        ("tests", t.count().to_string().as_str()),
                        ("failures", t.fail.to_string().as_str()),
                        ("errors", t.error.to_string().as_str()),
                        ("skipped", (t.skip + t.expected_fail).to_string().as_str()),
                        ("time", seconds(ms).as_str()),
                        ("timestamp", timestamp.as_str()),
                        ("hostname", "localhost"),
                        ("id", id.to_string().as_str()),
                        ("package", name.as_str()),
                    ])
                    .write_inner_content(|w| {
                        w.create_element("properties").write_inner_content(|w| {
                            for (key, value) in [
                                ("spec", report.spec.as_str()),
                                ("host", host.as_str()),
                                ("advisory", if s.advisory { "true" } else { "false" }),
                                ("report_digest", report.digest.as_str()),
                            ] {
                                w.create_element("property")
                                    .with_attributes([("name", key), ("value", value)])
                                    .write_empty()?;
                            }
                            Ok(())
                        })?;
                        for &i in &s.members {
                            if let Some((v, ms)) = report.timed_at(i) {
                                write_case(w, &name, &v, ms)?;
                            }
                        }
                        Ok(())
                    })?;
            }
            Ok(())
        })?;
    Ok(())
}

/// Render the JUnit XML.
pub fn render(report: &Report) -> Result<String, ReportError> {
    let mut out = Vec::new();
    write(report, &mut out).map_err(|e| ReportError::Junit(e.to_string()))?;
    String::from_utf8(out).map_err(|e| ReportError::Junit(e.to_string()))
}

/// Write [`render`]'s bytes to `out` as they are made, without holding the
/// whole text (a run of 100,000 vectors writes megabytes of it; issue 30).
pub fn write(report: &Report, out: impl io::Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let mut writer = Writer::new_with_indent(&mut out, b' ', 2);
    write_xml(&mut writer, report)?;
    io::Write::write_all(&mut out, b"\n")?;
    io::Write::flush(&mut out)?;
    // A spool that could not be read back whole left cases out.
    match report.failure() {
        Some(why) => Err(io::Error::other(why)),
        None => Ok(()),
    }
}
