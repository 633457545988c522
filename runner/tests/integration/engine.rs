//! The engine on a fake host: hand-built run records, scripted callbacks
//! called for real, harness errors, timeouts, `--jobs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ctk::event::Event;
use ctk::outcome::{Status, VectorOutcome};
use ctk_agent_hooks_adapter::{
    AdapterError, AdapterErrorKind, Callbacks, HostAdapter, HostInfo, InterceptorReply, Phase,
    RunOutcome, RunRecord, VectorSetup,
};
use ctk_agent_hooks_suite::declaration;
use ctk_agent_hooks_suite::engine::{run_all, EngineOptions, LoopOptions};
use ctk_agent_hooks_suite::vector::load::{load, VectorSource};
use ctk_agent_hooks_suite::vector::model::SpecVersion;
use serde_json::{json, Value};

/// A host double: one context at `input`, record built from the verdict.
#[derive(Default)]
struct Fake {
    setup: Option<VectorSetup>,
}

impl HostAdapter for Fake {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        Ok(HostInfo::new("fake", "1", vec!["agent-hooks/0.1".into()]))
    }
    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        let text = serde_json::to_string(&setup).expect("setup serializes");
        assert!(
            !text.contains("\"expect\""),
            "a setup must never carry expectations"
        );
        self.setup = Some(setup);
        Ok(())
    }
    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        let id = self
            .setup
            .as_ref()
            .map(|s| s.vector_id.clone())
            .unwrap_or_default();
        match id.as_str() {
            "AH-CTK-902" => {
                return Err(AdapterError::new(
                    Phase::Run,
                    AdapterErrorKind::Host("boom".into()),
                ))
            }
            "AH-CTK-903" => std::future::pending::<()>().await,
            "AH-CTK-907" => panic!("the fake host falls over"),
            _ => {}
        }
        let mut ctx = json!({"spec": "agent-hooks/0.1", "interception_point": "input", "timestamp": "2026-01-01T00:00:00.000Z", "sequence": 1,
            "agent": {"id": "a", "framework": "f"}, "session": {"id": "s"}, "target": {"content": "hi", "role": "user"},
            "input": {"content": "hi", "role": "user"}});
        let verdict = match callbacks.intercept(0, &mut ctx).await {
            InterceptorReply::Response(v) => v,
            _ => json!({"decision": "deny", "reason": "host_error:interceptor_failed"}),
        };
        let blocked = verdict["decision"] == "deny";
        let mut record = RunRecord::new(if blocked {
            RunOutcome::Blocked
        } else {
            RunOutcome::Completed
        });
        record
            .records
            .push(json!({"interception_point": "input", "verdict": verdict}));
        Ok(record)
    }
    async fn teardown(&mut self) -> Result<(), AdapterError> {
        self.setup = None;
        Ok(())
    }
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine")
}

fn options(jobs: usize) -> EngineOptions {
    let doc: Value =
        serde_json::from_str(ctk_agent_hooks_reference_host::HOST_DECLARATION).expect("json");
    EngineOptions {
        spec: SpecVersion::V0_1,
        surface: declaration::surface(&doc),
        vector_timeout: Duration::from_millis(200),
        loop_options: LoopOptions {
            jobs,
            fail_fast: false,
            interrupted: Arc::default(),
        },
    }
}

fn run(jobs: usize) -> (Vec<VectorOutcome>, usize) {
    run_dir(data(), jobs)
}

