//! `ctk mutation RESULTS.json --html [--survivors FILE] [-o FILE]`: the
//! mutation report of the reference host (reports/mutation/render.py
//! `--results`) as one self-contained HTML page.

use std::collections::BTreeMap;
use std::path::Path;

use crate::cli::report::emit;
use crate::cli::CliError;
use crate::exit_code;
use crate::report::mutation;

/// Render the page of the results at `results`, marking the missed mutants
/// `survivors` lists as known survivors. A file that is not a results file
/// (or a survivors file not in equivalents.txt's format) is an input error.
pub fn command(
    results: &Path,
    survivors: Option<&Path>,
    output: Option<&Path>,
) -> Result<u8, CliError> {
    let parsed = mutation::read_results(results)?;
    let survivors = match survivors {
        Some(path) => mutation::read_survivors(path)?,
        None => BTreeMap::new(),
    };
    emit(output, &mutation::render(&parsed, &survivors))?;
    Ok(exit_code::SUCCESS)
}
