//! The hosts this binary becomes when re-executed: a well-behaved fake host
//! served by `serve`, and raw misbehaving hosts, one per fault.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use ctk_agent_hooks_adapter::client::StdioHost;
use ctk_agent_hooks_adapter::wire::depth::MAX_NESTING;
use ctk_agent_hooks_adapter::{
    AdapterError, AdapterErrorKind, BoxFuture, Callbacks, HostAdapter, HostInfo, InterceptorReply,
    Phase, RedactorReply, ResolverReply, RunOutcome, RunRecord, VectorSetup,
};
use serde_json::{json, Value};

/// The environment variable naming the host to become.
pub(crate) const HOST_ENV: &str = "CTK_TEST_HOST";

/// A stdio host adapter for the host named `host`, with small limits.
pub(crate) fn stdio_host(host: &str) -> ctk_agent_hooks_adapter::StdioHostBuilder {
    let exe = std::env::current_exe().expect("the test binary has a path");
    StdioHost::builder(exe)
        .env(HOST_ENV, host)
        .message_timeout(Duration::from_secs(10))
        .vector_timeout(Duration::from_secs(10))
        .max_line_bytes(1024 * 1024)
        .restart_budget(3)
        .exit_grace(Duration::from_secs(2))
}

/// Become host `host`; never returns.
pub(crate) fn run_host(host: &str) -> ! {
    if host == "serve" {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let served = rt.block_on(ctk_agent_hooks_adapter::serve_stdio(FakeHost::default()));
        if let Err(e) = &served {
            eprintln!("fake host: {e}");
        }
        std::process::exit(i32::from(served.is_err()));
    }
    raw_host(host)
}

/// A small well-behaved host that calls every callback.
#[derive(Debug, Default)]
pub(crate) struct FakeHost {
    setup: Option<VectorSetup>,
}

fn describe(reply: &InterceptorReply) -> Value {
    match reply {
        InterceptorReply::Response(v) => json!({"response": v}),
        InterceptorReply::Raised { message } => json!({"raised": message}),
        other => json!({"other": format!("{other:?}")}),
    }
}

