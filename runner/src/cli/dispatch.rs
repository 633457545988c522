//! [`CliError`] and [`main`]: dispatch a parsed command line, map errors to exit codes.

use crate::cli::{args, claim, coverage, list, matrix, run, validate, verify};
use crate::errors::{CatalogError, DeclarationError, LoadError, ReportError, UsageError};
use crate::exit_code;

/// A command failed before or outside the conformance verdict.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// Bad flags.
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// Bad vectors.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// Bad declaration.
    #[error(transparent)]
    Declaration(#[from] DeclarationError),
    /// Bad clause catalog.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// Bad report.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// Bad `--baseline` file, or `ctk baseline update` lacks what it needs.
    #[error(transparent)]
    Baseline(#[from] crate::report::baseline::BaselineError),
    /// Shard reports that cannot be merged.
    #[error(transparent)]
    Merge(#[from] crate::report::merge::MergeError),
    /// A mutation results or survivors file that cannot be rendered.
    #[error(transparent)]
    Mutation(#[from] crate::report::mutation::MutationError),
    /// The host could not be started or queried.
    #[error("host error: {0}")]
    Harness(String),
}

impl CliError {
    /// The exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Harness(_) => exit_code::HARNESS,
            _ => exit_code::USAGE,
        }
    }
}

/// Run a parsed command line; returns the exit code.
pub fn main(cli: args::Cli) -> u8 {
    let result = match cli.command {
        args::Command::Run(a) => run::command(a),
        args::Command::List(a) => list::command(&a),
        args::Command::Validate {
            kind,
            files,
            clauses,
        } => validate::command(kind, &files, &clauses),
        args::Command::Coverage(a) => coverage::command(&a),
        args::Command::Claim { report } => claim::command(&report),
        args::Command::AhpHarness { spec } => Ok(crate::cli::run_ahp::harness_command(spec)),
        args::Command::AhpBackend {
            binding: args::AhpBackendBinding::Stdio { per_event, spec },
        } => Ok(crate::cli::run_ahp::backend_command(per_event, spec)),
        args::Command::AhpBackend {
            binding: args::AhpBackendBinding::Script { script, log, .. },
        } => Ok(crate::cli::run_ahp::scripted_command(&script, &log)),
        args::Command::Matrix {
            reports,
            triage,
            check,
            html,
        } => matrix::command(&reports, &triage, check.as_deref(), html.as_deref()),
        args::Command::Report { report, output, .. } => {
            crate::cli::report::command(&report, output.as_deref())
        }
        args::Command::Mutation {
            results,
            survivors,
            output,
            ..
        } => crate::cli::mutation::command(&results, survivors.as_deref(), output.as_deref()),
        args::Command::Badge { report, output } => {
            crate::cli::badge::command(&report, output.as_deref())
        }
        args::Command::Repro(a) => crate::cli::repro::command(&a),
        args::Command::Merge {
            reports,
            report_dir,
        } => crate::cli::merge::command(&reports, report_dir.as_deref()),
        args::Command::Baseline {
            command:
                args::BaselineCommand::Update {
                    report,
                    owner,
                    expires,
                    output,
                },
        } => crate::cli::baseline::update(
            &report,
            owner.as_deref(),
            expires.as_deref(),
            output.as_deref(),
        ),
        args::Command::Verify { report, vectors } => verify::command(&report, vectors.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            crate::cli::terminal::err(&format!("error: {}", error_chain(&e)));
            e.exit_code()
        }
    }
}

/// An error's text followed by the text of each of its causes.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        msg.push_str(&format!(": {s}"));
        source = s.source();
    }
    msg
}
