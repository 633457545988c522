//! The driver: the kit plays the harness. It sends a vector's steps to a
//! stdio command (persistent: one process for the vector; per_event: one
//! process per message, stdin closed after the frame) or POSTs them to an
//! HTTP URL, and writes down everything that comes back in a
//! [`RunRecord`]. Every wait is bounded; nothing is judged here.

mod http;
use ctk_support::child as process;

use std::time::Duration;

use tokio::time::Instant;

use crate::error::LinkError;
use crate::record::{is_response, LineRecord, ProcessRecord, Reply, RunRecord, StepRecord};
use crate::suite::{Lifecycle, StdioCommand, SuiteConfig};
use crate::vector::Vector;
use process::{LineChild, OutEvent, Spawn};

pub(crate) use http::run_http;

/// Milliseconds since `t0`.
fn ms(t0: Instant, at: Instant) -> u64 {
    u64::try_from(at.saturating_duration_since(t0).as_millis()).unwrap_or(u64::MAX)
}

/// The bound on one reply: twice the step deadline ("a reply later than
/// twice the deadline is late"), so a slow but working backend is never
/// judged by a tight window.
pub(crate) fn reply_bound(cfg: &SuiteConfig) -> Duration {
    cfg.step_deadline * 2
}

fn spawn_spec(cmd: &StdioCommand, cfg: &SuiteConfig) -> Spawn {
    let mut env = cmd.env.clone();
    env.push((cfg.canary_env.clone().into(), cfg.canary.clone().into()));
    Spawn {
        program: cmd.program.clone(),
        args: cmd.args.clone(),
        cwd: cmd.cwd.clone(),
        env,
        max_line_bytes: cfg.max_line_bytes,
        max_stdout_bytes: cfg.max_stdout_bytes,
        stderr_tail_bytes: cfg.stderr_tail_bytes,
    }
}

fn start(cmd: &StdioCommand, cfg: &SuiteConfig) -> Result<LineChild, LinkError> {
    LineChild::spawn(&spawn_spec(cmd, cfg)).map_err(|e| LinkError::Spawn {
        program: cmd.program.to_string_lossy().into_owned(),
        message: e.to_string(),
    })
}

/// Collects stdout lines into the record, taking the first JSON-RPC
/// response after a request as its reply.
struct Collector {
    t0: Instant,
    lines: Vec<LineRecord>,
}

impl Collector {
    fn push(&mut self, ev: OutEvent, after_step: Option<usize>, process: usize) -> Option<usize> {
        let OutEvent::Line {
            bytes,
            len,
            terminated,
            cut,
            at,
        } = ev
        else {
            return None;
        };
        let utf8 = std::str::from_utf8(&bytes).is_ok() && !cut;
        self.lines.push(LineRecord {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            len,
            utf8,
            terminated,
            cut,
            at_ms: ms(self.t0, at),
            after_step,
            process,
            reply_to: None,
        });
        Some(self.lines.len() - 1)
    }

    /// Read until a response line arrives (returned as its line index),
    /// stdout ends, or `deadline` passes.
    async fn await_response(
        &mut self,
        backend: &mut LineChild,
        deadline: Instant,
        step: usize,
        process: usize,
    ) -> Option<usize> {
        while let Some(ev) = backend.next_event(deadline).await {
            if let Some(i) = self.push(ev, Some(step), process) {
                if self.lines[i].as_response().is_some() {
                    return Some(i);
                }
            }
        }
        None
    }

    /// Read everything until stdout ends or `deadline` passes.
    async fn drain(
        &mut self,
        backend: &mut LineChild,
        deadline: Instant,
        step: Option<usize>,
        process: usize,
    ) {
        while let Some(ev) = backend.next_event(deadline).await {
            self.push(ev, step, process);
        }
    }

    fn take_reply(&mut self, line: usize, step: &mut StepRecord, sent_at: Instant) {
        let rec = &mut self.lines[line];
        rec.reply_to = Some(step.index);
        let value = rec.as_response().expect("checked to be a response");
        let at = self.t0 + Duration::from_millis(rec.at_ms);
        step.reply = Some(Reply {
            value,
            text: rec.text.clone(),
            latency_ms: ms(sent_at, at),
        });
    }
}

