//! The runner's end of the stdio link: [`StdioHost`] implements
//! [`HostAdapter`] by driving a host process that speaks `PROTOCOL.md`.
//!
//! One persistent host process serves every vector by default
//! ([`StdioHostBuilder::isolate`] starts one per vector). Whatever the host
//! does (crash, hang, garbage, an oversized line, a wrong id, a stderr flood,
//! an early exit), the call in progress returns a [`AdapterError`] carrying
//! the host's last stderr lines, the host is killed with everything it started,
//! and the next vector restarts it and replays the handshake, until the
//! restart budget is spent; from then on every call fails fast. A call its
//! caller drops before it returns (an outer timeout) leaves the link unusable:
//! the next call kills that host and starts afresh, counting a failure.
//!
//! No process a host starts outlives it: on Linux the runner becomes the
//! child subreaper ([`become_subreaper`]) and ending a host kills every
//! process it left behind, even one that left its process group; the host
//! exiting ends the call at once even while such a process holds its stdout.
//! Stdout is read by one task and stdin written by another, so a host that
//! does not read its answers cannot stall the runner: its callbacks stay open
//! and reaching the open-callback limit is a protocol violation.
//!
//! ```no_run
//! # async fn demo() -> Result<(), ctk_agent_hooks_adapter::AdapterError> {
//! use std::time::Duration;
//! use ctk_agent_hooks_adapter::client::StdioHost;
//! use ctk_agent_hooks_adapter::HostAdapter;
//!
//! let mut host = StdioHost::builder("python3")
//!     .args(["examples/python-host/host.py"])
//!     .message_timeout(Duration::from_secs(5))
//!     .build();
//! let info = host.info().await?;
//! # let _ = info;
//! // On Ctrl-C: ctk_agent_hooks_adapter::client::kill_all_hosts();
//! host.shutdown().await;
//! # Ok(()) }
//! ```

mod process;
mod supervise;
mod tap;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::time::Instant;

pub use ctk_support::process::become_subreaper;
pub use process::kill_all_hosts;
pub use tap::{WireEvent, WireTap};

use self::process::HostProcess;
use self::supervise::{CallError, Deadline, Session};
use crate::errors::{AdapterError, AdapterErrorKind, Phase};
use crate::interface::{Callbacks, HostAdapter, KnownAnswers};
use crate::model::host::HostInfo;
use crate::model::record::RunRecord;
use crate::model::setup::VectorSetup;
use crate::wire::codec::DEFAULT_MAX_LINE_BYTES;
use crate::wire::methods::{self, Empty, InitializeParams, InitializeResult, RunParams};
use crate::wire::PROTOCOL_VERSION;
use crate::{KNOWN_ANSWERS, RECORDED_CONTEXTS};

/// How to start and supervise a stdio host.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StdioHostConfig {
    /// The host program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Extra environment variables.
    pub env: Vec<(OsString, OsString)>,
    /// Working directory; `None` inherits the runner's.
    pub current_dir: Option<PathBuf>,
    /// Limit for every answer but `vector/run`'s: handshake, setup, teardown,
    /// shutdown. Default 10 s.
    pub message_timeout: Duration,
    /// Limit for one vector, from `vector/setup` to the end of `vector/run`.
    /// Default 60 s.
    pub vector_timeout: Duration,
    /// The longest stdout line accepted, in bytes. Default 16 MiB.
    pub max_line_bytes: usize,
    /// How many times a failed host is restarted. Default 10.
    pub restart_budget: u32,
    /// One host process per vector. Default off.
    pub isolate: bool,
    /// How many stderr lines a harness error carries. Default 50.
    pub stderr_lines: usize,
    /// How many stderr bytes a harness error carries at most. Default 64 KiB.
    pub stderr_bytes: usize,
    /// How long to wait for an exit or for stderr to drain. Default 1 s.
    pub exit_grace: Duration,
    /// Sees every line on the wire (`ctk run --transcript`). Default none.
    pub tap: Option<Arc<dyn WireTap>>,
}

