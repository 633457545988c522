//! The stdio binding (spec 17): one UTF-8 JSON-RPC object per line.
//!
//! - persistent (spec 17.2): one process per backend for the session,
//!   started on first use (and again after it died); replies matched by
//!   id; at most one intercept outstanding, counted across the events of
//!   parallel tool calls (decision D-17; [`Outstanding`]), and a reply
//!   that arrives after its deadline is dropped, never applied to a later
//!   request; a process that keeps sending malformed output is ended
//!   (decision D-28).
//! - per_event (spec 17.3): one process per message: one frame on stdin,
//!   then EOF; at most one reply; a nonzero exit, no reply or a malformed
//!   reply is an operational failure, except that a valid deny already
//!   read stands (decision D-02).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::{timeout, timeout_at, Instant};

use crate::classify::{classify, Decision, Failure, Sent};
use crate::freedoms::edge;
use crate::process::{self, Group, Launch, Spawned};
use crate::readings;

/// The longest stdout line (one frame) accepted from a backend.
pub const MAX_FRAME_BYTES: usize = 1 << 20;
/// Consecutive malformed replies after which a persistent backend is ended
/// (spec 17.2 "SHOULD terminate ... repeatedly"; decision D-28).
pub const MALFORMED_LIMIT: u32 = 3;
/// How long a per-event observer process may live (observation is best
/// effort; the bound only keeps processes from piling up).
pub const OBSERVE_BOUND: Duration = Duration::from_secs(30);
/// How many timed-out request ids a persistent backend remembers, so their
/// late replies are recognised and dropped.
const EXPIRED_MEMORY: usize = 256;
/// Frames queued for a persistent backend's stdin before notifications are
/// dropped (best effort, spec 15) rather than waited for.
const QUEUE: usize = 64;

/// What a persistent backend's stdout produced.
#[derive(Debug, Clone)]
enum Incoming {
    /// One complete line, without its LF.
    Line(Vec<u8>),
    /// A line longer than [`MAX_FRAME_BYTES`].
    TooLong,
    /// stdout closed (the process ended or closed it).
    Eof,
}

/// How many intercept requests may be outstanding on one persistent
/// backend at once (spec 17.2 "MAY have only one outstanding"; D-17).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outstanding {
    /// The reference reading: one, counted across events. A request of a
    /// concurrent event waits until the previous one is answered or its
    /// deadline passed; the wait counts against its own deadline, so its
    /// decision never comes later than `timeoutMs` (the agent's wait is
    /// what the deadline bounds, spec 14.4).
    One,
    /// The `persistent-outstanding-limit` reading: the requests of
    /// concurrent events are written at once, and a task reading the
    /// backend's stdout hands each reply to the request whose id it
    /// carries (`Demux`).
    Many,
}

/// Where a persistent process's output lines go.
#[derive(Debug)]
enum Replies {
    /// [`Outstanding::One`]: the one outstanding intercept reads them
    /// itself.
    Shared(tokio::sync::Mutex<mpsc::Receiver<Incoming>>),
    /// [`Outstanding::Many`]: a task routes each to its request.
    Routed(Arc<Demux>),
}

/// One running persistent process.
#[derive(Debug)]
struct Proc {
    tx: mpsc::Sender<Vec<u8>>,
    replies: Replies,
    dead: Arc<AtomicBool>,
    group: Mutex<Option<Group>>,
    writer: Mutex<Option<JoinHandle<()>>>,
    exited: Mutex<Option<oneshot::Receiver<()>>>,
    malformed: AtomicU32,
}

impl Proc {
    fn kill(&self) {
        self.dead.store(true, Ordering::SeqCst);
        if let Some(mut g) = self.group.lock().unwrap_or_else(|p| p.into_inner()).take() {
            g.kill();
        }
    }
}

/// The intercepts outstanding on one persistent process under
/// [`Outstanding::Many`], each with the queue its reply lines are routed
/// to (spec 17.2: responses correlated by JSON-RPC id).
#[derive(Debug, Default)]
struct Demux {
    state: Mutex<DemuxState>,
}

