//! The host end of the stdio link: [`serve`] drives any [`HostAdapter`] from the
//! runner's requests and turns its [`Callbacks`] calls into requests to the
//! runner.
//!
//! Three loops run concurrently in the caller's task: the reader (decodes,
//! validates, routes responses to waiting callbacks and requests to the
//! dispatcher), the dispatcher (calls the host, one request at a time),
//! and the writer (the only owner of the output stream). Callback answers
//! may come in any order; an answer to a callback the host already gave up
//! on (its future was dropped, e.g. by the host's interceptor timeout) finds
//! no waiter and is ignored.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};

use crate::errors::{AdapterError, AdapterErrorKind};
use crate::interface::{
    BoxFuture, Callbacks, HostAdapter, InterceptorReply, KnownAnswers, RedactorReply,
    ResolverReply, SharedReply,
};
use crate::model::setup::VectorSetup;
use crate::wire::codec::{write_line, CodecError, LineReader, DEFAULT_MAX_LINE_BYTES};
use crate::wire::depth::{self, ReadError};
use crate::wire::jsonrpc::{
    self, encode_error, encode_notification, encode_request, encode_result, ErrorObject, Id,
    Message, WireError,
};
use crate::wire::methods::{self, Empty, InitializeParams, InitializeResult};
use crate::wire::{Schemas, PROTOCOL_VERSION};

/// Why [`serve`] stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A line could not be read.
    #[error("reading from the runner failed: {0}")]
    Read(#[from] CodecError),
    /// A line could not be written.
    #[error("writing to the runner failed: {0}")]
    Write(#[source] std::io::Error),
    /// The runner sent something that is not a protocol message where no
    /// error response is possible (a response that breaks its schema).
    #[error("protocol violation by the runner: {0}")]
    Protocol(#[source] WireError),
}

/// Options of [`serve_with`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeOptions {
    /// The longest line accepted from the runner, in bytes.
    pub max_line_bytes: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// Serve `host` over a line stream until `shutdown` or end of input.
pub async fn serve<H, R, W>(host: H, reader: R, writer: W) -> Result<(), ServeError>
where
    H: HostAdapter,
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
{
    serve_with(host, reader, writer, ServeOptions::default()).await
}

/// [`serve`] on this process's stdin and stdout: the body of a host
/// binary. Call `std::process::exit` when it returns, since a read of stdin
/// may still be pending.
///
/// Where both are pipes (as the runner starts a host), they are read and
/// written on the runtime's own reactor, in non-blocking mode, rather than
/// through tokio's blocking pool, which hands every read and every write to
/// another thread and back (issue 30: a third of a stdio run's time was such
/// switches). Nothing else in the process may then write to stdout, which is
/// the link anyway. Anything else (a terminal, a file) is read as before.
pub async fn serve_stdio<H: HostAdapter>(host: H) -> Result<(), ServeError> {
    #[cfg(unix)]
    if let Some((input, output)) = stdio_pipes() {
        return serve(host, input, output).await;
    }
    serve(host, tokio::io::stdin(), tokio::io::stdout()).await
}

/// This process's stdin and stdout as non-blocking pipes on the reactor,
/// when both are pipes.
#[cfg(unix)]
fn stdio_pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    use tokio::net::unix::pipe;
    // Duplicates: the standard handles stay open whatever becomes of these.
    let input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned().ok()?);
    let output = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned().ok()?);
    // Both or neither: a pipe made non-blocking and then read through the
    // blocking pool would fail with `WouldBlock`.
    let fifo = |f: &std::fs::File| f.metadata().is_ok_and(|m| m.file_type().is_fifo());
    if !(fifo(&input) && fifo(&output)) {
        return None;
    }
    let input = pipe::Receiver::from_file(input).ok()?;
    let output = pipe::Sender::from_file(output).ok()?;
    Some((input, output))
}

