//! `ctk baseline update --report REPORT.json`: write a baseline of a
//! report's current failures ([`crate::report::baseline::update`]).

use std::path::Path;

use crate::cli::verify::read;
use crate::cli::{terminal, CliError};
use crate::errors::{ReportError, UsageError};
use crate::exit_code;
use crate::report::baseline;

/// Write the baseline document to `output`, or print it.
pub fn update(
    report: &Path,
    owner: Option<&str>,
    expires: Option<&str>,
    output: Option<&Path>,
) -> Result<u8, CliError> {
    let expires = expires
        .map(|text| {
            baseline::parse_date(text).ok_or_else(|| {
                UsageError(format!(
                    "--expires {text}: not a calendar date (YYYY-MM-DD, the last day the entries hold)"
                ))
            })
        })
        .transpose()?;
    if owner.is_some_and(|o| o.trim().is_empty()) {
        return Err(UsageError("--owner must name someone".into()).into());
    }
    let (_, _, report) = read(report)?;
    let document = baseline::update(&report, owner, expires)?;
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    match output {
        Some(path) => std::fs::write(path, &text).map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })?,
        None => terminal::out(&text),
    }
    Ok(exit_code::SUCCESS)
}
