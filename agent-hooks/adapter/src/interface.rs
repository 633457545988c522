//! The two traits of the host interface: [`HostAdapter`] (runner to host) and
//! [`Callbacks`] (host to runner, while a vector runs).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::errors::AdapterError;
use crate::model::host::HostInfo;
use crate::model::record::RunRecord;
use crate::model::setup::VectorSetup;

/// A boxed, sendable future; [`Callbacks`] returns these so that it stays
/// usable as `Arc<dyn Callbacks>` from any task a host spawns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a scripted interceptor answered.
///
/// A timeout is not a variant: a timing-out interceptor simply never answers,
/// and the host's own timeout (§7, §6.3) must fire.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InterceptorReply {
    /// The interceptor returned this JSON value: a verdict, a response
    /// envelope, or (for fault vectors) anything else the §5 gate must judge.
    Response(Value),
    /// The interceptor raised; the host must substitute
    /// `deny host_error:interceptor_failed` (§6.3).
    Raised {
        /// Diagnostic text; a host must not copy it into a verdict message.
        message: String,
    },
}

/// What the scripted approval resolver answered (§9).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResolverReply {
    /// The resolver returned this JSON value as its `ApprovalResolution`; the
    /// host validates it in the §9 order.
    Resolution(Value),
    /// The resolver raised; the host must deny with
    /// `host_error:approval_resolver_failed`.
    Raised {
        /// Diagnostic text.
        message: String,
    },
}

/// What the scripted redactor answered (§9 redaction seam).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RedactorReply {
    /// The context the approver is shown.
    Redacted(Value),
    /// The redactor raised; the host must deny with
    /// `host_error:approval_resolver_failed`.
    Raised {
        /// Diagnostic text.
        message: String,
    },
}

/// What interceptor `index` answered when it was lent a shared context
/// ([`Callbacks::intercept_shared`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SharedReply {
    /// Its answer.
    pub reply: InterceptorReply,
    /// Its own copy of the context, when it changed that copy: what a host
    /// speaking `PROTOCOL.md` must write into the copy it passed. `None`
    /// when the interceptor changed nothing.
    pub changed: Option<Value>,
}

impl SharedReply {
    /// `reply`, with the interceptor's changed copy if it changed one.
    pub fn new(reply: InterceptorReply, changed: Option<Value>) -> Self {
        Self { reply, changed }
    }
}

/// What one interceptor answers whatever the context it is handed, known
/// before the run: the stdio client sends it in `vector/run` to a host that
/// announced the `known-answers` adapter feature, which then answers those
/// calls itself instead of calling back (PROTOCOL.md §2.2).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct KnownAnswers {
    /// By interception point: the answer there, or `None` where the
    /// interceptor must be called back (its answer depends on the context,
    /// or it never answers).
    pub at: BTreeMap<String, Option<InterceptorReply>>,
    /// The answer at every point `at` does not name; `None`: called back.
    pub elsewhere: Option<InterceptorReply>,
    /// The callbacks record the contexts this interceptor is handed: a host
    /// that answers it itself reports each such context with a
    /// `callback/record` notification, which reaches
    /// [`Callbacks::record`]. Sent only to a host that announced the
    /// `recorded-contexts` feature; for any other host the stdio client
    /// sends no known answers for this interceptor, which is then always
    /// called back.
    pub record: bool,
}

impl KnownAnswers {
    /// The answer at `point`, if it is known.
    pub fn answer(&self, point: &str) -> Option<&InterceptorReply> {
        match self.at.get(point) {
            Some(known) => known.as_ref(),
            None => self.elsewhere.as_ref(),
        }
    }
}

