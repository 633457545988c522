//! One request and its answer on a live host, under a deadline; during
//! `vector/run`, the host's callback requests are answered concurrently, in
//! whatever order the runner's callbacks finish, and abandoned when the run
//! ends. Stdout is read while answers wait to be written: a host that stops
//! reading its stdin cannot stop the runner reading its stdout.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::process::{CallTicket, Event, HostProcess};
use crate::errors::AdapterErrorKind;
use crate::interface::{Callbacks, KnownAnswers};
use crate::wire::codec::CodecError;
use crate::wire::depth::{self, ReadError};
use crate::wire::jsonrpc::{
    self, encode_error, encode_request, encode_result, ErrorObject, Id, Message,
};
use crate::wire::methods::{self, InterceptResult, RedactParams, RedactResult};
use crate::wire::methods::{ResolveApprovalParams, ResolveApprovalResult};
use crate::wire::Schemas;

/// The most callbacks a host may have open at once during one run; more is
/// a protocol violation (it bounds the runner's memory). A callback is open
/// from its request until its answer is written to the host's stdin, so a
/// host that calls back without reading the answers reaches the limit too.
pub(crate) const MAX_OPEN_CALLBACKS: usize = 1024;

/// How a call failed.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The host answered with an error response; the link is intact.
    Host(ErrorObject),
    /// The link is broken (the host is killed or gone); the kind says why.
    Fatal(AdapterErrorKind),
}

/// A deadline and the limit it came from, for the error text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    pub(crate) at: Instant,
    pub(crate) limit_ms: u64,
}

/// A live host process and the ids of the runner's requests.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) process: HostProcess,
    next_id: i64,
    /// The known answers sent with the open `vector/run`, by interceptor:
    /// a `callback/record` is read only where one of them was to be
    /// recorded.
    pub(crate) known: Vec<Option<KnownAnswers>>,
}

fn excerpt(line: &str) -> String {
    const MAX: usize = 200;
    if line.len() <= MAX {
        return line.to_owned();
    }
    let mut cut = MAX;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... ({} bytes)", &line[..cut], line.len())
}

fn protocol(text: impl Into<String>) -> CallError {
    CallError::Fatal(AdapterErrorKind::Protocol(text.into()))
}

impl Session {
    pub(crate) fn new(process: HostProcess) -> Self {
        Self {
            process,
            next_id: 1,
            known: Vec::new(),
        }
    }

    /// Send `method` and wait for its checked result. With `callbacks`, the
    /// host may call back until it answers.
    pub(crate) async fn call<P: Serialize + ?Sized>(
        &mut self,
        method: &'static str,
        params: &P,
        deadline: Deadline,
        callbacks: Option<&Arc<dyn Callbacks>>,
    ) -> Result<Value, CallError> {
        let ticket = self.process.begin_call();
        let answered = self
            .exchange(method, params, deadline, callbacks, ticket)
            .await;
        self.process.end_call();
        answered
    }

