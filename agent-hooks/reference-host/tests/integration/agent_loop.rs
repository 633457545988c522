//! The agent loop in process: the scenario extensions (`turns`,
//! `respond.parallel`), the tool-seam posture, buffered and incremental
//! output, and host errors.

use std::sync::Arc;

use serde_json::{json, Value};

use ctk_agent_hooks_reference_host::agent_loop::run::{
    run_scenario, run_scenario_on, Ending, LoopConfig, LoopOutcome, LoopSurface,
};
use ctk_agent_hooks_reference_host::agent_loop::scenario::Scenario;
use ctk_agent_hooks_reference_host::compose::dispatch::InterceptorAnswer;
use ctk_agent_hooks_reference_host::output::OutputMode;
use ctk_agent_hooks_reference_host::{Emitter, EmitterBuilder};

use crate::support::{builder, returning, with_fn};

async fn run(b: EmitterBuilder, scenario: &str, config: LoopConfig) -> (LoopOutcome, Vec<Value>) {
    let e = Arc::new(b.build());
    let s = Scenario::parse(scenario).expect("scenario");
    let out = run_scenario(e.clone(), &s, config).await;
    let records = Emitter::take_records(&e);
    (out, records)
}

fn points(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| r["interception_point"].as_str().unwrap_or_default())
        .collect()
}

const TWO_TOOLS: &str = r#"{"input": {"content": "go", "role": "user"},
  "tools": [{"name": "a", "behavior": [{"return": "A"}]}, {"name": "b", "behavior": [{"return": "B"}]}],
  "model_script": [
    {"respond": {"content": null, "parallel": true, "finish_reason": "tool_calls",
      "tool_calls": [{"id": "1", "name": "a", "args": {}}, {"id": "2", "name": "b", "args": {}}]}},
    {"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_tool_calls_get_their_own_pairs_and_unique_sequences() {
    let (out, records) = run(
        returning(builder(), json!({"decision": "allow"})),
        TWO_TOOLS,
        LoopConfig::default(),
    )
    .await;
    assert_eq!(out.ending, Ending::Completed);
    assert_eq!(out.final_output, "done");
    let mut names: Vec<String> = out
        .tool_invocations
        .iter()
        .map(|(n, _)| n.clone())
        .collect();
    names.sort();
    assert_eq!(names, vec!["a", "b"]);
    assert_eq!(
        points(&records)
            .iter()
            .filter(|p| **p == "pre_tool_call")
            .count(),
        2
    );
    assert_eq!(
        points(&records)
            .iter()
            .filter(|p| **p == "post_tool_call")
            .count(),
        2
    );
    let mut seqs: Vec<i64> = records
        .iter()
        .filter_map(|r| r["sequence"].as_i64())
        .collect();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs.len(), records.len());
    // Tool messages keep the order of the model's tool calls.
    let messages = &out.persisted["messages"];
    assert_eq!(messages[1], json!({"role": "tool", "content": "A"}));
    assert_eq!(messages[2], json!({"role": "tool", "content": "B"}));
}

#[tokio::test]
async fn further_turns_share_the_session_and_consume_the_script() {
    let scenario = r#"{"input": {"content": "one", "role": "user"}, "turns": [{"input": {"content": "two", "role": "user"}}],
      "model_script": [{"respond": {"content": "first", "tool_calls": [], "finish_reason": "stop"}},
                       {"respond": {"content": "second", "tool_calls": [], "finish_reason": "stop"}}]}"#;
    let (out, records) = run(
        returning(builder(), json!({"decision": "allow"})),
        scenario,
        LoopConfig::default(),
    )
    .await;
    assert_eq!(out.ending, Ending::Completed);
    assert_eq!(out.final_output, "second");
    assert_eq!(
        points(&records),
        vec![
            "agent_startup",
            "input",
            "pre_model_call",
            "post_model_call",
            "output",
            "input",
            "pre_model_call",
            "post_model_call",
            "output",
            "agent_shutdown"
        ]
    );
    let seqs: Vec<i64> = records
        .iter()
        .filter_map(|r| r["sequence"].as_i64())
        .collect();
    assert_eq!(seqs, (0..10).collect::<Vec<_>>());
    assert!(records
        .iter()
        .all(|r| r["session_id"] == records[0]["session_id"]));
    assert_eq!(out.persisted["messages"].as_array().map(Vec::len), Some(4));
}

