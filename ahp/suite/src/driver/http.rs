//! The HTTP binding: one POST per message, redirects never followed, every
//! request bounded, the body read within a byte budget.

use std::time::Duration;

use tokio::time::Instant;

use super::{ms, reply_bound, response};
use crate::error::LinkError;
use crate::record::{HttpRecord, Reply, RunRecord, StepRecord};
use crate::suite::SuiteConfig;
use crate::vector::Vector;

/// Build the client the suite uses for one target.
pub(crate) fn client(cfg: &SuiteConfig) -> Result<reqwest::Client, LinkError> {
    reqwest::Client::builder()
        // Spec 18.1: redirects are not followed unless enabled.
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(cfg.step_deadline)
        .timeout(reply_bound(cfg))
        .no_proxy()
        .build()
        .map_err(|e| LinkError::Client(e.to_string()))
}

async fn read_body(
    mut resp: reqwest::Response,
    max: usize,
    deadline: Instant,
) -> Result<(Vec<u8>, bool), String> {
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, resp.chunk()).await {
            Err(_) => return Err("the response body did not end within the bound".to_owned()),
            Ok(Err(e)) => return Err(format!("reading the response body failed: {e}")),
            Ok(Ok(None)) => return Ok((body, false)),
            Ok(Ok(Some(chunk))) => {
                body.extend_from_slice(&chunk);
                if body.len() > max {
                    body.truncate(max);
                    return Ok((body, true));
                }
            }
        }
    }
}

/// Run `vector` against an HTTP endpoint.
pub(crate) async fn run_http(
    vector: &Vector,
    url: &str,
    cfg: &SuiteConfig,
) -> Result<RunRecord, LinkError> {
    let t0 = Instant::now();
    let client = client(cfg)?;
    let mut steps = Vec::new();
    for (i, step) in vector.send.iter().enumerate() {
        let mut rec = StepRecord::new(i);
        let Some(text) = step.wire_text() else {
            rec.sent = true;
            steps.push(rec);
            continue;
        };
        let sent_at = Instant::now();
        let result = client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(
                reqwest::header::AUTHORIZATION,
                format!("Bearer {}", cfg.canary),
            )
            .body(text)
            .send()
            .await;
        let resp = match result {
            Ok(resp) => resp,
            Err(e) if e.is_connect() && i == 0 => {
                return Err(LinkError::Connect {
                    url: url.to_owned(),
                    message: e.to_string(),
                })
            }
            Err(e) => {
                rec.sent = !e.is_connect();
                rec.no_reply = Some(if e.is_timeout() {
                    format!(
                        "no HTTP response within {} ms",
                        reply_bound(cfg).as_millis()
                    )
                } else {
                    format!("the HTTP exchange failed: {e}")
                });
                steps.push(rec);
                continue;
            }
        };
        rec.sent = true;
        let status = resp.status().as_u16();
        let header = |name: reqwest::header::HeaderName| {
            resp.headers()
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        let content_type = header(reqwest::header::CONTENT_TYPE);
        let location = header(reqwest::header::LOCATION);
        let deadline = sent_at + reply_bound(cfg) + Duration::from_millis(50);
        match read_body(resp, cfg.max_line_bytes, deadline).await {
            Err(e) => rec.no_reply = Some(e),
            Ok((bytes, cut)) => {
                let utf8 = std::str::from_utf8(&bytes).is_ok();
                let body = String::from_utf8_lossy(&bytes).into_owned();
                let at = Instant::now();
                if !cut && utf8 {
                    match ctk_ahp_wire::json::parse_str(&body) {
                        Ok(v) if response(&v) => {
                            rec.reply = Some(Reply {
                                value: v,
                                text: body.clone(),
                                latency_ms: ms(sent_at, at),
                            })
                        }
                        Ok(_) => {
                            rec.no_reply =
                                Some("the body is JSON but not a JSON-RPC response".to_owned())
                        }
                        Err(e) if body.trim().is_empty() => {
                            let _ = e;
                            rec.no_reply = Some("the body is empty".to_owned())
                        }
                        Err(e) => rec.no_reply = Some(format!("the body is not strict JSON: {e}")),
                    }
                } else {
                    rec.no_reply = Some(if cut {
                        "the body exceeded the byte budget".to_owned()
                    } else {
                        "the body is not UTF-8".to_owned()
                    });
                }
                rec.http = Some(HttpRecord {
                    status,
                    content_type,
                    location,
                    body_len: bytes.len(),
                    body,
                    utf8,
                    cut,
                    elapsed_ms: ms(sent_at, at),
                });
            }
        }
        steps.push(rec);
    }
    Ok(RunRecord {
        binding: "http",
        lifecycle: "none",
        steps,
        lines: Vec::new(),
        processes: Vec::new(),
        elapsed_ms: ms(t0, Instant::now()),
    })
}
