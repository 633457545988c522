//! The engine: one harness vector and an adapter command in, an
//! [`Outcome`] out. It writes the scripts, starts the loopback server,
//! expands the registration template, drives the adapter through
//! `initialize`, `harness/load` and the triggers, waits (bounded) for the
//! observations the vector expects, ends everything it started, reads what
//! each scripted backend received and judges the record.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::adapter::{
    AdapterClient, AdapterCommand, AdapterError, AdapterInfo, LoadResult, ToolCallResult,
};
use super::assert::check;
use super::clock::now_ms;
use super::http::ScriptedHttp;
use super::record::{CallRecord, HarnessRecord, ProcLife, Received};
use super::vector::{BackendBinding, HarnessVector, Launch, LoadExpect, StdioLifecycle, Trigger};
use crate::suite::{Outcome, Verdict};
use crate::vector::BindingSel;

/// The command the kit writes into registrations for its scripted stdio
/// backends: `program prefix_args... --script FILE --log FILE [-- args...]`.
#[derive(Debug, Clone)]
pub struct ScriptedCommand {
    /// Absolute path of the program (the `ctk` binary, or the test binary
    /// `ctk-ahp-scripted`).
    pub program: PathBuf,
    /// Arguments before `--script` (`["ahp-backend", "script"]` for `ctk`).
    pub prefix_args: Vec<String>,
}

/// Bounds and inputs of a harness-role run.
#[derive(Debug, Clone)]
pub struct HarnessConfig {
    /// The scripted stdio backend command.
    pub scripted: ScriptedCommand,
    /// The bearer canary handed over as the `tokenEnv` value.
    pub canary: String,
    /// A credential-like variable put in the adapter's (the harness's)
    /// environment, which must reach no payload (D-31).
    pub env_canary_name: String,
    /// Its value.
    pub env_canary: String,
    /// Bound on `initialize`, `harness/load`, `harness/session`.
    pub setup_limit: Duration,
    /// Bound on a tool call whose vector sets no `max_answer_ms`.
    pub call_limit: Duration,
    /// How long expected observations are waited for.
    pub observe_wait: Duration,
    /// Quiet time after the last trigger before the record is read.
    pub settle: Duration,
    /// Bound on a whole vector; past it everything is killed (`error`).
    pub vector_timeout: Duration,
    /// Where run folders are made (the system's temp folder by default).
    pub work_dir: Option<PathBuf>,
}

impl HarnessConfig {
    /// Defaults around a scripted backend command.
    pub fn new(scripted: ScriptedCommand) -> HarnessConfig {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        HarnessConfig {
            scripted,
            canary: format!("ctk-bearer-canary-{:x}-{n:x}", std::process::id()),
            env_canary_name: "CTK_AHP_UNRELATED_SECRET".into(),
            env_canary: format!("ctk-env-canary-{:x}-{n:x}", std::process::id()),
            setup_limit: Duration::from_secs(20),
            call_limit: Duration::from_secs(60),
            observe_wait: Duration::from_secs(5),
            settle: Duration::from_millis(300),
            vector_timeout: Duration::from_secs(180),
            work_dir: None,
        }
    }
}

enum End {
    /// Skipped, with the reason and, when the adapter lacks a feature the
    /// vector needs, the feature.
    Skip(String, Option<String>),
    Error(String, Option<HarnessRecord>),
    Done(HarnessRecord),
}

fn base_outcome(v: &HarnessVector, verdict: Verdict) -> Outcome {
    Outcome {
        id: v.id.clone(),
        title: v.title.clone(),
        advisory: v.advisory.clone(),
        requirements: v.requirements.clone(),
        covers: v.covers.clone(),
        sections: v.sections.clone(),
        verdict,
        failures: Vec::new(),
        reason: None,
        record: None,
        elapsed_ms: 0,
        adapter_feature: None,
    }
}

/// Run one harness vector against the adapter; the [`Outcome`] a report
/// needs (its `record` is `None`: see [`run_harness_vector_recorded`]).
pub async fn run_harness_vector(
    v: &HarnessVector,
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
) -> Outcome {
    run_harness_vector_releasing(v, adapter, cfg, &|| {}).await
}

/// [`run_harness_vector`] that calls `settling` once the vector has only
/// waiting left: the settle window, the adapter's close and the checks.
/// A loop running vectors side by side gives the vector's worker to the
/// next one then (`ctk_core::vector_loop::Started::release`): the wait is
/// most of a vector's time, and it needs no core.
pub async fn run_harness_vector_releasing(
    v: &HarnessVector,
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
    settling: &(dyn Fn() + Send + Sync),
) -> Outcome {
    recorded(v, adapter, cfg, settling).await.0
}

