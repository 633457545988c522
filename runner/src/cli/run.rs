//! `ctk run`.

use std::collections::BTreeSet;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctk_agent_hooks_adapter::HostAdapter;
use serde_json::Value;

use crate::cli::args::{Format, NoTests, ProtocolArg, RunArgs};
use crate::cli::terminal::{self, Display, Terminal};
use crate::cli::{host, plan, CliError};
use crate::errors::{ReportError, UsageError};
use crate::event::Event;
use crate::exit_code;
use crate::outcome::{Status, VectorOutcome};
use crate::report::build::{self, RunContext};
use crate::report::human::{self, Style};
use crate::report::model::{HostIdentity, PartitionInfo, Report, VectorSet};
use crate::report::{baseline, merge};
use crate::report::{events, html, json, junit, markdown};
use crate::set::{VectorMeta, VectorView as _};
use ctk_agent_hooks_suite::declaration::{self, Surface};
use ctk_agent_hooks_suite::engine::{self, EngineOptions, LoopOptions};
use ctk_agent_hooks_suite::vector::model::SpecVersion;
use ctk_agent_hooks_suite::vector::plan::PlannedVector;

/// Everything a run needs besides the host.
#[derive(Debug, Clone)]
pub struct Job {
    /// The spec.
    pub spec: SpecVersion,
    /// The vectors, as planned: each is parsed when it runs.
    pub vectors: Arc<Vec<PlannedVector>>,
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
    /// Raised by the Ctrl-C handler; see [`LoopOptions::interrupted`].
    pub interrupted: Arc<std::sync::atomic::AtomicBool>,
    /// `--fail-fast`; see [`LoopOptions::fail_fast`].
    pub fail_fast: bool,
}

/// What a run produced: every result, in the report's builder, and the
/// facts the report states besides them. [`RunResult::report`] seals it;
/// `ctk run` first lets go of the run's plan, so that the two never take
/// memory at once (issue 30).
pub struct RunResult {
    builder: build::Builder,
    ctx: RunContext,
}

impl std::fmt::Debug for RunResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunResult")
            .field("ctx", &self.ctx)
            .finish_non_exhaustive()
    }
}

impl RunResult {
    /// The sealed report; `Err` when the spool its entries went to could
    /// not be written or read back (the message names the file).
    pub fn report(self) -> Result<Report, CliError> {
        Ok(self.builder.finish(self.ctx)?)
    }
}

