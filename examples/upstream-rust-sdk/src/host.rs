//! [`UpstreamSdkHost`]: the kit's [`HostAdapter`] over the crate's emitter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use agent_hooks::ctk::{HostSurface, ToolSeamPosture};
use agent_hooks::{InterceptionEmitter, SPEC_VERSION};
use ctk_agent_hooks_adapter::{
    AdapterError, AdapterErrorKind, Callbacks, HostAdapter, HostInfo, LoadRecord, Phase,
    RunOutcome, RunRecord, VectorSetup,
};
use serde_json::{json, Value};

use crate::agent_loop;
use crate::errors::SetupError;
use crate::load::{field_document, load_source, DocumentSource};
use crate::plumbing::{conformance_registry, CallbackSlot, RedactorTimeout};
use crate::scenario::Scenario;

/// This host's declaration (`host.json`), sent in the handshake.
pub const HOST_DECLARATION: &str = include_str!("../host.json");

/// The capabilities of the crate's own reference harness
/// (`agent_hooks::ctk::ReferenceHarness::capabilities`, and the surface of
/// `REFERENCE_DECLARATION`): this host claims no more.
pub const CAPABILITIES: [&str; 4] = [
    "host_declaration",
    "int64_json",
    "model_calls",
    "tool_calls",
];

/// The code surface the crate's loader measures every document against
/// (§7.7.4): the crate's own derivation from [`CAPABILITIES`] and the
/// `continue` posture (every point, every profile and knob value, buffered
/// output, this build's timeout support, every contract version it accepts).
pub fn code_surface() -> HostSurface {
    HostSurface::from_capabilities(
        CAPABILITIES.iter().map(|c| (*c).to_owned()),
        ToolSeamPosture::Continue,
    )
}

static SESSIONS: AtomicU64 = AtomicU64::new(1);

/// One vector, prepared by `setup`.
struct Prepared {
    scenario: Scenario,
    slot: CallbackSlot,
    redactor_timeout: RedactorTimeout,
    interceptors: usize,
    plan: Plan,
}

enum Plan {
    /// A field-configured vector: the emitter the crate built at setup.
    Field(Box<InterceptionEmitter>),
    /// A declaration vector: the document, loaded when the vector runs.
    Declared(DocumentSource),
}

/// A host on agent-hooks-sdk 0.1.0-beta.3, as the kit drives it.
#[derive(Default)]
pub struct UpstreamSdkHost {
    prepared: Option<Prepared>,
}

impl UpstreamSdkHost {
    /// A host with nothing set up.
    pub fn new() -> Self {
        Self::default()
    }
}

fn host_error(phase: Phase, detail: impl Into<String>) -> AdapterError {
    AdapterError::new(phase, AdapterErrorKind::Host(detail.into()))
}

fn setup_error(e: SetupError) -> AdapterError {
    host_error(Phase::Setup, e.to_string())
}

fn millis(ms: Option<u64>) -> Option<Duration> {
    ms.map(Duration::from_millis)
}

fn load_record(value: Value) -> Result<LoadRecord, AdapterError> {
    serde_json::from_value(value).map_err(|e| host_error(Phase::Run, format!("load record: {e}")))
}

