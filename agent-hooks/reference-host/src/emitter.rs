//! The emitter: validate, dispatch, gate, compose, consult, write back,
//! record. One emitter serves one session.

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::compose::dispatch::Registration;
use crate::compose::fold::{with_unions, Composed, Step};
use crate::compose::profile::{Composition, Mode};
use crate::compose::{parallel, sequential};
use crate::context::build::{build_context, now_rfc3339, AgentIdentity};
use crate::context::domain::check_bounds;
use crate::context::envelope::validate_envelope;
use crate::identity::provider::IdentityProvider;
use crate::point::Point;
use crate::reason::ReservedReason;
use crate::record::{trace_of, InterceptionRecord};
use crate::seam::approval::{ApprovalResolver, Seam};
use crate::seam::redaction::Redactor;
use crate::spec_version::SpecVersion;
use crate::verdict::model::Verdict;

/// RECOMMENDED default interceptor timeout (§7): 5000 ms.
pub const DEFAULT_INTERCEPTOR_TIMEOUT: Duration = Duration::from_millis(5000);

/// Builds an [`Emitter`]; the spec version has no default and is named first.
#[derive(Debug)]
pub struct EmitterBuilder {
    version: SpecVersion,
    who: AgentIdentity,
    mode: Mode,
    composition: Composition,
    provider: IdentityProvider,
    registrations: Vec<Registration>,
    resolver: Option<Arc<dyn ApprovalResolver>>,
    redactor: Option<Arc<dyn Redactor>>,
    interceptor_timeout: Option<Duration>,
    approval_timeout: Option<Option<Duration>>,
    surface: BTreeSet<Point>,
    max_buffered: Option<usize>,
    declaration: Option<String>,
}

impl EmitterBuilder {
    /// Start a builder for `version`, emitting as `who`.
    pub fn new(version: SpecVersion, who: AgentIdentity) -> Self {
        EmitterBuilder {
            version,
            who,
            mode: Mode::Enforce,
            composition: Composition::default(),
            provider: IdentityProvider::JcsSha256,
            registrations: Vec::new(),
            resolver: None,
            redactor: None,
            interceptor_timeout: Some(DEFAULT_INTERCEPTOR_TIMEOUT),
            approval_timeout: None,
            surface: Point::ALL.into_iter().collect(),
            max_buffered: None,
            declaration: None,
        }
    }

    /// Bound on the records buffered and not yet drained; `None` is
    /// unbounded. When the buffer is full the oldest record is dropped; an
    /// emission never waits.
    #[must_use]
    pub fn max_buffered(mut self, bound: Option<usize>) -> Self {
        self.max_buffered = bound;
        self
    }

    /// Build an emitter whose records carry `declaration` (the loader's
    /// last step; code-built emitters never carry one). It is sealed
    /// (§7.7.7) by construction: a built emitter has no way to register or
    /// reconfigure anything, so the declaration is all it ever does.
    pub(crate) fn build_declared(mut self, declaration: &str) -> Emitter {
        self.declaration = Some(declaration.to_owned());
        self.build()
    }

    /// Enforcement mode.
    #[must_use]
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Composition profile and knob.
    #[must_use]
    pub fn composition(mut self, composition: Composition) -> Self {
        self.composition = composition;
        self
    }

    /// Identity provider.
    #[must_use]
    pub fn identity_provider(mut self, provider: IdentityProvider) -> Self {
        self.provider = provider;
        self
    }

    /// Register an interceptor; registration order is dispatch order.
    #[must_use]
    pub fn interceptor(mut self, registration: Registration) -> Self {
        self.registrations.push(registration);
        self
    }

    /// Register the approval resolver.
    #[must_use]
    pub fn approval_resolver(mut self, resolver: Arc<dyn ApprovalResolver>) -> Self {
        self.resolver = Some(resolver);
        self
    }

