//! Issue 14's table, side by side in one criterion run: the kit's reference
//! emitter (`ctk-reference-host`) beside the upstream Rust core (crates.io
//! `agent-hooks-sdk` 0.1.0-beta.3, feature `ctk`). It lives here, in this
//! separate workspace, so that the kit itself never depends on upstream.
//!
//! - `identity/{ours,upstream}/{1,100,1024}KiB`: the `jcs-sha256` identity of
//!   a `pre_tool_call` context whose `tool_call.args.blob` and `target.blob`
//!   each hold that many bytes (`ctk_agent_hooks_reference_host::identity::provider::jcs_sha256`
//!   against `agent_hooks::context_identity`); `identity/sha256_floor/…` is
//!   SHA-256 alone over the canonical projection bytes.
//! - `emission/{ours,upstream}/{1KiB-1i,100KiB-5i,1024KiB-10i}`: one
//!   emission of that context through that many allow-all interceptors, each
//!   emitter in its default composition and `enforce`, records drained every
//!   iteration. The context is cloned outside the timing for both.
//! - `aggregation/{ours,upstream}/strictest-1KiB-10i`: the same emission of
//!   the 1 KiB context through ten allow-all interceptors under
//!   `parallel/strictest` (`on_transform_conflict: deny`) in both emitters:
//!   every interceptor runs and the strictest verdict is taken.
//! - `runner/{ours,upstream}/51-upstream-vectors`: the 51 upstream vectors in
//!   `../shared/upstream/agent-hooks/conformance/vectors` (or
//!   `$CTK_UPSTREAM_DIR/agent-hooks/conformance/vectors`), loaded and run in
//!   process: upstream's own loop (`load_vectors`, then `run_vector` on a
//!   fresh `ReferenceHarness` per vector) beside the kit's (`ctk`'s loader,
//!   then `ctk_agent_hooks_suite::engine::run_vector` on a fresh `ReferenceHost` per vector).
//!   Each side must pass what it passes in its own test suite, so a broken
//!   loop can never look fast.
//!
//! `cargo bench --bench side_by_side` in this directory (add `-- --quick`
//! for a short run). Figures are in `reports/performance.md`.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use agent_hooks::ctk::async_trait;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use ctk_agent_hooks_adapter::HostAdapter as _;
use ctk_agent_hooks_reference_host::compose::dispatch::{
    BoxFuture, Interceptor as OurInterceptor, InterceptorAnswer, Registration,
};
use ctk_agent_hooks_reference_host::compose::profile::{Composition, Knob};
use ctk_agent_hooks_reference_host::context::build::AgentIdentity;
use ctk_agent_hooks_reference_host::identity::jcs::write_projection;
use ctk_agent_hooks_reference_host::identity::provider::jcs_sha256;
use ctk_agent_hooks_reference_host::point::Point;
use ctk_agent_hooks_reference_host::{Emitter, ReferenceHost, SpecVersion};
use ctk_agent_hooks_suite::engine::{EngineOptions, LoopOptions};
use ctk_agent_hooks_suite::vector::load::VectorSource;
use ctk_agent_hooks_suite::vector::model::SpecVersion as CtkSpec;
use ctk_core::outcome::Status;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

const SIZES_KIB: [usize; 3] = [1, 100, 1024];
const EMISSIONS: [(usize, usize); 3] = [(1, 1), (100, 5), (1024, 10)];

/// The table's context (the same JSON for both emitters).
fn context(payload: usize) -> Map<String, Value> {
    let blob = "x".repeat(payload);
    let v = json!({
        "spec": "agent-hooks/0.1",
        "interception_point": "pre_tool_call",
        "timestamp": "2026-01-01T00:00:00Z",
        "sequence": 1,
        "agent": {"id": "a", "framework": "bench"},
        "session": {"id": "s"},
        "tool_call": {"id": "tc", "name": "t", "args": {"blob": blob}},
        "target": {"blob": blob}
    });
    match v {
        Value::Object(m) => m,
        _ => unreachable!("a JSON object literal"),
    }
}

