//! `ctk run --protocol ahp`: the AHP suite, on the core's frame.
//!
//! The AHP suite (crate `ctk-ahp-suite`) owns its vector model, its driver
//! and its assertions; this file only turns the command line into a target,
//! feeds the core's terminal and `events.jsonl` as vectors finish, and
//! builds the core's report. Backend role: the kit plays the harness
//! against a stdio command (persistent or per_event) or an HTTP URL; with
//! neither, against the bundled reference backend (`ctk ahp-backend
//! stdio`). Harness role: the kit plays the backends and drives an adapter
//! command (`ctk-ahp-adapter/1`); with none, the bundled reference harness.
//! `--spec draft` selects the draft line's vectors of either role
//! (`AHP-DB-*`, `AHP-DH-*`), whose reports are never claimable.

use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctk_ahp_suite::harness::{AdapterCommand, HarnessConfig, HarnessVector, ScriptedCommand};
use ctk_ahp_suite::{Lifecycle, Outcome, StdioCommand, SuiteConfig, Target, Verdict};
use serde_json::json;

use crate::cli::args::{Format, LifecycleArg, ListArgs, RoleArg, RunArgs, SelectArgs, SpecArg};
use crate::cli::run::{finish, no_tests, EventLog, RunExtras};
use crate::cli::terminal::{self, Display, Terminal};
use crate::cli::{plan, CliError};
use crate::errors::{ReportError, UsageError};
use crate::event::Event;
use crate::exit_code;
use crate::outcome::{Status, VectorOutcome};
use crate::report::build::{self, RunContext};
use crate::report::human::Style;
use crate::report::model::HostIdentity;
use crate::set::{self, VectorMeta};
use crate::suite::{AhpLine, Suite};
use ctk_core::vector_loop::{self, LoopOptions, LoopVector, Started, VectorRunner};

/// The suite's model of one vector, by the role it tests.
enum Model {
    /// A backend-role vector: the kit plays the harness.
    Backend(Box<ctk_ahp_suite::Vector>),
    /// A harness-role vector: the kit plays the backends.
    Harness(Box<HarnessVector>),
}

impl Model {
    fn profiles(&self) -> &[String] {
        match self {
            Model::Backend(v) => &v.profiles,
            Model::Harness(v) => &v.profiles,
        }
    }
}

/// One AHP vector as the run holds it: the suite's model and the core's view.
struct Loaded {
    model: Model,
    meta: VectorMeta,
    /// Whether it runs with no other vector beside it ([`needs_alone`]).
    alone: bool,
}

impl ctk_core::set::VectorView for Loaded {
    fn view(&self) -> Option<std::borrow::Cow<'_, VectorMeta>> {
        Some(std::borrow::Cow::Borrowed(&self.meta))
    }
}

impl LoopVector for Loaded {
    fn id(&self) -> &str {
        &self.meta.id
    }
    fn is_advisory(&self) -> bool {
        self.meta.advisory.is_some()
    }
    fn alone(&self) -> bool {
        self.alone
    }
}

/// Whether a vector needs the subject alone under `--jobs`, as the suite
/// says: a backend every vector shares, or a harness vector with a short
/// registered deadline.
fn needs_alone(model: &Model, runner: &Runner) -> bool {
    match (model, runner) {
        (Model::Backend(_), Runner::Backend(target)) => target.shared_by_every_vector(),
        (Model::Backend(_), Runner::Harness(_)) => false,
        (Model::Harness(v), _) => v.has_short_deadline(),
    }
}

fn parse(file_name: &str, text: &str, role: RoleArg, line: AhpLine) -> Result<Loaded, String> {
    let (model, problems) = match role {
        RoleArg::Backend => {
            let v: ctk_ahp_suite::Vector = serde_json::from_str(text)
                .map_err(|e| format!("{file_name}: not an AHP backend vector: {e}"))?;
            let problems = v.lint();
            (Model::Backend(Box::new(v)), problems)
        }
        RoleArg::Harness => {
            // The suite's loader: strict JSON, the shape with the JSON
            // pointer of a member that does not fit, then the lint.
            let v = ctk_ahp_suite::harness::vector::parse_harness(
                std::path::Path::new(file_name),
                text.as_bytes(),
            )
            .map_err(|e| e.to_string())?;
            // A draft vector in a 0.1 run (or the reverse, from --vectors)
            // would put one line's checks under the other's name.
            let problems = if v.is_draft() == (line == AhpLine::Draft) {
                Vec::new()
            } else {
                vec![format!(
                    "a {} vector, but the run is for the {} line (--spec)",
                    v.wire(),
                    line.wire_version()
                )]
            };
            (Model::Harness(Box::new(v)), problems)
        }
    };
    if !problems.is_empty() {
        return Err(format!("{file_name}: {}", problems.join("; ")));
    }
    Ok(Loaded {
        meta: set::meta_of_json(file_name, text)?,
        model,
        alone: false,
    })
}