/// [`serve`] with options.
pub async fn serve_with<H, R, W>(
    host: H,
    reader: R,
    writer: W,
    options: ServeOptions,
) -> Result<(), ServeError>
where
    H: HostAdapter,
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
{
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let (req_tx, req_rx) = mpsc::unbounded_channel();
    let link = Arc::new(Link {
        out: out_tx,
        pending: Mutex::new(HashMap::new()),
        next_id: AtomicI64::new(1),
        closed: AtomicBool::new(false),
    });
    let reader = read_loop(
        LineReader::new(reader, options.max_line_bytes),
        Arc::clone(&link),
        req_tx,
    );
    let dispatcher = dispatch_loop(host, Arc::clone(&link), req_rx);
    let writer = write_loop(writer, out_rx);
    let rest = async { tokio::try_join!(dispatcher, writer).map(|_| ()) };
    tokio::pin!(reader, rest);
    // After `shutdown` the dispatcher and writer end and serving stops without
    // waiting for the runner to close the input; at end of input the reader
    // ends first and the dispatcher finishes what it is doing.
    tokio::select! {
        read = &mut reader => {
            read?;
            rest.await
        }
        done = &mut rest => done,
    }
}

enum Out {
    Line(String),
    Close,
}

/// A callback waiting for its answer, with the method it called.
type Waiter = (&'static str, oneshot::Sender<Result<Value, ErrorObject>>);

struct Link {
    out: mpsc::UnboundedSender<Out>,
    pending: Mutex<HashMap<Id, Waiter>>,
    next_id: AtomicI64,
    closed: AtomicBool,
}

impl Link {
    fn send(&self, line: String) {
        // The writer only goes away when serving ends; nothing to tell then.
        let _ = self.out.send(Out::Line(line));
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<Id, Waiter>> {
        self.pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.pending().clear();
    }

    /// Send a request to the runner and wait for its result; `Err` carries a
    /// diagnostic when the link closed or the runner answered with an error.
    async fn call<P: Serialize, T: DeserializeOwned>(
        &self,
        method: &'static str,
        params: &P,
    ) -> Result<T, String> {
        let result = self.call_value(method, params).await?;
        serde_json::from_value(result).map_err(|e| format!("result of {method}: {e}"))
    }

    /// [`Link::call`], the result left as the schema-checked `Value`.
    async fn call_value<P: Serialize>(
        &self,
        method: &'static str,
        params: &P,
    ) -> Result<Value, String> {
        let id = Id::Int(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        {
            if self.closed.load(Ordering::SeqCst) {
                return Err("the runner link is closed".into());
            }
            self.pending().insert(id.clone(), (method, tx));
        }
        // Removes the waiter if this future is dropped before the answer.
        let _guard = PendingGuard {
            link: self,
            id: id.clone(),
        };
        self.send(encode_request(&id, method, params));
        match rx.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(format!(
                "the runner answered {method} with error {}: {}",
                error.code, error.message
            )),
            Err(_) => Err("the runner link is closed".into()),
        }
    }
}

struct PendingGuard<'a> {
    link: &'a Link,
    id: Id,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.link.pending().remove(&self.id);
    }
}

/// The host's view of the runner during `vector/run`: each call is a request,
/// but for the answers the runner sent with `vector/run` (`known-answers`).
struct RemoteCallbacks {
    link: Arc<Link>,
    /// By interceptor index.
    known: Vec<Option<KnownAnswers>>,
}

/// `callback/intercept` and `callback/record` params that borrow their
/// context.
#[derive(Serialize)]
struct Lent<'a> {
    index: u64,
    context: &'a Value,
}

impl RemoteCallbacks {
    /// Interceptor `index`'s answer on `context`, if the runner sent it;
    /// where the runner records that interceptor's contexts, the context is
    /// reported first (`recorded-contexts`), so that the runner reads it
    /// before anything the answer leads to.
    fn known(&self, index: usize, context: &Value) -> Option<InterceptorReply> {
        let point = context.get("interception_point")?.as_str()?;
        let known = self.known.get(index)?.as_ref()?;
        let reply = known.answer(point)?.clone();
        if known.record {
            self.link.send(encode_notification(
                methods::CALLBACK_RECORD,
                &Lent {
                    index: index as u64,
                    context,
                },
            ));
        }
        Some(reply)
    }