const ONE_TOOL: &str = r#"{"input": {"content": "go", "role": "user"},
  "tools": [{"name": "t", "behavior": [{"return": "R"}]}],
  "model_script": [
    {"respond": {"content": null, "tool_calls": [{"id": "1", "name": "t", "args": {"u": 1}}], "finish_reason": "tool_calls"}},
    {"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}]}"#;

fn failing_at_pre_tool(b: EmitterBuilder) -> EmitterBuilder {
    with_fn(b, |ctx| {
        if ctx["interception_point"] == "pre_tool_call" {
            InterceptorAnswer::Raised
        } else {
            InterceptorAnswer::Returned(json!({"decision": "allow"}))
        }
    })
    .0
}

/// An interceptor that answers `answer` at `point` and allows everywhere else.
fn answering_at(b: EmitterBuilder, point: &'static str, answer: Value) -> EmitterBuilder {
    with_fn(b, move |ctx| {
        InterceptorAnswer::Returned(if ctx["interception_point"] == point {
            answer.clone()
        } else {
            json!({"decision": "allow"})
        })
    })
    .0
}

/// The continue posture, the only one the loop implements (D-41): a host
/// error at the tool seam, like a policy deny there, skips the tool, tells
/// the model, and the run goes on.
#[tokio::test]
async fn tool_seam_denies_continue_host_errors_included() {
    let (out, _) = run(
        failing_at_pre_tool(builder()),
        ONE_TOOL,
        LoopConfig::default(),
    )
    .await;
    assert_eq!(out.ending, Ending::Completed);
    assert!(out.tool_invocations.is_empty());
    let b = answering_at(
        builder(),
        "pre_tool_call",
        json!({"decision": "deny", "reason": "ctk:no"}),
    );
    let cfg = LoopConfig {
        output: OutputMode::Buffered,
    };
    let (out, _) = run(b, ONE_TOOL, cfg).await;
    assert_eq!(out.ending, Ending::Completed);
    assert!(out.tool_invocations.is_empty());
    assert_eq!(
        out.persisted["messages"][1],
        json!({"role": "tool", "content": "blocked: ctk:no"})
    );
}

#[tokio::test]
async fn transformed_input_is_what_the_model_sees() {
    let b = answering_at(
        builder(),
        "input",
        json!({"decision": "transform", "transform": {"path": "$target.content", "value": "rewritten"}}),
    );
    let scenario = r#"{"input": {"content": "raw", "role": "user"},
      "model_script": [{"respond": {"content": "ok", "tool_calls": [], "finish_reason": "stop"}}]}"#;
    let (out, _) = run(b, scenario, LoopConfig::default()).await;
    assert_eq!(
        out.persisted["messages"][0],
        json!({"role": "user", "content": "rewritten"})
    );
}

#[tokio::test]
async fn buffered_output_assembles_a_stream_into_one_emission() {
    let scenario = r#"{"input": {"content": "s", "role": "user"},
      "model_script": [{"respond": {"content": "ab", "stream": ["a", "b"], "tool_calls": [], "finish_reason": "stop"}}]}"#;
    let (out, records) = run(
        returning(builder(), json!({"decision": "allow"})),
        scenario,
        LoopConfig::default(),
    )
    .await;
    assert_eq!(
        points(&records)
            .iter()
            .filter(|p| **p == "post_model_call")
            .count(),
        1
    );
    assert_eq!(out.final_output, "ab");
    assert_eq!(out.released_output, None);
}