    async fn exchange<P: Serialize + ?Sized>(
        &mut self,
        method: &'static str,
        params: &P,
        deadline: Deadline,
        callbacks: Option<&Arc<dyn Callbacks>>,
        ticket: CallTicket,
    ) -> Result<Value, CallError> {
        let id = Id::Int(self.next_id);
        self.next_id += 1;
        let line = encode_request(&id, method, params);
        // A host need not read a line deeper than the bound (PROTOCOL.md
        // §1), so the runner never writes one. Only vector/setup can be:
        // the scenario sits a level deeper in it than in its vector file.
        // Callback answers carry no deeper values than the host's request
        // or the vector's scripts, which the loader bounds.
        if let Err(e) = depth::check(&line) {
            return Err(CallError::Fatal(AdapterErrorKind::Unsendable(format!(
                "{method}: {e}"
            ))));
        }
        if !self.process.send_request(line) {
            return Err(CallError::Fatal(AdapterErrorKind::Exited {
                status: self.process.reap().await,
            }));
        }

        let schemas = Schemas::get();
        // Answers of callback tasks; dropping the set at return abandons the
        // callbacks still running (a timing-out interceptor never answers).
        let mut tasks: JoinSet<()> = JoinSet::new();
        let (answers_tx, mut answers) = mpsc::unbounded_channel::<String>();
        // Callback requests taken in this call; those not yet delivered are
        // open.
        let mut accepted: usize = 0;
        loop {
            let event = tokio::select! {
                biased;
                // First, so that a host writing without pause still times out.
                () = tokio::time::sleep_until(deadline.at) => {
                    return Err(CallError::Fatal(AdapterErrorKind::Timeout { millis: deadline.limit_ms }));
                }
                event = self.process.next_event() => event,
                Some(answer) = answers.recv() => {
                    // Queued, never awaited: the writer may be stuck on a
                    // host that does not read, the reader must not be.
                    self.process.send_answer(answer, ticket);
                    continue;
                }
            };
            let line = match event {
                Event::Line(line) => line,
                Event::Gone { status } => {
                    return Err(CallError::Fatal(AdapterErrorKind::Exited { status }))
                }
                Event::Failed(CodecError::Oversized { limit }) => {
                    return Err(CallError::Fatal(AdapterErrorKind::OversizedLine { limit }))
                }
                Event::Failed(CodecError::NotUtf8) => {
                    return Err(protocol("the host wrote a line that is not UTF-8"))
                }
                Event::Failed(e) => {
                    return Err(CallError::Fatal(AdapterErrorKind::Io(e.to_string())))
                }
            };
            let value: Value = depth::from_str(&line).map_err(|e| match e {
                ReadError::TooDeep(e) => protocol(format!(
                    "the host wrote a line the runner does not read ({e}): {}",
                    excerpt(&line)
                )),
                ReadError::Json(e) => protocol(format!(
                    "the host wrote a line that is not JSON ({e}): {}",
                    excerpt(&line)
                )),
            })?;
            schemas
                .check_envelope(&value)
                .map_err(|e| protocol(format!("{e}: {}", excerpt(&line))))?;
            let message = Message::from_value(value)
                .map_err(|e| protocol(format!("{e}: {}", excerpt(&line))))?;
            match message {
                Message::Response { id: got, result } if got == id => {
                    schemas.check_result(method, &result).map_err(|e| protocol(e.to_string()))?;
                    return Ok(result);
                }
                Message::Error { id: Some(got), error } if got == id => return Err(CallError::Host(error)),
                Message::Response { id: got, .. } | Message::Error { id: Some(got), .. } => {
                    return Err(protocol(format!("the host answered request id {got}; the open request is {method} with id {id}")))
                }
                Message::Error { id: None, error } => {
                    return Err(protocol(format!(
                        "the host could not read a request ({} {}) while {method} was open",
                        error.code, error.message
                    )))
                }
                Message::Notification { method: m, params } if m == methods::CALLBACK_RECORD => {
                    let Some(callbacks) = callbacks else {
                        return Err(protocol(format!("the host sent notification `{m}` while {method}, not vector/run, was open")));
                    };
                    schemas.check_notification(&m, &params).map_err(|e| protocol(e.to_string()))?;
                    let (index, context) = index_and_context(params).map_err(|e| protocol(format!("params of {m}: {e}")))?;
                    self.record(callbacks, index, context)?;
                }
                Message::Notification { method: m, .. } => {
                    return Err(protocol(format!(
                        "the host sent notification `{m}` while {method} was open; the only one the protocol defines is {} during vector/run",
                        methods::CALLBACK_RECORD
                    )))
                }
                Message::Request { id: req_id, method: m, params } => {
                    let Some(callbacks) = callbacks else {
                        return Err(protocol(format!("the host sent request `{m}` while {method}, not vector/run, was open")));
                    };
                    let known = methods::CALLBACK_METHODS;
                    let Some(m) = known.into_iter().find(|k| *k == m) else {
                        return Err(protocol(format!("the host sent request `{m}`, which is not a callback")));
                    };
                    while tasks.try_join_next().is_some() {}
                    let open = accepted.saturating_sub(self.process.delivered(ticket));
                    if open >= MAX_OPEN_CALLBACKS {
                        let unread = open.saturating_sub(tasks.len());
                        return Err(protocol(format!(
                            "the host has more than {MAX_OPEN_CALLBACKS} callbacks open at once \
                             ({unread} of them answered, waiting for the host to read its stdin)"
                        )));
                    }
                    schemas.check_params(m, &params).map_err(|e| protocol(e.to_string()))?;
                    accepted += 1;
                    let callbacks = Arc::clone(callbacks);
                    let tx = answers_tx.clone();
                    tasks.spawn(async move {
                        let answer = answer(callbacks, &req_id, m, params).await;
                        let _ = tx.send(answer);
                    });
                }
            }
        }
    }
}