/// `limit` from now; a limit the clock cannot represent (`--vector-timeout-ms`
/// takes any u64) is a deadline a century away instead of an overflow panic.
fn deadline_after(limit: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    let now = Instant::now();
    now.checked_add(limit.min(CENTURY)).unwrap_or(now)
}

impl StdioHostConfig {
    /// The defaults, for `program`.
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            current_dir: None,
            message_timeout: Duration::from_secs(10),
            vector_timeout: Duration::from_secs(60),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            restart_budget: 10,
            isolate: false,
            stderr_lines: 50,
            stderr_bytes: 64 * 1024,
            exit_grace: Duration::from_secs(1),
            tap: None,
        }
    }
}

/// Builds a [`StdioHost`]; every setting has a default.
#[derive(Debug, Clone)]
pub struct StdioHostBuilder {
    config: StdioHostConfig,
}

impl StdioHostBuilder {
    /// Add one argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.config.args.push(arg.into());
        self
    }

    /// Add arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.config.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Set an environment variable for the host.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.config.env.push((key.into(), value.into()));
        self
    }

    /// Run the host in `dir`.
    #[must_use]
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.current_dir = Some(dir.into());
        self
    }

    /// See [`StdioHostConfig::message_timeout`].
    #[must_use]
    pub fn message_timeout(mut self, limit: Duration) -> Self {
        self.config.message_timeout = limit;
        self
    }

    /// See [`StdioHostConfig::vector_timeout`].
    #[must_use]
    pub fn vector_timeout(mut self, limit: Duration) -> Self {
        self.config.vector_timeout = limit;
        self
    }

    /// See [`StdioHostConfig::max_line_bytes`].
    #[must_use]
    pub fn max_line_bytes(mut self, limit: usize) -> Self {
        self.config.max_line_bytes = limit;
        self
    }

    /// See [`StdioHostConfig::restart_budget`].
    #[must_use]
    pub fn restart_budget(mut self, restarts: u32) -> Self {
        self.config.restart_budget = restarts;
        self
    }

    /// See [`StdioHostConfig::isolate`].
    #[must_use]
    pub fn isolate(mut self, isolate: bool) -> Self {
        self.config.isolate = isolate;
        self
    }

    /// See [`StdioHostConfig::stderr_lines`] and
    /// [`StdioHostConfig::stderr_bytes`].
    #[must_use]
    pub fn stderr_tail(mut self, lines: usize, bytes: usize) -> Self {
        self.config.stderr_lines = lines;
        self.config.stderr_bytes = bytes;
        self
    }

    /// See [`StdioHostConfig::exit_grace`].
    #[must_use]
    pub fn exit_grace(mut self, grace: Duration) -> Self {
        self.config.exit_grace = grace;
        self
    }

    /// See [`StdioHostConfig::tap`].
    #[must_use]
    pub fn tap(mut self, tap: Arc<dyn WireTap>) -> Self {
        self.config.tap = Some(tap);
        self
    }

    /// The configuration built so far.
    pub fn config(&self) -> &StdioHostConfig {
        &self.config
    }

    /// The host adapter. No process starts until the first call.
    pub fn build(self) -> StdioHost {
        StdioHost::new(self.config)
    }
}

/// A host in another process, driven over stdin/stdout (`PROTOCOL.md`).
///
/// Dropping it kills the host, its process group and (on Linux) every process
/// it left behind; [`StdioHost::shutdown`] asks the host to exit first.
#[derive(Debug)]
pub struct StdioHost {
    config: StdioHostConfig,
    session: Option<Session>,
    /// Unplanned restarts so far.
    restarts: u32,
    /// The last host failed and the next start is a restart.
    after_failure: bool,
    /// Host failures so far.
    failures: u32,
    host_info: Option<HostInfo>,
    /// The stderr tail and error text of the last failure.
    last_failure: Option<(String, Vec<String>)>,
    vector_deadline: Option<Instant>,
    /// The phase of a call on the wire that has not returned. Still set when
    /// the next call begins, its caller dropped it (an outer timeout): its
    /// answer may yet arrive, or half of its request may have been written,
    /// so the link is unusable.
    in_flight: Option<Phase>,
    /// The interceptors of the vector set up, whose known answers `run` sends
    /// to a host that announced `known-answers`.
    interceptors: usize,
}

