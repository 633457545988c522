//! Misbehaving hosts as real processes: each fault makes its vector a
//! harness error with the right phase and kind and the host's stderr tail,
//! the next vector runs on a restarted host, and nothing reports success.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ctk_agent_hooks_adapter::client::{kill_all_hosts, StdioHost};
use ctk_agent_hooks_adapter::wire::depth::MAX_NESTING;
use ctk_agent_hooks_adapter::{
    AdapterError, AdapterErrorKind, Callbacks, HostAdapter, Phase, RunOutcome, VectorSetup,
};
use libtest_mimic::Trial;
use serde_json::value::RawValue;

use crate::hosts::{stdio_host, ScriptedCallbacks};
use crate::{async_trial, ensure};

fn setup(id: &str) -> VectorSetup {
    VectorSetup::new(
        id,
        "agent-hooks/0.1",
        RawValue::from_string("{}".into()).expect("JSON"),
    )
}

/// Run one vector; the error of the first failing call.
async fn vector(host: &mut StdioHost, id: &str) -> Result<(), AdapterError> {
    host.setup(setup(id)).await?;
    let callbacks: Arc<dyn Callbacks> = Arc::new(ScriptedCallbacks);
    let run = host.run(callbacks).await;
    let teardown = host.teardown().await;
    let record = run?;
    teardown?;
    assert_eq!(record.outcome, RunOutcome::Completed);
    Ok(())
}

/// `victim` fails as `check` expects, with `marker` in the stderr tail, and
/// the next vector passes on a restarted host.
async fn fault_case(
    host: &mut StdioHost,
    check: impl Fn(&AdapterError) -> bool,
    marker: &str,
) -> Result<AdapterError, String> {
    vector(host, "before")
        .await
        .map_err(|e| format!("the vector before the fault failed: {e}"))?;
    let err = match vector(host, "victim").await {
        Ok(()) => return Err("a faulty host reported success".into()),
        Err(e) => e,
    };
    ensure(check(&err), || format!("unexpected error {err:?}"))?;
    ensure(err.stderr_tail.iter().any(|l| l.contains(marker)), || {
        format!("stderr tail lacks {marker:?}: {:?}", err.stderr_tail)
    })?;
    vector(host, "after")
        .await
        .map_err(|e| format!("the vector after the fault failed: {e}"))?;
    ensure(host.restarts() == 1, || {
        format!("{} restarts", host.restarts())
    })?;
    host.shutdown().await;
    Ok(err)
}

fn fault_trial(
    name: &str,
    fault: &'static str,
    configure: fn(
        ctk_agent_hooks_adapter::StdioHostBuilder,
    ) -> ctk_agent_hooks_adapter::StdioHostBuilder,
    check: fn(&AdapterError) -> bool,
    marker: &'static str,
) -> Trial {
    async_trial(&format!("faults::{name}"), move || async move {
        let mut host = configure(stdio_host(fault)).build();
        let started = Instant::now();
        fault_case(&mut host, check, marker).await?;
        ensure(started.elapsed() < Duration::from_secs(30), || {
            format!("took {:?}", started.elapsed())
        })
    })
}

fn same(b: ctk_agent_hooks_adapter::StdioHostBuilder) -> ctk_agent_hooks_adapter::StdioHostBuilder {
    b
}

fn exited(e: &AdapterError, phase: Phase) -> bool {
    e.phase == phase && matches!(e.kind, AdapterErrorKind::Exited { .. })
}

/// A protocol error in `phase` whose message contains `needle`.
fn protocol(e: &AdapterError, phase: Phase, needle: &str) -> bool {
    e.phase == phase && matches!(&e.kind, AdapterErrorKind::Protocol(m) if m.contains(needle))
}

/// The environment variable naming a scenario this binary runs alone.
pub(crate) const SCENARIO_ENV: &str = "CTK_TEST_SCENARIO";

