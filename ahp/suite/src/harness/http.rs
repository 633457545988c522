//! The kit's scripted HTTP backends: one loopback server per vector
//! (`127.0.0.1`, an ephemeral port), one path per backend (`/<name>`),
//! each answering as its [`Script`] says, and a record of every request
//! (method, path, headers including `Authorization`, body, times).
//!
//! Hand-written HTTP/1.1 (one request per connection, `Connection: close`)
//! because the kit must be able to answer wrongly on purpose: drop the
//! connection, send a redirect, a wrong content type, a status without a
//! body. Every read is bounded in size and time; [`ScriptedHttp::shutdown`]
//! ends the accept loop and every connection task.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use super::clock::now_ms;
use super::script::{Action, Script};

const MAX_HEAD: usize = 64 << 10;
const MAX_BODY: usize = 1 << 20;
const READ_LIMIT: Duration = Duration::from_secs(30);

/// One request the server received, and what it answered.
#[derive(Debug, Clone, Serialize)]
pub struct HttpExchange {
    /// The backend name (the first path segment).
    pub backend: String,
    /// When the whole request had been read ([`now_ms`]).
    pub t: f64,
    /// The request method (`POST`).
    pub method: String,
    /// The request target.
    pub path: String,
    /// Every header, name lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The body, lossily decoded.
    pub body: String,
    /// Whether the body was UTF-8.
    pub utf8: bool,
    /// The body parsed as JSON.
    pub json: Option<Value>,
    /// `intercept`, `observe` or `other` (by the body's `method`).
    pub kind: String,
    /// The status answered (`None`: connection dropped, or not yet).
    pub status: Option<u16>,
    /// When the response was written.
    pub sent_t: Option<f64>,
    /// When the plan finished (or would have, had the connection stayed).
    pub plan_end_t: Option<f64>,
    /// Whether the bearer header matched (`None`: no bearer required).
    pub auth_ok: Option<bool>,
}

impl HttpExchange {
    /// The value of header `name` (lowercase), the first one.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct State {
    scripts: BTreeMap<String, Script>,
    counts: Mutex<BTreeMap<(String, bool), usize>>,
    prev: Mutex<BTreeMap<String, Value>>,
    records: Mutex<Vec<HttpExchange>>,
    base: String,
}

/// A running scripted HTTP server.
pub struct ScriptedHttp {
    addr: SocketAddr,
    state: Arc<State>,
    tasks: Arc<tokio::sync::Mutex<JoinSet<()>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl ScriptedHttp {
    /// Bind `127.0.0.1:0` and serve `scripts` (name → script).
    pub async fn start(scripts: BTreeMap<String, Script>) -> std::io::Result<ScriptedHttp> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            scripts,
            counts: Mutex::new(BTreeMap::new()),
            prev: Mutex::new(BTreeMap::new()),
            records: Mutex::new(Vec::new()),
            base: format!("http://{addr}"),
        });
        let tasks = Arc::new(tokio::sync::Mutex::new(JoinSet::new()));
        let (st, ts) = (state.clone(), tasks.clone());
        let accept = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let st = st.clone();
                ts.lock().await.spawn(async move {
                    let _ = tokio::time::timeout(Duration::from_secs(300), serve(stream, st)).await;
                });
            }
        });
        Ok(ScriptedHttp {
            addr,
            state,
            tasks,
            accept,
        })
    }

    /// The URL of backend `name`.
    pub fn url(&self, name: &str) -> String {
        format!("{}/{name}", self.state.base)
    }

    /// Every request so far, in the order they were read.
    pub fn records(&self) -> Vec<HttpExchange> {
        let mut r = self
            .state
            .records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        r.sort_by(|a, b| a.t.total_cmp(&b.t));
        r
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stop accepting and end every connection (pending plans included).
    pub async fn shutdown(self) {
        self.accept.abort();
        let mut tasks = self.tasks.lock().await;
        tasks.abort_all();
        while tasks.join_next().await.is_some() {}
    }
}

/// Read more of the request into `buf`; `None` on timeout, error or end.
async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<()> {
    let mut chunk = [0u8; 8192];
    let n = tokio::time::timeout(READ_LIMIT, stream.read(&mut chunk))
        .await
        .ok()?
        .ok()?;
    (n > 0).then(|| buf.extend_from_slice(&chunk[..n]))
}

