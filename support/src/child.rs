//! One child process that speaks in lines (an AHP backend, an AHP adapter):
//! started in a process group of its own and tagged with a token its
//! descendants inherit; stdout read by a task into lines within a byte
//! budget; stderr drained into a bounded tail; ended (or dropped) by killing
//! the group and every process carrying the token, so a child that hangs,
//! floods, forks or calls `setsid` leaves nothing behind.

use std::collections::{BTreeSet, VecDeque};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::lines::{Frame, Framer};
use crate::process::{self, Tagged};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The environment variable that tags a child and its descendants, so
/// that a descendant which left the process group is still found. (Its
/// name is older than this module: the AHP backends were its first
/// children.)
pub const TOKEN_ENV: &str = "CTK_AHP_BACKEND_INSTANCE";

/// How long ending a child waits for its killed leftovers to be reaped.
const REAP_GRACE: Duration = Duration::from_millis(500);

/// What the stdout reader saw.
#[derive(Debug)]
pub enum OutEvent {
    /// One line (or the unterminated tail at end of file).
    Line {
        /// The line's bytes without its newline, at most the line cap.
        bytes: Vec<u8>,
        /// The line's whole length, kept or not.
        len: usize,
        /// Whether a newline ended it.
        terminated: bool,
        /// Whether it was longer than the cap (only its first bytes kept).
        cut: bool,
        /// When the reader saw its end.
        at: Instant,
    },
    /// Stdout reached end of file.
    Eof,
    /// Stdout exceeded the byte budget; reading stopped.
    Flood,
}

/// How to start a child process.
#[derive(Debug, Clone)]
pub struct Spawn {
    /// The program, run directly (no shell).
    pub program: OsString,
    /// Its arguments, verbatim.
    pub args: Vec<OsString>,
    /// Its working directory (this process's when `None`).
    pub cwd: Option<PathBuf>,
    /// Variables added to the environment it inherits.
    pub env: Vec<(OsString, OsString)>,
    /// The most bytes kept of one stdout line.
    pub max_line_bytes: usize,
    /// The most bytes read from stdout in all; past it reading stops.
    pub max_stdout_bytes: u64,
    /// The most bytes of stderr kept (the last ones).
    pub stderr_tail_bytes: usize,
}

/// A running child process that speaks in lines.
pub struct LineChild {
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

impl LineChild {
    /// Start the process; the error message is the OS's.
    pub fn spawn(spec: &Spawn) -> std::io::Result<LineChild> {
        process::become_subreaper_once();
        let token = process::new_token();
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
        Ok(LineChild {
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
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Write `text` and a newline to stdin within `limit`, in `pieces`
    /// byte pieces 20 ms apart (1: at once).
    pub async fn write_line(
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

    /// Close stdin (end of file for the child).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next stdout event before `deadline`; `None` on timeout or when
    /// stdout already ended.
    pub async fn next_event(&mut self, deadline: Instant) -> Option<OutEvent> {
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
    pub fn stdout_ended(&self) -> bool {
        self.eof
    }

    /// Whether stdout exceeded the budget.
    pub fn flooded(&self) -> bool {
        self.flooded.load(Ordering::Relaxed)
    }

    /// End the process: close stdin, give it until `deadline` to exit by
    /// itself, then kill the group and every process carrying the token;
    /// always kill the leftovers (a daemon it forked), and reap.
    pub async fn end(&mut self, deadline: Instant) -> Ended {
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
        // Descendants may outlive a child that exited by itself.
        self.kill_all();
        process::reap_leftovers(REAP_GRACE).await;
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
    pub fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        let bytes: Vec<u8> = tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Kill the group, every process carrying the token, and the child.
    /// Only by token, not by descent: a harness under test (this process
    /// may be its adapter) is judged on the backends it ends itself, which
    /// do not inherit the token, so the kit must not end them first.
    fn kill_all(&mut self) {
        if let Some(pid) = self.pid {
            process::kill_group(pid);
        }
        let tagged = Tagged::Token {
            var: TOKEN_ENV,
            token: &self.token,
        };
        // The child itself carries the token; tokio reaps it, not us.
        let keep: BTreeSet<i32> = self
            .pid
            .and_then(|p| i32::try_from(p).ok())
            .into_iter()
            .collect();
        process::will_reap(process::kill_tagged(tagged, &keep));
        let _ = self.child.start_kill();
    }
}

impl Drop for LineChild {
    fn drop(&mut self) {
        if !self.ended {
            self.kill_all();
            process::reap_leftovers_later(REAP_GRACE);
        }
    }
}

/// How [`LineChild::end`] found the process.
#[derive(Debug, Clone, Copy)]
pub struct Ended {
    /// Its exit code, when it exited by itself.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// Whether it exited by itself before the deadline.
    pub exited: bool,
    /// Whether it had to be killed.
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