/// The runner's side of a running vector, called by the host.
///
/// Interceptor `index` refers to [`VectorSetup::interceptors`]. Every method
/// may be called concurrently (parallel profiles, parallel tool calls).
pub trait Callbacks: Send + Sync {
    /// Ask interceptor `index` for its verdict on `context`.
    ///
    /// The context is the interceptor's own copy: a `mutate` fault writes into
    /// it, exactly as an in-process interceptor would mutate what it was
    /// handed, so a host that shares its live context with interceptors is
    /// caught (§7 isolation).
    fn intercept<'a>(
        &'a self,
        index: usize,
        context: &'a mut Value,
    ) -> BoxFuture<'a, InterceptorReply>;

    /// Ask interceptor `index` for its verdict on `context`, lent shared and
    /// never written: the interceptor's own copy is made only if it changes
    /// it, and comes back as [`SharedReply::changed`].
    ///
    /// A host that hands every interceptor of an emission one immutable
    /// snapshot calls this and pays for no copy of a context its interceptors
    /// only read. The default makes the copy, calls [`Callbacks::intercept`]
    /// and compares; the runner's scripted callbacks override it and copy
    /// only for a `mutate` fault.
    fn intercept_shared(&self, index: usize, context: Arc<Value>) -> BoxFuture<'_, SharedReply> {
        Box::pin(async move {
            let mut own = Value::clone(&context);
            let reply = self.intercept(index, &mut own).await;
            let changed = (own != *context).then_some(own);
            SharedReply::new(reply, changed)
        })
    }

    /// What interceptor `index` answers whatever the context, where that is
    /// known before the run; `None` (the default) when nothing is. A host
    /// that uses these answers never calls back for them: where the
    /// callbacks must still see the contexts, they set
    /// [`KnownAnswers::record`] and receive them through
    /// [`Callbacks::record`].
    fn known_answers(&self, index: usize) -> Option<KnownAnswers> {
        let _ = index;
        None
    }

    /// Interceptor `index` was handed `context` and answered with its known
    /// answer, without a call back: what [`Callbacks::intercept_shared`]
    /// would have recorded of the call. Called, in the order the host
    /// handed them, only for an interceptor whose [`KnownAnswers::record`]
    /// the callbacks set; the default records nothing, which is right for
    /// callbacks that never set it.
    fn record(&self, index: usize, context: Arc<Value>) {
        let _ = (index, context);
    }

    /// Ask the registered approval resolver to resolve `request`, an
    /// `ApprovalRequest` (§9).
    fn resolve_approval<'a>(&'a self, request: &'a Value) -> BoxFuture<'a, ResolverReply>;

    /// Ask the registered redactor for the context the approver may see.
    fn redact<'a>(&'a self, context: &'a Value) -> BoxFuture<'a, RedactorReply>;
}

/// A host under test, as the runner drives it: one vector at a time, set up,
/// run, torn down.
///
/// Implemented in process by the reference host and, for a host in any
/// language, by the stdio client that speaks `PROTOCOL.md`.
pub trait HostAdapter: Send {
    /// Who the host is, which spec versions it emits, and the host declaration
    /// that states its surface, if it has one.
    fn info(&mut self) -> impl Future<Output = Result<HostInfo, AdapterError>> + Send;

    /// Prepare one vector. The setup never carries the vector's expectations.
    fn setup(
        &mut self,
        setup: VectorSetup,
    ) -> impl Future<Output = Result<(), AdapterError>> + Send;

    /// Run the prepared vector through the host's real dispatch path, calling
    /// back into `callbacks` for every interceptor, resolver and redactor
    /// decision, and report what the host did.
    fn run(
        &mut self,
        callbacks: Arc<dyn Callbacks>,
    ) -> impl Future<Output = Result<RunRecord, AdapterError>> + Send;

    /// Release whatever the prepared vector holds.
    fn teardown(&mut self) -> impl Future<Output = Result<(), AdapterError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Callbacks written before `intercept_shared`: one interceptor writes
    /// into its copy, the other only reads.
    struct OwnedOnly;

    impl Callbacks for OwnedOnly {
        fn intercept<'a>(
            &'a self,
            index: usize,
            context: &'a mut Value,
        ) -> BoxFuture<'a, InterceptorReply> {
            Box::pin(async move {
                if index == 0 {
                    context["changed"] = json!(true);
                }
                InterceptorReply::Response(json!({"decision": "allow"}))
            })
        }

        fn resolve_approval<'a>(&'a self, _: &'a Value) -> BoxFuture<'a, ResolverReply> {
            Box::pin(async { ResolverReply::Resolution(Value::Null) })
        }

        fn redact<'a>(&'a self, context: &'a Value) -> BoxFuture<'a, RedactorReply> {
            Box::pin(async move { RedactorReply::Redacted(context.clone()) })
        }
    }

    #[tokio::test]
    async fn the_default_lends_a_copy_and_reports_what_changed() {
        let lent = Arc::new(json!({"interception_point": "input"}));
        let writer = OwnedOnly.intercept_shared(0, Arc::clone(&lent)).await;
        assert_eq!(
            writer.changed,
            Some(json!({"interception_point": "input", "changed": true}))
        );
        assert_eq!(
            *lent,
            json!({"interception_point": "input"}),
            "the lent context is never written"
        );
        let reader = OwnedOnly.intercept_shared(1, lent).await;
        assert_eq!(
            reader,
            SharedReply::new(
                InterceptorReply::Response(json!({"decision": "allow"})),
                None
            )
        );
    }
}