fn identity(c: &mut Criterion) {
    let mut group = c.benchmark_group("identity");
    for kib in SIZES_KIB {
        let map = context(kib * 1024);
        let ctx = Value::Object(map.clone());
        let mut canonical = Vec::new();
        write_projection(&map, Point::PreToolCall, &mut canonical);
        let ours = jcs_sha256(&ctx, SpecVersion::V0_1, false).expect("our identity");
        let theirs = agent_hooks::context_identity(&map).expect("upstream identity");
        assert_eq!(ours, theirs, "both compute the same identity");
        let size = format!("{kib}KiB");
        group.bench_with_input(BenchmarkId::new("ours", &size), &ctx, |b, ctx| {
            b.iter(|| jcs_sha256(black_box(ctx), SpecVersion::V0_1, false).expect("identity"))
        });
        group.bench_with_input(BenchmarkId::new("upstream", &size), &map, |b, map| {
            b.iter(|| agent_hooks::context_identity(black_box(map)).expect("identity"))
        });
        group.bench_with_input(
            BenchmarkId::new("sha256_floor", &size),
            &canonical,
            |b, bytes| b.iter(|| Sha256::digest(black_box(bytes))),
        );
    }
    group.finish();
}

struct OurAllow;

impl OurInterceptor for OurAllow {
    fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
    // A read-only interceptor borrows the emission's snapshot, as upstream's
    // `&AgentContext` interceptors do.
    fn intercept_shared(&self, _context: Arc<Value>) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
}

struct UpstreamAllow;

#[async_trait]
impl agent_hooks::Interceptor for UpstreamAllow {
    async fn intercept(&self, _ctx: &agent_hooks::AgentContext) -> agent_hooks::Verdict {
        agent_hooks::Verdict::allow()
    }
}

/// The emitters of one workload: `n` allow-all interceptors each, in each
/// emitter's default composition or both under `parallel/strictest`.
fn emitters(n: usize, strictest: bool) -> (Emitter, agent_hooks::InterceptionEmitter) {
    let who = AgentIdentity {
        agent_id: "a".into(),
        framework: "bench".into(),
        session_id: "s".into(),
    };
    let mut builder = Emitter::builder(SpecVersion::V0_1, who);
    if strictest {
        builder = builder.composition(Composition::Strictest {
            on_transform_conflict: Knob::Deny,
        });
    }
    for _ in 0..n {
        builder = builder.interceptor(Registration::everywhere(Arc::new(OurAllow)));
    }
    let mut upstream =
        agent_hooks::InterceptionEmitter::new(agent_hooks::EnforcementMode::Enforce, None);
    if strictest {
        upstream.set_composition(agent_hooks::CompositionConfig::strictest(
            agent_hooks::SynthesisPolicy::Deny,
        ));
    }
    for _ in 0..n {
        upstream.register(Box::new(UpstreamAllow));
    }
    (builder.build(), upstream)
}

