//! The host process: spawned in its own process group, killed with its
//! whole group and every process it left behind (`ctk_support::process`) when it ends; stdout
//! read line by line by a task of its own within a byte budget, stdin written
//! by another task from a queue (so that reading never waits for writing),
//! stderr drained continuously into a bounded ring buffer.

use std::collections::{BTreeSet, VecDeque};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use ctk_support::process::{self, Tagged};

use super::tap::{WireEvent, WireTap};
use super::StdioHostConfig;
use crate::wire::codec::{CodecError, LineReader};

/// Process groups of every live host, for [`kill_all_hosts`].
static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn live_groups() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The environment variable that tags a host and its descendants. Its value
/// is `<runner pid>:<sequence>`; hosts must not rely on it.
pub(crate) const TOKEN_ENV: &str = "CTK_HOST_INSTANCE";

/// Every process that carries a host token of this runner.
const ANY_HOST: Tagged<'static> = Tagged::AnyFromHere { var: TOKEN_ENV };

fn kill_group(pgid: i32) {
    process::kill_group(pgid.unsigned_abs());
}

/// Kill every host process group this process started and has not yet
/// reaped, with SIGKILL. Safe to call from a Ctrl-C handler task, any number
/// of times; the harnesses whose hosts die report harness errors afterwards.
/// On Linux every process a host left behind dies too, even one that left
/// the host's process group.
pub fn kill_all_hosts() {
    let groups: BTreeSet<i32> = live_groups().clone();
    process::will_reap(kill_hosts_and_leftovers(&groups));
    process::reap_leftovers_later(Duration::from_secs(1));
}

/// Kill every live host group, and every process a host of this runner
/// left behind; the killed pids that are not hosts.
fn kill_hosts_and_leftovers(groups: &BTreeSet<i32>) -> Vec<i32> {
    let mut killed = Vec::new();
    for &pgid in groups {
        // A host's group id is its pid.
        killed.extend(process::kill_leftovers(
            u32::try_from(pgid).ok(),
            ANY_HOST,
            groups,
        ));
        kill_group(pgid);
    }
    // Leftovers of hosts already ended, orphaned below this process: at
    // exit they would be reparented to init and live on.
    killed.extend(process::kill_leftovers(None, ANY_HOST, groups));
    killed
}

extern "C" fn kill_all_hosts_at_exit() {
    // Never block at exit: a thread holding the lock simply wins the race.
    // Nothing is reaped: the process is going.
    let Ok(groups) = LIVE_GROUPS.try_lock() else {
        return;
    };
    let _ = kill_hosts_and_leftovers(&groups);
}

/// Kill every live host group when the runner exits, even through
/// `std::process::exit`, which runs no destructors.
#[expect(
    unsafe_code,
    reason = "atexit has no safe wrapper; the handler only reads /proc and sends signals"
)]
fn kill_hosts_at_exit() {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: the handler is a plain `extern "C" fn` that takes no locks
        // it could wait on (only a `try_lock`), reads `/proc` and sends
        // signals.
        unsafe {
            libc::atexit(kill_all_hosts_at_exit);
        }
    });
}

/// What the stdout reader saw.
#[derive(Debug)]
enum Incoming {
    /// A complete line.
    Line(String),
    /// Reading failed (oversized line, bad UTF-8, I/O); nothing follows.
    Failed(CodecError),
    /// The host closed stdout.
    Eof,
}

/// What the host did, as [`HostProcess::next_event`] reports it.
#[derive(Debug)]
pub(crate) enum Event {
    /// A complete stdout line.
    Line(String),
    /// Reading stdout failed (oversized line, bad UTF-8, I/O).
    Failed(CodecError),
    /// The host is gone (it exited, or closed stdout or stdin and was
    /// reaped or killed); the exit status as text.
    Gone {
        /// The exit status as text.
        status: String,
    },
}

/// A line for the host's stdin.
#[derive(Debug)]
struct Outgoing {
    line: String,
    /// For a callback answer, the call whose run it belongs to: once that
    /// call is over the answer is dropped, never written.
    answer_of: Option<u64>,
}

/// What the stdin writer and the session share.
#[derive(Debug, Default)]
struct WriterState {
    /// The call whose callback answers may be written; 0 for none.
    call: AtomicU64,
    /// Callback answers written so far.
    delivered: AtomicUsize,
}

/// The open call, as [`HostProcess::begin_call`] starts it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallTicket {
    call: u64,
    delivered_before: usize,
}