#[derive(Debug, Default)]
struct DemuxState {
    /// Oldest first: (key, request id, the request's queue).
    pending: Vec<(u64, Value, mpsc::UnboundedSender<Incoming>)>,
    next: u64,
    /// stdout ended: a request that joins now hears nothing, at once.
    closed: bool,
}

/// One request's place in a [`Demux`]; it leaves when this is dropped
/// (answered, expired, or abandoned), so nothing is routed to it after.
struct Waiting {
    demux: Arc<Demux>,
    key: u64,
    rx: mpsc::UnboundedReceiver<Incoming>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.demux
            .lock()
            .pending
            .retain(|(key, _, _)| *key != self.key);
    }
}

impl Demux {
    fn lock(&self) -> std::sync::MutexGuard<'_, DemuxState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait for the reply to the request of `id`; join before writing it,
    /// so that even an immediate reply finds its request.
    fn join(self: &Arc<Self>, id: Value) -> Waiting {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut state = self.lock();
        let key = state.next;
        state.next += 1;
        if !state.closed {
            state.pending.push((key, id, tx));
        }
        Waiting {
            demux: self.clone(),
            key,
            rx,
        }
    }

    /// Hand one line to the request whose id it carries. A line that
    /// names no outstanding request (a late reply to an expired one, a
    /// wrong id, no JSON at all) goes to the oldest outstanding request,
    /// which judges it exactly as it would with only itself outstanding:
    /// dropped if late, else a failure (or skipped under the readings).
    /// With nothing outstanding it answers nothing and is dropped.
    fn route(&self, line: Vec<u8>) {
        let id = serde_json::from_slice::<Value>(&line)
            .ok()
            .and_then(|v| v.get("id").cloned());
        let state = self.lock();
        let to = id
            .and_then(|id| state.pending.iter().find(|(_, want, _)| *want == id))
            .or_else(|| state.pending.first());
        if let Some((_, _, tx)) = to {
            // Its request may just have given up; then the line is moot.
            let _ = tx.send(Incoming::Line(line));
        }
    }

    /// stdout ended (`last`: how): every outstanding request hears it,
    /// and any that joins later hears nothing.
    fn close(&self, last: Option<Incoming>) {
        let mut state = self.lock();
        state.closed = true;
        for (_, _, tx) in state.pending.drain(..) {
            if let Some(last) = &last {
                let _ = tx.send(last.clone());
            }
        }
    }
}

/// Feed a process's output lines to its [`Demux`] until stdout ends.
async fn route_lines(mut lines: mpsc::Receiver<Incoming>, demux: Arc<Demux>) {
    while let Some(incoming) = lines.recv().await {
        match incoming {
            Incoming::Line(line) => demux.route(line),
            end => return demux.close(Some(end)),
        }
    }
    demux.close(None);
}

/// Where one intercept reads the lines that may answer it.
enum Source<'a> {
    /// Every line of the process (it is the only one outstanding).
    Shared(tokio::sync::MutexGuard<'a, mpsc::Receiver<Incoming>>),
    /// The lines routed to it.
    Routed(Waiting),
}

impl Source<'_> {
    async fn recv(&mut self) -> Option<Incoming> {
        match self {
            Source::Shared(lines) => lines.recv().await,
            Source::Routed(waiting) => waiting.rx.recv().await,
        }
    }
}

/// A persistent stdio backend: the process slot and the serialisation of
/// its intercepts.
#[derive(Debug)]
pub struct Persistent {
    launch: Launch,
    outstanding: Outstanding,
    slot: Mutex<Option<Arc<Proc>>>,
    turn: tokio::sync::Mutex<()>,
    expired: Mutex<VecDeque<Value>>,
}

