//! `junit.xml`: one testsuite per part; harness errors are `<error>`,
//! assertion failures `<failure>`, skips `<skipped>` with the reason.
//! Timestamps are fixed at the Unix epoch (the report has no wall clock).

use junit_report::{Duration, OffsetDateTime, ReportBuilder, TestCase, TestSuite};

use crate::assert::diff;
use crate::errors::ReportError;
use crate::outcome::Status;
use crate::report::model::Report;

fn failure_text(failures: &[crate::assert::AssertionFailure]) -> String {
    let mut out = String::new();
    for f in failures {
        out.push_str(&format!("{}: {}\n", f.key, f.message));
        match (&f.diff, &f.expected, &f.actual) {
            (Some(d), _, _) => out.push_str(d),
            (None, Some(e), None) => out.push_str(&format!("expected: {}\n", diff::pretty(e))),
            (None, None, Some(a)) => out.push_str(&format!("actual: {}\n", diff::pretty(a))),
            _ => {}
        }
    }
    out
}

/// Render the JUnit XML.
pub fn render(report: &Report) -> Result<String, ReportError> {
    let mut builder = ReportBuilder::new();
    for part in &report.parts {
        let mut suite = TestSuite::new(&part.part);
        suite.set_timestamp(OffsetDateTime::UNIX_EPOCH);
        for v in report.vectors.iter().filter(|v| v.part == part.part) {
            let ms = report.timing.vectors_ms.get(&v.id).copied().unwrap_or(0);
            let time = Duration::milliseconds(i64::try_from(ms).unwrap_or(i64::MAX));
            let mut case = match v.status {
                Status::Pass => TestCase::success(&v.id, time),
                Status::Fail => {
                    let mut c = TestCase::failure(&v.id, time, "assertion", &v.reason);
                    c.set_system_out(&failure_text(&v.failures));
                    c
                }
                Status::Error => TestCase::error(&v.id, time, "harness", &v.reason),
                Status::Skip => TestCase::skipped_with_cause(&v.id, "not applicable", &v.reason),
            };
            case.set_classname(&v.part);
            suite.add_testcase(case);
        }
        builder.add_testsuite(suite);
    }
    let mut out = Vec::new();
    builder
        .build()
        .write_xml(&mut out)
        .map_err(|e| ReportError::Junit(e.to_string()))?;
    String::from_utf8(out).map_err(|e| ReportError::Junit(e.to_string()))
}