impl HostAdapter for FakeHost {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        Ok(
            HostInfo::new("fake-host", "1.0", vec!["agent-hooks/0.1".into()])
                .with_declaration(json!({"declaration": "agent-hooks-declaration/1.0"})),
        )
    }

    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        if setup.vector_id == "refuse" {
            return Err(AdapterError::new(
                Phase::Setup,
                AdapterErrorKind::Host("this host refuses vector refuse".into()),
            ));
        }
        self.setup = Some(setup);
        Ok(())
    }

    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        let setup = self.setup.as_ref().ok_or_else(|| {
            AdapterError::new(
                Phase::Run,
                AdapterErrorKind::Host("run before setup".into()),
            )
        })?;
        let limit = Duration::from_millis(setup.interceptor_timeout_ms.unwrap_or(10_000));
        let mut record = RunRecord::new(RunOutcome::Completed);
        if setup.vector_id == "known" || setup.vector_id.starts_with("recorded") {
            // Each interceptor in turn, on a context that names its point;
            // the `recorded` vectors then ask interceptor 0 once more, at
            // another point, lending the context.
            for i in 0..setup.interceptors.len() {
                let mut ctx = json!({"interception_point": "input", "index": i});
                let reply = tokio::time::timeout(limit, callbacks.intercept(i, &mut ctx)).await;
                let reply = reply.as_ref().map_or(json!("timeout"), describe);
                record
                    .records
                    .push(json!({"index": i, "reply": reply, "context": ctx}));
            }
            if setup.vector_id.starts_with("recorded") {
                let lent = Arc::new(json!({"interception_point": "output", "index": 0}));
                let shared = callbacks.intercept_shared(0, Arc::clone(&lent)).await;
                record
                    .records
                    .push(json!({"index": 0, "reply": describe(&shared.reply), "lent": *lent}));
            }
            return Ok(record);
        }
        if setup.vector_id == "lent" {
            // One snapshot lent to every interceptor in turn, as the
            // reference host's emitter lends it; what each changed comes back.
            let snapshot = Arc::new(json!({"point": "input"}));
            for i in 0..setup.interceptors.len() {
                let lent = callbacks.intercept_shared(i, Arc::clone(&snapshot));
                let Ok(shared) = tokio::time::timeout(limit, lent).await else {
                    record.records.push(json!({"index": i, "reply": "timeout"}));
                    continue;
                };
                record.records.push(json!({
                    "index": i,
                    "reply": describe(&shared.reply),
                    "changed": shared.changed,
                }));
            }
            record.records.push(json!({"snapshot": *snapshot}));
            return Ok(record);
        }
        // Every interceptor at once: answers may come back in any order.
        let mut contexts: Vec<Value> = (0..setup.interceptors.len())
            .map(|i| json!({"point": "input", "index": i}))
            .collect();
        let replies = {
            let futures = contexts.iter_mut().enumerate().map(|(i, ctx)| {
                let callbacks = Arc::clone(&callbacks);
                Box::pin(async move {
                    tokio::time::timeout(limit, callbacks.intercept(i, ctx))
                        .await
                        .ok()
                })
            });
            join_all(futures.collect()).await
        };
        for (i, (reply, ctx)) in replies.iter().zip(&contexts).enumerate() {
            let reply = reply.as_ref().map_or(json!("timeout"), describe);
            record
                .records
                .push(json!({"index": i, "reply": reply, "context": ctx}));
        }
        if setup.redactor {
            let redacted = match callbacks.redact(&json!({"secret": "s3cret"})).await {
                RedactorReply::Redacted(v) => v,
                RedactorReply::Raised { message } => json!({"raised": message}),
                other => json!(format!("{other:?}")),
            };
            record.records.push(json!({"redacted": redacted}));
        }
        if setup.approval_resolver {
            let resolution = match callbacks
                .resolve_approval(&json!({"reason": "policy:ask"}))
                .await
            {
                ResolverReply::Resolution(v) => v,
                ResolverReply::Raised { message } => json!({"raised": message}),
                other => json!(format!("{other:?}")),
            };
            record.records.push(json!({"resolution": resolution}));
        }
        record.final_output =
            json!({"scenario_text": setup.scenario.get(), "vector_id": setup.vector_id});
        Ok(record)
    }

    async fn teardown(&mut self) -> Result<(), AdapterError> {
        self.setup = None;
        Ok(())
    }
}

/// Poll every future to completion, concurrently, in one task.
async fn join_all<F: std::future::Future + Unpin>(mut futures: Vec<F>) -> Vec<F::Output> {
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, out) in futures.iter_mut().zip(outputs.iter_mut()) {
            if out.is_none() {
                match std::pin::Pin::new(f).poll(cx) {
                    std::task::Poll::Ready(v) => *out = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs
        .into_iter()
        .map(|o| o.expect("every future finished"))
        .collect()
}

/// The runner's scripted side for loopback: interceptor 0 mutates its copy
/// and allows, 1 raises, 2 never answers, others deny.
#[derive(Debug, Default)]
pub(crate) struct ScriptedCallbacks;

impl Callbacks for ScriptedCallbacks {
    fn intercept<'a>(
        &'a self,
        index: usize,
        context: &'a mut Value,
    ) -> BoxFuture<'a, InterceptorReply> {
        Box::pin(async move {
            match index {
                0 => {
                    context["mutated_by"] = json!("interceptor-0");
                    InterceptorReply::Response(json!({"decision": "allow"}))
                }
                1 => InterceptorReply::Raised {
                    message: "scripted raise".into(),
                },
                2 => std::future::pending().await,
                _ => {
                    InterceptorReply::Response(json!({"decision": "deny", "reason": "policy:test"}))
                }
            }
        })
    }

    fn resolve_approval<'a>(&'a self, request: &'a Value) -> BoxFuture<'a, ResolverReply> {
        Box::pin(async move {
            ResolverReply::Resolution(json!({"decision": "approve", "request": request}))
        })
    }

    fn redact<'a>(&'a self, context: &'a Value) -> BoxFuture<'a, RedactorReply> {
        Box::pin(async move {
            RedactorReply::Redacted(json!({"keys": context.as_object().map_or(0, |o| o.len())}))
        })
    }
}

