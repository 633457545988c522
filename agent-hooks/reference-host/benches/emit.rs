//! The workloads of issue 14's table, for the reference emitter alone (the
//! side-by-side run against the upstream crate lives in
//! `examples/upstream-rust-sdk/benches/side_by_side.rs`, so the kit never
//! depends on upstream):
//!
//! - `identity/{1,100,1024}KiB`: the `jcs-sha256` identity (§10.2) of a
//!   `pre_tool_call` context whose `tool_call.args.blob` and `target.blob`
//!   each hold that many bytes, beside `sha256_floor/…`, SHA-256 alone over
//!   the very canonical bytes the identity hashes: the floor no identity can
//!   beat.
//! - `emission/{1KiB-1i,100KiB-5i,1024KiB-10i}`: one full emission of that
//!   context (envelope, bounds, identity, dispatch, gate, composition,
//!   record) through that many allow-all interceptors under the default
//!   composition. The context is built outside the timed routine.
//!
//! `cargo bench -p ctk-agent-hooks-reference-host --bench emit` runs it; add
//! `-- --quick` for a short run. Figures are in `reports/performance.md`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use ctk_agent_hooks_reference_host::compose::dispatch::{
    BoxFuture, Interceptor, InterceptorAnswer, Registration,
};
use ctk_agent_hooks_reference_host::context::build::AgentIdentity;
use ctk_agent_hooks_reference_host::identity::jcs::write_projection;
use ctk_agent_hooks_reference_host::identity::provider::jcs_sha256;
use ctk_agent_hooks_reference_host::point::Point;
use ctk_agent_hooks_reference_host::{Emitter, SpecVersion};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// Payload sizes of the table, in KiB.
const SIZES_KIB: [usize; 3] = [1, 100, 1024];
/// Emission workloads of the table: (payload KiB, interceptors).
const EMISSIONS: [(usize, usize); 3] = [(1, 1), (100, 5), (1024, 10)];

/// The table's context: a `pre_tool_call` whose tool arguments and target
/// each carry `payload` bytes of ASCII.
fn context(payload: usize) -> Value {
    let blob = "x".repeat(payload);
    json!({
        "spec": "agent-hooks/0.1",
        "interception_point": "pre_tool_call",
        "timestamp": "2026-01-01T00:00:00Z",
        "sequence": 1,
        "agent": {"id": "a", "framework": "bench"},
        "session": {"id": "s"},
        "tool_call": {"id": "tc", "name": "t", "args": {"blob": blob}},
        "target": {"blob": blob}
    })
}

struct AllowAll;

impl Interceptor for AllowAll {
    fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
    // A read-only interceptor borrows the emission's snapshot, as upstream's
    // `&AgentContext` interceptors do.
    fn intercept_shared(&self, _context: Arc<Value>) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
}

fn identity(c: &mut Criterion) {
    let mut group = c.benchmark_group("identity");
    for kib in SIZES_KIB {
        let ctx = context(kib * 1024);
        let mut canonical = Vec::new();
        write_projection(
            ctx.as_object().expect("an object"),
            Point::PreToolCall,
            &mut canonical,
        );
        group.bench_with_input(
            BenchmarkId::new("jcs-sha256", format!("{kib}KiB")),
            &ctx,
            |b, ctx| {
                b.iter(|| jcs_sha256(black_box(ctx), SpecVersion::V0_1, false).expect("identity"))
            },
        );
        group.bench_with_input(
            BenchmarkId::new("sha256_floor", format!("{kib}KiB")),
            &canonical,
            |b, bytes| b.iter(|| Sha256::digest(black_box(bytes))),
        );
    }
    group.finish();
}

fn emitter(interceptors: usize) -> Emitter {
    let who = AgentIdentity {
        agent_id: "a".into(),
        framework: "bench".into(),
        session_id: "s".into(),
    };
    let mut b = Emitter::builder(SpecVersion::V0_1, who);
    for _ in 0..interceptors {
        b = b.interceptor(Registration::everywhere(Arc::new(AllowAll)));
    }
    b.build()
}

fn emission(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("emission");
    for (kib, n) in EMISSIONS {
        let emitter = emitter(n);
        let ctx = context(kib * 1024);
        group.bench_function(BenchmarkId::from_parameter(format!("{kib}KiB-{n}i")), |b| {
            b.iter_batched(
                || ctx.clone(),
                |ctx| {
                    let out = rt.block_on(emitter.emit(ctx));
                    assert!(out.proceed, "an allow-all emission proceeds");
                    // Returned, so their drop falls outside the timing.
                    (out, emitter.take_shared_records())
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, identity, emission);
criterion_main!(benches);
