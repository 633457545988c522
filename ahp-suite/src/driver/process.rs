//! One backend process: started in a process group of its own and tagged
//! with a token its descendants inherit; stdout read by a task into lines
//! within a byte budget; stderr drained into a bounded tail; ended (or
//! dropped) by killing the group and every process carrying the token, so
//! a backend that hangs, floods, forks or calls `setsid` leaves nothing
//! behind.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ctk_support::lines::{Frame, Framer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The environment variable that tags a backend and its descendants, so
/// that a descendant which left the process group is still found.
pub(crate) const TOKEN_ENV: &str = "CTK_AHP_BACKEND_INSTANCE";

/// What the stdout reader saw.
#[derive(Debug)]
pub(crate) enum OutEvent {
    /// One line (or the unterminated tail at end of file).
    Line {
        bytes: Vec<u8>,
        len: usize,
        terminated: bool,
        cut: bool,
        at: Instant,
    },
    /// Stdout reached end of file.
    Eof,
    /// Stdout exceeded the byte budget; reading stopped.
    Flood,
}

/// How to start a backend process.
#[derive(Debug, Clone)]
pub(crate) struct Spawn {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(OsString, OsString)>,
    pub max_line_bytes: usize,
    pub max_stdout_bytes: u64,
    pub stderr_tail_bytes: usize,
}

/// A running backend process.
pub(crate) struct Backend {
    child: Child,
    pid: Option<u32>,
    token: String,
    stdin: Option<ChildStdin>,
    events: mpsc::UnboundedReceiver<OutEvent>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    flooded: Arc<AtomicBool>,
    eof: bool,
    ended: bool,
}

fn new_token() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}:{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

impl Backend {
    /// Start the process; the error message is the OS's.
    pub(crate) fn spawn(spec: &Spawn) -> std::io::Result<Backend> {
        leftovers::become_subreaper_once();
        let token = new_token();
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0)
            .env(TOKEN_ENV, &token);
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        if let Some(cwd) = &spec.cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd.spawn()?;
        let pid = child.id();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        let (tx, events) = mpsc::unbounded_channel();
        let flooded = Arc::new(AtomicBool::new(false));
        tokio::spawn(read_lines(
            stdout,
            tx,
            spec.max_line_bytes,
            spec.max_stdout_bytes,
            flooded.clone(),
        ));
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        tokio::spawn(drain_tail(
            stderr_pipe,
            stderr.clone(),
            spec.stderr_tail_bytes,
        ));
        Ok(Backend {
            child,
            pid,
            token,
            stdin,
            events,
            stderr,
            flooded,
            eof: false,
            ended: false,
        })
    }

    /// The OS pid.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Write `text` and a newline to stdin within `limit`, in `pieces`
    /// byte pieces 20 ms apart (1: at once).
    pub(crate) async fn write_line(
        &mut self,
        text: &str,
        pieces: u8,
        limit: Duration,
    ) -> Result<(), String> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err("stdin is already closed".to_owned());
        };
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        let size = bytes.len().div_ceil(usize::from(pieces.max(1))).max(1);
        match tokio::time::timeout(limit, async {
            for (k, piece) in bytes.chunks(size).enumerate() {
                if k > 0 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                stdin.write_all(piece).await?;
                stdin.flush().await?;
            }
            Ok::<(), std::io::Error>(())
        })
        .await
        {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!("writing to stdin failed: {e}")),
            Err(_) => Err(format!(
                "writing to stdin did not finish within {} ms (the backend does not read)",
                limit.as_millis()
            )),
        }
    }

    /// Close stdin (end of file for the backend).
    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next stdout event before `deadline`; `None` on timeout or when
    /// stdout already ended.
    pub(crate) async fn next_event(&mut self, deadline: Instant) -> Option<OutEvent> {
        if self.eof {
            return None;
        }
        match tokio::time::timeout_at(deadline, self.events.recv()).await {
            Ok(Some(ev)) => {
                if matches!(ev, OutEvent::Eof | OutEvent::Flood) {
                    self.eof = true;
                }
                Some(ev)
            }
            Ok(None) => {
                self.eof = true;
                Some(OutEvent::Eof)
            }
            Err(_) => None,
        }
    }

    /// Whether stdout ended (end of file or flood).
    pub(crate) fn stdout_ended(&self) -> bool {
        self.eof
    }

    /// Whether stdout exceeded the budget.
    pub(crate) fn flooded(&self) -> bool {
        self.flooded.load(Ordering::Relaxed)
    }

    /// End the process: close stdin, give it until `deadline` to exit by
    /// itself, then kill the group and every process carrying the token;
    /// always kill the leftovers (a daemon it forked), and reap.
    pub(crate) async fn end(&mut self, deadline: Instant) -> Ended {
        self.close_stdin();
        let mut killed = false;
        let status = match tokio::time::timeout_at(deadline, self.child.wait()).await {
            Ok(Ok(status)) => Some(status),
            _ => {
                killed = true;
                self.kill_all();
                tokio::time::timeout(Duration::from_secs(5), self.child.wait())
                    .await
                    .ok()
                    .and_then(Result::ok)
            }
        };
        // Descendants may outlive a backend that exited by itself.
        self.kill_all();
        leftovers::reap(Duration::from_millis(500)).await;
        self.ended = true;
        use std::os::unix::process::ExitStatusExt;
        Ended {
            exit_code: if killed {
                None
            } else {
                status.and_then(|s| s.code())
            },
            signal: status.and_then(|s| s.signal()),
            exited: !killed,
            killed,
        }
    }

    /// The last bytes of stderr, lossily decoded.
    pub(crate) fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        let bytes: Vec<u8> = tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn kill_all(&mut self) {
        if let Some(pid) = self.pid {
            leftovers::kill_group(pid);
        }
        leftovers::kill_tagged(&self.token);
        let _ = self.child.start_kill();
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        if !self.ended {
            self.kill_all();
        }
    }
}