    /// Interceptor `index` on `context`: its known answer, or the runner's
    /// over `callback/intercept`, written straight from the borrowed
    /// context; with the interceptor's changed copy, if it changed one.
    async fn answer(&self, index: usize, context: &Value) -> (InterceptorReply, Option<Value>) {
        if let Some(reply) = self.known(index, context) {
            return (reply, None);
        }
        let params = Lent {
            index: index as u64,
            context,
        };
        let method = methods::CALLBACK_INTERCEPT;
        let read = self
            .link
            .call_value(method, &params)
            .await
            .and_then(|result| {
                methods::InterceptResult::from_value(result)
                    .map_err(|e| format!("result of {method}: {e}"))
            });
        match read {
            Ok(result) => result.into_reply(),
            Err(message) => (InterceptorReply::Raised { message }, None),
        }
    }
}

impl Callbacks for RemoteCallbacks {
    fn intercept<'a>(
        &'a self,
        index: usize,
        context: &'a mut Value,
    ) -> BoxFuture<'a, InterceptorReply> {
        Box::pin(async move {
            let (reply, changed) = self.answer(index, context).await;
            if let Some(changed) = changed {
                *context = changed;
            }
            reply
        })
    }

    /// The request is written from the lent context itself: no copy is made
    /// to send it, and none to compare it after.
    fn intercept_shared(&self, index: usize, context: Arc<Value>) -> BoxFuture<'_, SharedReply> {
        Box::pin(async move {
            let (reply, changed) = self.answer(index, &context).await;
            SharedReply::new(reply, changed)
        })
    }

    fn resolve_approval<'a>(&'a self, request: &'a Value) -> BoxFuture<'a, ResolverReply> {
        Box::pin(async move {
            let params = methods::ResolveApprovalParams::new(request.clone());
            match self
                .link
                .call::<_, methods::ResolveApprovalResult>(
                    methods::CALLBACK_RESOLVE_APPROVAL,
                    &params,
                )
                .await
            {
                Ok(result) => result.into(),
                Err(message) => ResolverReply::Raised { message },
            }
        })
    }

    fn redact<'a>(&'a self, context: &'a Value) -> BoxFuture<'a, RedactorReply> {
        Box::pin(async move {
            let params = methods::RedactParams::new(context.clone());
            match self
                .link
                .call::<_, methods::RedactResult>(methods::CALLBACK_REDACT, &params)
                .await
            {
                Ok(result) => result.into(),
                Err(message) => RedactorReply::Raised { message },
            }
        })
    }
}

/// A request for the dispatcher: decoded, validated.
struct Incoming {
    id: Id,
    method: String,
    params: Value,
    /// The raw text of the line, for `vector/setup` (raw scenario).
    line: String,
}

async fn read_loop<R: AsyncRead + Unpin>(
    mut reader: LineReader<R>,
    link: Arc<Link>,
    requests: mpsc::UnboundedSender<Incoming>,
) -> Result<(), ServeError> {
    let result = read_messages(&mut reader, &link, &requests).await;
    // End of input or failure: no callback will ever be answered.
    link.close();
    drop(requests);
    result
}

