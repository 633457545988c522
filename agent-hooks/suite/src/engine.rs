//! Run vectors on any [`HostAdapter`]: applicability, setup (expect stripped),
//! run with a per-vector timeout, teardown, assertions. `jobs` host
//! instances from a factory share the work; results come back in vector
//! order, identical to a one-job run.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctk_agent_hooks_adapter::{
    AdapterError, Callbacks, HostAdapter, InterceptorBinding, RunRecord, VectorSetup,
};

use crate::assert::{self, Observed};
use crate::declaration::Surface;
use crate::script::ScriptedCallbacks;
use crate::surface::{applicability, Applicability};
use crate::vector::load::LoadedVector;
use crate::vector::model::{SpecVersion, Vector};
use crate::vector::plan::RunnableVector;
use ctk_core::event::Event;
use ctk_core::outcome::{Status, VectorOutcome};
pub use ctk_core::vector_loop::LoopOptions;
use ctk_core::vector_loop::{self, Started, VectorRunner};

/// How the engine runs.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// The spec the run targets.
    pub spec: SpecVersion,
    /// The declared surface.
    pub surface: Surface,
    /// Limit on one vector's setup, run and teardown, each.
    pub vector_timeout: Duration,
    /// How the core's loop runs the vectors: jobs, `--fail-fast`, and
    /// the interruption flag (Ctrl-C).
    pub loop_options: LoopOptions,
}

pub use ctk_core::outcome::{never_ran, NOT_RUN_FAIL_FAST, NOT_RUN_INTERRUPTED};

/// The setup a host receives for `vector`: everything but `expect`.
pub fn setup_for(vector: &Vector, spec: SpecVersion) -> VectorSetup {
    let mut setup = VectorSetup::new(vector.id.clone(), spec.wire(), vector.scenario.clone());
    setup.interceptors = vector
        .scripts()
        .iter()
        .map(|_| InterceptorBinding::everywhere())
        .collect();
    setup.approval_resolver = !vector.approval_script.is_empty();
    setup.redactor = !vector.redact_for_approval.is_empty();
    setup.mode = vector.mode;
    setup.composition = vector.composition();
    setup.identity_provider = vector.identity_provider();
    setup.interceptor_timeout_ms = vector.interceptor_timeout_ms;
    setup.approval_timeout_ms = vector.approval_timeout_ms;
    setup.declaration = vector.host_declaration.clone();
    setup.declaration_text = vector.host_declaration_text.clone();
    setup.declaration_file = vector.host_declaration_file;
    setup
}

/// The text of a harness error, with the host's last stderr lines.
pub fn harness_error_text(e: &AdapterError) -> String {
    ctk_core::outcome::with_stderr_tail(&format!("harness error: {e}"), &e.stderr_tail)
}

async fn bounded<T>(
    limit: Duration,
    what: &str,
    fut: impl std::future::Future<Output = Result<T, AdapterError>>,
) -> Result<T, String> {
    match tokio::time::timeout(limit, fut).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(harness_error_text(&e)),
        Err(_) => Err(format!(
            "{what} did not finish within {} ms",
            limit.as_millis()
        )),
    }
}