impl Session {
    /// Hand a `callback/record` context to the callbacks, in line order;
    /// a host that answered itself a call the runner sent no recorded
    /// answer for broke the protocol (its answer may not be the script's).
    fn record(
        &self,
        callbacks: &Arc<dyn Callbacks>,
        index: usize,
        context: Value,
    ) -> Result<(), CallError> {
        let point = context.get("interception_point").and_then(Value::as_str);
        let answered = self
            .known
            .get(index)
            .and_then(Option::as_ref)
            .filter(|known| known.record)
            .zip(point)
            .is_some_and(|(known, point)| known.answer(point).is_some());
        if !answered {
            return Err(protocol(format!(
                "the host sent {} for interceptor {index} at {}, where vector/run carried no \
                 answer to be recorded; such a call is a callback/intercept",
                methods::CALLBACK_RECORD,
                point.map_or_else(|| "no interception_point".to_owned(), |p| format!("`{p}`")),
            )));
        }
        callbacks.record(index, Arc::new(context));
        Ok(())
    }
}

/// `index` and `context` taken out of params the schema checked
/// (`callback/intercept`, `callback/record`), without copying the context.
fn index_and_context(params: Value) -> Result<(usize, Value), String> {
    let Value::Object(mut members) = params else {
        return Err("not an object".into());
    };
    let index = members
        .get("index")
        .and_then(Value::as_u64)
        .ok_or("`index` is not a non-negative integer")?;
    let context = members.remove("context").ok_or("`context` is missing")?;
    Ok((usize::try_from(index).unwrap_or(usize::MAX), context))
}

/// Run one callback and encode its response line.
async fn answer(callbacks: Arc<dyn Callbacks>, id: &Id, method: &str, params: Value) -> String {
    let bad = |e: serde_json::Error| {
        ErrorObject::new(jsonrpc::INVALID_PARAMS, format!("params of {method}: {e}"))
    };
    // Each answer is written from the callbacks' reply, never from a `Value`
    // copy of it: a context-sized fill is megabytes.
    let line: Result<String, ErrorObject> = match method {
        // Taken apart, not deserialised: a typed copy would rebuild every
        // map of the context.
        methods::CALLBACK_INTERCEPT => match index_and_context(params) {
            Ok((index, context)) => {
                // Lent, not copied: the callbacks copy only what they change.
                let shared = callbacks.intercept_shared(index, Arc::new(context)).await;
                Ok(encode_result(
                    id,
                    &InterceptResult::from_reply(shared.reply, shared.changed),
                ))
            }
            Err(e) => Err(ErrorObject::new(
                jsonrpc::INVALID_PARAMS,
                format!("params of {method}: {e}"),
            )),
        },
        methods::CALLBACK_RESOLVE_APPROVAL => {
            match serde_json::from_value::<ResolveApprovalParams>(params) {
                Ok(p) => Ok(encode_result(
                    id,
                    &ResolveApprovalResult::from(callbacks.resolve_approval(&p.request).await),
                )),
                Err(e) => Err(bad(e)),
            }
        }
        methods::CALLBACK_REDACT => match serde_json::from_value::<RedactParams>(params) {
            Ok(p) => Ok(encode_result(
                id,
                &RedactResult::from(callbacks.redact(&p.context).await),
            )),
            Err(e) => Err(bad(e)),
        },
        other => Err(ErrorObject::new(
            jsonrpc::METHOD_NOT_FOUND,
            format!("no callback `{other}`"),
        )),
    };
    line.unwrap_or_else(|error| encode_error(Some(id), &error))
}
