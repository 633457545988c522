//! Test support: the harness binary driven over its adapter stdio, a
//! scripted python stdio backend (`backend.py`), and a loopback HTTP test
//! server. Every wait is bounded.

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The longest any single adapter call may take in a test.
pub const CALL_LIMIT: Duration = Duration::from_secs(60);

/// The generic reason of a synthetic denial.
pub const SYNTHETIC: &str = "Required policy backend unavailable.";

/// The harness binary, driven as the kit would.
pub struct Adapter {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    next: u64,
    pub dir: tempfile::TempDir,
}

impl Adapter {
    /// Start the harness with `extra_env` added to its environment.
    pub fn start_with(extra_env: &[(&str, &str)]) -> Adapter {
        Adapter::start_args(&[], extra_env)
    }

    /// Start the harness with command-line `args` (such as `--spec draft`)
    /// and `extra_env` added to its environment.
    pub fn start_args(args: &[&str], extra_env: &[(&str, &str)]) -> Adapter {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctk-ahp-harness"));
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start ctk-ahp-harness");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let err = Arc::new(Mutex::new(String::new()));
        let err2 = err.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut e = err2.lock().unwrap();
                e.push_str(&line);
                e.push('\n');
            }
        });
        let stdin = child.stdin.take();
        Adapter {
            child,
            stdin,
            lines,
            stderr: err,
            next: 1,
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Start the harness and `initialize` it.
    pub fn start() -> Adapter {
        let mut a = Adapter::start_with(&[]);
        let r = a.call("initialize", json!({"adapter": "ctk-ahp-adapter/1"}));
        assert_eq!(r["adapter"], "ctk-ahp-adapter/1");
        a
    }

    /// What the harness wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Whether stderr shows `needle` within `limit`. The stderr reader is a
    /// thread of its own, so a line the harness wrote before its last reply
    /// may not be captured yet when that reply arrives.
    pub fn stderr_shows(&self, needle: &str, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            if self.stderr().contains(needle) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Send one raw line, return the reply (the whole JSON-RPC object).
    pub fn raw(&mut self, line: &str) -> Value {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let reply = self.lines.recv_timeout(CALL_LIMIT).unwrap_or_else(|_| {
            panic!("no reply within {CALL_LIMIT:?}; stderr:\n{}", self.stderr())
        });
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("reply {reply:?} is not JSON: {e}"))
    }

    /// Call `method`; the whole reply.
    pub fn call_reply(&mut self, method: &str, params: Value) -> Value {
        let id = format!("k{}", self.next);
        self.next += 1;
        let reply = self.raw(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        assert_eq!(reply["id"], id, "reply id");
        reply
    }

    /// Call `method`; its result (panics on an error reply).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call_reply(method, params);
        match reply.get("result") {
            Some(r) => r.clone(),
            None => panic!("{method} failed: {reply}; stderr:\n{}", self.stderr()),
        }
    }

    /// `harness/load` of `registration` with `env`; the result.
    pub fn load_env(&mut self, registration: Value, env: Value) -> Value {
        self.call(
            "harness/load",
            json!({"registration": registration, "env": env, "cwd": null}),
        )
    }

    /// `harness/load`, asserting that it loaded.
    pub fn load(&mut self, registration: Value) {
        let r = self.load_env(registration, json!({}));
        assert_eq!(
            r,
            json!({"loaded": true}),
            "load; stderr:\n{}",
            self.stderr()
        );
    }

    /// One tool call with `hostPermission` "allow"; the result.
    pub fn tool(&mut self, name: &str) -> Value {
        self.tool_with(name, "allow", None)
    }

    /// One tool call; the result.
    pub fn tool_with(&mut self, name: &str, permission: &str, call_id: Option<&str>) -> Value {
        self.call(
            "harness/tool_call",
            json!({"tool": {"name": name, "kind": "shell", "input": {"command": "echo hi"}},
                   "callId": call_id, "hostPermission": permission}),
        )
    }

    /// `shutdown`, then wait for the process to exit 0.
    pub fn shutdown(mut self) {
        assert_eq!(self.call("shutdown", json!({})), json!({}));
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(
                    status.success(),
                    "harness exit {status}; stderr:\n{}",
                    self.stderr()
                );
                return;
            }
            assert!(
                Instant::now() < deadline,
                "harness did not exit after shutdown"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The harness's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kill the harness with SIGKILL and reap it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Adapter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The python test backend script.
pub fn backend_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/backend.py")
}

/// A stdio transport running `backend.py LOG MODE [PARAM]`.
pub fn stdio(log: &Path, lifecycle: &str, mode: &str, param: Option<&str>) -> Value {
    let mut args = vec![
        backend_script().display().to_string(),
        log.display().to_string(),
        mode.to_owned(),
    ];
    if let Some(p) = param {
        args.push(p.to_owned());
    }
    let mut all = vec!["python3".to_owned()];
    all.extend(args);
    json!({"type": "stdio", "command": "/usr/bin/env", "args": all, "lifecycle": lifecycle})
}

/// An intercept subscription.
pub fn intercept(policy: &str, timeout_ms: u64) -> Value {
    json!({"events": ["tool.before"], "mode": "intercept", "timeoutMs": timeout_ms, "failurePolicy": policy})
}

/// An observe subscription.
pub fn observe(events: &[&str]) -> Value {
    json!({"events": events, "mode": "observe"})
}

/// A backend entry.
pub fn entry(id: &str, transport: Value, subscriptions: Vec<Value>) -> Value {
    json!({"id": id, "transport": transport, "subscriptions": subscriptions})
}

/// A registration of `hooks`.
pub fn registration(hooks: Vec<Value>) -> Value {
    json!({"protocolVersion": "0.1", "hooks": hooks})
}

/// Every line of a backend log.
pub fn log_lines(log: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(log) else {
        return Vec::new();
    };
    text.lines()
        .map(|l| serde_json::from_str(l).expect("log line"))
        .collect()
}

/// The frames a backend received, parsed.
pub fn received(log: &Path) -> Vec<Value> {
    log_lines(log)
        .iter()
        .filter_map(|l| l.get("recv").and_then(Value::as_str))
        .map(|t| serde_json::from_str(t).expect("frame is JSON"))
        .collect()
}

/// Wait (bounded) until `cond` holds.
pub fn wait_until(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether process `pid` is gone (absent, or a zombie awaiting its reaper).
pub fn gone(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}

/// The pids a backend log recorded.
pub fn pids(log: &Path) -> Vec<u64> {
    let mut p: Vec<u64> = log_lines(log)
        .iter()
        .filter(|l| l.get("start").is_some())
        .filter_map(|l| l["pid"].as_u64())
        .collect();
    p.dedup();
    p
}

/// The reference backend binary (built on demand with
/// `cargo build -p ctk-ahp-reference-backend`).
pub fn reference_backend() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_ctk-ahp-harness"));
    let bin = exe.with_file_name("ctk-ahp-backend");
    if !bin.exists() {
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "-p",
                "ctk-ahp-reference-backend",
                "--bin",
                "ctk-ahp-backend",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build -p ctk-ahp-reference-backend");
        assert!(
            status.success(),
            "cargo build -p ctk-ahp-reference-backend failed"
        );
    }
    assert!(bin.exists(), "{} missing after build", bin.display());
    bin
}

/// One request the HTTP test server received.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub at: Instant,
}