/// Run one vector on `host`.
pub async fn run_vector<H: HostAdapter>(
    host: &mut H,
    loaded: &LoadedVector,
    options: &EngineOptions,
) -> VectorOutcome {
    let vector = &loaded.vector;
    match applicability(vector, &options.surface, options.spec) {
        Applicability::Applies => {}
        Applicability::Skip(reason) => return VectorOutcome::skip(&vector.id, reason),
        Applicability::LacksFeature { feature, reason } => {
            return VectorOutcome::lacks_feature(&vector.id, &feature, reason)
        }
    }
    let start = Instant::now();
    let limit = options.vector_timeout;
    let callbacks = ScriptedCallbacks::new(vector);
    if let Err(e) = bounded(limit, "setup", host.setup(setup_for(vector, options.spec))).await {
        return VectorOutcome::error(&vector.id, e, start.elapsed());
    }
    let dyn_callbacks: Arc<dyn Callbacks> = callbacks.clone();
    let ran: Result<RunRecord, String> = bounded(limit, "run", host.run(dyn_callbacks)).await;
    let torn = bounded(limit, "teardown", host.teardown()).await;
    let record = match (ran, torn) {
        (Err(e), _) | (Ok(_), Err(e)) => {
            return VectorOutcome::error(&vector.id, e, start.elapsed())
        }
        (Ok(record), Ok(())) => record,
    };
    let rule_errors = callbacks.rule_errors();
    if !rule_errors.is_empty() {
        return VectorOutcome::error(
            &vector.id,
            format!(
                "the vector's scripted interceptors could not answer: {}",
                rule_errors.join("; ")
            ),
            start.elapsed(),
        );
    }
    if let Some(gap) = unreported(&vector.expect, &record) {
        return VectorOutcome::error(&vector.id, gap, start.elapsed());
    }
    let recorded = callbacks.take_recorded();
    let approval_requests = callbacks.approval_requests();
    let failures = assert::assert_vector(
        &vector.expect,
        Observed {
            record: &record,
            recorded: &recorded,
            approval_requests: &approval_requests,
            posture: options.surface.posture,
            interceptor_zero_first: !vector.is_declaration(),
        },
    );
    charged_to_adapter(
        vector.adapter_contract.as_deref(),
        VectorOutcome::from_failures(&vector.id, failures, start.elapsed()),
    )
}

/// A failed vector that checks the kit's host contract (`adapter_contract`)
/// becomes a harness error naming the section: the host's adapter broke the
/// loop, which says nothing about conformance. Other outcomes pass through.
fn charged_to_adapter(section: Option<&str>, mut outcome: VectorOutcome) -> VectorOutcome {
    if let (Some(section), Status::Fail) = (section, outcome.status) {
        outcome.status = Status::Error;
        outcome.reason = format!(
            "the host's adapter breaks {section} (agent-hooks/adapter/HOSTS.md), the loop every \
             vector relies on: an adapter defect, not a conformance failure; {}",
            outcome.reason
        );
    }
    outcome
}

/// A run-record member this vector checks and the host did not report: a
/// gap in the host's adapter (`agent-hooks/adapter/PROTOCOL.md` §2.2), which
/// says nothing about conformance, so the vector is an error naming it.
fn unreported(expect: &crate::vector::model::Expect, record: &RunRecord) -> Option<String> {
    let checks_records =
        expect.records.as_ref().is_some_and(|r| !r.is_empty()) || expect.identities_equal.is_some();
    let checks_persisted =
        !expect.persisted_must_contain.is_empty() || !expect.persisted_must_not_contain.is_empty();
    let member = if checks_records && !record.records_reported {
        "records"
    } else if checks_persisted && record.persisted.is_none() {
        "persisted"
    } else {
        return None;
    };
    Some(format!(
        "the host's run record has no `{member}`, which this vector checks: an adapter gap, not a \
         conformance failure (agent-hooks/adapter/PROTOCOL.md §2.2, vector/run: report `{member}`, \
         empty when there is nothing)"
    ))
}

/// Runs vectors on one host for the core's loop; the loop makes one per
/// job.
struct HostRunner<H, V> {
    host: H,
    options: Arc<EngineOptions>,
    vectors: PhantomData<fn() -> V>,
}

impl<H: HostAdapter + 'static, V: RunnableVector> VectorRunner for HostRunner<H, V> {
    type Vector = V;

    async fn run(
        mut self,
        vectors: Arc<Vec<V>>,
        index: usize,
        started: Started,
    ) -> (Self, VectorOutcome) {
        // The vector is borrowed from the shared list by index (a planned
        // one is parsed here, and dropped with the run): no parsed vector
        // outlives its run.
        let item = &vectors[index];
        let outcome = match item.runnable() {
            Err(e) => VectorOutcome::error(item.id(), e, Duration::ZERO),
            Ok(loaded) => {
                if applicability(&loaded.vector, &self.options.surface, self.options.spec)
                    == Applicability::Applies
                {
                    started.announce();
                }
                run_vector(&mut self.host, &loaded, &self.options).await
            }
        };
        (self, outcome)
    }
}