#[tokio::test]
async fn buffered_output_fails_closed_on_a_truncated_stream() {
    let scenario = r#"{"input": {"content": "s", "role": "user"},
      "model_script": [{"respond": {"content": "ab", "stream": ["a", "b"], "stream_truncated": true, "tool_calls": [], "finish_reason": "stop"}}]}"#;
    let (out, records) = run(
        returning(builder(), json!({"decision": "allow"})),
        scenario,
        LoopConfig::default(),
    )
    .await;
    assert_eq!(out.ending, Ending::Blocked);
    let post = records
        .iter()
        .find(|r| r["interception_point"] == "post_model_call")
        .expect("record");
    assert_eq!(
        post["verdict"]["reason"],
        "host_error:streaming_unsupported"
    );
}

#[tokio::test]
async fn incremental_release_refuses_to_rewrite_released_text() {
    let b = with_fn(builder(), |ctx| {
        let content = ctx["response"]["content"].as_str().unwrap_or_default().to_owned();
        InterceptorAnswer::Returned(if ctx["interception_point"] == "post_model_call" && content.len() > 2 {
            json!({"decision": "transform", "transform": {"path": "$target.content", "value": "XXXX"}})
        } else {
            json!({"decision": "allow"})
        })
    })
    .0;
    let scenario = r#"{"input": {"content": "s", "role": "user"},
      "model_script": [{"respond": {"content": "ab cd", "stream": ["ab", " cd"], "tool_calls": [], "finish_reason": "stop"}}]}"#;
    let cfg = LoopConfig {
        output: OutputMode::Incremental,
    };
    let (out, records) = run(b, scenario, cfg).await;
    assert_eq!(out.ending, Ending::Blocked);
    assert_eq!(out.released_output.as_deref(), Some("ab"));
    assert_eq!(
        records
            .iter()
            .filter(|r| r["verdict"]["reason"] == "host_error:streaming_unsupported")
            .count(),
        1
    );
}

#[tokio::test]
async fn an_exhausted_model_script_is_a_host_error() {
    let scenario = r#"{"input": {"content": "s", "role": "user"}, "model_script": []}"#;
    let (out, records) = run(
        returning(builder(), json!({"decision": "allow"})),
        scenario,
        LoopConfig::default(),
    )
    .await;
    assert_eq!(out.ending, Ending::Error);
    assert!(out.error.is_some());
    assert_eq!(
        records.last().map(|r| r["interception_point"].clone()),
        Some(json!("agent_shutdown"))
    );
}

#[tokio::test]
async fn unknown_tools_return_an_error_result_without_invocation() {
    let scenario = r#"{"input": {"content": "s", "role": "user"},
      "model_script": [{"respond": {"content": null, "tool_calls": [{"id": "1", "name": "ghost", "args": {}}], "finish_reason": "tool_calls"}},
                       {"respond": {"content": "ok", "tool_calls": [], "finish_reason": "stop"}}]}"#;
    let (out, _) = run(
        returning(builder(), json!({"decision": "allow"})),
        scenario,
        LoopConfig::default(),
    )
    .await;
    assert_eq!(out.ending, Ending::Completed);
    assert!(out.tool_invocations.is_empty());
    assert_eq!(
        out.persisted["messages"][1],
        json!({"role": "tool", "content": "unknown tool"})
    );
}

#[tokio::test]
async fn startup_deny_still_shuts_down_with_reason_error() {
    let b = with_fn(builder(), |ctx| {
        InterceptorAnswer::Returned(if ctx["interception_point"] == "agent_startup" {
            json!({"decision": "deny", "reason": "ctk:no"})
        } else if ctx["interception_point"] == "agent_shutdown"
            && ctx["summary"]["reason"] == "error"
        {
            json!({"decision": "allow", "reason": "ctk:saw-error"})
        } else {
            json!({"decision": "allow"})
        })
    })
    .0;
    let (out, records) = run(b, ONE_TOOL, LoopConfig::default()).await;
    assert_eq!(out.ending, Ending::Blocked);
    assert_eq!(points(&records), vec!["agent_startup", "agent_shutdown"]);
    assert_eq!(records[1]["verdicts"][0]["reason"], "ctk:saw-error");
}