/// What one queued line costs of the stdout byte budget: its bytes and a
/// little for its bookkeeping, within the budget so that any line fits.
fn line_cost(event: &Incoming, budget: u32) -> u32 {
    let bytes = match event {
        Incoming::Line(line) => line.len().saturating_add(64),
        Incoming::Failed(_) | Incoming::Eof => 1,
    };
    u32::try_from(bytes).unwrap_or(u32::MAX).min(budget)
}

/// The last lines of the host's stderr, bounded in lines and bytes.
#[derive(Debug)]
pub(crate) struct StderrRing {
    inner: Mutex<Ring>,
}

#[derive(Debug)]
struct Ring {
    lines: VecDeque<String>,
    bytes: usize,
    max_lines: usize,
    max_bytes: usize,
}

impl StderrRing {
    pub(crate) fn new(max_lines: usize, max_bytes: usize) -> Self {
        Self {
            inner: Mutex::new(Ring {
                lines: VecDeque::new(),
                bytes: 0,
                max_lines,
                max_bytes,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn push(&self, line: String) {
        let mut ring = self.lock();
        if ring.max_lines == 0 {
            return;
        }
        ring.bytes += line.len();
        ring.lines.push_back(line);
        while ring.lines.len() > ring.max_lines
            || (ring.bytes > ring.max_bytes && ring.lines.len() > 1)
        {
            if let Some(old) = ring.lines.pop_front() {
                ring.bytes -= old.len();
            }
        }
    }

    /// The kept lines, oldest first.
    pub(crate) fn tail(&self) -> Vec<String> {
        self.lock().lines.iter().cloned().collect()
    }
}

/// A running host.
pub(crate) struct HostProcess {
    child: Child,
    pgid: Option<i32>,
    /// The value of [`TOKEN_ENV`] the host and its descendants carry.
    token: String,
    /// Lines for the stdin writer; `None` once stdin is being closed.
    outgoing: Option<mpsc::UnboundedSender<Outgoing>>,
    writer: Arc<WriterState>,
    /// The stdin writer's failure, while it may still come.
    write_failed: Option<oneshot::Receiver<std::io::Error>>,
    next_call: u64,
    /// Stdout lines, each holding its share of the byte budget until taken.
    incoming: mpsc::UnboundedReceiver<(Incoming, OwnedSemaphorePermit)>,
    /// When the host's own process exited, the end of the wait for the rest
    /// of its stdout.
    exited_until: Option<Instant>,
    pub(crate) stderr: Arc<StderrRing>,
    stderr_task: Option<JoinHandle<()>>,
    reader_task: JoinHandle<()>,
    writer_task: JoinHandle<()>,
    grace: Duration,
}

impl std::fmt::Debug for HostProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostProcess")
            .field("pgid", &self.pgid)
            .finish_non_exhaustive()
    }
}

impl HostProcess {
    /// Start the host in a new process group, tagged with a token of its own.
    pub(crate) fn spawn(config: &StdioHostConfig) -> std::io::Result<HostProcess> {
        let token = process::new_token();
        let mut cmd = Command::new(&config.program);
        cmd.args(&config.args)
            .envs(config.env.iter().map(|(k, v)| (k, v)))
            .env(TOKEN_ENV, &token)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = &config.current_dir {
            cmd.current_dir(dir);
        }
        kill_hosts_at_exit();
        process::become_subreaper_once();
        let mut child = cmd.spawn()?;
        let pgid = child.id().and_then(|pid| i32::try_from(pid).ok());
        let tap = config.tap.clone();
        if let Some(tap) = &tap {
            tap.record(WireEvent::Started { pid: child.id() });
        }
        if let Some(pgid) = pgid {
            live_groups().insert(pgid);
        }
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        widen(&stdin);
        widen(&stdout);
        let stderr = child.stderr.take().expect("stderr is piped");

        // Lines read but not yet taken hold at most `max_line_bytes` between
        // them (plus the one line being read), however short they are.
        let budget = u32::try_from(config.max_line_bytes.max(1)).unwrap_or(u32::MAX);
        let permits = Arc::new(Semaphore::new(budget as usize));
        let (tx, incoming) = mpsc::unbounded_channel();
        let limit = config.max_line_bytes;
        let reader_tap = tap.clone();
        let reader_task = tokio::spawn(async move {
            let mut reader = LineReader::new(stdout, limit);
            loop {
                let event = match reader.next_line().await {
                    Ok(Some(line)) => Incoming::Line(line),
                    Ok(None) => Incoming::Eof,
                    Err(e) => Incoming::Failed(e),
                };
                if let Some(tap) = &reader_tap {
                    match &event {
                        Incoming::Line(line) => tap.record(WireEvent::FromHost(line)),
                        Incoming::Failed(e) => tap.record(WireEvent::Unreadable(&e.to_string())),
                        Incoming::Eof => {}
                    }
                }
                let last = !matches!(event, Incoming::Line(_));
                let cost = line_cost(&event, budget);
                let Ok(permit) = Arc::clone(&permits).acquire_many_owned(cost).await else {
                    return;
                };
                if tx.send((event, permit)).is_err() || last {
                    return;
                }
            }
        });

        let writer = Arc::new(WriterState::default());
        let (outgoing, queue) = mpsc::unbounded_channel();
        let (failed_tx, write_failed) = oneshot::channel();
        let writer_task = tokio::spawn(write_stdin(
            stdin,
            queue,
            Arc::clone(&writer),
            failed_tx,
            tap,
        ));

        let ring = Arc::new(StderrRing::new(config.stderr_lines, config.stderr_bytes));
        let keep = config.stderr_bytes.clamp(1, 8 * 1024);
        let sink = Arc::clone(&ring);
        let stderr_task = tokio::spawn(async move {
            let mut reader = LineReader::new(stderr, keep);
            while let Ok(Some((mut line, cut))) = reader.next_line_truncated(keep).await {
                if cut {
                    line.push_str(" [line cut]");
                }
                sink.push(line);
            }
        });

        Ok(HostProcess {
            child,
            pgid,
            token,
            outgoing: Some(outgoing),
            writer,
            write_failed: Some(write_failed),
            next_call: 1,
            incoming,
            exited_until: None,
            stderr: ring,
            stderr_task: Some(stderr_task),
            reader_task,
            writer_task,
            grace: config.exit_grace,
        })
    }

    /// The process id, until the process is reaped.
    pub(crate) fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Start a call: callback answers of earlier calls still queued are
    /// dropped from now on.
    pub(crate) fn begin_call(&mut self) -> CallTicket {
        let call = self.next_call;
        self.next_call += 1;
        self.writer.call.store(call, Ordering::SeqCst);
        CallTicket {
            call,
            delivered_before: self.writer.delivered.load(Ordering::SeqCst),
        }
    }

    /// End the call: its callback answers still queued are never written.
    pub(crate) fn end_call(&mut self) {
        self.writer.call.store(0, Ordering::SeqCst);
    }

    /// Callback answers of the call written to the host so far.
    pub(crate) fn delivered(&self, ticket: CallTicket) -> usize {
        self.writer
            .delivered
            .load(Ordering::SeqCst)
            .saturating_sub(ticket.delivered_before)
    }

    /// Queue a request line; never waits. `false` when stdin is closed.
    pub(crate) fn send_request(&mut self, line: String) -> bool {
        self.queue(Outgoing {
            line,
            answer_of: None,
        })
    }

    /// Queue a callback answer of the call; never waits.
    pub(crate) fn send_answer(&mut self, line: String, ticket: CallTicket) {
        let _ = self.queue(Outgoing {
            line,
            answer_of: Some(ticket.call),
        });
    }

    fn queue(&mut self, out: Outgoing) -> bool {
        self.outgoing
            .as_ref()
            .is_some_and(|tx| tx.send(out).is_ok())
    }

    /// The next thing the host did: a stdout line, a read failure, or its
    /// end. Cancel-safe. When the host's process exits, the lines it wrote
    /// before are still read, but end of file is waited for only up to the
    /// grace period, and only after the processes it left behind are
    /// killed: one of them may hold stdout open.
    pub(crate) async fn next_event(&mut self) -> Event {
        loop {
            let exited_until = self.exited_until;
            tokio::select! {
                biased;
                got = self.incoming.recv() => {
                    return match got.map(|(event, _permit)| event) {
                        Some(Incoming::Line(line)) => Event::Line(line),
                        Some(Incoming::Failed(e)) => Event::Failed(e),
                        Some(Incoming::Eof) | None => Event::Gone { status: self.reap().await },
                    };
                }
                _ = self.child.wait(), if exited_until.is_none() => {
                    self.kill_leftovers();
                    self.exited_until = Some(Instant::now() + self.grace);
                }
                () = sleep_until_some(exited_until) => {
                    return Event::Gone { status: self.reap().await };
                }
                _ = writer_failure(&mut self.write_failed) => {
                    // The host closed its stdin (or is gone): reap it.
                    return Event::Gone { status: self.reap().await };
                }
            }
        }
    }

    /// Kill every process the host left behind (not the host itself).
    fn kill_leftovers(&self) {
        let keep: BTreeSet<i32> = live_groups().clone();
        process::will_reap(process::kill_leftovers(
            self.child.id(),
            Tagged::Token {
                var: TOKEN_ENV,
                token: &self.token,
            },
            &keep,
        ));
    }

    fn kill(&mut self) {
        self.kill_leftovers();
        if let Some(pgid) = self.pgid {
            kill_group(pgid);
        }
        let _ = self.child.start_kill();
    }

    /// The host is reaped: kill what is left of its group and of its
    /// descendants, and forget it.
    fn forget_group(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
            live_groups().remove(&pgid);
        }
        self.kill_leftovers();
    }

    /// Wait up to the grace period for stderr to reach its end, so that the
    /// tail holds the host's last words, then reap the leftovers killed.
    async fn drain_stderr(&mut self) {
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(self.grace, task).await;
        }
        process::reap_leftovers(self.grace).await;
    }