impl Persistent {
    /// A backend that starts `launch` on first use, with as many
    /// intercepts outstanding as the readings allow ([`Outstanding::One`]
    /// unless `persistent-outstanding-limit` is taken).
    pub fn new(launch: Launch) -> Persistent {
        let outstanding = if readings::get().several_outstanding {
            Outstanding::Many
        } else {
            Outstanding::One
        };
        Persistent::with_outstanding(launch, outstanding)
    }

    /// A backend that starts `launch` on first use, with `outstanding`
    /// intercepts at most.
    pub fn with_outstanding(launch: Launch, outstanding: Outstanding) -> Persistent {
        Persistent {
            launch,
            outstanding,
            slot: Mutex::new(None),
            turn: tokio::sync::Mutex::new(()),
            expired: Mutex::new(VecDeque::new()),
        }
    }

    /// The running process, started now if there is none or it died.
    fn process(&self) -> Result<Arc<Proc>, Failure> {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = slot.as_ref() {
            if !p.dead.load(Ordering::SeqCst) {
                return Ok(p.clone());
            }
            p.kill();
        }
        let Spawned {
            mut child,
            mut stdin,
            stdout,
            group,
        } = process::spawn(&self.launch).map_err(|e| Failure::Launch(e.to_string()))?;
        let (tx, mut rx) = mpsc::channel::<Vec<u8>>(QUEUE);
        let writer = tokio::spawn(async move {
            while let Some(frame) = rx.recv().await {
                if write_frame(&mut stdin, frame).await.is_err() {
                    break;
                }
            }
            // Dropping stdin closes it: the backend sees EOF.
        });
        let (line_tx, line_rx) = mpsc::channel(QUEUE);
        let dead = Arc::new(AtomicBool::new(false));
        tokio::spawn(read_lines(stdout, line_tx, dead.clone()));
        let replies = match self.outstanding {
            Outstanding::One => Replies::Shared(tokio::sync::Mutex::new(line_rx)),
            Outstanding::Many => {
                let demux = Arc::new(Demux::default());
                tokio::spawn(route_lines(line_rx, demux.clone()));
                Replies::Routed(demux)
            }
        };
        let (exit_tx, exit_rx) = oneshot::channel();
        let id = self.launch.backend.clone();
        let dead_on_exit = dead.clone();
        tokio::spawn(async move {
            let status = child.wait().await;
            dead_on_exit.store(true, Ordering::SeqCst);
            if let Ok(s) = status {
                if !s.success() {
                    eprintln!("ctk-ahp-harness: persistent backend {id} ended: {s}");
                }
            }
            let _ = exit_tx.send(());
        });
        let p = Arc::new(Proc {
            tx,
            replies,
            dead,
            group: Mutex::new(Some(group)),
            writer: Mutex::new(Some(writer)),
            exited: Mutex::new(Some(exit_rx)),
            malformed: AtomicU32::new(0),
        });
        *slot = Some(p.clone());
        Ok(p)
    }

    /// Start the process now, if it is not running (the launch-at-load
    /// reading); a failure is logged and the next exchange tries again.
    pub fn start(&self) {
        if let Err(f) = self.process() {
            eprintln!("ctk-ahp-harness: backend {}: {f}", self.launch.backend);
        }
    }