/// One request as the harness sent it: method, path, headers (names in
/// lower case) and body. The head is parsed by `httparse`; `None` for a
/// request that is not HTTP/1.x, too large, or cut short.
async fn read_request(
    stream: &mut TcpStream,
) -> Option<(String, String, Vec<(String, String)>, Vec<u8>)> {
    let mut buf = Vec::new();
    let (head_len, method, path, headers) = loop {
        let mut slots = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut slots);
        match req.parse(&buf).ok()? {
            httparse::Status::Complete(n) => {
                let headers: Vec<(String, String)> = req
                    .headers
                    .iter()
                    .map(|h| {
                        (
                            h.name.to_ascii_lowercase(),
                            String::from_utf8_lossy(h.value).trim().to_owned(),
                        )
                    })
                    .collect();
                break (n, req.method?.to_owned(), req.path?.to_owned(), headers);
            }
            httparse::Status::Partial if buf.len() <= MAX_HEAD => {
                read_more(stream, &mut buf).await?;
            }
            httparse::Status::Partial => return None,
        }
    };
    let mut body = buf.split_off(head_len);
    let get = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    if body.is_empty() && get("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        // A client that waits for permission to send the body (curl does).
        stream
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
            .await
            .ok()?;
    }
    if get("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
        body = read_chunked(stream, body).await?;
    } else {
        let len: usize = get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if len > MAX_BODY {
            return None;
        }
        while body.len() < len {
            if read_more(stream, &mut body).await.is_none() {
                break;
            }
        }
        body.truncate(len);
    }
    Some((method, path, headers, body))
}

/// Decode a chunked body whose first bytes are `raw`, reading the rest as
/// it is needed, up to the terminating zero-size chunk (trailers are not
/// read: the connection closes after the reply). A body cut short is what
/// arrived of it.
async fn read_chunked(stream: &mut TcpStream, mut raw: Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let (start, size) = loop {
            match httparse::parse_chunk_size(&raw[at..]) {
                Ok(httparse::Status::Complete((n, size))) => break (at + n, size),
                Ok(httparse::Status::Partial) if raw.len() - at <= MAX_HEAD => {
                    if read_more(stream, &mut raw).await.is_none() {
                        return Some(body);
                    }
                }
                _ => return None,
            }
        };
        let size = usize::try_from(size).ok()?;
        if size == 0 {
            return Some(body);
        }
        if body.len() + size > MAX_BODY {
            return None;
        }
        // The chunk's data and the line break after it.
        while raw.len() < start + size + 2 {
            if read_more(stream, &mut raw).await.is_none() {
                body.extend_from_slice(&raw[start.min(raw.len())..(start + size).min(raw.len())]);
                return Some(body);
            }
        }
        body.extend_from_slice(&raw[start..start + size]);
        at = start + size + 2;
    }
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

