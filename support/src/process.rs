//! Ending a child process and every process it left behind.
//!
//! Killing a child's process group misses a descendant that called
//! `setsid()` (or `setpgid`), and such a descendant keeps the child's stdout
//! and stderr open, so its reader would never see end of file either. Both
//! ends of the kit that start foreign processes (the Agent Hooks adapter's
//! stdio hosts, the AHP driver's backends) end them the same way, here:
//!
//! - the caller starts each child in a process group of its own and with an
//!   environment variable set to a [`new_token`] of its own, which the
//!   child's descendants inherit;
//! - this process becomes the *child subreaper* ([`become_subreaper_once`],
//!   Linux): a process orphaned below it is reparented to it, not to init,
//!   so it stays in this tree and can be reaped;
//! - ending a child kills its group ([`kill_group`]) and, in rounds until
//!   none is found, every process whose parent chain leads to the child and
//!   every process that carries its token ([`kill_leftovers`]); the killed
//!   orphans that became this process's children are then reaped
//!   ([`will_reap`], [`reap_leftovers`]).
//!
//! Elsewhere than Linux only the process group is killed.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Which processes carry a token, by the environment variable that holds it.
#[derive(Debug, Clone, Copy)]
pub enum Tagged<'a> {
    /// `var` holds exactly `token`: one child's descendants.
    Token {
        /// The environment variable's name.
        var: &'a str,
        /// The child's token.
        token: &'a str,
    },
    /// `var` holds a token this process made: any child's descendants.
    AnyFromHere {
        /// The environment variable's name.
        var: &'a str,
    },
}