    /// Register the redactor.
    #[must_use]
    pub fn redactor(mut self, redactor: Arc<dyn Redactor>) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// Interceptor timeout; `None` is unbounded.
    #[must_use]
    pub fn interceptor_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.interceptor_timeout = timeout;
        self
    }

    /// Approval resolver timeout; unset inherits the interceptor timeout.
    #[must_use]
    pub fn approval_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.approval_timeout = Some(timeout);
        self
    }

    /// The points this adapter can emit (§3.2); default all eight.
    #[must_use]
    pub fn surface(mut self, points: impl IntoIterator<Item = Point>) -> Self {
        self.surface = points.into_iter().collect();
        self
    }

    /// Build the emitter.
    pub fn build(self) -> Emitter {
        let seam = Seam {
            resolver: self.resolver,
            redactor: self.redactor,
            timeout: self.approval_timeout.unwrap_or(self.interceptor_timeout),
            provider: self.provider.clone(),
            version: self.version,
        };
        Emitter {
            version: self.version,
            who: self.who,
            mode: self.mode,
            composition: self.composition,
            provider: self.provider,
            bound: Point::ALL.map(|point| {
                self.registrations
                    .iter()
                    .filter(|r| r.bound_at(point))
                    .cloned()
                    .collect()
            }),
            registrations: self.registrations,
            interceptor_timeout: self.interceptor_timeout,
            seam,
            surface: self.surface,
            sequence: AtomicU64::new(0),
            records: Mutex::new(VecDeque::new()),
            gate: tokio::sync::Mutex::new(()),
            max_buffered: self.max_buffered,
            notices: Mutex::new(Vec::new()),
            declaration: self.declaration,
        }
    }
}

/// What the host tells the principal when a best-effort binding failed and
/// an allow was substituted (draft §6.3.1): one notice per substitution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrincipalNotice {
    /// The point of the emission.
    pub interception_point: String,
    /// The failing binding's id (`None` for an anonymous code registration).
    pub binding: Option<String>,
    /// Always `host_warning:control_failed`.
    pub warning: String,
    /// The reserved reason the failure would have been denied with.
    pub substituted_for: String,
}

impl PrincipalNotice {
    /// The wire form: exactly `interception_point`, `binding`, `warning`,
    /// `substituted_for`.
    pub fn to_value(&self) -> Value {
        json!({
            "interception_point": self.interception_point,
            "binding": self.binding,
            "warning": self.warning,
            "substituted_for": self.substituted_for,
        })
    }
}

/// What one emission decided.
#[derive(Debug, Clone)]
pub struct Emitted {
    /// Whether the guarded action may proceed.
    pub proceed: bool,
    /// The combined verdict, unions applied.
    pub verdict: Verdict,
    /// The context the next step must use: transforms applied and written
    /// back when the action proceeds in enforce mode, else as emitted. Shared:
    /// the snapshot every interceptor was lent (a recorder may still hold
    /// it), or the composed copy, never copied again to be handed back.
    pub context: Arc<Value>,
    /// The record written for this emission, in wire form: the very value
    /// the emitter's buffer holds, shared rather than copied.
    pub record: Arc<Value>,
}

impl Emitted {
    /// The (possibly rewritten) target.
    pub fn target(&self) -> Value {
        self.context.get("target").cloned().unwrap_or(Value::Null)
    }
}

/// An Agent Hooks emitter for one session.
///
/// Emitting needs a tokio runtime: every interceptor, resolver and redactor
/// call is guarded (`spawn_guarded`), so that a panic or a hang stays
/// contained and becomes the reserved deny instead of taking the host down.
/// A call that answers when first polled is judged inline; one that waits
/// gets its own task, bounded by its deadline.
#[derive(Debug)]
pub struct Emitter {
    version: SpecVersion,
    who: AgentIdentity,
    mode: Mode,
    composition: Composition,
    provider: IdentityProvider,
    registrations: Vec<Registration>,
    /// The registrations bound at each point (indexed as [`Point::ALL`]),
    /// in dispatch order: worked out once when the emitter is built, since
    /// registrations never change after, rather than copied out of
    /// `registrations` at every emission (issue 30).
    bound: [Vec<Registration>; 8],
    interceptor_timeout: Option<Duration>,
    seam: Seam,
    surface: BTreeSet<Point>,
    sequence: AtomicU64,
    records: Mutex<VecDeque<Arc<Value>>>,
    gate: tokio::sync::Mutex<()>,
    max_buffered: Option<usize>,
    notices: Mutex<Vec<PrincipalNotice>>,
    declaration: Option<String>,
}

/// Best-effort fields of a context that may be invalid, for its record.
struct Envelope {
    point: String,
    session_id: String,
    sequence: i64,
    timestamp: Option<String>,
    trace: Option<Value>,
}

