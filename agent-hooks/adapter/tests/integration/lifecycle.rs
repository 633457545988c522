//! Host lifecycles that real hosts get wrong, with small Python hosts: a host
//! that dies at start shows why, no process a host started outlives it (not
//! even one that left the process group with `setsid` and holds the pipes),
//! and a host that floods callbacks without reading its stdin is a protocol
//! violation, not a stalled runner.
//!
//! Every host gets a unique marker among its arguments; a forked child keeps
//! its parent's command line, so scanning `/proc/*/cmdline` for the marker
//! finds every process the host left behind.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctk_agent_hooks_adapter::client::StdioHost;
use ctk_agent_hooks_adapter::{
    AdapterError, AdapterErrorKind, Callbacks, HostAdapter, Phase, RunOutcome, StdioHostBuilder,
    VectorSetup,
};
use libtest_mimic::Trial;
use serde_json::value::RawValue;

use crate::hosts::ScriptedCallbacks;
use crate::{async_trial, ensure};

/// One Python host for every case here; `sys.argv[1]` says how it behaves,
/// `sys.argv[2]` is the marker (unused by the script, present in the command
/// line of the host and of every child it forks).
const PY_HOST: &str = r#"
import json, os, sys, time
mode = sys.argv[1]

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()

def fork_setsid_sleeper():
    pid = os.fork()
    if pid == 0:
        # Leave the host's process group and session; keep stdout and stderr.
        os.setsid()
        time.sleep(60)
        os._exit(0)
    log("forked setsid child %d" % pid)

if mode == "die_at_start":
    sys.stderr.write("boom: no such file hots.py\n")
    sys.exit(2)
if mode == "die_at_start_with_child":
    fork_setsid_sleeper()
    sys.stderr.write("boom: the host's child still holds the pipes\n")
    sys.exit(2)

while True:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    msg = json.loads(line)
    rid, method = msg.get("id"), msg.get("method")
    if method == "initialize" and mode == "refuse_handshake":
        log("refusing the handshake")
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32001, "message": "no such protocol"}})
    elif method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocol": "ctk-harness/1",
              "host": {"name": "py", "version": "0", "spec_versions": ["agent-hooks/0.1"]}}})
    elif method == "vector/run" and mode == "setsid_child":
        fork_setsid_sleeper()
        send({"jsonrpc": "2.0", "id": rid, "result": {"outcome": "completed", "final_output": "ok"}})
    elif method == "vector/run" and mode == "setsid_child_then_exit":
        fork_setsid_sleeper()
        log("exiting with the child holding stdout")
        os._exit(5)
    elif method == "vector/run" and mode == "flood":
        log("flooding callbacks, never reading stdin")
        for i in range(5000):
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "callback/intercept",
                                         "params": {"index": 3, "context": {}}}) + "\n")
        sys.stdout.flush()
        time.sleep(60)
        os._exit(0)
    elif method == "vector/run":
        send({"jsonrpc": "2.0", "id": rid, "result": {"outcome": "completed", "final_output": "ok"}})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
        sys.exit(0)
    else:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
"#;

/// A marker no other process has in its command line.
fn marker(case: &str) -> String {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "ctk-lifecycle-{case}-{}-{nanos}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// The Python host in `mode`, tagged with `marker`, with small limits.
fn py_host(mode: &str, marker: &str) -> StdioHostBuilder {
    StdioHost::builder("python3")
        .args(["-c", PY_HOST, mode, marker])
        .message_timeout(Duration::from_secs(10))
        .vector_timeout(Duration::from_secs(20))
        .restart_budget(0)
        .exit_grace(Duration::from_secs(1))
}

/// The pids of live (non-zombie) processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // A zombie's command line reads empty: it holds nothing but a pid.
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
        })
        .collect()
}