/// Query the host, derive the surface, run every vector, build the report.
pub async fn drive<H, F>(
    factory: F,
    job: Job,
    on_event: impl FnMut(&Event) + Send,
) -> Result<RunResult, CliError>
where
    H: HostAdapter + 'static,
    F: Fn() -> H + Send + Sync + 'static,
{
    let started = Instant::now();
    let started_at = build::rfc3339(std::time::SystemTime::now());
    let info = factory()
        .info()
        .await
        // With the host's stderr tail: a host that dies at start must show
        // why (Python's traceback, a missing file), not only its exit status.
        .map_err(|e| {
            let text = engine::harness_error_text(&e);
            CliError::Harness(text.trim_start_matches("harness error: ").to_owned())
        })?;
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
    let mut surface: Surface = declaration::surface(&document);
    surface.own_buffered_output = info
        .declaration
        .as_ref()
        .map(|own| declaration::surface(own).buffered_output);
    surface.adapter_features = Some(announced_features(&info.features));
    let options = EngineOptions {
        spec: job.spec,
        surface: surface.clone(),
        vector_timeout: job.vector_timeout,
        loop_options: LoopOptions {
            jobs: job.jobs,
            fail_fast: job.fail_fast,
            interrupted: job.interrupted.clone(),
        },
    };
    // Each entry goes to a spool file as its vector finishes, and the
    // report is rendered from there: a run holds no result it has already
    // passed on (issue 30).
    let mut builder = build::Builder::spooled(job.spec.wire())?;
    let vectors = Arc::clone(&job.vectors);
    engine::run_each(
        factory,
        job.vectors.clone(),
        options,
        on_event,
        |index, outcome| {
            if let Some(v) = vectors.get(index) {
                // Taken, so the plan no longer holds it.
                builder.vector(&v.take_meta(), Some(outcome));
            }
        },
    )
    .await;
    let ctx = RunContext {
        spec: job.spec.wire().to_owned(),
        host: HostIdentity {
            name: info.name.clone(),
            version: info.version.clone(),
            spec_versions: info.spec_versions.clone(),
            features: info.features.clone(),
        },
        declaration_source: source,
        declaration: document,
        surface: serde_json::to_value(&surface).unwrap_or(Value::Null),
        vector_source: job.vector_source,
        filtered: job.filtered,
        started_at,
        total_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    Ok(RunResult { builder, ctx })
}

/// The features a host announced, as the surface holds them; a name the
/// contract does not know is warned about (an adapter written for a newer
/// ctk, or a typo) and otherwise ignored: no vector lists it.
fn announced_features(announced: &[String]) -> BTreeSet<String> {
    let catalog = ctk_agent_hooks_adapter::features();
    for name in catalog.unknown(announced.iter().map(String::as_str)) {
        terminal::err(&format!(
            "warning: the host announces the adapter feature {name:?}, which {} does not know \
             (agent-hooks/adapter/PROTOCOL.md §7 lists the known ones); it is ignored",
            catalog.contract
        ));
    }
    announced.iter().cloned().collect()
}

/// The exit code a report earns: gating vectors only (advisory ones, in
/// [`Report::advisory_totals`], never change it). Vectors that never ran (an
/// interrupted or `--fail-fast` run) never make a run green: alone they are a
/// harness error; beside a failure, the failure's code stands. A stale or
/// expired `--baseline` entry fails the run like a failure.
pub fn exit_code_for(report: &Report) -> u8 {
    let (mut fail, mut error, mut not_run) = (0, 0, 0);
    for v in report.vectors.iter().filter(|v| v.advisory.is_none()) {
        match v.status {
            Status::Fail => fail += 1,
            Status::Error if engine::never_ran(&v.reason) => not_run += 1,
            Status::Error => error += 1,
            Status::Pass | Status::Skip | Status::ExpectedFail => {}
        }
    }
    if error > 0 || (not_run > 0 && fail == 0) {
        exit_code::HARNESS
    } else if fail > 0 || report.baseline.as_ref().is_some_and(|b| b.fails_run()) {
        exit_code::FAILURES
    } else {
        exit_code::SUCCESS
    }
}

/// The report of a run whose host never finished its handshake (it could
/// not start, died, or stated a broken declaration): every vector is an
/// `error` with `reason`, so CI still finds its report and JUnit file, and
/// the report can never back a claim. `each` sees every vector's meta and
/// outcome as it goes into the report (for `events.jsonl`). The report is
/// spooled as a run's is, and fails as a run's does when the spool does.
pub fn unstarted_report(
    job: &Job,
    host_label: &str,
    reason: &str,
    mut each: impl FnMut(usize, &VectorMeta, &VectorOutcome),
) -> Result<Report, CliError> {
    let mut builder = build::Builder::spooled(job.spec.wire())?;
    for (index, v) in job.vectors.iter().enumerate() {
        let meta = v.take_meta();
        let outcome = VectorOutcome::error(&meta.id, reason.to_owned(), Duration::ZERO);
        each(index, &meta, &outcome);
        builder.vector(&meta, Some(outcome));
    }
    let (source, document) = match &job.declaration {
        Some((path, doc)) => (path.display().to_string(), doc.clone()),
        None => (
            "none (the host never stated one)".to_owned(),
            Value::Object(serde_json::Map::new()),
        ),
    };
    let surface = serde_json::to_value(declaration::surface(&document)).unwrap_or(Value::Null);
    let ctx = RunContext {
        spec: job.spec.wire().to_owned(),
        host: HostIdentity {
            name: host_label.to_owned(),
            version: "unknown (no handshake)".to_owned(),
            spec_versions: Vec::new(),
            features: Vec::new(),
        },
        declaration_source: source,
        declaration: document,
        surface,
        vector_source: job.vector_source.clone(),
        filtered: job.filtered,
        started_at: build::rfc3339(std::time::SystemTime::now()),
        total_ms: 0,
    };
    Ok(builder.finish(ctx)?)
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), ReportError> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|source| ReportError::Io { path, source })
}

