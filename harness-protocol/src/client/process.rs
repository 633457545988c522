//! The host process: spawned in its own process group, killed with its
//! whole group on drop, stdout read line by line within the limit, stderr
//! drained continuously into a bounded ring buffer.

use std::collections::{BTreeSet, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::StdioHarnessConfig;
use crate::wire::codec::{CodecError, LineReader};

/// Process groups of every live host, for [`kill_all_hosts`].
static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn live_groups() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[expect(
    unsafe_code,
    reason = "killpg has no safe wrapper in std; the call has no memory effects"
)]
fn kill_group(pgid: i32) {
    // SAFETY: killpg only sends a signal; a stale group id fails with ESRCH.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Kill every host process group this process started and has not yet
/// reaped, with SIGKILL. Safe to call from a Ctrl-C handler task, any number
/// of times; the harnesses whose hosts die report harness errors afterwards.
pub fn kill_all_hosts() {
    let groups: Vec<i32> = live_groups().iter().copied().collect();
    for pgid in groups {
        kill_group(pgid);
    }
}

extern "C" fn kill_all_hosts_at_exit() {
    // Never block at exit: a thread holding the lock simply wins the race.
    let Ok(groups) = LIVE_GROUPS.try_lock() else {
        return;
    };
    for pgid in groups.iter().copied() {
        kill_group(pgid);
    }
}

/// Kill every live host group when the runner exits, even through
/// `std::process::exit`, which runs no destructors.
#[expect(
    unsafe_code,
    reason = "atexit has no safe wrapper; the handler only sends signals"
)]
fn kill_hosts_at_exit() {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: the handler is a plain `extern "C" fn` that takes no locks
        // it could wait on and only calls killpg.
        unsafe {
            libc::atexit(kill_all_hosts_at_exit);
        }
    });
}

/// What the stdout reader saw.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A complete line.
    Line(String),
    /// Reading failed (oversized line, bad UTF-8, I/O); nothing follows.
    Failed(CodecError),
    /// The host closed stdout.
    Eof,
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
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) incoming: mpsc::Receiver<Incoming>,
    pub(crate) stderr: Arc<StderrRing>,
    stderr_task: Option<JoinHandle<()>>,
    reader_task: JoinHandle<()>,
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
    /// Start the host in a new process group.
    pub(crate) fn spawn(config: &StdioHarnessConfig) -> std::io::Result<HostProcess> {
        let mut cmd = Command::new(&config.program);
        cmd.args(&config.args)
            .envs(config.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = &config.current_dir {
            cmd.current_dir(dir);
        }
        kill_hosts_at_exit();
        let mut child = cmd.spawn()?;
        let pgid = child.id().and_then(|pid| i32::try_from(pid).ok());
        if let Some(pgid) = pgid {
            live_groups().insert(pgid);
        }
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");

        let (tx, incoming) = mpsc::channel(16);
        let limit = config.max_line_bytes;
        let reader_task = tokio::spawn(async move {
            let mut reader = LineReader::new(stdout, limit);
            loop {
                let event = match reader.next_line().await {
                    Ok(Some(line)) => Incoming::Line(line),
                    Ok(None) => Incoming::Eof,
                    Err(e) => Incoming::Failed(e),
                };
                let last = !matches!(event, Incoming::Line(_));
                if tx.send(event).await.is_err() || last {
                    return;
                }
            }
        });

        let ring = Arc::new(StderrRing::new(config.stderr_lines, config.stderr_bytes));
        let keep = config.stderr_bytes.clamp(1, 8 * 1024);
        let sink = Arc::clone(&ring);
        let stderr_task = tokio::spawn(async move {
            let mut reader = LineReader::new(stderr, usize::MAX);
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
            stdin,
            incoming,
            stderr: ring,
            stderr_task: Some(stderr_task),
            reader_task,
            grace: config.exit_grace,
        })
    }

    /// The process id, until the process is reaped.
    pub(crate) fn id(&self) -> Option<u32> {
        self.child.id()
    }

    fn kill(&mut self) {
        if let Some(pgid) = self.pgid {
            kill_group(pgid);
        }
        let _ = self.child.start_kill();
    }

    fn forget_group(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
            live_groups().remove(&pgid);
        }
    }

    /// Wait up to the grace period for stderr to reach its end, so that the
    /// tail holds the host's last words.
    async fn drain_stderr(&mut self) {
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(self.grace, task).await;
        }
    }

    /// Kill the host and its group now; the exit status as text.
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

    /// The host closed stdout or its stdin: wait for it to exit, killing it
    /// if it does not within the grace period; the exit status as text.
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

    /// Close stdin, wait up to the grace period for a clean exit, then kill.
    pub(crate) async fn close(&mut self) {
        self.stdin = None;
        if tokio::time::timeout(self.grace, self.child.wait())
            .await
            .is_err()
        {
            self.kill();
            let _ = tokio::time::timeout(self.grace, self.child.wait()).await;
        }
        self.forget_group();
    }
}

impl Drop for HostProcess {
    fn drop(&mut self) {
        self.reader_task.abort();
        if let Some(task) = &self.stderr_task {
            task.abort();
        }
        if self.pgid.is_some() {
            self.kill();
            self.forget_group();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
