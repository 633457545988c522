//! `ctk badge REPORT.json [-o FILE]`: the report's shields-style SVG badge.

use std::path::Path;

use crate::cli::report::emit;
use crate::cli::verify::read;
use crate::cli::CliError;
use crate::exit_code;
use crate::report::{badge, verify};

/// Render the badge of the report at `path`; a report that does not verify
/// gets a badge that says it is not claimable.
pub fn command(path: &Path, output: Option<&Path>) -> Result<u8, CliError> {
    let (text, value, report) = read(path)?;
    let problems = verify::verify_parsed(&text, &value, &report, None);
    emit(
        output,
        &badge::render(&badge::badge(&report, &problems, crate::set::released)),
    )?;
    Ok(exit_code::SUCCESS)
}