/// Run every vector on `jobs` host adapters made by `factory`, in the core's
/// loop ([`ctk_core::vector_loop`]); `on_event` sees progress. The outcomes
/// come back in vector order. A
/// [`PlannedVector`](crate::vector::plan::PlannedVector) is parsed by the
/// worker that runs it and dropped after its run, so only `jobs` parsed
/// vectors are ever held.
pub async fn run_all<H, F, V>(
    factory: F,
    vectors: Arc<Vec<V>>,
    options: EngineOptions,
    on_event: impl FnMut(&Event),
) -> Vec<VectorOutcome>
where
    H: HostAdapter + 'static,
    F: Fn() -> H + Send + Sync + 'static,
    V: RunnableVector,
{
    let mut outcomes = Vec::with_capacity(vectors.len());
    run_each(factory, vectors, options, on_event, |_, outcome| {
        outcomes.push(outcome);
    })
    .await;
    outcomes
}

/// [`run_all`], handing each outcome to `on_outcome` in vector order as
/// soon as the ones before it are in ([`vector_loop::run_each`]), for a
/// report written as the run goes.
pub async fn run_each<H, F, V>(
    factory: F,
    vectors: Arc<Vec<V>>,
    options: EngineOptions,
    on_event: impl FnMut(&Event),
    on_outcome: impl FnMut(usize, VectorOutcome),
) where
    H: HostAdapter + 'static,
    F: Fn() -> H + Send + Sync + 'static,
    V: RunnableVector,
{
    let loop_options = options.loop_options.clone();
    let options = Arc::new(options);
    vector_loop::run_each(
        move || HostRunner {
            host: factory(),
            options: options.clone(),
            vectors: PhantomData,
        },
        vectors,
        loop_options,
        on_event,
        on_outcome,
    )
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctk_agent_hooks_adapter::{AdapterErrorKind, Phase, RunOutcome};

    fn expect_of(expect: &str) -> crate::vector::model::Expect {
        let text = format!(
            r#"{{"id":"CTK-9990","title":"t","spec_clause":"10.3","scenario":{{"input":{{"content":"x","role":"user"}}}},
                "interceptor_script":[],"expect":{expect}}}"#
        );
        crate::vector::load::parse_vector(std::path::Path::new("v.json"), &text)
            .expect("a vector")
            .vector
            .expect
    }

    fn wire(record: &str) -> RunRecord {
        serde_json::from_str(record).expect("a run record")
    }

    #[test]
    fn a_harness_error_s_stderr_tail_splits_the_way_a_report_page_reads_it() {
        let e = AdapterError::new(
            Phase::Setup,
            AdapterErrorKind::Exited {
                status: "exit status: 101".into(),
            },
        )
        .with_stderr(vec!["first <line>".into(), "second".into()]);
        let text = harness_error_text(&e);
        let (reason, tail) = ctk_core::outcome::split_stderr_tail(&text);
        assert!(reason.starts_with("harness error: "), "{reason}");
        assert_eq!(tail, Some(vec!["first <line>", "second"]));
    }

    #[test]
    fn an_unreported_member_a_vector_checks_is_an_adapter_gap() {
        let records = expect_of(
            r#"{"interceptions":[],"run_outcome":"completed","records":[{"interception_point":"input"}]}"#,
        );
        let gap = unreported(&records, &wire(r#"{"outcome":"completed"}"#)).expect("a gap");
        assert!(
            gap.contains("no `records`") && gap.contains("PROTOCOL.md §2.2"),
            "{gap}"
        );
        assert_eq!(
            unreported(&records, &wire(r#"{"outcome":"completed","records":[]}"#)),
            None
        );
        assert_eq!(
            unreported(&records, &RunRecord::new(RunOutcome::Completed)),
            None
        );
        let persisted = expect_of(
            r#"{"interceptions":[],"run_outcome":"completed","persisted_must_contain":["label"]}"#,
        );
        let gap = unreported(&persisted, &wire(r#"{"outcome":"completed"}"#)).expect("a gap");
        assert!(gap.contains("no `persisted`"), "{gap}");
        assert_eq!(
            unreported(
                &persisted,
                &wire(r#"{"outcome":"completed","persisted":{}}"#)
            ),
            None
        );
        let neither = expect_of(r#"{"interceptions":[],"run_outcome":"completed"}"#);
        assert_eq!(
            unreported(&neither, &wire(r#"{"outcome":"completed"}"#)),
            None
        );
    }

    #[test]
    fn a_failed_check_of_the_host_contract_is_an_adapter_error() {
        let failed = || {
            VectorOutcome::from_failures(
                "CTK-9991",
                vec![ctk_core::outcome::AssertionFailure {
                    key: "interceptions[1].context.messages".into(),
                    message: "differs".into(),
                    expected: None,
                    actual: None,
                    diff: None,
                }],
                Duration::ZERO,
            )
        };
        let charged = charged_to_adapter(Some("HOSTS.md §4.1"), failed());
        assert_eq!(charged.status, Status::Error);
        assert!(
            charged.reason.contains("breaks HOSTS.md §4.1")
                && charged
                    .reason
                    .contains("interceptions[1].context.messages: differs"),
            "{}",
            charged.reason
        );
        assert_eq!(charged_to_adapter(None, failed()).status, Status::Fail);
        let passed = VectorOutcome::from_failures("CTK-9991", Vec::new(), Duration::ZERO);
        assert_eq!(
            charged_to_adapter(Some("HOSTS.md §4.1"), passed).status,
            Status::Pass
        );
    }

    #[test]
    fn harness_errors_carry_the_stderr_tail() {
        let e = AdapterError::new(
            Phase::Setup,
            AdapterErrorKind::Exited {
                status: "exit status: 101".into(),
            },
        )
        .with_stderr(vec![
            "thread main panicked".into(),
            "note: run with RUST_BACKTRACE=1".into(),
        ]);
        assert_eq!(
            harness_error_text(&e),
            "harness error: setup: the host exited (exit status: 101); host stderr (last lines): thread main panicked | note: run with RUST_BACKTRACE=1"
        );
    }

    #[test]
    fn setup_strips_expectations_and_maps_every_member() {
        let text = r#"{"id":"AH-CTK-900","title":"t","spec_clause":"1","scenario":{"input":{"content":18446744073709551616,"role":"user"}},
            "mode":"evaluate_only","composition":{"profile":"parallel/unanimous","on_disagreement":"approval"},"identity_provider":null,
            "interceptor_timeout_ms":50,"interceptor_scripts":[[],[]],"approval_script":[{"resolve":{"outcome":"approve"}}],
            "redact_for_approval":["$target.a"],"expect":{"interceptions":[],"run_outcome":"completed"}}"#;
        let v = crate::vector::load::parse_vector(std::path::Path::new("v.json"), text)
            .expect("vector")
            .vector;
        let setup = setup_for(&v, SpecVersion::V0_1);
        let json = serde_json::to_value(&setup).expect("serializes");
        assert_eq!(json["spec"], "agent-hooks/0.1");
        assert_eq!(json["interceptors"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            (
                json["approval_resolver"].as_bool(),
                json["redactor"].as_bool()
            ),
            (Some(true), Some(true))
        );
        assert_eq!(json["mode"], "evaluate_only");
        assert_eq!(json["composition"]["on_disagreement"], "approval");
        assert_eq!(json["identity_provider"], serde_json::Value::Null);
        assert_eq!(json["interceptor_timeout_ms"], 50);
        assert!(setup.scenario.get().contains("18446744073709551616"));
        assert!(json.get("expect").is_none());
    }
}