fn role_name(role: RoleArg) -> &'static str {
    match role {
        RoleArg::Backend => "backend",
        RoleArg::Harness => "harness",
    }
}

/// What the vectors run against, by role.
enum Runner {
    /// A backend under test.
    Backend(Target),
    /// A harness under test, through its adapter.
    Harness(AdapterCommand),
}

/// What every worker of a run shares: the subject and the suite's settings.
struct Subject {
    runner: Runner,
    config: SuiteConfig,
    harness_config: HarnessConfig,
}

/// Runs AHP vectors for the core's loop. Nothing of a run lives in it: each
/// vector starts its own processes, so a fresh one is as good as any.
struct SubjectRunner(Arc<Subject>);

impl VectorRunner for SubjectRunner {
    type Vector = Loaded;

    async fn run(
        self,
        vectors: Arc<Vec<Loaded>>,
        index: usize,
        started: Started,
    ) -> (Self, VectorOutcome) {
        let l = &vectors[index];
        started.announce();
        let began = Instant::now();
        let o = match (&l.model, &self.0.runner) {
            (Model::Backend(v), Runner::Backend(target)) => {
                ctk_ahp_suite::run_vector(v, target, &self.0.config).await
            }
            (Model::Harness(v), Runner::Harness(adapter)) => {
                let settling = || started.release();
                ctk_ahp_suite::harness::run_harness_vector_releasing(
                    v,
                    adapter,
                    &self.0.harness_config,
                    &settling,
                )
                .await
            }
            // Vectors are loaded for the runner's role; a mix-up is the
            // kit's own error, never the subject's.
            _ => {
                return (
                    self,
                    VectorOutcome::error(
                        &l.meta.id,
                        "internal error: a vector of the other role reached this run".into(),
                        Duration::ZERO,
                    ),
                )
            }
        };
        let outcome = outcome(&o, began.elapsed());
        (self, outcome)
    }
}

/// The selected vectors: the embedded set of the line, or `--vectors DIR`,
/// then `--part`/`--id`.
fn vectors(
    select: &SelectArgs,
    line: AhpLine,
    role: RoleArg,
) -> Result<(Vec<Loaded>, String), CliError> {
    let (files, source): (Vec<(String, String)>, String) = match &select.vectors {
        None => (
            set::embedded_files(Suite::Ahp(line))
                .map(|(n, t)| (n.to_owned(), t.to_owned()))
                .collect(),
            format!("embedded:{}", Suite::Ahp(line).folder()),
        ),
        Some(dir) => {
            if !dir.is_dir() {
                return Err(UsageError(format!(
                    "--vectors {}: not a folder of AHP vector files",
                    dir.display()
                ))
                .into());
            }
            let mut files = Vec::new();
            for path in ctk_agent_hooks_suite::vector::load::vector_files(dir)? {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                files.push((name, text));
            }
            (files, dir.display().to_string())
        }
    };
    if files.is_empty() {
        return Err(crate::errors::LoadError::NoVectors {
            source_name: source,
        }
        .into());
    }
    let mut loaded = Vec::new();
    let mut problems = Vec::new();
    // A role runs its own vectors; a folder holds both roles'.
    let files: Vec<&(String, String)> = files
        .iter()
        .filter(|(_, text)| {
            // Only the role decides; a file that says nothing else is kept,
            // so its problems are reported, never skipped.
            serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v.get("role").and_then(|r| r.as_str()).map(str::to_owned))
                .is_none_or(|r| r == role_name(role))
        })
        .collect();
    for (name, text) in files {
        match parse(name, text, role, line) {
            Ok(l) => loaded.push(l),
            Err(e) => problems.push(e),
        }
    }
    if !problems.is_empty() {
        return Err(UsageError(problems.join("\n")).into());
    }
    loaded.retain(|l| {
        (select.part.is_empty() || select.part.contains(&l.meta.part))
            && (select.id.is_empty() || select.id.contains(&l.meta.id))
    });
    Ok((loaded, source))
}