fn reply(out: &mut impl Write, id: &Value, result: Value) {
    let line = json!({"jsonrpc": "2.0", "id": id, "result": result});
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A host speaking the protocol by hand that misbehaves as `fault` says
/// during the vector named `victim` (every vector for `*_always` faults).
fn raw_host(fault: &str) -> ! {
    if fault == "exit_at_start" {
        eprintln!("fault host: giving up before the handshake");
        std::process::exit(4);
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let mut armed = false;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line).unwrap_or(0) == 0 {
            if fault == "stubborn" {
                // Silent: the runner may be gone, and so may its stderr pipe.
                hang();
            }
            std::process::exit(0);
        }
        let msg: Value =
            ctk_agent_hooks_adapter::wire::depth::from_str(&line).expect("the runner sends JSON");
        let id = msg["id"].clone();
        match msg["method"].as_str().unwrap_or("") {
            "initialize" if fault == "bad_handshake" => {
                eprintln!("fault host: speaking another protocol");
                reply(
                    &mut out,
                    &id,
                    json!({"protocol": "ctk-harness/2", "host": {"name": "x", "version": "0", "spec_versions": []}}),
                );
            }
            "initialize" => {
                eprintln!("fault host {fault}: started");
                reply(
                    &mut out,
                    &id,
                    json!({"protocol": "ctk-harness/1", "host": {"name": "fault-host", "version": "0", "spec_versions": ["agent-hooks/0.1"]}}),
                );
            }
            "vector/setup" => {
                armed = msg["params"]["vector_id"] == "victim" || fault.ends_with("_always");
                if armed && fault.starts_with("crash_on_setup") {
                    eprintln!("fault host: crashing in setup");
                    std::process::exit(3);
                }
                if armed && fault == "callback_in_setup" {
                    eprintln!("fault host: calling back during setup");
                    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "callback/intercept", "params": {"index": 0, "context": {}}});
                    let _ = writeln!(out, "{request}");
                    let _ = out.flush();
                    continue;
                }
                if armed && fault == "notification" {
                    eprintln!("fault host: sending a notification");
                    let _ = writeln!(
                        out,
                        "{}",
                        json!({"jsonrpc": "2.0", "method": "log", "params": {"text": "hi"}})
                    );
                    let _ = out.flush();
                    continue;
                }
                if armed && fault == "schema_violation" {
                    eprintln!("fault host: answering setup with a bad result");
                    reply(&mut out, &id, json!({"ok": true}));
                    continue;
                }
                if armed && fault == "wrong_id" {
                    let wrong = json!(id.as_i64().unwrap_or(0) + 1000);
                    reply(&mut out, &wrong, json!({}));
                    continue;
                }
                reply(&mut out, &id, json!({}));
            }
            "vector/run" if armed => misbehave(fault, &mut input, &mut out, &id),
            "vector/run" => reply(
                &mut out,
                &id,
                json!({"outcome": "completed", "final_output": "ok"}),
            ),
            "vector/teardown" => reply(&mut out, &id, json!({})),
            "shutdown" => {
                reply(&mut out, &id, json!({}));
                std::process::exit(0);
            }
            other => panic!("unexpected method {other}"),
        }
    }
}

fn hang() -> ! {
    loop {
        std::thread::park();
    }
}

