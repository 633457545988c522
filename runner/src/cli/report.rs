//! `ctk report --html REPORT.json [-o FILE]`: the report as one
//! self-contained HTML page.

use std::path::Path;

use crate::cli::verify::read;
use crate::cli::{terminal, CliError};
use crate::errors::ReportError;
use crate::exit_code;
use crate::report::{html, verify};

/// Write `text` to `output`, or print it when there is none.
pub(crate) fn emit(output: Option<&Path>, text: &str) -> Result<(), CliError> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|source| {
            ReportError::Io {
                path: path.to_path_buf(),
                source,
            }
            .into()
        }),
        None => {
            terminal::out(text);
            Ok(())
        }
    }
}

/// Render the page of the report at `path`. A report that does not verify
/// is still rendered (its problems are on the page and block the claim row),
/// so a vendor can look at it; a file that is not a report is an input error.
pub fn command(path: &Path, output: Option<&Path>) -> Result<u8, CliError> {
    let (text, value, report) = read(path)?;
    let problems = verify::verify_parsed(&text, &value, &report, None);
    emit(
        output,
        &html::render(&report, &problems, crate::set::released),
    )?;
    Ok(exit_code::SUCCESS)
}
