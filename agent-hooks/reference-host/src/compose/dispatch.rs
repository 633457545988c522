//! Calling interceptors: each is lent the one immutable snapshot of the
//! context (an interceptor that needs its own copy gets one), is called
//! inline and, only when it does not answer at once, finishes on its own
//! task; a panic stays contained either way, and it is bounded by its
//! timeout. Every failure becomes the §6.3 substituted deny.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde_json::Value;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::point::Point;
use crate::reason::ReservedReason;
use crate::spec_version::SpecVersion;
use crate::verdict::gate::gate_for;
use crate::verdict::model::Verdict;

/// A boxed, sendable future that owns everything it needs.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What an interceptor did with its copy of the context.
#[derive(Debug, Clone, PartialEq)]
pub enum InterceptorAnswer {
    /// It returned this JSON value (a verdict, an envelope, or anything else
    /// the gate must judge).
    Returned(Value),
    /// It raised.
    Raised,
}

/// A control registered with the emitter (§7): `intercept(context) -> Verdict`.
pub trait Interceptor: Send + Sync {
    /// Judge `context`, which is this interceptor's own copy: it may change
    /// it, and the host never sees the change.
    fn intercept(&self, context: Value) -> BoxFuture<InterceptorAnswer>;

    /// Judge the emission's snapshot, lent to every interceptor of the
    /// emission at once. The snapshot is immutable; the default makes this
    /// interceptor its own copy and calls [`Interceptor::intercept`], so an
    /// interceptor that writes into its context stays isolated. One that only
    /// reads implements this too and never pays for a copy.
    fn intercept_shared(&self, context: Arc<Value>) -> BoxFuture<InterceptorAnswer> {
        self.intercept(Arc::unwrap_or_clone(context))
    }
}

/// A binding's failure posture (declaration 1.1, `agent-hooks/draft` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OnError {
    /// An interceptor failure is the §6.3 deny (the only posture of 0.1).
    #[default]
    Deny,
    /// Best effort: under the draft, an interceptor failure (raise, timeout,
    /// invalid verdict) substitutes an allow carrying
    /// `host_warning:control_failed` (draft §6.3.1). An emitter for 0.1
    /// treats it as [`OnError::Deny`]: 0.1 has no failure posture.
    Continue,
}

impl OnError {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OnError::Deny => "deny",
            OnError::Continue => "continue",
        }
    }
}

/// A registration's own time limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BindingTimeout {
    /// The emitter's interceptor timeout.
    #[default]
    Inherit,
    /// No limit.
    Unbounded,
    /// This limit.
    After(Duration),
}

impl BindingTimeout {
    /// The limit in force, given the emitter's default.
    pub fn limit(self, default: Option<Duration>) -> Option<Duration> {
        match self {
            BindingTimeout::Inherit => default,
            BindingTimeout::Unbounded => None,
            BindingTimeout::After(d) => Some(d),
        }
    }
}

/// One registered interceptor with its binding.
#[derive(Clone)]
pub struct Registration {
    /// Registration name (a declaration's binding id), reported as
    /// `verdicts[].name`.
    pub name: Option<String>,
    /// Points it is bound at; `None` means every point.
    pub at: Option<Vec<Point>>,
    /// Per-binding timeout.
    pub timeout: BindingTimeout,
    /// Failure posture.
    pub on_error: OnError,
    /// The interceptor.
    pub interceptor: Arc<dyn Interceptor>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("name", &self.name)
            .field("at", &self.at)
            .field("timeout", &self.timeout)
            .field("on_error", &self.on_error)
            .finish()
    }
}

impl Registration {
    /// An anonymous interceptor bound at every point.
    pub fn everywhere(interceptor: Arc<dyn Interceptor>) -> Self {
        Registration {
            name: None,
            at: None,
            timeout: BindingTimeout::Inherit,
            on_error: OnError::Deny,
            interceptor,
        }
    }

    /// Whether it is bound at `point`.
    pub fn bound_at(&self, point: Point) -> bool {
        self.at.as_ref().is_none_or(|at| at.contains(&point))
    }
}

/// How a guarded task ended.
#[derive(Debug)]
pub enum Guarded<T> {
    /// It finished with a value.
    Done(T),
    /// It panicked.
    Panicked,
    /// It ran past its deadline and was aborted.
    TimedOut,
}

/// A call started now and awaited later, with its own deadline.
pub enum Pending<T> {
    /// It answered (or panicked) on its first poll, so no task was needed.
    Settled(Guarded<T>),
    /// It is still running, on its own task.
    Running {
        /// The task.
        handle: JoinHandle<T>,
        /// When it times out.
        deadline: Option<Instant>,
    },
}