async fn read_messages<R: AsyncRead + Unpin>(
    reader: &mut LineReader<R>,
    link: &Link,
    requests: &mpsc::UnboundedSender<Incoming>,
) -> Result<(), ServeError> {
    let schemas = Schemas::get();
    while let Some(line) = reader.next_line().await? {
        let value: Value = match parse_for_check(&line) {
            Ok(v) => v,
            Err(e) => {
                link.send(encode_error(
                    None,
                    &ErrorObject::new(jsonrpc::PARSE_ERROR, e.to_string()),
                ));
                continue;
            }
        };
        if let Err(e) = schemas.check_envelope(&value) {
            link.send(encode_error(
                envelope_id(&value).as_ref(),
                &ErrorObject::new(jsonrpc::INVALID_REQUEST, e.to_string()),
            ));
            continue;
        }
        let message = match Message::from_value(value) {
            Ok(m) => m,
            Err(e) => {
                link.send(encode_error(
                    None,
                    &ErrorObject::new(jsonrpc::INVALID_REQUEST, e.to_string()),
                ));
                continue;
            }
        };
        match message {
            Message::Request { id, method, params } => {
                if !methods::HOST_METHODS.contains(&method.as_str()) {
                    let e = ErrorObject::new(
                        jsonrpc::METHOD_NOT_FOUND,
                        format!("no method `{method}` on a host"),
                    );
                    link.send(encode_error(Some(&id), &e));
                    continue;
                }
                if let Err(e) = schemas.check_params(&method, &params) {
                    link.send(encode_error(
                        Some(&id),
                        &ErrorObject::new(jsonrpc::INVALID_PARAMS, e.to_string()),
                    ));
                    continue;
                }
                if requests
                    .send(Incoming {
                        id,
                        method,
                        params,
                        line,
                    })
                    .is_err()
                {
                    return Ok(());
                }
            }
            // No notifications are defined from the runner; ignore them.
            Message::Notification { .. } => {}
            Message::Response { id, result } => {
                let waiter = link.pending().remove(&id);
                // No waiter: a late answer to a callback the host gave up on.
                if let Some((method, waiter)) = waiter {
                    schemas
                        .check_result(method, &result)
                        .map_err(ServeError::Protocol)?;
                    let _ = waiter.send(Ok(result));
                }
            }
            Message::Error {
                id: Some(id),
                error,
            } => {
                if let Some((_, waiter)) = link.pending().remove(&id) {
                    let _ = waiter.send(Err(error));
                }
            }
            Message::Error { id: None, error } => {
                return Err(ServeError::Protocol(WireError::InvalidEnvelope(format!(
                    "the runner could not read a message of this host: {} ({})",
                    error.message, error.code
                ))));
            }
        }
    }
    Ok(())
}

fn envelope_id(value: &Value) -> Option<Id> {
    value
        .get("id")
        .cloned()
        .and_then(|id| Id::try_from(id).ok())
}

/// Parse a line for checking. The params of `vector/setup` are parsed with
/// the scenario replaced by `{}` (when it is an object): the scenario stays
/// raw text for the host, so integers no `Value` can hold (beyond u64, or
/// beyond f64's range) never fail parsing or validation here.
/// A line may nest up to [`depth::MAX_NESTING`] levels (PROTOCOL.md §1).
fn parse_for_check(line: &str) -> Result<Value, ReadError> {
    depth::check(line)?;
    Ok(parse_checked_for_check(line)?)
}

fn parse_checked_for_check(line: &str) -> Result<Value, serde_json::Error> {
    let Ok(members) = depth::parse_checked::<BTreeMap<String, &RawValue>>(line) else {
        return depth::parse_checked(line);
    };
    let is_setup = members
        .get("method")
        .is_some_and(|m| m.get() == "\"vector/setup\"");
    let mut message = serde_json::Map::new();
    for (key, raw) in members {
        let value = if is_setup && key == "params" {
            setup_params_for_check(raw)?
        } else {
            depth::parse_checked(raw.get())?
        };
        message.insert(key, value);
    }
    Ok(Value::Object(message))
}

fn setup_params_for_check(raw: &RawValue) -> Result<Value, serde_json::Error> {
    let Ok(members) = depth::parse_checked::<BTreeMap<String, &RawValue>>(raw.get()) else {
        return depth::parse_checked(raw.get());
    };
    let mut params = serde_json::Map::new();
    for (key, raw) in members {
        let value = if key == "scenario" && raw.get().starts_with('{') {
            json!({})
        } else {
            depth::parse_checked(raw.get())?
        };
        params.insert(key, value);
    }
    Ok(Value::Object(params))
}

