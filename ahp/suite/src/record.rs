//! The run record: everything the driver observed while running one vector,
//! and nothing it inferred. Assertions read only this.

use serde::Serialize;
use serde_json::Value;

/// One line (or the unterminated tail) a backend wrote to stdout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineRecord {
    /// The text, lossily decoded, at most the driver's line limit.
    pub text: String,
    /// The line's length in bytes, without the newline.
    pub len: usize,
    /// Whether the bytes were valid UTF-8.
    pub utf8: bool,
    /// Whether a newline ended the line (false: end of file or cut).
    pub terminated: bool,
    /// Whether the line was longer than the limit and cut.
    pub cut: bool,
    /// Milliseconds since the run started.
    pub at_ms: u64,
    /// Index of the last step sent before the line arrived.
    pub after_step: Option<usize>,
    /// Index of the process that wrote it.
    pub process: usize,
    /// The step this line was taken as the reply to.
    pub reply_to: Option<usize>,
}

impl LineRecord {
    /// The line parsed as a JSON-RPC response object (has `result` or
    /// `error`), if it is one.
    pub fn as_response(&self) -> Option<Value> {
        if !self.utf8 || self.cut {
            return None;
        }
        let text = self.text.strip_suffix('\r').unwrap_or(&self.text);
        let value = ctk_ahp_wire::json::parse_str(text).ok()?;
        is_response(&value).then_some(value)
    }
}

/// Whether a JSON value is a JSON-RPC response object.
pub fn is_response(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|o| o.contains_key("result") || o.contains_key("error"))
}

/// What an HTTP exchange returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HttpRecord {
    /// The status code.
    pub status: u16,
    /// The `Content-Type` header, when present.
    pub content_type: Option<String>,
    /// The `Location` header, when present (redirects are not followed).
    pub location: Option<String>,
    /// The body, lossily decoded and bounded.
    pub body: String,
    /// The body length in bytes read (up to the limit).
    pub body_len: usize,
    /// Whether the body was valid UTF-8.
    pub utf8: bool,
    /// Whether the body exceeded the limit and was cut.
    pub cut: bool,
    /// Milliseconds from sending to the end of the body.
    pub elapsed_ms: u64,
}

/// The reply the driver took as the answer to a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reply {
    /// The parsed JSON-RPC response.
    pub value: Value,
    /// The exact text it came in.
    pub text: String,
    /// Milliseconds from sending the step to the reply.
    pub latency_ms: u64,
}

/// What happened to one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRecord {
    /// Its index in `send`.
    pub index: usize,
    /// Whether it was sent completely (false: the pipe or socket broke).
    pub sent: bool,
    /// Why it could not be sent, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_error: Option<String>,
    /// The reply taken for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<Reply>,
    /// JSON-RPC responses beyond the first seen for this step (per_event:
    /// the same process; persistent: arriving while waiting in silence).
    pub extra_responses: Vec<Value>,
    /// Why no reply was taken, when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_reply: Option<String>,
    /// HTTP: the response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpRecord>,
    /// stdio: the process the step went to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<usize>,
}

impl StepRecord {
    /// A record for a step that has not produced anything yet.
    pub fn new(index: usize) -> Self {
        Self {
            index,
            sent: false,
            send_error: None,
            reply: None,
            extra_responses: Vec::new(),
            no_reply: None,
            http: None,
            process: None,
        }
    }
}

/// How a backend process ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessRecord {
    /// The OS pid.
    pub pid: Option<u32>,
    /// The step indices sent to it.
    pub steps: Vec<usize>,
    /// The exit code, if it exited by itself with one.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// Whether it exited by itself within the bound (false: killed).
    pub exited: bool,
    /// Whether the driver killed it.
    pub killed: bool,
    /// Whether stdout exceeded the byte budget (reading stopped).
    pub flooded: bool,
    /// The last bytes of stderr (lossy UTF-8).
    pub stderr_tail: String,
}

/// Everything observed while running one vector.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    /// `stdio` or `http`.
    pub binding: &'static str,
    /// `persistent`, `per_event`, or `none` (HTTP).
    pub lifecycle: &'static str,
    /// One record per step.
    pub steps: Vec<StepRecord>,
    /// stdio: every line read from stdout, in order.
    pub lines: Vec<LineRecord>,
    /// stdio: every process started.
    pub processes: Vec<ProcessRecord>,
    /// Milliseconds the run took.
    pub elapsed_ms: u64,
}
