//! The other choices of the two stdio lifecycles:
//! `persistent-reply-after-notifications` (a persistent backend reads every
//! line already waiting before it answers) and `per-event-exit` (a
//! per_event process reads to end of file after its reply, and exits 1
//! after a notification: "Process status may be recorded locally but cannot
//! affect agent execution", spec 17.3).

use std::io::{self, BufRead, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{Freedom, FreedomBackend};
use crate::backend::{Disposition, Respond};
use crate::log::Logger;
use crate::stdio::{self as binding, answer_persistent, read_frame, Frame, StdioError};

/// How long a line may take to follow the one read before the backend
/// counts it as waiting.
const WAITING: Duration = Duration::from_millis(50);

/// The longest a batch is gathered, so a steady stream cannot hold the
/// answers back without end.
const BATCH_LIMIT: Duration = Duration::from_millis(250);

/// The persistent lifecycle, answering only once the lines that wait on
/// stdin are read: a reader thread hands over frames as they come, and
/// after each one the backend takes every frame that follows within
/// `WAITING` before it writes any answer, in arrival order.
pub fn serve_persistent_batched<R, W>(
    backend: &dyn Respond,
    mut input: R,
    mut output: W,
    max_frame_bytes: usize,
    log: &Logger,
) -> Result<(), StdioError>
where
    R: BufRead + Send + 'static,
    W: Write,
{
    let (tx, rx) = mpsc::channel::<io::Result<Frame>>();
    std::thread::spawn(move || loop {
        match read_frame(&mut input, max_frame_bytes) {
            Ok(Some(frame)) => {
                if tx.send(Ok(frame)).is_err() {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                let _ = tx.send(Err(e));
                break;
            }
        }
    });
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first?];
        let started = Instant::now();
        while started.elapsed() < BATCH_LIMIT {
            match rx.recv_timeout(WAITING) {
                Ok(frame) => batch.push(frame?),
                Err(_) => break,
            }
        }
        for frame in batch {
            answer_persistent(backend, frame, max_frame_bytes, &mut output, log)?;
        }
    }
    log.line("stdio: EOF on stdin, exiting");
    Ok(())
}

/// The per_event lifecycle under the backend's freedoms: answer the one
/// message; then, under `per-event-exit`, exit status 1 after a
/// notification, and otherwise read stdin to its end before exiting 0.
/// Returns the exit status.
pub fn serve_per_event<R: BufRead, W: Write>(
    backend: &FreedomBackend,
    mut input: R,
    output: W,
    max_frame_bytes: usize,
    log: &Logger,
) -> Result<u8, StdioError> {
    binding::serve_per_event(backend, &mut input, output, max_frame_bytes, log)?;
    if !backend.freedoms().has(Freedom::PerEventExit) {
        return Ok(0);
    }
    if backend.last_disposition() == Some(Disposition::Notification) {
        log.line("stdio per-event: a notification; exiting with status 1");
        return Ok(1);
    }
    io::copy(&mut input, &mut io::sink())?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::freedoms::Freedoms;
    use ctk_ahp_wire::version::AhpLine;

    const REQUEST: &str = r#"{"jsonrpc":"2.0","id":"e1","method":"nope"}"#;
    const NOTE: &str = r#"{"jsonrpc":"2.0","method":"hooks/observe","params":{}}"#;

    fn edge(ids: &str) -> FreedomBackend {
        FreedomBackend::new(
            Backend::default(),
            Freedoms::parse(ids, AhpLine::V0_1).unwrap(),
            true,
        )
    }

    #[test]
    fn a_batch_is_answered_in_order_with_notifications_unanswered() {
        let input = format!("{REQUEST}\n{NOTE}\n\n{}\n", REQUEST.replace("e1", "e2"));
        let mut out = Vec::new();
        serve_persistent_batched(
            &edge("persistent-reply-after-notifications"),
            io::Cursor::new(input.into_bytes()),
            &mut out,
            1024,
            &Logger { quiet: true },
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        let ids: Vec<&str> = out
            .lines()
            .map(|l| if l.contains("\"e1\"") { "e1" } else { "e2" })
            .collect();
        assert_eq!(ids, ["e1", "e2"], "{out}");
    }

    #[test]
    fn per_event_exit_is_one_after_a_notification_and_zero_after_a_reply() {
        let quiet = Logger { quiet: true };
        let taken = edge("per-event-exit");
        let status = serve_per_event(
            &taken,
            format!("{NOTE}\n").as_bytes(),
            Vec::new(),
            1024,
            &quiet,
        );
        assert_eq!(status.unwrap(), 1);
        let mut out = Vec::new();
        let status = serve_per_event(
            &taken,
            format!("{REQUEST}\nrest\n").as_bytes(),
            &mut out,
            1024,
            &quiet,
        );
        assert_eq!(status.unwrap(), 0);
        assert_eq!(out.iter().filter(|b| **b == b'\n').count(), 1);
        let plain = edge("none");
        let status = serve_per_event(
            &plain,
            format!("{NOTE}\n").as_bytes(),
            Vec::new(),
            1024,
            &quiet,
        );
        assert_eq!(status.unwrap(), 0);
    }
}
