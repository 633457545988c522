//! `ctk list`.

use crate::cli::args::SelectArgs;
use crate::cli::{plan, CliError};
use crate::exit_code;

/// Print `part::id  [spec versions]  title` for each selected vector.
pub fn command(select: &SelectArgs) -> Result<u8, CliError> {
    for v in plan::vectors(select)? {
        let specs: Vec<_> = v
            .vector
            .spec_versions()
            .iter()
            .map(|s| s.as_str())
            .collect();
        println!(
            "{}::{}  [{}]  {}",
            v.vector.part(),
            v.vector.id,
            specs.join(","),
            v.vector.title
        );
    }
    Ok(exit_code::SUCCESS)
}