/// Create `dir/name` and let `body` write it as it renders.
fn stream(
    dir: &Path,
    name: &str,
    body: impl FnOnce(std::fs::File) -> std::io::Result<()>,
) -> Result<(), ReportError> {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .and_then(body)
        .map_err(|source| ReportError::Io { path, source })
}

/// Write report.json, report.md, report.html and junit.xml into `dir`, one
/// after another; report.json, report.html and junit.xml are streamed to
/// their files as they render (byte for byte [`json::render`],
/// [`html::render`] and [`junit::render`]), so no rendering is ever held
/// whole. Each file is written even when another fails, so one bad path
/// never costs the others; the first failure is returned.
pub fn write_reports(dir: &Path, report: &Report) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let json = stream(dir, "report.json", |f| json::write(report, f));
    let md = write(
        dir,
        "report.md",
        &markdown::render(report, crate::set::released),
    )
    .and_then(|()| {
        // The page renders to text first; a spool that could not be read
        // back left vectors out of it (the streamed files fail as they go).
        report
            .failure()
            .map_or(Ok(()), |why| Err(ReportError::Spool(why)))
    });
    let html = stream(dir, "report.html", |f| {
        html::write(report, &[], crate::set::released, f)
    });
    let xml = stream(dir, "junit.xml", |f| junit::write(report, f));
    [json, md, html, xml].into_iter().collect()
}

/// The file name of the streamed results in `--report-dir`.
pub const EVENTS_FILE: &str = "events.jsonl";

/// `events.jsonl`, appended line by line while the run goes (see
/// [`events`]). A file that cannot be written is reported once and then
/// left alone: the run and its other reports go on.
pub(crate) struct EventLog {
    file: Option<std::fs::File>,
    path: PathBuf,
    spec: String,
    vector_source: String,
}

impl EventLog {
    /// Create `events.jsonl` in `dir` for a run of `spec` over `vector_source`.
    pub(crate) fn new(dir: &Path, spec: &str, vector_source: &str) -> Self {
        let path = dir.join(EVENTS_FILE);
        let file = match std::fs::File::create(&path) {
            Ok(f) => Some(f),
            Err(e) => {
                terminal::err(&format!("warning: cannot write {}: {e}", path.display()));
                None
            }
        };
        Self {
            file,
            path,
            spec: spec.to_owned(),
            vector_source: vector_source.to_owned(),
        }
    }

    /// Append `event`'s line; `meta` is that of the vector it is about.
    pub(crate) fn record(&mut self, event: &Event, meta: Option<&VectorMeta>) {
        let Some(file) = &mut self.file else { return };
        let header = events::RunHeader {
            spec: &self.spec,
            vector_source: &self.vector_source,
        };
        // One unbuffered write per line: nothing sits in a buffer a kill
        // could lose.
        let line = format!("{}\n", events::line(event, meta, &header));
        if let Err(e) = file.write_all(line.as_bytes()) {
            terminal::err(&format!(
                "warning: cannot write {}: {e}",
                self.path.display()
            ));
            self.file = None;
        }
    }
}

/// What `--no-tests` makes of a run in which no vector ran.
pub(crate) fn no_tests(rule: NoTests, why: &str) -> u8 {
    match rule {
        NoTests::Fail => {
            terminal::err(&format!(
                "error: no vector ran: {why} (--no-tests warn or pass accepts such a run)"
            ));
            exit_code::NO_TESTS
        }
        NoTests::Warn => {
            terminal::err(&format!("warning: no vector ran: {why}"));
            exit_code::SUCCESS
        }
        NoTests::Pass => exit_code::SUCCESS,
    }
}