    /// Send `sent`'s request (its `frame` is the line to write, LF
    /// included) and wait for its reply until `deadline`.
    pub async fn intercept(
        &self,
        sent: Sent<'_>,
        frame: Vec<u8>,
        deadline: Instant,
        timeout_ms: u64,
    ) -> Result<Decision, Failure> {
        let request = sent.request;
        // One outstanding intercept per persistent backend, across events
        // (D-17); the wait for the turn is part of this request's deadline.
        let _turn = match self.outstanding {
            Outstanding::One => Some(
                timeout_at(deadline, self.turn.lock())
                    .await
                    .map_err(|_| Failure::Timeout(timeout_ms))?,
            ),
            Outstanding::Many => None,
        };
        let proc = self.process()?;
        let mut lines = match &proc.replies {
            Replies::Shared(lines) => {
                let mut lines = lines.lock().await;
                // Whatever arrived while nothing was outstanding (late
                // replies to expired requests) answers nothing now.
                while let Ok(stale) = lines.try_recv() {
                    if matches!(stale, Incoming::Eof) {
                        proc.dead.store(true, Ordering::SeqCst);
                    }
                }
                Source::Shared(lines)
            }
            Replies::Routed(demux) => {
                Source::Routed(demux.join(request.get("id").cloned().unwrap_or(Value::Null)))
            }
        };
        match timeout_at(deadline, proc.tx.send(frame)).await {
            Err(_) => return Err(self.expire(request, timeout_ms)),
            Ok(Err(_)) => {
                proc.kill();
                return Err(Failure::Exited("stdin closed".into()));
            }
            Ok(Ok(())) => {}
        }
        loop {
            match timeout_at(deadline, lines.recv()).await {
                Err(_) => return Err(self.expire(request, timeout_ms)),
                Ok(None | Some(Incoming::Eof)) => {
                    proc.dead.store(true, Ordering::SeqCst);
                    return Err(Failure::Exited("stdout closed before a reply".into()));
                }
                Ok(Some(Incoming::TooLong)) => {
                    proc.kill();
                    return Err(Failure::TooLarge(MAX_FRAME_BYTES));
                }
                Ok(Some(Incoming::Line(bytes))) => {
                    if self.is_late(&bytes, request) || skipped(&bytes, request) {
                        continue;
                    }
                    let verdict = classify(sent, &bytes);
                    let malformed = verdict.as_ref().is_err_and(Failure::is_malformed_output);
                    if !malformed {
                        proc.malformed.store(0, Ordering::SeqCst);
                    } else if proc.malformed.fetch_add(1, Ordering::SeqCst) + 1 >= MALFORMED_LIMIT
                        && !readings::get().never_end_malformed
                    {
                        eprintln!(
                            "ctk-ahp-harness: persistent backend {} sent {MALFORMED_LIMIT} bad replies in a row; ending it",
                            self.launch.backend
                        );
                        proc.kill();
                    }
                    return verdict;
                }
            }
        }
    }

    /// Remember that `request` timed out, so its late reply is dropped.
    fn expire(&self, request: &Value, timeout_ms: u64) -> Failure {
        if let Some(id) = request.get("id") {
            let mut e = self.expired.lock().unwrap_or_else(|p| p.into_inner());
            e.push_back(id.clone());
            if e.len() > EXPIRED_MEMORY {
                e.pop_front();
            }
        }
        Failure::Timeout(timeout_ms)
    }