/// How [`Backend::end`] found the process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ended {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub exited: bool,
    pub killed: bool,
}

async fn read_lines<R: AsyncRead + Unpin>(
    mut out: R,
    tx: mpsc::UnboundedSender<OutEvent>,
    max_line: usize,
    max_total: u64,
    flooded: Arc<AtomicBool>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut framer = Framer::new(max_line);
    let line = |frame: Frame| OutEvent::Line {
        cut: frame.cut(),
        terminated: frame.terminated,
        len: frame.len,
        bytes: frame.bytes,
        at: Instant::now(),
    };
    let mut total = 0u64;
    loop {
        let n = match out.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        total += n as u64;
        framer.push(&buf[..n], |frame| {
            let _ = tx.send(line(frame));
        });
        if total > max_total {
            flooded.store(true, Ordering::Relaxed);
            let _ = tx.send(OutEvent::Flood);
            return;
        }
    }
    if let Some(frame) = framer.finish() {
        let _ = tx.send(line(frame));
    }
    let _ = tx.send(OutEvent::Eof);
}

async fn drain_tail<R: AsyncRead + Unpin>(mut err: R, tail: Arc<Mutex<VecDeque<u8>>>, max: usize) {
    let mut buf = vec![0u8; 8 * 1024];
    loop {
        let n = match err.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
        t.extend(&buf[..n]);
        while t.len() > max {
            t.pop_front();
        }
    }
}

#[cfg(target_os = "linux")]
mod leftovers {
    //! Linux: the group kill plus a scan of `/proc` for the token, and
    //! reaping of the killed orphans that the subreaper bit made ours.

    use std::collections::BTreeSet;
    use std::sync::{Mutex, Once};
    use std::time::Duration;

    use rustix::process::WaitOptions;
    use rustix::process::{getpid, kill_process, kill_process_group, waitpid, Pid, Signal};

    use super::TOKEN_ENV;

    static KILLED: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

    pub(crate) fn become_subreaper_once() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // A container may forbid it; the token still finds orphans.
            let _ = ctk_harness_protocol::client::become_subreaper();
        });
    }

    pub(crate) fn kill_group(pid: u32) {
        if let Some(p) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
            let _ = kill_process_group(p, Signal::KILL);
        }
    }

    fn carries(pid: i32, token: &str) -> bool {
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            return false;
        };
        let want = format!("{TOKEN_ENV}={token}");
        environ.split(|b| *b == 0).any(|e| e == want.as_bytes())
    }

    fn live(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().next().map(str::to_owned))
            })
            .is_some_and(|state| state != "Z" && state != "X")
    }

    /// Kill every live process carrying `token`, in rounds (one may fork
    /// while the previous round kills).
    pub(crate) fn kill_tagged(token: &str) {
        let me = getpid().as_raw_nonzero().get();
        for _ in 0..8 {
            let Ok(entries) = std::fs::read_dir("/proc") else {
                return;
            };
            let found: Vec<i32> = entries
                .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
                .filter(|&pid| pid != me && live(pid) && carries(pid, token))
                .collect();
            if found.is_empty() {
                return;
            }
            let mut killed = KILLED.lock().unwrap_or_else(|p| p.into_inner());
            for pid in found {
                if let Some(p) = Pid::from_raw(pid) {
                    let _ = kill_process(p, Signal::KILL);
                    killed.insert(pid);
                }
            }
        }
    }

    fn reap_pass() -> bool {
        let me = getpid().as_raw_nonzero().get();
        let mut killed = KILLED.lock().unwrap_or_else(|p| p.into_inner());
        killed.retain(|&pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<i32>().ok());
            if ppid != Some(me) {
                return ppid.is_some_and(|p| p != 1);
            }
            matches!(
                Pid::from_raw(pid).map(|p| waitpid(Some(p), WaitOptions::NOHANG)),
                Some(Ok(None))
            )
        });
        !killed.is_empty()
    }

    /// Reap killed orphans that were reparented to this process.
    pub(crate) async fn reap(grace: Duration) {
        let deadline = tokio::time::Instant::now() + grace;
        while reap_pass() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod leftovers {
    //! Elsewhere: the process group is killed through the child handle only.
    use std::time::Duration;
    pub(crate) fn become_subreaper_once() {}
    pub(crate) fn kill_group(_pid: u32) {}
    pub(crate) fn kill_tagged(_token: &str) {}
    pub(crate) async fn reap(_grace: Duration) {}
}