impl StdioHost {
    /// Start configuring a host adapter for `program`.
    pub fn builder(program: impl Into<OsString>) -> StdioHostBuilder {
        StdioHostBuilder {
            config: StdioHostConfig::new(program),
        }
    }

    /// A host adapter with `config`. No process starts until the first call.
    pub fn new(config: StdioHostConfig) -> Self {
        Self {
            config,
            session: None,
            restarts: 0,
            after_failure: false,
            failures: 0,
            host_info: None,
            last_failure: None,
            vector_deadline: None,
            in_flight: None,
            interceptors: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &StdioHostConfig {
        &self.config
    }

    /// How many times the host was restarted after a failure.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// The host process id, while one runs.
    pub fn host_pid(&self) -> Option<u32> {
        self.session.as_ref().and_then(|s| s.process.id())
    }

    /// Ask the host to exit (`shutdown`), wait up to the message timeout, then
    /// kill its process group and what it left behind. Never fails: a host
    /// that misbehaves now is killed. The next call starts a new host.
    pub async fn shutdown(&mut self) {
        self.drop_abandoned_call().await;
        if let Some(mut session) = self.session.take() {
            let deadline = self.message_deadline();
            let _ = session
                .call(methods::SHUTDOWN, &Empty {}, deadline, None)
                .await;
            session.process.close().await;
        }
    }

    fn message_deadline(&self) -> Deadline {
        Deadline {
            at: deadline_after(self.config.message_timeout),
            limit_ms: millis(self.config.message_timeout),
        }
    }

    fn vector_deadline(&self) -> Deadline {
        let at = self
            .vector_deadline
            .unwrap_or_else(|| deadline_after(self.config.vector_timeout));
        Deadline {
            at,
            limit_ms: millis(self.config.vector_timeout),
        }
    }

    /// The earlier of the message deadline and the vector deadline.
    fn setup_deadline(&self) -> Deadline {
        let m = self.message_deadline();
        let v = self.vector_deadline();
        if v.at < m.at {
            v
        } else {
            m
        }
    }

    fn budget_spent(&self) -> AdapterError {
        let (last, tail) = self.last_failure.clone().unwrap_or_default();
        AdapterError::new(
            Phase::Spawn,
            AdapterErrorKind::Spawn(format!(
                "the host failed {} times and its restart budget of {} is spent; it is not restarted again \
                 (last failure: {last})",
                self.failures, self.config.restart_budget
            )),
        )
        .with_stderr(tail)
    }

    /// Make sure a host runs and has answered the handshake.
    async fn ensure_session(&mut self) -> Result<(), AdapterError> {
        self.drop_abandoned_call().await;
        if self.session.is_some() {
            return Ok(());
        }
        if self.after_failure {
            if self.restarts >= self.config.restart_budget {
                return Err(self.budget_spent());
            }
            self.restarts += 1;
            self.after_failure = false;
        }
        let process = HostProcess::spawn(&self.config).map_err(|e| {
            let err = AdapterError::new(
                Phase::Spawn,
                AdapterErrorKind::Spawn(spawn_failure(&self.config, &e)),
            );
            self.record_failure(&err);
            err
        })?;
        self.session = Some(Session::new(process));
        let params = InitializeParams::current();
        let deadline = self.message_deadline();
        let answered: Result<InitializeResult, AdapterError> = self
            .call(
                Phase::Handshake,
                methods::INITIALIZE,
                &params,
                deadline,
                None,
            )
            .await;
        let result = match answered {
            Ok(result) => result,
            // A host that refused the handshake (an error response) is still
            // up but unusable: end it, so that the next call starts afresh.
            Err(err) if self.session.is_some() => {
                return Err(self.fail(Phase::Handshake, err.kind).await);
            }
            Err(err) => return Err(err),
        };
        if result.protocol != PROTOCOL_VERSION {
            let kind = AdapterErrorKind::Protocol(format!(
                "the host speaks {}, the runner {PROTOCOL_VERSION}",
                result.protocol
            ));
            return Err(self.fail(Phase::Handshake, kind).await);
        }
        self.host_info = Some(result.host);
        Ok(())
    }

    /// Kill the host if the previous call was dropped before it returned:
    /// the host may still answer it, or hold half a request. Counts as a
    /// failure, so the next start is a restart.
    async fn drop_abandoned_call(&mut self) {
        if let Some(phase) = self.in_flight.take() {
            let kind = AdapterErrorKind::Io(
                "the call was abandoned by its caller before the host answered".into(),
            );
            let _ = self.fail(phase, kind).await;
        }
    }

    fn record_failure(&mut self, err: &AdapterError) {
        self.failures += 1;
        self.after_failure = true;
        self.last_failure = Some((err.to_string(), err.stderr_tail.clone()));
    }

    /// Kill the host (if still running) and build the error of `phase`.
    async fn fail(&mut self, phase: Phase, kind: AdapterErrorKind) -> AdapterError {
        let tail = match self.session.take() {
            Some(mut session) => {
                session.process.terminate().await;
                session.process.stderr.tail()
            }
            None => Vec::new(),
        };
        let err = AdapterError::new(phase, kind).with_stderr(tail);
        self.record_failure(&err);
        err
    }

    async fn call<P: Serialize + ?Sized, T: DeserializeOwned>(
        &mut self,
        phase: Phase,
        method: &'static str,
        params: &P,
        deadline: Deadline,
        callbacks: Option<&Arc<dyn Callbacks>>,
    ) -> Result<T, AdapterError> {
        self.drop_abandoned_call().await;
        let Some(session) = self.session.as_mut() else {
            return Err(AdapterError::new(
                phase,
                AdapterErrorKind::Io("no host is running: the previous call on it failed".into()),
            ));
        };
        self.in_flight = Some(phase);
        let answered = session.call(method, params, deadline, callbacks).await;
        self.in_flight = None;
        match answered {
            Ok(result) => match serde_json::from_value(result) {
                Ok(typed) => Ok(typed),
                Err(e) => Err(self
                    .fail(
                        phase,
                        AdapterErrorKind::Protocol(format!("result of {method}: {e}")),
                    )
                    .await),
            },
            Err(CallError::Host(error)) => {
                let tail = session.process.stderr.tail();
                Err(
                    AdapterError::new(phase, AdapterErrorKind::Host(error.message))
                        .with_stderr(tail),
                )
            }
            Err(CallError::Fatal(kind)) => Err(self.fail(phase, kind).await),
        }
    }
}

/// Why the host could not be started, in words that say what to fix.
fn spawn_failure(config: &StdioHostConfig, e: &std::io::Error) -> String {
    let program = config.program.to_string_lossy();
    if let Some(dir) = &config.current_dir {
        if !dir.is_dir() {
            return format!(
                "its working directory {} is not a directory ({e}); check the path",
                dir.display()
            );
        }
    }
    match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "program `{program}` not found ({e}); check the host command, or give its full path"
        ),
        std::io::ErrorKind::PermissionDenied => {
            format!("program `{program}` cannot be run ({e}); is it an executable file?")
        }
        _ => format!("program `{program}`: {e}"),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl HostAdapter for StdioHost {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        if let Some(info) = &self.host_info {
            return Ok(info.clone());
        }
        self.ensure_session().await?;
        Ok(self
            .host_info
            .clone()
            .expect("a handshake stores the host info"))
    }

    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        if self.config.isolate {
            self.shutdown().await;
        }
        self.vector_deadline = Some(deadline_after(self.config.vector_timeout));
        self.ensure_session().await?;
        let deadline = self.setup_deadline();
        self.interceptors = setup.interceptors.len();
        let Empty {} = self
            .call(Phase::Setup, methods::VECTOR_SETUP, &setup, deadline, None)
            .await?;
        Ok(())
    }

    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        let deadline = self.vector_deadline();
        // Answers the runner already knows save the host a round trip each
        // (issue 30); only a host that announced the feature reads them, and
        // those of a recorded interceptor only a host that reports its
        // contexts.
        let announced = |name: &str| {
            self.host_info
                .as_ref()
                .is_some_and(|info| info.features.iter().any(|f| f == name))
        };
        let known: Vec<Option<KnownAnswers>> = if announced(KNOWN_ANSWERS) {
            let reports = announced(RECORDED_CONTEXTS);
            (0..self.interceptors)
                .map(|i| callbacks.known_answers(i).filter(|k| reports || !k.record))
                .collect()
        } else {
            Vec::new()
        };
        let params = RunParams::with_known(known.clone());
        if let Some(session) = self.session.as_mut() {
            session.known = known;
        }
        let result = self
            .call(
                Phase::Run,
                methods::VECTOR_RUN,
                &params,
                deadline,
                Some(&callbacks),
            )
            .await;
        if let Some(session) = self.session.as_mut() {
            session.known.clear();
        }
        result
    }

    async fn teardown(&mut self) -> Result<(), AdapterError> {
        self.vector_deadline = None;
        self.drop_abandoned_call().await;
        if self.session.is_none() {
            // The process that held the vector is gone, and the vector with it.
            return Ok(());
        }
        let deadline = self.message_deadline();
        let result = self
            .call(
                Phase::Teardown,
                methods::VECTOR_TEARDOWN,
                &Empty {},
                deadline,
                None,
            )
            .await;
        if self.config.isolate {
            self.shutdown().await;
        }
        result.map(|Empty {}| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::WireEvent;
    use crate::model::record::RunOutcome;
    use crate::model::setup::VectorSetup;
    use crate::{InterceptorReply, RedactorReply, ResolverReply};

    #[test]
    fn a_limit_beyond_the_clock_is_a_distant_deadline_not_a_panic() {
        let far = deadline_after(Duration::from_millis(u64::MAX));
        assert!(far > Instant::now() + Duration::from_secs(3600 * 24 * 365));
        let near = deadline_after(Duration::from_millis(50));
        assert!(near <= Instant::now() + Duration::from_millis(50));
    }

    /// A host in `sh` that answers every request, its teardowns half a
    /// second late. Given arguments, it announces the features in `$1`, and
    /// in answer to `vector/run` first writes the line in `$2` (if any).
    const SLOW_TEARDOWN_HOST: &str = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  case "$line" in
    *'"initialize"'*) result='{"protocol":"ctk-harness/1","host":{"name":"sh","version":"0","spec_versions":["agent-hooks/0.1"],"features":'"${1:-[]}"'}}' ;;
    *'"vector/run"'*) [ -n "$2" ] && printf '%s\n' "$2"; result='{"outcome":"completed","final_output":"ok"}' ;;
    *'"vector/teardown"'*) sleep 0.5; result='{}' ;;
    *) result='{}' ;;
  esac
  printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$result"