    /// Kill the host, its group and its leftovers now; the exit status as
    /// text.
    pub(crate) async fn terminate(&mut self) -> String {
        self.kill();
        let status = match tokio::time::timeout(self.grace, self.child.wait()).await {
            Ok(Ok(status)) => status.to_string(),
            Ok(Err(e)) => format!("unknown ({e})"),
            Err(_) => "did not die after SIGKILL".to_owned(),
        };
        self.forget_group();
        self.drain_stderr().await;
        status
    }

    /// The host closed stdout or its stdin, or exited: wait for it to exit,
    /// killing it if it does not within the grace period; the exit status
    /// as text.
    pub(crate) async fn reap(&mut self) -> String {
        let status = match tokio::time::timeout(self.grace, self.child.wait()).await {
            Ok(Ok(status)) => status.to_string(),
            Ok(Err(e)) => format!("unknown ({e})"),
            Err(_) => {
                let killed = self.terminate().await;
                return format!("closed its output but kept running; killed ({killed})");
            }
        };
        self.forget_group();
        self.drain_stderr().await;
        status
    }

    /// Close stdin once the queued lines are written, wait up to the grace
    /// period for a clean exit, then kill.
    pub(crate) async fn close(&mut self) {
        self.outgoing = None;
        if tokio::time::timeout(self.grace, self.child.wait())
            .await
            .is_err()
        {
            self.kill();
            let _ = tokio::time::timeout(self.grace, self.child.wait()).await;
        }
        self.forget_group();
        process::reap_leftovers(self.grace).await;
    }
}