    /// Whether `line` is a reply to an earlier request that already timed
    /// out (spec 14.4: a later response is ignored).
    fn is_late(&self, line: &[u8], request: &Value) -> bool {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return false;
        };
        let Some(id) = v.get("id") else { return false };
        if Some(id) == request.get("id") {
            return false;
        }
        let late = self
            .expired
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(id);
        if late {
            eprintln!(
                "ctk-ahp-harness: backend {}: late reply to an expired request ignored",
                self.launch.backend
            );
        }
        late
    }

    /// Queue a notification frame; never waits (observation must not
    /// delay anything, spec 13.2).
    pub fn notify(&self, frame: Vec<u8>) {
        if self.try_notify(frame.clone()).is_err() && readings::get().retry_notifications {
            eprintln!(
                "ctk-ahp-harness: observer {}: retrying the notification once",
                self.launch.backend
            );
            let _ = self.try_notify(frame);
        }
    }

    /// One attempt of [`Persistent::notify`]; `Err` when it failed.
    fn try_notify(&self, frame: Vec<u8>) -> Result<(), ()> {
        match self.process() {
            Ok(p) => {
                // Output nobody asked for (a broken backend answering
                // notifications) is dropped here too, so it never fills the
                // line queue and stalls the backend (a demultiplexer drops
                // it itself).
                if let Replies::Shared(lines) = &p.replies {
                    if let Ok(mut lines) = lines.try_lock() {
                        while let Ok(stale) = lines.try_recv() {
                            if matches!(stale, Incoming::Eof) {
                                p.dead.store(true, Ordering::SeqCst);
                            }
                        }
                    }
                }
                if p.tx.try_send(frame).is_err() {
                    eprintln!(
                        "ctk-ahp-harness: observer {}: notification dropped (backend not reading)",
                        self.launch.backend
                    );
                    return Err(());
                }
                Ok(())
            }
            Err(f) => {
                eprintln!("ctk-ahp-harness: observer {}: {f}", self.launch.backend);
                Err(())
            }
        }
    }

    /// End the process: flush queued frames (at most 500 ms), close stdin,
    /// give it 300 ms to exit on EOF, then kill its group.
    pub async fn shutdown(&self) {
        let proc = self.slot.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(proc) = proc else { return };
        let group = proc.group.lock().unwrap_or_else(|p| p.into_inner()).take();
        let writer = proc.writer.lock().unwrap_or_else(|p| p.into_inner()).take();
        let exited = proc.exited.lock().unwrap_or_else(|p| p.into_inner()).take();
        drop(proc);
        if let Some(w) = writer {
            let _ = timeout(Duration::from_millis(500), w).await;
        }
        if let Some(e) = exited {
            let _ = timeout(Duration::from_millis(300), e).await;
        }
        drop(group);
    }

    /// Kill the process now, without waiting.
    pub fn kill(&self) {
        if let Some(p) = self.slot.lock().unwrap_or_else(|p| p.into_inner()).take() {
            p.kill();
        }
    }
}

/// Write one frame to a backend's stdin, in the pieces the edge's freedoms
/// ask (one write by default).
async fn write_frame(
    stdin: &mut (impl tokio::io::AsyncWrite + Unpin),
    frame: Vec<u8>,
) -> std::io::Result<()> {
    let pieces = edge().pieces(frame);
    let last = pieces.len().saturating_sub(1);
    for (i, piece) in pieces.into_iter().enumerate() {
        stdin.write_all(&piece).await?;
        stdin.flush().await?;
        if i < last {
            tokio::time::sleep(edge().piece_gap()).await;
        }
    }
    Ok(())
}

/// Whether a line read while `request` is outstanding is skipped by the
/// readings rather than judged: a line that is not a JSON-RPC message (the
/// banner reading), or one whose id is not the request's (the unmatched-id
/// reading).
fn skipped(line: &[u8], request: &Value) -> bool {
    let r = readings::get();
    if !r.skip_non_protocol_lines && !r.skip_unmatched_ids {
        return false;
    }
    let parsed = serde_json::from_slice::<Value>(line).ok();
    let object = parsed.as_ref().and_then(Value::as_object);
    if r.skip_non_protocol_lines && !object.is_some_and(|o| o.contains_key("jsonrpc")) {
        eprintln!("ctk-ahp-harness: a line that is not JSON-RPC skipped");
        return true;
    }
    if r.skip_unmatched_ids && object.is_some_and(|o| o.get("id") != request.get("id")) {
        eprintln!("ctk-ahp-harness: a reply of another id skipped");
        return true;
    }
    false
}

/// Read LF-terminated lines of at most [`MAX_FRAME_BYTES`].
async fn read_lines(
    mut out: impl AsyncRead + Unpin,
    tx: mpsc::Sender<Incoming>,
    dead: Arc<AtomicBool>,
) {
    let mut pending = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = match out.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&chunk[..n]);
        while let Some(i) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=i).take(i).collect();
            if tx.send(Incoming::Line(line)).await.is_err() {
                return;
            }
        }
        if pending.len() > MAX_FRAME_BYTES {
            let _ = tx.send(Incoming::TooLong).await;
            return;
        }
    }
    dead.store(true, Ordering::SeqCst);
    let _ = tx.send(Incoming::Eof).await;
}