impl HttpRequest {
    /// A header's value (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

/// What the HTTP test server answers: status, content type, body, and a
/// delay before answering.
#[derive(Debug, Clone)]
pub struct HttpReply {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    pub delay: Duration,
    pub extra_headers: Vec<(String, String)>,
}

impl HttpReply {
    /// A 200 JSON reply.
    pub fn json(status: u16, body: Value) -> HttpReply {
        HttpReply {
            status,
            content_type: Some("application/json".into()),
            body: body.to_string().into_bytes(),
            delay: Duration::ZERO,
            extra_headers: Vec::new(),
        }
    }
}

/// The scripting function of the HTTP test server: (path, parsed body) →
/// reply.
pub type Script = Arc<dyn Fn(&str, &Value) -> HttpReply + Send + Sync>;

/// A loopback HTTP/1.1 test server on an ephemeral port, recording every
/// request. Stops (bounded) on drop.
pub struct HttpServer {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<HttpRequest>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Serve with `script`.
    pub fn start(script: Script) -> HttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let give_up = Instant::now() + Duration::from_secs(300);
            while !s.load(Ordering::SeqCst) && Instant::now() < give_up {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (r, script) = (r.clone(), script.clone());
                        std::thread::spawn(move || serve_one(stream, &r, &*script));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        HttpServer {
            port,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// The URL of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The requests received so far on `path`.
    pub fn on(&self, path: &str) -> Vec<HttpRequest> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve_one(
    mut stream: TcpStream,
    requests: &Mutex<Vec<HttpRequest>>,
    script: &(dyn Fn(&str, &Value) -> HttpReply + Send + Sync),
) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len.min(1 << 20)];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let at = Instant::now();
    let parsed = serde_json::from_slice(&body).unwrap_or(Value::Null);
    requests.lock().unwrap().push(HttpRequest {
        method,
        path: path.clone(),
        headers,
        body,
        at,
    });
    let reply = script(&path, &parsed);
    std::thread::sleep(reply.delay);
    if reply.status == 0 {
        // Status 0 scripts a connection closed without any response.
        let _ = stream.shutdown(std::net::Shutdown::Both);
        return;
    }
    let mut head = format!(
        "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    if let Some(ct) = &reply.content_type {
        head.push_str(&format!("Content-Type: {ct}\r\n"));
    }
    for (k, v) in &reply.extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&reply.body);
    let _ = stream.flush();
}

/// A JSON-RPC no-effect reply to `request`.
pub fn ok_reply(request: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": "0.1", "effects": []}})
}

/// A JSON-RPC deny reply to `request`.
pub fn deny_reply(request: &Value, reason: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": "0.1",
        "effects": [{"type": "deny", "reason": reason, "code": "com.example.http.deny"}]}})
}
