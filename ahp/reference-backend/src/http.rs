//! The HTTP binding (spec 18): one JSON-RPC message per `POST`, plain HTTP
//! on loopback only.
//!
//! Status mapping, checked in this order:
//! - a method other than `POST` gets `405` (with `Allow: POST`);
//! - with a required bearer token, a missing or wrong `Authorization`
//!   header gets `401` (with `WWW-Authenticate: Bearer`);
//! - a `Content-Type` other than `application/json` gets `415`;
//! - a body over the bound gets `413`;
//! - a message that needs a reply (an intercept, or any JSON-RPC error)
//!   gets `200` with `Content-Type: application/json` and the reply;
//! - a notification gets `202 Accepted` with no body (spec 18.1 SHOULD).
//!
//! Every path is served alike, so a registration may name any path. None
//! of these answers carries the token or anything the request sent.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{
    HeaderValue, ALLOW, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, WWW_AUTHENTICATE,
};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;

use crate::backend::{Handled, Respond};
use crate::log::Logger;

/// The default bound on one request body, in bytes.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;

/// How long a connection may take to send its request headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the HTTP server could not start or stopped in failure.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The listen address is not a loopback address. This backend serves
    /// plain `http`, which AHP allows only on loopback (spec 18.2).
    #[error("refusing to listen on {0}: plain HTTP is for loopback only (use 127.0.0.1 or [::1])")]
    NotLoopback(SocketAddr),
    /// Binding or accepting failed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The body of every response: one whole buffer from this binding, any
/// body (chunked, for one) from a [`Finish`] hook.
pub type ReplyBody = BoxBody<Bytes, Infallible>;

/// A last look at the response to a handled message before it is sent:
/// where the other readings of the HTTP binding (status of a notification
/// or an error, body layout, framing) are taken
/// ([`crate::freedoms::FreedomBackend::http_finish`]), so that this
/// binding's own mapping stays the one described above.
pub type Finish = Arc<dyn Fn(&Handled, Response<ReplyBody>) -> Response<ReplyBody> + Send + Sync>;

/// How the HTTP server answers, beyond the policy.
#[derive(Clone, Default)]
pub struct HttpOptions {
    /// The largest request body accepted; larger ones get `413`.
    pub max_body_bytes: usize,
    /// When set, every request must carry `Authorization: Bearer <token>`
    /// with exactly this token, or it gets `401`.
    pub bearer_token: Option<String>,
    /// Applied to the response of every handled message (none by default).
    pub finish: Option<Finish>,
    /// Write header names in title case (`Content-Type`) rather than
    /// hyper's lower case: HTTP field names are case-insensitive.
    pub title_case_headers: bool,
}

impl std::fmt::Debug for HttpOptions {
    // Hand-written so the token can never reach a log through `{:?}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("max_body_bytes", &self.max_body_bytes)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<set>"))
            .field("finish", &self.finish.as_ref().map(|_| "<hook>"))
            .field("title_case_headers", &self.title_case_headers)
            .finish()
    }
}

/// Bind `addr`, refusing any address that is not loopback.
pub async fn bind_loopback(addr: SocketAddr) -> Result<TcpListener, HttpError> {
    if !addr.ip().is_loopback() {
        return Err(HttpError::NotLoopback(addr));
    }
    TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { addr, source })
}

/// The URL a harness registers for `listener`: `http://<addr>/`.
pub fn url_of(listener: &TcpListener) -> std::io::Result<String> {
    Ok(format!("http://{}/", listener.local_addr()?))
}