/// Time one emission of `map` in both emitters, under `name` in `group`.
fn emit_both(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    rt: &tokio::runtime::Runtime,
    name: &str,
    map: &Map<String, Value>,
    (ours, mut upstream): (Emitter, agent_hooks::InterceptionEmitter),
) {
    let ctx = Value::Object(map.clone());
    group.bench_function(BenchmarkId::new("ours", name), |b| {
        b.iter_batched(
            || ctx.clone(),
            |ctx| {
                let out = rt.block_on(ours.emit(ctx));
                assert!(out.proceed, "an allow-all emission proceeds");
                (out, ours.take_shared_records())
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function(BenchmarkId::new("upstream", name), |b| {
        b.iter_batched(
            || map.clone(),
            |mut ctx| {
                let record = rt.block_on(upstream.emit_unchecked(&mut ctx));
                assert!(record.proceeds(), "an allow-all emission proceeds");
                (ctx, record, upstream.take_records())
            },
            BatchSize::LargeInput,
        )
    });
}

fn emission(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("emission");
    for (kib, n) in EMISSIONS {
        let name = format!("{kib}KiB-{n}i");
        emit_both(
            &mut group,
            &rt,
            &name,
            &context(kib * 1024),
            emitters(n, false),
        );
    }
    group.finish();
    let mut group = c.benchmark_group("aggregation");
    let name = "strictest-1KiB-10i";
    emit_both(&mut group, &rt, name, &context(1024), emitters(10, true));
    group.finish();
}

/// The upstream vector directory.
fn upstream_vectors() -> PathBuf {
    let root = std::env::var_os("CTK_UPSTREAM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../../shared/upstream"
            ))
        });
    let dir = root.join("agent-hooks/conformance/vectors");
    assert!(
        dir.is_dir(),
        "the upstream vectors are missing at {} (set CTK_UPSTREAM_DIR)",
        dir.display()
    );
    dir
}

/// Upstream's own loop over `dir`: (vectors that passed or were skipped, vectors).
async fn upstream_loop(dir: &std::path::Path) -> (usize, usize) {
    let vectors = agent_hooks::ctk::load_vectors(dir).expect("upstream loads its vectors");
    let mut passed = 0;
    for vector in &vectors {
        let mut harness = agent_hooks::ctk::ReferenceHarness::new();
        let result = agent_hooks::ctk::run_vector(&mut harness, vector).await;
        passed += usize::from(matches!(result.status, "pass" | "skip"));
    }
    (passed, vectors.len())
}

fn ctk_options() -> EngineOptions {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let info = rt
        .block_on(ReferenceHost::new().info())
        .expect("the reference host identifies itself");
    let document = info
        .declaration
        .expect("the reference host declares itself");
    EngineOptions {
        spec: CtkSpec::V0_1,
        surface: ctk_agent_hooks_suite::declaration::surface(&document),
        vector_timeout: Duration::from_secs(30),
        loop_options: LoopOptions {
            jobs: 1,
            fail_fast: false,
            interrupted: Arc::new(AtomicBool::new(false)),
        },
    }
}

/// The kit's loop over `dir`: (vectors that passed or were skipped, vectors).
async fn ctk_loop(dir: &std::path::Path, options: &EngineOptions) -> (usize, usize) {
    let vectors = ctk_agent_hooks_suite::vector::load::load(&VectorSource::Dir(dir.to_path_buf()))
        .expect("the kit loads the upstream vectors");
    let mut passed = 0;
    for loaded in &vectors {
        let mut host = ReferenceHost::new();
        let outcome = ctk_agent_hooks_suite::engine::run_vector(&mut host, loaded, options).await;
        passed += usize::from(matches!(outcome.status, Status::Pass | Status::Skip));
    }
    (passed, vectors.len())
}

fn runner(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = upstream_vectors();
    let options = ctk_options();
    let theirs = rt.block_on(upstream_loop(&dir));
    let ours = rt.block_on(ctk_loop(&dir, &options));
    // A loop that fails vectors would be timing something else.
    assert_eq!(
        theirs.0, theirs.1,
        "upstream's loop passes or skips every vector"
    );
    assert_eq!(
        ours.0, ours.1,
        "the kit's loop passes or skips every vector"
    );
    assert_eq!(ours.1, theirs.1, "both loops load the same vectors");
    // Upstream's `ctk-fault` provider panics by design (the crate catches
    // it); the default hook would print that on every iteration and charge
    // upstream's loop for the stderr writes. Silenced only while timing.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut group = c.benchmark_group("runner");
    group.sample_size(20);
    group.bench_function(BenchmarkId::new("ours", "51-upstream-vectors"), |b| {
        b.iter(|| rt.block_on(ctk_loop(&dir, &options)))
    });
    group.bench_function(BenchmarkId::new("upstream", "51-upstream-vectors"), |b| {
        b.iter(|| rt.block_on(upstream_loop(&dir)))
    });
    group.finish();
    std::panic::set_hook(hook);
}

criterion_group!(benches, identity, emission, runner);
criterion_main!(benches);
