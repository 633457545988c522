//! The harness's end: [`serve`] answers the kit on a line stream (the
//! adapter's stdin and stdout) for any [`HarnessAdapter`], so a Rust harness
//! is certified by implementing the trait, not by writing JSON-RPC. The
//! reference harness (`ctk-ahp-harness`) is served this way.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::Poll;

use ctk_ahp_wire::version::AhpLine;
use ctk_ahp_wire::wire::{EventType, ToolKind};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use crate::messages::{
    AdapterInfo, HostPermission, LoadResult, Outcome, Refusal, ToolCall, ADAPTER_CONTRACT,
};

/// The longest line accepted from the kit.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// What the kit asks of a harness under test, one method per adapter
/// method; [`serve`] does the JSON-RPC around it.
pub trait HarnessAdapter {
    /// The `initialize` result; its `adapter` is [`ADAPTER_CONTRACT`].
    fn info(&self) -> AdapterInfo;
    /// The protocol line whose tool calls the harness takes (the draft's
    /// `tool.kind` is any non-empty string, 0.1's one of its kinds).
    fn line(&self) -> AhpLine;
    /// `harness/load`: take the registration document (its bytes as the
    /// kit sent them), with the backends' environment and working
    /// directory; the refused members when it is not taken.
    fn load(
        &mut self,
        registration: &[u8],
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    ) -> impl Future<Output = Result<(), Vec<Refusal>>>;
    /// Whether a registration is loaded.
    fn is_loaded(&self) -> bool;
    /// `harness/tool_call`: what became of the call; `None` when nothing is
    /// loaded. Calls of one model turn run concurrently (`&self`).
    fn tool_call(&self, call: ToolCall) -> impl Future<Output = Option<Outcome>>;
    /// `harness/session`: emit the session event; `false` when nothing is
    /// loaded.
    fn session_event(&mut self, event: EventType) -> bool;
    /// `shutdown`, or the kit went away: end every backend.
    fn shutdown(&mut self) -> impl Future<Output = ()>;
}

/// One message from the kit; `params` kept raw so the registration reaches
/// the loader byte for byte (a repeated member is a finding there).
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(default)]
    jsonrpc: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// `harness/load` params.
#[derive(Deserialize)]
struct LoadParams<'a> {
    #[serde(borrow)]
    registration: &'a RawValue,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    cwd: Option<String>,
}

/// A JSON-RPC error to send back.
struct RpcError(i64, String);

fn invalid(msg: impl Into<String>) -> RpcError {
    RpcError(-32602, msg.into())
}

fn not_loaded() -> RpcError {
    RpcError(
        -32000,
        "no registration loaded (call harness/load first)".into(),
    )
}

/// Answer the kit on `input`/`output` until `shutdown` or end of input;
/// the harness is shut down (every backend ended) before this returns.
/// Problems of the stream itself go to stderr, prefixed with the harness's
/// name.
pub async fn serve<H: HarnessAdapter>(
    mut harness: H,
    input: impl AsyncRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
) {
    let name = harness.info().name;
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = match (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(n) => n,
            Err(e) => {
                eprintln!("{name}: reading the adapter stream failed: {e}");
                break;
            }
        };
        if n == 0 {
            break;
        }
        if line.len() > MAX_LINE_BYTES {
            eprintln!("{name}: adapter message longer than {MAX_LINE_BYTES} bytes; stopping");
            break;
        }
        let text = match std::str::from_utf8(&line) {
            Ok(t) => t.trim_end_matches(['\n', '\r']),
            Err(_) => {
                write(
                    &mut output,
                    &error_reply(Value::Null, RpcError(-32700, "not UTF-8".into())),
                    &name,
                )
                .await;
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        let msg: Incoming<'_> = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) => {
                write(
                    &mut output,
                    &error_reply(Value::Null, RpcError(-32700, format!("not JSON: {e}"))),
                    &name,
                )
                .await;
                continue;
            }
        };
        let Some(id) = msg.id.clone() else {
            // A notification from the kit: nothing defined; ignore it.
            continue;
        };
        if msg.jsonrpc.as_deref() != Some("2.0") {
            write(
                &mut output,
                &error_reply(id, RpcError(-32600, "jsonrpc must be \"2.0\"".into())),
                &name,
            )
            .await;
            continue;
        }
        let method = msg.method.as_deref().unwrap_or("");
        let stop = method == "shutdown";
        let answer = handle(&mut harness, method, msg.params).await;
        let reply = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => error_reply(id, e),
        };
        if stop {
            harness.shutdown().await;
            write(&mut output, &reply, &name).await;
            return;
        }
        write(&mut output, &reply, &name).await;
    }
    harness.shutdown().await;
}

async fn write(output: &mut (impl AsyncWrite + Unpin), value: &Value, name: &str) {
    let mut bytes = serde_json::to_vec(value).expect("a reply serializes");
    bytes.push(b'\n');
    if output.write_all(&bytes).await.is_err() || output.flush().await.is_err() {
        eprintln!("{name}: writing to the kit failed");
    }
}

fn error_reply(id: Value, e: RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.0, "message": e.1}})
}

