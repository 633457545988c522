//! Shared test helpers: request builders, the binary under test driven over
//! stdio and HTTP with bounded waits, and the upstream-data lookup.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{HeaderMap, Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

/// How long any single wait in these tests may take before the test fails.
pub(crate) const WAIT: Duration = Duration::from_secs(20);

/// The binary under test.
pub(crate) fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_ctk-ahp-backend")
}

/// A valid 0.1 `tool.before` intercept request for tool `name` of `kind`.
pub(crate) fn intercept(id: &str, name: &str, kind: &str, input: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "hooks/intercept",
        "params": {
            "protocolVersion": "0.1",
            "event": {
                "id": id,
                "source": "urn:uuid:00000000-0000-4000-8000-000000000001",
                "type": "tool.before",
                "time": "2026-12-01T09:00:00Z",
                "session": {"id": "sess-1"},
                "tool": {"callId": format!("call-{id}"), "name": name, "kind": kind, "input": input}
            },
            "capabilities": {"effects": ["deny"]}
        }
    })
}

/// A request the built-in policy denies (a forced push on a shell tool).
pub(crate) fn force_push(id: &str) -> Value {
    intercept(
        id,
        "Bash",
        "shell",
        json!({"command": "git push --force origin main"}),
    )
}

/// A request the built-in policy lets through with no effect.
pub(crate) fn harmless(id: &str) -> Value {
    intercept(id, "Bash", "shell", json!({"command": "git status"}))
}

/// A `hooks/observe` notification of a `tool.after` event.
pub(crate) fn observe(id: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "hooks/observe",
        "params": {
            "protocolVersion": "0.1",
            "event": {
                "id": id,
                "source": "urn:uuid:00000000-0000-4000-8000-000000000001",
                "type": "tool.after",
                "time": "2026-12-01T09:00:01Z",
                "session": {"id": "sess-1"},
                "tool": {"callId": "call-x", "name": "Bash", "kind": "shell",
                         "input": {"command": "git status"}, "output": {"exitCode": 0}}
            }
        }
    })
}

