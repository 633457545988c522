//! `ctk run`.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctk_harness_protocol::Harness;
use serde_json::Value;

use crate::cli::args::{Format, RunArgs};
use crate::cli::{host, plan, CliError};
use crate::declaration::{self, Surface};
use crate::engine::{self, EngineOptions};
use crate::errors::{ReportError, UsageError};
use crate::event::Event;
use crate::exit_code;
use crate::outcome::VectorOutcome;
use crate::report::build::{self, RunContext};
use crate::report::model::{HostIdentity, Report};
use crate::report::{human, json, junit, markdown};
use crate::vector::load::LoadedVector;
use crate::vector::model::SpecVersion;

/// Everything a run needs besides the host.
#[derive(Debug, Clone)]
pub struct Job {
    /// The spec.
    pub spec: SpecVersion,
    /// The vectors.
    pub vectors: Arc<Vec<LoadedVector>>,
    /// Display name of the vector source.
    pub vector_source: String,
    /// Whether `--part`/`--id` narrowed the set.
    pub filtered: bool,
    /// `--declaration`, already loaded.
    pub declaration: Option<(PathBuf, Value)>,
    /// Parallel harness instances.
    pub jobs: usize,
    /// Per-phase vector timeout.
    pub vector_timeout: Duration,
    /// Raised by the Ctrl-C handler; see [`EngineOptions::interrupted`].
    pub interrupted: Arc<std::sync::atomic::AtomicBool>,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The report.
    pub report: Report,
}

/// Query the host, derive the surface, run every vector, build the report.
pub async fn drive<H, F>(
    factory: F,
    job: Job,
    on_event: impl FnMut(&Event) + Send,
) -> Result<RunResult, CliError>
where
    H: Harness + 'static,
    F: Fn() -> H + Send + Sync + 'static,
{
    let started = Instant::now();
    let info = factory()
        .info()
        .await
        .map_err(|e| CliError::Harness(e.to_string()))?;
    let (source, document) = match (&job.declaration, &info.declaration) {
        (Some((path, doc)), host_doc) => {
            // Refused before any vector runs: the document may not ask for
            // more than the host's own surface offers.
            if let Some(host_doc) = host_doc {
                declaration::check_supported(path, doc, host_doc)?;
            }
            (path.display().to_string(), doc.clone())
        }
        (None, Some(doc)) => {
            // The host's own document is the host's output, not the user's
            // input: a broken one is a host error (exit 3), not exit 2.
            declaration::check(Path::new("host declaration (from the host)"), doc)
                .map_err(|e| CliError::Harness(crate::cli::dispatch::error_chain(&e)))?;
            ("host".to_owned(), doc.clone())
        }
        (None, None) => {
            return Err(UsageError(
                "the host states no declaration of its own; pass --declaration FILE".into(),
            )
            .into())
        }
    };
    if !info.spec_versions.iter().any(|s| s == job.spec.wire()) {
        return Err(UsageError(format!(
            "the host emits {:?}, not {}; choose another --spec",
            info.spec_versions,
            job.spec.wire()
        ))
        .into());
    }
    let surface: Surface = declaration::surface(&document);
    let options = EngineOptions {
        spec: job.spec,
        surface: surface.clone(),
        vector_timeout: job.vector_timeout,
        jobs: job.jobs,
        interrupted: job.interrupted.clone(),
    };
    let outcomes: Vec<VectorOutcome> =
        engine::run_all(factory, job.vectors.clone(), options, on_event).await;
    let ctx = RunContext {
        spec: job.spec.wire().to_owned(),
        host: HostIdentity {
            name: info.name.clone(),
            version: info.version.clone(),
            spec_versions: info.spec_versions.clone(),
        },
        declaration_source: source,
        declaration: document,
        surface: serde_json::to_value(&surface).unwrap_or(Value::Null),
        vector_source: job.vector_source,
        filtered: job.filtered,
        total_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    Ok(RunResult {
        report: build::build(ctx, &job.vectors, &outcomes),
    })
}

/// The exit code a report earns.
pub fn exit_code_for(report: &Report) -> u8 {
    if report.totals.error > 0 {
        exit_code::HARNESS
    } else if report.totals.fail > 0 {
        exit_code::FAILURES
    } else {
        exit_code::SUCCESS
    }
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), ReportError> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|source| ReportError::Io { path, source })
}

/// Write report.json (`json_text`, the report's [`json::render`]), report.md and
/// junit.xml into `dir`. Each file is written even when another fails, so
/// one bad path never costs the others; the first failure is returned.
pub fn write_reports(dir: &Path, report: &Report, json_text: &str) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    [
        write(dir, "report.json", json_text),
        write(dir, "report.md", &markdown::render(report)),
        junit::render(report).and_then(|xml| write(dir, "junit.xml", &xml)),
    ]
    .into_iter()
    .collect()
}

/// `ctk run`.
pub fn command(args: RunArgs) -> Result<u8, CliError> {
    let jobs = plan::jobs(args.jobs)?;
    let choice = plan::host(&args.host, args.isolate)?;
    let declaration = plan::declaration(args.declaration.as_deref())?;
    if let Some((path, doc)) = &declaration {
        declaration::check_for_run(path, doc, plan::spec(args.select.spec))?;
    }
    let vectors = plan::vectors(&args.select)?;
    let job = Job {
        spec: plan::spec(args.select.spec),
        vector_source: plan::source(&args.select).to_string(),
        vectors: Arc::new(vectors),
        filtered: !args.select.part.is_empty() || !args.select.id.is_empty(),
        declaration,
        jobs,
        vector_timeout: Duration::from_millis(args.vector_timeout_ms),
        interrupted: Arc::default(),
    };
    let human_out = args.format == Format::Human;
    let bar = if human_out && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(job.vectors.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        Some(bar)
    } else {
        None
    };
    let on_event = |event: &Event| {
        if let Event::VectorFinished { outcome, .. } = event {
            if !human_out {
                return;
            }
            let line = human::vector_line(outcome);
            match &bar {
                Some(bar) => {
                    bar.println(line);
                    bar.inc(1);
                }
                None => println!("{line}"),
            }
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(jobs.clamp(2, 16))
        .enable_all()
        .build()
        .map_err(|e| CliError::Harness(format!("cannot start the async runtime: {e}")))?;
    // The first Ctrl-C stops the run: host processes are killed (their
    // vectors end as errors), nothing new starts, and the report of what was
    // gathered is still printed and written. A second Ctrl-C leaves at once.
    let interrupted = job.interrupted.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            interrupted.store(true, std::sync::atomic::Ordering::SeqCst);
            ctk_harness_protocol::kill_all_hosts();
            eprintln!("interrupted: finishing the report of what ran (Ctrl-C again to leave now)");
            if tokio::signal::ctrl_c().await.is_ok() {
                ctk_harness_protocol::kill_all_hosts();
                std::process::exit(i32::from(exit_code::HARNESS));
            }
        }
    });
    let result = runtime.block_on(host::run(&choice, job, on_event));
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let report = result?.report;
    // Print before writing, so a report directory that cannot be written
    // never loses the results already gathered.
    let json_text = json::render(&report);
    match args.format {
        Format::Human => print!("{}", human::summary(&report)),
        Format::Json => print!("{json_text}"),
    }
    if let Some(dir) = &args.report_dir {
        write_reports(dir, &report, &json_text)?;
    }
    Ok(exit_code_for(&report))
}