/// The size the runner asks for each of a host's stdin and stdout pipes.
const PIPE_BYTES: usize = 1 << 18;

/// Ask for a pipe of [`PIPE_BYTES`] instead of the kernel's 64 KiB: a line
/// of megabytes then crosses in far fewer waits, where each 64 KiB took a
/// wake-up of the reader and then of the writer (a 5 MiB context took 80 of
/// them; issue 30). 256 KiB ran the megabyte vectors as fast as 1 MiB did,
/// at a quarter of the pages the kernel charges the user for each pipe
/// (`fs.pipe-user-pages-soft`; past it, every new pipe of the user shrinks).
/// Best effort: where the kernel refuses (a lower `fs.pipe-max-size`, the
/// user's pipe pages spent) the pipe keeps its size, and only speed differs.
#[cfg(target_os = "linux")]
fn widen(pipe: &impl std::os::fd::AsFd) {
    let _ = rustix::pipe::fcntl_setpipe_size(pipe, PIPE_BYTES);
}

/// Pipe sizes are Linux's to set.
#[cfg(not(target_os = "linux"))]
fn widen<T>(_pipe: &T) {}

/// Sleep until `at`; never, for `None`.
async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The stdin writer's failure; pending while it has none (and forever once
/// it ended without one).
async fn writer_failure(slot: &mut Option<oneshot::Receiver<std::io::Error>>) -> std::io::Error {
    if let Some(rx) = slot.as_mut() {
        let got = rx.await;
        *slot = None;
        if let Ok(e) = got {
            return e;
        }
    }
    std::future::pending().await
}