/// One compact JSON line (no newline).
pub(crate) fn line(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

/// Assert `reply` is a no-effect success for request id `id`.
pub(crate) fn assert_no_effect(reply: &Value, id: &str) {
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    assert_eq!(reply["id"], id, "{reply}");
    assert_eq!(reply["result"]["protocolVersion"], "0.1", "{reply}");
    assert_eq!(reply["result"]["effects"], json!([]), "{reply}");
    assert!(reply.get("error").is_none(), "{reply}");
}

/// Assert `reply` is a success holding exactly one deny for request `id`.
pub(crate) fn assert_deny(reply: &Value, id: &str) {
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    assert_eq!(reply["id"], id, "{reply}");
    assert_eq!(reply["result"]["protocolVersion"], "0.1", "{reply}");
    let effects = reply["result"]["effects"]
        .as_array()
        .expect("effects array");
    assert_eq!(effects.len(), 1, "{reply}");
    assert_eq!(effects[0]["type"], "deny", "{reply}");
    let reason = effects[0]["reason"].as_str().expect("reason string");
    assert!(!reason.trim().is_empty(), "{reply}");
    assert!(reply.get("error").is_none(), "{reply}");
}

/// Assert `reply` is a JSON-RPC error with `code` and id `id`, without a
/// `result`.
pub(crate) fn assert_error(reply: &Value, code: i64, id: &Value) {
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    assert_eq!(&reply["id"], id, "{reply}");
    assert_eq!(reply["error"]["code"], code, "{reply}");
    assert!(reply["error"]["message"].is_string(), "{reply}");
    assert!(reply.get("result").is_none(), "{reply}");
}

/// A persistent stdio backend process: lines in, lines out.
pub(crate) struct StdioBackend {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Receiver<String>,
}

impl StdioBackend {
    /// Start `ctk-ahp-backend <args>` with piped stdio.
    pub(crate) fn start(args: &[&str]) -> StdioBackend {
        let mut child = Command::new(binary())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the backend binary starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines() {
                match l {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        let mut stderr_pipe = child.stderr.take().unwrap();
        let (etx, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr_pipe.read_to_string(&mut s);
            let _ = etx.send(s);
        });
        let stdin = child.stdin.take();
        StdioBackend {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Write raw bytes to the backend's stdin.
    pub(crate) fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Write one message as a line.
    pub(crate) fn send(&mut self, v: &Value) {
        self.send_raw(format!("{}\n", line(v)).as_bytes());
    }

    /// The next stdout line, parsed; fails the test after [`WAIT`].
    pub(crate) fn recv(&mut self) -> Value {
        let l = self
            .lines
            .recv_timeout(WAIT)
            .expect("a reply line within the wait");
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"))
    }

    /// Send `v` and return the reply.
    pub(crate) fn call(&mut self, v: &Value) -> Value {
        self.send(v);
        self.recv()
    }

    /// Close stdin, wait for exit, and return the status, every stdout
    /// line not yet received, and all of stderr.
    pub(crate) fn finish(mut self) -> (ExitStatus, Vec<String>, String) {
        drop(self.stdin.take());
        let status = wait_with_deadline(&mut self.child);
        let rest: Vec<String> = self.lines.iter().collect();
        let stderr = self.stderr.recv_timeout(WAIT).unwrap_or_default();
        (status, rest, stderr)
    }
}

impl Drop for StdioBackend {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Wait for `child` to exit; kill it and fail the test after [`WAIT`].
pub(crate) fn wait_with_deadline(child: &mut Child) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > WAIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the backend did not exit within {WAIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The result of running the binary once with a given stdin.
pub(crate) struct Run {
    /// Exit status.
    pub(crate) status: ExitStatus,
    /// Everything written to stdout.
    pub(crate) stdout: String,
    /// Everything written to stderr.
    pub(crate) stderr: String,
}

/// Run `ctk-ahp-backend <args>` with `input` on stdin (then EOF).
pub(crate) fn run_once(args: &[&str], input: &[u8]) -> Run {
    run_once_env(args, input, &[])
}

/// [`run_once`] with extra environment variables.
pub(crate) fn run_once_env(args: &[&str], input: &[u8], env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(binary())
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the backend binary starts");
    let mut stdin = child.stdin.take().unwrap();
    // The backend may exit before reading everything; a broken pipe here
    // is not the test's concern.
    let _ = stdin.write_all(input);
    drop(stdin);
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let status = wait_with_deadline(&mut child);
    Run {
        status,
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
    }
}

/// An HTTP backend process and the address it printed.
pub(crate) struct HttpBackend {
    /// The process.
    pub(crate) child: Child,
    /// Its stdin, kept open (EOF stops the server).
    pub(crate) stdin: Option<ChildStdin>,
    /// The URL printed on stdout.
    pub(crate) url: String,
    /// The bound address.
    pub(crate) addr: SocketAddr,
    /// Any stdout lines after the URL.
    pub(crate) more_stdout: Receiver<String>,
}

impl HttpBackend {
    /// Start `ctk-ahp-backend http --listen 127.0.0.1:0 <extra>`.
    pub(crate) fn start(extra: &[&str], env: &[(&str, &str)]) -> HttpBackend {
        let mut args = vec!["--quiet", "http", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut child = Command::new(binary())
            .args(&args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the backend binary starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let url = rx.recv_timeout(WAIT).expect("the URL line within the wait");
        let rest = url
            .strip_prefix("http://")
            .and_then(|r| r.strip_suffix('/'))
            .unwrap_or_else(|| panic!("URL line has the form http://ADDR/: {url}"));
        let addr: SocketAddr = rest.parse().expect("the URL names a socket address");
        let stdin = child.stdin.take();
        HttpBackend {
            child,
            stdin,
            url,
            addr,
            more_stdout: rx,
        }
    }
}

impl Drop for HttpBackend {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A finished HTTP exchange.
pub(crate) struct HttpReply {
    /// Status code.
    pub(crate) status: StatusCode,
    /// Response headers.
    pub(crate) headers: HeaderMap,
    /// Response body.
    pub(crate) body: Bytes,
}

impl HttpReply {
    /// The body parsed as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The `Content-Type` header, if any.
    pub(crate) fn content_type(&self) -> Option<&str> {
        self.headers
            .get(hyper::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
    }
}

/// Send one HTTP/1.1 request on a new connection, bounded by [`WAIT`].
pub(crate) fn http_request(
    addr: SocketAddr,
    method: Method,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> HttpReply {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        tokio::time::timeout(WAIT, async move {
            let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let (mut sender, conn) =
                hyper::client::conn::http1::handshake::<_, Full<Bytes>>(TokioIo::new(stream))
                    .await
                    .unwrap();
            tokio::spawn(conn);
            let mut req = Request::builder()
                .method(method)
                .uri("/")
                .header(hyper::header::HOST, addr.to_string());
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            let resp = sender
                .send_request(req.body(Full::new(Bytes::from(body))).unwrap())
                .await
                .unwrap();
            let status = resp.status();
            let headers = resp.headers().clone();
            let body = resp.into_body().collect().await.unwrap().to_bytes();
            HttpReply {
                status,
                headers,
                body,
            }
        })
        .await
        .expect("the HTTP exchange finishes within the wait")
    })
}

/// POST `v` as `application/json` (plus `headers`).
pub(crate) fn post_json(addr: SocketAddr, v: &Value, headers: &[(&str, &str)]) -> HttpReply {
    let mut h = vec![("content-type", "application/json")];
    h.extend_from_slice(headers);
    http_request(addr, Method::POST, &h, line(v).into_bytes())
}

/// The upstream folder (`CTK_UPSTREAM_DIR`, else `../shared/upstream`
/// beside the checkout).
pub(crate) fn upstream_dir() -> PathBuf {
    match std::env::var_os("CTK_UPSTREAM_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream"),
    }
}

/// The upstream file or folder `rel` (below the upstream folder), or
/// `None` after printing a visible skip line; with `CTK_REQUIRE_UPSTREAM=1`
/// a missing path fails the test instead.
pub(crate) fn upstream(rel: &str) -> Option<PathBuf> {
    let path = upstream_dir().join(rel);
    if path.exists() {
        return Some(path);
    }
    if std::env::var("CTK_REQUIRE_UPSTREAM").as_deref() == Ok("1") {
        panic!(
            "upstream data missing: {} (CTK_REQUIRE_UPSTREAM=1 requires it; check out ../shared \
             beside the workspace or point CTK_UPSTREAM_DIR at the upstream directory)",
            path.display()
        );
    }
    // Straight to the stderr handle: `eprintln!` would be captured and
    // hidden for a passing test.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED (upstream data missing: {})",
        path.display()
    );
    None
}
