//! [`ReferenceHost`]: the reference emitter and agent loop behind the
//! runner's [`HostAdapter`] trait. The only library file that names the adapter
//! protocol: scripted interceptors, resolver and redactor live in the
//! runner and are reached through [`Callbacks`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ctk_agent_hooks_adapter::{
    AdapterError, AdapterErrorKind, Callbacks, Composition as WireComposition,
    DeclarationFileFault, HostAdapter, HostInfo, InterceptorReply, Knob as WireKnob, LoadRecord,
    Mode as WireMode, OnApproval as WireOnApproval, Phase, Profile, RedactorReply, ResolverReply,
    RunOutcome, RunRecord, ToolInvocation, VectorSetup,
};
use serde_json::{json, Value};

use crate::agent_loop::run::{run_scenario_on, Ending, LoopConfig, LoopSurface};
use crate::agent_loop::scenario::Scenario;
use crate::compose::dispatch::BindingTimeout;
use crate::compose::dispatch::{BoxFuture, Interceptor, InterceptorAnswer, Registration};
use crate::compose::profile::{Composition, Knob, Mode, OnApproval};
use crate::context::build::AgentIdentity;
use crate::declaration::kinds::{ctk_scripted_kind, with_reference_kinds};
use crate::declaration::{
    Declaration, DeclarationBuilder, DeclarationError, HostRegistry, HostSurface, Loader,
};
use crate::emitter::{Emitter, DEFAULT_INTERCEPTOR_TIMEOUT};
use crate::identity::provider::{IdentityProvider, ProviderRegistry};
use crate::output::OutputMode;
use crate::seam::approval::{ApprovalResolver, ResolverAnswer};
use crate::seam::redaction::{Redactor, RedactorAnswer};
use crate::spec_version::{SpecVersion, SPEC_VERSION_0_1, SPEC_VERSION_DRAFT};

/// The reference host's own declaration document.
pub const HOST_DECLARATION: &str = include_str!("../host.json");
/// `agent.id` of every context the reference host emits.
pub const AGENT_ID: &str = "ref-agent";

/// The `ctk-harness/1` adapter features this host implements, announced in
/// `initialize` (`agent-hooks/adapter/PROTOCOL.md` §7). Listed by hand, not
/// taken from the kit's catalog: a feature the catalog gains is announced
/// only once this host implements it (a test holds the list to the catalog).
/// `known-answers` and `recorded-contexts` are the link's: `serve` answers
/// those calls and reports their contexts for the stdio binary, and linked
/// in process there is no round trip to save. Announced on both paths, so
/// that the two describe the same host.
pub const FEATURES: [&str; 10] = [
    "generated-values",
    "persisted-state",
    "load-detail",
    "released-output-absent",
    "deep-lines",
    "context-sized-fills",
    "declaration-path-classes",
    "agent-steps",
    "known-answers",
    "recorded-contexts",
];
/// `agent.framework` of every context the reference host emits.
pub const FRAMEWORK: &str = "reference-agent";

static SESSIONS: AtomicU64 = AtomicU64::new(1);

/// Kind of the kit's scripted bindings: config `{"script": i, ...}` binds
/// interceptor `i` of the vector (§7.7.9); other config members are ignored
/// ([`crate::declaration::kinds::ctk_script_index`]).
pub const CTK_SCRIPTED_KIND: &str = crate::declaration::kinds::CTK_SCRIPTED;
/// Name of the kit's approval resolver in a conformance registry.
pub const CTK_SCRIPTED_RESOLVER: &str = "ctk-scripted";
/// Name of the kit's redactor in a conformance registry.
pub const CTK_REDACTOR: &str = "ctk-redact";