/// The target, and how the report names it. The bundled reference backend
/// speaks the run's `line`.
fn target(args: &RunArgs, line: AhpLine) -> Result<(Target, String), CliError> {
    let lifecycle = match args.lifecycle {
        LifecycleArg::Persistent => Lifecycle::Persistent,
        LifecycleArg::PerEvent => Lifecycle::PerEvent,
    };
    match (&args.url, args.host.split_first()) {
        (Some(_), Some(_)) => Err(UsageError(
            "give the backend either as --url URL or as a command after --, not both".into(),
        )
        .into()),
        (Some(url), None) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(
                    UsageError(format!("--url {url}: not an http:// or https:// URL")).into(),
                );
            }
            Ok((Target::Http { url: url.clone() }, url.clone()))
        }
        (None, Some((program, rest))) => Ok((
            Target::Stdio(StdioCommand {
                program: OsString::from(program),
                args: rest.iter().map(OsString::from).collect(),
                lifecycle,
                cwd: None,
                env: Vec::new(),
            }),
            args.host.join(" "),
        )),
        (None, None) => {
            // The bundled reference backend: this binary in backend mode.
            let me = std::env::current_exe().map_err(|e| {
                CliError::Harness(format!(
                    "cannot locate the ctk binary to run the reference backend: {e}"
                ))
            })?;
            let mut backend_args = vec![OsString::from("ahp-backend"), OsString::from("stdio")];
            if lifecycle == Lifecycle::PerEvent {
                backend_args.push(OsString::from("--per-event"));
            }
            if line == AhpLine::Draft {
                backend_args.extend([
                    OsString::from("--spec"),
                    OsString::from(line.wire_version()),
                ]);
            }
            Ok((
                Target::Stdio(StdioCommand {
                    program: me.into_os_string(),
                    args: backend_args,
                    lifecycle,
                    cwd: None,
                    env: Vec::new(),
                }),
                "ctk-ahp-reference-backend".to_owned(),
            ))
        }
    }
}

/// The harness-role target: the adapter command after `--`, or the bundled
/// reference harness (`ctk ahp-harness`, `--spec draft` on the draft line),
/// and how the report names it.
fn adapter(args: &RunArgs, line: AhpLine) -> Result<(AdapterCommand, String), CliError> {
    if args.url.is_some() {
        return Err(UsageError(
            "--url names a backend; a harness is given as its adapter command after --".into(),
        )
        .into());
    }
    match args.host.split_first() {
        Some((program, rest)) => Ok((AdapterCommand::new(program, rest), args.host.join(" "))),
        None => Ok((
            match line {
                AhpLine::V0_1 => AdapterCommand::new(me()?, ["ahp-harness"]),
                AhpLine::Draft => {
                    AdapterCommand::new(me()?, ["ahp-harness", "--spec", line.wire_version()])
                }
            },
            "ctk-ahp-reference-harness".to_owned(),
        )),
    }
}

/// This binary: the bundled reference implementations and the scripted
/// backends are modes of it.
fn me() -> Result<std::path::PathBuf, CliError> {
    std::env::current_exe()
        .map_err(|e| CliError::Harness(format!("cannot locate the ctk binary: {e}")))
}