impl Envelope {
    fn of(context: &Value) -> Envelope {
        Envelope {
            point: context
                .get("interception_point")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            session_id: context
                .pointer("/session/id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            sequence: context
                .get("sequence")
                .and_then(Value::as_i64)
                .unwrap_or(-1),
            timestamp: context
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_owned),
            trace: trace_of(context),
        }
    }
}

impl Emitter {
    /// Start building an emitter for `version`.
    pub fn builder(version: SpecVersion, who: AgentIdentity) -> EmitterBuilder {
        EmitterBuilder::new(version, who)
    }

    /// The declaration contract version stamped on every record, when a
    /// declaration built this emitter.
    /// Only the host's own tests read it: nothing a host shows depends on it.
    #[cfg(test)]
    pub fn declaration(&self) -> Option<&str> {
        self.declaration.as_deref()
    }

    /// Every notice given to the principal so far, in order (draft §6.3.1).
    pub fn notices(&self) -> Vec<PrincipalNotice> {
        self.notices.lock().map(|n| n.clone()).unwrap_or_default()
    }

    /// Build the next context of the session for `point`. The sequence is
    /// taken atomically, so concurrent emissions get unique, ordered values (§12.2).
    pub fn context(&self, point: Point, fields: Map<String, Value>) -> Value {
        let seq = self.sequence.fetch_add(1, Ordering::SeqCst);
        build_context(self.version, &self.who, point, seq, now_rfc3339(), fields)
    }

    /// Build the next context for `point` and emit it, one emission at a
    /// time: concurrent callers (parallel tool calls) queue here, so every
    /// interceptor sees contexts in strictly increasing `sequence` order
    /// (§12.2). Their tools still run concurrently, outside the emitter.
    pub async fn emit_point(
        &self,
        point: Point,
        fields: Map<String, Value>,
        raw_unsafe: bool,
    ) -> Emitted {
        let _turn = self.gate.lock().await;
        let context = self.context(point, fields);
        self.emit_checked(context, raw_unsafe).await
    }

    /// [`Emitter::emit_self_denied`] for the next context of `point`, in turn
    /// with every other [`Emitter::emit_point`].
    pub async fn emit_point_self_denied(
        &self,
        point: Point,
        fields: Map<String, Value>,
        reason: ReservedReason,
    ) -> Emitted {
        let _turn = self.gate.lock().await;
        let context = self.context(point, fields);
        self.emit_self_denied(context, reason).await
    }

    /// Drain the records written so far, in order, as the very values the
    /// buffer held: nothing is copied, even while an [`Emitted`] of the same
    /// emission still shares its record (a sink that only reads them, as a
    /// serializer does, never pays for a copy).
    pub fn take_shared_records(&self) -> Vec<Arc<Value>> {
        self.records
            .lock()
            .map(|mut r| std::mem::take(&mut *r).into())
            .unwrap_or_default()
    }

    /// Drain the records written so far, in order (a record sink that hands
    /// them on).
    pub fn take_records(&self) -> Vec<Value> {
        self.take_shared_records()
            .into_iter()
            // Copied only while an `Emitted` still holds it.
            .map(Arc::unwrap_or_clone)
            .collect()
    }

    fn bound(&self, point: Point) -> &[Registration] {
        // `Point::ALL` lists the points in declaration order.
        &self.bound[point as usize]
    }

    fn write(&self, record: InterceptionRecord) -> Arc<Value> {
        let value = Arc::new(record.to_value());
        if let Ok(mut r) = self.records.lock() {
            if let Some(bound) = self.max_buffered {
                while r.len() >= bound.max(1) {
                    r.pop_front();
                }
            }
            r.push_back(Arc::clone(&value));
        }
        value
    }

    /// Tell the principal about every best-effort substitution of an emission.
    fn notify(&self, point: Point, summaries: &[crate::compose::fold::Summary]) {
        let new: Vec<PrincipalNotice> = summaries
            .iter()
            .filter_map(|s| {
                s.substituted_for.map(|r| PrincipalNotice {
                    interception_point: point.as_str().into(),
                    binding: s.name.clone(),
                    warning: crate::reason::CONTROL_FAILED.into(),
                    substituted_for: r.as_str().into(),
                })
            })
            .collect();
        if new.is_empty() {
            return;
        }
        if let Ok(mut n) = self.notices.lock() {
            n.extend(new);
        }
    }

