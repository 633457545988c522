//! The kit's end: the kit starts the vendor's adapter command (no shell),
//! speaks `ctk-ahp-adapter/1` on its stdio, bounds every call, keeps the
//! tail of its stderr for error messages, and kills the adapter's whole
//! process tree when dropped or ended ([`ctk_support::child`]).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use ctk_support::child::{LineChild, OutEvent, Spawn};
use ctk_support::clock::now_ms;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::messages::{AdapterInfo, ADAPTER_CONTRACT};

/// How to start the adapter: a program and its arguments, run directly.
#[derive(Debug, Clone)]
pub struct AdapterCommand {
    /// The program (a path, or a name looked up on `PATH`).
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Its working directory (the kit's own when `None`).
    pub cwd: Option<PathBuf>,
    /// Extra environment variables (the kit's environment is inherited).
    pub env: Vec<(OsString, OsString)>,
}

impl AdapterCommand {
    /// A command from a program and arguments.
    pub fn new<I, S>(program: impl Into<OsString>, args: I) -> AdapterCommand
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        AdapterCommand {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: None,
            env: Vec::new(),
        }
    }
}

/// The adapter misbehaved or could not be reached: the vector's outcome is
/// `error` (the harness was not judged), never `fail`.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AdapterError {
    /// The command could not be started.
    #[error(
        "cannot start adapter {program:?}: {message} (check the path and that it is executable)"
    )]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        message: String,
    },
    /// No answer within the call's bound.
    #[error("adapter did not answer {method} within {ms} ms; stderr tail: {stderr}")]
    Timeout {
        /// The method.
        method: String,
        /// The bound.
        ms: u64,
        /// The stderr tail.
        stderr: String,
    },
    /// The adapter closed stdout or exited before answering.
    #[error("adapter closed its stdout before answering {method}; stderr tail: {stderr}")]
    Closed {
        /// The method.
        method: String,
        /// The stderr tail.
        stderr: String,
    },
    /// A line on stdout that is not a JSON-RPC message.
    #[error("adapter wrote a line that is not JSON-RPC while answering {method}: {line:?}; stderr tail: {stderr}")]
    Protocol {
        /// The method.
        method: String,
        /// The line.
        line: String,
        /// The stderr tail.
        stderr: String,
    },
    /// The adapter answered with a JSON-RPC error.
    #[error("adapter answered {method} with error {code}: {message}; stderr tail: {stderr}")]
    Rpc {
        /// The method.
        method: String,
        /// `error.code`.
        code: i64,
        /// `error.message`.
        message: String,
        /// The stderr tail.
        stderr: String,
    },
    /// The result does not have the shape the contract defines.
    #[error("adapter's result for {method} breaks the contract (ADAPTER.md): {message}")]
    Shape {
        /// The method.
        method: String,
        /// What is wrong.
        message: String,
    },
}

impl AdapterError {
    /// What went wrong, in words that do not change from run to run (no
    /// measured time, no stderr): the failure message a report and an
    /// interop matrix publish; the full text goes with it as the actual
    /// value.
    pub fn summary(&self) -> String {
        match self {
            AdapterError::Spawn { .. } => "the adapter could not be started".into(),
            AdapterError::Timeout { method, .. } => {
                format!("adapter did not answer {method} within the call's bound")
            }
            AdapterError::Closed { method, .. } => {
                format!("adapter closed its stdout before answering {method}")
            }
            AdapterError::Protocol { method, .. } => {
                format!("adapter wrote a line that is not JSON-RPC while answering {method}")
            }
            AdapterError::Rpc { method, code, .. } => {
                format!("adapter answered {method} with error {code}")
            }
            AdapterError::Shape { method, .. } => {
                format!("adapter's result for {method} breaks the contract (ADAPTER.md)")
            }
        }
    }
}

/// One line exchanged with the adapter, for the run record.
#[derive(Debug, Clone, Serialize)]
pub struct AdapterLine {
    /// `kit` (sent) or `adapter` (received).
    pub from: &'static str,
    /// When ([`now_ms`]).
    pub t: f64,
    /// The text.
    pub text: String,
}

/// A running adapter.
pub struct AdapterClient {
    proc: LineChild,
    seq: u64,
    /// Every line exchanged.
    pub transcript: Vec<AdapterLine>,
}

