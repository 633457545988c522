//! The HTTP binding (spec 18): each message the body of a new `POST`,
//! `Content-Type: application/json`, redirects never followed, the bearer
//! token (when configured) in `Authorization` only.

use std::time::Duration;

use reqwest::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use tokio::time::{timeout, timeout_at, Instant};

use crate::classify::{classify, Decision, Failure, Sent};
use crate::freedoms::{edge, Freedoms};
use crate::readings;

/// The largest reply body accepted.
pub const MAX_BODY_BYTES: usize = 1 << 20;
/// How long one notification POST may take (observation is best effort;
/// the bound only keeps requests from piling up).
pub const OBSERVE_BOUND: Duration = Duration::from_secs(30);

/// The HTTP client every backend of a harness shares: rustls, no redirects
/// (spec 18.1), no proxy discovery from the environment.
pub fn client() -> Result<reqwest::Client, reqwest::Error> {
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy();
    // Header names are case-insensitive (RFC 9110); the other framing
    // spells them in Title-Case.
    let builder = if edge().other_http_framing() {
        builder.http1_title_case_headers()
    } else {
        builder
    };
    builder.build()
}

/// A `POST` of `body` to `url` with the headers the edge's freedoms ask:
/// the content type (with or without parameters), the bearer token in the
/// spelling asked, and under the other framing a chunked body,
/// `Connection: close` and an extra header.
fn post(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    body: Vec<u8>,
    edge: &Freedoms,
) -> Result<reqwest::RequestBuilder, Failure> {
    let mut req = client.post(url).header(CONTENT_TYPE, edge.content_type());
    if let Some(t) = token {
        req = req.header(AUTHORIZATION, bearer(t, edge)?);
    }
    Ok(if edge.other_http_framing() {
        req.header(reqwest::header::CONNECTION, "close")
            .header("X-Ctk-Freedom", "http-message-framing")
            .body(reqwest::Body::wrap(Chunked(Some(body.into()))))
    } else {
        req.body(body)
    })
}

/// A body of unknown length, so hyper sends it chunked.
struct Chunked(Option<bytes::Bytes>);

impl http_body::Body for Chunked {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::task::Poll::Ready(self.0.take().map(|b| Ok(http_body::Frame::data(b))))
    }
}

/// The `Authorization` header for `token`, marked sensitive so it is never
/// printed by a `Debug` dump.
fn bearer(token: &str, edge: &Freedoms) -> Result<HeaderValue, Failure> {
    let mut v = HeaderValue::from_str(&edge.authorization(token))
        .map_err(|_| Failure::Transport("the bearer token is not a valid header value".into()))?;
    v.set_sensitive(true);
    Ok(v)
}

/// Why a request failed, without the URL or any header.
fn transport(e: &reqwest::Error) -> Failure {
    let what = if e.is_connect() {
        "connection refused or not established"
    } else if e.is_timeout() {
        "request timed out"
    } else if e.is_body() || e.is_decode() {
        "connection lost while reading the body"
    } else if e.is_redirect() {
        "redirect"
    } else {
        "request failed (connection reset or lost)"
    };
    Failure::Transport(what.into())
}

/// Whether the response's media type is `application/json` (parameters
/// such as `charset` allowed; decision D-20).
fn is_json(resp: &reqwest::Response) -> bool {
    resp.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// One intercept exchange, bounded by `deadline` (connection setup,
/// sending, the backend's work and reading the body, spec 14.4).
pub async fn intercept(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    sent: Sent<'_>,
    body: Vec<u8>,
    deadline: Instant,
    timeout_ms: u64,
) -> Result<Decision, Failure> {
    let req = post(client, url, token, body, edge())?;
    let exchange = async {
        let mut resp = req.send().await.map_err(|e| transport(&e))?;
        if resp.status().as_u16() != 200 {
            return Err(Failure::HttpStatus(resp.status().as_u16()));
        }
        if !is_json(&resp) && !readings::get().any_media_type {
            return Err(Failure::MediaType);
        }
        let mut buf = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| transport(&e))? {
            buf.extend_from_slice(&chunk);
            if buf.len() > MAX_BODY_BYTES {
                return Err(Failure::TooLarge(MAX_BODY_BYTES));
            }
        }
        classify(sent, &buf)
    };
    match timeout_at(deadline, exchange).await {
        Ok(r) => r,
        Err(_) => Err(Failure::Timeout(timeout_ms)),
    }
}

/// Deliver one notification; the status is only logged (decision D-03: an
/// observer's answer never changes anything).
/// Under the notification-retry reading a failed delivery (a transport
/// failure, a status outside 2xx) is made once more.
pub async fn notify(
    client: reqwest::Client,
    backend: String,
    url: String,
    token: Option<String>,
    body: Vec<u8>,
) {
    let once = |body: Vec<u8>| notify_once(&client, &backend, &url, token.as_deref(), body);
    if !once(body.clone()).await && readings::get().retry_notifications {
        eprintln!("ctk-ahp-harness: observer {backend}: retrying the notification once");
        once(body).await;
    }
}

/// One attempt of [`notify`]: whether it was delivered.
async fn notify_once(
    client: &reqwest::Client,
    backend: &str,
    url: &str,
    token: Option<&str>,
    body: Vec<u8>,
) -> bool {
    let req = match post(client, url, token, body, edge()) {
        Ok(r) => r,
        Err(f) => {
            eprintln!("ctk-ahp-harness: observer {backend}: {f}");
            return false;
        }
    };
    match timeout(OBSERVE_BOUND, req.send()).await {
        Ok(Ok(resp)) => {
            let s = resp.status().as_u16();
            if s != 202 && s != 204 {
                eprintln!("ctk-ahp-harness: observer {backend}: HTTP status {s} (ignored)");
            }
            // Any 2xx was received; only another status counts as failed.
            resp.status().is_success()
        }
        Ok(Err(e)) => {
            eprintln!(
                "ctk-ahp-harness: observer {backend}: {} (ignored)",
                transport(&e)
            );
            false
        }
        Err(_) => {
            eprintln!("ctk-ahp-harness: observer {backend}: no answer in time (ignored)");
            false
        }
    }
}