fn raw_params(line: &str) -> Result<&RawValue, WireError> {
    #[derive(serde::Deserialize)]
    struct Raw<'a> {
        #[serde(borrow)]
        params: &'a RawValue,
    }
    depth::parse_checked::<Raw<'_>>(line)
        .map(|r| r.params)
        .map_err(|e| WireError::Decode {
            what: "params of vector/setup".into(),
            detail: e.to_string(),
        })
}

async fn dispatch_loop<H: HostAdapter>(
    mut host: H,
    link: Arc<Link>,
    mut requests: mpsc::UnboundedReceiver<Incoming>,
) -> Result<(), ServeError> {
    let mut initialized = false;
    while let Some(req) = requests.recv().await {
        // Each result is written from what the host returned, never from a
        // `Value` copy of it: a run record can hold megabytes.
        let reply: Result<String, ErrorObject> =
            if !initialized && req.method != methods::INITIALIZE {
                Err(ErrorObject::new(
                    jsonrpc::NOT_INITIALIZED,
                    format!("`{}` before `initialize`", req.method),
                ))
            } else {
                match req.method.as_str() {
                    methods::INITIALIZE => {
                        let r = initialize(&mut host, req.params).await;
                        initialized |= r.is_ok();
                        r.map(|info| encode_result(&req.id, &info))
                    }
                    methods::VECTOR_SETUP => match decode_setup(&req.line) {
                        Ok(setup) => host
                            .setup(setup)
                            .await
                            .map(|()| encode_result(&req.id, &Empty {}))
                            .map_err(host_error),
                        Err(e) => Err(ErrorObject::new(jsonrpc::INVALID_PARAMS, e.to_string())),
                    },
                    methods::VECTOR_RUN => {
                        // The params passed the schema; what is known is a help,
                        // so params this build cannot read leave every call a
                        // callback.
                        let known = serde_json::from_value::<methods::RunParams>(req.params)
                            .map(methods::RunParams::into_known)
                            .unwrap_or_default();
                        let callbacks: Arc<dyn Callbacks> = Arc::new(RemoteCallbacks {
                            link: Arc::clone(&link),
                            known,
                        });
                        host.run(callbacks)
                            .await
                            .map(|record| encode_result(&req.id, &record))
                            .map_err(host_error)
                    }
                    methods::VECTOR_TEARDOWN => host
                        .teardown()
                        .await
                        .map(|()| encode_result(&req.id, &Empty {}))
                        .map_err(host_error),
                    methods::SHUTDOWN => {
                        link.send(encode_result(&req.id, &Empty {}));
                        let _ = link.out.send(Out::Close);
                        return Ok(());
                    }
                    other => Err(ErrorObject::new(
                        jsonrpc::METHOD_NOT_FOUND,
                        format!("no method `{other}` on a host"),
                    )),
                }
            };
        link.send(reply.unwrap_or_else(|error| encode_error(Some(&req.id), &error)));
    }
    let _ = link.out.send(Out::Close);
    Ok(())
}

async fn initialize<H: HostAdapter>(
    host: &mut H,
    params: Value,
) -> Result<InitializeResult, ErrorObject> {
    let params: InitializeParams = serde_json::from_value(params)
        .map_err(|e| ErrorObject::new(jsonrpc::INVALID_PARAMS, e.to_string()))?;
    if params.protocol != PROTOCOL_VERSION {
        return Err(ErrorObject::new(
            jsonrpc::UNSUPPORTED_PROTOCOL,
            format!(
                "this host speaks {PROTOCOL_VERSION}, not {}",
                params.protocol
            ),
        ));
    }
    let mut info = host.info().await.map_err(host_error)?;
    // The link itself answers the calls the runner knows the answers to,
    // whatever the host behind it.
    for feature in [crate::KNOWN_ANSWERS, crate::RECORDED_CONTEXTS] {
        if !info.features.iter().any(|f| f == feature) {
            info.features.push(feature.to_owned());
        }
    }
    Ok(InitializeResult::new(info))
}

