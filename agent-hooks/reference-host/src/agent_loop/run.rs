//! The reference agent loop (facts B2): startup, turns of input, model and
//! tool steps, output, shutdown, all through the emitter the way a framework
//! would call it.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::agent_loop::scenario::{ModelStep, Scenario, Scripted};
use crate::agent_loop::tools::ToolBox;
use crate::emitter::{Emitted, Emitter};
use crate::output::{OutputMode, Watermark};
use crate::point::Point;
use crate::propagate::blocked_message;
use crate::reason::ReservedReason;

/// Model id of the scripted model.
pub const MODEL_ID: &str = "mock";

/// How the loop is configured. (Host errors at the tool seam follow the
/// `continue` posture, the only one the code implements: D-41.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoopConfig {
    /// Buffered or incremental model output.
    pub output: OutputMode,
}

/// Which optional points the host's surface has (§3.2): a host without a
/// model takes each `model_script` entry as its own next step and emits no
/// model points; a host without tools emits no tool points and refuses a
/// scripted tool call (`agent-hooks/adapter/HOSTS.md` §4.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopSurface {
    /// `pre_model_call` / `post_model_call` are emitted (capability `model_calls`).
    pub model_calls: bool,
    /// `pre_tool_call` / `post_tool_call` are emitted (capability `tool_calls`).
    pub tool_calls: bool,
}

impl LoopSurface {
    /// Every point: the reference host's own surface.
    pub const FULL: LoopSurface = LoopSurface {
        model_calls: true,
        tool_calls: true,
    };
}

impl Default for LoopSurface {
    fn default() -> Self {
        Self::FULL
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The loop ran to its end.
    Completed,
    /// A standing deny ended the run.
    Blocked,
    /// The host itself failed (a scenario it cannot run).
    Error,
}

/// What the loop did.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopOutcome {
    /// How the run ended.
    pub ending: Ending,
    /// The output that reached the caller, `null` when none did.
    pub final_output: Value,
    /// Every mock tool invocation, `(name, args)`, in order.
    pub tool_invocations: Vec<(String, Value)>,
    /// Content released incrementally, when the run streamed.
    pub released_output: Option<String>,
    /// What the session made durable: its message history.
    pub persisted: Value,
    /// The host's own error text when `ending` is `Error`.
    pub error: Option<String>,
}

enum TurnEnd {
    Completed(Value),
    Blocked,
    Error(String),
}

enum ToolEnd {
    Message(Value, Vec<Value>),
    Error(String),
}

struct Session {
    emitter: Arc<Emitter>,
    tools: Arc<ToolBox>,
    config: LoopConfig,
    surface: LoopSurface,
    history: Vec<Value>,
    cursor: usize,
    watermark: Watermark,
    labels: Vec<Value>,
    request_id: Value,
}

fn fields(entries: Vec<(&str, Value)>) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}

fn model() -> Value {
    json!({"id": MODEL_ID})
}

/// Run `scenario` through `emitter` and report what happened.
pub async fn run_scenario(
    emitter: Arc<Emitter>,
    scenario: &Scenario,
    config: LoopConfig,
) -> LoopOutcome {
    run_scenario_on(emitter, scenario, config, LoopSurface::FULL).await
}

/// Run `scenario` as a host whose surface is `surface` (§3.2): the points
/// it omits are never emitted.
pub async fn run_scenario_on(
    emitter: Arc<Emitter>,
    scenario: &Scenario,
    config: LoopConfig,
    surface: LoopSurface,
) -> LoopOutcome {
    let tools = Arc::new(ToolBox::new(scenario.tools.clone()));
    let mut s = Session {
        emitter,
        tools: tools.clone(),
        config,
        surface,
        history: Vec::new(),
        cursor: 0,
        watermark: Watermark::new(),
        labels: Vec::new(),
        request_id: Value::Null,
    };
    let startup = s
        .emitter
        .emit_point(
            Point::AgentStartup,
            fields(vec![(
                "agent_init",
                json!({"tools_registered": tools.names()}),
            )]),
            false,
        )
        .await;
    let (ending, final_output, error) = if !startup.proceed {
        (Ending::Blocked, Value::Null, None)
    } else {
        let mut last = (Ending::Completed, Value::Null, None);
        for input in std::iter::once(&scenario.input).chain(scenario.turns.iter()) {
            match s.turn(input, &scenario.model_script).await {
                TurnEnd::Completed(out) => last = (Ending::Completed, out, None),
                TurnEnd::Blocked => {
                    last = (Ending::Blocked, Value::Null, None);
                    break;
                }
                TurnEnd::Error(e) => {
                    last = (Ending::Error, Value::Null, Some(e));
                    break;
                }
            }
        }
        last
    };
    let reason = if ending == Ending::Completed {
        "completed"
    } else {
        "error"
    };
    let _shutdown = s
        .emitter
        .emit_point(
            Point::AgentShutdown,
            fields(vec![("summary", json!({"reason": reason}))]),
            false,
        )
        .await;
    LoopOutcome {
        ending,
        final_output,
        tool_invocations: tools.invocations(),
        released_output: s
            .watermark
            .streamed()
            .then(|| s.watermark.released().to_owned()),
        persisted: json!({"messages": s.history, "labels": s.labels}),
        error,
    }
}

