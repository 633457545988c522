//! `ctk validate vector|declaration|report FILE...`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::catalog::Catalogs;
use crate::cli::args::ValidateKind;
use crate::cli::CliError;
use crate::declaration;
use crate::exit_code;
use crate::vector::load;

/// The report schema, compiled into the binary.
pub const REPORT_SCHEMA: &str = include_str!("../../../schemas/report.schema.json");

/// Check a report value against `schemas/report.schema.json`; `Err` names
/// the pointer.
pub fn check_report(file: &Path, value: &Value) -> Result<(), String> {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(REPORT_SCHEMA).expect("the report schema is JSON");
        jsonschema::validator_for(&schema).expect("the report schema compiles")
    });
    match validator.iter_errors(value).next() {
        None => Ok(()),
        Some(e) => Err(format!(
            "{} at {}: {e}",
            file.display(),
            e.instance_path().as_str()
        )),
    }
}

fn report_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("failed to read {}: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} at /: not JSON: {e}", path.display()))?;
    check_report(path, &value)
}

/// Validate files; prints one line per problem and returns the exit code.
/// `clauses` replace the embedded clause catalogs (vectors only).
pub fn command(kind: ValidateKind, files: &[PathBuf], clauses: &[PathBuf]) -> Result<u8, CliError> {
    let mut problems: Vec<String> = Vec::new();
    match kind {
        ValidateKind::Vector => {
            let catalogs = Catalogs::load(clauses)?;
            let mut loaded = Vec::new();
            for f in files {
                match load::load_file(f) {
                    Ok(v) => loaded.push(v),
                    Err(e) => problems.push(e.to_string()),
                }
            }
            problems.extend(
                load::lint(&loaded, &catalogs)
                    .iter()
                    .map(ToString::to_string),
            );
        }
        ValidateKind::Declaration => {
            problems.extend(
                files
                    .iter()
                    .filter_map(|f| declaration::load_file(f).err())
                    .map(|e| e.to_string()),
            );
        }
        ValidateKind::Report => problems.extend(files.iter().filter_map(|f| report_file(f).err())),
    }
    if problems.is_empty() {
        println!("{} file(s) valid", files.len());
        Ok(exit_code::SUCCESS)
    } else {
        for p in &problems {
            eprintln!("error: {p}");
        }
        Ok(exit_code::USAGE)
    }
}