fn process_record(backend: &LineChild, steps: Vec<usize>, ended: process::Ended) -> ProcessRecord {
    ProcessRecord {
        pid: backend.pid(),
        steps,
        exit_code: ended.exit_code,
        signal: ended.signal,
        exited: ended.exited,
        killed: ended.killed,
        flooded: backend.flooded(),
        stderr_tail: backend.stderr_tail(),
    }
}

/// Await the reply to the request of `rec`, sent at `sent_at`, on a
/// persistent backend; record why none came.
async fn await_into(
    c: &mut Collector,
    backend: &mut LineChild,
    rec: &mut StepRecord,
    sent_at: Instant,
    cfg: &SuiteConfig,
) {
    match c
        .await_response(backend, sent_at + reply_bound(cfg), rec.index, 0)
        .await
    {
        Some(line) => c.take_reply(line, rec, sent_at),
        None => {
            rec.no_reply = Some(if backend.flooded() {
                "stdout exceeded the byte budget before a reply".to_owned()
            } else if backend.stdout_ended() {
                "stdout closed (the backend exited?) before a reply".to_owned()
            } else {
                format!(
                    "no JSON-RPC response within {} ms",
                    reply_bound(cfg).as_millis()
                )
            })
        }
    }
}

/// Run `vector` against a stdio command.
pub(crate) async fn run_stdio(
    vector: &Vector,
    cmd: &StdioCommand,
    cfg: &SuiteConfig,
) -> Result<RunRecord, LinkError> {
    match cmd.lifecycle {
        Lifecycle::Persistent => run_persistent(vector, cmd, cfg).await,
        Lifecycle::PerEvent => run_per_event(vector, cmd, cfg).await,
    }
}

async fn run_persistent(
    vector: &Vector,
    cmd: &StdioCommand,
    cfg: &SuiteConfig,
) -> Result<RunRecord, LinkError> {
    let t0 = Instant::now();
    let mut backend = start(cmd, cfg)?;
    let mut c = Collector {
        t0,
        lines: Vec::new(),
    };
    let mut steps: Vec<StepRecord> = Vec::new();
    let mut last_sent = None;
    // A request sent with no_wait whose reply is still owed: (step, sent).
    let mut pending: Option<(usize, Instant)> = None;
    for (i, step) in vector.send.iter().enumerate() {
        let mut rec = StepRecord::new(i);
        rec.process = Some(0);
        if !step.notification {
            // One outstanding intercept: the owed reply comes first.
            if let Some((j, sent_at)) = pending.take() {
                await_into(&mut c, &mut backend, &mut steps[j], sent_at, cfg).await;
            }
        }
        if step.close_stdin {
            backend.close_stdin();
            rec.sent = true;
            c.drain(&mut backend, Instant::now() + reply_bound(cfg), Some(i), 0)
                .await;
            steps.push(rec);
            last_sent = Some(i);
            continue;
        }
        let text = step.wire_text().expect("a message step has text");
        let sent_at = Instant::now();
        match backend
            .write_line(&text, step.pieces.unwrap_or(1), cfg.step_deadline)
            .await
        {
            Ok(()) => rec.sent = true,
            Err(e) => rec.send_error = Some(e),
        }
        last_sent = Some(i);
        if step.notification {
            // Silence is observed for a quiet window here; the probe that
            // every vector ends with proves the backend read past it. The
            // first response in the window belongs to an owed request.
            let until = Instant::now() + cfg.quiet_window;
            if let Some((j, sent_at)) = pending {
                if let Some(line) = c.await_response(&mut backend, until, i, 0).await {
                    c.take_reply(line, &mut steps[j], sent_at);
                    pending = None;
                }
            }
            c.drain(&mut backend, until, Some(i), 0).await;
            steps.push(rec);
        } else if step.no_wait {
            steps.push(rec);
            pending = Some((i, sent_at));
        } else {
            steps.push(rec);
            let last = steps.last_mut().expect("just pushed");
            await_into(&mut c, &mut backend, last, sent_at, cfg).await;
        }
    }
    if let Some((j, sent_at)) = pending.take() {
        await_into(&mut c, &mut backend, &mut steps[j], sent_at, cfg).await;
    }
    // End of the vector: close stdin, read what is left for a while, then
    // end the process (killed if it does not exit).
    backend.close_stdin();
    let end_by = Instant::now() + cfg.step_deadline;
    c.drain(&mut backend, end_by, last_sent, 0).await;
    let ended = backend.end(end_by).await;
    // Lines still buffered after the kill.
    c.drain(
        &mut backend,
        Instant::now() + Duration::from_millis(200),
        last_sent,
        0,
    )
    .await;
    let proc_rec = process_record(&backend, (0..vector.send.len()).collect(), ended);
    drop(backend);
    Ok(RunRecord {
        binding: "stdio",
        lifecycle: "persistent",
        steps,
        lines: c.lines,
        processes: vec![proc_rec],
        elapsed_ms: ms(t0, Instant::now()),
    })
}