    fn record_for(
        &self,
        env: &Envelope,
        verdict: Verdict,
        registered: usize,
    ) -> InterceptionRecord {
        InterceptionRecord {
            interception_point: env.point.clone(),
            mode: self.mode,
            verdict,
            input_identity: None,
            enforced_identity: None,
            identity_provider: self.provider.name().map(str::to_owned),
            session_id: env.session_id.clone(),
            sequence: env.sequence,
            timestamp: env.timestamp.clone(),
            trace: env.trace.clone(),
            decided_by: None,
            composition: self.composition,
            verdicts: None,
            fold_truncated: None,
            resolved_by: None,
            interceptors_registered: registered,
            declaration: self.declaration.clone(),
        }
    }

    /// Refuse an emission before dispatch: no interceptor runs, identities
    /// are null. The deny is enforced in `enforce`; in `evaluate_only` it is
    /// recorded and the action proceeds, like every other verdict there (§8).
    fn refuse(&self, context: Value, verdict: Verdict, registered: usize) -> Emitted {
        let env = Envelope::of(&context);
        let record = self.write(self.record_for(&env, verdict.clone(), registered));
        Emitted {
            proceed: self.mode == Mode::EvaluateOnly,
            verdict,
            context: Arc::new(context),
            record,
        }
    }

    /// Emit `context`: the full §6-§10 path.
    pub async fn emit(&self, context: Value) -> Emitted {
        self.emit_checked(context, false).await
    }

