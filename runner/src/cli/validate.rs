//! `ctk validate vector|declaration|report|baseline|ahp-registration|ahp-message FILE...`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::catalog::Catalogs;
use crate::cli::args::ValidateKind;
use crate::cli::{error_chain, terminal, verify, CliError};
use crate::errors::UsageError;
use crate::errors::{Location, ReportError};
use crate::exit_code;
use ctk_agent_hooks_suite::declaration;
use ctk_agent_hooks_suite::vector::load;

/// The report schema, compiled into the binary.
pub const REPORT_SCHEMA: &str = include_str!("../../../schemas/report.schema.json");

/// Check a report value against `schemas/report.schema.json`; `Err` names
/// the file and the pointer.
pub fn check_report(file: &Path, value: &Value) -> Result<(), ReportError> {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(REPORT_SCHEMA).expect("the report schema is JSON");
        jsonschema::validator_for(&schema).expect("the report schema compiles")
    });
    match validator.iter_errors(value).next() {
        None => Ok(()),
        Some(e) => Err(ReportError::Malformed {
            location: Location {
                file: file.to_path_buf(),
                pointer: e.instance_path().as_str().to_owned(),
            },
            detail: e.to_string(),
        }),
    }
}

/// Validate files; prints one line per problem and returns the exit code.
/// `clauses` replace the embedded clause catalogs (vectors only).
pub fn command(kind: ValidateKind, paths: &[PathBuf], clauses: &[PathBuf]) -> Result<u8, CliError> {
    let files = match kind {
        // A folder of AHP messages also holds `.jsonl` transcripts.
        ValidateKind::AhpMessage => expand_ahp_messages(paths)?,
        _ => expand(paths)?,
    };
    let files = files.as_slice();
    let mut problems: Vec<String> = Vec::new();
    match kind {
        ValidateKind::Vector => {
            let catalogs = Catalogs::load(clauses)?;
            let mut loaded = Vec::new();
            for f in files {
                match load::load_file(f) {
                    Ok(v) => loaded.push(v),
                    Err(e) => problems.push(error_chain(&e)),
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
                    .map(|e| error_chain(&e)),
            );
        }
        ValidateKind::Baseline => problems.extend(
            files
                .iter()
                .filter_map(|f| crate::report::baseline::load(f).err())
                .map(|e| error_chain(&e)),
        ),
        ValidateKind::Report => problems.extend(
            files
                .iter()
                .filter_map(|f| verify::read(f).err())
                .map(|e| error_chain(&e)),
        ),
        ValidateKind::AhpRegistration => {
            for f in files {
                problems.extend(ahp_registration_problems(f)?);
            }
        }
        ValidateKind::AhpMessage => {
            for f in files {
                problems.extend(ahp_message_problems(f)?);
            }
        }
    }
    if problems.is_empty() {
        let what = match kind {
            ValidateKind::Vector => "schema and lint",
            ValidateKind::Declaration => "declaration schema",
            ValidateKind::Baseline => "baseline schema, dates and one entry per vector",
            // `validate report` reads the file; only `ctk verify`
            // recomputes the digests, so say which check this was.
            ValidateKind::Report => {
                "report schema only; digests not recomputed (run `ctk verify REPORT` for those)"
            }
            ValidateKind::AhpRegistration => "AHP 0.1 registration schema and rules",
            ValidateKind::AhpMessage => "AHP 0.1 message schemas, framing and reply rules",
        };
        terminal::out(&format!("{} file(s) valid ({what})\n", files.len()));
        Ok(exit_code::SUCCESS)
    } else {
        for p in &problems {
            terminal::err(&format!("error: {p}"));
        }
        Ok(exit_code::USAGE)
    }
}

/// The files `paths` stand for: a file is itself, a folder its `*.json`
/// files (sorted), so `ctk validate vector vectors/0.1` works; a path that
/// does not exist is named as such, not as a raw OS error.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            out.extend(load::vector_files(p)?);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(UsageError(format!("{}: no such file or folder", p.display())).into());
        }
    }
    Ok(out)
}

/// Every problem of one AHP registration document, each as
/// `<file> at <pointer>: <what> (<rule>)`.
fn ahp_registration_problems(file: &Path) -> Result<Vec<String>, CliError> {
    use ctk_ahp_wire::registration::{self, RegistrationError};
    let shown = file.display().to_string();
    match registration::load_file(file) {
        Ok(_) => Ok(Vec::new()),
        Err(RegistrationError::Read { source, .. }) => {
            Err(UsageError(format!("{shown}: cannot read: {source}")).into())
        }
        Err(e) => Ok(e.findings().iter().map(|f| f.render(&shown)).collect()),
    }
}

/// Every problem of one AHP message file: a `.jsonl` file is a stdio
/// transcript (each problem names `<file>:<line>`), anything else one
/// message.
fn ahp_message_problems(file: &Path) -> Result<Vec<String>, CliError> {
    use ctk_ahp_wire::validate;
    let bytes = std::fs::read(file)
        .map_err(|e| UsageError(format!("{}: cannot read: {e}", file.display())))?;
    let shown = file.display().to_string();
    if file.extension().is_some_and(|x| x == "jsonl") {
        Ok(validate::check_transcript(&bytes)
            .iter()
            .map(|f| f.finding.render(&format!("{shown}:{}", f.line)))
            .collect())
    } else {
        Ok(validate::check_message_bytes(&bytes)
            .iter()
            .map(|f| f.render(&shown))
            .collect())
    }
}

/// Like [`expand`], but a folder stands for its `*.json` and `*.jsonl`
/// files (sorted).
fn expand_ahp_messages(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = std::fs::read_dir(p)
                .map_err(|e| UsageError(format!("{}: cannot read the folder: {e}", p.display())))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|f| f.extension().is_some_and(|x| x == "json" || x == "jsonl"))
                .collect();
            found.sort();
            out.extend(found);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(UsageError(format!("{}: no such file or folder", p.display())).into());
        }
    }
    Ok(out)
}