/// A token no other child of this process has: `<this pid>:<sequence>`.
/// The pid lets [`Tagged::AnyFromHere`] tell this process's children from
/// another runner's.
pub fn new_token() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}:{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// Send SIGKILL to the process group `pgid` (a child started with
/// `process_group(0)` leads the group of its own pid). A stale id fails
/// quietly: the group is gone already.
pub fn kill_group(pgid: u32) {
    #[cfg(unix)]
    if let Some(p) = i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pgid;
}

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::{Mutex, MutexGuard, Once};

    use rustix::process::{getpid, kill_process, waitpid, Pid, Signal, WaitOptions};

    use super::Tagged;

    /// Processes killed as leftovers that may still need reaping.
    static UNREAPED: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

    fn unreaped() -> MutexGuard<'static, BTreeSet<i32>> {
        UNREAPED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn become_subreaper() -> std::io::Result<()> {
        rustix::process::set_child_subreaper(Some(getpid())).map_err(std::io::Error::from)
    }

    pub(super) fn become_subreaper_once() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // A container may forbid it; the token still finds orphans.
            let _ = become_subreaper();
        });
    }

    /// One process as `/proc/<pid>/stat` shows it.
    #[derive(Debug, Clone, Copy)]
    struct Stat {
        ppid: i32,
        zombie: bool,
    }

    fn stat(pid: i32) -> Option<Stat> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name may hold spaces and parentheses: fields start
        // after the last `)`.
        let mut fields = text.rsplit_once(')')?.1.split_whitespace();
        let state = fields.next()?;
        let ppid = fields.next()?.parse().ok()?;
        Some(Stat {
            ppid,
            zombie: matches!(state, "Z" | "X"),
        })
    }

    fn table() -> BTreeMap<i32, Stat> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return BTreeMap::new();
        };
        entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter_map(|pid| Some((pid, stat(pid)?)))
            .collect()
    }

    fn carries(pid: i32, tagged: Tagged<'_>) -> bool {
        // Another user's process fails to read: it is none of ours.
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            return false;
        };
        let (var, exact, prefix) = match tagged {
            Tagged::Token { var, token } => (var, Some(token), None),
            Tagged::AnyFromHere { var } => (var, None, Some(format!("{}:", std::process::id()))),
        };
        environ.split(|b| *b == 0).any(|entry| {
            let Some(value) = std::str::from_utf8(entry)
                .ok()
                .and_then(|e| e.strip_prefix(var))
                .and_then(|e| e.strip_prefix('='))
            else {
                return false;
            };
            match (exact, &prefix) {
                (Some(token), _) => value == token,
                (None, Some(prefix)) => value.starts_with(prefix.as_str()),
                (None, None) => false,
            }
        })
    }

    /// The live processes carrying the token and, with `descendants`, the
    /// ones descending from `root` (not `root` itself) or from a carrier;
    /// never this process.
    fn leftovers(
        table: &BTreeMap<i32, Stat>,
        root: Option<i32>,
        tagged: Tagged<'_>,
        descendants: bool,
    ) -> Vec<i32> {
        let me = getpid().as_raw_nonzero().get();
        let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        for (&pid, s) in table {
            children.entry(s.ppid).or_default().push(pid);
        }
        let mut found: BTreeSet<i32> = table
            .iter()
            .filter(|(&pid, s)| pid != me && !s.zombie && carries(pid, tagged))
            .map(|(&pid, _)| pid)
            .collect();
        let mut stack: Vec<i32> = if descendants {
            found.iter().copied().chain(root).collect()
        } else {
            Vec::new()
        };
        while let Some(pid) = stack.pop() {
            for &child in children.get(&pid).into_iter().flatten() {
                if found.insert(child) {
                    stack.push(child);
                }
            }
        }
        found.remove(&me);
        if let Some(root) = root {
            found.remove(&root);
        }
        found.retain(|pid| table.get(pid).is_some_and(|s| !s.zombie));
        found.into_iter().collect()
    }

    pub(super) fn kill_leftovers(
        root: Option<u32>,
        tagged: Tagged<'_>,
        keep: &BTreeSet<i32>,
        descendants: bool,
    ) -> Vec<i32> {
        let root = root.and_then(|pid| i32::try_from(pid).ok());
        let mut killed = Vec::new();
        // Rounds: a process may fork while the previous round kills.
        for _ in 0..8 {
            let found = leftovers(&table(), root, tagged, descendants);
            if found.is_empty() {
                break;
            }
            for pid in found {
                if let Some(p) = Pid::from_raw(pid) {
                    let _ = kill_process(p, Signal::KILL);
                }
                if !keep.contains(&pid) {
                    killed.push(pid);
                }
            }
        }
        killed
    }

    pub(super) fn will_reap(killed: Vec<i32>) {
        if !killed.is_empty() {
            unreaped().extend(killed);
        }
    }

    /// One pass over the killed leftovers: reap those that became this
    /// process's zombies, forget those gone. Whether any are left.
    pub(super) fn reap_pass() -> bool {
        let me = getpid().as_raw_nonzero().get();
        let mut pending = unreaped();
        pending.retain(|&pid| {
            let Some(s) = stat(pid) else {
                return false; // gone: reaped by its parent or by init
            };
            if s.ppid != me {
                return true; // its parent's, or ours once it is reparented
            }
            let Some(p) = Pid::from_raw(pid) else {
                return false;
            };
            // Only pids this module killed, never a child tokio waits for.
            match waitpid(Some(p), WaitOptions::NOHANG) {
                Ok(Some(_)) => false,
                Ok(None) => true,
                Err(_) => false,
            }
        });
        !pending.is_empty()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_stat_of_this_process_names_its_parent() {
            let me = i32::try_from(std::process::id()).expect("pid");
            let s = stat(me).expect("own stat");
            assert!(!s.zombie);
            assert_eq!(
                s.ppid,
                rustix::process::getppid().map_or(0, |p| p.as_raw_nonzero().get())
            );
        }

        #[test]
        fn a_token_is_found_exactly_and_by_this_process_s_prefix() {
            let var = "CTK_SUPPORT_TEST_TOKEN";
            let token = super::super::new_token();
            // The shell has printed, so it runs with the environment given.
            let (mut shell, untagged) = carrier(var, &token);
            let pid = i32::try_from(shell.id()).expect("pid");
            assert!(carries(pid, Tagged::Token { var, token: &token }));
            assert!(!carries(pid, Tagged::Token { var, token: "1:1" }));
            assert!(carries(pid, Tagged::AnyFromHere { var }));
            assert!(!carries(
                pid,
                Tagged::AnyFromHere {
                    var: "CTK_SUPPORT_OTHER"
                }
            ));
            // A variable whose name only starts like ours is another one.
            assert!(!carries(
                pid,
                Tagged::AnyFromHere {
                    var: "CTK_SUPPORT_TEST"
                }
            ));
            assert!(!carries(untagged, Tagged::AnyFromHere { var }));
            let killed =
                super::super::kill_tagged(Tagged::Token { var, token: &token }, &BTreeSet::new());
            assert!(killed.contains(&pid), "{killed:?}");
            assert!(!killed.contains(&untagged), "{killed:?}");
            let status = shell.wait().expect("reaped");
            assert!(!status.success(), "killed, not exited: {status:?}");
            let _ = kill_process(Pid::from_raw(untagged).expect("pid"), Signal::KILL);
        }

        fn alive(pid: i32) -> bool {
            stat(pid).is_some_and(|s| !s.zombie)
        }

        /// A shell carrying `token` in `var`, and the pid of its `sleep`
        /// child, which does not carry it (`env -u`).
        fn carrier(var: &str, token: &str) -> (std::process::Child, i32) {
            use std::io::BufRead;
            let mut shell = std::process::Command::new("sh")
                // Named once `sleep` runs (its name is set at exec), so
                // without the token: until then the child still has the
                // shell's environment, or `env`'s.
                .args([
                    "-c",
                    &format!(
                        "env -u {var} sleep 30 & c=$!; n=0; \
                         until [ \"$(cat /proc/$c/comm 2>/dev/null)\" = sleep ]; do \
                           n=$((n+1)); [ $n -gt 1000 ] && break; sleep 0.01; done; \
                         echo $c; wait"
                    ),
                ])
                .env(var, token)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("sh starts");
            let mut line = String::new();
            std::io::BufReader::new(shell.stdout.take().expect("piped"))
                .read_line(&mut line)
                .expect("the shell names its child");
            (shell, line.trim().parse().expect("a pid"))
        }

        #[test]
        fn by_token_alone_a_carrier_s_untagged_child_lives_and_by_descent_it_dies() {
            let var = "CTK_SUPPORT_DESCENT_TOKEN";
            let token = super::super::new_token();
            let tagged = Tagged::Token { var, token: &token };

            let (mut shell, untagged) = carrier(var, &token);
            let keep: BTreeSet<i32> = [i32::try_from(shell.id()).expect("pid")].into();
            assert!(super::super::kill_tagged(tagged, &keep).is_empty());
            let _ = shell.wait();
            assert!(alive(untagged), "only carriers are killed by token");
            let _ = kill_process(Pid::from_raw(untagged).expect("pid"), Signal::KILL);

            let (mut shell, untagged) = carrier(var, &token);
            let keep: BTreeSet<i32> = [i32::try_from(shell.id()).expect("pid")].into();
            let killed = super::super::kill_leftovers(None, tagged, &keep);
            let _ = shell.wait();
            assert!(
                killed.contains(&untagged),
                "a carrier's descendants die with it: {killed:?}"
            );
            // SIGKILL is sent, not yet done: the process dies a moment later.
            let dead = (0..200).any(|_| {
                std::thread::sleep(std::time::Duration::from_millis(5));
                !alive(untagged)
            });
            assert!(dead, "{untagged} still runs after its kill");
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::collections::BTreeSet;

    use super::Tagged;

    pub(super) fn become_subreaper() -> std::io::Result<()> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "a child subreaper exists on Linux only; process groups are still killed",
        ))
    }

    pub(super) fn become_subreaper_once() {}

    pub(super) fn kill_leftovers(
        _root: Option<u32>,
        _tagged: Tagged<'_>,
        _keep: &BTreeSet<i32>,
        _descendants: bool,
    ) -> Vec<i32> {
        Vec::new()
    }

    pub(super) fn will_reap(_killed: Vec<i32>) {}

    pub(super) fn reap_pass() -> bool {
        false
    }
}