fn decode_setup(line: &str) -> Result<VectorSetup, WireError> {
    let raw = raw_params(line)?;
    depth::parse_checked(raw.get()).map_err(|e| WireError::Decode {
        what: "params of vector/setup".into(),
        detail: e.to_string(),
    })
}

fn host_error(error: AdapterError) -> ErrorObject {
    let message = match error.kind {
        AdapterErrorKind::Host(message) => message,
        other => other.to_string(),
    };
    ErrorObject::new(jsonrpc::HOST_ERROR, message)
        .with_data(json!({ "phase": error.phase.to_string() }))
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::UnboundedReceiver<Out>,
) -> Result<(), ServeError> {
    while let Some(out) = lines.recv().await {
        match out {
            Out::Line(line) => write_line(&mut writer, &line)
                .await
                .map_err(ServeError::Write)?,
            Out::Close => break,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use tokio::io::{AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};

    use super::*;
    use crate::errors::Phase;
    use crate::model::host::HostInfo;
    use crate::model::record::{RunOutcome, RunRecord};

    /// Interceptors 0 and 1 at once, then 2 with a 50 ms host timeout, then 3.
    #[derive(Default)]
    struct Probe {
        scenario: Option<String>,
    }

    fn describe(reply: InterceptorReply) -> Value {
        match reply {
            InterceptorReply::Response(v) => json!({"response": v}),
            InterceptorReply::Raised { message } => json!({"raised": message}),
        }
    }

    impl HostAdapter for Probe {
        async fn info(&mut self) -> Result<HostInfo, AdapterError> {
            Ok(HostInfo::new("probe", "0", vec!["agent-hooks/0.1".into()]))
        }
        async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
            if setup.vector_id == "refuse" {
                return Err(AdapterError::new(
                    Phase::Setup,
                    AdapterErrorKind::Host("refused".into()),
                ));
            }
            self.scenario = Some(setup.scenario.get().to_owned());
            Ok(())
        }
        async fn run(&mut self, cb: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
            let (mut c0, mut c1, mut c2, mut c3) = (
                json!({"n": 0}),
                json!({"n": 1}),
                json!({"n": 2}),
                json!({"n": 3}),
            );
            let (r0, r1) = tokio::join!(cb.intercept(0, &mut c0), cb.intercept(1, &mut c1));
            let r2 =
                tokio::time::timeout(Duration::from_millis(50), cb.intercept(2, &mut c2)).await;
            let r3 = cb.intercept(3, &mut c3).await;
            let mut record = RunRecord::new(RunOutcome::Completed);
            record.records = vec![
                json!({"reply": describe(r0), "context": c0}),
                json!({"reply": describe(r1), "context": c1}),
                json!({"reply": r2.map_or(json!("timeout"), describe), "context": c2}),
                json!({"reply": describe(r3), "context": c3}),
            ];
            record.final_output = json!(self.scenario.clone());
            Ok(record)
        }
        async fn teardown(&mut self) -> Result<(), AdapterError> {
            Ok(())
        }
    }

    struct Runner {
        lines: LineReader<ReadHalf<DuplexStream>>,
        out: WriteHalf<DuplexStream>,
        served: tokio::task::JoinHandle<Result<(), ServeError>>,
    }

    impl Runner {
        fn start() -> Runner {
            let (runner, host) = tokio::io::duplex(1 << 16);
            let (host_in, host_out) = tokio::io::split(host);
            let served = tokio::spawn(serve(Probe::default(), host_in, host_out));
            let (r, w) = tokio::io::split(runner);
            Runner {
                lines: LineReader::new(r, 1 << 20),
                out: w,
                served,
            }
        }
        async fn send(&mut self, line: &str) {
            self.out
                .write_all(format!("{line}\n").as_bytes())
                .await
                .unwrap();
        }
        async fn recv(&mut self) -> Message {
            let line = self.lines.next_line().await.unwrap().expect("a line");
            Message::decode(&line).unwrap()
        }
        async fn call(&mut self, id: i64, method: &str, params: Value) -> Message {
            self.send(&encode_request(&Id::Int(id), method, &params))
                .await;
            self.recv().await
        }
    }

    fn request(m: Message) -> (Id, String, Value) {
        match m {
            Message::Request { id, method, params } => (id, method, params),
            other => panic!("expected a request, got {other:?}"),
        }
    }

    const SCENARIO: &str = r#"{"big":123456789012345678901234567890,"huge":1e400}"#;

    async fn init_and_setup(r: &mut Runner) {
        let m = r
            .call(1, "initialize", json!({"protocol": PROTOCOL_VERSION}))
            .await;
        assert!(matches!(m, Message::Response { .. }), "{m:?}");
        let setup = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"vector/setup","params":{{"vector_id":"v","spec":"agent-hooks/0.1","scenario":{SCENARIO},"interceptors":[],"identity_provider":null}}}}"#
        );
        r.send(&setup).await;
        assert_eq!(
            r.recv().await,
            Message::Response {
                id: Id::Int(2),
                result: json!({})
            }
        );
    }

    #[tokio::test(start_paused = true)]
    async fn out_of_order_and_late_answers() {
        let mut r = Runner::start();
        init_and_setup(&mut r).await;
        r.send(&encode_request(&Id::Int(3), "vector/run", &json!({})))
            .await;
        let (a, _, pa) = request(r.recv().await);
        let (b, _, pb) = request(r.recv().await);
        let (id0, id1) = if pa["index"] == 0 { (a, b) } else { (b, a) };
        assert_eq!(pa["context"]["n"], pa["index"]);
        assert_eq!(pb["context"]["n"], pb["index"]);
        // Answer 1 before 0; 0 mutates its copy.
        r.send(&encode_result(
            &id1,
            &json!({"outcome": "raised", "message": "boom"}),
        ))
        .await;
        r.send(&encode_result(&id0, &json!({"outcome": "response", "response": {"decision": "allow"}, "context": {"n": 0, "mutated": true}}))).await;
        let (id2, _, p2) = request(r.recv().await);
        assert_eq!(p2["index"], 2);
        // Interceptor 2 is never answered in time: the host's timeout fires.
        let (id3, _, p3) = request(r.recv().await);
        assert_eq!(p3["index"], 3);
        r.send(&encode_result(
            &id2,
            &json!({"outcome": "response", "response": "late"}),
        ))
        .await;
        r.send(&encode_result(
            &id3,
            &json!({"outcome": "response", "response": {"decision": "deny"}}),
        ))
        .await;
        let Message::Response { id, result } = r.recv().await else {
            panic!("no run result")
        };
        assert_eq!(id, Id::Int(3));
        assert_eq!(
            result["records"][0],
            json!({"reply": {"response": {"decision": "allow"}}, "context": {"n": 0, "mutated": true}})
        );
        assert_eq!(
            result["records"][1],
            json!({"reply": {"raised": "boom"}, "context": {"n": 1}})
        );
        assert_eq!(
            result["records"][2],
            json!({"reply": "timeout", "context": {"n": 2}})
        );
        assert_eq!(
            result["records"][3]["reply"],
            json!({"response": {"decision": "deny"}})
        );
        assert_eq!(result["final_output"], json!(SCENARIO));
        // `shutdown` ends serving without waiting for end of input.
        let m = r.call(4, "shutdown", json!({})).await;
        assert_eq!(
            m,
            Message::Response {
                id: Id::Int(4),
                result: json!({})
            }
        );
        r.served.await.unwrap().unwrap();
    }

    fn error_code(m: &Message) -> i64 {
        match m {
            Message::Error { error, .. } => error.code,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    /// A runner line nested up to the kit's bound is read (a scenario
    /// past serde_json's own limit reaches the host as written); one level
    /// more, or 100,000, is a parse error naming the bound, and serving
    /// goes on.
    #[tokio::test]
    async fn lines_nest_up_to_the_kits_bound() {
        let mut r = Runner::start();
        let m = r
            .call(1, "initialize", json!({"protocol": PROTOCOL_VERSION}))
            .await;
        assert!(matches!(m, Message::Response { .. }), "{m:?}");
        // The scenario's arrays sit inside the message, params and scenario.
        let setup = |id: usize, arrays: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"vector/setup","params":{{"vector_id":"v","spec":"agent-hooks/0.1","scenario":{{"d":{}0{}}},"interceptors":[],"identity_provider":null}}}}"#,
                "[".repeat(arrays),
                "]".repeat(arrays)
            )
        };
        let at = setup(2, depth::MAX_NESTING - 3);
        r.send(&at).await;
        let m = r.recv().await;
        assert_eq!(
            m,
            Message::Response {
                id: Id::Int(2),
                result: json!({})
            }
        );
        for line in [setup(3, depth::MAX_NESTING - 2), setup(4, 100_000)] {
            r.send(&line).await;
            let Message::Error { error, .. } = r.recv().await else {
                panic!("a line past the bound must be refused");
            };
            assert_eq!(error.code, jsonrpc::PARSE_ERROR);
            assert!(
                error.message.contains("nested deeper than 256 levels"),
                "{}",
                error.message
            );
        }
        let m = r.call(5, "shutdown", json!({})).await;
        assert!(matches!(m, Message::Response { .. }), "{m:?}");
        r.served.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn errors_have_their_codes_and_serving_goes_on() {
        let mut r = Runner::start();
        assert_eq!(
            error_code(&r.call(1, "vector/run", json!({})).await),
            jsonrpc::NOT_INITIALIZED
        );
        assert_eq!(
            error_code(
                &r.call(2, "initialize", json!({"protocol": "ctk-harness/9"}))
                    .await
            ),
            jsonrpc::UNSUPPORTED_PROTOCOL
        );
        init_and_setup(&mut r).await;
        assert_eq!(
            error_code(&r.call(3, "vector/frobnicate", json!({})).await),
            jsonrpc::METHOD_NOT_FOUND
        );
        assert_eq!(
            error_code(
                &r.call(4, "callback/intercept", json!({"index": 0, "context": {}}))
                    .await
            ),
            jsonrpc::METHOD_NOT_FOUND
        );
        assert_eq!(
            error_code(&r.call(5, "vector/teardown", json!({"x": 1})).await),
            jsonrpc::INVALID_PARAMS
        );
        r.send("not json").await;
        let m = r.recv().await;
        assert!(matches!(m, Message::Error { id: None, .. }), "{m:?}");
        let m = r.call(6, "vector/setup", json!({"vector_id": "refuse", "spec": "s", "scenario": {}, "interceptors": [], "identity_provider": null})).await;
        let Message::Error { error, .. } = m else {
            panic!("{m:?}")
        };
        assert_eq!(
            (error.code, error.message.as_str(), error.data),
            (
                jsonrpc::HOST_ERROR,
                "refused",
                Some(json!({"phase": "setup"}))
            )
        );
        assert_eq!(
            r.call(7, "vector/teardown", json!({})).await,
            Message::Response {
                id: Id::Int(7),
                result: json!({})
            }
        );
        // End of input ends serving cleanly.
        r.out.shutdown().await.unwrap();
        r.served.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_runner_answer_breaking_its_schema_stops_serving() {
        let mut r = Runner::start();
        init_and_setup(&mut r).await;
        r.send(&encode_request(&Id::Int(3), "vector/run", &json!({})))
            .await;
        let (id, _, _) = request(r.recv().await);
        r.send(&encode_result(&id, &json!({"outcome": "maybe"})))
            .await;
        let served = r.served.await.unwrap();
        assert!(matches!(served, Err(ServeError::Protocol(_))), "{served:?}");
    }
}
