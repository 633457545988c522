//! `ctk coverage [--spec 0.1|draft] [--vectors DIR] [--clauses FILE] [--repo DIR] [--format markdown|json]`.
//! For AHP (`--protocol ahp`) it also shows the harness-role failure matrix and fails on a hole.

use std::path::{Path, PathBuf};

use crate::catalog;
use crate::cli::args::{
    CoverageArgs, CoverageFormat, ProtocolArg, SelectArgs, SpecArg, SurfaceArg,
};
use crate::cli::{plan, terminal, CliError};
use crate::coverage::{self, CoverageVector, Finding, Inputs, MinimalSurface, MINIMAL_SURFACES};
use crate::errors::UsageError;
use crate::exit_code;
use crate::set;
use crate::suite::{AhpLine, Suite};
use ctk_agent_hooks_suite::vector::load;
use ctk_agent_hooks_suite::vector::model::SpecVersion;

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

/// Vector files as (name, text).
type Files = Vec<(String, String)>;

/// The vectors of the AHP suite, as coverage reads them, their source, and
/// the files they came from.
fn ahp_vectors(
    args: &CoverageArgs,
    suite: Suite,
) -> Result<(Vec<CoverageVector>, String, Files), CliError> {
    let (files, source): (Files, String) = match &args.vectors {
        None => (
            set::embedded_files(suite)
                .map(|(n, t)| (n.to_owned(), t.to_owned()))
                .collect(),
            format!("embedded:{}", suite.folder()),
        ),
        Some(dir) => {
            let mut files = Vec::new();
            for path in load::vector_files(dir)? {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
                files.push((path.display().to_string(), text));
            }
            (files, dir.display().to_string())
        }
    };
    let mut out = Vec::new();
    for (name, text) in &files {
        let meta = set::meta_of_json(name, text).map_err(UsageError)?;
        // The one member coverage reads beyond the core's metadata: a check
        // of the kit's host contract covers no clause by design.
        let checks_adapter = serde_json::from_str::<serde_json::Value>(text)
            .is_ok_and(|v| v.get("adapter_contract").is_some());
        out.push(CoverageVector {
            id: meta.id,
            file: name.clone(),
            covers: meta.covers,
            in_spec: true,
            upstream: false,
            advisory: false,
            checks_adapter,
            surfaces: Vec::new(),
        });
    }
    if out.is_empty() {
        return Err(crate::errors::LoadError::NoVectors {
            source_name: source,
        }
        .into());
    }
    Ok((out, source, files))
}

/// The failure matrix of an AHP line's harness-role vectors (issue 27):
/// its Markdown section, and each hole as a finding that fails the
/// command.
fn ahp_failure_matrix(
    files: &[(String, String)],
    line: AhpLine,
) -> Result<(String, Vec<Finding>), CliError> {
    use ctk_ahp_suite::harness::matrix::{
        failure_matrix, holes, observe_holes, observe_matrix, render_exemptions, render_markdown,
        render_observe_markdown, OBSERVE_CLASSES, OBSERVE_TIED_0_1, OBSERVE_TIED_DRAFT, TIED_0_1,
        TIED_DRAFT,
    };
    use ctk_ahp_suite::harness::vector::{is_harness_file, parse_harness};
    let mut vectors = Vec::new();
    for (name, text) in files {
        let path = Path::new(name);
        if is_harness_file(path) {
            vectors
                .push(parse_harness(path, text.as_bytes()).map_err(|e| UsageError(e.to_string()))?);
        }
    }
    let (tied, observe_tied) = match line {
        AhpLine::V0_1 => (TIED_0_1, OBSERVE_TIED_0_1),
        AhpLine::Draft => (TIED_DRAFT, OBSERVE_TIED_DRAFT),
    };
    let matrix = failure_matrix(&vectors);
    let observe = observe_matrix(&vectors);
    let section = format!(
        "\n## Failure matrix of the harness-role vectors\n\n\
         Each failure class a vector's backend produces, and the failure policies it runs under \
         over each transport and stdio lifecycle. A class runs under both policies everywhere it \
         can occur; the classes tied to fewer places, and why:\n\n{}\n{}\n\
         ### Observe\n\n\
         Each failure class an observer exhibits on a notification, and the outcomes of the tool \
         calls it runs beside. No failure policy applies to an observer: the interceptor's \
         decision must stand (13.2), so each class runs beside an interceptor that lets the tool \
         run (executed) and one that denies it (denied), everywhere it can occur; the classes \
         tied to fewer places, and why:\n\n{}\n{}",
        render_exemptions(tied),
        render_markdown(&matrix),
        render_exemptions(observe_tied),
        render_observe_markdown(&observe)
    );
    let findings = holes(&matrix, tied)
        .into_iter()
        .chain(
            // A set without harness-role vectors (a backend suite of its
            // own) has no matrix to complete.
            observe_holes(
                &observe,
                observe_tied,
                if vectors.is_empty() {
                    &[]
                } else {
                    OBSERVE_CLASSES
                },
            )
            .into_iter()
            .map(|hole| format!("observe: {hole}")),
        )
        .map(|hole| Finding {
            file: "the harness-role vectors".into(),
            pointer: String::new(),
            message: format!("failure matrix: {hole}"),
        })
        .collect();
    Ok((section, findings))
}

