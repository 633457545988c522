//! Backend processes: started directly (no shell), each in a process group
//! of its own, and killed with that whole group when the harness is done
//! with them, when the harness shuts down, or when the harness dies.
//!
//! Every live group is listed in a process-wide registry so that
//! [`kill_all`] can end them from a signal handler or at shutdown, and a
//! [`Group`] guard kills its group on drop. On Linux the child also asks the
//! kernel for `SIGKILL` when the harness (its parent) dies, so even a
//! harness killed with `SIGKILL` leaves no backend behind.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Mutex;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Process groups of every live backend.
static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn live() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// How to start one backend process (spec 17.4: command and argument
/// array used directly; the smallest practical environment).
#[derive(Debug, Clone)]
pub struct Launch {
    /// The backend id, for log lines.
    pub backend: String,
    /// Executable path or name (a name is looked up on the `PATH` given in
    /// `env`).
    pub command: String,
    /// Arguments, verbatim.
    pub args: Vec<String>,
    /// Working directory, when set.
    pub cwd: Option<PathBuf>,
    /// The complete environment of the child.
    pub env: Vec<(String, String)>,
}

/// A started backend process, its pipes taken out.
#[derive(Debug)]
pub struct Spawned {
    /// The child (waited on by whoever owns it).
    pub child: Child,
    /// Its stdin.
    pub stdin: ChildStdin,
    /// Its stdout.
    pub stdout: ChildStdout,
    /// Kills the group on drop.
    pub group: Group,
}

/// Owns a backend's process group: dropping it kills the whole group.
#[derive(Debug)]
pub struct Group {
    pgid: Option<i32>,
}

impl Group {
    /// Kill the group now (idempotent).
    pub fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
            live().remove(&pgid);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Start `launch` with piped stdin, stdout and stderr; stderr lines are
/// copied to the harness's stderr, prefixed with the backend id.
pub fn spawn(launch: &Launch) -> std::io::Result<Spawned> {
    let mut cmd = Command::new(&launch.command);
    cmd.args(&launch.args)
        .env_clear()
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = &launch.cwd {
        cmd.current_dir(cwd);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    die_with_parent(&mut cmd);
    let mut child = cmd.spawn()?;
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    if let Some(p) = pgid {
        live().insert(p);
    }
    let group = Group { pgid };
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    if let Some(stderr) = child.stderr.take() {
        let id = launch.backend.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match lines.read_until(b'\n', &mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        buf.truncate(4096);
                        let text = String::from_utf8_lossy(&buf);
                        eprintln!("[backend {id}] {}", text.trim_end());
                    }
                }
            }
        });
    }
    Ok(Spawned {
        child,
        stdin,
        stdout,
        group,
    })
}

/// Kill every backend process group still live (shutdown, signals).
pub fn kill_all() {
    let groups: Vec<i32> = std::mem::take(&mut *live()).into_iter().collect();
    for g in groups {
        kill_group(g);
    }
}

#[cfg(target_os = "linux")]
fn kill_group(pgid: i32) {
    use rustix::process::{kill_process_group, Pid, Signal};
    if let Some(p) = Pid::from_raw(pgid) {
        let _ = kill_process_group(p, Signal::KILL);
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn kill_group(pgid: i32) {
    // No safe group kill without rustix here: fall back to kill(1).
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &format!("-{pgid}")])
        .status();
}

#[cfg(not(unix))]
fn kill_group(_pgid: i32) {}

/// Linux: ask the kernel to send the child SIGKILL when the thread that
/// started it ends. The harness binary runs a current-thread runtime, so
/// that thread is the main thread and the signal comes exactly when the
/// harness dies, however it dies.
#[cfg(target_os = "linux")]
#[expect(
    unsafe_code,
    reason = "pre_exec is unsafe; the hook only makes one async-signal-safe prctl call"
)]
fn die_with_parent(cmd: &mut Command) {
    // SAFETY: the closure runs between fork and exec; it allocates nothing
    // and makes a single prctl(PR_SET_PDEATHSIG) system call.
    unsafe {
        cmd.pre_exec(|| {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
                .map_err(std::io::Error::from)
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_cmd: &mut Command) {}
