//! `ctk claim REPORT`.

use std::path::Path;

use crate::cli::verify::read;
use crate::cli::{terminal, CliError};
use crate::exit_code;
use crate::report::{claim, verify};

/// Print the CLAIMS.md row, or refuse with every reason.
pub fn command(path: &Path) -> Result<u8, CliError> {
    let (text, value, report) = read(path)?;
    let refusals = claim::refusals(
        &report,
        &verify::verify_parsed(&text, &value, &report, None),
        crate::set::released,
    );
    if refusals.is_empty() {
        terminal::out_line(&format!(
            "{}\n{}",
            claim::header(&report),
            claim::row(&report)
        ));
        Ok(exit_code::SUCCESS)
    } else {
        terminal::err(&format!("{}: no claim can be made:", path.display()));
        for r in &refusals {
            terminal::err(&format!("- {r}"));
        }
        Ok(exit_code::FAILURES)
    }
}