done
"#;

    #[derive(Debug)]
    struct NoCallbacks;

    impl Callbacks for NoCallbacks {
        fn intercept<'a>(
            &'a self,
            _index: usize,
            _context: &'a mut serde_json::Value,
        ) -> crate::BoxFuture<'a, InterceptorReply> {
            unreachable!("the host calls no interceptor")
        }
        fn resolve_approval<'a>(
            &'a self,
            _request: &'a serde_json::Value,
        ) -> crate::BoxFuture<'a, ResolverReply> {
            unreachable!("the host asks for no approval")
        }
        fn redact<'a>(
            &'a self,
            _context: &'a serde_json::Value,
        ) -> crate::BoxFuture<'a, RedactorReply> {
            unreachable!("the host asks for no redaction")
        }
    }

    async fn setup_and_run(host: &mut StdioHost, id: &str) -> Result<(), AdapterError> {
        let scenario = serde_json::value::RawValue::from_string("{}".into()).expect("JSON");
        host.setup(VectorSetup::new(id, "agent-hooks/0.1", scenario))
            .await?;
        let record = host.run(Arc::new(NoCallbacks)).await?;
        assert_eq!(record.outcome, RunOutcome::Completed);
        Ok(())
    }

    /// Every event a tap sees, as text.
    #[derive(Debug, Default)]
    struct Recorder(std::sync::Mutex<Vec<String>>);

    impl crate::client::WireTap for Recorder {
        fn record(&self, event: crate::client::WireEvent<'_>) {
            let text = match event {
                WireEvent::Started { .. } => "started".to_owned(),
                WireEvent::ToHost(line) => format!("> {line}"),
                WireEvent::FromHost(line) => format!("< {line}"),
                WireEvent::Unreadable(why) => format!("! {why}"),
            };
            self.0.lock().expect("lock").push(text);
        }
    }

    #[tokio::test]
    async fn a_tap_sees_every_line_in_wire_order_and_what_could_not_be_read() {
        let tap = Arc::new(Recorder::default());
        let mut host = StdioHost::builder("sh")
            .args(["-c", SLOW_TEARDOWN_HOST])
            .tap(tap.clone())
            .build();
        setup_and_run(&mut host, "seen").await.expect("runs");
        host.teardown().await.expect("teardown");
        host.shutdown().await;
        let seen = tap.0.lock().expect("lock").clone();
        let methods: Vec<&str> = seen
            .iter()
            .map(|l| {
                if l == "started" {
                    "started"
                } else if l.starts_with("> ") {
                    l.split("\"method\":\"")
                        .nth(1)
                        .map_or("?", |m| m.split('"').next().unwrap_or("?"))
                } else {
                    "answer"
                }
            })
            .collect();
        assert_eq!(
            methods,
            [
                "started",
                "initialize",
                "answer",
                "vector/setup",
                "answer",
                "vector/run",
                "answer",
                "vector/teardown",
                "answer",
                "shutdown",
                "answer"
            ],
            "{seen:#?}"
        );

        let tap = Arc::new(Recorder::default());
        let mut host = StdioHost::builder("sh")
            .args([
                "-c",
                "read -r line; head -c 100 /dev/zero | tr '\\0' x; echo",
            ])
            .max_line_bytes(10)
            .tap(tap.clone())
            .build();
        assert!(host.info().await.is_err(), "an oversized line is refused");
        let seen = tap.0.lock().expect("lock").clone();
        assert!(
            seen.last().is_some_and(|l| l.starts_with("! ")),
            "{seen:#?}"
        );
    }

    #[tokio::test]
    async fn a_call_its_caller_drops_costs_no_later_vector() {
        let mut host = StdioHost::builder("sh")
            .args(["-c", SLOW_TEARDOWN_HOST])
            .build();
        setup_and_run(&mut host, "victim")
            .await
            .expect("victim runs");
        // The runner's engine bounds each phase with its own timeout and drops
        // the call in progress; this host answers it late.
        let abandoned = tokio::time::timeout(Duration::from_millis(50), host.teardown()).await;
        assert!(abandoned.is_err(), "the slow teardown finished");
        setup_and_run(&mut host, "after")
            .await
            .expect("the vector after the abandoned call runs");
        host.teardown().await.expect("teardown");
        assert_eq!(host.restarts(), 1);
        host.shutdown().await;
    }

    /// Interceptor 0 allows everywhere and is recorded; interceptor 1
    /// denies everywhere.
    #[derive(Debug, Default)]
    struct KnownTwo(std::sync::Mutex<Vec<(usize, serde_json::Value)>>);

    impl Callbacks for KnownTwo {
        fn intercept<'a>(
            &'a self,
            index: usize,
            context: &'a mut serde_json::Value,
        ) -> crate::BoxFuture<'a, InterceptorReply> {
            NoCallbacks.intercept(index, context)
        }
        fn known_answers(&self, index: usize) -> Option<KnownAnswers> {
            let known = KnownAnswers {
                elsewhere: Some(InterceptorReply::Response(
                    serde_json::json!({"decision": if index == 0 { "allow" } else { "deny" }}),
                )),
                record: index == 0,
                ..KnownAnswers::default()
            };
            (index < 2).then_some(known)
        }
        fn record(&self, index: usize, context: Arc<serde_json::Value>) {
            self.0
                .lock()
                .expect("lock")
                .push((index, serde_json::Value::clone(&context)));
        }
        fn resolve_approval<'a>(
            &'a self,
            request: &'a serde_json::Value,
        ) -> crate::BoxFuture<'a, ResolverReply> {
            NoCallbacks.resolve_approval(request)
        }
        fn redact<'a>(
            &'a self,
            context: &'a serde_json::Value,
        ) -> crate::BoxFuture<'a, RedactorReply> {
            NoCallbacks.redact(context)
        }
    }

    /// Run one vector of two interceptors on a `SLOW_TEARDOWN_HOST`; the run's
    /// result, the `vector/run` line the host was sent, and what was recorded.
    async fn run_two(
        features: &str,
        first: &str,
    ) -> (
        Result<RunRecord, AdapterError>,
        String,
        Vec<(usize, serde_json::Value)>,
    ) {
        let tap = Arc::new(Recorder::default());
        let mut host = StdioHost::builder("sh")
            .args(["-c", SLOW_TEARDOWN_HOST, "sh", features, first])
            .tap(tap.clone())
            .build();
        let scenario = serde_json::value::RawValue::from_string("{}".into()).expect("JSON");
        let mut setup = VectorSetup::new("two", "agent-hooks/0.1", scenario);
        setup.interceptors = (0..2)
            .map(|_| crate::InterceptorBinding::everywhere())
            .collect();
        host.setup(setup).await.expect("setup");
        let callbacks = Arc::new(KnownTwo::default());
        let result = host.run(callbacks.clone()).await;
        host.shutdown().await;
        let sent = tap
            .0
            .lock()
            .expect("lock")
            .iter()
            .find(|l| l.contains("\"vector/run\""))
            .cloned()
            .unwrap_or_default();
        let recorded = callbacks.0.lock().expect("lock").clone();
        (result, sent, recorded)
    }

    #[tokio::test]
    async fn a_recorded_interceptor_is_answered_by_a_host_only_if_it_reports_contexts() {
        let (result, sent, _) = run_two(r#"["known-answers"]"#, "").await;
        result.expect("runs");
        assert!(
            sent.contains(r#""known_answers":[null,{"#) && !sent.contains("record"),
            "a host without recorded-contexts is sent no answer for interceptor 0: {sent}"
        );
        let (result, sent, _) = run_two(r#"["known-answers","recorded-contexts"]"#, "").await;
        result.expect("runs");
        assert!(
            sent.contains(r#""known_answers":[{"at":{},"elsewhere":{"outcome":"response","response":{"decision":"allow"}},"record":true},{"#),
            "{sent}"
        );
        let (result, sent, _) = run_two("[]", "").await;
        result.expect("runs");
        assert!(sent.contains(r#""params":{}"#), "{sent}");
    }

    #[tokio::test]
    async fn a_reported_context_is_recorded_only_where_the_runner_asked_for_it() {
        let both = r#"["known-answers","recorded-contexts"]"#;
        let (result, _, recorded) = run_two(
            both,
            r#"{"jsonrpc":"2.0","method":"callback/record","params":{"index":0,"context":{"interception_point":"input","n":1}}}"#,
        )
        .await;
        result.expect("runs");
        assert_eq!(
            recorded,
            [(
                0,
                serde_json::json!({"interception_point": "input", "n": 1})
            )]
        );
        for (line, names) in [
            (
                r#"{"jsonrpc":"2.0","method":"callback/record","params":{"index":1,"context":{"interception_point":"input"}}}"#,
                "interceptor 1 at `input`",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"callback/record","params":{"index":0,"context":{}}}"#,
                "interceptor 0 at no interception_point",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"callback/record","params":{"index":0}}"#,
                "params of callback/record",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"callback/other","params":{}}"#,
                "notification `callback/other` while vector/run was open; the only one",
            ),
        ] {
            let (result, _, recorded) = run_two(both, line).await;
            let err = result.expect_err(line);
            assert!(
                matches!(&err.kind, AdapterErrorKind::Protocol(text) if text.contains(names)),
                "{line}: {err}"
            );
            assert!(recorded.is_empty(), "{line}: {recorded:?}");
        }
        // Not asked: a host that did not announce the feature may not report.
        let (result, _, _) = run_two(
            r#"["known-answers"]"#,
            r#"{"jsonrpc":"2.0","method":"callback/record","params":{"index":0,"context":{"interception_point":"input"}}}"#,
        )
        .await;
        assert!(result.is_err(), "an unasked report is a protocol error");
    }
}