fn params<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>) -> Result<T, RpcError> {
    let raw = raw.ok_or_else(|| invalid("params missing"))?;
    serde_json::from_str(raw.get()).map_err(|e| invalid(format!("bad params: {e}")))
}

async fn handle<H: HarnessAdapter>(
    harness: &mut H,
    method: &str,
    raw: Option<&RawValue>,
) -> Result<Value, RpcError> {
    match method {
        "initialize" => {
            let p: Value = params(raw)?;
            if p.get("adapter").and_then(Value::as_str) != Some(ADAPTER_CONTRACT) {
                return Err(invalid(format!("this adapter speaks {ADAPTER_CONTRACT}")));
            }
            Ok(serde_json::to_value(harness.info()).expect("the info serializes"))
        }
        "harness/load" => {
            let p: LoadParams<'_> = params(raw)?;
            let cwd = p.cwd.map(PathBuf::from);
            let result = match harness
                .load(p.registration.get().as_bytes(), p.env, cwd)
                .await
            {
                Ok(()) => LoadResult {
                    loaded: true,
                    refused: None,
                },
                Err(refused) => LoadResult {
                    loaded: false,
                    refused: Some(refused),
                },
            };
            Ok(serde_json::to_value(result).expect("a load result serializes"))
        }
        "harness/tool_call" => {
            let p: Value = params(raw)?;
            let call = tool_call(&p, harness.line())?;
            let outcome = harness.tool_call(call).await.ok_or_else(not_loaded)?;
            Ok(outcome.to_value())
        }
        "harness/tool_calls" => {
            let p: Value = params(raw)?;
            let calls = tool_calls(&p, harness.line())?;
            if !harness.is_loaded() {
                return Err(not_loaded());
            }
            // The parallel calls of one model turn: every call's chain
            // starts at once, none waits for another's decision (only for
            // a shared persistent backend's turn, D-17).
            let harness = &*harness;
            let outcomes = join_all(calls.into_iter().map(|c| harness.tool_call(c))).await;
            let results = outcomes
                .into_iter()
                .map(|o| o.map(|o| o.to_value()))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(not_loaded)?;
            Ok(json!({ "results": results }))
        }
        "harness/session" => {
            let p: Value = params(raw)?;
            let event = match p.get("event").and_then(Value::as_str) {
                Some("session.start") => EventType::SessionStart,
                Some("session.end") => EventType::SessionEnd,
                _ => {
                    return Err(invalid(
                        "event must be \"session.start\" or \"session.end\"",
                    ))
                }
            };
            if harness.session_event(event) {
                Ok(json!({}))
            } else {
                Err(not_loaded())
            }
        }
        "shutdown" => Ok(json!({})),
        other => Err(RpcError(-32601, format!("method {other:?} not found"))),
    }
}

/// Read `harness/tool_calls` params: `calls`, a non-empty array of
/// `harness/tool_call` params. A bad entry is refused by its index, and
/// then none of the calls is made.
fn tool_calls(p: &Value, line: AhpLine) -> Result<Vec<ToolCall>, RpcError> {
    let calls = p
        .get("calls")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("calls must be an array"))?;
    if calls.is_empty() {
        return Err(invalid("calls must hold at least one call"));
    }
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if !c.is_object() {
                return Err(invalid(format!("calls[{i}] must be an object")));
            }
            tool_call(c, line)
                .map_err(|RpcError(code, msg)| RpcError(code, format!("calls[{i}]: {msg}")))
        })
        .collect()
}

/// Run `futures` concurrently on the current task; their outputs in the
/// order given. (The calls borrow the harness, so they cannot be tasks of
/// their own; a handful of futures makes polling them all on each wake
/// cheap.)
async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut running: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut done: Vec<Option<F::Output>> = running.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, out) in running.iter_mut().zip(done.iter_mut()) {
            if out.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *out = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    done.into_iter()
        .map(|o| o.expect("every future finished"))
        .collect()
}

/// Read `harness/tool_call` params; anything that cannot become a valid
/// `tool.before` of `line` is refused rather than sent (the draft's
/// `tool.kind` is free-form: any non-empty string).
fn tool_call(p: &Value, line: AhpLine) -> Result<ToolCall, RpcError> {
    let tool = p
        .get("tool")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("tool must be an object"))?;
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid("tool.name must be a non-empty string"))?;
    let kind = ToolKind::from(
        tool.get("kind")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("tool.kind must be a string"))?
            .to_owned(),
    );
    if kind.as_str().is_empty() || (line == AhpLine::V0_1 && matches!(kind, ToolKind::Unknown(_))) {
        return Err(invalid("tool.kind is not a 0.1 tool kind"));
    }
    let input: Map<String, Value> = tool
        .get("input")
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| invalid("tool.input must be an object"))?;
    let call_id = match p.get("callId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(_) => return Err(invalid("callId must be a non-empty string or null")),
    };
    let host_permission = match p.get("hostPermission").and_then(Value::as_str) {
        Some("allow") | None => HostPermission::Allow,
        Some("prompt") => HostPermission::Prompt,
        Some(_) => return Err(invalid("hostPermission must be \"allow\" or \"prompt\"")),
    };
    Ok(ToolCall {
        name: name.to_owned(),
        kind,
        input,
        call_id,
        host_permission,
    })
}