#[tokio::test]
async fn model_calls_carry_a_pairing_request_id() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s = seen.clone();
    let b = with_fn(builder(), move |ctx| {
        if let Some(id) = ctx.get("request_id") {
            s.lock()
                .expect("lock")
                .push((ctx["interception_point"].clone(), id.clone()));
        }
        InterceptorAnswer::Returned(json!({"decision": "allow"}))
    })
    .0;
    let _ = run(b, ONE_TOOL, LoopConfig::default()).await;
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(
        seen,
        vec![
            (json!("pre_model_call"), json!("req-1")),
            (json!("post_model_call"), json!("req-1")),
            (json!("pre_model_call"), json!("req-2")),
            (json!("post_model_call"), json!("req-2")),
        ]
    );
}

#[tokio::test]
async fn labels_persist_with_permitted_data() {
    let b = answering_at(
        builder(),
        "post_tool_call",
        json!({"decision": "allow", "result_labels": ["ctk:pii"]}),
    );
    let (out, records) = run(b, ONE_TOOL, LoopConfig::default()).await;
    let post = records
        .iter()
        .find(|r| r["interception_point"] == "post_tool_call")
        .expect("record");
    assert_eq!(
        out.persisted["labels"],
        json!([{"interception_point": "post_tool_call", "sequence": post["sequence"], "labels": ["ctk:pii"]}])
    );
}

#[tokio::test]
async fn labels_dropped_when_action_blocked() {
    let b = builder()
        .composition(ctk_agent_hooks_reference_host::compose::profile::Composition::RunAll);
    let b = answering_at(
        b,
        "post_tool_call",
        json!({"decision": "allow", "result_labels": ["ctk:pii"]}),
    );
    let b = answering_at(
        b,
        "post_tool_call",
        json!({"decision": "deny", "reason": "ctk:no"}),
    );
    let (out, _) = run(b, ONE_TOOL, LoopConfig::default()).await;
    assert_eq!(out.persisted["labels"], json!([]));
    assert!(!out.persisted.to_string().contains("ctk:pii"));
}

#[tokio::test]
async fn errored_model_call_is_not_mediated() {
    let scenario = r#"{"input": {"content": "s", "role": "user"},
      "model_script": [{"respond": {"error": "upstream 500", "content": "PARTIAL", "tool_calls": [], "finish_reason": "stop"}}]}"#;
    let (out, records) = run(
        returning(builder(), json!({"decision": "allow"})),
        scenario,
        LoopConfig::default(),
    )
    .await;
    assert_eq!(out.ending, Ending::Error);
    assert!(!points(&records).contains(&"post_model_call"));
    assert!(!out.persisted.to_string().contains("PARTIAL"));
    assert_eq!(
        records.last().map(|r| r["interception_point"].clone()),
        Some(json!("agent_shutdown"))
    );
}

#[tokio::test]
async fn evaluate_only_records_never_claim_enforcement() {
    let b = returning(
        builder().mode(ctk_agent_hooks_reference_host::compose::profile::Mode::EvaluateOnly),
        json!({"decision": "deny", "reason": "ctk:would"}),
    );
    let (out, records) = run(b, ONE_TOOL, LoopConfig::default()).await;
    assert_eq!(out.ending, Ending::Completed);
    assert!(!records.is_empty());
    assert!(records.iter().all(|r| r["mode"] == "evaluate_only"));
}

/// Records the sequence of every context it sees, after yielding a few
/// times so that concurrent emissions get every chance to interleave.
struct SeqRecorder(std::sync::Arc<std::sync::Mutex<Vec<i64>>>);

