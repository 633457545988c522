//! Declarations: declaration vectors fail a host that gets the load outcome
//! wrong; `ctk run --declaration` checks the document and its surface.

use std::sync::Arc;
use std::time::Duration;

use ctk::outcome::Status;
use ctk_agent_hooks_adapter::{
    AdapterError, Callbacks, HostAdapter, HostInfo, LoadRecord, RunOutcome, RunRecord, VectorSetup,
};
use ctk_agent_hooks_suite::declaration;
use ctk_agent_hooks_suite::engine::{run_vector, EngineOptions, LoopOptions};
use ctk_agent_hooks_suite::vector::load::{load, LoadedVector, VectorSource};
use ctk_agent_hooks_suite::vector::model::SpecVersion;
use serde_json::{json, Value};

/// Answers every declaration with a fixed load outcome, whatever the
/// document says, and emits nothing.
struct Loader {
    load: Value,
    saw_declaration: bool,
}

impl HostAdapter for Loader {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        Ok(HostInfo::new("loader", "1", vec!["agent-hooks/0.1".into()]))
    }
    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        self.saw_declaration = setup.declaration.is_some()
            || setup.declaration_text.is_some()
            || setup.declaration_file.is_some();
        Ok(())
    }
    async fn run(&mut self, _callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        assert!(
            self.saw_declaration,
            "declaration vectors hand the document to the host"
        );
        let mut record = RunRecord::new(if self.load["outcome"] == "refused" {
            RunOutcome::Blocked
        } else {
            RunOutcome::Completed
        });
        let load: LoadRecord = serde_json::from_value(self.load.clone()).expect("a load record");
        record.load = Some(load);
        Ok(record)
    }
    async fn teardown(&mut self) -> Result<(), AdapterError> {
        Ok(())
    }
}

fn options() -> EngineOptions {
    let doc: Value =
        serde_json::from_str(ctk_agent_hooks_reference_host::HOST_DECLARATION).expect("json");
    let mut surface = declaration::surface(&doc);
    surface.capabilities.insert("host_declaration".into());
    EngineOptions {
        spec: SpecVersion::V0_1,
        surface,
        vector_timeout: Duration::from_secs(5),
        loop_options: LoopOptions {
            jobs: 1,
            fail_fast: false,
            interrupted: Default::default(),
        },
    }
}

fn declaration_vectors() -> Vec<LoadedVector> {
    let all = load(&VectorSource::Embedded(SpecVersion::V0_1)).expect("embedded vectors");
    all.into_iter()
        .filter(|v| v.vector.part().starts_with("declaration/"))
        .collect()
}

fn outcome(v: &LoadedVector, load: Value) -> (Status, String) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut host = Loader {
        load,
        saw_declaration: false,
    };
    // Each vector on a surface it applies to: the posture it names, and a
    // host whose own declaration buffers where it asks for one.
    let mut options = options();
    if v.vector.host_posture.as_deref() == Some("terminate") {
        options.surface.posture = declaration::Posture::Terminate;
    }
    if v.vector.host_buffers_only {
        options.surface.own_buffered_output = Some(true);
    }
    let o = rt.block_on(run_vector(&mut host, v, &options));
    (o.status, o.reason)
}

