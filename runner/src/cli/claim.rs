//! `ctk claim REPORT`.

use std::path::Path;

use crate::cli::verify::read;
use crate::cli::CliError;
use crate::errors::{Location, ReportError};
use crate::exit_code;
use crate::report::{claim, verify};

/// Print the CLAIMS.md row, or refuse with every reason.
pub fn command(path: &Path) -> Result<u8, CliError> {
    let text = read(path)?;
    let (_, report) = verify::parse(&text).map_err(|detail| ReportError::Malformed {
        location: Location {
            file: path.to_path_buf(),
            pointer: String::new(),
        },
        detail,
    })?;
    let refusals = claim::refusals(&report, &verify::verify(&text, None));
    if refusals.is_empty() {
        println!("{}\n{}", claim::CLAIM_HEADER, claim::row(&report));
        Ok(exit_code::SUCCESS)
    } else {
        eprintln!("{}: no claim can be made:", path.display());
        for r in &refusals {
            eprintln!("- {r}");
        }
        Ok(exit_code::FAILURES)
    }
}