impl ctk_agent_hooks_reference_host::compose::dispatch::Interceptor for SeqRecorder {
    fn intercept(
        &self,
        context: Value,
    ) -> ctk_agent_hooks_reference_host::compose::dispatch::BoxFuture<InterceptorAnswer> {
        let seen = self.0.clone();
        Box::pin(async move {
            seen.lock()
                .expect("lock")
                .push(context["sequence"].as_i64().unwrap_or(-1));
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
            InterceptorAnswer::Returned(json!({"decision": "allow"}))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interceptors_see_strictly_increasing_sequences_under_parallel_tool_calls() {
    let calls: Vec<Value> = (0..8)
        .map(|i| json!({"id": format!("tc-{i}"), "name": "a", "args": {"i": i}}))
        .collect();
    let scenario = json!({"input": {"content": "go", "role": "user"},
        "tools": [{"name": "a", "behavior": [{"return": "A"}]}],
        "model_script": [
            {"respond": {"content": null, "parallel": true, "finish_reason": "tool_calls", "tool_calls": calls}},
            {"respond": {"content": "done", "tool_calls": [], "finish_reason": "stop"}}]})
    .to_string();
    for _ in 0..20 {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let b = builder().interceptor(
            ctk_agent_hooks_reference_host::compose::dispatch::Registration::everywhere(
                std::sync::Arc::new(SeqRecorder(seen.clone())),
            ),
        );
        let (out, _) = run(b, &scenario, LoopConfig::default()).await;
        assert_eq!(out.tool_invocations.len(), 8);
        let seen = seen.lock().expect("lock").clone();
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    }
}

async fn run_on(
    b: EmitterBuilder,
    scenario: &str,
    surface: LoopSurface,
) -> (LoopOutcome, Vec<Value>) {
    let e = Arc::new(b.build());
    let s = Scenario::parse(scenario).expect("scenario");
    let out = run_scenario_on(e.clone(), &s, LoopConfig::default(), surface).await;
    let records = Emitter::take_records(&e);
    (out, records)
}

/// A tool router (§3.2, `agent-hooks/adapter/HOSTS.md` §4.6) takes each
/// scripted step as its own routing decision: the same tools run with the
/// same arguments, and no model point is emitted.
#[tokio::test]
async fn a_host_without_a_model_routes_the_scripted_steps_and_emits_no_model_point() {
    let surface = LoopSurface {
        model_calls: false,
        tool_calls: true,
    };
    let (out, records) = run_on(
        returning(builder(), json!({"decision": "allow"})),
        ONE_TOOL,
        surface,
    )
    .await;
    assert_eq!(out.ending, Ending::Completed);
    assert_eq!(out.final_output, "done");
    assert_eq!(
        out.tool_invocations,
        vec![("t".to_owned(), json!({"u": 1}))]
    );
    assert_eq!(
        points(&records),
        [
            "agent_startup",
            "input",
            "pre_tool_call",
            "post_tool_call",
            "output",
            "agent_shutdown"
        ]
    );
}

/// A floor host emits the four floor points only; a scripted tool call,
/// which no vector applying to it makes, ends its run as a host error
/// rather than invoking a tool it does not have.
#[tokio::test]
async fn a_floor_host_emits_the_floor_points_only() {
    let floor = LoopSurface {
        model_calls: false,
        tool_calls: false,
    };
    let plain = r#"{"input": {"content": "hi", "role": "user"},
      "model_script": [{"respond": {"content": "hello", "tool_calls": [], "finish_reason": "stop"}}]}"#;
    let (out, records) = run_on(
        returning(builder(), json!({"decision": "allow"})),
        plain,
        floor,
    )
    .await;
    assert_eq!(out.ending, Ending::Completed);
    assert_eq!(out.final_output, "hello");
    assert_eq!(
        points(&records),
        ["agent_startup", "input", "output", "agent_shutdown"]
    );
    let (out, records) = run_on(
        returning(builder(), json!({"decision": "allow"})),
        ONE_TOOL,
        floor,
    )
    .await;
    assert_eq!(out.ending, Ending::Error);
    assert!(out.tool_invocations.is_empty());
    assert_eq!(
        points(&records),
        ["agent_startup", "input", "agent_shutdown"]
    );
}