/// One vector, prepared by `setup`.
#[derive(Debug)]
struct Prepared {
    version: SpecVersion,
    declaration: Option<DocumentSource>,
    scenario: Scenario,
    /// How many scripted interceptors the vector registers (anonymous,
    /// bound at every point: the protocol's bindings carry no members).
    interceptors: usize,
    composition: Composition,
    mode: Mode,
    provider: IdentityProvider,
    resolver: bool,
    redactor: bool,
    interceptor_timeout: Duration,
    approval_timeout: Option<Duration>,
}

/// Where a declaration vector's document comes from, and so which
/// construction paths apply (`PROTOCOL.md` §2.2).
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentSource {
    /// A parsed value: value, text, file, and builder for an object root.
    Value(Value),
    /// Raw text: text and file; value and builder only when it parses
    /// exactly ([`crate::declaration::text::parse_exact`]).
    Text(String),
    /// A file fault, loaded through the file path only; the file's bytes
    /// come from the document text, when the fault has any.
    File(DeclarationFileFault, Option<String>),
}

impl DocumentSource {
    /// The source a setup names, if it is a declaration vector's.
    pub fn of(setup: &VectorSetup) -> Option<DocumentSource> {
        let text = || {
            setup.declaration_text.clone().or_else(|| {
                setup
                    .declaration
                    .as_ref()
                    .and_then(|d| serde_json::to_string(d).ok())
            })
        };
        match (
            setup.declaration_file,
            &setup.declaration_text,
            &setup.declaration,
        ) {
            (Some(fault), _, _) => Some(DocumentSource::File(fault, text())),
            (None, Some(t), _) => Some(DocumentSource::Text(t.clone())),
            (None, None, Some(d)) => Some(DocumentSource::Value(d.clone())),
            (None, None, None) => None,
        }
    }
}

/// The surface a reference host runs as when it is not its full own
/// (§3.2): the document it states in `initialize`, the code surface its
/// declaration loader measures documents against, and the points its loop
/// emits.
#[derive(Debug, Clone)]
struct OwnSurface {
    document: Value,
    code: HostSurface,
    points: LoopSurface,
    output: OutputMode,
}

impl OwnSurface {
    /// Load `document` with the reference loader (so a floor the text
    /// forbids, or a surface beyond the reference code, is refused with its
    /// class) and narrow the code surface to what it states.
    fn of(document: Value) -> Result<OwnSurface, String> {
        let registry = with_reference_kinds(HostRegistry::new(HostSurface::reference()))
            .map_err(|e| e.to_string())?;
        let declared = Loader::new(&registry)
            .load_value(&document)
            .map_err(|e| e.detail())?;
        let stated = &declared.resolved().surface;
        let mut code = HostSurface::reference();
        code.interception_points
            .retain(|p| stated.interception_points.contains(p));
        code.capabilities
            .retain(|c| stated.capabilities.contains(c));
        code.buffered_output = stated.buffered_output;
        if stated.buffered_output {
            code.exposure_bound = None;
        }
        let has = |p: crate::point::Point| stated.interception_points.contains(&p);
        let points = LoopSurface {
            model_calls: has(crate::point::Point::PreModelCall),
            tool_calls: has(crate::point::Point::PreToolCall),
        };
        for (cap, on) in [
            ("model_calls", points.model_calls),
            ("tool_calls", points.tool_calls),
        ] {
            if stated.capabilities.contains(cap) != on {
                return Err(format!(
                    "the surface must list the capability {cap} exactly when it lists its points"
                ));
            }
        }
        Ok(OwnSurface {
            document,
            code,
            points,
            output: declared.output_mode(),
        })
    }
}

/// The reference host as a [`HostAdapter`].
#[derive(Debug, Default)]
pub struct ReferenceHost {
    prepared: Option<Prepared>,
    own: Option<OwnSurface>,
}

impl ReferenceHost {
    /// A reference host with nothing set up, on its full surface (`host.json`).
    pub fn new() -> Self {
        Self::default()
    }

