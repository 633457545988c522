//! `ctk matrix`: the interoperability matrix from reports and a triage file.

use std::path::{Path, PathBuf};

use crate::cli::terminal;
use crate::cli::verify::read;
use crate::cli::CliError;
use crate::errors::UsageError;
use crate::exit_code;
use crate::report::matrix::{self, Triage};
use crate::report::{html, verify};

/// Read and check the triage file.
fn triage(path: &Path) -> Result<Triage, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("--triage {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        UsageError(format!(
            "--triage {}: not a triage file: {e}",
            path.display()
        ))
        .into()
    })
}

/// Render the matrix; with `check`, compare it with that file instead of
/// printing it (CI's "the published matrix matches a fresh run"); with
/// `html`, also write it there as a page (not when the matrix is refused).
pub fn command(
    reports: &[PathBuf],
    triage_path: &Path,
    check: Option<&Path>,
    html: Option<&Path>,
) -> Result<u8, CliError> {
    let triage = triage(triage_path)?;
    let mut loaded = Vec::new();
    let mut problems = Vec::new();
    for path in reports {
        let (text, value, report) = read(path)?;
        for p in verify::verify_parsed(&text, &value, &report, None) {
            problems.push(format!("{}: does not verify: {p}", path.display()));
        }
        loaded.push(report);
    }
    problems.extend(
        matrix::check(&loaded, &triage)
            .into_iter()
            .map(|p| format!("{}: {p}", triage_path.display())),
    );
    if !problems.is_empty() {
        for p in &problems {
            terminal::err(&format!("error: {p}"));
        }
        return Ok(exit_code::FAILURES);
    }
    if let Some(path) = html {
        std::fs::write(path, html::render_matrix(&loaded, &triage))
            .map_err(|e| UsageError(format!("--html {}: {e}", path.display())))?;
    }
    let text = matrix::render(&loaded, &triage);
    match check {
        None => {
            terminal::out(&text);
            Ok(exit_code::SUCCESS)
        }
        Some(file) => {
            let published = std::fs::read_to_string(file)
                .map_err(|e| UsageError(format!("--check {}: {e}", file.display())))?;
            if published == text {
                terminal::out(&format!("{}: matches the reports\n", file.display()));
                Ok(exit_code::SUCCESS)
            } else {
                let diff = similar::TextDiff::from_lines(&published, &text);
                terminal::err(&format!(
                    "error: {} differs from the matrix of these reports (regenerate it with ctk matrix):\n{}",
                    file.display(),
                    diff.unified_diff().header("published", "fresh")
                ));
                Ok(exit_code::FAILURES)
            }
        }
    }
}