impl Session {
    /// Persist the labels of a permitted emission with the session (§5.4).
    fn keep(&mut self, e: &Emitted) {
        self.labels.extend(labels_of(e));
    }

    async fn turn(&mut self, input: &Scripted, script: &[ModelStep]) -> TurnEnd {
        let e = self
            .emitter
            .emit_point(
                Point::Input,
                fields(vec![("input", input.value.clone())]),
                input.raw_unsafe,
            )
            .await;
        if !e.proceed {
            return TurnEnd::Blocked;
        }
        self.keep(&e);
        let adopted = e.target();
        self.history.push(
            json!({"role": adopted.get("role").cloned().unwrap_or(Value::Null),
            "content": adopted.get("content").cloned().unwrap_or(Value::Null)}),
        );
        let mut output_unsafe = false;
        let final_output = loop {
            let (response, step) = if self.surface.model_calls {
                match self.model_step(script).await {
                    Ok(r) => r,
                    Err(end) => return end,
                }
            } else {
                // No model (§3.2): the entry is the agent's own next step,
                // taken as a permitted response, with no model point.
                let Some(step) = script.get(self.cursor) else {
                    return TurnEnd::Error("the script has no step left".into());
                };
                self.cursor += 1;
                if step.fails {
                    return TurnEnd::Error("the agent's step failed".into());
                }
                // A stream's chunks concatenate to `content`: nothing is
                // mediated chunk by chunk without a model point.
                output_unsafe = step.raw_unsafe;
                (
                    json!({"content": step.content, "tool_calls": step.tool_calls,
                        "finish_reason": step.finish_reason}),
                    step,
                )
            };
            let mut calls = response
                .get("tool_calls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if crate::readings::get().tool_calls_reversed {
                // §12.2 fixes the contract per call, not the order of a batch.
                calls.reverse();
            }
            let content = response.get("content").cloned().unwrap_or(Value::Null);
            if calls.is_empty() {
                break content;
            }
            if !self.surface.tool_calls {
                // A vector that scripts a tool call needs `tool_calls`
                // (HOSTS.md §4.6): this host cannot run it.
                return TurnEnd::Error("this host invokes no tools (no tool_calls)".into());
            }
            // Without a model the step's values were never mediated: their
            // unsafe integers reach the tool seam's envelope check.
            let args_unsafe = !self.surface.model_calls && step.raw_unsafe;
            let ends = if step.parallel {
                self.tools_parallel(calls, args_unsafe).await
            } else {
                self.tools_sequential(calls, args_unsafe).await
            };
            for end in ends {
                match end {
                    ToolEnd::Message(m, labels) => {
                        self.history.push(m);
                        self.labels.extend(labels);
                    }
                    ToolEnd::Error(e) => return TurnEnd::Error(e),
                }
            }
            let assistant = if content.is_null() {
                Value::String(String::new())
            } else {
                content
            };
            self.history
                .push(json!({"role": "assistant", "content": assistant}));
        };
        if final_output.is_null() {
            return TurnEnd::Completed(Value::Null);
        }
        let out_fields = fields(vec![("output", json!({"content": final_output}))]);
        let out = self
            .emitter
            .emit_point(Point::Output, out_fields, output_unsafe)
            .await;
        if !out.proceed {
            return TurnEnd::Blocked;
        }
        self.keep(&out);
        let delivered = out.target().get("content").cloned().unwrap_or(Value::Null);
        self.history
            .push(json!({"role": "assistant", "content": delivered}));
        TurnEnd::Completed(delivered)
    }

