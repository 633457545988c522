//! Small in-process interceptors, resolvers and redactors for emitter tests.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use ctk_agent_hooks_reference_host::compose::dispatch::{
    BoxFuture, Interceptor, InterceptorAnswer, Registration,
};
use ctk_agent_hooks_reference_host::context::build::AgentIdentity;
use ctk_agent_hooks_reference_host::point::Point;
use ctk_agent_hooks_reference_host::seam::approval::{ApprovalResolver, ResolverAnswer};
use ctk_agent_hooks_reference_host::seam::redaction::{Redactor, RedactorAnswer};
use ctk_agent_hooks_reference_host::{EmitterBuilder, SpecVersion};

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

/// What a scripted runner-side interceptor does at one interception point.
#[derive(Clone)]
pub(crate) enum Act {
    /// Answer with this value (a verdict, or anything for the gate to judge).
    Verdict(Value),
    /// Raise.
    Raise,
    /// Never answer.
    Hang,
}

/// The runner's side of a run, scripted: per interceptor a list of
/// `(point, act)` (unlisted points allow), a resolver that raises or leaves
/// the approval unresolved. Drives `ReferenceHost` through the `HostAdapter`
/// trait without the runner's engine.
pub(crate) struct Scripted {
    /// One `(point, act)` list per bound interceptor.
    pub(crate) interceptors: Vec<Vec<(&'static str, Act)>>,
    /// Whether the approval resolver raises (else it answers `unresolved`).
    pub(crate) resolver_raises: bool,
    /// Contexts interceptor 0 received.
    pub(crate) seen: std::sync::Mutex<Vec<Value>>,
}

impl Scripted {
    /// Callbacks for `interceptors`, with a resolver that never decides.
    pub(crate) fn new(interceptors: Vec<Vec<(&'static str, Act)>>) -> Arc<Self> {
        Arc::new(Scripted {
            interceptors,
            resolver_raises: false,
            seen: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// Callbacks for `interceptors` whose approval resolver raises.
    pub(crate) fn raising_resolver(interceptors: Vec<Vec<(&'static str, Act)>>) -> Arc<Self> {
        Arc::new(Scripted {
            interceptors,
            resolver_raises: true,
            seen: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// The contexts interceptor 0 has received so far.
    pub(crate) fn seen(&self) -> Vec<Value> {
        self.seen.lock().expect("lock").clone()
    }
}

impl ctk_agent_hooks_adapter::Callbacks for Scripted {
    fn intercept<'a>(
        &'a self,
        index: usize,
        context: &'a mut Value,
    ) -> ctk_agent_hooks_adapter::BoxFuture<'a, ctk_agent_hooks_adapter::InterceptorReply> {
        use ctk_agent_hooks_adapter::InterceptorReply;
        Box::pin(async move {
            if index == 0 {
                self.seen.lock().expect("lock").push(context.clone());
            }
            let act = self.interceptors.get(index).and_then(|rules| {
                rules
                    .iter()
                    .find(|(at, _)| context["interception_point"] == *at)
                    .map(|(_, act)| act.clone())
            });
            match act {
                None => InterceptorReply::Response(json!({"decision": "allow"})),
                Some(Act::Verdict(v)) => InterceptorReply::Response(v),
                Some(Act::Raise) => InterceptorReply::Raised {
                    message: "scripted raise".into(),
                },
                Some(Act::Hang) => std::future::pending().await,
            }
        })
    }

    fn resolve_approval<'a>(
        &'a self,
        request: &'a Value,
    ) -> ctk_agent_hooks_adapter::BoxFuture<'a, ctk_agent_hooks_adapter::ResolverReply> {
        use ctk_agent_hooks_adapter::ResolverReply;
        Box::pin(async move {
            if self.resolver_raises {
                return ResolverReply::Raised {
                    message: "scripted raise".into(),
                };
            }
            ResolverReply::Resolution(
                json!({"outcome": "unresolved", "context_identity": request["context_identity"]}),
            )
        })
    }

    fn redact<'a>(
        &'a self,
        context: &'a Value,
    ) -> ctk_agent_hooks_adapter::BoxFuture<'a, ctk_agent_hooks_adapter::RedactorReply> {
        Box::pin(async move { ctk_agent_hooks_adapter::RedactorReply::Redacted(context.clone()) })
    }
}

/// A scenario: the user asks, the model calls tool `tool` once with `args`,
/// then answers `done`.
pub(crate) fn one_tool_call(tool: &str, args: Value) -> Box<serde_json::value::RawValue> {
    let scenario = json!({
        "input": {"content": "please", "role": "user"},
        "tools": [{"name": tool, "behavior": [{"return": "TOOL-RESULT"}]}],
        "model_script": [
            {"respond": {"content": null, "tool_calls": [{"id": "tc-1", "name": tool, "args": args}], "finish_reason": "tool_calls"}},
            {"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}
        ]
    });
    serde_json::value::RawValue::from_string(scenario.to_string()).expect("raw scenario")
}

/// A setup of `one_tool_call` with `n` interceptors bound everywhere.
pub(crate) fn tool_setup(n: usize) -> ctk_agent_hooks_adapter::VectorSetup {
    let mut s = ctk_agent_hooks_adapter::VectorSetup::new(
        "T-TOOL",
        "agent-hooks/0.1",
        one_tool_call("http_get", json!({"url": "https://x"})),
    );
    s.interceptors = (0..n)
        .map(|_| ctk_agent_hooks_adapter::InterceptorBinding::everywhere())
        .collect();
    s
}

/// Set up, run and tear down one setup on a fresh `ReferenceHost`.
pub(crate) async fn run(
    setup: ctk_agent_hooks_adapter::VectorSetup,
    callbacks: Arc<Scripted>,
) -> ctk_agent_hooks_adapter::RunRecord {
    use ctk_agent_hooks_adapter::HostAdapter as _;
    let mut host = ctk_agent_hooks_reference_host::ReferenceHost::new();
    host.setup(setup).await.expect("setup");
    let record = host.run(callbacks).await.expect("run");
    host.teardown().await.expect("teardown");
    record
}