/// The profiles a run certifies: the vectors' own, narrowed to the ones
/// that ran (never a profile no vector of it applied to).
fn profiles(loaded: &[Loaded], outcomes: &[VectorOutcome]) -> Vec<String> {
    let mut out: Vec<String> = loaded
        .iter()
        .zip(outcomes)
        .filter(|(_, o)| o.status != Status::Skip)
        .flat_map(|(l, _)| l.model.profiles().iter().cloned())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The core's outcome of the suite's: the failures are the core's own type
/// already, so a report shows their expected and actual values.
fn outcome(o: &Outcome, duration: Duration) -> VectorOutcome {
    match o.verdict {
        Verdict::Pass | Verdict::Fail => {
            VectorOutcome::from_failures(&o.id, o.failures.clone(), duration)
        }
        Verdict::Skip => match &o.adapter_feature {
            Some(feature) => {
                VectorOutcome::lacks_feature(&o.id, feature, o.reason.clone().unwrap_or_default())
            }
            None => VectorOutcome::skip(&o.id, o.reason.clone().unwrap_or_default()),
        },
        Verdict::Error => VectorOutcome::error(
            &o.id,
            o.reason
                .clone()
                .unwrap_or_else(|| "the backend or link failed".into()),
            duration,
        ),
    }
}

/// `ctk list --protocol ahp`: `requirement::id  [role, line]  title` for each
/// selected vector of the role (of both roles without `--role`), through the
/// same loader as a run, so a vector that would not run is an error here too.
pub fn list(args: &ListArgs) -> Result<u8, CliError> {
    if args.declaration.is_some() {
        return Err(UsageError(
            "--declaration is an Agent Hooks host's surface; AHP vectors are selected by --role, --part and --id".into(),
        )
        .into());
    }
    let line = args.select.spec.ahp_line();
    let roles = match args.role {
        Some(role) => vec![role],
        None => vec![RoleArg::Backend, RoleArg::Harness],
    };
    let mut rows = Vec::new();
    for role in roles {
        let (loaded, _) = match vectors(&args.select, line, role) {
            Ok(found) => found,
            // A folder may hold one role's vectors only.
            Err(CliError::Load(crate::errors::LoadError::NoVectors { .. }))
                if args.role.is_none() =>
            {
                continue
            }
            Err(e) => return Err(e),
        };
        rows.extend(loaded.into_iter().map(|l| (role, l.meta)));
    }
    for (role, meta) in rows {
        terminal::out_line(&format!(
            "{}::{}  [{}, {}]  {}",
            meta.part,
            meta.id,
            role_name(role),
            line.wire_version(),
            meta.title
        ));
    }
    Ok(exit_code::SUCCESS)
}

/// The flags that do not describe an AHP `role` under test: a usage error
/// that names them, before anything starts.
fn refuse_foreign_flags(args: &RunArgs, role: RoleArg) -> Result<(), CliError> {
    if role == RoleArg::Harness
        && (!args.policy.is_empty() || args.lifecycle != LifecycleArg::Persistent)
    {
        return Err(UsageError(
            "--policy and --lifecycle describe a backend; a harness is tested over every binding and lifecycle its adapter declares".into(),
        )
        .into());
    }
    if args.declaration.is_some() || args.isolate {
        return Err(UsageError(
            "--declaration and --isolate are Agent Hooks flags; an AHP backend is described by --url or its command, --lifecycle and --policy".into(),
        )
        .into());
    }
    for policy in &args.policy {
        if !ctk_ahp_suite::policy::is_known(policy) {
            return Err(UsageError(format!("--policy {policy}: no such policy")).into());
        }
    }
    Ok(())
}

/// The named policies a backend run holds the backend to. The bundled
/// backend's built-in policy is exactly the suite's named policies
/// (ctk-ahp-reference-backend's README), so all of its vectors run.
fn policies(args: &RunArgs, bundled: bool) -> std::collections::BTreeSet<String> {
    if bundled && args.policy.is_empty() {
        ctk_ahp_suite::policy::ALL
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .collect()
    } else {
        args.policy.iter().cloned().collect()
    }
}

/// How the run reached the subject, for the report: (binding, lifecycle,
/// what the harness's adapter says of itself when it answers).
fn described(
    runtime: &tokio::runtime::Runtime,
    runner: &Runner,
    harness_config: &HarnessConfig,
) -> (String, String, Option<ctk_ahp_adapter::AdapterInfo>) {
    match runner {
        Runner::Backend(target) => (
            target.binding().to_owned(),
            match target.lifecycle() {
                None => "none",
                Some(Lifecycle::PerEvent) => "per_event",
                Some(Lifecycle::Persistent) => "persistent",
            }
            .to_owned(),
            None,
        ),
        Runner::Harness(adapter) => {
            // What the harness declares of itself, asked once more after
            // the run: its name, version, bindings and lifecycles.
            match runtime.block_on(ctk_ahp_suite::harness::probe_adapter(
                adapter,
                harness_config,
            )) {
                Ok(info) => {
                    let catalog = ctk_ahp_adapter::features();
                    for name in catalog.unknown(info.features.iter().map(String::as_str)) {
                        terminal::err(&format!(
                            "warning: the adapter announces the feature {name:?}, which {} does \
                             not know (ahp/adapter/ADAPTER.md, \"Changes\", lists the known \
                             ones); it was ignored",
                            catalog.contract
                        ));
                    }
                    (
                        info.bindings.join("+"),
                        info.lifecycles.join("+"),
                        Some(info),
                    )
                }
                Err(e) => {
                    terminal::err(&format!(
                        "warning: the adapter did not answer initialize: {e}"
                    ));
                    ("stdio".to_owned(), "none".to_owned(), None)
                }
            }
        }
    }
}

/// The report's name and version of the subject: the flags, else what its
/// adapter said, else the bundled reference's or "unknown".
fn identity(
    args: &RunArgs,
    subject: String,
    probed: Option<ctk_ahp_adapter::AdapterInfo>,
    bundled: bool,
    line: AhpLine,
) -> HostIdentity {
    HostIdentity {
        name: args
            .subject_name
            .clone()
            .or_else(|| probed.as_ref().map(|p| p.name.clone()))
            .unwrap_or(subject),
        version: args.subject_version.clone().unwrap_or_else(|| {
            if let Some(p) = &probed {
                p.version.clone()
            } else if bundled {
                env!("CARGO_PKG_VERSION").to_owned()
            } else {
                "unknown".to_owned()
            }
        }),
        spec_versions: vec![line.wire_version().to_owned()],
        features: probed.map(|p| p.features).unwrap_or_default(),
    }
}

/// `ctk run --protocol ahp`.
pub fn command(args: RunArgs) -> Result<u8, CliError> {
    let Some(role) = args.role else {
        return Err(UsageError(
            "--protocol ahp needs --role backend|harness (the role under test)".into(),
        )
        .into());
    };
    refuse_foreign_flags(&args, role)?;
    let vector_timeout = plan::vector_timeout(args.vector_timeout_ms)?;
    let jobs = plan::jobs(args.jobs)?;
    let line = args.select.spec.ahp_line();
    let suite = Suite::Ahp(line);
    let (runner, subject) = match role {
        RoleArg::Backend => {
            let (target, subject) = target(&args, line)?;
            (Runner::Backend(target), subject)
        }
        RoleArg::Harness => {
            let (adapter, subject) = adapter(&args, line)?;
            (Runner::Harness(adapter), subject)
        }
    };
    let (loaded, source) = vectors(&args.select, line, role)?;
    let (loaded, extras) = RunExtras::settle(
        &args,
        loaded,
        |l| l.meta.id.as_str(),
        |l| l.meta.sha256.clone(),
        &source,
    )?;
    if loaded.is_empty() {
        return Ok(no_tests(
            args.no_tests,
            &format!(
                "no vector of {source} matches the --part/--id filters{}",
                extras.shard_note()
            ),
        ));
    }
    if let Some(dir) = &args.report_dir {
        std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
            path: dir.clone(),
            source,
        })?;
    }
    let mut loaded = loaded;
    for l in &mut loaded {
        l.alone = needs_alone(&l.model, &runner);
    }
    // The view and the event log read each vector's meta from the run's own
    // list: no copy of them (issue 30).
    let loaded = Arc::new(loaded);
    let style = Style {
        color: terminal::use_color(
            args.color,
            std::io::stdout().is_terminal(),
            std::env::var("NO_COLOR").ok().as_deref(),
        ),
    };
    let mut view = Terminal::new(
        &loaded[..],
        Display {
            human: args.format == Format::Human,
            quiet: args.quiet,
            style,
        },
    );
    let mut log = args
        .report_dir
        .as_deref()
        .map(|d| EventLog::new(d, suite.wire(), &source));
    let bundled = args.url.is_none() && args.host.is_empty();
    let harness_config = {
        let mut c = HarnessConfig::new(ScriptedCommand {
            program: me()?,
            prefix_args: vec!["ahp-backend".into(), "script".into()],
        });
        c.vector_timeout = vector_timeout;
        c
    };
    let config = SuiteConfig {
        vector_timeout,
        policies: policies(&args, bundled),
        ..SuiteConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(jobs.clamp(2, 16))
        .enable_all()
        .build()
        .map_err(|e| CliError::Harness(format!("cannot start the async runtime: {e}")))?;
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = interrupted.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            flag.store(true, Ordering::SeqCst);
            terminal::err("interrupted: finishing the report of what ran");
        }
    });
    let started = Instant::now();
    let started_at = build::rfc3339(std::time::SystemTime::now());
    let shared = Arc::new(Subject {
        runner,
        config,
        harness_config,
    });
    let options = LoopOptions {
        jobs,
        fail_fast: args.fail_fast && !args.no_fail_fast,
        interrupted,
    };
    let worker = shared.clone();
    let outcomes = runtime.block_on(vector_loop::run_all(
        move || SubjectRunner(worker.clone()),
        loaded.clone(),
        options,
        |event: &Event| {
            view.on_event(&extras.shown(event));
            if let Some(log) = &mut log {
                let meta = event.index().and_then(|i| loaded.get(i)).map(|l| &l.meta);
                log.record(event, meta);
            }
        },
    ));
    let Subject {
        runner,
        harness_config,
        ..
    } = &*shared;
    view.finish();
    let (binding, lifecycle, probed) = described(&runtime, runner, harness_config);
    let subject_doc = json!({
        "role": role_name(role),
        "binding": binding,
        "lifecycle": lifecycle,
        "profiles": profiles(&loaded, &outcomes),
        "protocol_version": line.wire_version(),
        "revision": line.revision(),
    });
    let ctx = RunContext {
        spec: suite.wire().to_owned(),
        host: identity(&args, subject, probed, bundled, line),
        declaration_source: "command line (--role, --url or command, --lifecycle)".to_owned(),
        declaration: subject_doc.clone(),
        surface: subject_doc,
        vector_source: source,
        filtered: !args.select.part.is_empty()
            || !args.select.id.is_empty()
            || extras.partition.is_some(),
        started_at,
        total_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    let report = build::build(ctx, loaded.iter().map(|l| &l.meta), &outcomes);
    finish(
        &args,
        &report,
        style,
        &format!("this {}", role_name(role)),
        &extras,
    )
}

