//! `ctk coverage [--spec 0.1|draft] [--vectors DIR] [--clauses FILE] [--repo DIR] [--format markdown|json]`.

use std::path::{Path, PathBuf};

use crate::catalog;
use crate::cli::args::{CoverageArgs, CoverageFormat, SelectArgs};
use crate::cli::{plan, CliError};
use crate::coverage::{self, Inputs};
use crate::errors::UsageError;
use crate::exit_code;
use crate::vector::load;
use crate::vector::model::SpecVersion;

/// The checkout unit tests are looked up in: `--repo`, else the current
/// directory when it holds `Cargo.toml` and `runner/`.
pub fn repo(arg: Option<&Path>) -> Result<Option<PathBuf>, UsageError> {
    match arg {
        Some(dir) if dir.is_dir() => Ok(Some(dir.to_path_buf())),
        Some(dir) => Err(UsageError(format!(
            "--repo {}: not a directory",
            dir.display()
        ))),
        None => {
            let here = Path::new(".");
            Ok(
                (here.join("Cargo.toml").is_file() && here.join("runner").is_dir())
                    .then(|| here.to_path_buf()),
            )
        }
    }
}

/// Print the matrix; exit 1 when any finding is an error.
pub fn command(args: &CoverageArgs) -> Result<u8, CliError> {
    let spec = plan::spec(args.spec);
    let (catalog, catalog_source) = match &args.clauses {
        Some(path) => (catalog::load_file(path)?, path.display().to_string()),
        None => (
            catalog::embedded(spec)?,
            format!("embedded:spec/{}/clauses.json", spec.as_str()),
        ),
    };
    if catalog.spec_version() != Some(spec) {
        return Err(UsageError(format!(
            "the clause catalog {catalog_source} is for {}, not {}",
            catalog.spec,
            spec.wire()
        ))
        .into());
    }
    let select = SelectArgs {
        spec: args.spec,
        vectors: args.vectors.clone(),
        part: Vec::new(),
        id: Vec::new(),
    };
    let source = plan::source(&select);
    let vectors = load::load(&source)?;
    // Every 0.1 clause the draft does not change holds under the draft.
    let inherited = match spec {
        SpecVersion::Draft => catalog::embedded(SpecVersion::V0_1).ok(),
        SpecVersion::V0_1 => None,
    };
    let repo = repo(args.repo.as_deref())?;
    let result = coverage::compute(Inputs {
        spec,
        catalog: &catalog,
        inherited: inherited.as_ref(),
        catalog_source: &catalog_source,
        vectors: &vectors,
        vector_source: &source.to_string(),
        repo: repo.as_deref(),
    });
    match args.format {
        CoverageFormat::Markdown => print!("{}", coverage::render_markdown(&result)),
        CoverageFormat::Json => print!("{}", coverage::render_json(&result)),
    }
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    for e in &result.errors {
        eprintln!("error: {e}");
    }
    if result.passed() {
        Ok(exit_code::SUCCESS)
    } else {
        eprintln!("coverage: {} error(s)", result.errors.len());
        Ok(exit_code::FAILURES)
    }
}