    /// A reference host that runs as the host `document` declares (§3.2,
    /// §13.1): a floor host, a tool router, a host with a model and no
    /// tools, or any narrower surface of its own. It states `document` in
    /// `initialize`, emits no point the surface omits (a host without a
    /// model takes each scripted step as its own, `agent-hooks/adapter/HOSTS.md`
    /// §4.6), buffers output as it says, and loads declaration vectors
    /// against that surface. A document the reference loader refuses, or
    /// whose `model_calls` / `tool_calls` capabilities disagree with its
    /// points, is an error naming why.
    pub fn with_declaration(document: Value) -> Result<Self, String> {
        Ok(Self {
            prepared: None,
            own: Some(OwnSurface::of(document)?),
        })
    }

    fn code_surface(&self) -> HostSurface {
        self.own
            .as_ref()
            .map_or_else(HostSurface::reference, |o| o.code.clone())
    }
}

fn setup_error(detail: impl Into<String>) -> AdapterError {
    AdapterError::new(Phase::Setup, AdapterErrorKind::Host(detail.into()))
}

/// Map the wire composition to a resolved one; a knob the profile does not
/// consult is refused, never silently cleared.
fn composition(c: &WireComposition) -> Result<Composition, AdapterError> {
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

fn prepare(setup: &VectorSetup) -> Result<Prepared, AdapterError> {
    let version = match setup.spec.as_str() {
        SPEC_VERSION_0_1 => SpecVersion::V0_1,
        SPEC_VERSION_DRAFT => SpecVersion::Draft,
        other => {
            return Err(setup_error(format!(
                "spec version `{other}` is not emitted by this host"
            )))
        }
    };
    let scenario = Scenario::parse(setup.scenario.get()).map_err(|e| setup_error(e.to_string()))?;
    let provider = ProviderRegistry::for_conformance()
        .resolve(setup.identity_provider.as_deref())
        .map_err(|e| setup_error(e.to_string()))?;
    let interceptor_timeout = setup
        .interceptor_timeout_ms
        .map_or(DEFAULT_INTERCEPTOR_TIMEOUT, Duration::from_millis);
    Ok(Prepared {
        version,
        declaration: DocumentSource::of(setup),
        scenario,
        interceptors: setup.interceptors.len(),
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

    /// The emission's snapshot goes to the runner lent, not copied; the copy
    /// a scripted `mutate` changes is the interceptor's own and is dropped,
    /// as the owned path drops it.
    fn intercept_shared(&self, context: Arc<Value>) -> BoxFuture<InterceptorAnswer> {
        let callbacks = self.callbacks.clone();
        let index = self.index;
        Box::pin(async move {
            match callbacks.intercept_shared(index, context).await.reply {
                InterceptorReply::Response(v) => InterceptorAnswer::Returned(v),
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

fn next_session() -> AgentIdentity {
    AgentIdentity {
        agent_id: AGENT_ID.into(),
        framework: FRAMEWORK.into(),
        session_id: format!("sess-{}", SESSIONS.fetch_add(1, Ordering::SeqCst)),
    }
}

/// The conformance registry of a declaration vector (facts B9 step 3b): the
/// reference host's code surface and kinds, the kit's `ctk.scripted` kind
/// over `scripts` interceptor scripts, the `ctk-fault` identity provider,
/// and the kit's resolver `ctk-scripted` and redactor `ctk-redact`, all
/// reaching the runner through `callbacks`.
pub fn conformance_registry(
    callbacks: &Arc<dyn Callbacks>,
    scripts: usize,
) -> Result<HostRegistry, String> {
    conformance_registry_on(callbacks, scripts, HostSurface::reference())
}

/// [`conformance_registry`] over the code surface `surface`.
fn conformance_registry_on(
    callbacks: &Arc<dyn Callbacks>,
    scripts: usize,
    surface: HostSurface,
) -> Result<HostRegistry, String> {
    let scripted = {
        let callbacks = callbacks.clone();
        ctk_scripted_kind(scripts, move |index| {
            Arc::new(CallbackInterceptor {
                callbacks: callbacks.clone(),
                index,
            })
        })
    };
    let registry = HostRegistry::for_conformance(surface)
        .kind(CTK_SCRIPTED_KIND, scripted)
        .and_then(|r| {
            r.approval_resolver(
                CTK_SCRIPTED_RESOLVER,
                Arc::new(CallbackResolver(callbacks.clone())),
            )
        })
        .and_then(|r| {
            r.approval_redactor(CTK_REDACTOR, Arc::new(CallbackRedactor(callbacks.clone())))
        })
        .and_then(with_reference_kinds)
        .map_err(|e| e.to_string())?;
    Ok(registry)
}

/// What loading a declaration vector's document came to on every
/// construction path that applies.
#[derive(Debug)]
pub struct PathsOutcome {
    /// The result the run uses: the value path's for a value, the text
    /// path's for text, the file path's for a file fault.
    pub loaded: Result<Declaration, DeclarationError>,
    /// The paths that applied, the run's first.
    pub paths: Vec<&'static str>,
    /// Whether every path that applied agrees: equal canonical resolved
    /// forms, or the same refusal class.
    pub equivalent: bool,
    /// Where they disagree, when they do.
    pub detail: Option<String>,
}

static TEMP_FILES: AtomicU64 = AtomicU64::new(0);

/// A fresh, empty directory of this process under the system's temporary
/// directory.
fn fresh_dir() -> std::io::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "ctk-reference-host-{}-{}",
        std::process::id(),
        TEMP_FILES.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn cannot_prepare(what: &str, e: &std::io::Error) -> DeclarationError {
    DeclarationError::one(
        crate::declaration::RefusalClass::Unreadable,
        "",
        format!("cannot prepare the {what}: {}", e.kind()),
    )
}

/// Write `bytes` to a file in a fresh directory and load it.
fn load_file_bytes(loader: &Loader<'_>, bytes: &[u8]) -> Result<Declaration, DeclarationError> {
    let dir = fresh_dir().map_err(|e| cannot_prepare("temporary file", &e))?;
    let path = dir.join("declaration.json");
    let loaded = match std::fs::write(&path, bytes) {
        Ok(()) => loader.load_path(&path),
        Err(e) => Err(cannot_prepare("temporary file", &e)),
    };
    let _ = std::fs::remove_dir_all(&dir);
    loaded
}

/// Materialise `fault` in a fresh directory (its bytes made from `text`) and
/// load it through the file path (`PROTOCOL.md` §2.2).
pub fn load_file_fault(
    loader: &Loader<'_>,
    fault: DeclarationFileFault,
    text: Option<&str>,
) -> Result<Declaration, DeclarationError> {
    if fault.has_contents() {
        let bytes = text.and_then(|t| fault.contents(t)).ok_or_else(|| {
            DeclarationError::one(
                crate::declaration::RefusalClass::Unreadable,
                "",
                format!(
                    "the {} file fault needs a document text to build the file from",
                    fault.as_str()
                ),
            )
        })?;
        return load_file_bytes(loader, &bytes);
    }
    let dir = fresh_dir().map_err(|e| cannot_prepare("temporary directory", &e))?;
    let path = dir.join("declaration.json");
    let loaded = match fault {
        DeclarationFileFault::Directory => match std::fs::create_dir(&path) {
            Ok(()) => loader.load_path(&path),
            Err(e) => Err(cannot_prepare("directory", &e)),
        },
        // Missing, and any fault this host does not know: nothing there.
        _ => loader.load_path(&path),
    };
    let _ = std::fs::remove_dir_all(&dir);
    loaded
}

/// The class a path's refusal counts as when paths are compared (D-78).
/// §7.7.6 makes step 1 the file path's own: a document text over 1 MiB or
/// starting with U+FEFF is `unreadable` from a file, where step 2 makes it
/// `malformed` on every other path. Those are the only texts the kit hands
/// a file path that step 1 refuses, so that pair agrees.
fn compared_class(path: &str, refusal: &DeclarationError) -> crate::declaration::RefusalClass {
    use crate::declaration::RefusalClass;
    if path == "file" && refusal.class == RefusalClass::Unreadable {
        RefusalClass::Malformed
    } else {
        refusal.class
    }
}

/// Compare the outcomes of the paths that applied against the first.
fn compare(
    mut outcomes: Vec<(&'static str, Result<Declaration, DeclarationError>)>,
) -> PathsOutcome {
    let summary = |path: &str, r: &Result<Declaration, DeclarationError>| match r {
        Ok(d) => format!("accepted {}", d.canonical_json()),
        Err(e) => format!("refused {}", compared_class(path, e)),
    };
    let paths: Vec<&'static str> = outcomes.iter().map(|(name, _)| *name).collect();
    let (first, loaded) = outcomes.remove(0);
    let reference = summary(first, &loaded);
    let mut detail = None;
    for (name, outcome) in &outcomes {
        let other = summary(name, outcome);
        if other != reference {
            let at = reference
                .bytes()
                .zip(other.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| reference.len().min(other.len()));
            detail = Some(format!(
                "the {name} path differs from the {first} path at byte {at}: {first} path {reference}; {name} path {other}"
            ));
            break;
        }
    }
    PathsOutcome {
        loaded,
        paths,
        equivalent: detail.is_none(),
        detail,
    }
}

/// The value path, then the builder path when the root is an object (a
/// builder only writes an object's members).
fn value_paths(
    loader: &Loader<'_>,
    document: &Value,
) -> Vec<(&'static str, Result<Declaration, DeclarationError>)> {
    let mut out = vec![("value", loader.load_value(document))];
    if document.is_object() {
        out.push((
            "builder",
            loader.load_builder(&DeclarationBuilder::from_document(document)),
        ));
    }
    out
}

/// Load `document` through the value, file, text and (object root) builder
/// paths and compare the outcomes (§7.7.7); the value path's result is the
/// one the run uses.
pub fn load_on_every_path(loader: &Loader<'_>, document: &Value) -> PathsOutcome {
    let text = serde_json::to_string(document).unwrap_or_default();
    let mut outcomes = value_paths(loader, document);
    outcomes.insert(1, ("file", load_file_bytes(loader, text.as_bytes())));
    outcomes.insert(2, ("text", loader.load_text(&text)));
    compare(outcomes)
}

/// Load raw `text` through the text and file paths, and through the value
/// and (object root) builder paths when it parses exactly; the text path's
/// result is the one the run uses.
pub fn load_text_on_every_path(loader: &Loader<'_>, text: &str) -> PathsOutcome {
    let mut outcomes = vec![
        ("text", loader.load_text(text)),
        ("file", load_file_bytes(loader, text.as_bytes())),
    ];
    if let Some(document) = crate::declaration::text::parse_exact(text) {
        outcomes.extend(value_paths(loader, &document));
    }
    compare(outcomes)
}

/// Load a declaration vector's document through the paths its source
/// allows.
pub fn load_source(loader: &Loader<'_>, source: &DocumentSource) -> PathsOutcome {
    match source {
        DocumentSource::Value(document) => load_on_every_path(loader, document),
        DocumentSource::Text(text) => load_text_on_every_path(loader, text),
        DocumentSource::File(fault, text) => compare(vec![(
            "file",
            load_file_fault(loader, *fault, text.as_deref()),
        )]),
    }
}

fn load_record(value: Value) -> Result<LoadRecord, AdapterError> {
    serde_json::from_value(value).map_err(|e| {
        AdapterError::new(
            Phase::Run,
            AdapterErrorKind::Host(format!("load record: {e}")),
        )
    })
}

fn build_emitter(p: &Prepared, callbacks: &Arc<dyn Callbacks>) -> Emitter {
    let who = next_session();
    let mut b = Emitter::builder(p.version, who)
        .mode(p.mode)
        .composition(p.composition)
        .identity_provider(p.provider.clone())
        .interceptor_timeout(Some(p.interceptor_timeout));
    if let Some(t) = p.approval_timeout {
        b = b.approval_timeout(Some(t));
    }
    for index in 0..p.interceptors {
        b = b.interceptor(Registration {
            name: None,
            at: None,
            timeout: BindingTimeout::Inherit,
            on_error: crate::compose::dispatch::OnError::Deny,
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

impl HostAdapter for ReferenceHost {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        let declaration: Value = match &self.own {
            Some(own) => own.document.clone(),
            None => serde_json::from_str(HOST_DECLARATION).map_err(|e| {
                AdapterError::new(
                    Phase::Handshake,
                    AdapterErrorKind::Host(format!("host.json is not JSON: {e}")),
                )
            })?,
        };
        Ok(HostInfo::new(
            "ctk-reference-host",
            env!("CARGO_PKG_VERSION"),
            vec![SPEC_VERSION_0_1.into(), SPEC_VERSION_DRAFT.into()],
        )
        .with_declaration(declaration)
        .with_features(FEATURES.map(str::to_owned).to_vec()))
    }

    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        self.prepared = Some(prepare(&setup)?);
        Ok(())
    }

    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        let p = self.prepared.as_ref().ok_or_else(|| {
            AdapterError::new(
                Phase::Run,
                AdapterErrorKind::Host("run before setup".into()),
            )
        })?;
        let mut load = None;
        let points = self.own.as_ref().map_or(LoopSurface::FULL, |o| o.points);
        let (emitter, config) = match &p.declaration {
            None => (
                Arc::new(build_emitter(p, &callbacks)),
                // host.json declares buffered_output false and
                // incremental_output, with the continue posture; a narrower
                // surface of its own says how it buffers.
                LoopConfig {
                    output: self
                        .own
                        .as_ref()
                        .map_or(OutputMode::Incremental, |o| o.output),
                },
            ),
            Some(source) => {
                let registry =
                    conformance_registry_on(&callbacks, p.interceptors, self.code_surface())
                        .map_err(|e| AdapterError::new(Phase::Run, AdapterErrorKind::Host(e)))?;
                let loader = Loader::new(&registry).for_spec(p.version);
                let paths = load_source(&loader, source);
                match paths.loaded {
                    Err(refusal) => {
                        // A refusal is a load outcome, never a run: no
                        // emitter, no context, no record.
                        let mut record = RunRecord::new(RunOutcome::Error);
                        record.error = Some(refusal.detail());
                        record.load = Some(load_record(json!({
                            "outcome": "refused",
                            "class": refusal.class.as_str(),
                            "paths_equivalent": paths.equivalent,
                            "detail": paths.detail.unwrap_or_else(|| refusal.detail()),
                        }))?);
                        return Ok(record);
                    }
                    Ok(declared) => {
                        let mut accepted = json!({
                            "outcome": "accepted",
                            "paths_equivalent": paths.equivalent,
                        });
                        if let Some(d) = paths.detail {
                            accepted["detail"] = Value::String(d);
                        }
                        load = Some(load_record(accepted)?);
                        (
                            Arc::new(declared.emitter(next_session())),
                            LoopConfig {
                                output: declared.output_mode(),
                            },
                        )
                    }
                }
            }
        };
        let outcome = run_scenario_on(emitter.clone(), &p.scenario, config, points).await;
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
        record.records = emitter.take_records();
        record.released_output = outcome.released_output.map(Value::String);
        record.persisted = Some(outcome.persisted);
        record.error = outcome.error;
        record.principal_notices = emitter.notices().iter().map(|n| n.to_value()).collect();
        record.load = load;
        Ok(record)
    }

    async fn teardown(&mut self) -> Result<(), AdapterError> {
        self.prepared = None;
        Ok(())
    }
}