/// Serve `listener` until `shutdown` completes; then stop accepting and
/// return (connections still open are dropped with the runtime).
pub async fn serve(
    backend: Arc<dyn Respond>,
    listener: TcpListener,
    options: HttpOptions,
    log: Logger,
    shutdown: impl Future<Output = ()>,
) {
    let options = Arc::new(options);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, _) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Such errors (e.g. too many open files) pass; keep serving.
                log.line(&format!("http: accept failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let backend = Arc::clone(&backend);
        let options = Arc::clone(&options);
        tokio::spawn(async move {
            let title_case = options.title_case_headers;
            let service = hyper::service::service_fn(move |req| {
                let backend = Arc::clone(&backend);
                let options = Arc::clone(&options);
                async move { Ok::<_, Infallible>(answer(&*backend, &options, log, req).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .title_case_headers(title_case)
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = conn.await {
                log.line(&format!("http: connection ended with an error: {e}"));
            }
        });
    }
    log.line("http: shutting down");
}

fn empty(status: StatusCode) -> Response<ReplyBody> {
    let mut r = Response::new(Full::new(Bytes::new()).boxed());
    *r.status_mut() = status;
    r
}

/// Whether the `Content-Type` names `application/json` (parameters such as
/// `charset=utf-8` allowed; the media type is case-insensitive).
fn is_json(content_type: Option<&HeaderValue>) -> bool {
    content_type
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// Compare without stopping at the first differing byte, so the time taken
/// does not tell how much of a guessed token was right.
fn same_secret(given: &[u8], want: &[u8]) -> bool {
    given.len() == want.len()
        && given
            .iter()
            .zip(want)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

fn authorized(header: Option<&HeaderValue>, token: &str) -> bool {
    let Some(value) = header.map(HeaderValue::as_bytes) else {
        return false;
    };
    // The scheme name is case-insensitive (RFC 9110 11.1).
    match value.split_at_checked(7) {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case(b"Bearer ") => {
            same_secret(rest, token.as_bytes())
        }
        _ => false,
    }
}

async fn answer(
    backend: &dyn Respond,
    options: &HttpOptions,
    log: Logger,
    req: Request<Incoming>,
) -> Response<ReplyBody> {
    if req.method() != Method::POST {
        log.line(&format!("http: {} refused (405)", req.method()));
        let mut r = empty(StatusCode::METHOD_NOT_ALLOWED);
        r.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    if let Some(token) = &options.bearer_token {
        if !authorized(req.headers().get(AUTHORIZATION), token) {
            log.line("http: missing or wrong bearer token (401)");
            let mut r = empty(StatusCode::UNAUTHORIZED);
            r.headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    if !is_json(req.headers().get(CONTENT_TYPE)) {
        log.line("http: Content-Type is not application/json (415)");
        return empty(StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > options.max_body_bytes as u64) {
        log.line("http: declared body too large (413)");
        return empty(StatusCode::PAYLOAD_TOO_LARGE);
    }
    let body = match Limited::new(req.into_body(), options.max_body_bytes)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                log.line("http: body too large (413)");
                return empty(StatusCode::PAYLOAD_TOO_LARGE);
            }
            log.line(&format!("http: reading the body failed: {e}"));
            return empty(StatusCode::BAD_REQUEST);
        }
    };
    let handled = backend.respond_to(&body);
    log.handled("http", &handled);
    let delay = backend.delay(&handled);
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let response = match handled.reply_line() {
        Some(line) => {
            let mut r = Response::new(Full::new(Bytes::from(line)).boxed());
            r.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            r
        }
        None => empty(StatusCode::ACCEPTED),
    };
    match &options.finish {
        Some(finish) => finish(&handled, response),
        None => response,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_media_type_allows_parameters_and_case() {
        assert!(is_json(Some(&HeaderValue::from_static("application/json"))));
        assert!(is_json(Some(&HeaderValue::from_static(
            "Application/JSON; charset=utf-8"
        ))));
        assert!(!is_json(Some(&HeaderValue::from_static("text/plain"))));
        assert!(!is_json(Some(&HeaderValue::from_static(
            "application/json-seq"
        ))));
        assert!(!is_json(None));
    }

    #[test]
    fn bearer_scheme_is_case_insensitive_and_token_exact() {
        let t = "s3cret";
        assert!(authorized(
            Some(&HeaderValue::from_static("Bearer s3cret")),
            t
        ));
        assert!(authorized(
            Some(&HeaderValue::from_static("bearer s3cret")),
            t
        ));
        assert!(!authorized(
            Some(&HeaderValue::from_static("Bearer s3cre")),
            t
        ));
        assert!(!authorized(
            Some(&HeaderValue::from_static("Basic s3cret")),
            t
        ));
        assert!(!authorized(None, t));
    }

    #[test]
    fn debug_never_shows_the_token() {
        let o = HttpOptions {
            max_body_bytes: 1,
            bearer_token: Some("canary-123".into()),
            ..HttpOptions::default()
        };
        assert!(!format!("{o:?}").contains("canary-123"));
    }
}