    /// One model call: `pre_model_call`, the next scripted response, and its
    /// `post_model_call`; the permitted response and its step, or how the
    /// turn ends.
    async fn model_step<'a>(
        &mut self,
        script: &'a [ModelStep],
    ) -> Result<(Value, &'a ModelStep), TurnEnd> {
        // The pairing key of this model call's pre/post emissions (§4.5).
        self.request_id = Value::String(format!("req-{}", self.cursor + 1));
        let pre_fields = fields(vec![
            ("model", model()),
            ("request_id", self.request_id.clone()),
            ("messages", Value::Array(self.history.clone())),
        ]);
        let pre = self
            .emitter
            .emit_point(Point::PreModelCall, pre_fields, false)
            .await;
        if !pre.proceed {
            return Err(TurnEnd::Blocked);
        }
        self.keep(&pre);
        self.history = match pre.target() {
            Value::Array(items) => items,
            other => vec![other],
        };
        let Some(step) = script.get(self.cursor) else {
            return Err(TurnEnd::Error(
                "the model script has no response left".into(),
            ));
        };
        self.cursor += 1;
        if step.fails {
            // An errored model call is not mediated: no post_model_call,
            // nothing of it is incorporated (§12.1).
            return Err(TurnEnd::Error("the model call failed".into()));
        }
        match self.respond(step).await {
            Some(r) => Ok((r, step)),
            None => Err(TurnEnd::Blocked),
        }
    }

    fn post_model_fields(
        &self,
        content: Value,
        tool_calls: Value,
        finish_reason: Value,
    ) -> Map<String, Value> {
        fields(vec![
            ("model", model()),
            ("request_id", self.request_id.clone()),
            (
                "response",
                json!({"content": content, "tool_calls": tool_calls, "finish_reason": finish_reason}),
            ),
        ])
    }

    async fn post_model(&self, f: Map<String, Value>, raw_unsafe: bool) -> Emitted {
        self.emitter
            .emit_point(Point::PostModelCall, f, raw_unsafe)
            .await
    }

    async fn residue(&self, f: Map<String, Value>) {
        let _ = self
            .emitter
            .emit_point_self_denied(
                Point::PostModelCall,
                f,
                ReservedReason::StreamingUnsupported,
            )
            .await;
    }

    /// Deliver one scripted response through `post_model_call`; `None` when
    /// a standing deny (or unevaluated residue) ends the run.
    async fn respond(&mut self, step: &ModelStep) -> Option<Value> {
        match (&step.stream, self.config.output) {
            (Some(chunks), OutputMode::Incremental) if !chunks.is_empty() => {
                self.respond_incremental(step, chunks).await
            }
            (Some(chunks), OutputMode::Buffered) if step.stream_truncated => {
                // Buffered: the stream died before it could be assembled.
                let f = self.post_model_fields(
                    Value::String(chunks.concat()),
                    json!([]),
                    json!("stream_incomplete"),
                );
                self.residue(f).await;
                None
            }
            _ => {
                let f = self.post_model_fields(
                    step.content.clone(),
                    step.tool_calls.clone(),
                    step.finish_reason.clone(),
                );
                let e = self.post_model(f, step.raw_unsafe).await;
                self.keep(&e);
                e.proceed.then(|| e.target())
            }
        }
    }

    /// Incremental mediation: one `post_model_call` per chunk over the prefix
    /// so far; each permitted segment is released; a deny withholds the
    /// rest; unevaluated residue fails closed.
    async fn respond_incremental(&mut self, step: &ModelStep, chunks: &[String]) -> Option<Value> {
        let evaluated = if step.stream_truncated {
            chunks.len() - 1
        } else {
            chunks.len()
        };
        let mut prefix = String::new();
        let mut last_response = None;
        for (i, chunk) in chunks.iter().take(evaluated).enumerate() {
            prefix.push_str(chunk);
            let is_last = !step.stream_truncated && i + 1 == chunks.len();
            let f = if is_last {
                self.post_model_fields(
                    Value::String(prefix.clone()),
                    step.tool_calls.clone(),
                    step.finish_reason.clone(),
                )
            } else {
                self.post_model_fields(
                    Value::String(prefix.clone()),
                    json!([]),
                    json!("incremental"),
                )
            };
            let e = self.post_model(f, step.raw_unsafe).await;
            if !e.proceed {
                return None;
            }
            self.keep(&e);
            let permitted = e.target();
            if self
                .watermark
                .release(permitted.get("content").unwrap_or(&Value::Null))
                .is_err()
            {
                let f = self.post_model_fields(
                    Value::String(prefix.clone()),
                    json!([]),
                    json!("stream_incomplete"),
                );
                self.residue(f).await;
                return None;
            }
            last_response = Some(permitted);
        }
        if step.stream_truncated {
            let f = self.post_model_fields(
                Value::String(chunks.concat()),
                json!([]),
                json!("stream_incomplete"),
            );
            self.residue(f).await;
            return None;
        }
        last_response
    }

    async fn tools_sequential(&self, calls: Vec<Value>, args_unsafe: bool) -> Vec<ToolEnd> {
        let mut ends = Vec::with_capacity(calls.len());
        for call in calls {
            let end = tool_step(self.emitter.clone(), self.tools.clone(), call, args_unsafe).await;
            let stop = !matches!(end, ToolEnd::Message(..));
            ends.push(end);
            if stop {
                break;
            }
        }
        ends
    }

    async fn tools_parallel(&self, calls: Vec<Value>, args_unsafe: bool) -> Vec<ToolEnd> {
        let handles: Vec<_> = calls
            .into_iter()
            .map(|call| {
                tokio::spawn(tool_step(
                    self.emitter.clone(),
                    self.tools.clone(),
                    call,
                    args_unsafe,
                ))
            })
            .collect();
        let mut ends = Vec::with_capacity(handles.len());
        for h in handles {
            ends.push(
                h.await
                    .unwrap_or_else(|_| ToolEnd::Error("a parallel tool call panicked".into())),
            );
        }
        ends
    }
}

