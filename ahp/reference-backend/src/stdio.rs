//! The stdio binding: newline-delimited JSON-RPC on stdin and stdout
//! (spec 17).
//!
//! Each inbound line is one message; each reply is one compact JSON line,
//! flushed at once. Nothing but replies is written to the output
//! (spec 17.1: no banners or logs on stdout). Lines are bounded: a line
//! longer than the limit is discarded up to its newline and answered with
//! `-32600`, so a runaway harness cannot make the backend grow without end.

use std::io::{self, BufRead, Write};

use serde_json::json;

use crate::backend::Respond;
use crate::log::Logger;
use crate::rpc;

/// The default bound on one inbound line, in bytes (newline excluded).
pub const DEFAULT_MAX_FRAME_BYTES: usize = 1024 * 1024;

/// Why a stdio session ended in failure.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    /// Reading stdin or writing stdout failed (e.g. the harness closed the
    /// pipe before the reply was written).
    #[error("stdio failed: {0}")]
    Io(#[from] io::Error),
    /// A per-event process saw EOF (or only a blank line) before any
    /// message; spec 17.3 gives it exactly one message.
    #[error("no message arrived on stdin before EOF; a per-event backend expects exactly one JSON-RPC message line")]
    NoFrame,
}

/// One inbound line as read.
pub(crate) enum Frame {
    /// The line's bytes, newline removed.
    Line(Vec<u8>),
    /// The line was longer than the bound and was discarded.
    Oversize,
}

/// Read one line of at most `max` bytes; `None` at EOF before any byte. A
/// last line without a newline still counts as a line.
pub(crate) fn read_frame<R: BufRead>(input: &mut R, max: usize) -> io::Result<Option<Frame>> {
    let mut line = Vec::new();
    let mut oversize = false;
    let mut any = false;
    loop {
        let (used, done) = {
            let available = input.fill_buf()?;
            if available.is_empty() {
                return Ok(match (any, oversize) {
                    (false, _) => None,
                    (true, true) => Some(Frame::Oversize),
                    (true, false) => Some(Frame::Line(line)),
                });
            }
            any = true;
            let newline = available.iter().position(|b| *b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            if !oversize {
                if line.len() + chunk.len() > max {
                    oversize = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            match newline {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            }
        };
        input.consume(used);
        if done {
            return Ok(Some(if oversize {
                Frame::Oversize
            } else {
                Frame::Line(line)
            }));
        }
    }
}

fn write_line<W: Write>(output: &mut W, line: &str) -> io::Result<()> {
    output.write_all(line.as_bytes())?;
    output.write_all(b"\n")?;
    output.flush()
}

fn oversize_reply(max: usize) -> String {
    let v = rpc::error_response(
        serde_json::Value::Null,
        rpc::ErrorCode::InvalidRequest,
        Some(json!({"problem": "the message is longer than the backend accepts", "maxBytes": max})),
    );
    serde_json::to_string(&v).expect("a JSON value serializes")
}

pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Answer one frame: write the reply (if any) and log.
pub(crate) fn answer<W: Write>(
    backend: &dyn Respond,
    frame: Frame,
    max: usize,
    output: &mut W,
    log: &Logger,
    via: &str,
) -> io::Result<()> {
    match frame {
        Frame::Line(bytes) => {
            let handled = backend.respond_to(&bytes);
            log.handled(via, &handled);
            if let Some(line) = handled.reply_line() {
                let delay = backend.delay(&handled);
                if !delay.is_zero() {
                    std::thread::sleep(delay);
                }
                write_line(output, &line)?;
            }
        }
        Frame::Oversize => {
            log.line(&format!("{via}: a line over {max} bytes was discarded"));
            write_line(output, &oversize_reply(max))?;
        }
    }
    Ok(())
}

/// Answer one frame of the persistent lifecycle; a blank line is no
/// message and is skipped.
pub(crate) fn answer_persistent<W: Write>(
    backend: &dyn Respond,
    frame: Frame,
    max: usize,
    output: &mut W,
    log: &Logger,
) -> io::Result<()> {
    if let Frame::Line(l) = &frame {
        if is_blank(l) {
            log.line("stdio: blank line skipped");
            return Ok(());
        }
    }
    answer(backend, frame, max, output, log, "stdio")
}

/// The persistent lifecycle (spec 17.2): answer every line until EOF, then
/// return `Ok`. Blank lines are no message and are skipped.
pub fn serve_persistent<R: BufRead, W: Write>(
    backend: &dyn Respond,
    mut input: R,
    mut output: W,
    max_frame_bytes: usize,
    log: &Logger,
) -> Result<(), StdioError> {
    while let Some(frame) = read_frame(&mut input, max_frame_bytes)? {
        answer_persistent(backend, frame, max_frame_bytes, &mut output, log)?;
    }
    log.line("stdio: EOF on stdin, exiting");
    Ok(())
}

/// The process-per-event lifecycle (spec 17.3): read one message, write at
/// most one reply, return. The reply is written as soon as the first line
/// is complete, without waiting for EOF, so a harness that closes stdin
/// only after reading the reply still gets one; anything after the first
/// line is not read.
pub fn serve_per_event<R: BufRead, W: Write>(
    backend: &dyn Respond,
    mut input: R,
    mut output: W,
    max_frame_bytes: usize,
    log: &Logger,
) -> Result<(), StdioError> {
    match read_frame(&mut input, max_frame_bytes)? {
        None => Err(StdioError::NoFrame),
        Some(Frame::Line(l)) if is_blank(&l) => Err(StdioError::NoFrame),
        Some(frame) => {
            answer(
                backend,
                frame,
                max_frame_bytes,
                &mut output,
                log,
                "stdio per-event",
            )?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;

    fn run(input: &[u8], max: usize) -> String {
        let mut out = Vec::new();
        serve_persistent(
            &Backend::default(),
            input,
            &mut out,
            max,
            &Logger { quiet: true },
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn an_oversize_line_is_answered_once_and_the_next_line_still_read() {
        let big = format!("{{\"pad\":\"{}\"}}\n", "x".repeat(100));
        let input = format!("{big}[]\n");
        let out = run(input.as_bytes(), 64);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines[0].contains("\"maxBytes\":64"), "{}", lines[0]);
        assert!(lines[1].contains("-32600"), "{}", lines[1]);
    }

    #[test]
    fn blank_lines_get_no_reply_and_a_last_line_without_newline_does() {
        let out = run(b"\n  \n[]", 1024);
        assert_eq!(out.lines().count(), 1, "{out}");
    }

    #[test]
    fn per_event_without_a_message_fails() {
        let mut out = Vec::new();
        let e = serve_per_event(
            &Backend::default(),
            &b""[..],
            &mut out,
            1024,
            &Logger { quiet: true },
        )
        .unwrap_err();
        assert!(matches!(e, StdioError::NoFrame));
        assert!(out.is_empty());
    }
}
