//! [`ReferenceHost`]: the reference emitter and agent loop behind the
//! runner's [`Harness`] trait. The only library file that names the harness
//! protocol: scripted interceptors, resolver and redactor live in the
//! runner and are reached through [`Callbacks`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ctk_harness_protocol::{
    Callbacks, Composition as WireComposition, Harness, HarnessError, HarnessErrorKind, HostInfo,
    InterceptorReply, Knob as WireKnob, Mode as WireMode, OnApproval as WireOnApproval, Phase,
    Profile, RedactorReply, ResolverReply, RunOutcome, RunRecord, ToolInvocation, VectorSetup,
};
use serde_json::Value;

use crate::agent_loop::run::{run_scenario, Ending, LoopConfig};
use crate::agent_loop::scenario::Scenario;
use crate::compose::dispatch::{BoxFuture, Interceptor, InterceptorAnswer, Registration};
use crate::compose::profile::{Composition, Knob, Mode, OnApproval};
use crate::context::build::AgentIdentity;
use crate::emitter::{Emitter, DEFAULT_INTERCEPTOR_TIMEOUT};
use crate::identity::provider::{IdentityProvider, ProviderRegistry};
use crate::output::OutputMode;
use crate::point::Point;
use crate::propagate::ToolSeamPosture;
use crate::seam::approval::{ApprovalResolver, ResolverAnswer};
use crate::seam::redaction::{Redactor, RedactorAnswer};
use crate::spec_version::{SpecVersion, SPEC_VERSION_0_1, SPEC_VERSION_DRAFT};

/// The reference host's own declaration document.
pub const HOST_DECLARATION: &str = include_str!("../host.json");
/// `agent.id` of every context the reference host emits.
pub const AGENT_ID: &str = "ref-agent";
/// `agent.framework` of every context the reference host emits.
pub const FRAMEWORK: &str = "reference-agent";

static SESSIONS: AtomicU64 = AtomicU64::new(1);

/// One vector, prepared by `setup`.
#[derive(Debug)]
struct Prepared {
    version: SpecVersion,
    scenario: Scenario,
    interceptors: Vec<(Option<String>, Option<Vec<Point>>)>,
    composition: Composition,
    mode: Mode,
    provider: IdentityProvider,
    resolver: bool,
    redactor: bool,
    interceptor_timeout: Duration,
    approval_timeout: Option<Duration>,
}

/// The reference host as a [`Harness`].
#[derive(Debug, Default)]
pub struct ReferenceHost {
    prepared: Option<Prepared>,
}

impl ReferenceHost {
    /// A reference host with nothing set up.
    pub fn new() -> Self {
        Self::default()
    }
}

fn setup_error(detail: impl Into<String>) -> HarnessError {
    HarnessError::new(Phase::Setup, HarnessErrorKind::Host(detail.into()))
}

/// Map the wire composition to a resolved one; a knob the profile does not
/// consult is refused, never silently cleared.
fn composition(c: &WireComposition) -> Result<Composition, HarnessError> {
    let knob = |k: Option<WireKnob>| match k.unwrap_or_default() {
        WireKnob::Deny => Knob::Deny,
        WireKnob::Approval => Knob::Approval,
    };
    let stray = match c.profile {
        Profile::SequentialFirstDeny => {
            c.on_disagreement.is_some() || c.on_transform_conflict.is_some()
        }
        Profile::SequentialRunAll => {
            c.on_approval.is_some()
                || c.on_disagreement.is_some()
                || c.on_transform_conflict.is_some()
        }
        Profile::ParallelStrictest => c.on_approval.is_some() || c.on_disagreement.is_some(),
        Profile::ParallelUnanimous => c.on_approval.is_some() || c.on_transform_conflict.is_some(),
    };
    if stray {
        return Err(setup_error(format!(
            "a knob that {} does not consult is set",
            c.profile.as_str()
        )));
    }
    Ok(match c.profile {
        Profile::SequentialFirstDeny => Composition::FirstDeny {
            on_approval: match c.on_approval.unwrap_or_default() {
                WireOnApproval::Stop => OnApproval::Stop,
                WireOnApproval::Resume => OnApproval::Resume,
            },
        },
        Profile::SequentialRunAll => Composition::RunAll,
        Profile::ParallelStrictest => Composition::Strictest {
            on_transform_conflict: knob(c.on_transform_conflict),
        },
        Profile::ParallelUnanimous => Composition::Unanimous {
            on_disagreement: knob(c.on_disagreement),
        },
    })
}

