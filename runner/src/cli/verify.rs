//! `ctk verify REPORT [--vectors DIR]`, and the report reading it shares
//! with `ctk claim` and `ctk validate report`.

use std::path::Path;

use serde_json::Value;

use crate::cli::validate::check_report;
use crate::cli::{terminal, CliError};
use crate::errors::{Location, ReportError};
use crate::exit_code;
use crate::report::model::Report;
use crate::report::verify;
use crate::set::VectorMeta;
use crate::suite::Suite;
use ctk_agent_hooks_adapter::wire::depth::{from_str_within, REPORT_NESTING};
use ctk_agent_hooks_suite::vector::load::{self, VectorSource};

/// Read a report file and check it against `schemas/report.schema.json` and
/// the report model: its text, JSON value and model. A file that is not a
/// report is an input error naming the file and the JSON pointer (exit 2).
pub fn read(path: &Path) -> Result<(String, Value, Report), ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let malformed = |detail: String| ReportError::Malformed {
        location: Location {
            file: path.to_path_buf(),
            pointer: String::new(),
        },
        detail,
    };
    let value: Value =
        from_str_within(&text, REPORT_NESTING).map_err(|e| malformed(format!("not JSON: {e}")))?;
    check_report(path, &value)?;
    let report: Report =
        serde_json::from_value(value.clone()).map_err(|e| malformed(e.to_string()))?;
    Ok((text, value, report))
}

/// Where `verify` takes the vectors a report must cite from.
enum Embedded {
    /// `--vectors DIR` (Agent Hooks vectors).
    Dir(VectorSource),
    /// The embedded set of the suite the report names as its source.
    Suite(Suite),
}

/// `ctk verify`.
pub fn command(path: &Path, vectors: Option<&Path>) -> Result<u8, CliError> {
    let (text, value, report) = read(path)?;
    let source = match vectors {
        Some(dir) => Some(Embedded::Dir(VectorSource::Dir(dir.to_path_buf()))),
        None => report
            .vector_set
            .source
            .strip_prefix("embedded:")
            .and_then(|folder| Suite::ALL.into_iter().find(|s| s.folder() == folder))
            .map(Embedded::Suite),
    };
    let loaded: Option<Vec<VectorMeta>> = match source {
        Some(Embedded::Dir(s)) => Some(
            load::load(&s)?
                .iter()
                .map(load::LoadedVector::meta)
                .collect(),
        ),
        Some(Embedded::Suite(suite)) => Some(
            crate::report::claim::released_suite(&report, crate::set::released).map_err(|e| {
                CliError::Harness(format!("the embedded {} set: {e}", suite.wire()))
            })?,
        ),
        None => None,
    };
    let problems = verify::verify_parsed(&text, &value, &report, loaded.as_deref());
    if problems.is_empty() {
        if loaded.is_none() {
            terminal::out_line(&format!(
                "{}: vector digests not checked against files: the report ran vectors from {}; pass --vectors DIR to check them",
                path.display(),
                report.vector_set.source
            ));
        }
        terminal::out_line(&format!("{}: verified", path.display()));
        Ok(exit_code::SUCCESS)
    } else {
        for p in &problems {
            terminal::err(&format!("{}: {p}", path.display()));
        }
        Ok(exit_code::FAILURES)
    }
}