/// Run scenario `name` in this process; never returns.
pub(crate) fn run_scenario(name: &str) -> ! {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let result = match name {
        "kill_all_hosts" => rt.block_on(kill_all_hosts_scenario()),
        "exit_with_setsid_child" => rt.block_on(crate::lifecycle::exit_with_setsid_child()),
        "exit_without_drop" => rt.block_on(async {
            let mut host = stdio_host("stubborn").build();
            host.info().await.map_err(|e| e.to_string())?;
            println!("{}", host.host_pid().ok_or("no host pid")?);
            // No destructor runs: only the exit hook can kill the host.
            std::process::exit(0)
        }),
        other => Err(format!("no scenario {other}")),
    };
    if let Err(e) = &result {
        eprintln!("{e}");
    }
    std::process::exit(i32::from(result.is_err()));
}

/// Ctrl-C cleanup kills the host; the next vector restarts it.
async fn kill_all_hosts_scenario() -> Result<(), String> {
    let mut host = stdio_host("serve").build();
    host.info().await.map_err(|e| e.to_string())?;
    kill_all_hosts();
    let err = vector(&mut host, "v")
        .await
        .err()
        .ok_or("a killed host reported success")?;
    ensure(err.phase == Phase::Setup, || format!("{err:?}"))?;
    vector(&mut host, "v")
        .await
        .map_err(|e| format!("no restart after Ctrl-C cleanup: {e}"))?;
    host.shutdown().await;
    Ok(())
}

/// Whether process `pid` is gone (or a zombie), waiting up to 5 s.
fn process_ends(pid: &str) -> Result<(), String> {
    let started = Instant::now();
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or("gone");
        if matches!(state, "gone" | "Z" | "X") {
            return Ok(());
        }
        ensure(started.elapsed() < Duration::from_secs(5), || {
            format!("process {pid} survives: {state}")
        })?;
        std::thread::yield_now();
    }
}