fn run_dir(dir: PathBuf, jobs: usize) -> (Vec<VectorOutcome>, usize) {
    let vectors = Arc::new(load(&VectorSource::Dir(dir)).expect("test vectors load"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut finished = 0;
    let outcomes = rt.block_on(run_all(Fake::default, vectors, options(jobs), |e| {
        if matches!(e, Event::VectorFinished { .. }) {
            finished += 1;
        }
    }));
    (outcomes, finished)
}

fn statuses(outcomes: &[VectorOutcome]) -> Vec<(String, Status, String)> {
    outcomes
        .iter()
        .map(|o| (o.id.clone(), o.status, o.reason.clone()))
        .collect()
}

#[test]
fn every_outcome_kind_and_the_run_goes_on() {
    let (outcomes, finished) = run(1);
    assert_eq!(finished, 6);
    let got = statuses(&outcomes);
    let want = vec![
        ("AH-CTK-901".to_owned(), Status::Pass, String::new()),
        (
            "AH-CTK-902".to_owned(),
            Status::Error,
            "harness error: run: the host reported an error: boom".to_owned(),
        ),
        (
            "AH-CTK-903".to_owned(),
            Status::Error,
            "run did not finish within 200 ms".to_owned(),
        ),
        (
            "AH-CTK-904".to_owned(),
            Status::Fail,
            "run_outcome: run outcome differs".to_owned(),
        ),
        (
            "AH-CTK-905".to_owned(),
            Status::Skip,
            "missing capabilities [\"buffered_output\"]".to_owned(),
        ),
        (
            "AH-CTK-906".to_owned(),
            Status::Skip,
            "vector is for spec [\"draft\"], the run targets 0.1".to_owned(),
        ),
    ];
    assert_eq!(got, want);
    let failure = &outcomes[3].failures[0];
    assert_eq!(failure.expected, Some(json!("error")));
    assert_eq!(failure.actual, Some(json!("completed")));
}

#[test]
fn jobs_give_identical_results_in_vector_order() {
    let (one, _) = run(1);
    let (three, _) = run(3);
    assert_eq!(statuses(&one), statuses(&three));
    let strip = |o: &[VectorOutcome]| o.iter().map(|o| o.failures.clone()).collect::<Vec<_>>();
    assert_eq!(strip(&one), strip(&three));
}

/// A vector that waits out its timeout holds one worker only: with two,
/// the vectors queued after it finish while it waits (an ordering, not a
/// window: the wait is 200 ms, the rest take microseconds).
#[test]
fn a_vector_waiting_out_its_timeout_does_not_hold_up_the_others() {
    let vectors = Arc::new(load(&VectorSource::Dir(data())).expect("test vectors load"));
    let hang = vectors
        .iter()
        .position(|v| v.vector.id == "AH-CTK-903")
        .expect("AH-CTK-903");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut order = Vec::new();
    let outcomes = rt.block_on(run_all(Fake::default, vectors.clone(), options(2), |e| {
        if let Event::VectorFinished { index, .. } = e {
            order.push(*index);
        }
    }));
    assert_eq!(order.len(), vectors.len());
    assert_eq!(order.last(), Some(&hang), "finish order {order:?}");
    assert_eq!(
        statuses(&outcomes),
        statuses(&run(1).0),
        "same results in vector order"
    );
}

/// Planned vectors are parsed by the worker that runs them: the results
/// equal a loaded run's, and a file edited after planning is an error
/// naming it, never a verdict on text the report does not name.
#[test]
fn planned_vectors_run_as_loaded_ones_and_an_edited_file_is_an_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for entry in std::fs::read_dir(data()).expect("data") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, tmp.path().join(path.file_name().expect("name"))).expect("copy");
    }
    let planned = Arc::new(
        ctk_agent_hooks_suite::vector::plan::plan(&VectorSource::Dir(tmp.path().to_path_buf()))
            .expect("plans"),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let outcomes = rt.block_on(run_all(Fake::default, planned.clone(), options(1), |_| {}));
    assert_eq!(statuses(&outcomes), statuses(&run(1).0));

    let edited = tmp.path().join("AH-CTK-901-deny-input.json");
    let text = std::fs::read_to_string(&edited).expect("read");
    std::fs::write(
        &edited,
        text.replacen("\"title\": \"", "\"title\": \"edited ", 1),
    )
    .expect("edit");
    let outcomes = rt.block_on(run_all(Fake::default, planned, options(1), |_| {}));
    assert_eq!(outcomes[0].status, Status::Error);
    assert!(
        outcomes[0]
            .reason
            .contains("AH-CTK-901-deny-input.json changed after the run loaded it"),
        "{}",
        outcomes[0].reason
    );
    assert_eq!(statuses(&outcomes[1..]), statuses(&run(1).0)[1..]);
}

#[test]
fn a_panicking_host_costs_one_vector() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/panic");
    let (outcomes, finished) = run_dir(dir, 1);
    assert_eq!(finished, 2);
    assert_eq!(outcomes[0].status, Status::Error);
    assert!(
        outcomes[0]
            .reason
            .starts_with("this vector's run panicked (a linked host's code or the kit's)"),
        "{}",
        outcomes[0].reason
    );
    assert_eq!(outcomes[1].status, Status::Pass, "{:?}", outcomes[1]);
}