/// Make this process the child subreaper (Linux `PR_SET_CHILD_SUBREAPER`):
/// a process orphaned anywhere below it, a child's `setsid` grandchild whose
/// parent died say, is reparented to it instead of to init, so it can still
/// be found, killed and reaped when the child ends.
///
/// Process-wide and idempotent. A container may forbid it: leftovers are
/// then still killed, by their token, but init reaps them. On other systems
/// it returns an `Unsupported` error and only process groups are killed.
pub fn become_subreaper() -> std::io::Result<()> {
    imp::become_subreaper()
}

/// [`become_subreaper`] once per process, before the first child starts,
/// ignoring a refusal (the token still finds orphans).
pub fn become_subreaper_once() {
    imp::become_subreaper_once();
}

/// Kill, with SIGKILL, every process below `root` (not `root` itself) and
/// every process carrying `tagged`, in rounds until a round finds none (a
/// process may fork while the previous round kills); never this process.
/// Returns the killed pids not in `keep` (children tokio reaps itself), for
/// [`will_reap`].
pub fn kill_leftovers(root: Option<u32>, tagged: Tagged<'_>, keep: &BTreeSet<i32>) -> Vec<i32> {
    imp::kill_leftovers(root, tagged, keep, true)
}

/// Kill, with SIGKILL and in rounds, every process carrying `tagged` and no
/// other: not the descendants of a carrier that cleared its environment.
/// For a child whose own children are judged (an AHP harness's backends),
/// which the kit must leave to it. Returns the killed pids not in `keep`.
pub fn kill_tagged(tagged: Tagged<'_>, keep: &BTreeSet<i32>) -> Vec<i32> {
    imp::kill_leftovers(None, tagged, keep, false)
}

/// Remember killed leftovers for [`reap_leftovers`]: the ones reparented to
/// this process (the subreaper) are its zombies until it waits for them.
pub fn will_reap(killed: Vec<i32>) {
    imp::will_reap(killed);
}

/// Reap the remembered leftovers, polling for up to `grace`.
pub async fn reap_leftovers(grace: Duration) {
    let deadline = tokio::time::Instant::now() + grace;
    while imp::reap_pass() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Reap in the background when a runtime is there (a child ended by `Drop`),
/// else one pass now.
pub fn reap_leftovers_later(grace: Duration) {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            handle.spawn(reap_leftovers(grace));
        }
        Err(_) => {
            imp::reap_pass();
        }
    }
}
