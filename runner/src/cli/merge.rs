//! `ctk merge REPORT... [--report-dir DIR]`: the shards of a
//! `ctk run --partition` run back into one report ([`crate::report::merge`]).

use std::path::{Path, PathBuf};

use crate::cli::run::{exit_code_for, write_reports};
use crate::cli::verify::read;
use crate::cli::{terminal, CliError};
use crate::report::merge::{self, MergeError};
use crate::report::{json, verify};

/// Read and verify every shard report, merge them, and print the merged
/// report.json (or write the reports into `report_dir`). The exit code is
/// the one `ctk run` would have given the whole run.
pub fn command(paths: &[PathBuf], report_dir: Option<&Path>) -> Result<u8, CliError> {
    let mut reports = Vec::new();
    for path in paths {
        let (text, value, report) = read(path)?;
        let problems = verify::verify_parsed(&text, &value, &report, None);
        if !problems.is_empty() {
            return Err(MergeError::DoesNotVerify {
                path: path.clone(),
                problems: problems.join("; "),
            }
            .into());
        }
        reports.push((path.clone(), report));
    }
    let merged = merge::merge(&reports)?;
    match report_dir {
        Some(dir) => {
            write_reports(dir, &merged)?;
            let whole = match &merged.partition {
                None => "every shard".to_owned(),
                Some(p) => format!(
                    "shard(s) {} of {} only (unclaimable)",
                    p.shards
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    p.of
                ),
            };
            terminal::out(&format!(
                "merged {} report(s), {whole}: {} vectors; reports written to {}; results digest {}\n",
                reports.len(),
                merged.vectors.len(),
                dir.display(),
                merged.results_digest
            ));
        }
        None => terminal::out(&json::render(&merged)),
    }
    Ok(exit_code_for(&merged))
}