/// Start `fut` with an optional time limit. It is polled once inline: most
/// interceptors answer at once (a scripted verdict, a deny list), and a task
/// and a timer for each would cost more than the call (issue 30: cross-worker
/// wake-ups were a quarter of an in-process run). One that waits finishes on
/// its own task, bounded by its deadline. A first poll that ends after the
/// deadline is a timeout, as a task would have been cut off there. A limit
/// whose deadline the clock cannot represent is no limit (it cannot come).
pub fn spawn_guarded<T: Send + 'static>(
    mut fut: BoxFuture<T>,
    limit: Option<Duration>,
) -> Pending<T> {
    let deadline = limit.and_then(|d| Instant::now().checked_add(d));
    // A no-op waker is enough: a future that is not ready is handed to a
    // task, whose first poll registers the task's own waker.
    let mut cx = Context::from_waker(Waker::noop());
    match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut cx))) {
        Ok(Poll::Ready(v)) => Pending::Settled(match deadline {
            Some(d) if Instant::now() > d => Guarded::TimedOut,
            _ => Guarded::Done(v),
        }),
        Ok(Poll::Pending) => Pending::Running {
            handle: tokio::spawn(fut),
            deadline,
        },
        Err(_) => Pending::Settled(Guarded::Panicked),
    }
}

impl<T> Pending<T> {
    /// Wait for the call, its panic, or its deadline.
    pub async fn wait(self) -> Guarded<T> {
        let (handle, deadline) = match self {
            Pending::Settled(g) => return g,
            Pending::Running { handle, deadline } => (handle, deadline),
        };
        let abort = handle.abort_handle();
        let joined = match deadline {
            Some(deadline) => match tokio::time::timeout_at(deadline, handle).await {
                Ok(joined) => joined,
                Err(_) => {
                    abort.abort();
                    return Guarded::TimedOut;
                }
            },
            None => handle.await,
        };
        match joined {
            Ok(v) => Guarded::Done(v),
            Err(_) => Guarded::Panicked,
        }
    }
}

/// Start one interceptor on the shared snapshot `context`.
pub fn start(
    reg: &Registration,
    context: &Arc<Value>,
    default_timeout: Option<Duration>,
) -> Pending<InterceptorAnswer> {
    spawn_guarded(
        reg.interceptor.intercept_shared(Arc::clone(context)),
        reg.timeout.limit(default_timeout),
    )
}

/// What one interceptor's call came to.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The verdict that composes: the gated verdict, the §6.3 substituted
    /// deny, or (best effort, draft) the substituted allow.
    pub verdict: Verdict,
    /// When a best-effort binding failed: the reserved reason its failure
    /// would have been denied with.
    pub substituted_for: Option<ReservedReason>,
}