/// [`run_harness_vector`] with the harness-role run record as evidence.
pub async fn run_harness_vector_recorded(
    v: &HarnessVector,
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
) -> (Outcome, Option<HarnessRecord>) {
    recorded(v, adapter, cfg, &|| {}).await
}

async fn recorded(
    v: &HarnessVector,
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
    settling: &(dyn Fn() + Send + Sync),
) -> (Outcome, Option<HarnessRecord>) {
    let started = std::time::Instant::now();
    let run = run(v, adapter, cfg, settling);
    let end = match tokio::time::timeout(cfg.vector_timeout, run).await {
        Ok(e) => e,
        Err(_) => End::Error(
            format!(
                "vector exceeded its timeout of {} ms; the adapter and its processes were killed",
                cfg.vector_timeout.as_millis()
            ),
            None,
        ),
    };
    let (mut o, rec) = match end {
        End::Skip(why, feature) => {
            let mut o = base_outcome(v, Verdict::Skip);
            o.reason = Some(why);
            o.adapter_feature = feature;
            (o, None)
        }
        End::Error(why, rec) => {
            let mut o = base_outcome(v, Verdict::Error);
            o.reason = Some(why);
            (o, rec)
        }
        End::Done(rec) => {
            let failures = check(v, &rec, cfg);
            let mut o = base_outcome(
                v,
                if failures.is_empty() {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                },
            );
            o.failures = failures;
            (o, Some(rec))
        }
    };
    o.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    (o, rec)
}

/// Run `vectors` one after another; one outcome each, in order.
pub async fn run_harness_suite(
    vectors: &[HarnessVector],
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
) -> Vec<Outcome> {
    let mut out = Vec::with_capacity(vectors.len());
    for v in vectors {
        out.push(run_harness_vector(v, adapter, cfg).await);
    }
    out
}

/// Start the adapter, ask `initialize`, shut it down: what the harness
/// declares (name, version, bindings, lifecycles, profiles), for a
/// report's subject and claim before any vector runs.
pub async fn probe_adapter(
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
) -> Result<AdapterInfo, AdapterError> {
    let mut client = AdapterClient::spawn(adapter, &[])?;
    let info = client.initialize(cfg.setup_limit).await;
    client.close(Duration::from_secs(5)).await;
    info
}

/// [`run_harness_suite`] on a runtime of its own, for callers without one.
pub fn run_harness_suite_blocking(
    vectors: &[HarnessVector],
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
) -> std::io::Result<Vec<Outcome>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    Ok(rt.block_on(run_harness_suite(vectors, adapter, cfg)))
}

/// Replace `"{{backend:X}}"` strings by transports and `{{canary}}` inside
/// strings by the canary.
fn expand(v: &Value, transports: &BTreeMap<String, Value>, canary: &str) -> Value {
    match v {
        Value::String(s) => {
            if let Some(n) = s
                .strip_prefix("{{backend:")
                .and_then(|r| r.strip_suffix("}}"))
            {
                if let Some(t) = transports.get(n) {
                    return t.clone();
                }
            }
            Value::String(s.replace("{{canary}}", canary))
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| expand(x, transports, canary)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), expand(x, transports, canary)))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

fn refused_port() -> u16 {
    // Bind, note the port, close: nothing listens there afterwards.
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(9, |a| a.port())
}

/// What a vector's run stands on before the adapter starts: its folder,
/// the kit's backends (the loopback HTTP server, the stdio scripts and
/// their logs) and the registration that names them.
struct Stage {
    /// The run folder, removed when the stage is dropped.
    tmp: tempfile::TempDir,
    server: Option<ScriptedHttp>,
    /// Each stdio backend's log.
    logs: BTreeMap<String, PathBuf>,
    /// The registration with every `{{backend:X}}` expanded.
    registration: Value,
    /// `harness/load`'s `env`, the canary substituted.
    load_env: Map<String, Value>,
}