/// What `--partition` and `--baseline` add to a run of either suite:
/// settled before any vector runs (a malformed baseline or partition must
/// not cost a long run), shown on the terminal's lines, and applied to the
/// report by [`finish`].
#[derive(Debug, Clone, Default)]
pub(crate) struct RunExtras {
    /// The shard this run is, and the selection it was cut from.
    pub(crate) partition: Option<PartitionInfo>,
    /// Every vector id of the selection before `--partition`, when there is
    /// a baseline and `--part`/`--id` did not narrow the selection: a
    /// baseline entry naming none of them is stale. Without a baseline it
    /// is never read, and not kept (a set of every id of the run).
    universe: Option<BTreeSet<String>>,
    /// The baseline.
    baseline: Option<baseline::Baseline>,
    /// Ids an in-date baseline entry names: their failures show as XFAIL.
    expected: BTreeSet<String>,
}

impl RunExtras {
    /// Load `--baseline` and cut `--partition`'s shard out of `selection`
    /// (in selection order; `id` and `sha256` give an item's id and
    /// digest).
    pub(crate) fn settle<T>(
        args: &RunArgs,
        selection: Vec<T>,
        id: impl Fn(&T) -> &str,
        sha256: impl Fn(&T) -> String,
        source: &str,
    ) -> Result<(Vec<T>, Self), CliError> {
        let baseline = args.baseline.as_deref().map(baseline::load).transpose()?;
        let partition: Option<merge::Partition> = args
            .partition
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e: merge::PartitionParseError| UsageError(e.to_string()))?;
        let narrowed = !args.select.part.is_empty() || !args.select.id.is_empty();
        let today = baseline::today();
        let mut extras = Self {
            partition: None,
            universe: (!narrowed && baseline.is_some())
                .then(|| selection.iter().map(|v| id(v).to_owned()).collect()),
            expected: baseline
                .iter()
                .flat_map(|b| &b.entries)
                .filter(|e| e.expires >= today)
                .map(|e| e.id.clone())
                .collect(),
            baseline,
        };
        let Some(partition) = partition else {
            return Ok((selection, extras));
        };
        extras.partition = Some(partition.info(VectorSet {
            source: source.to_owned(),
            count: selection.len(),
            filtered: narrowed,
            sha256: build::vector_set_digest(selection.iter().map(&sha256)),
        }));
        let kept = selection
            .into_iter()
            .enumerate()
            .filter(|(i, item)| partition.contains(*i, id(item)))
            .map(|(_, item)| item)
            .collect();
        Ok((kept, extras))
    }

    /// The event as the terminal shows it: a failure an in-date baseline
    /// entry names is an expected one (`events.jsonl` keeps the engine's).
    pub(crate) fn shown<'a>(&self, event: &'a Event) -> std::borrow::Cow<'a, Event> {
        match event {
            Event::VectorFinished { index, outcome }
                if outcome.status == Status::Fail && self.expected.contains(&outcome.id) =>
            {
                let mut outcome = outcome.clone();
                outcome.status = Status::ExpectedFail;
                std::borrow::Cow::Owned(Event::VectorFinished {
                    index: *index,
                    outcome,
                })
            }
            _ => std::borrow::Cow::Borrowed(event),
        }
    }

    /// Where a run holds no vector: ` in shard K/N` of a `--partition` run.
    pub(crate) fn shard_note(&self) -> String {
        self.partition
            .as_ref()
            .map(|p| {
                let shards: Vec<String> = p.shards.iter().map(usize::to_string).collect();
                format!(" in --partition shard {}/{}", shards.join(","), p.of)
            })
            .unwrap_or_default()
    }

    /// The report with the shard recorded and the baseline applied; the
    /// report itself, not a copy, when there is neither.
    pub(crate) fn apply<'r>(&self, report: &'r Report) -> std::borrow::Cow<'r, Report> {
        if self.partition.is_none() && self.baseline.is_none() {
            return std::borrow::Cow::Borrowed(report);
        }
        let mut report = report.clone();
        if let Some(p) = &self.partition {
            report.partition = Some(p.clone());
            build::seal(&mut report);
        }
        if let Some(b) = &self.baseline {
            baseline::apply(&mut report, b, baseline::today(), self.universe.as_ref());
        }
        std::borrow::Cow::Owned(report)
    }
}