/// Turn what one registration's interceptor did into the verdict that
/// composes, under `version`: the §5 gate of that version (or the §6.3
/// substituted deny), and the binding's failure posture. Under the draft a binding
/// with `on_error: continue` whose interceptor raised, timed out or answered
/// something the gate refuses gets an allow carrying
/// `host_warning:control_failed` instead of the deny, and the deny's reason
/// is kept as `substituted_for`.
pub fn judge_binding(
    reg: &Registration,
    outcome: Guarded<InterceptorAnswer>,
    version: SpecVersion,
) -> Judged {
    let (verdict, failure) = match outcome {
        Guarded::Done(InterceptorAnswer::Returned(v)) => match gate_for(&v, version) {
            Ok(v) => (v, None),
            Err(r) => (Verdict::host_deny(r), Some(r)),
        },
        Guarded::Done(InterceptorAnswer::Raised) | Guarded::Panicked => (
            Verdict::host_deny(ReservedReason::InterceptorFailed),
            Some(ReservedReason::InterceptorFailed),
        ),
        Guarded::TimedOut => (
            Verdict::host_deny(ReservedReason::InterceptorTimeout),
            Some(ReservedReason::InterceptorTimeout),
        ),
    };
    match failure {
        Some(reason) if reg.on_error == OnError::Continue && version == SpecVersion::Draft => {
            Judged {
                verdict: Verdict::control_failed(),
                substituted_for: Some(reason),
            }
        }
        _ => Judged {
            verdict,
            substituted_for: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Fixed(InterceptorAnswer);
    impl Interceptor for Fixed {
        fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
            let a = self.0.clone();
            Box::pin(async move { a })
        }
    }
    struct Never;
    impl Interceptor for Never {
        fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
            Box::pin(std::future::pending())
        }
    }
    struct Panics;
    impl Interceptor for Panics {
        fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
            Box::pin(async { panic!("interceptor bug") })
        }
    }

    async fn call(i: impl Interceptor + 'static, limit: Option<Duration>) -> Verdict {
        let reg = Registration::everywhere(Arc::new(i));
        let outcome = start(&reg, &Arc::new(json!({})), limit).wait().await;
        judge_binding(&reg, outcome, SpecVersion::V0_1).verdict
    }

    #[tokio::test]
    async fn raise_becomes_interceptor_failed() {
        let v = call(Fixed(InterceptorAnswer::Raised), None).await;
        assert_eq!(v.reason.as_deref(), Some("host_error:interceptor_failed"));
        let v = call(Panics, None).await;
        assert_eq!(v.reason.as_deref(), Some("host_error:interceptor_failed"));
    }

    #[tokio::test]
    async fn silence_becomes_interceptor_timeout() {
        let v = call(Never, Some(Duration::from_millis(5))).await;
        assert_eq!(v.reason.as_deref(), Some("host_error:interceptor_timeout"));
    }

    #[tokio::test]
    async fn a_limit_beyond_the_clock_is_no_limit() {
        // A configured timeout (a setup's `interceptor_timeout_ms` is any u64)
        // whose deadline the clock cannot represent must not panic dispatch.
        let allow = InterceptorAnswer::Returned(json!({"decision": "allow"}));
        let v = call(Fixed(allow), Some(Duration::MAX)).await;
        assert_eq!(v, Verdict::allow());
        let v = call(Fixed(InterceptorAnswer::Raised), Some(Duration::MAX)).await;
        assert_eq!(v.reason.as_deref(), Some("host_error:interceptor_failed"));
    }

    /// Answers only after yielding once, as one waiting on I/O does.
    struct Later;
    impl Interceptor for Later {
        fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
            Box::pin(async {
                tokio::task::yield_now().await;
                InterceptorAnswer::Returned(json!({"decision": "allow"}))
            })
        }
    }
    /// Answers synchronously, but only after its caller's limit.
    struct Slow(Duration);
    impl Interceptor for Slow {
        fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
            let d = self.0;
            Box::pin(async move {
                std::thread::sleep(d);
                InterceptorAnswer::Returned(json!({"decision": "allow"}))
            })
        }
    }

    #[tokio::test]
    async fn an_answer_at_once_needs_no_task_and_a_wait_gets_one() {
        let allow = InterceptorAnswer::Returned(json!({"decision": "allow"}));
        let reg = Registration::everywhere(Arc::new(Fixed(allow.clone())));
        let started = start(&reg, &Arc::new(json!({})), Some(Duration::from_secs(5)));
        assert!(matches!(&started, Pending::Settled(Guarded::Done(a)) if *a == allow));
        let reg = Registration::everywhere(Arc::new(Later));
        let started = start(&reg, &Arc::new(json!({})), Some(Duration::from_secs(5)));
        assert!(matches!(started, Pending::Running { .. }));
        assert!(matches!(started.wait().await, Guarded::Done(a) if a == allow));
        let reg = Registration::everywhere(Arc::new(Panics));
        let started = start(&reg, &Arc::new(json!({})), None);
        assert!(matches!(started, Pending::Settled(Guarded::Panicked)));
    }

    #[tokio::test]
    async fn an_inline_answer_past_the_limit_is_a_timeout() {
        // A task would have been cut off at the deadline; answering inline
        // must not turn that into a verdict.
        let v = call(
            Slow(Duration::from_millis(30)),
            Some(Duration::from_millis(5)),
        )
        .await;
        assert_eq!(v.reason.as_deref(), Some("host_error:interceptor_timeout"));
        let v = call(Slow(Duration::from_millis(1)), Some(Duration::from_secs(5))).await;
        assert_eq!(v, Verdict::allow());
    }

    #[tokio::test]
    async fn invalid_answers_become_verdict_invalid() {
        let v = call(
            Fixed(InterceptorAnswer::Returned(
                json!({"decision": "transform"}),
            )),
            None,
        )
        .await;
        assert_eq!(v.reason.as_deref(), Some("host_error:verdict_invalid"));
    }

    #[test]
    fn bindings_select_points() {
        let mut r = Registration::everywhere(Arc::new(Never));
        assert!(r.bound_at(Point::Output));
        r.at = Some(vec![Point::PreToolCall]);
        assert!(r.bound_at(Point::PreToolCall));
        assert!(!r.bound_at(Point::Output));
    }
}