/// `ctk ahp-backend stdio [--per-event] [--spec 0.1|draft]`: the bundled
/// reference AHP backend (crate `ctk-ahp-reference-backend`, built-in policy) on
/// this process's stdio, so `ctk run --protocol ahp --role backend` runs
/// out of the box (`--spec draft`: the draft line, for `--spec draft` runs).
pub fn backend_command(per_event: bool, spec: SpecArg) -> u8 {
    let backend = ctk_ahp_reference_backend::Backend::with_line(
        ctk_ahp_reference_backend::policy::Policy::builtin(),
        spec.ahp_line(),
    );
    let log = ctk_ahp_reference_backend::log::Logger { quiet: true };
    let input = std::io::stdin().lock();
    let output = std::io::stdout().lock();
    let max = ctk_ahp_reference_backend::stdio::DEFAULT_MAX_FRAME_BYTES;
    let result = if per_event {
        ctk_ahp_reference_backend::stdio::serve_per_event(&backend, input, output, max, &log)
    } else {
        ctk_ahp_reference_backend::stdio::serve_persistent(&backend, input, output, max, &log)
    };
    match result {
        Ok(()) => exit_code::SUCCESS,
        Err(e) => {
            terminal::err(&format!("ctk ahp-backend: {e}"));
            exit_code::FAILURES
        }
    }
}