/// Worker threads of a run's runtime, at most 16. A host in process runs on
/// them and may hold one (a synchronous interceptor), so there are at least
/// two. A host process holds none: the runner's own work for one job (its
/// link, callbacks and judging) never blocks, and a second worker would
/// mostly be woken to find nothing, a futex wake and a context switch for
/// many of the host's lines (issue 30: about 0.06 ms a vector of the
/// released suite over stdio).
fn worker_threads(choice: &host::HostChoice, jobs: usize) -> usize {
    match choice {
        host::HostChoice::Reference => jobs.clamp(2, 16),
        host::HostChoice::Stdio { .. } => jobs.clamp(1, 16),
    }
}

/// How the host appears in a report when it never said its name.
fn host_label(choice: &host::HostChoice) -> String {
    match choice {
        host::HostChoice::Reference => "ctk-reference-host (in process)".to_owned(),
        host::HostChoice::Stdio { command, .. } => command.join(" "),
    }
}

/// `ctk run`.
pub fn command(args: RunArgs) -> Result<u8, CliError> {
    if args.protocol == ProtocolArg::Ahp {
        crate::cli::transcript::refuse_for_ahp(args.transcript.as_deref())?;
        return crate::cli::run_ahp::command(args);
    }
    for (set, flag) in [
        (args.role.is_some(), "--role"),
        (args.url.is_some(), "--url"),
        (!args.policy.is_empty(), "--policy"),
        (args.subject_name.is_some(), "--subject-name"),
        (args.subject_version.is_some(), "--subject-version"),
    ] {
        if set {
            return Err(UsageError(format!("{flag} is an AHP flag; add --protocol ahp")).into());
        }
    }
    let jobs = plan::jobs(args.jobs)?;
    let vector_timeout = plan::vector_timeout(args.vector_timeout_ms)?;
    let choice = plan::host(&args.host, args.isolate)?;
    let transcripts =
        crate::cli::transcript::TranscriptDir::for_run(args.transcript.as_deref(), &choice)?;
    let declaration = plan::declaration(args.declaration.as_deref())?;
    if let Some((path, doc)) = &declaration {
        declaration::check_for_run(path, doc, plan::spec(args.select.spec))?;
    }
    let vectors = plan::selected(&args.select)?;
    let source = plan::source(&args.select).to_string();
    let (vectors, extras) = RunExtras::settle(
        &args,
        vectors,
        PlannedVector::id,
        PlannedVector::sha256,
        &source,
    )?;
    if vectors.is_empty() {
        return Ok(no_tests(
            args.no_tests,
            &format!(
                "no vector of {source} matches the --part/--id filters{}",
                extras.shard_note()
            ),
        ));
    }
    if let Some(dir) = &args.report_dir {
        // Refused before the run, not after it: a report directory that
        // cannot be made must not cost a long run its reports.
        std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
            path: dir.clone(),
            source,
        })?;
    }
    let job = Job {
        spec: plan::spec(args.select.spec),
        vector_source: source,
        vectors: Arc::new(vectors),
        filtered: !args.select.part.is_empty()
            || !args.select.id.is_empty()
            || extras.partition.is_some(),
        declaration,
        jobs,
        vector_timeout,
        interrupted: Arc::default(),
        fail_fast: args.fail_fast && !args.no_fail_fast,
    };
    let human_out = args.format == Format::Human;
    let no_color = std::env::var("NO_COLOR").ok();
    let style = Style {
        color: terminal::use_color(
            args.color,
            std::io::stdout().is_terminal(),
            no_color.as_deref(),
        ),
    };
    // The plan lends each vector's meta: no copy of them for the view.
    let vectors = Arc::clone(&job.vectors);
    let mut log = args
        .report_dir
        .as_deref()
        .map(|d| EventLog::new(d, job.spec.wire(), &job.vector_source));
    let mut view = Terminal::new(
        &vectors,
        Display {
            human: human_out,
            quiet: args.quiet,
            style,
        },
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(worker_threads(&choice, jobs))
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
            ctk_agent_hooks_adapter::kill_all_hosts();
            terminal::err(
                "interrupted: finishing the report of what ran (Ctrl-C again to leave now)",
            );
            if tokio::signal::ctrl_c().await.is_ok() {
                ctk_agent_hooks_adapter::kill_all_hosts();
                std::process::exit(i32::from(exit_code::HARNESS));
            }
        }
    });
    let result = {
        let on_event = |event: &Event| {
            view.on_event(&extras.shown(event));
            if let Some(log) = &mut log {
                let meta = event.index().and_then(|i| vectors.get(i)?.view());
                log.record(event, meta.as_deref());
            }
        };
        runtime.block_on(host::run(
            &choice,
            job.clone(),
            transcripts.as_ref(),
            on_event,
        ))
    };
    view.finish();
    // The report has every result now: the plan goes before the report is
    // sealed and rendered, so the two never take memory at once (issue 30).
    drop(view);
    let report = match result {
        Ok(result) => {
            drop(log);
            drop(vectors);
            drop(job);
            result.report()?
        }
        Err(CliError::Harness(reason)) => {
            // The host never got as far as a vector: say why, and still
            // leave a report (every vector an error) for CI to find.
            terminal::err(&format!("error: host error: {reason}"));
            let reason = format!("host error before any vector ran: {reason}");
            unstarted_report(
                &job,
                &host_label(&choice),
                &reason,
                |index, meta, outcome| {
                    if let Some(log) = &mut log {
                        let outcome = outcome.clone();
                        log.record(&Event::VectorFinished { index, outcome }, Some(meta));
                    }
                },
            )?
        }
        Err(e) => return Err(e),
    };
    let code = finish(&args, &report, style, "the declared surface", &extras)?;
    Ok(transcripts.map_or(code, |t| t.finish(Some(&report), code)))
}