/// Read all of `out` into `buf`, failing past `max` bytes.
async fn read_bounded(
    mut out: impl AsyncRead + Unpin,
    buf: &Mutex<Vec<u8>>,
    max: usize,
) -> Result<(), Failure> {
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = match out.read(&mut chunk).await {
            Ok(0) | Err(_) => return Ok(()),
            Ok(n) => n,
        };
        let mut b = buf.lock().unwrap_or_else(|p| p.into_inner());
        b.extend_from_slice(&chunk[..n]);
        if b.len() > max {
            return Err(Failure::TooLarge(max));
        }
    }
}

/// The one reply frame in a per-event process's complete stdout (lines
/// the readings skip left out first).
fn one_frame(out: &[u8], request: &Value) -> Result<Option<Vec<u8>>, Failure> {
    let r = readings::get();
    if r.skip_non_protocol_lines || r.skip_unmatched_ids {
        let kept: Vec<&[u8]> = out
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty() && !skipped(l, request))
            .collect();
        return match kept.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one.to_vec())),
            _ => Err(Failure::ExtraOutput),
        };
    }
    let body = out.strip_suffix(b"\n").unwrap_or(out);
    if body.is_empty() {
        return Ok(None);
    }
    if body.contains(&b'\n') {
        return Err(Failure::ExtraOutput);
    }
    Ok(Some(body.to_vec()))
}

/// One intercept exchange with a per-event process, bounded by `deadline`.
pub async fn per_event_intercept(
    launch: &Launch,
    sent: Sent<'_>,
    frame: Vec<u8>,
    deadline: Instant,
    timeout_ms: u64,
) -> Result<Decision, Failure> {
    let request = sent.request;
    let Spawned {
        mut child,
        mut stdin,
        stdout,
        mut group,
    } = process::spawn(launch).map_err(|e| Failure::Launch(e.to_string()))?;
    let out = Mutex::new(Vec::new());
    let exchange = async {
        let write = async {
            // A process that exits without reading makes the write fail;
            // its exit status and missing reply then decide.
            let _ = write_frame(&mut stdin, frame).await;
            let _ = stdin.shutdown().await;
            drop(stdin);
        };
        let (_, read, status) = tokio::join!(
            write,
            read_bounded(stdout, &out, MAX_FRAME_BYTES),
            child.wait()
        );
        (read, status)
    };
    let finished = timeout_at(deadline, exchange).await;
    group.kill();
    let out = out.into_inner().unwrap_or_else(|p| p.into_inner());
    let Ok((read, status)) = finished else {
        // D-02: a valid deny already written stands; anything else is the
        // deadline failing.
        if let Ok(Some(f)) = one_frame(&out, request) {
            if let Ok(d @ Decision::Deny { .. }) = classify(sent, &f) {
                return Ok(d);
            }
        }
        return Err(Failure::Timeout(timeout_ms));
    };
    read?;
    let status = status.map_err(|e| Failure::Exited(e.to_string()))?;
    let decision = match one_frame(&out, request)? {
        None if status.success() => return Err(Failure::NoReply),
        None => return Err(Failure::Exited(status.to_string())),
        Some(f) => classify(sent, &f),
    };
    match decision {
        // Reading (b) of D-02: the literal rule, any nonzero exit is an
        // operational failure, a valid deny included.
        Ok(Decision::Deny { .. }) if !status.success() && readings::get().exit_fails_deny => {
            Err(Failure::Exited(status.to_string()))
        }
        // D-02 (c): an explicit deny is never downgraded to a failure.
        Ok(d @ Decision::Deny { .. }) => Ok(d),
        _ if !status.success() => Err(Failure::Exited(status.to_string())),
        other => other,
    }
}