fn prepare(setup: &VectorSetup) -> Result<Prepared, HarnessError> {
    let version = match setup.spec.as_str() {
        SPEC_VERSION_0_1 => SpecVersion::V0_1,
        SPEC_VERSION_DRAFT => SpecVersion::Draft,
        other => {
            return Err(setup_error(format!(
                "spec version `{other}` is not emitted by this host"
            )))
        }
    };
    if setup.declaration.is_some() {
        return Err(setup_error(
            "building the emitter from a declaration is not supported yet",
        ));
    }
    let scenario = Scenario::parse(setup.scenario.get()).map_err(|e| setup_error(e.to_string()))?;
    let mut interceptors = Vec::with_capacity(setup.interceptors.len());
    for b in &setup.interceptors {
        let at = match &b.at {
            None => None,
            Some(points) => Some(
                points
                    .iter()
                    .map(|p| {
                        Point::parse(p).ok_or_else(|| {
                            setup_error(format!("`{p}` is not an interception point"))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        interceptors.push((b.name.clone(), at));
    }
    let provider = ProviderRegistry::for_conformance()
        .resolve(setup.identity_provider.as_deref())
        .map_err(|e| setup_error(e.to_string()))?;
    let interceptor_timeout = setup
        .interceptor_timeout_ms
        .map_or(DEFAULT_INTERCEPTOR_TIMEOUT, Duration::from_millis);
    Ok(Prepared {
        version,
        scenario,
        interceptors,
        composition: composition(&setup.composition)?,
        mode: match setup.mode {
            WireMode::Enforce => Mode::Enforce,
            WireMode::EvaluateOnly => Mode::EvaluateOnly,
        },
        provider,
        resolver: setup.approval_resolver,
        redactor: setup.redactor,
        interceptor_timeout,
        approval_timeout: setup.approval_timeout_ms.map(Duration::from_millis),
    })
}

/// An interceptor whose verdicts come from the runner.
struct CallbackInterceptor {
    callbacks: Arc<dyn Callbacks>,
    index: usize,
}

impl Interceptor for CallbackInterceptor {
    fn intercept(&self, context: Value) -> BoxFuture<InterceptorAnswer> {
        let callbacks = self.callbacks.clone();
        let index = self.index;
        Box::pin(async move {
            let mut own = context;
            match callbacks.intercept(index, &mut own).await {
                InterceptorReply::Response(v) => InterceptorAnswer::Returned(v),
                // Any other reply (raised, or a variant this host does not
                // know) is a failure of the interceptor.
                _ => InterceptorAnswer::Raised,
            }
        })
    }
}

/// The runner's approval resolver.
struct CallbackResolver(Arc<dyn Callbacks>);

impl ApprovalResolver for CallbackResolver {
    fn resolve(&self, request: Value) -> BoxFuture<ResolverAnswer> {
        let callbacks = self.0.clone();
        Box::pin(async move {
            match callbacks.resolve_approval(&request).await {
                ResolverReply::Resolution(v) => ResolverAnswer::Resolution(v),
                _ => ResolverAnswer::Raised,
            }
        })
    }
}

/// The runner's redactor.
struct CallbackRedactor(Arc<dyn Callbacks>);

impl Redactor for CallbackRedactor {
    fn redact(&self, context: Value) -> BoxFuture<RedactorAnswer> {
        let callbacks = self.0.clone();
        Box::pin(async move {
            match callbacks.redact(&context).await {
                RedactorReply::Redacted(v) => RedactorAnswer::Redacted(v),
                _ => RedactorAnswer::Raised,
            }
        })
    }
}

fn build_emitter(p: &Prepared, callbacks: &Arc<dyn Callbacks>) -> Emitter {
    let who = AgentIdentity {
        agent_id: AGENT_ID.into(),
        framework: FRAMEWORK.into(),
        session_id: format!("sess-{}", SESSIONS.fetch_add(1, Ordering::SeqCst)),
    };
    let mut b = Emitter::builder(p.version, who)
        .mode(p.mode)
        .composition(p.composition)
        .identity_provider(p.provider.clone())
        .interceptor_timeout(Some(p.interceptor_timeout));
    if let Some(t) = p.approval_timeout {
        b = b.approval_timeout(Some(t));
    }
    for (index, (name, at)) in p.interceptors.iter().enumerate() {
        b = b.interceptor(Registration {
            name: name.clone(),
            at: at.clone(),
            timeout: None,
            interceptor: Arc::new(CallbackInterceptor {
                callbacks: callbacks.clone(),
                index,
            }),
        });
    }
    if p.resolver {
        b = b.approval_resolver(Arc::new(CallbackResolver(callbacks.clone())));
    }
    if p.redactor {
        b = b.redactor(Arc::new(CallbackRedactor(callbacks.clone())));
    }
    b.build()
}

impl Harness for ReferenceHost {
    async fn info(&mut self) -> Result<HostInfo, HarnessError> {
        let declaration: Value = serde_json::from_str(HOST_DECLARATION).map_err(|e| {
            HarnessError::new(
                Phase::Handshake,
                HarnessErrorKind::Host(format!("host.json is not JSON: {e}")),
            )
        })?;
        Ok(HostInfo::new(
            "ctk-reference-host",
            env!("CARGO_PKG_VERSION"),
            vec![SPEC_VERSION_0_1.into(), SPEC_VERSION_DRAFT.into()],
        )
        .with_declaration(declaration))
    }

    async fn setup(&mut self, setup: VectorSetup) -> Result<(), HarnessError> {
        self.prepared = Some(prepare(&setup)?);
        Ok(())
    }

    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, HarnessError> {
        let p = self.prepared.as_ref().ok_or_else(|| {
            HarnessError::new(
                Phase::Run,
                HarnessErrorKind::Host("run before setup".into()),
            )
        })?;
        let emitter = Arc::new(build_emitter(p, &callbacks));
        // host.json declares buffered_output false and incremental_output,
        // with the continue posture.
        let config = LoopConfig {
            posture: ToolSeamPosture::Continue,
            output: OutputMode::Incremental,
        };
        let outcome = run_scenario(emitter.clone(), &p.scenario, config).await;
        let mut record = RunRecord::new(match outcome.ending {
            Ending::Completed => RunOutcome::Completed,
            Ending::Blocked => RunOutcome::Blocked,
            Ending::Error => RunOutcome::Error,
        });
        record.final_output = outcome.final_output;
        record.tool_invocations = outcome
            .tool_invocations
            .into_iter()
            .map(|(name, args)| ToolInvocation { name, args })
            .collect();
        record.records = emitter.records();
        record.released_output = outcome.released_output.map(Value::String);
        record.persisted = Some(outcome.persisted);
        record.error = outcome.error;
        Ok(record)
    }

    async fn teardown(&mut self) -> Result<(), HarnessError> {
        self.prepared = None;
        Ok(())
    }
}
