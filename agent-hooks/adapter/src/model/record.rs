//! What a host reports after running one vector.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How the run ended, from the caller's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// The loop ran to its end and produced (or deliberately withheld) output.
    Completed,
    /// A combined deny ended the run.
    Blocked,
    /// The host itself failed.
    Error,
}

impl RunOutcome {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Completed => "completed",
            RunOutcome::Blocked => "blocked",
            RunOutcome::Error => "error",
        }
    }
}

/// One invocation of a mock tool, with the arguments actually passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInvocation {
    /// Tool name.
    pub name: String,
    /// Arguments as the tool received them (after any transform).
    pub args: Value,
}

/// Whether a host accepted a declaration document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadOutcome {
    /// The document was accepted and the emitter built from it.
    Accepted,
    /// The document was refused.
    Refused,
}

/// The outcome of loading a declaration document (declaration vectors).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LoadRecord {
    /// Accepted or refused.
    pub outcome: LoadOutcome,
    /// The `declaration_error:*` class of a refusal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Whether every construction path resolved the document identically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths_equivalent: Option<bool>,
    /// Human-readable detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What the host did while running one vector.
///
/// Host-emitted interception records stay raw JSON: a record the host got
/// wrong must reach the assertions intact, as a conformance failure with a
/// diff, not as a parse error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "RunRecordWire")]
#[non_exhaustive]
pub struct RunRecord {
    /// How the run ended.
    pub outcome: RunOutcome,
    /// The output that reached the caller, `null` when none did.
    #[serde(default)]
    pub final_output: Value,
    /// Every mock tool invocation, in order.
    #[serde(default)]
    pub tool_invocations: Vec<ToolInvocation>,
    /// Every interception record (§10.3) the emitter wrote, in order.
    #[serde(default)]
    pub records: Vec<Value>,
    /// Caller-visible content released so far (incremental hosts, §12.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_output: Option<Value>,
    /// What the host made durable for the session (history, stores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persisted: Option<Value>,
    /// Notices the host gave the principal (draft: best-effort failures).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub principal_notices: Vec<Value>,
    /// Declaration load outcome, for declaration vectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<LoadRecord>,
    /// The host's own error text when `outcome` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the host reported `records` at all. A run record may leave
    /// the member out (`vector-run.json` requires only `outcome`), and a
    /// vector that checks records then cannot be judged: that is a gap in
    /// the host's adapter, reported as an error, never a conformance
    /// failure (an empty list, reported, is the host saying it wrote none).
    #[serde(skip)]
    pub records_reported: bool,
}

/// [`RunRecord`] as it crosses the wire: the same members, with `records`
/// kept apart from "reported empty" when it is absent.
#[derive(Deserialize)]
struct RunRecordWire {
    outcome: RunOutcome,
    #[serde(default)]
    final_output: Value,
    #[serde(default)]
    tool_invocations: Vec<ToolInvocation>,
    #[serde(default)]
    records: Option<Vec<Value>>,
    #[serde(default)]
    released_output: Option<Value>,
    #[serde(default)]
    persisted: Option<Value>,
    #[serde(default)]
    principal_notices: Vec<Value>,
    #[serde(default)]
    load: Option<LoadRecord>,
    #[serde(default)]
    error: Option<String>,
}

impl From<RunRecordWire> for RunRecord {
    fn from(w: RunRecordWire) -> Self {
        Self {
            outcome: w.outcome,
            final_output: w.final_output,
            tool_invocations: w.tool_invocations,
            records_reported: w.records.is_some(),
            records: w.records.unwrap_or_default(),
            released_output: w.released_output,
            persisted: w.persisted,
            principal_notices: w.principal_notices,
            load: w.load,
            error: w.error,
        }
    }
}

impl RunRecord {
    /// An empty record with the given outcome.
    pub fn new(outcome: RunOutcome) -> Self {
        Self {
            outcome,
            final_output: Value::Null,
            tool_invocations: Vec::new(),
            records: Vec::new(),
            released_output: None,
            persisted: None,
            principal_notices: Vec::new(),
            load: None,
            error: None,
            records_reported: true,
        }
    }
}