/// A tool-seam deny: the model is told the call was blocked, and the loop
/// goes on (§6.2, under the `continue` posture, for host errors too).
fn denied(e: &Emitted) -> ToolEnd {
    ToolEnd::Message(
        json!({"role": "tool", "content": blocked_message(&e.verdict)}),
        Vec::new(),
    )
}

/// One tool call's `pre_tool_call` / invoke / `post_tool_call` pair;
/// `args_unsafe`: the call's scripted text held an integer beyond 2^53-1
/// that no earlier emission refused (a host without a model).
async fn tool_step(
    emitter: Arc<Emitter>,
    tools: Arc<ToolBox>,
    call: Value,
    args_unsafe: bool,
) -> ToolEnd {
    let id = call.get("id").cloned().unwrap_or(Value::Null);
    let name = call.get("name").cloned().unwrap_or(Value::Null);
    let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
    let pre_fields = fields(vec![(
        "tool_call",
        json!({"id": id, "name": name, "args": args}),
    )]);
    let pre = emitter
        .emit_point(Point::PreToolCall, pre_fields, args_unsafe)
        .await;
    if !pre.proceed {
        return denied(&pre);
    }
    let args = pre.target();
    let tool_name = name.as_str().unwrap_or_default();
    let (value, is_error, raw_unsafe) = match tools.invoke(tool_name, &args) {
        Ok(Some(r)) => (r.value.value, r.is_error, r.value.raw_unsafe),
        Ok(None) => (Value::String("unknown tool".into()), true, false),
        Err(e) => return ToolEnd::Error(e.to_string()),
    };
    let post_fields = fields(vec![
        ("tool_call", json!({"id": id, "name": name, "args": args})),
        ("tool_result", json!({"value": value, "is_error": is_error})),
    ]);
    let post = emitter
        .emit_point(Point::PostToolCall, post_fields, raw_unsafe || args_unsafe)
        .await;
    if !post.proceed {
        return denied(&post);
    }
    let labels = labels_of(&pre)
        .into_iter()
        .chain(labels_of(&post))
        .collect();
    ToolEnd::Message(json!({"role": "tool", "content": post.target()}), labels)
}

/// The label entry a permitted emission leaves in the session's durable
/// store (§5.4): the labels, with the emission whose data they describe.
/// A deny never carries labels (they are dropped when nothing proceeds).
fn labels_of(e: &Emitted) -> Option<Value> {
    (e.proceed && !e.verdict.result_labels.is_empty()).then(|| {
        json!({"interception_point": e.record["interception_point"], "sequence": e.record["sequence"],
            "labels": e.verdict.result_labels})
    })
}
