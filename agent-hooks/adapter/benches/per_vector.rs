//! Per-vector overhead of a persistent stdio session against the same
//! trivial host adapter linked in process: setup, run with one interceptor
//! callback, teardown. Target: at most 1 ms per vector over stdio.
//!
//! The bench binary is its own host: with `CTK_BENCH_HOST` set it serves the
//! trivial host adapter on stdin/stdout.

use std::sync::Arc;

use criterion::{criterion_group, Criterion};
use ctk_agent_hooks_adapter::{
    AdapterError, BoxFuture, Callbacks, HostAdapter, HostInfo, InterceptorBinding,
    InterceptorReply, RedactorReply, ResolverReply, RunOutcome, RunRecord, StdioHost, VectorSetup,
};
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// Calls its one interceptor and reports the reply.
#[derive(Default)]
struct Trivial {
    setup: Option<VectorSetup>,
}

impl HostAdapter for Trivial {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        Ok(HostInfo::new(
            "trivial",
            "0",
            vec!["agent-hooks/0.1".into()],
        ))
    }
    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        self.setup = Some(setup);
        Ok(())
    }
    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        let mut context = json!({"interception_point": "input", "target": {"content": "hi"}});
        let reply = callbacks.intercept(0, &mut context).await;
        let mut record = RunRecord::new(RunOutcome::Completed);
        if let InterceptorReply::Response(v) = reply {
            record.records.push(v);
        }
        Ok(record)
    }
    async fn teardown(&mut self) -> Result<(), AdapterError> {
        self.setup = None;
        Ok(())
    }
}

struct Allow;

impl Callbacks for Allow {
    fn intercept<'a>(
        &'a self,
        _index: usize,
        _context: &'a mut Value,
    ) -> BoxFuture<'a, InterceptorReply> {
        Box::pin(async { InterceptorReply::Response(json!({"decision": "allow"})) })
    }
    fn resolve_approval<'a>(&'a self, _request: &'a Value) -> BoxFuture<'a, ResolverReply> {
        Box::pin(async {
            ResolverReply::Raised {
                message: "none".into(),
            }
        })
    }
    fn redact<'a>(&'a self, _context: &'a Value) -> BoxFuture<'a, RedactorReply> {
        Box::pin(async {
            RedactorReply::Raised {
                message: "none".into(),
            }
        })
    }
}

fn setup() -> VectorSetup {
    let scenario = RawValue::from_string(r#"{"input": "hi", "model": [{"text": "hello"}]}"#.into())
        .expect("JSON");
    let mut s = VectorSetup::new("bench", "agent-hooks/0.1", scenario);
    s.interceptors = vec![InterceptorBinding::everywhere()];
    s
}

async fn one_vector<H: HostAdapter>(host: &mut H, callbacks: &Arc<dyn Callbacks>) {
    host.setup(setup()).await.expect("setup");
    let record = host.run(Arc::clone(callbacks)).await.expect("run");
    assert_eq!(record.records.len(), 1);
    host.teardown().await.expect("teardown");
}

fn per_vector(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let callbacks: Arc<dyn Callbacks> = Arc::new(Allow);
    let mut group = c.benchmark_group("per_vector");

    let mut linked = Trivial::default();
    group.bench_function("in_process", |b| {
        b.iter(|| rt.block_on(one_vector(&mut linked, &callbacks)))
    });

    let exe = std::env::current_exe().expect("bench binary path");
    let mut stdio = StdioHost::builder(exe).env("CTK_BENCH_HOST", "1").build();
    rt.block_on(stdio.info()).expect("handshake");
    group.bench_function("stdio_persistent", |b| {
        b.iter(|| rt.block_on(one_vector(&mut stdio, &callbacks)))
    });
    rt.block_on(stdio.shutdown());
    group.finish();
}

criterion_group!(benches, per_vector);

fn main() {
    if std::env::var_os("CTK_BENCH_HOST").is_some() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let served = rt.block_on(ctk_agent_hooks_adapter::serve_stdio(Trivial::default()));
        std::process::exit(i32::from(served.is_err()));
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