    /// Emit `context`, whose members came from raw JSON text that held an
    /// integer literal beyond 2^53-1 iff `raw_unsafe` (§4.4: a parser may
    /// have coerced it into a double no value check can recognise).
    pub async fn emit_checked(&self, context: Value, raw_unsafe: bool) -> Emitted {
        let point_name = context
            .get("interception_point")
            .and_then(Value::as_str)
            .and_then(Point::parse);
        if let Some(p) = point_name {
            if !self.surface.contains(&p) {
                let registered = self.bound(p).len();
                return self.refuse(
                    context,
                    Verdict::host_deny(ReservedReason::AdapterUnsupported),
                    registered,
                );
            }
        }
        let point = match validate_envelope(&context, self.version) {
            Ok(p) => p,
            Err(e) => {
                let registered =
                    point_name.map_or(self.registrations.len(), |p| self.bound(p).len());
                let v = Verdict::host_deny_with(ReservedReason::ContextInvalid, e.to_string());
                return self.refuse(context, v, registered);
            }
        };
        let bound = self.bound(point);
        // The §12.3 bounds, then the input identity: one pass for jcs-sha256.
        let input_identity = match self
            .provider
            .compute_bounded(&context, self.version, raw_unsafe)
        {
            Ok(id) => id,
            Err(e) => {
                let v = Verdict::host_deny_with(ReservedReason::ContextInvalid, e.to_string());
                return self.refuse(context, v, bound.len());
            }
        };
        let env = Envelope::of(&context);
        let mut record = self.record_for(&env, Verdict::allow(), bound.len());
        record.input_identity = input_identity.clone();

        if bound.is_empty() {
            // Zero interceptors: deny in every profile; recorded in
            // evaluate_only too, where the action still proceeds.
            let v = Verdict::host_deny(ReservedReason::NoInterceptor);
            record.enforced_identity = input_identity;
            record.verdict = v.clone();
            if self.composition.is_sequential() {
                record.fold_truncated = Some(false);
            }
            let record = self.write(record);
            return Emitted {
                proceed: self.mode == Mode::EvaluateOnly,
                verdict: v,
                context: Arc::new(context),
                record,
            };
        }

        let step = Step {
            point,
            mode: self.mode,
            bound,
            timeout: self.interceptor_timeout,
            seam: &self.seam,
            version: self.version,
        };
        // One immutable snapshot, lent to every interceptor; a fold copies it
        // (the emitter keeps the input for the record and a refused
        // transform), nothing else does.
        let snapshot = Arc::new(context);
        let lent = Arc::clone(&snapshot);
        let composed = match self.composition {
            Composition::FirstDeny { on_approval } => {
                sequential::first_deny(step, on_approval, lent).await
            }
            Composition::RunAll => sequential::run_all(step, lent).await,
            Composition::Strictest {
                on_transform_conflict,
            } => parallel::strictest(step, on_transform_conflict, lent).await,
            Composition::Unanimous { on_disagreement } => {
                parallel::unanimous(step, on_disagreement, lent).await
            }
        };
        let Composed {
            combined,
            mut decided_by,
            summaries,
            fold_truncated,
            resolved_by,
            context: composed_ctx,
            pool,
        } = composed;
        let mut combined = with_unions(combined, &pool);
        self.notify(point, &summaries);
        record.verdicts = Some(summaries);
        record.fold_truncated = fold_truncated;
        record.resolved_by = resolved_by;

        // Nothing folded leaves the composed context the very context checked
        // and identified above, so its checks and its identity stand. A
        // custom provider need not be content-derived (§10.1): it is always
        // asked again.
        let unchanged = !matches!(self.provider, IdentityProvider::Custom { .. })
            && !pool.iter().any(|v| v.transform.is_some());
        // The snapshot goes back as it is, shared with whatever still holds
        // it (a task that timed out, the runner's record of what interceptor
        // 0 received): nothing writes to it.
        let input = |composed_ctx: Arc<Value>| {
            drop(composed_ctx);
            snapshot
        };
        let (proceed, out_ctx, enforced_identity) = match self.mode {
            Mode::EvaluateOnly => (true, input(composed_ctx), input_identity),
            Mode::Enforce if unchanged => {
                (combined.is_permit(), input(composed_ctx), input_identity)
            }
            Mode::Enforce if combined.is_permit() => {
                // The composed context must still be a valid context whatever
                // the provider: a transform may not break the §4.2 shape the
                // next step of the loop relies on (D-35).
                // Bounds first, then the envelope, then the identity.
                let identified = match validate_envelope(&composed_ctx, self.version) {
                    Err(e) => Err(check_bounds(&composed_ctx)
                        .err()
                        .map_or_else(|| e.to_string(), |b| b.to_string())),
                    Ok(_) => self
                        .provider
                        .compute_bounded(&composed_ctx, self.version, false)
                        .map_err(|e| e.to_string()),
                };
                match identified {
                    Ok(id) => {
                        drop(input);
                        (true, composed_ctx, id)
                    }
                    Err(e) => {
                        // A transform pushed the context out of the bounds or
                        // the domain: fail closed at finalize.
                        combined = Verdict::host_deny_with(ReservedReason::ContextInvalid, e);
                        decided_by = None;
                        (false, input(composed_ctx), None)
                    }
                }
            }
            Mode::Enforce => {
                let id = self
                    .provider
                    .compute(&composed_ctx, self.version, false)
                    .ok()
                    .flatten();
                (false, input(composed_ctx), id)
            }
        };
        record.enforced_identity = enforced_identity;
        record.decided_by = decided_by;
        record.verdict = combined.clone();
        let record = self.write(record);
        Emitted {
            proceed,
            verdict: combined,
            context: out_ctx,
            record,
        }
    }

    /// Record an emission the host itself denies without dispatching, for a
    /// fact no verdict can change (e.g. unevaluated stream residue, §12.1).
    /// Identities are computed as usual; nothing proceeds in either mode,
    /// because the host cannot use what it could not assemble.
    pub async fn emit_self_denied(&self, context: Value, reason: ReservedReason) -> Emitted {
        let point = match validate_envelope(&context, self.version) {
            Ok(p) => p,
            Err(e) => {
                let v = Verdict::host_deny_with(ReservedReason::ContextInvalid, e.to_string());
                let mut refused = self.refuse(context, v, self.registrations.len());
                refused.proceed = false;
                return refused;
            }
        };
        let bound = self.bound(point).len();
        let identity = match self.provider.compute(&context, self.version, false) {
            Ok(id) => id,
            Err(e) => {
                let v = Verdict::host_deny_with(ReservedReason::ContextInvalid, e.to_string());
                let mut refused = self.refuse(context, v, bound);
                refused.proceed = false;
                return refused;
            }
        };
        let env = Envelope::of(&context);
        let verdict = Verdict::host_deny(reason);
        let mut record = self.record_for(&env, verdict.clone(), bound);
        record.input_identity = identity.clone();
        record.enforced_identity = identity;
        let record = self.write(record);
        Emitted {
            proceed: false,
            verdict,
            context: Arc::new(context),
            record,
        }
    }
}