#[test]
fn a_host_that_gets_the_load_outcome_wrong_fails_every_declaration_vector() {
    let vectors = declaration_vectors();
    assert!(vectors.len() >= 50, "{} declaration vectors", vectors.len());
    let (mut refusals, mut accepts) = (0, 0);
    for v in &vectors {
        let want = v
            .vector
            .expect
            .load
            .as_ref()
            .expect("declaration vectors expect a load");
        let (flipped, honest) = if want.outcome == "refused" {
            refusals += 1;
            let class = want.class.clone().expect("refusal vectors name the class");
            (
                json!({"outcome": "accepted", "paths_equivalent": true}),
                // The honest refusal's error text names what the vector
                // wants named, as a loader's would.
                Some(
                    json!({"outcome": "refused", "class": class, "paths_equivalent": want.paths_equivalent,
                           "detail": format!("refused; names: {}", want.detail_contains.join(", "))}),
                ),
            )
        } else {
            accepts += 1;
            (
                json!({"outcome": "refused", "class": "declaration_error:invalid_field"}),
                None,
            )
        };
        let (status, reason) = outcome(v, flipped);
        assert_eq!(
            status,
            Status::Fail,
            "{} must fail when the host flips the load outcome",
            v.vector.id
        );
        assert!(reason.starts_with("load"), "{}: {reason}", v.vector.id);
        if let Some(honest) = honest {
            let (status, reason) = outcome(v, honest);
            assert_eq!(status, Status::Pass, "{}: {reason}", v.vector.id);
            // The right outcome with the wrong class still fails.
            let (status, reason) = outcome(
                v,
                json!({"outcome": "refused", "class": "declaration_error:no_such_class"}),
            );
            assert_eq!(status, Status::Fail, "{}", v.vector.id);
            assert!(
                reason.starts_with("load.class"),
                "{}: {reason}",
                v.vector.id
            );
        }
    }
    assert!(
        refusals > 0 && accepts > 0,
        "{refusals} refusals, {accepts} accepts"
    );
}

/// The vectors of the two classes a parsed value could not reach before
/// `host_declaration_text` and `host_declaration_file`: each reaches the
/// host as the setup member of the same name, nothing else of the document
/// is sent, and the load assertion passes only on the right class.
#[test]
fn text_and_file_vectors_reach_the_host_verbatim_and_are_judged_by_class() {
    use ctk_agent_hooks_suite::engine::setup_for;
    let vectors = declaration_vectors();
    let class_of = |v: &LoadedVector| {
        v.vector
            .expect
            .load
            .as_ref()
            .and_then(|l| l.class.clone())
            .unwrap_or_default()
    };
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for v in &vectors {
        *counts.entry(class_of(v)).or_default() += 1;
    }
    for class in ["unreadable", "malformed", "surface_unsupported"] {
        let n = counts
            .get(&format!("declaration_error:{class}"))
            .copied()
            .unwrap_or(0);
        assert!(n >= 2, "{class}: {n} vectors");
    }
    let (mut texts, mut files) = (0, 0);
    for v in &vectors {
        let setup = setup_for(&v.vector, SpecVersion::V0_1);
        assert_eq!(setup.declaration, v.vector.host_declaration);
        assert_eq!(setup.declaration_text, v.vector.host_declaration_text);
        assert_eq!(setup.declaration_file, v.vector.host_declaration_file);
        if v.vector.host_declaration_text.is_some() {
            texts += 1;
            assert!(setup.declaration.is_none(), "{}", v.vector.id);
            let wire = serde_json::to_value(&setup).expect("serializes");
            assert_eq!(
                wire["declaration_text"].as_str(),
                v.vector.host_declaration_text.as_deref()
            );
        }
        if let Some(fault) = v.vector.host_declaration_file {
            files += 1;
            assert_eq!(
                class_of(v),
                "declaration_error:unreadable",
                "{}",
                v.vector.id
            );
            let wire = serde_json::to_value(&setup).expect("serializes");
            assert_eq!(wire["declaration_file"], fault.as_str());
        }
        if v.vector.host_declaration_text.is_none() && v.vector.host_declaration_file.is_none() {
            continue;
        }
        let class = class_of(v);
        if class.is_empty() {
            // A text that loads (CTK-1300, at the 1 MiB bound) is judged by
            // its whole run, like any accepted document.
            continue;
        }
        let right = json!({"outcome": "refused", "class": class, "paths_equivalent": true});
        assert_eq!(outcome(v, right).0, Status::Pass, "{}", v.vector.id);
        let other = if class.ends_with("malformed") {
            "declaration_error:unreadable"
        } else {
            "declaration_error:malformed"
        };
        let (status, reason) = outcome(
            v,
            json!({"outcome": "refused", "class": other, "paths_equivalent": true}),
        );
        assert_eq!(status, Status::Fail, "{}", v.vector.id);
        assert!(
            reason.starts_with("load.class"),
            "{}: {reason}",
            v.vector.id
        );
        let (status, reason) = outcome(
            v,
            json!({"outcome": "refused", "class": class, "paths_equivalent": false}),
        );
        assert_eq!(status, Status::Fail, "{}", v.vector.id);
        assert!(
            reason.starts_with("load.paths_equivalent"),
            "{}: {reason}",
            v.vector.id
        );
    }
    assert!(
        texts >= 4 && files >= 5,
        "{texts} text, {files} file vectors"
    );
}