async fn run_per_event(
    vector: &Vector,
    cmd: &StdioCommand,
    cfg: &SuiteConfig,
) -> Result<RunRecord, LinkError> {
    let t0 = Instant::now();
    let mut c = Collector {
        t0,
        lines: Vec::new(),
    };
    let mut steps = Vec::new();
    let mut processes = Vec::new();
    for (i, step) in vector.send.iter().enumerate() {
        let mut rec = StepRecord::new(i);
        let Some(text) = step.wire_text() else {
            // close_stdin belongs to persistent vectors (lint); nothing to do.
            rec.sent = true;
            steps.push(rec);
            continue;
        };
        let p = processes.len();
        rec.process = Some(p);
        let mut backend = start(cmd, cfg)?;
        let sent_at = Instant::now();
        match backend
            .write_line(&text, step.pieces.unwrap_or(1), cfg.step_deadline)
            .await
        {
            Ok(()) => rec.sent = true,
            Err(e) => rec.send_error = Some(e),
        }
        // Exactly one message, then end of file (spec 17.3).
        backend.close_stdin();
        let bound = sent_at + reply_bound(cfg);
        if !step.notification {
            if let Some(line) = c.await_response(&mut backend, bound, i, p).await {
                c.take_reply(line, &mut rec, sent_at);
            }
        }
        // Everything else it writes until stdout ends (or the bound).
        c.drain(&mut backend, bound, Some(i), p).await;
        if rec.reply.is_none() && !step.notification {
            rec.no_reply = Some(if backend.flooded() {
                "stdout exceeded the byte budget before a reply".to_owned()
            } else if backend.stdout_ended() {
                "the process closed stdout without a JSON-RPC response".to_owned()
            } else {
                format!(
                    "no JSON-RPC response within {} ms",
                    reply_bound(cfg).as_millis()
                )
            });
        }
        // It writes at most one response and exits: it gets one more step
        // deadline to do so once stdout ended (or the bound passed).
        let ended = backend.end(Instant::now() + cfg.step_deadline).await;
        c.drain(
            &mut backend,
            Instant::now() + Duration::from_millis(200),
            Some(i),
            p,
        )
        .await;
        processes.push(process_record(&backend, vec![i], ended));
        drop(backend);
        // Responses beyond the first from one process.
        for line in c
            .lines
            .iter()
            .filter(|l| l.process == p && l.reply_to.is_none())
        {
            if let Some(v) = line.as_response() {
                rec.extra_responses.push(v);
            }
        }
        steps.push(rec);
    }
    Ok(RunRecord {
        binding: "stdio",
        lifecycle: "per_event",
        steps,
        lines: c.lines,
        processes,
        elapsed_ms: ms(t0, Instant::now()),
    })
}

/// Whether a JSON value is a JSON-RPC response (re-exported for the HTTP
/// driver).
pub(crate) fn response(value: &serde_json::Value) -> bool {
    is_response(value)
}
