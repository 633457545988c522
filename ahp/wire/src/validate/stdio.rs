//! stdio framing: one JSON-RPC message per line, and a transcript's
//! requests paired with their replies.

use std::collections::HashMap;

use serde_json::Value;

use super::schema::short;
use super::{check_message, check_reply, json_finding, Finding, LineFinding, Rule};
use crate::json::{self, JsonError};
use crate::wire::{classify, MessageKind};

/// One physical line of a stdio stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The 1-based line number.
    pub line: usize,
    /// The line's bytes without its LF.
    pub bytes: &'a [u8],
    /// Whether an LF ended the line (only the last line can lack one).
    pub terminated: bool,
}

/// Split a stdio stream into lines at LF (spec 17.1: each message is one
/// line ended by a single newline). A final line without LF is returned
/// with `terminated: false`; an empty stream has no lines.
pub fn split_lines(bytes: &[u8]) -> Vec<Frame<'_>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut line = 1;
    while !rest.is_empty() {
        match rest.iter().position(|b| *b == b'\n') {
            Some(i) => {
                out.push(Frame {
                    line,
                    bytes: &rest[..i],
                    terminated: true,
                });
                rest = &rest[i + 1..];
            }
            None => {
                out.push(Frame {
                    line,
                    bytes: rest,
                    terminated: false,
                });
                rest = &[];
            }
        }
        line += 1;
    }
    out
}

/// Check `bytes` as exactly one stdio frame (a fixture or one captured
/// write): one physical line, ended by exactly one LF, no CR anywhere
/// (spec 17.1; the upstream checker's reading). Returns the findings and,
/// when the text is strict JSON, the parsed message (still returned for a
/// multi-line frame, so its content can be checked too).
pub fn check_stdio_frame(bytes: &[u8]) -> (Option<Value>, Vec<Finding>) {
    let mut findings = Vec::new();
    if bytes.contains(&b'\r') {
        findings.push(Finding::new(
            Rule::StdioNoCarriageReturn,
            "",
            "the frame contains a carriage return; a frame ends in a single LF and has no CR",
        ));
    }
    let body = match bytes.strip_suffix(b"\n") {
        Some(body) => body,
        None => {
            findings.push(Finding::new(
                Rule::StdioTerminator,
                "",
                "the frame does not end in a newline (LF)",
            ));
            bytes
        }
    };
    let lines = body.iter().filter(|b| **b == b'\n').count() + 1;
    if lines > 1 {
        findings.push(Finding::new(
            Rule::StdioOneLine,
            "",
            format!(
                "the frame spans {lines} physical lines; a message must not contain a literal \
                 newline (no pretty-printing, no blank line after it)"
            ),
        ));
    }
    match json::parse_bytes(body) {
        Ok(v) => (Some(v), findings),
        Err(e) => {
            findings.push(json_finding(&e));
            (None, findings)
        }
    }
}

/// Check a stdio transcript (`.jsonl`: one stream, either direction or
/// both interleaved) line by line: each line one complete JSON-RPC
/// message ([`check_message`]); the last line LF-terminated; no CR; no
/// blank or non-JSON lines (spec 17.1). When the transcript holds requests,
/// replies are paired with them by id: a reply must answer an outstanding
/// request ([`check_reply`]), never a notification, and a second intercept
/// is not sent while one is outstanding (spec 17.2).
pub fn check_transcript(bytes: &[u8]) -> Vec<LineFinding> {
    let mut out = Vec::new();
    let mut messages: Vec<(usize, Value)> = Vec::new();
    for frame in split_lines(bytes) {
        let at = |finding| LineFinding {
            line: frame.line,
            finding,
        };
        if frame.bytes.contains(&b'\r') {
            out.push(at(Finding::new(
                Rule::StdioNoCarriageReturn,
                "",
                "the line contains a carriage return; frames end in a single LF",
            )));
        }
        if !frame.terminated {
            out.push(at(Finding::new(
                Rule::StdioTerminator,
                "",
                "the last line does not end in a newline (LF)",
            )));
        }
        if frame.bytes.iter().all(u8::is_ascii_whitespace) {
            out.push(at(Finding::new(
                Rule::StdioProtocolOnly,
                "",
                "a blank line is not a protocol message",
            )));
            continue;
        }
        match json::parse_bytes(frame.bytes) {
            Ok(v) => {
                out.extend(check_message(&v).into_iter().map(at));
                messages.push((frame.line, v));
            }
            Err(JsonError::Syntax { detail }) => out.push(at(Finding::new(
                Rule::StdioProtocolOnly,
                "",
                format!(
                    "the line is not one complete JSON message (a message must fit on one line, \
                     and nothing but messages may appear): {detail}"
                ),
            ))),
            Err(e) => out.push(at(json_finding(&e))),
        }
    }
    out.extend(pair_replies(&messages));
    out.sort_by_key(|f| f.line);
    out
}

/// Pair replies with requests in transcript order (see
/// [`check_transcript`]).
fn pair_replies(messages: &[(usize, Value)]) -> Vec<LineFinding> {
    let mut out = Vec::new();
    // Only a transcript that shows the harness side can pair replies; a
    // capture of a backend's stdout alone holds replies only.
    let has_requests = messages.iter().any(|(_, m)| m.get("method").is_some());
    if !has_requests {
        return out;
    }
    // Outstanding requests by id (the id's JSON text, so 1 and "1" differ).
    let mut outstanding: HashMap<String, (usize, &Value)> = HashMap::new();
    let mut last_was_notification = false;
    for (line, message) in messages {
        let at = |finding| LineFinding {
            line: *line,
            finding,
        };
        let is_call = message.get("method").is_some();
        match (is_call, message.get("id")) {
            (true, Some(id)) => {
                if classify(message) == MessageKind::InterceptRequest
                    && outstanding
                        .values()
                        .any(|(_, r)| classify(r) == MessageKind::InterceptRequest)
                {
                    out.push(at(Finding::new(
                        Rule::OneOutstandingIntercept,
                        "/id",
                        "an intercept request is sent while another is still outstanding on \
                         this stdio link",
                    )));
                }
                outstanding.insert(id.to_string(), (*line, message));
                last_was_notification = false;
            }
            (true, None) => last_was_notification = true,
            (false, id) => {
                let key = id.map(Value::to_string);
                match key.as_ref().and_then(|k| outstanding.remove(k)) {
                    Some((_, request)) => {
                        out.extend(check_reply(request, message).into_iter().map(at));
                    }
                    None if last_was_notification && outstanding.is_empty() => {
                        out.push(at(Finding::new(
                            Rule::NoReplyToNotification,
                            "",
                            "a response follows a notification with no request outstanding; \
                             notifications never get a response",
                        )));
                    }
                    None => out.push(at(Finding::new(
                        Rule::ReplyIdEcho,
                        "/id",
                        format!(
                            "the reply id {} matches no outstanding request",
                            id.map_or_else(|| "(absent)".to_owned(), short)
                        ),
                    ))),
                }
                last_was_notification = false;
            }
        }
    }
    out
}