/// The end of every run, whatever the suite: print the summary (or the
/// JSON report), write the report files, say where they went, and the exit
/// code, with `--no-tests` applied when nothing applied to `subject`.
/// Printing comes before writing, so a report directory that cannot be
/// written never loses the results already gathered. `extras` (the shard,
/// the baseline) are applied to the report first.
pub(crate) fn finish(
    args: &RunArgs,
    report: &Report,
    style: Style,
    subject: &str,
    extras: &RunExtras,
) -> Result<u8, CliError> {
    let applied = extras.apply(report);
    let report: &Report = &applied;
    match args.format {
        Format::Human => terminal::out(&human::summary(report, style)),
        Format::Json => terminal::out(&json::render(report)),
    }
    let written = match &args.report_dir {
        Some(dir) => {
            write_reports(dir, report)?;
            format!(
                "reports written to {}: report.json, report.md, report.html, junit.xml, {EVENTS_FILE}",
                dir.display()
            )
        }
        None => "no report written (pass --report-dir DIR to keep one)".to_owned(),
    };
    match args.format {
        Format::Human => terminal::out(&format!("{written}\n")),
        Format::Json => terminal::err(&written),
    }
    let code = exit_code_for(report);
    let applicable = report.totals.applicable() + report.advisory_totals.applicable();
    if code == exit_code::SUCCESS && applicable == 0 {
        return Ok(no_tests(
            args.no_tests,
            &format!("no selected vector applies to {subject} (see the skip reasons)"),
        ));
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host in process keeps a second worker whatever the jobs; a host
    /// process at one job gets one, and more jobs get as many workers.
    #[test]
    fn workers_follow_the_jobs_and_keep_two_for_a_host_in_process() {
        let stdio = host::HostChoice::Stdio {
            command: vec!["host".into()],
            isolate: false,
        };
        let reference = host::HostChoice::Reference;
        assert_eq!(worker_threads(&reference, 1), 2);
        assert_eq!(worker_threads(&stdio, 1), 1);
        assert_eq!(worker_threads(&stdio, 3), 3);
        assert_eq!(worker_threads(&reference, 3), 3);
        assert_eq!(worker_threads(&stdio, 64), 16);
    }
}
