//! The agent loop (ours): the scenario driven through the crate's emitter,
//! point by point, as HOSTS.md §4 describes. The crate builds every context
//! (`AgentContextBuilder`) and decides every emission (`emit`); the loop
//! only acts on what the crate says: it goes on with the permitted, possibly
//! transformed, context, or stops.

use agent_hooks::ctk::ToolSeamPosture;
use agent_hooks::{AgentContext, AgentContextBuilder, InterceptionBlocked, InterceptionEmitter};
use ctk_agent_hooks_adapter::{RunOutcome, ToolInvocation};
use serde_json::{json, Value};

use crate::scenario::Scenario;

/// `model.id` of every model call.
pub const MODEL_ID: &str = "scripted-model";

/// What a run came to.
#[derive(Debug)]
pub struct LoopOutcome {
    /// How it ended.
    pub outcome: RunOutcome,
    /// The last turn's output, `null` when the run did not complete.
    pub final_output: Value,
    /// Every mock tool invocation, in order.
    pub tool_invocations: Vec<ToolInvocation>,
    /// What the session made durable: the history and the result labels
    /// kept with the permitted data (§5.4).
    pub persisted: Value,
    /// Why the run ended `error`.
    pub error: Option<String>,
}

/// Why the turns stopped early.
enum Stop {
    /// A deny the loop must honour.
    Blocked,
    /// The host itself could not go on.
    Error(String),
}

impl From<InterceptionBlocked> for Stop {
    fn from(_: InterceptionBlocked) -> Self {
        Stop::Blocked
    }
}

struct Session<'a> {
    emitter: &'a mut InterceptionEmitter,
    contexts: AgentContextBuilder,
    scenario: &'a Scenario,
    posture: ToolSeamPosture,
    messages: Vec<Value>,
    labels: Vec<Value>,
    invocations: Vec<ToolInvocation>,
    next_model_entry: usize,
}

/// Run `scenario` on `emitter`, with contexts for session `session_id`.
pub async fn run(
    emitter: &mut InterceptionEmitter,
    scenario: &Scenario,
    posture: ToolSeamPosture,
    session_id: &str,
) -> LoopOutcome {
    let mut s = Session {
        emitter,
        contexts: AgentContextBuilder::new("upstream-agent", "agent-hooks-sdk", session_id),
        scenario,
        posture,
        messages: Vec::new(),
        labels: Vec::new(),
        invocations: Vec::new(),
        next_model_entry: 0,
    };
    let ran = s.turns().await;
    // agent_shutdown always; its verdict is recorded and changes nothing.
    let reason = if ran.is_ok() { "completed" } else { "error" };
    let mut shutdown = s.contexts.agent_shutdown(reason);
    s.emitter.emit_unchecked(&mut shutdown).await;
    let (outcome, final_output, error) = match ran {
        Ok(output) => (RunOutcome::Completed, output, None),
        Err(Stop::Blocked) => (RunOutcome::Blocked, Value::Null, None),
        Err(Stop::Error(e)) => (RunOutcome::Error, Value::Null, Some(e)),
    };
    LoopOutcome {
        outcome,
        final_output,
        tool_invocations: s.invocations,
        persisted: json!({"messages": s.messages, "labels": s.labels}),
        error,
    }
}