#[test]
fn an_interrupted_run_keeps_what_ran_and_reports_the_rest_as_not_run() {
    let vectors = Arc::new(load(&VectorSource::Dir(data())).expect("test vectors load"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let uninterrupted = statuses(&run(1).0);
    let not_run = |o: &VectorOutcome| {
        o.status == Status::Error && o.reason == ctk_agent_hooks_suite::engine::NOT_RUN_INTERRUPTED
    };

    // Interrupted before anything starts: nothing runs, nothing passes.
    let opts = options(1);
    opts.loop_options
        .interrupted
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let outcomes = rt.block_on(run_all(Fake::default, vectors.clone(), opts, |_| {}));
    assert_eq!(outcomes.len(), vectors.len());
    assert!(outcomes.iter().all(not_run), "{:?}", statuses(&outcomes));

    // Interrupted after the first vector: what ran keeps its own outcome,
    // the rest is reported as not run; no vector is lost or passed unseen.
    let opts = options(1);
    let flag = opts.loop_options.interrupted.clone();
    let outcomes = rt.block_on(run_all(Fake::default, vectors.clone(), opts, |e| {
        if matches!(e, Event::VectorFinished { .. }) {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }));
    assert_eq!(outcomes.len(), vectors.len());
    assert_eq!(statuses(&outcomes[..1]), uninterrupted[..1]);
    for (o, want) in outcomes.iter().zip(&uninterrupted) {
        assert!(
            not_run(o) || (o.id.clone(), o.status, o.reason.clone()) == *want,
            "{}: {:?}",
            o.id,
            o.reason
        );
    }
}

/// A host whose own declaration breaks the declaration schema.
#[derive(Default)]
struct BadDeclaration(Fake);

impl HostAdapter for BadDeclaration {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        Ok(
            HostInfo::new("bad", "1", vec!["agent-hooks/0.1".into()]).with_declaration(
                json!({"declaration": "agent-hooks-declaration/1.0", "bindings": "none"}),
            ),
        )
    }
    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        self.0.setup(setup).await
    }
    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        self.0.run(callbacks).await
    }
    async fn teardown(&mut self) -> Result<(), AdapterError> {
        self.0.teardown().await
    }
}

#[test]
fn a_host_whose_own_declaration_is_broken_is_a_host_error() {
    let vectors = Arc::new(
        ctk_agent_hooks_suite::vector::plan::plan(&VectorSource::Dir(data()))
            .expect("test vectors plan"),
    );
    let job = ctk::cli::run::Job {
        spec: SpecVersion::V0_1,
        vectors,
        vector_source: "tests/data/engine".into(),
        filtered: false,
        declaration: None,
        jobs: 1,
        vector_timeout: Duration::from_millis(200),
        interrupted: Arc::default(),
        fail_fast: false,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let err = rt
        .block_on(ctk::cli::run::drive(BadDeclaration::default, job, |_| {}))
        .expect_err("refused");
    assert!(matches!(err, ctk::cli::CliError::Harness(_)), "{err}");
    assert_eq!(err.exit_code(), ctk::exit_code::HARNESS, "{err}");
    assert!(err.to_string().contains("/bindings"), "{err}");
}

/// A context-sized fill is sized against the context the host sent and
/// answered; one that cannot be sized makes the interceptor raise, and the
/// vector is an error naming the interceptor, the rule and the point, not a
/// verdict on the host.
#[test]
fn context_sized_fills_are_answered_or_the_vector_is_an_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vector = |id: &str, size: u64| {
        json!({"id": id, "title": "a fill", "spec_clause": "12.3", "part": "identity/canonical",
            "scenario": {"input": {"content": "hi", "role": "user"}},
            "interceptor_script": [
                {"at": "input", "match": {"input.content": "nope"}, "return": {"decision": "deny", "reason": "ctk:no"}},
                {"at": "input", "return": {"decision": "transform", "transform": {"path": "$target.content",
                    "value": {"$ctk.generate": {"pad_context_to": size}}}}}
            ],
            "expect": {"sequence_strict": false, "interceptions": [{"interception_point": "input"}],
                "records": [{"interception_point": "input", "assert": {"verdict.decision": "transform"}}],
                "run_outcome": "completed"}})
    };
    for (id, size) in [("CTK-9911", 1000), ("CTK-9912", 10)] {
        std::fs::write(
            tmp.path().join(format!("{id}.json")),
            serde_json::to_string(&vector(id, size)).expect("json"),
        )
        .expect("write");
    }
    let (outcomes, _) = run_dir(tmp.path().to_path_buf(), 1);
    assert_eq!(outcomes[0].status, Status::Pass, "{:?}", outcomes[0]);
    assert_eq!(outcomes[1].status, Status::Error, "{:?}", outcomes[1]);
    assert!(
        outcomes[1].reason.starts_with(
            "the vector's scripted interceptors could not answer: interceptor 0's rule 1 at input: with an empty fill the composed context is already "
        ) && outcomes[1].reason.ends_with(" bytes, beyond 10"),
        "{}",
        outcomes[1].reason
    );
}
