//! One emission through the full path (envelope, identity, dispatch, gate,
//! composition, record) under `sequential/first_deny`, with 1 and 8
//! allow-all interceptors.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ctk_reference_host::compose::dispatch::{
    BoxFuture, Interceptor, InterceptorAnswer, Registration,
};
use ctk_reference_host::context::build::AgentIdentity;
use ctk_reference_host::point::Point;
use ctk_reference_host::{Emitter, SpecVersion};
use serde_json::{json, Map, Value};

struct AllowAll;

impl Interceptor for AllowAll {
    fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
}

fn emit(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("emit_first_deny");
    for n in [1usize, 8] {
        let who = AgentIdentity {
            agent_id: "bench".into(),
            framework: "bench".into(),
            session_id: "s".into(),
        };
        let mut b = Emitter::builder(SpecVersion::V0_1, who);
        for _ in 0..n {
            b = b.interceptor(Registration::everywhere(Arc::new(AllowAll)));
        }
        let emitter = b.build();
        let mut fields = Map::new();
        fields.insert("tool_call".into(), json!({"id": "tc-1", "name": "http_get", "args": {"url": "https://example.invalid", "n": 3}}));
        let ctx = emitter.context(Point::PreToolCall, fields);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| {
            bench.iter(|| {
                let out = rt.block_on(emitter.emit(ctx.clone()));
                let _ = emitter.take_records();
                out.proceed
            });
        });
    }
    group.finish();
}

criterion_group!(benches, emit);
criterion_main!(benches);