async fn serve(mut stream: TcpStream, st: Arc<State>) {
    let Some((method, path, headers, body)) = read_request(&mut stream).await else {
        return;
    };
    let t = now_ms();
    let backend = path
        .trim_start_matches('/')
        .split(['/', '?'])
        .next()
        .unwrap_or("")
        .to_owned();
    let json: Option<Value> = serde_json::from_slice(&body).ok();
    let rpc_method = json
        .as_ref()
        .and_then(|v| v.get("method"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = match rpc_method {
        "hooks/intercept" => "intercept",
        "hooks/observe" => "observe",
        _ => "other",
    };
    let script = st.scripts.get(&backend);
    // HTTP auth schemes are case-insensitive (RFC 9110 §11.1); the token is
    // compared exactly (issue 26: `bearer` and `BEARER` follow the text too).
    let auth_ok = script.and_then(|s| s.bearer.as_ref()).map(|token| {
        headers.iter().any(|(k, v)| {
            k == "authorization"
                && v.split_once(' ').is_some_and(|(scheme, given)| {
                    scheme.eq_ignore_ascii_case("bearer") && given == token
                })
        })
    });
    let index = {
        let mut r = st.records.lock().unwrap_or_else(|p| p.into_inner());
        r.push(HttpExchange {
            backend: backend.clone(),
            t,
            method: method.clone(),
            path: path.clone(),
            headers,
            utf8: std::str::from_utf8(&body).is_ok(),
            body: String::from_utf8_lossy(&body).into_owned(),
            json: json.clone(),
            kind: kind.to_owned(),
            status: None,
            sent_t: None,
            plan_end_t: None,
            auth_ok,
        });
        r.len() - 1
    };
    let update = |f: &dyn Fn(&mut HttpExchange)| {
        let mut r = st.records.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(x) = r.get_mut(index) {
            f(x);
        }
    };
    let id = json
        .as_ref()
        .and_then(|v| v.get("id"))
        .cloned()
        .unwrap_or(Value::Null);
    let (plan, default_status) = match (script, kind) {
        (None, _) => (vec![Action::Status { code: 404 }], 404),
        (Some(_), _) if auth_ok == Some(false) => (vec![Action::Status { code: 401 }], 401),
        (Some(s), "intercept") => match s.tool_plan(json.as_ref()) {
            Some(plan) => (plan, 200),
            None => (s.intercept_plan(bump(&st, &backend, true)), 200),
        },
        (Some(s), "observe") => {
            let n = bump(&st, &backend, false);
            (s.observe_plan(n), 202)
        }
        (Some(_), _) => (vec![Action::Status { code: 400 }], 400),
    };
    let prev = {
        let mut p = st.prev.lock().unwrap_or_else(|p| p.into_inner());
        if kind == "intercept" {
            p.insert(backend.clone(), id.clone()).unwrap_or(Value::Null)
        } else {
            p.get(&backend).cloned().unwrap_or(Value::Null)
        }
    };
    let mut status = default_status;
    let mut content_type = "application/json".to_owned();
    let mut extra_headers: Vec<(String, String)> = Vec::new();
    let mut out: Vec<u8> = Vec::new();
    for action in &plan {
        match action {
            Action::Sleep { ms } => tokio::time::sleep(Duration::from_millis(*ms)).await,
            Action::Close | Action::Exit { .. } => {
                // Dropping the connection is this request's answer.
                let end = now_ms();
                update(&|x| {
                    x.plan_end_t = Some(end);
                    x.sent_t = Some(end);
                });
                return;
            }
            Action::Status { code } => status = *code,
            Action::ContentType { value } => content_type = value.clone(),
            Action::Redirect { to, code } => {
                status = *code;
                extra_headers.push(("Location".into(), format!("{}/{to}", st.base)));
            }
            other => {
                if let Some(b) = other.body(&id, &prev) {
                    out.extend_from_slice(&b);
                }
            }
        }
    }
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    if !out.is_empty() {
        head.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    for (k, v) in &extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if status == 401 {
        head.push_str("WWW-Authenticate: Bearer\r\n");
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        out.len()
    ));
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&out);
    // Stamped before the write: the harness may act on the response
    // before this task runs again.
    let sent = now_ms();
    let _ = stream.write_all(&bytes).await;
    let _ = stream.flush().await;
    update(&|x| {
        x.status = Some(status);
        x.sent_t = Some(sent);
        x.plan_end_t = Some(sent);
    });
    let _ = stream.shutdown().await;
}

fn bump(st: &State, backend: &str, intercept: bool) -> usize {
    let mut c = st.counts.lock().unwrap_or_else(|p| p.into_inner());
    let n = c.entry((backend.to_owned(), intercept)).or_insert(0);
    let k = *n;
    *n += 1;
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `read_request` makes of `parts`, written one after another (a
    /// pause between them, so each may arrive in a read of its own).
    async fn parsed(parts: &[&[u8]]) -> Option<(String, String, Vec<(String, String)>, Vec<u8>)> {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let parts: Vec<Vec<u8>> = parts.iter().map(|p| p.to_vec()).collect();
        let client = tokio::spawn(async move {
            let mut s = TcpStream::connect(addr).await.expect("connect");
            for p in parts {
                s.write_all(&p).await.expect("write");
                s.flush().await.expect("flush");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            s
        });
        let (mut stream, _) = listener.accept().await.expect("accept");
        let got = read_request(&mut stream).await;
        drop(client.await);
        got
    }

    #[tokio::test]
    async fn a_body_of_a_content_length_is_read_whole_across_reads() {
        let (method, path, headers, body) = parsed(&[
            b"POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\"",
            b":1}",
        ])
        .await
        .expect("a request");
        assert_eq!((method.as_str(), path.as_str()), ("POST", "/hooks"));
        assert!(headers.contains(&("content-type".into(), "application/json".into())));
        assert_eq!(body, b"{\"a\":1}");
    }

    #[tokio::test]
    async fn a_chunked_body_is_decoded_however_its_chunks_are_split() {
        let (_, _, _, body) = parsed(&[
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"",
            b"\r\n3;ext=1\r\n:1}\r",
            b"\n0\r\n\r\n",
        ])
        .await
        .expect("a request");
        assert_eq!(body, b"{\"a\":1}");
    }

    #[tokio::test]
    async fn a_chunk_that_holds_the_terminator_s_bytes_is_data() {
        let (_, _, _, body) = parsed(&[
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n0\r\n\r\n\r\n0\r\n\r\n",
        ])
        .await
        .expect("a request");
        assert_eq!(body, b"0\r\n\r\n");
    }

    #[tokio::test]
    async fn what_is_not_http_is_no_request() {
        assert!(parsed(&[b"\x00\x01 not http\r\n\r\n"]).await.is_none());
        assert!(
            parsed(&[b"POST / HTTP/1.1\r\nContent-Length: 2097152\r\n\r\n"])
                .await
                .is_none()
        );
    }
}