/// Wait up to 5 s for every process tagged `marker` to be gone; if any is
/// left, kill it (so that a failing test leaks nothing) and fail.
async fn none_left(marker: &str) -> Result<(), String> {
    let started = Instant::now();
    loop {
        let left = processes_with(marker);
        if left.is_empty() {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(5) {
            for pid in &left {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status();
            }
            return Err(format!("host processes outlived the host: {left:?}"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The pid of the `setsid` child the host logged.
fn forked_child(err: &AdapterError) -> Option<u32> {
    err.stderr_tail
        .iter()
        .find_map(|l| l.strip_prefix("forked setsid child ")?.trim().parse().ok())
}

/// Wait up to 5 s for process `pid` to be gone, not even a zombie.
async fn reaped(pid: u32) -> Result<(), String> {
    let started = Instant::now();
    loop {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return Ok(());
        };
        if started.elapsed() > Duration::from_secs(5) {
            return Err(format!("process {pid} was never reaped: {}", stat.trim()));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn setup(id: &str) -> VectorSetup {
    VectorSetup::new(
        id,
        "agent-hooks/0.1",
        RawValue::from_string("{}".into()).expect("JSON"),
    )
}

/// Set up and run one vector; the run's error, if any.
async fn run_vector(host: &mut StdioHost) -> Result<RunOutcome, AdapterError> {
    host.setup(setup("v")).await?;
    let callbacks: Arc<dyn Callbacks> = Arc::new(ScriptedCallbacks);
    Ok(host.run(callbacks).await?.outcome)
}

/// The environment variable carrying the marker into a scenario process.
const MARKER_ENV: &str = "CTK_TEST_MARKER";

/// Scenario `exit_with_setsid_child`: run a vector on a host that leaves a
/// `setsid` child behind, then exit without any destructor running.
pub(crate) async fn exit_with_setsid_child() -> Result<(), String> {
    let mark = std::env::var(MARKER_ENV).map_err(|e| format!("{MARKER_ENV}: {e}"))?;
    let mut host = py_host("setsid_child", &mark).build();
    let outcome = run_vector(&mut host).await.map_err(|e| e.to_string())?;
    ensure(outcome == RunOutcome::Completed, || format!("{outcome:?}"))?;
    // Only the exit hook can end the host and its child now.
    std::process::exit(0)
}

/// `python3` must be there: these tests never pass by skipping.
fn require_python() -> Result<(), String> {
    match std::process::Command::new("python3")
        .arg("--version")
        .output()
    {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!("python3 --version failed: {}", out.status)),
        Err(e) => Err(format!("these tests need python3 on PATH: {e}")),
    }
}

fn tail_has(err: &AdapterError, needle: &str) -> bool {
    err.stderr_tail.iter().any(|l| l.contains(needle))
}

pub(crate) fn trials() -> Vec<Trial> {
    vec![
        async_trial("lifecycle::a_host_dying_at_start_shows_why", || async {
            require_python()?;
            let mark = marker("die");
            let mut host = py_host("die_at_start", &mark).build();
            let err = host
                .info()
                .await
                .err()
                .ok_or("a dead host reported success")?;
            ensure(
                err.phase == Phase::Handshake
                    && matches!(&err.kind, AdapterErrorKind::Exited { status } if status.contains('2')),
                || format!("{err:?}"),
            )?;
            ensure(tail_has(&err, "boom: no such file hots.py"), || {
                format!("the stderr tail lacks the host's last words: {err:?}")
            })
        }),
        async_trial(
            "lifecycle::a_refused_handshake_is_an_error_every_time",
            || async {
                require_python()?;
                let mark = marker("refuse");
                let mut host = py_host("refuse_handshake", &mark).restart_budget(1).build();
                // The first start and one restart refuse; then the budget is spent.
                for (attempt, phase) in [Phase::Handshake, Phase::Handshake, Phase::Spawn]
                    .into_iter()
                    .enumerate()
                {
                    let err = host
                        .info()
                        .await
                        .err()
                        .ok_or("a refused handshake reported success")?;
                    ensure(err.phase == phase, || {
                        format!("attempt {attempt}: expected {phase}: {err:?}")
                    })?;
                    ensure(tail_has(&err, "refusing the handshake"), || {
                        format!(
                            "attempt {attempt}: the stderr tail lacks the host's words: {err:?}"
                        )
                    })?;
                }
                ensure(host.restarts() == 1, || {
                    format!("{} restarts", host.restarts())
                })?;
                // The refusing host is ended, not kept for the next call.
                none_left(&mark).await
            },
        ),
        async_trial(
            "lifecycle::a_missing_script_shows_pythons_message",
            || async {
                require_python()?;
                let mut host = StdioHost::builder("python3")
                    .arg("/nonexistent/ctk/hots.py")
                    .restart_budget(0)
                    .build();
                let err = host
                    .info()
                    .await
                    .err()
                    .ok_or("a missing script reported success")?;
                ensure(err.phase == Phase::Handshake, || format!("{err:?}"))?;
                ensure(tail_has(&err, "hots.py"), || {
                    format!("the stderr tail lacks python's message: {err:?}")
                })
            },
        ),
        async_trial(
            "lifecycle::a_host_dying_at_start_shows_why_while_its_child_holds_the_pipes",
            || async {
                require_python()?;
                let mark = marker("die-child");
                let mut host = py_host("die_at_start_with_child", &mark).build();
                let started = Instant::now();
                let err = host
                    .info()
                    .await
                    .err()
                    .ok_or("a dead host reported success")?;
                let took = started.elapsed();
                let checked = ensure(
                    err.phase == Phase::Handshake
                        && matches!(&err.kind, AdapterErrorKind::Exited { status } if status.contains('2')),
                    || format!("not an exit at the handshake after {took:?}: {err:?}"),
                )
                .and_then(|()| {
                    ensure(tail_has(&err, "boom: the host's child"), || {
                        format!("the stderr tail lacks the host's last words: {err:?}")
                    })
                })
                .and_then(|()| {
                    ensure(took < Duration::from_secs(5), || {
                        format!("the handshake failure took {took:?}")
                    })
                });
                let left = none_left(&mark).await;
                checked.and(left)
            },
        ),
        async_trial("lifecycle::a_missing_program_is_named", || async {
            let mut host = StdioHost::builder("ctk-no-such-host-program")
                .restart_budget(0)
                .build();
            let err = host
                .info()
                .await
                .err()
                .ok_or("a missing program reported success")?;
            ensure(
                err.phase == Phase::Spawn && matches!(err.kind, AdapterErrorKind::Spawn(_)),
                || format!("{err:?}"),
            )?;
            let text = err.to_string();
            ensure(
                text.contains("ctk-no-such-host-program") && text.contains("not found"),
                || format!("the error does not name the missing program: {text}"),
            )
        }),
        async_trial(
            "lifecycle::a_missing_working_directory_is_named",
            || async {
                let mut host = StdioHost::builder("python3")
                    .current_dir("/nonexistent/ctk-dir")
                    .restart_budget(0)
                    .build();
                let err = host
                    .info()
                    .await
                    .err()
                    .ok_or("a missing directory reported success")?;
                let text = err.to_string();
                ensure(
                    err.phase == Phase::Spawn && text.contains("/nonexistent/ctk-dir"),
                    || format!("the error does not name the missing directory: {text}"),
                )
            },
        ),
        async_trial(
            "lifecycle::a_setsid_child_dies_when_the_adapter_is_dropped",
            || async {
                require_python()?;
                let mark = marker("setsid");
                let mut host = py_host("setsid_child", &mark).build();
                let outcome = run_vector(&mut host).await.map_err(|e| e.to_string())?;
                ensure(outcome == RunOutcome::Completed, || format!("{outcome:?}"))?;
                ensure(processes_with(&mark).len() >= 2, || {
                    "the host's setsid child is not running".into()
                })?;
                drop(host);
                none_left(&mark).await
            },
        ),
        async_trial(
            "lifecycle::a_setsid_child_dies_when_the_runner_exits",
            || async {
                require_python()?;
                let mark = marker("runner-exit");
                let exe = std::env::current_exe().map_err(|e| e.to_string())?;
                let out = tokio::process::Command::new(exe)
                    .env(crate::faults::SCENARIO_ENV, "exit_with_setsid_child")
                    .env(MARKER_ENV, &mark)
                    .output();
                let out = tokio::time::timeout(Duration::from_secs(30), out)
                    .await
                    .map_err(|_| "the scenario did not exit within 30 s".to_owned())?
                    .map_err(|e| e.to_string())?;
                let checked = ensure(out.status.success(), || {
                    format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr))
                });
                let left = none_left(&mark).await;
                checked.and(left)
            },
        ),
        async_trial(
            "lifecycle::a_host_exiting_while_its_setsid_child_holds_stdout_ends_the_call",
            || async {
                require_python()?;
                let mark = marker("setsid-exit");
                let mut host = py_host("setsid_child_then_exit", &mark).build();
                let started = Instant::now();
                let err = run_vector(&mut host)
                    .await
                    .err()
                    .ok_or("a host that exited mid-run reported success")?;
                let took = started.elapsed();
                let checked = ensure(
                    err.phase == Phase::Run
                        && matches!(&err.kind, AdapterErrorKind::Exited { status } if status.contains('5')),
                    || format!("not an exit in the run after {took:?}: {err:?}"),
                )
                .and_then(|()| {
                    ensure(tail_has(&err, "exiting with the child"), || {
                        format!("the stderr tail lacks the host's last words: {err:?}")
                    })
                })
                .and_then(|()| {
                    ensure(took < Duration::from_secs(8), || {
                        format!("the exit was noticed after {took:?}")
                    })
                });
                // The host is ended: its child is gone before the adapter is,
                // reaped too (orphaned below this process, the subreaper, it
                // would otherwise stay a zombie for good).
                let left = none_left(&mark).await;
                let reaped = match forked_child(&err) {
                    Some(pid) => reaped(pid).await,
                    None => Err(format!("no child pid in {:?}", err.stderr_tail)),
                };
                drop(host);
                checked.and(left).and(reaped)
            },
        ),
        async_trial(
            "lifecycle::a_callback_flood_without_reading_stdin_is_a_protocol_violation",
            || async {
                require_python()?;
                let mark = marker("flood");
                let mut host = py_host("flood", &mark).build();
                let started = Instant::now();
                let err = run_vector(&mut host)
                    .await
                    .err()
                    .ok_or("a flooding host reported success")?;
                let took = started.elapsed();
                let checked = ensure(
                    err.phase == Phase::Run
                        && matches!(&err.kind, AdapterErrorKind::Protocol(m) if m.contains("callbacks open")),
                    || format!("not the open-callback violation after {took:?}: {err:?}"),
                )
                .and_then(|()| {
                    ensure(took < Duration::from_secs(10), || {
                        format!("the flood was noticed after {took:?}")
                    })
                })
                .and_then(|()| {
                    ensure(tail_has(&err, "flooding callbacks"), || format!("{err:?}"))
                });
                let left = none_left(&mark).await;
                drop(host);
                checked.and(left)
            },
        ),
    ]
}