/// `ctk ahp-harness [--spec 0.1|draft]`: the bundled reference AHP harness
/// (crate `ctk-ahp-reference-harness`) as its own adapter on this process's stdio. A
/// current-thread runtime, so the backends it starts are children of the
/// main thread and die with this process.
pub fn harness_command(spec: SpecArg) -> u8 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            terminal::err(&format!(
                "ctk ahp-harness: cannot start the async runtime: {e}"
            ));
            return exit_code::HARNESS;
        }
    };
    runtime.block_on(ctk_ahp_reference_harness::adapter::serve_line(
        tokio::io::stdin(),
        tokio::io::stdout(),
        spec.ahp_line(),
    ));
    ctk_ahp_reference_harness::process::kill_all();
    exit_code::SUCCESS
}

/// `ctk ahp-backend script --script FILE --log FILE`: a scripted backend the
/// harness-role suite writes into registrations; it answers as the script
/// says and logs every frame it receives.
pub fn scripted_command(script: &std::path::Path, log: &std::path::Path) -> u8 {
    match ctk_ahp_suite::harness::scripted::serve_process_stdio(script, log) {
        Ok(code) => u8::try_from(code).unwrap_or(exit_code::FAILURES),
        Err(e) => {
            terminal::err(&format!("ctk ahp-backend script: {e}"));
            exit_code::USAGE
        }
    }
}
