//! Small in-process interceptors, resolvers and redactors for emitter tests.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use ctk_reference_host::compose::dispatch::{
    BoxFuture, Interceptor, InterceptorAnswer, Registration,
};
use ctk_reference_host::context::build::AgentIdentity;
use ctk_reference_host::point::Point;
use ctk_reference_host::seam::approval::{ApprovalResolver, ResolverAnswer};
use ctk_reference_host::seam::redaction::{Redactor, RedactorAnswer};
use ctk_reference_host::{EmitterBuilder, SpecVersion};

/// An interceptor answering with a function of its context, counting calls.
pub(crate) struct FnInterceptor<F> {
    f: F,
    pub(crate) calls: Arc<AtomicUsize>,
}

impl<F> Interceptor for FnInterceptor<F>
where
    F: Fn(Value) -> InterceptorAnswer + Send + Sync + 'static,
{
    fn intercept(&self, context: Value) -> BoxFuture<InterceptorAnswer> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let answer = (self.f)(context);
        Box::pin(async move { answer })
    }
}

impl<F> FnInterceptor<F> {
    /// An interceptor answering with `f`.
    pub(crate) fn new(f: F) -> Self {
        FnInterceptor {
            f,
            calls: Arc::new(AtomicUsize::new(0)),
        }
    }
}

/// Register an interceptor built from `f`; returns its call counter.
pub(crate) fn with_fn<F>(b: EmitterBuilder, f: F) -> (EmitterBuilder, Arc<AtomicUsize>)
where
    F: Fn(Value) -> InterceptorAnswer + Send + Sync + 'static,
{
    let calls = Arc::new(AtomicUsize::new(0));
    let i = FnInterceptor {
        f,
        calls: calls.clone(),
    };
    (b.interceptor(Registration::everywhere(Arc::new(i))), calls)
}

/// Register an interceptor that always returns `answer`.
pub(crate) fn returning(b: EmitterBuilder, answer: Value) -> EmitterBuilder {
    with_fn(b, move |_| InterceptorAnswer::Returned(answer.clone())).0
}

/// An interceptor that never answers.
pub(crate) struct Hang;

impl Interceptor for Hang {
    fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
        Box::pin(std::future::pending())
    }
}

/// A resolver answering with a function of the request.
pub(crate) struct FnResolver<F>(pub(crate) F);

impl<F> ApprovalResolver for FnResolver<F>
where
    F: Fn(&Value) -> ResolverAnswer + Send + Sync + 'static,
{
    fn resolve(&self, request: Value) -> BoxFuture<ResolverAnswer> {
        let a = (self.0)(&request);
        Box::pin(async move { a })
    }
}

/// A resolver that approves with `verdict`, echoing the request identity.
pub(crate) fn approving(verdict: Value) -> Arc<dyn ApprovalResolver> {
    Arc::new(FnResolver(move |req: &Value| {
        ResolverAnswer::Resolution(
            json!({"outcome": "approve", "context_identity": req["context_identity"], "verdict": verdict}),
        )
    }))
}

/// A redactor that always raises.
pub(crate) struct RaisingRedactor;

impl Redactor for RaisingRedactor {
    fn redact(&self, _context: Value) -> BoxFuture<RedactorAnswer> {
        Box::pin(async { RedactorAnswer::Raised })
    }
}

/// A fresh builder for a test session.
pub(crate) fn builder() -> EmitterBuilder {
    EmitterBuilder::new(
        SpecVersion::V0_1,
        AgentIdentity {
            agent_id: "agent-1".into(),
            framework: "reference".into(),
            session_id: "sess-t".into(),
        },
    )
}

/// The conditional fields of a `pre_tool_call` with `args`.
pub(crate) fn tool_fields(args: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "tool_call".into(),
        json!({"id": "tc-1", "name": "t", "args": args}),
    );
    m
}

/// The conditional fields of `point` with a trivial target.
pub(crate) fn fields_for(point: Point) -> Map<String, Value> {
    let (k, v) = match point {
        Point::AgentStartup => ("agent_init", json!({"tools_registered": ["t"]})),
        Point::Input => ("input", json!({"content": "hi", "role": "user"})),
        Point::PreToolCall => (
            "tool_call",
            json!({"id": "tc-1", "name": "t", "args": {"url": "x"}}),
        ),
        Point::Output => ("output", json!({"content": "done"})),
        Point::AgentShutdown => ("summary", json!({"reason": "completed"})),
        _ => ("output", json!({"content": "unused"})),
    };
    let mut m = Map::new();
    m.insert(k.into(), v);
    m
}