impl Stage {
    /// Make the folder, start the HTTP backends, write the stdio scripts
    /// and expand the registration.
    async fn new(v: &HarnessVector, cfg: &HarnessConfig) -> Result<Stage, String> {
        let tmp = match cfg.work_dir.as_deref() {
            Some(d) => tempfile::Builder::new().prefix("ctk-ahp-h-").tempdir_in(d),
            None => tempfile::Builder::new().prefix("ctk-ahp-h-").tempdir(),
        }
        .map_err(|e| format!("cannot make a run folder: {e}"))?;
        let dir = tmp.path().to_owned();
        let mut http_scripts = BTreeMap::new();
        for (name, b) in &v.backends {
            if b.binding == BackendBinding::Http && b.launch.is_none() {
                let mut s = line_script(v, &b.script);
                if b.bearer {
                    s.bearer = Some(cfg.canary.clone());
                }
                http_scripts.insert(name.clone(), s);
            }
        }
        let server = if http_scripts.is_empty() {
            None
        } else {
            Some(
                ScriptedHttp::start(http_scripts)
                    .await
                    .map_err(|e| format!("cannot start the loopback server: {e}"))?,
            )
        };
        let mut transports = BTreeMap::new();
        let mut logs: BTreeMap<String, PathBuf> = BTreeMap::new();
        for (name, b) in &v.backends {
            let t = match b.binding {
                BackendBinding::Http => {
                    let url = match (b.launch, &server) {
                        (Some(Launch::Refused), _) | (_, None) => {
                            format!("http://127.0.0.1:{}/{name}", refused_port())
                        }
                        (_, Some(s)) => s.url(name),
                    };
                    json!({"type": "http", "url": url})
                }
                BackendBinding::Stdio => {
                    let (t, log) = match stdio_transport(v, cfg, &dir, name) {
                        Ok(x) => x,
                        Err(e) => {
                            shutdown(server).await;
                            return Err(e);
                        }
                    };
                    logs.insert(name.clone(), log);
                    t
                }
            };
            transports.insert(name.clone(), t);
        }
        let registration = expand(&v.registration, &transports, &cfg.canary);
        let load_env: Map<String, Value> = v
            .load_env
            .iter()
            .map(|(k, x)| {
                (
                    k.clone(),
                    Value::String(x.replace("{{canary}}", &cfg.canary)),
                )
            })
            .collect();
        Ok(Stage {
            tmp,
            server,
            logs,
            registration,
            load_env,
        })
    }

    fn dir(&self) -> &Path {
        self.tmp.path()
    }
}

/// The stdio transport of backend `name` (the kit's scripted backend, its
/// script written into `dir`) and the path of its log.
fn stdio_transport(
    v: &HarnessVector,
    cfg: &HarnessConfig,
    dir: &Path,
    name: &str,
) -> Result<(Value, PathBuf), String> {
    let b = &v.backends[name];
    let script = dir.join(format!("{name}.script.json"));
    let log = dir.join(format!("{name}.log.jsonl"));
    let mut s = line_script(v, &b.script);
    if s.max_life_ms.is_none() {
        s.max_life_ms = Some(u64::try_from(cfg.vector_timeout.as_millis()).unwrap_or(u64::MAX));
    }
    let text = serde_json::to_string_pretty(&s).expect("a script serializes");
    std::fs::write(&script, text).map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    let mut args: Vec<String> = cfg.scripted.prefix_args.clone();
    args.extend([
        "--script".to_owned(),
        script.display().to_string(),
        "--log".to_owned(),
        log.display().to_string(),
    ]);
    if !b.args.is_empty() {
        args.push("--".into());
        args.extend(b.args.iter().cloned());
    }
    let command = if b.launch == Some(Launch::Missing) {
        dir.join("no-such-backend")
            .join("ctk-ahp-missing")
            .display()
            .to_string()
    } else {
        cfg.scripted.program.display().to_string()
    };
    let lifecycle = match b.lifecycle.unwrap_or(StdioLifecycle::Persistent) {
        StdioLifecycle::Persistent => "persistent",
        StdioLifecycle::PerEvent => "per_event",
    };
    let mut t = json!({"type": "stdio", "command": command, "args": args, "lifecycle": lifecycle});
    if b.cwd {
        let cwd = dir.join(format!("cwd-{name}"));
        let _ = std::fs::create_dir_all(&cwd);
        let cwd = cwd.canonicalize().unwrap_or(cwd);
        t["cwd"] = json!(cwd.display().to_string());
    }
    Ok((t, log))
}

