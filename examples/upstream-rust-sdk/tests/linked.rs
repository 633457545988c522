//! The linked `HostAdapter` path with an emitter that is not the kit's: the
//! kit's own engine (`ctk_agent_hooks_suite::engine::run_vector`) runs some of the kit's
//! released vectors in process on [`UpstreamSdkHost`], whose every verdict,
//! record and load outcome is agent-hooks-sdk 0.1.0-beta.3's. The vectors
//! cover each kind of plumbing: scripted verdicts, the crate's interceptor
//! timeout, the approval seam with the kit's resolver and (blocking) redactor,
//! and declaration vectors accepted and refused, a file fault included.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use ctk_agent_hooks_suite::engine::{run_vector, EngineOptions, LoopOptions};
use ctk_agent_hooks_suite::vector::embedded::released;
use ctk_agent_hooks_suite::vector::model::SpecVersion;
use ctk_core::outcome::Status;
use upstream_rust_sdk_host::{UpstreamSdkHost, HOST_DECLARATION};

fn options() -> EngineOptions {
    let declaration = serde_json::from_str(HOST_DECLARATION).expect("host.json is JSON");
    EngineOptions {
        spec: SpecVersion::V0_1,
        surface: ctk_agent_hooks_suite::declaration::surface(&declaration),
        vector_timeout: Duration::from_secs(20),
        loop_options: LoopOptions {
            jobs: 1,
            fail_fast: false,
            interrupted: Arc::new(AtomicBool::new(false)),
        },
    }
}

async fn status_of(id: &str) -> (Status, String) {
    let vectors = released(SpecVersion::V0_1).expect("the kit's vectors load");
    let loaded = vectors
        .iter()
        .find(|v| v.vector.id == id)
        .unwrap_or_else(|| panic!("the kit ships no vector {id}"));
    let outcome = run_vector(&mut UpstreamSdkHost::new(), loaded, &options()).await;
    (outcome.status, outcome.reason)
}

/// Vectors the crate passes, one per kind of plumbing.
const PASSING: [&str; 9] = [
    "CTK-0300", // first_deny, three scripted allows
    "CTK-0010", // a deny at input ends the run blocked
    "CTK-0148", // an interceptor that never answers: the crate's timeout
    "CTK-0427", // the kit's redactor, answered from the crate's sync redactor
    "CTK-1100", // a declaration through every construction path
    "CTK-1112", // a declared redactor
    "CTK-1147", // a ctk.scripted binding the kind resolver rejects
    "CTK-1167", // a file fault (byte-order mark) through the file path
    "CTK-1120", // an unknown root member: the crate's unknown_field
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crate_passes_the_kits_vectors_through_the_linked_harness() {
    for id in PASSING {
        let (status, reason) = status_of(id).await;
        assert_eq!(status, Status::Pass, "{id}: {reason}");
    }
}

/// The linked path judges, it does not rubber-stamp: a defect of the crate
/// (a combined `run_all` deny keeps its own `result_labels`, against §7.3
/// "a combined deny carries none") fails in process exactly as over stdio.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_defect_of_the_crate_fails_through_the_linked_harness() {
    let (status, reason) = status_of("CTK-0328").await;
    assert_eq!(status, Status::Fail, "{reason}");
    assert!(reason.contains("verdict.result_labels"), "{reason}");
}

/// The host refuses to run on a runtime its blocking redactor would
/// deadlock or panic on, instead of reporting a false verdict.
#[tokio::test(flavor = "current_thread")]
async fn a_current_thread_runtime_is_a_harness_error_not_a_verdict() {
    let (status, reason) = status_of("CTK-0300").await;
    assert_eq!(status, Status::Error, "{reason}");
    assert!(reason.contains("multi-thread"), "{reason}");
}

/// One host, two transports: over every released vector the linked
/// `HostAdapter` and this crate's binary behind the kit's stdio client
/// (`StdioHost`, the path `ctk run -- CMD` takes) come to the same
/// status, so the numbers the README reports for the stdio run hold for the
/// linked path too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn linked_and_stdio_agree_on_every_released_vector() {
    let vectors = released(SpecVersion::V0_1).expect("the kit's vectors load");
    let options = options();
    let mut stdio =
        ctk_agent_hooks_adapter::StdioHost::builder(env!("CARGO_BIN_EXE_upstream-rust-sdk-host"))
            .build();
    let mut disagreements = Vec::new();
    let mut passed = 0;
    for loaded in vectors {
        let linked = run_vector(&mut UpstreamSdkHost::new(), loaded, &options).await;
        let remote = run_vector(&mut stdio, loaded, &options).await;
        if linked.status != remote.status {
            disagreements.push(format!(
                "{}: linked {:?} ({}), stdio {:?} ({})",
                loaded.vector.id, linked.status, linked.reason, remote.status, remote.reason
            ));
        }
        passed += usize::from(linked.status == Status::Pass);
    }
    stdio.shutdown().await;
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    assert!(
        passed > 300,
        "only {passed} vectors passed: the run checked little"
    );
}