/// The minimal surfaces `--surface` asks for, each once, in table order;
/// only Agent Hooks 0.1 vectors say which surfaces they apply to.
fn surfaces(args: &CoverageArgs) -> Result<Vec<MinimalSurface>, UsageError> {
    if args.surfaces.is_empty() {
        return Ok(Vec::new());
    }
    if args.protocol != ProtocolArg::AgentHooks || args.spec != SpecArg::V0_1 {
        return Err(UsageError(
            "--surface checks the Agent Hooks 0.1 catalog only (--protocol agent-hooks --spec 0.1)"
                .into(),
        ));
    }
    let wanted = |name: &str| {
        args.surfaces.iter().any(|s| {
            *s == SurfaceArg::All
                || match s {
                    SurfaceArg::Floor => name == "floor",
                    SurfaceArg::ToolRouter => name == "tool-router",
                    SurfaceArg::Model => name == "model",
                    SurfaceArg::All => true,
                }
        })
    };
    Ok(MINIMAL_SURFACES
        .iter()
        .filter(|m| wanted(m.name))
        .copied()
        .collect())
}

/// Print the matrix; exit 1 when any finding is an error.
pub fn command(args: &CoverageArgs) -> Result<u8, CliError> {
    let minimal = surfaces(args)?;
    let spec = plan::spec(args.spec);
    let suite = match args.protocol {
        ProtocolArg::AgentHooks => Suite::AgentHooks(spec),
        ProtocolArg::Ahp => Suite::Ahp(args.spec.ahp_line()),
    };
    let (catalog, catalog_source) = match &args.clauses {
        Some(path) => (catalog::load_file(path)?, path.display().to_string()),
        None => (
            catalog::embedded_for(suite)?,
            format!("embedded:spec/{}/clauses.json", suite.folder()),
        ),
    };
    if Suite::parse(&catalog.spec) != Some(suite) {
        return Err(UsageError(format!(
            "the clause catalog {catalog_source} is for {}, not {}",
            catalog.spec,
            suite.wire()
        ))
        .into());
    }
    // For AHP, the harness-role failure matrix section and its holes.
    let mut matrix = None;
    let (vectors, source) = match suite {
        Suite::AgentHooks(spec) => {
            let select = SelectArgs {
                spec: args.spec,
                vectors: args.vectors.clone(),
                part: Vec::new(),
                id: Vec::new(),
            };
            let source = plan::source(&select);
            let vectors: Vec<CoverageVector> = load::load(&source)?
                .iter()
                .map(|v| CoverageVector::agent_hooks(v, spec))
                .collect();
            (vectors, source.to_string())
        }
        Suite::Ahp(line) => {
            let (vectors, source, files) = ahp_vectors(args, suite)?;
            matrix = Some(ahp_failure_matrix(&files, line)?);
            (vectors, source)
        }
    };
    // Every 0.1 clause the draft does not change holds under the draft.
    let inherited = match suite {
        Suite::AgentHooks(SpecVersion::Draft) => catalog::embedded(SpecVersion::V0_1).ok(),
        Suite::Ahp(AhpLine::Draft) => catalog::embedded_for(Suite::Ahp(AhpLine::V0_1)).ok(),
        _ => None,
    };
    let repo = repo(args.repo.as_deref())?;
    let mut result = coverage::compute(Inputs {
        spec: suite,
        catalog: &catalog,
        inherited: inherited.as_ref(),
        catalog_source: &catalog_source,
        vectors: &vectors,
        vector_source: &source,
        repo: repo.as_deref(),
        surfaces: &minimal,
    });
    let matrix = match matrix {
        Some((section, holes)) => {
            result.errors.extend(holes);
            section
        }
        None => String::new(),
    };
    match args.format {
        CoverageFormat::Markdown => {
            terminal::out(&format!("{}{matrix}", coverage::render_markdown(&result)))
        }
        CoverageFormat::Json => terminal::out(&coverage::render_json(&result)),
    }
    for w in &result.warnings {
        terminal::err(&format!("warning: {w}"));
    }
    for e in &result.errors {
        terminal::err(&format!("error: {e}"));
    }
    if result.passed() {
        Ok(exit_code::SUCCESS)
    } else {
        terminal::err(&format!("coverage: {} error(s)", result.errors.len()));
        Ok(exit_code::FAILURES)
    }
}
