//! The harness-role run record: what the adapter answered, what each
//! scripted backend received and when, which processes the harness
//! started. Assertions read only this.

use serde::Serialize;
use serde_json::Value;

use super::adapter::{AdapterInfo, AdapterLine, LoadResult};
use super::http::HttpExchange;

/// One trigger as the adapter handled it.
#[derive(Debug, Clone, Serialize)]
pub struct CallRecord {
    /// Index in `triggers`.
    pub trigger: usize,
    /// For a parallel trigger: the index of this call in its `parallel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<usize>,
    /// When the kit sent the call.
    pub t_sent: f64,
    /// When the answer (or the error) came.
    pub t_answered: f64,
    /// The result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why there is no result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// [`error`](Self::error) in words that do not change from run to run
    /// ([`super::adapter::AdapterError::summary`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_summary: Option<String>,
}

/// One message a scripted backend received.
#[derive(Debug, Clone, Serialize)]
pub struct Received {
    /// The backend name.
    pub backend: String,
    /// `stdio` or `http`.
    pub binding: &'static str,
    /// When it was read.
    pub t: f64,
    /// stdio: the process that read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
    /// `intercept`, `observe` or `other`.
    pub kind: String,
    /// The text (lossy).
    pub text: String,
    /// Whether it was UTF-8.
    pub utf8: bool,
    /// The parsed message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<Value>,
    /// When the scripted answer was first written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_t: Option<f64>,
    /// When the plan ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_end_t: Option<f64>,
    /// HTTP: the whole exchange.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpExchange>,
    /// The trigger whose call window it fell in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<usize>,
    /// In a parallel trigger's window: the call whose id its event carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<usize>,
}

impl Received {
    /// The JSON-RPC id as JSON (absent: `None`).
    pub fn id(&self) -> Option<&Value> {
        self.json.as_ref().and_then(|j| j.get("id"))
    }

    /// `params.event`.
    pub fn event(&self) -> Option<&Value> {
        self.json.as_ref().and_then(|j| j.pointer("/params/event"))
    }
}

/// One scripted stdio process the harness started.
#[derive(Debug, Clone, Serialize)]
pub struct ProcLife {
    /// The backend name.
    pub backend: String,
    /// Its pid.
    pub pid: u64,
    /// Its argv.
    pub argv: Vec<String>,
    /// Its working directory.
    pub cwd: Option<String>,
    /// Its environment variable names.
    pub env_names: Vec<String>,
    /// Frames it read.
    pub frames: usize,
    /// Whether stdin reached end of file (and when).
    pub eof_t: Option<f64>,
    /// Its exit status, when it logged one.
    pub exit_code: Option<i64>,
}

/// Everything observed in one harness-role run.
#[derive(Debug, Clone, Serialize)]
pub struct HarnessRecord {
    /// The adapter's `initialize` answer.
    pub adapter: AdapterInfo,
    /// The registration as the kit wrote it.
    pub registration: Value,
    /// The `harness/load` answer.
    pub load: LoadResult,
    /// One per trigger that was run.
    pub calls: Vec<CallRecord>,
    /// Every message any scripted backend received, by time.
    pub received: Vec<Received>,
    /// Every scripted process.
    pub processes: Vec<ProcLife>,
    /// The adapter transcript.
    pub transcript: Vec<AdapterLine>,
    /// The adapter's stderr tail.
    pub adapter_stderr: String,
    /// The adapter's exit status after `shutdown`.
    pub adapter_exit: Option<i32>,
}