/// Write queued lines to the host's stdin, in order, until the queue closes
/// (then stdin closes with it) or a write fails (reported on `failed`).
async fn write_stdin(
    mut stdin: ChildStdin,
    mut queue: mpsc::UnboundedReceiver<Outgoing>,
    state: Arc<WriterState>,
    failed: oneshot::Sender<std::io::Error>,
    tap: Option<Arc<dyn WireTap>>,
) {
    while let Some(out) = queue.recv().await {
        if let Some(call) = out.answer_of {
            if state.call.load(Ordering::SeqCst) != call {
                continue; // its run is over: the callback is abandoned
            }
        }
        if let Some(tap) = &tap {
            tap.record(WireEvent::ToHost(&out.line));
        }
        let mut buf = out.line.into_bytes();
        buf.push(b'\n');
        let written = async {
            stdin.write_all(&buf).await?;
            stdin.flush().await
        };
        if let Err(e) = written.await {
            let _ = failed.send(e);
            return;
        }
        if out.answer_of.is_some() {
            state.delivered.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Drop for HostProcess {
    fn drop(&mut self) {
        self.reader_task.abort();
        self.writer_task.abort();
        if let Some(task) = &self.stderr_task {
            task.abort();
        }
        if self.pgid.is_some() {
            self.kill();
            self.forget_group();
        }
        // tokio reaps the host itself (kill_on_drop); the leftovers are ours.
        process::reap_leftovers_later(self.grace);
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    use std::os::unix::fs::OpenOptionsExt as _;

    use super::*;

    /// Lines read but not taken are bounded in bytes by the line limit, not
    /// in count: with 1 MiB lines, the host gets at most two lines (one
    /// queued, one in the reader's hands) and part of a third (in the pipe)
    /// past the runner before it blocks.
    #[tokio::test]
    async fn unread_stdout_is_bounded_by_the_line_limit_in_bytes() {
        let mut config = StdioHostConfig::new("sh");
        config.args = vec![
            "-c".into(),
            "i=0; while [ $i -lt 40 ]; do i=$((i+1)); \
             head -c 1000000 /dev/zero | tr '\\0' x; echo; echo \"wrote $i\" >&2; done; sleep 30"
                .into(),
        ];
        config.max_line_bytes = 1024 * 1024;
        let host = HostProcess::spawn(&config).expect("sh starts");
        // Nothing takes the lines: wait until the host is stuck writing.
        let mut last = 0;
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            last = host
                .stderr
                .tail()
                .iter()
                .filter_map(|l| l.strip_prefix("wrote ")?.parse::<u32>().ok())
                .max()
                .unwrap_or(0);
        }
        assert!(last >= 1, "the host wrote no line");
        assert!(last <= 3, "{last} lines of 1 MB were taken off the host");
    }

    /// The host's stdin and stdout are pipes of [`PIPE_BYTES`], read
    /// through the host's own descriptors (`/proc/PID/fd`), where the kernel
    /// allows that size.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn host_pipes_are_widened() {
        // A kernel whose `fs.pipe-max-size` is lower, or a user past
        // `fs.pipe-user-pages-soft`, gets no wider pipe: skipped visibly,
        // straight to the stderr handle (`eprintln!` would be captured and
        // hidden for a passing test).
        let (probe, _writer) = rustix::pipe::pipe().expect("a pipe");
        if let Err(e) = rustix::pipe::fcntl_setpipe_size(&probe, PIPE_BYTES) {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED (the kernel refuses this user a pipe of {PIPE_BYTES} bytes: {e})"
            );
            return;
        }
        let mut config = StdioHostConfig::new("sh");
        config.args = vec!["-c".into(), "sleep 30".into()];
        let host = HostProcess::spawn(&config).expect("sh starts");
        let pid = host.id().expect("the host runs");
        for fd in [0, 1] {
            let pipe = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(format!("/proc/{pid}/fd/{fd}"))
                .expect("the host's pipe opens through /proc");
            let size = rustix::pipe::fcntl_getpipe_size(&pipe).expect("a pipe has a size");
            assert_eq!(size, PIPE_BYTES, "the host's fd {fd}");
        }
    }

    #[test]
    fn ring_keeps_the_last_lines_within_bytes() {
        let ring = StderrRing::new(3, 10);
        for l in ["a", "b", "c", "d"] {
            ring.push(l.into());
        }
        assert_eq!(ring.tail(), vec!["b", "c", "d"]);
        ring.push("0123456789".into());
        assert_eq!(ring.tail(), vec!["0123456789"]);
    }
}