/// Start the adapter, `initialize` it and have it load the registration.
/// On the way out (an error, or a vector that does not apply) the adapter
/// is closed; the caller still owns the stage's server.
async fn start_adapter(
    v: &HarnessVector,
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
    stage: &Stage,
) -> Result<(AdapterClient, AdapterInfo, LoadResult), End> {
    let env = [(
        OsString::from(&cfg.env_canary_name),
        OsString::from(&cfg.env_canary),
    )];
    let mut client =
        AdapterClient::spawn(adapter, &env).map_err(|e| End::Error(e.to_string(), None))?;
    let info = match client.initialize(cfg.setup_limit).await {
        Ok(i) => i,
        Err(e) => {
            client.close(Duration::from_secs(2)).await;
            return Err(End::Error(e.to_string(), None));
        }
    };
    if let Some((why, feature)) = not_applicable(v, &info) {
        client.close(Duration::from_secs(2)).await;
        return Err(End::Skip(why, feature));
    }
    let load = client
        .call(
            "harness/load",
            json!({"registration": stage.registration, "env": stage.load_env, "cwd": null}),
            cfg.setup_limit,
        )
        .await
        .and_then(|r| {
            serde_json::from_value::<LoadResult>(r).map_err(|e| AdapterError::Shape {
                method: "harness/load".into(),
                message: e.to_string(),
            })
        });
    match load {
        Ok(l) => Ok((client, info, l)),
        Err(e) => {
            client.close(Duration::from_secs(2)).await;
            Err(End::Error(e.to_string(), None))
        }
    }
}

/// Make every trigger's call in order, stopping at the first that fails;
/// the calls' records and, for a failure the vector does not bound, the
/// setup error it makes.
async fn perform_triggers(
    v: &HarnessVector,
    cfg: &HarnessConfig,
    client: &mut AdapterClient,
    started: tokio::time::Instant,
) -> (Vec<CallRecord>, Option<String>) {
    let mut calls = Vec::new();
    let mut setup_error = None;
    for (i, t) in v.triggers.iter().enumerate() {
        let (method, params, limit) = trigger_call(t, cfg);
        let limit = within_vector(
            t,
            limit,
            started.elapsed(),
            cfg.vector_timeout,
            after_last_call(v, cfg),
        );
        let t_sent = now_ms();
        let r = client.call(method, params, limit).await;
        let t_answered = now_ms();
        // A result outside the contract is the adapter's fault, not
        // the harness's: the vector is an error.
        let r = r.and_then(|x| {
            call_results(t, x).map_err(|message| AdapterError::Shape {
                method: method.into(),
                message,
            })
        });
        let bounded = std::iter::once(t)
            .chain(&t.parallel)
            .any(|x| x.expect.max_answer_ms.is_some());
        match r {
            Ok(results) => {
                for (part, result) in results {
                    calls.push(CallRecord {
                        trigger: i,
                        part,
                        t_sent,
                        t_answered,
                        result: Some(result),
                        error: None,
                        error_summary: None,
                    });
                }
            }
            Err(e) => {
                if !(bounded && matches!(e, AdapterError::Timeout { .. })) {
                    setup_error = Some(e.to_string());
                }
                let parts: Vec<Option<usize>> = if t.parallel.is_empty() {
                    vec![None]
                } else {
                    (0..t.parallel.len()).map(Some).collect()
                };
                for part in parts {
                    calls.push(CallRecord {
                        trigger: i,
                        part,
                        t_sent,
                        t_answered,
                        result: None,
                        error: Some(e.to_string()),
                        error_summary: Some(e.summary()),
                    });
                }
                break;
            }
        }
    }
    (calls, setup_error)
}