/// Deliver one notification to a per-event process: one frame, EOF, then
/// wait (bounded) for it to exit; its status is only logged (spec 17.3).
/// Under the notification-retry reading a failed delivery (no launch, a
/// nonzero exit) is made once more.
pub async fn per_event_notify(launch: Launch, frame: Vec<u8>) {
    if !per_event_notify_once(&launch, frame.clone()).await && readings::get().retry_notifications {
        eprintln!(
            "ctk-ahp-harness: observer {}: retrying the notification once",
            launch.backend
        );
        per_event_notify_once(&launch, frame).await;
    }
}

/// One attempt of [`per_event_notify`]: whether it was delivered (the
/// process ran and exited 0 in time).
async fn per_event_notify_once(launch: &Launch, frame: Vec<u8>) -> bool {
    let Spawned {
        mut child,
        mut stdin,
        stdout,
        mut group,
    } = match process::spawn(launch) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "ctk-ahp-harness: observer {}: launch failed: {e}",
                launch.backend
            );
            return false;
        }
    };
    let sink = Mutex::new(Vec::new());
    let run = async {
        let write = async {
            let _ = write_frame(&mut stdin, frame).await;
            let _ = stdin.shutdown().await;
            drop(stdin);
        };
        let (_, _, status) = tokio::join!(
            write,
            read_bounded(stdout, &sink, MAX_FRAME_BYTES),
            child.wait()
        );
        status
    };
    let delivered = match timeout(OBSERVE_BOUND, run).await {
        Ok(Ok(s)) if !s.success() => {
            eprintln!(
                "ctk-ahp-harness: observer {} exited: {s} (ignored)",
                launch.backend
            );
            false
        }
        Ok(r) => r.is_ok(),
        Err(_) => {
            eprintln!(
                "ctk-ahp-harness: observer {} outlived its bound; killed",
                launch.backend
            );
            false
        }
    };
    group.kill();
    delivered
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Vec<u8> {
        text.as_bytes().to_vec()
    }

    /// The line `w` was handed next, if any.
    fn next(w: &mut Waiting) -> Option<String> {
        match w.rx.try_recv() {
            Ok(Incoming::Line(l)) => Some(String::from_utf8(l).unwrap()),
            Ok(other) => Some(format!("{other:?}")),
            Err(_) => None,
        }
    }

    #[test]
    fn a_demux_hands_each_reply_to_its_own_request() {
        let demux = Arc::new(Demux::default());
        let mut a = demux.join(Value::from("a"));
        let mut b = demux.join(Value::from("b"));
        // By id, whatever the order, never to the other request.
        demux.route(line(r#"{"jsonrpc":"2.0","id":"b","result":{}}"#));
        demux.route(line(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#));
        assert!(next(&mut b).unwrap().contains(r#""id":"b""#));
        assert!(next(&mut a).unwrap().contains(r#""id":"a""#));
        assert_eq!(next(&mut a), None);
        assert_eq!(next(&mut b), None);
        // A line naming nobody goes to the oldest, which judges it.
        demux.route(line("not json"));
        demux.route(line(r#"{"id":"expired"}"#));
        assert_eq!(next(&mut a).as_deref(), Some("not json"));
        assert_eq!(next(&mut a).as_deref(), Some(r#"{"id":"expired"}"#));
        assert_eq!(next(&mut b), None);
        // A request that left hears nothing more.
        drop(a);
        demux.route(line(r#"{"id":"a"}"#));
        assert_eq!(next(&mut b).as_deref(), Some(r#"{"id":"a"}"#));
        drop(b);
        demux.route(line(r#"{"id":"b"}"#));
        assert!(demux.lock().pending.is_empty());
        // The end of stdout reaches everyone waiting, and later joiners
        // hear nothing at once.
        let mut c = demux.join(Value::from("c"));
        demux.close(Some(Incoming::Eof));
        assert_eq!(next(&mut c).as_deref(), Some("Eof"));
        assert!(matches!(
            c.rx.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
        let mut d = demux.join(Value::from("d"));
        assert!(matches!(
            d.rx.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
    }
}