impl HostAdapter for UpstreamSdkHost {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        let declaration: Value = serde_json::from_str(HOST_DECLARATION)
            .map_err(|e| host_error(Phase::Handshake, format!("host.json is not JSON: {e}")))?;
        Ok(HostInfo::new(
            "upstream-rust-sdk-host",
            concat!(env!("CARGO_PKG_VERSION"), " (agent-hooks-sdk 0.1.0-beta.3)"),
            vec![SPEC_VERSION.to_owned()],
        )
        .with_declaration(declaration)
        // Every ctk-harness/1 feature of ctk 0.2.0 (agent-hooks/adapter/PROTOCOL.md §7):
        // this adapter was written against that contract.
        .with_features(
            [
                "generated-values",
                "persisted-state",
                "load-detail",
                "released-output-absent",
                "deep-lines",
                "context-sized-fills",
                "declaration-path-classes",
                "agent-steps",
            ]
            .map(str::to_owned)
            .to_vec(),
        ))
    }

    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        self.prepared = None;
        if setup.spec != SPEC_VERSION {
            return Err(setup_error(SetupError::UnsupportedSpec(setup.spec)));
        }
        let scenario = Scenario::parse(setup.scenario.get()).map_err(setup_error)?;
        let slot = CallbackSlot::default();
        let redactor_timeout = RedactorTimeout::default();
        let interceptors = setup.interceptors.len();
        let plan = match DocumentSource::of(&setup) {
            Some(source) => Plan::Declared(source),
            None => {
                let registry =
                    conformance_registry(code_surface(), interceptors, &slot, &redactor_timeout);
                let emitter =
                    InterceptionEmitter::from_declaration_value(field_document(&setup), &registry)
                        .map_err(|e| setup_error(SetupError::Configuration(e)))?;
                redactor_timeout.set(approval_timeout(&emitter));
                Plan::Field(Box::new(emitter))
            }
        };
        self.prepared = Some(Prepared {
            scenario,
            slot,
            redactor_timeout,
            interceptors,
            plan,
        });
        Ok(())
    }

    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        let prepared = self
            .prepared
            .take()
            .ok_or_else(|| host_error(Phase::Run, "vector/run before vector/setup"))?;
        if tokio::runtime::Handle::current().runtime_flavor()
            != tokio::runtime::RuntimeFlavor::MultiThread
        {
            return Err(host_error(
                Phase::Run,
                "this host needs a multi-thread tokio runtime (the crate's redactor is synchronous)",
            ));
        }
        prepared.slot.set(callbacks);
        let mut load = None;
        let emitter = match prepared.plan {
            Plan::Field(emitter) => *emitter,
            Plan::Declared(source) => {
                let registry = || {
                    conformance_registry(
                        code_surface(),
                        prepared.interceptors,
                        &prepared.slot,
                        &prepared.redactor_timeout,
                    )
                };
                let loaded = load_source(&source, &registry);
                match loaded.emitter {
                    Err(refusal) => {
                        // A refusal is a load outcome, never a run: nothing
                        // was dispatched and no record written.
                        let mut record = RunRecord::new(RunOutcome::Error);
                        record.error = Some(refusal.to_string());
                        record.persisted = Some(json!({}));
                        record.load = Some(load_record(json!({
                            "outcome": "refused",
                            "class": refusal.code(),
                            "paths_equivalent": loaded.equivalent,
                            "detail": loaded.detail.unwrap_or_else(|| refusal.to_string()),
                        }))?);
                        return Ok(record);
                    }
                    Ok(emitter) => {
                        let mut accepted =
                            json!({"outcome": "accepted", "paths_equivalent": loaded.equivalent});
                        if let Some(d) = loaded.detail {
                            accepted["detail"] = Value::String(d);
                        }
                        load = Some(load_record(accepted)?);
                        prepared.redactor_timeout.set(approval_timeout(&emitter));
                        emitter
                    }
                }
            }
        };
        let posture = emitter
            .declaration()
            .map(|d| d.configuration.posture.tool_seam_host_error)
            .unwrap_or(ToolSeamPosture::Continue);
        let session = format!("sess-{}", SESSIONS.fetch_add(1, Ordering::SeqCst));
        let scenario = prepared.scenario;
        // Its own task: the crate's redactor blocks its thread on a
        // callback, whose answer the stdio server reads in another task.
        let ran = tokio::spawn(async move {
            let mut emitter = emitter;
            let outcome = agent_loop::run(&mut emitter, &scenario, posture, &session).await;
            let records: Vec<Value> = emitter
                .records()
                .iter()
                .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
                .collect();
            (outcome, records)
        })
        .await
        .map_err(|e| host_error(Phase::Run, format!("the agent loop failed: {e}")))?;
        let (outcome, records) = ran;
        let mut record = RunRecord::new(outcome.outcome);
        record.final_output = outcome.final_output;
        record.tool_invocations = outcome.tool_invocations;
        record.records = records;
        record.persisted = Some(outcome.persisted);
        record.error = outcome.error;
        record.load = load;
        Ok(record)
    }

    async fn teardown(&mut self) -> Result<(), AdapterError> {
        self.prepared = None;
        Ok(())
    }
}

/// The approval timeout the crate resolved for `emitter` (§7.7.3), which
/// the redactor answers within too (HOSTS.md §6).
fn approval_timeout(emitter: &InterceptionEmitter) -> Option<Duration> {
    emitter
        .declaration()
        .and_then(|d| millis(d.configuration.timeouts.approval_resolver_ms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_hooks::ctk::{HostDeclaration, REFERENCE_DECLARATION};
    use agent_hooks::declaration::resolve_surface_only;

    fn resolved_surface(document: &str) -> Value {
        let decl = HostDeclaration::from_json(document).expect("the crate accepts the document");
        let resolved =
            resolve_surface_only(&decl, &code_surface()).expect("within the code surface");
        serde_json::to_value(&resolved.surface).expect("serializes")
    }

    /// host.json claims exactly the surface of the crate's own reference
    /// declaration, and the crate's loader accepts it against this host's
    /// code surface.
    #[test]
    fn host_json_states_the_crates_own_surface() {
        assert_eq!(
            resolved_surface(HOST_DECLARATION),
            resolved_surface(REFERENCE_DECLARATION)
        );
        let host: Value = serde_json::from_str(HOST_DECLARATION).expect("JSON");
        assert_eq!(host["surface"]["buffered_output"], true);
        assert_eq!(
            host["configuration"]["posture"]["tool_seam_host_error"],
            "continue"
        );
    }
}