impl Session<'_> {
    /// One emission through the crate; on a permit, keep the labels the
    /// combined verdict carries with the data.
    async fn emit(&mut self, ctx: &mut AgentContext) -> Result<(), InterceptionBlocked> {
        let out = self.emitter.emit(ctx).await?;
        let labels = &out.record.verdict.result_labels;
        if !labels.is_empty() {
            self.labels.push(json!({
                "interception_point": out.record.interception_point.as_str(),
                "sequence": out.record.sequence,
                "labels": labels,
            }));
        }
        Ok(())
    }

    async fn turns(&mut self) -> Result<Value, Stop> {
        let mut startup = self.contexts.agent_startup(self.scenario.tool_names());
        self.emit(&mut startup).await?;
        let mut output = Value::Null;
        for input in self.scenario.inputs.clone() {
            output = self.turn(&input).await?;
        }
        Ok(output)
    }

    async fn turn(&mut self, input: &Value) -> Result<Value, Stop> {
        let content = input.get("content").cloned().unwrap_or(Value::Null);
        let role = input.get("role").and_then(Value::as_str).unwrap_or("user");
        let mut ctx = self.contexts.input(content, role);
        self.emit(&mut ctx).await?;
        let permitted = ctx.get("input").cloned().unwrap_or(Value::Null);
        self.messages.push(json!({
            "role": permitted.get("role").cloned().unwrap_or(Value::Null),
            "content": permitted.get("content").cloned().unwrap_or(Value::Null),
        }));
        let content = loop {
            let response = self.model_step().await?;
            let calls = response
                .get("tool_calls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let content = response.get("content").cloned().unwrap_or(Value::Null);
            if calls.is_empty() {
                break content;
            }
            for call in &calls {
                self.tool_call(call).await?;
            }
            self.messages.push(json!({
                "role": "assistant",
                "content": if content.is_null() { json!("") } else { content },
            }));
        };
        if content.is_null() {
            return Ok(Value::Null);
        }
        let mut ctx = self.contexts.output(content);
        self.emit(&mut ctx).await?;
        let permitted = ctx
            .get("output")
            .and_then(|o| o.get("content"))
            .cloned()
            .unwrap_or(Value::Null);
        self.messages
            .push(json!({"role": "assistant", "content": permitted}));
        Ok(permitted)
    }

    /// `pre_model_call`, the scripted model call, `post_model_call`; the
    /// permitted response.
    async fn model_step(&mut self) -> Result<Value, Stop> {
        let mut ctx = self
            .contexts
            .pre_model_call(MODEL_ID, self.messages.clone());
        self.emit(&mut ctx).await?;
        // The permitted, possibly transformed, history is what the model is
        // given. A value the loop cannot use as a history ends the run as
        // the host's own failure instead of being silently replaced.
        match ctx.get("messages") {
            Some(Value::Array(history)) => self.messages = history.clone(),
            _ => {
                return Err(Stop::Error(
                    "the permitted pre_model_call messages is not an array: the model cannot be called with it".into(),
                ))
            }
        }
        let entry = self
            .scenario
            .model_script
            .get(self.next_model_entry)
            .cloned()
            .ok_or_else(|| Stop::Error("the model script has no entry left".into()))?;
        self.next_model_entry += 1;
        let respond = entry.get("respond").cloned().unwrap_or(Value::Null);
        if respond.get("error").is_some_and(|e| !e.is_null()) {
            return Err(Stop::Error(format!(
                "the model call failed: {}",
                respond["error"]
            )));
        }
        if respond.get("stream_truncated").and_then(Value::as_bool) == Some(true) {
            // HOSTS.md §4.4 wants a host-denied post_model_call without
            // dispatch (host_error:streaming_unsupported); the crate's
            // emitter records host-synthesized denies without dispatch only
            // as context_invalid (record_host_failure). Not claimed.
            return Err(Stop::Error(
                "a truncated stream cannot be mediated: agent-hooks-sdk has no emission for host_error:streaming_unsupported".into(),
            ));
        }
        let content = match respond.get("stream").and_then(Value::as_array) {
            Some(chunks) => Value::String(chunks.iter().filter_map(Value::as_str).collect()),
            None => respond.get("content").cloned().unwrap_or(Value::Null),
        };
        let calls = respond
            .get("tool_calls")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let finish = respond
            .get("finish_reason")
            .and_then(Value::as_str)
            .unwrap_or("stop");
        let mut ctx = self
            .contexts
            .post_model_call(MODEL_ID, content, calls, finish);
        self.emit(&mut ctx).await?;
        let response = ctx.get("response").cloned().unwrap_or(Value::Null);
        match response.get("tool_calls") {
            None | Some(Value::Array(_)) => Ok(response),
            Some(_) => Err(Stop::Error(
                "the permitted post_model_call response.tool_calls is not an array: the loop cannot act on it".into(),
            )),
        }
    }

    /// The message the model is given in place of a withheld tool message.
    fn withheld(&mut self, blocked: &InterceptionBlocked) -> Result<(), Stop> {
        let reason = blocked.record.verdict.reason.as_deref();
        if self.posture == ToolSeamPosture::Terminate
            && reason.is_some_and(|r| r.starts_with("host_error:"))
        {
            return Err(Stop::Blocked);
        }
        self.messages.push(json!({
            "role": "tool",
            "content": format!("blocked: {}", reason.unwrap_or("denied")),
        }));
        Ok(())
    }

    async fn tool_call(&mut self, call: &Value) -> Result<(), Stop> {
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        let args = call.get("args").cloned().unwrap_or(Value::Null);
        let mut ctx = self.contexts.pre_tool_call(id, name, args);
        if let Err(blocked) = self.emit(&mut ctx).await {
            return self.withheld(&blocked);
        }
        let args = ctx
            .get("tool_call")
            .and_then(|t| t.get("args"))
            .cloned()
            .unwrap_or(Value::Null);
        let (value, is_error) = match self.scenario.tool(name) {
            Some(tool) => {
                self.invocations.push(ToolInvocation {
                    name: name.to_owned(),
                    args: args.clone(),
                });
                tool.answer(&args).ok_or_else(|| {
                    Stop::Error(format!(
                        "no behavior of tool `{name}` answers these arguments"
                    ))
                })?
            }
            None => (json!("unknown tool"), true),
        };
        let mut ctx = self
            .contexts
            .post_tool_call(id, name, args, value, is_error);
        if let Err(blocked) = self.emit(&mut ctx).await {
            return self.withheld(&blocked);
        }
        let permitted = ctx
            .get("tool_result")
            .and_then(|r| r.get("value"))
            .cloned()
            .unwrap_or(Value::Null);
        self.messages
            .push(json!({"role": "tool", "content": permitted}));
        Ok(())
    }
}