#[test]
fn a_host_that_reports_no_load_outcome_fails_a_declaration_vector() {
    let v = declaration_vectors()
        .into_iter()
        .next()
        .expect("a declaration vector");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    struct Silent;
    impl HostAdapter for Silent {
        async fn info(&mut self) -> Result<HostInfo, AdapterError> {
            Ok(HostInfo::new("silent", "1", vec!["agent-hooks/0.1".into()]))
        }
        async fn setup(&mut self, _setup: VectorSetup) -> Result<(), AdapterError> {
            Ok(())
        }
        async fn run(&mut self, _c: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
            Ok(RunRecord::new(RunOutcome::Completed))
        }
        async fn teardown(&mut self) -> Result<(), AdapterError> {
            Ok(())
        }
    }
    let o = rt.block_on(run_vector(&mut Silent, &v, &options()));
    assert_eq!(o.status, Status::Fail);
    assert!(
        o.failures.iter().any(|f| f.key == "load"),
        "{:?}",
        o.failures
    );
}

mod cli {
    use std::path::Path;
    use std::process::{Command, Output};

    fn data(rel: &str) -> String {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(rel)
            .display()
            .to_string()
    }

    fn run(spec: &str, vectors: &str, declaration: &str) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ctk"))
            .args([
                "run",
                "--spec",
                spec,
                "--vectors",
                &data(vectors),
                "--declaration",
                &data(&format!("declarations/{declaration}")),
            ])
            .output()
            .expect("the ctk binary runs")
    }

    fn stderr(o: &Output) -> String {
        String::from_utf8_lossy(&o.stderr).into_owned()
    }

    #[test]
    fn a_declaration_within_the_host_surface_runs() {
        let out = run("0.1", "engine", "host-full.json");
        // The engine folder holds vectors for a fake host; only the run
        // starting matters here, not their verdicts.
        assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
        let out = run("draft", "draft", "host-full.json");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }

    #[test]
    fn a_declaration_asking_more_than_the_host_offers_is_refused_before_any_vector() {
        // No host loads agent-hooks-declaration/1.9 documents.
        let out = run("0.1", "engine", "more-version.json");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            out.stdout.is_empty(),
            "no vector ran: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            stderr(&out).contains(&format!(
                "{} at /surface/declaration_versions/1: declaration_error:surface_unsupported: the host does not load agent-hooks-declaration/1.9 documents",
                data("declarations/more-version.json")
            )),
            "{}",
            stderr(&out)
        );
    }

    #[test]
    fn the_spec_member_is_required_and_must_fit_the_run() {
        let out = run("0.1", "engine", "no-spec.json");
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out)
                .contains("no-spec.json at /spec: declaration: the spec member is required"),
            "{}",
            stderr(&out)
        );
        let out = run("0.1", "engine", "spec-draft.json");
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains("spec-draft.json at /spec: declaration: the declaration is for \"agent-hooks/draft\", the run targets agent-hooks/0.1"), "{}", stderr(&out));
        let out = run("draft", "draft", "spec-draft.json");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }

    #[test]
    fn a_1_1_declaration_only_with_spec_draft() {
        let out = run("0.1", "engine", "v1-1.json");
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains("v1-1.json at /"), "{}", stderr(&out));
        let out = run("draft", "draft", "v1-1.json");
        if ctk_agent_hooks_suite::declaration::DECLARATION_SCHEMA_1_1.is_none() {
            assert_eq!(out.status.code(), Some(2));
            assert!(stderr(&out).contains("v1-1.json at /declaration: declaration: agent-hooks-declaration/1.1 is not supported by this build"), "{}", stderr(&out));
        } else if out.status.code() == Some(2) {
            // A host that does not load 1.1 documents refuses it up front.
            assert!(stderr(&out).contains("v1-1.json at /"), "{}", stderr(&out));
        } else {
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("against agent-hooks/draft"),
                "{}",
                stderr(&out)
            );
        }
    }
}