fn misbehave(fault: &str, input: &mut impl BufRead, out: &mut impl Write, id: &Value) {
    match fault {
        "crash_mid_run" => {
            let request = json!({"jsonrpc": "2.0", "id": "h1", "method": "callback/intercept", "params": {"index": 0, "context": {}}});
            let _ = writeln!(out, "{request}");
            let _ = out.flush();
            let mut answer = String::new();
            let _ = input.read_line(&mut answer);
            eprintln!(
                "fault host: got {} bytes of answer, crashing mid-run",
                answer.len()
            );
            std::process::abort();
        }
        "hang" => {
            eprintln!("fault host: hanging in run");
            hang();
        }
        "garbage" => {
            eprintln!("fault host: writing garbage");
            let _ = writeln!(out, "this is not JSON {{");
            let _ = out.flush();
            hang();
        }
        "huge_line" => {
            eprintln!("fault host: writing a 64 MiB line");
            let chunk = vec![b'x'; 1024 * 1024];
            for _ in 0..64 {
                if out.write_all(&chunk).is_err() {
                    std::process::exit(9);
                }
            }
            let _ = writeln!(out);
            let _ = out.flush();
            hang();
        }
        "stderr_flood" | "stderr_flood_then_answer" => {
            let stderr = std::io::stderr();
            let mut err = stderr.lock();
            for i in 0..200_000 {
                let _ = writeln!(
                    err,
                    "flood line {i} ............................................"
                );
            }
            let _ = writeln!(err, "fault host: flood done");
            let _ = err.flush();
            if fault == "stderr_flood" {
                std::process::exit(1);
            }
            reply(
                out,
                id,
                json!({"outcome": "completed", "final_output": "flooded"}),
            );
        }
        "callback_flood" => {
            eprintln!("fault host: flooding callbacks");
            for i in 0..2000 {
                let request = json!({"jsonrpc": "2.0", "id": i, "method": "callback/intercept", "params": {"index": 2, "context": {}}});
                let _ = writeln!(out, "{request}");
            }
            let _ = out.flush();
            hang();
        }
        "deep_at_bound" | "deep_past_bound" | "deep_flood" => {
            // The context object and the objects inside it sit in the
            // message and its params: `levels` objects nest the line
            // `levels + 2` deep.
            let levels = match fault {
                "deep_at_bound" => MAX_NESTING - 2,
                "deep_past_bound" => MAX_NESTING - 1,
                _ => 100_000,
            };
            eprintln!(
                "fault host: calling back with a line nested {} levels",
                levels + 2
            );
            let context = format!("{}0{}", r#"{"n":"#.repeat(levels), "}".repeat(levels));
            let _ = writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":"h1","method":"callback/intercept","params":{{"index":0,"context":{context}}}}}"#
            );
            let _ = out.flush();
            let mut answer = String::new();
            let _ = input.read_line(&mut answer);
            let answer: Value = ctk_agent_hooks_adapter::wire::depth::from_str(&answer)
                .expect("the answer nests as deep as the request");
            let changed = &answer["result"]["context"];
            assert_eq!(changed["mutated_by"], "interceptor-0");
            assert_eq!(
                ctk_agent_hooks_adapter::wire::depth::nesting(changed),
                levels,
                "the changed copy comes back whole"
            );
            reply(
                out,
                id,
                json!({"outcome": "completed", "final_output": "deep"}),
            );
        }
        "exit0" => {
            eprintln!("fault host: exiting 0 mid-vector");
            std::process::exit(0);
        }
        "grandchild" => {
            #[expect(
                clippy::zombie_processes,
                reason = "the runner must kill it with the group"
            )]
            let child = std::process::Command::new("sleep")
                .arg("300")
                .spawn()
                .expect("sleep runs");
            eprintln!("grandchild {}", child.id());
            hang();
        }
        other => {
            let _ = id;
            panic!("unknown fault {other}");
        }
    }
}