/// Wait, bounded, for what the vector judges after its calls: the
/// observations it expects, and the per_event processes it judges reading
/// to end of file.
async fn await_aftermath(
    v: &HarnessVector,
    cfg: &HarnessConfig,
    stage: &Stage,
    calls: &[CallRecord],
) {
    let wait_until = now_ms() + cfg.observe_wait.as_secs_f64() * 1000.0;
    while !v.expect.observed.is_empty() && now_ms() < wait_until {
        let got = collect(&stage.logs, stage.server.as_ref());
        let all = v.expect.observed.iter().all(|(b, events)| {
            events.iter().all(|e| {
                got.0.iter().any(|r| {
                    &r.backend == b
                        && r.kind == "observe"
                        && r.event()
                            .and_then(|x| x.get("type"))
                            .and_then(Value::as_str)
                            == Some(e)
                })
            })
        });
        if all {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // per_event processes of the backends whose lifecycle the vector
    // judges must have read to end of file before the kit ends them, or a
    // process the harness started late on a loaded machine would count
    // against it: wait for that, bounded (a harness that never closes
    // stdin still fails, after the bound). A moment is enough for a late
    // process to read what is already there; after a call that timed out
    // the harness is gone, and waiting would only eat the vector's time.
    let wait_until = now_ms() + cfg.observe_wait.min(Duration::from_secs(2)).as_secs_f64() * 1000.0;
    let answered = calls.iter().all(|c| c.error.is_none());
    while answered && !v.expect.per_event_one_frame.is_empty() && now_ms() < wait_until {
        let (_, procs) = collect(&stage.logs, stage.server.as_ref());
        let done = procs
            .iter()
            .filter(|p| v.expect.per_event_one_frame.contains(&p.backend))
            .all(|p| p.eof_t.is_some() || p.exit_code.is_some());
        if done {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Window each received message into the trigger whose call it followed
/// (and the part of a parallel trigger whose call id it carries); the setup
/// error of a message no call id places.
fn window(v: &HarnessVector, calls: &[CallRecord], received: &mut [Received]) -> Option<String> {
    for r in received.iter_mut() {
        r.trigger = calls
            .iter()
            .rev()
            .find(|c| c.t_sent <= r.t)
            .map(|c| c.trigger);
        r.part = r.trigger.and_then(|i| part_of(v, i, r));
    }
    // Parallel calls are told apart only by the call ids the kit handed
    // over: a request carrying another one is a gap in the adapter, not
    // evidence against the harness.
    let stray = received.iter().find(|r| {
        r.kind == "intercept"
            && r.part.is_none()
            && r.trigger
                .is_some_and(|i| !v.triggers[i].parallel.is_empty())
    })?;
    Some(format!(
        "backend {} received a hooks/intercept during the parallel calls of triggers[{}] that \
         carries none of the call ids the kit gave; the adapter must build each call's \
         tool.before with its callId (ADAPTER.md, harness/tool_calls), or the kit cannot tell \
         the calls apart",
        stray.backend,
        stray.trigger.unwrap_or_default()
    ))
}

async fn run(
    v: &HarnessVector,
    adapter: &AdapterCommand,
    cfg: &HarnessConfig,
    settling: &(dyn Fn() + Send + Sync),
) -> End {
    let started = tokio::time::Instant::now();
    let mut stage = match Stage::new(v, cfg).await {
        Ok(s) => s,
        Err(e) => return End::Error(e, None),
    };
    let (mut client, info, load) = match start_adapter(v, adapter, cfg, &stage).await {
        Ok(x) => x,
        Err(end) => {
            shutdown(stage.server.take()).await;
            return end;
        }
    };
    let mut calls = Vec::new();
    let mut setup_error = None;
    if !load.loaded && v.expect.load == LoadExpect::Loaded && v.binding == BindingSel::Http {
        setup_error = Some(format!(
            "the harness refused a registration with loopback http:// backends ({:?}); the kit \
             cannot test it over HTTP (D-07: a setup error, not a failure)",
            load.refused
        ));
    }
    if load.loaded && v.expect.load != LoadExpect::Refused {
        let (made, error) = perform_triggers(v, cfg, &mut client, started).await;
        calls = made;
        if error.is_some() {
            setup_error = error;
        }
    }
    await_aftermath(v, cfg, &stage, &calls).await;
    settling();
    tokio::time::sleep(cfg.settle).await;
    let adapter_exit = client.close(CLOSE_GRACE).await;
    let transcript = client.transcript.clone();
    let adapter_stderr = client.stderr_tail();
    kill_run_processes(stage.dir());
    let (mut received, processes) = collect(&stage.logs, stage.server.as_ref());
    shutdown(stage.server.take()).await;
    if let (None, Some(stray)) = (&setup_error, window(v, &calls, &mut received)) {
        setup_error = Some(stray);
    }
    let rec = HarnessRecord {
        adapter: info,
        registration: stage.registration,
        load,
        calls,
        received,
        processes,
        transcript,
        adapter_stderr,
        adapter_exit,
    };
    drop(stage.tmp);
    match setup_error {
        Some(e) => End::Error(e, Some(rec)),
        None => End::Done(rec),
    }
}

/// How long the adapter gets to answer `shutdown`, and then to exit.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// What the end of vector `v` may take after its last call gave up: the
/// wait for its observations, the settle pause, closing the adapter
/// (`shutdown`, then its exit, each within [`CLOSE_GRACE`]) and two seconds
/// to collect the logs.
fn after_last_call(v: &HarnessVector, cfg: &HarnessConfig) -> Duration {
    let observe = if v.expect.observed.is_empty() {
        Duration::ZERO
    } else {
        cfg.observe_wait
    };
    observe + cfg.settle + CLOSE_GRACE * 2 + Duration::from_secs(2)
}

/// A bounded trigger's call limit, shortened so that a harness that never
/// answers is judged by the trigger's own bound (a failure naming it, such
/// as a harness waiting for an observer) before the whole vector runs out
/// of time (an error that judges nothing). Never below the trigger's bound
/// plus a second: a harness answering within its bound is never cut off,
/// and where the vector's time cannot hold that, the vector timeout
/// decides as before. An unbounded call keeps its limit.
fn within_vector(
    t: &Trigger,
    limit: Duration,
    elapsed: Duration,
    vector_timeout: Duration,
    after: Duration,
) -> Duration {
    let bound = std::iter::once(t)
        .chain(&t.parallel)
        .filter_map(|x| x.expect.max_answer_ms)
        .max();
    let Some(bound) = bound else {
        return limit;
    };
    let floor = Duration::from_millis(bound) + Duration::from_secs(1);
    let room = vector_timeout.saturating_sub(elapsed).saturating_sub(after);
    limit.min(room).max(floor)
}

/// The adapter method, params and bound of trigger `t`.
fn trigger_call(t: &Trigger, cfg: &HarnessConfig) -> (&'static str, Value, Duration) {
    let limit = |x: &Trigger| {
        x.expect.max_answer_ms.map_or(cfg.call_limit, |m| {
            Duration::from_millis(m) + Duration::from_secs(15)
        })
    };
    let params = |x: &Trigger| {
        let tool = x.tool_call.as_ref().expect("linted: a tool call");
        json!({
            "tool": {"name": tool.name, "kind": tool.kind, "input": tool.input},
            "callId": x.call_id,
            "hostPermission": x.host_permission,
        })
    };
    if let Some(event) = &t.session {
        ("harness/session", json!({"event": event}), cfg.setup_limit)
    } else if t.parallel.is_empty() {
        ("harness/tool_call", params(t), limit(t))
    } else {
        (
            "harness/tool_calls",
            json!({"calls": t.parallel.iter().map(params).collect::<Vec<_>>()}),
            t.parallel.iter().map(limit).max().unwrap_or(cfg.call_limit),
        )
    }
}

/// The per-call results of trigger `t`'s answer `x`, each with its part
/// (`None` for a single call), or what breaks the contract.
fn call_results(t: &Trigger, x: Value) -> Result<Vec<(Option<usize>, Value)>, String> {
    let one = |x: &Value| {
        serde_json::from_value::<ToolCallResult>(x.clone())
            .map_err(|e| e.to_string())
            .and_then(|tc| tc.validate())
    };
    if t.session.is_some() {
        return Ok(Vec::new());
    }
    if t.parallel.is_empty() {
        one(&x)?;
        return Ok(vec![(None, x)]);
    }
    let results = x
        .get("results")
        .and_then(Value::as_array)
        .ok_or("the result has no `results` array")?;
    if results.len() != t.parallel.len() {
        return Err(format!(
            "`results` has {} entries for {} calls",
            results.len(),
            t.parallel.len()
        ));
    }
    results
        .iter()
        .enumerate()
        .map(|(j, r)| {
            one(r)
                .map(|()| (Some(j), r.clone()))
                .map_err(|e| format!("results[{j}]: {e}"))
        })
        .collect()
}

/// Which call of parallel trigger `i` message `r` belongs to: the entry
/// whose call id its event carries (0.1 `tool.callId`, the draft
/// `call.id`). `None` outside parallel triggers, and for a message that
/// names no entry's call id.
fn part_of(v: &HarnessVector, i: usize, r: &Received) -> Option<usize> {
    let t = v.triggers.get(i)?;
    if t.parallel.is_empty() {
        return None;
    }
    let ptr = if v.is_draft() {
        "/call/id"
    } else {
        "/tool/callId"
    };
    let id = r.event()?.pointer(ptr)?.as_str()?;
    t.parallel
        .iter()
        .position(|x| x.call_id.as_deref() == Some(id))
}

/// `script` as the backend runs it for `v`'s line: a scripted reply that
/// names no result answers "no effect" in the vector's own wire version
/// (the script's built-in default is the 0.1 one), so a draft vector's
/// backends speak the draft unless a vector says otherwise on purpose.
fn line_script(v: &HarnessVector, script: &super::script::Script) -> super::script::Script {
    use super::script::Action;
    let mut s = script.clone();
    if !v.is_draft() {
        return s;
    }
    let no_effect = json!({"protocolVersion": v.wire(), "effects": []});
    if s.intercept.is_empty() {
        s.intercept = vec![vec![Action::Reply {
            result: None,
            id: None,
            null_id: false,
            extra: Map::new(),
        }]];
    }
    for a in s
        .intercept
        .iter_mut()
        .flatten()
        .chain(s.by_tool.values_mut().flatten())
    {
        if let Action::Reply { result, .. } = a {
            result.get_or_insert_with(|| no_effect.clone());
        }
    }
    s
}

/// Why the vector does not run against this adapter, and the adapter
/// feature it lacks when that is why; `None`: it runs. The surface's rules
/// come first, so that only a vector the harness would otherwise run is a
/// feature skip (which refuses a claim).
fn not_applicable(
    v: &HarnessVector,
    info: &super::adapter::AdapterInfo,
) -> Option<(String, Option<String>)> {
    not_supported(v, info).map(|why| (why, None)).or_else(|| {
        let announced = info.features.iter().cloned().collect();
        ctk_ahp_adapter::features()
            .first_missing(&v.adapter_features, &announced, |_| false)
            .map(|f| (f.skip_reason(), Some(f.name.clone())))
    })
}

/// Why the harness's stated support rules the vector out (line, bindings,
/// lifecycles, profiles).
fn not_supported(v: &HarnessVector, info: &super::adapter::AdapterInfo) -> Option<String> {
    if !info.protocol_versions.iter().any(|p| p == v.wire()) {
        return Some(format!(
            "the harness does not support protocolVersion {}",
            v.wire()
        ));
    }
    let need_binding = match v.binding {
        BindingSel::Stdio => Some("stdio"),
        BindingSel::Http => Some("http"),
        BindingSel::Any => None,
    };
    for b in need_binding.into_iter().chain(
        v.backends
            .values()
            .filter(|_| v.expect.load != LoadExpect::Refused)
            .map(|b| match b.binding {
                BackendBinding::Stdio => "stdio",
                BackendBinding::Http => "http",
            }),
    ) {
        if !info.bindings.iter().any(|x| x == b) {
            return Some(format!("the harness does not support the {b} binding"));
        }
    }
    if v.expect.load != LoadExpect::Refused {
        for b in v.backends.values() {
            if let Some(l) = b.lifecycle {
                let l = match l {
                    StdioLifecycle::Persistent => "persistent",
                    StdioLifecycle::PerEvent => "per_event",
                };
                if !info.lifecycles.iter().any(|x| x == l) {
                    return Some(format!("the harness does not support the {l} lifecycle"));
                }
            }
        }
    }
    for p in &v.profiles {
        if !info.profiles.iter().any(|x| x == p) {
            return Some(format!("the harness does not claim the {p} profile"));
        }
    }
    None
}

async fn shutdown(server: Option<ScriptedHttp>) {
    if let Some(s) = server {
        s.shutdown().await;
    }
}

fn read_log(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// What every backend received so far, by time, and the processes.
fn collect(
    logs: &BTreeMap<String, PathBuf>,
    server: Option<&ScriptedHttp>,
) -> (Vec<Received>, Vec<ProcLife>) {
    let mut received = Vec::new();
    let mut procs = Vec::new();
    for (name, path) in logs {
        let lines = read_log(path);
        let mut mine: Vec<Received> = Vec::new();
        for l in &lines {
            let pid = l.get("pid").and_then(Value::as_u64);
            let t = l.get("t").and_then(Value::as_f64).unwrap_or(0.0);
            match l.get("kind").and_then(Value::as_str) {
                Some("start") => procs.push(ProcLife {
                    backend: name.clone(),
                    pid: pid.unwrap_or(0),
                    argv: strings(l.get("argv")),
                    cwd: l.get("cwd").and_then(Value::as_str).map(str::to_owned),
                    env_names: strings(l.get("env_names")),
                    frames: 0,
                    eof_t: None,
                    exit_code: None,
                }),
                Some("frame") => {
                    let json = l.get("json").filter(|j| !j.is_null()).cloned();
                    let kind = match json
                        .as_ref()
                        .and_then(|j| j.get("method"))
                        .and_then(Value::as_str)
                    {
                        Some("hooks/intercept") => "intercept",
                        Some("hooks/observe") => "observe",
                        _ => "other",
                    };
                    // A blank line is not a message: whether a harness may
                    // write one is left open (D-24), so it never counts
                    // towards "exactly one JSON-RPC message" (issue 26).
                    let blank = l
                        .get("text")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.trim().is_empty());
                    if let Some(p) = procs.iter_mut().rev().find(|p| Some(p.pid) == pid) {
                        if !blank {
                            p.frames += 1;
                        }
                    }
                    mine.push(Received {
                        backend: name.clone(),
                        binding: "stdio",
                        t,
                        pid,
                        kind: kind.into(),
                        text: l
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                        utf8: l.get("utf8").and_then(Value::as_bool).unwrap_or(false),
                        json,
                        reply_t: None,
                        plan_end_t: None,
                        http: None,
                        trigger: None,
                        part: None,
                    });
                }
                Some(k @ ("sent" | "plan_end")) => {
                    let to = l.get("to").cloned().unwrap_or(Value::Null);
                    let method = l.get("method").and_then(Value::as_str).unwrap_or("");
                    let kind = if method == "hooks/observe" {
                        "observe"
                    } else {
                        "intercept"
                    };
                    let target = mine.iter_mut().find(|r| {
                        r.pid == pid
                            && r.kind == kind
                            && r.t <= t
                            && (kind == "observe" || r.id() == Some(&to))
                            && if k == "sent" {
                                r.reply_t.is_none()
                            } else {
                                r.plan_end_t.is_none()
                            }
                    });
                    let t = l.get("t_write").and_then(Value::as_f64).unwrap_or(t);
                    if let Some(r) = target {
                        if k == "sent" {
                            r.reply_t = Some(t);
                        } else {
                            r.plan_end_t = Some(t);
                        }
                    }
                }
                Some("eof") => {
                    if let Some(p) = procs.iter_mut().rev().find(|p| Some(p.pid) == pid) {
                        p.eof_t = Some(t);
                    }
                }
                Some("exit") => {
                    if let Some(p) = procs.iter_mut().rev().find(|p| Some(p.pid) == pid) {
                        p.exit_code = l.get("code").and_then(Value::as_i64);
                    }
                    // The process ended: whatever it had not answered is
                    // answered (end of file) now.
                    for r in mine.iter_mut().filter(|r| r.pid == pid) {
                        r.reply_t.get_or_insert(t);
                        r.plan_end_t.get_or_insert(t);
                    }
                }
                _ => {}
            }
        }
        received.extend(mine);
    }
    if let Some(s) = server {
        for x in s.records() {
            received.push(Received {
                backend: x.backend.clone(),
                binding: "http",
                t: x.t,
                pid: None,
                kind: x.kind.clone(),
                text: x.body.clone(),
                utf8: x.utf8,
                json: x.json.clone(),
                reply_t: x.sent_t,
                plan_end_t: x.plan_end_t,
                http: Some(x),
                trigger: None,
                part: None,
            });
        }
    }
    received.sort_by(|a, b| a.t.total_cmp(&b.t));
    (received, procs)
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Kill every process still alive whose command line names this run's
/// folder: the scripted stdio backends, including those a harness gave a
/// process group and a clean environment of their own (out of reach of the
/// adapter's tree kill), and those that had not logged yet.
fn kill_run_processes(dir: &Path) {
    #[cfg(target_os = "linux")]
    {
        let want = dir.display().to_string();
        let me = std::process::id();
        for _ in 0..4 {
            let Ok(entries) = std::fs::read_dir("/proc") else {
                return;
            };
            let mut found = 0;
            for e in entries.flatten() {
                let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                if pid == me {
                    continue;
                }
                let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
                    continue;
                };
                if !cmdline
                    .split(|b| *b == 0)
                    .any(|a| String::from_utf8_lossy(a).contains(&want))
                {
                    continue;
                }
                if let Some(p) = i32::try_from(pid)
                    .ok()
                    .and_then(rustix::process::Pid::from_raw)
                {
                    found += 1;
                    let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
                }
            }
            if found == 0 {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trigger(max_answer_ms: Option<u64>) -> Trigger {
        let mut expect = json!({"outcome": ["executed"]});
        if let Some(m) = max_answer_ms {
            expect["max_answer_ms"] = json!(m);
        }
        serde_json::from_value(json!({
            "tool_call": {"name": "ctk_probe", "kind": "shell", "input": {}},
            "host_permission": "allow",
            "expect": expect,
        }))
        .expect("a trigger")
    }

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn a_bounded_call_gives_up_before_the_vector_does() {
        // 10 s bound, 25 s limit, 2 s gone of 30, 12 s to end: 16 s.
        let limit = within_vector(&trigger(Some(10_000)), S(25), S(2), S(30), S(12));
        assert_eq!(limit, S(16));
        assert!(S(2) + limit + S(12) <= S(30));
    }

    #[test]
    fn a_bounded_call_is_never_cut_below_its_own_bound() {
        // No room left in the vector: the bound plus a second still holds,
        // and the vector timeout decides.
        let limit = within_vector(&trigger(Some(10_000)), S(25), S(25), S(30), S(12));
        assert_eq!(limit, S(11));
    }

    #[test]
    fn a_roomy_vector_keeps_the_limit_and_an_unbounded_call_is_untouched() {
        assert_eq!(
            within_vector(&trigger(Some(10_000)), S(25), S(0), S(180), S(12)),
            S(25)
        );
        assert_eq!(
            within_vector(&trigger(None), S(60), S(20), S(30), S(12)),
            S(60)
        );
    }
}