impl AdapterClient {
    /// Start the adapter with `extra_env` added to its environment.
    pub fn spawn(
        cmd: &AdapterCommand,
        extra_env: &[(OsString, OsString)],
    ) -> Result<AdapterClient, AdapterError> {
        let mut env = cmd.env.clone();
        env.extend(extra_env.iter().cloned());
        let spec = Spawn {
            program: cmd.program.clone(),
            args: cmd.args.clone(),
            cwd: cmd.cwd.clone(),
            env,
            max_line_bytes: 1 << 20,
            max_stdout_bytes: 64 << 20,
            stderr_tail_bytes: 8 << 10,
        };
        let proc = LineChild::spawn(&spec).map_err(|e| AdapterError::Spawn {
            program: cmd.program.to_string_lossy().into_owned(),
            message: e.to_string(),
        })?;
        Ok(AdapterClient {
            proc,
            seq: 0,
            transcript: Vec::new(),
        })
    }

    /// The adapter's stderr tail.
    pub fn stderr_tail(&self) -> String {
        self.proc.stderr_tail()
    }

    /// Call `method` with `params`; the result, within `limit`.
    pub async fn call(
        &mut self,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, AdapterError> {
        self.seq += 1;
        let id = format!("ctk-{}", self.seq);
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let text = frame.to_string();
        self.transcript.push(AdapterLine {
            from: "kit",
            t: now_ms(),
            text: text.clone(),
        });
        let deadline = Instant::now() + limit;
        let ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        if self.proc.write_line(&text, 1, limit).await.is_err() {
            return Err(AdapterError::Closed {
                method: method.into(),
                stderr: self.stderr_tail(),
            });
        }
        loop {
            let Some(ev) = self.proc.next_event(deadline).await else {
                if self.proc.stdout_ended() {
                    return Err(AdapterError::Closed {
                        method: method.into(),
                        stderr: self.stderr_tail(),
                    });
                }
                return Err(AdapterError::Timeout {
                    method: method.into(),
                    ms,
                    stderr: self.stderr_tail(),
                });
            };
            let bytes = match ev {
                OutEvent::Line { bytes, .. } => bytes,
                OutEvent::Eof | OutEvent::Flood => {
                    return Err(AdapterError::Closed {
                        method: method.into(),
                        stderr: self.stderr_tail(),
                    })
                }
            };
            let line = String::from_utf8_lossy(&bytes).into_owned();
            self.transcript.push(AdapterLine {
                from: "adapter",
                t: now_ms(),
                text: line.clone(),
            });
            let Ok(v) = serde_json::from_str::<Value>(line.trim_end_matches('\r')) else {
                return Err(AdapterError::Protocol {
                    method: method.into(),
                    line,
                    stderr: self.stderr_tail(),
                });
            };
            if v.get("id").and_then(Value::as_str) != Some(id.as_str()) {
                // A notification or a stray answer: not ours.
                if v.get("method").is_some() {
                    continue;
                }
                return Err(AdapterError::Protocol {
                    method: method.into(),
                    line,
                    stderr: self.stderr_tail(),
                });
            }
            if let Some(err) = v.get("error") {
                return Err(AdapterError::Rpc {
                    method: method.into(),
                    code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: err
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    stderr: self.stderr_tail(),
                });
            }
            return v.get("result").cloned().ok_or_else(|| AdapterError::Shape {
                method: method.into(),
                message: "a response with neither result nor error".into(),
            });
        }
    }

    /// `initialize`.
    pub async fn initialize(&mut self, limit: Duration) -> Result<AdapterInfo, AdapterError> {
        let r = self
            .call("initialize", json!({"adapter": ADAPTER_CONTRACT}), limit)
            .await?;
        let info: AdapterInfo = serde_json::from_value(r).map_err(|e| AdapterError::Shape {
            method: "initialize".into(),
            message: e.to_string(),
        })?;
        if info.adapter != ADAPTER_CONTRACT {
            return Err(AdapterError::Shape {
                method: "initialize".into(),
                message: format!(
                    "adapter is {:?}, the kit speaks {ADAPTER_CONTRACT:?}",
                    info.adapter
                ),
            });
        }
        Ok(info)
    }

    /// Ask for `shutdown`, then end the process tree (killing whatever is
    /// left after `grace`); returns the exit code when it exited by itself.
    pub async fn close(&mut self, grace: Duration) -> Option<i32> {
        let _ = self.call("shutdown", json!({}), grace).await;
        let ended = self.proc.end(Instant::now() + grace).await;
        ended.exit_code
    }
}
