//! Arguments → what to load and run; every usage check lives here.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::args::{SelectArgs, SpecArg};
use crate::cli::host::HostChoice;
use crate::cli::CliError;
use crate::errors::{LoadError, UsageError};
use ctk_agent_hooks_suite::declaration;
use ctk_agent_hooks_suite::vector::load::{self, LoadedVector, VectorSource};
use ctk_agent_hooks_suite::vector::model::SpecVersion;
use ctk_agent_hooks_suite::vector::plan::{self, PlannedVector};

/// The spec a command line selects.
pub fn spec(arg: SpecArg) -> SpecVersion {
    match arg {
        SpecArg::V0_1 => SpecVersion::V0_1,
        SpecArg::Draft => SpecVersion::Draft,
    }
}

/// Where the selected vectors come from.
pub fn source(select: &SelectArgs) -> VectorSource {
    match &select.vectors {
        Some(dir) => VectorSource::Dir(dir.clone()),
        None => VectorSource::Embedded(spec(select.spec)),
    }
}

fn check_folder(select: &SelectArgs) -> Result<(), CliError> {
    if let Some(dir) = &select.vectors {
        if dir.is_file() {
            return Err(UsageError(format!(
                "--vectors takes a folder of vector files, and {} is a file (to run one vector, pass its folder and --id ID)",
                dir.display()
            ))
            .into());
        }
        if !dir.exists() {
            return Err(UsageError(format!("--vectors {}: no such folder", dir.display())).into());
        }
    }
    Ok(())
}

fn wanted(select: &SelectArgs, part: &str, id: &str) -> bool {
    (select.part.is_empty() || select.part.iter().any(|p| p == part))
        && (select.id.is_empty() || select.id.iter().any(|i| i == id))
}

/// Check the selected source and apply `--part`/`--id`, keeping each vector
/// as a [`PlannedVector`] (its meta, not its parsed form: a run's memory
/// stays flat in its number of vectors). A source that holds no vector is
/// an input error; filters that match nothing leave an empty list, which
/// `ctk run` hands to its `--no-tests` rule.
pub fn selected(select: &SelectArgs) -> Result<Vec<PlannedVector>, CliError> {
    check_folder(select)?;
    let mut all = plan::plan(&source(select))?;
    all.retain(|v| wanted(select, v.part(), v.id()));
    Ok(all)
}

/// Load, parse and filter the selected vectors, for commands that read
/// every vector whole (`ctk list`); an empty selection is an error.
pub fn vectors(select: &SelectArgs) -> Result<Vec<LoadedVector>, CliError> {
    check_folder(select)?;
    let source = source(select);
    let mut all = load::load(&source)?;
    all.retain(|v| wanted(select, v.vector.part(), &v.vector.id));
    if all.is_empty() {
        return Err(LoadError::NoVectors {
            source_name: format!("{source} after --part/--id filters"),
        }
        .into());
    }
    Ok(all)
}

/// The host a command line selects.
pub fn host(command: &[String], isolate: bool) -> Result<HostChoice, UsageError> {
    if command.is_empty() {
        if isolate {
            return Err(UsageError("--isolate needs a host command after --".into()));
        }
        return Ok(HostChoice::Reference);
    }
    Ok(HostChoice::Stdio {
        command: command.to_vec(),
        isolate,
    })
}

/// Read `--declaration`, if given.
pub fn declaration(
    path: Option<&Path>,
) -> Result<Option<(PathBuf, Value)>, crate::errors::DeclarationError> {
    path.map(|p| declaration::load_file(p).map(|doc| (p.to_path_buf(), doc)))
        .transpose()
}

/// Check `--vector-timeout-ms`: a zero limit would fail every vector
/// before it starts.
pub fn vector_timeout(ms: u64) -> Result<std::time::Duration, UsageError> {
    if ms == 0 {
        return Err(UsageError("--vector-timeout-ms must be at least 1".into()));
    }
    Ok(std::time::Duration::from_millis(ms))
}

/// Check `--jobs`; without it, the available parallelism (1 when the
/// machine will not say). Vectors that wait out a timeout then overlap
/// instead of adding up.
pub fn jobs(jobs: Option<usize>) -> Result<usize, UsageError> {
    match jobs {
        Some(0) => Err(UsageError("--jobs must be at least 1".into())),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_default_to_the_available_parallelism_and_zero_is_refused() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        assert_eq!(jobs(None).ok(), Some(cores));
        assert_eq!(jobs(Some(3)).ok(), Some(3));
        assert_eq!(
            jobs(Some(0)).map_err(|e| e.to_string()),
            Err("--jobs must be at least 1".to_owned())
        );
    }
}