pub(crate) fn trials() -> Vec<Trial> {
    vec![
        Trial::test("faults::hosts_die_when_the_runner_exits", || {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            let out = std::process::Command::new(exe)
                .env(SCENARIO_ENV, "exit_without_drop")
                .stderr(std::process::Stdio::inherit())
                .output()
                .map_err(|e| e.to_string())?;
            let pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            ensure(out.status.success() && !pid.is_empty(), || {
                format!("{}: {pid:?}", out.status)
            })?;
            process_ends(&pid).map_err(Into::into)
        }),
        fault_trial(
            "crash_on_setup",
            "crash_on_setup",
            same,
            |e| exited(e, Phase::Setup) && e.kind.to_string().contains("exit status: 3"),
            "crashing in setup",
        ),
        fault_trial(
            "crash_mid_run",
            "crash_mid_run",
            same,
            |e| exited(e, Phase::Run) && e.kind.to_string().contains("signal"),
            "crashing mid-run",
        ),
        fault_trial(
            "hang",
            "hang",
            |b| b.vector_timeout(Duration::from_millis(300)),
            |e| e.phase == Phase::Run && e.kind == AdapterErrorKind::Timeout { millis: 300 },
            "hanging in run",
        ),
        fault_trial(
            "garbage_line",
            "garbage",
            same,
            |e| protocol(e, Phase::Run, "not JSON"),
            "writing garbage",
        ),
        fault_trial(
            "oversized_line",
            "huge_line",
            same,
            |e| {
                e.phase == Phase::Run
                    && e.kind == AdapterErrorKind::OversizedLine { limit: 1024 * 1024 }
            },
            "64 MiB line",
        ),
        // ctk-harness/1 lines nest up to 256 levels (PROTOCOL.md §1): the
        // runner reads a callback at the bound and answers it with the
        // changed context as deep; one level more, or 100,000, is a
        // protocol error naming the bound, never a stack overflow.
        async_trial("faults::a_callback_nested_at_the_bound_is_read", || async {
            let mut host = stdio_host("deep_at_bound").build();
            vector(&mut host, "victim")
                .await
                .map_err(|e| format!("a line at the bound was refused: {e}"))?;
            host.shutdown().await;
            Ok(())
        }),
        // The runner never writes a line past the bound: a scenario one
        // level too deep for vector/setup is a harness error of the vector,
        // and the one at the bound reaches the host.
        async_trial(
            "faults::a_setup_nested_past_the_bound_is_not_sent",
            || async {
                let mut host = stdio_host("serve").build();
                // The scenario object sits in the message and its params.
                let scenario = |levels: usize| {
                    let text = format!(r#"{{"d":{}0{}}}"#, "[".repeat(levels), "]".repeat(levels));
                    ctk_agent_hooks_adapter::wire::depth::raw_value(&text).expect("JSON")
                };
                let deep = VectorSetup::new("v", "agent-hooks/0.1", scenario(MAX_NESTING - 2));
                let err = host
                    .setup(deep)
                    .await
                    .err()
                    .ok_or("a setup past the bound was sent")?;
                ensure(
                    err.phase == Phase::Setup
                        && matches!(&err.kind, AdapterErrorKind::Unsendable(m)
                        if m.contains("vector/setup") && m.contains("nested deeper than 256 levels")),
                    || format!("{err:?}"),
                )?;
                let at = VectorSetup::new("v", "agent-hooks/0.1", scenario(MAX_NESTING - 3));
                host.setup(at)
                    .await
                    .map_err(|e| format!("a setup at the bound failed: {e}"))?;
                host.teardown().await.map_err(|e| e.to_string())?;
                host.shutdown().await;
                Ok(())
            },
        ),
        fault_trial(
            "a_callback_nested_past_the_bound",
            "deep_past_bound",
            same,
            |e| protocol(e, Phase::Run, "nested deeper than 256 levels"),
            "nested 257 levels",
        ),
        fault_trial(
            "a_callback_nested_100000_levels",
            "deep_flood",
            same,
            |e| protocol(e, Phase::Run, "nested deeper than 256 levels"),
            "nested 100002 levels",
        ),
        fault_trial(
            "wrong_response_id",
            "wrong_id",
            same,
            |e| protocol(e, Phase::Setup, "id"),
            "started",
        ),
        fault_trial(
            "stderr_flood",
            "stderr_flood",
            |b| b.stderr_tail(20, 4096),
            |e| {
                exited(e, Phase::Run)
                    && e.stderr_tail.len() <= 20
                    && e.stderr_tail.iter().map(String::len).sum::<usize>() <= 4096
                    && e.stderr_tail
                        .iter()
                        .any(|l| l.contains("flood line 199999"))
            },
            "flood done",
        ),
        fault_trial(
            "exit_zero_mid_vector",
            "exit0",
            same,
            |e| exited(e, Phase::Run) && e.kind.to_string().contains("exit status: 0"),
            "exiting 0 mid-vector",
        ),
        fault_trial(
            "callback_outside_run",
            "callback_in_setup",
            same,
            |e| protocol(e, Phase::Setup, "not vector/run"),
            "calling back during setup",
        ),
        fault_trial(
            "unknown_notification",
            "notification",
            same,
            |e| protocol(e, Phase::Setup, "notification"),
            "sending a notification",
        ),
        fault_trial(
            "result_breaking_its_schema",
            "schema_violation",
            same,
            |e| protocol(e, Phase::Setup, "vector/setup"),
            "bad result",
        ),
        fault_trial(
            "callback_flood",
            "callback_flood",
            same,
            |e| protocol(e, Phase::Run, "callbacks open"),
            "flooding callbacks",
        ),
        async_trial("faults::exit_before_handshake", || async {
            let mut host = stdio_host("exit_at_start").build();
            let err = host
                .info()
                .await
                .err()
                .ok_or("a dead host reported success")?;
            ensure(
                err.phase == Phase::Handshake
                    && matches!(&err.kind, AdapterErrorKind::Exited { status } if status.contains('4')),
                || format!("{err:?}"),
            )?;
            ensure(
                err.stderr_tail
                    .iter()
                    .any(|l| l.contains("before the handshake")),
                || format!("{err:?}"),
            )
        }),
        async_trial("faults::handshake_failure", || async {
            let mut host = stdio_host("bad_handshake").restart_budget(1).build();
            let err = host
                .info()
                .await
                .err()
                .ok_or("a bad handshake reported success")?;
            ensure(protocol(&err, Phase::Handshake, "initialize"), || {
                format!("{err:?}")
            })?;
            ensure(
                err.stderr_tail
                    .iter()
                    .any(|l| l.contains("another protocol")),
                || format!("{err:?}"),
            )?;
            let err = vector(&mut host, "v")
                .await
                .err()
                .ok_or("a bad handshake reported success")?;
            ensure(err.phase == Phase::Handshake, || format!("{err:?}"))?;
            let err = vector(&mut host, "v")
                .await
                .err()
                .ok_or("a spent host reported success")?;
            ensure(err.phase == Phase::Spawn, || format!("{err:?}"))
        }),
        async_trial("faults::isolate_restarts_within_the_budget", || async {
            let mut host = stdio_host("crash_on_setup_always")
                .isolate(true)
                .restart_budget(1)
                .build();
            for expected in [Phase::Setup, Phase::Setup, Phase::Spawn, Phase::Spawn] {
                let err = vector(&mut host, "v")
                    .await
                    .err()
                    .ok_or("a crashing host reported success")?;
                ensure(err.phase == expected, || {
                    format!("expected {expected}: {err:?}")
                })?;
            }
            Ok(())
        }),
        async_trial(
            "faults::stderr_flood_does_not_block_a_good_answer",
            || async {
                let mut host = stdio_host("stderr_flood_then_answer").build();
                vector(&mut host, "victim")
                    .await
                    .map_err(|e| e.to_string())?;
                host.shutdown().await;
                Ok(())
            },
        ),
        async_trial("faults::restart_budget_then_fail_fast", || async {
            let mut host = stdio_host("crash_on_setup_always")
                .restart_budget(2)
                .build();
            for i in 0..3 {
                let err = vector(&mut host, "v")
                    .await
                    .err()
                    .ok_or("a crashing host reported success")?;
                ensure(exited(&err, Phase::Setup), || {
                    format!("vector {i}: {err:?}")
                })?;
            }
            ensure(host.restarts() == 2, || {
                format!("{} restarts", host.restarts())
            })?;
            for _ in 0..2 {
                let started = Instant::now();
                let err = vector(&mut host, "v")
                    .await
                    .err()
                    .ok_or("a spent host reported success")?;
                ensure(err.phase == Phase::Spawn, || format!("{err:?}"))?;
                ensure(
                    err.to_string().contains("restart budget of 2 is spent"),
                    || err.to_string(),
                )?;
                ensure(
                    err.stderr_tail
                        .iter()
                        .any(|l| l.contains("crashing in setup")),
                    || format!("{err:?}"),
                )?;
                ensure(host.host_pid().is_none(), || "a host was started".into())?;
                ensure(started.elapsed() < Duration::from_millis(100), || {
                    format!("slow: {:?}", started.elapsed())
                })?;
            }
            Ok(())
        }),
        async_trial("faults::spawn_failure_is_a_harness_error", || async {
            let mut host = StdioHost::builder("/nonexistent/ctk-host")
                .restart_budget(1)
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
            let err = vector(&mut host, "v")
                .await
                .err()
                .ok_or("a missing program reported success")?;
            ensure(err.phase == Phase::Spawn, || format!("{err:?}"))
        }),
        async_trial("faults::no_orphan_processes", || async {
            let mut host = stdio_host("grandchild")
                .vector_timeout(Duration::from_millis(300))
                .build();
            let err = vector(&mut host, "victim")
                .await
                .err()
                .ok_or("a hanging host reported success")?;
            let pid = err
                .stderr_tail
                .iter()
                .find_map(|l| l.strip_prefix("grandchild "))
                .ok_or_else(|| format!("no grandchild pid in {:?}", err.stderr_tail))?
                .to_owned();
            // The kernel delivers SIGKILL asynchronously; wait for the state.
            let started = Instant::now();
            loop {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                let state = stat
                    .rsplit(')')
                    .next()
                    .and_then(|r| r.split_whitespace().next())
                    .unwrap_or("gone");
                if state == "gone" || state == "Z" || state == "X" {
                    break;
                }
                ensure(started.elapsed() < Duration::from_secs(5), || {
                    format!("grandchild {pid} survives: {state}")
                })?;
                tokio::task::yield_now().await;
            }
            Ok(())
        }),
        Trial::test("faults::kill_all_hosts_on_ctrl_c", || {
            // kill_all_hosts is process-wide: run it apart from parallel trials.
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            let out = std::process::Command::new(exe)
                .env(SCENARIO_ENV, "kill_all_hosts")
                .output()
                .map_err(|e| e.to_string())?;
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            ensure(out.status.success(), || format!("{}: {stderr}", out.status)).map_err(Into::into)
        }),
    ]
}
