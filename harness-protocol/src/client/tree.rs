//! Every process a host started, found and ended with the host.
//!
//! Killing the host's process group misses a child that called `setsid()`
//! (or `setpgid`), and such a child keeps the host's stdout and stderr open,
//! so the runner would never see end of file either. On Linux:
//!
//! - the runner becomes the *child subreaper* ([`become_subreaper`]): a
//!   process orphaned below it is reparented to it, not to init, so it stays
//!   in the runner's tree and the runner can reap it;
//! - every host is started with [`TOKEN_ENV`] set to a token of its own, which
//!   its descendants inherit;
//! - ending a host kills every process whose parent chain leads to the host
//!   (while it runs) and every process that carries its token (the ones
//!   reparented after a parent died), in rounds until none is found, and
//!   then reaps the ones that became the runner's children.
//!
//! Elsewhere only the process group is killed.

use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that tags a host and its descendants. Its value
/// is `<runner pid>:<sequence>`; hosts must not rely on it.
pub(crate) const TOKEN_ENV: &str = "CTK_HOST_INSTANCE";

/// A token no other host of this runner has.
pub(crate) fn new_token() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}:{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// Which processes carry a host token.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tagged<'a> {
    /// Exactly this host's token.
    Host(&'a str),
    /// The token of any host this runner started.
    AnyHost,
}

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::{Mutex, MutexGuard, Once};
    use std::time::Duration;

    use rustix::process::{getpid, kill_process, waitpid, Pid, Signal, WaitOptions};

    use super::{Tagged, TOKEN_ENV};

    /// Processes killed as a host's leftovers that may still need reaping.
    static UNREAPED: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

    fn unreaped() -> MutexGuard<'static, BTreeSet<i32>> {
        UNREAPED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn become_subreaper() -> std::io::Result<()> {
        rustix::process::set_child_subreaper(Some(getpid())).map_err(std::io::Error::from)
    }

    /// Become the subreaper once, before the first host starts; a failure
    /// leaves orphans to init, where the token still finds them.
    pub(crate) fn become_subreaper_once() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
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
        let prefix = format!("{TOKEN_ENV}=");
        let ours = format!("{prefix}{}:", std::process::id());
        environ.split(|b| *b == 0).any(|entry| {
            let Ok(entry) = std::str::from_utf8(entry) else {
                return false;
            };
            match tagged {
                Tagged::Host(token) => entry.strip_prefix(&prefix) == Some(token),
                Tagged::AnyHost => entry.starts_with(&ours),
            }
        })
    }

    /// The live processes descending from `root` (not `root` itself) or
    /// carrying the token, and their descendants; never this process.
    fn leftovers(table: &BTreeMap<i32, Stat>, root: Option<i32>, tagged: Tagged<'_>) -> Vec<i32> {
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
        let mut stack: Vec<i32> = found.iter().copied().chain(root).collect();
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

    /// Kill, with SIGKILL, every process below `root` and every process
    /// carrying `tagged`, in rounds until a round finds none (a process may
    /// fork while the previous round kills). The killed pids not in `keep`
    /// (live hosts, which tokio reaps), for [`will_reap`].
    pub(crate) fn kill_leftovers(
        root: Option<u32>,
        tagged: Tagged<'_>,
        keep: &BTreeSet<i32>,
    ) -> Vec<i32> {
        let root = root.and_then(|pid| i32::try_from(pid).ok());
        let mut killed = Vec::new();
        for _ in 0..8 {
            let found = leftovers(&table(), root, tagged);
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

    /// Remember killed leftovers for [`reap_leftovers`].
    pub(crate) fn will_reap(killed: Vec<i32>) {
        if !killed.is_empty() {
            unreaped().extend(killed);
        }
    }

    /// One pass over the killed leftovers: reap those that became this
    /// process's zombies, forget those gone. Whether any are left.
    fn reap_pass() -> bool {
        let me = getpid().as_raw_nonzero().get();
        let mut pending = unreaped();
        pending.retain(|&pid| {
            let Some(s) = stat(pid) else {
                return false; // gone: reaped by its parent or by init
            };
            if s.ppid != me {
                return true; // its parent, or we once it is reparented
            }
            let Some(p) = Pid::from_raw(pid) else {
                return false;
            };
            // Only pids this module killed, never a host tokio waits for.
            match waitpid(Some(p), WaitOptions::NOHANG) {
                Ok(Some(_)) => false,
                Ok(None) => true,
                Err(_) => false,
            }
        });
        !pending.is_empty()
    }

    /// Reap the killed leftovers, polling for up to `grace`.
    pub(crate) async fn reap_leftovers(grace: Duration) {
        let deadline = tokio::time::Instant::now() + grace;
        while reap_pass() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Reap in the background when a runtime is there (a host ended by
    /// `Drop`), else once now.
    pub(crate) fn reap_leftovers_later(grace: Duration) {
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(reap_leftovers(grace));
            }
            Err(_) => {
                reap_pass();
            }
        }
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
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::collections::BTreeSet;
    use std::time::Duration;

    use super::Tagged;

    pub(crate) fn become_subreaper() -> std::io::Result<()> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "a child subreaper exists on Linux only; host process groups are still killed",
        ))
    }

    pub(crate) fn become_subreaper_once() {}

    pub(crate) fn kill_leftovers(
        _root: Option<u32>,
        _tagged: Tagged<'_>,
        _keep: &BTreeSet<i32>,
    ) -> Vec<i32> {
        Vec::new()
    }

    pub(crate) fn will_reap(_killed: Vec<i32>) {}

    pub(crate) async fn reap_leftovers(_grace: Duration) {}

    pub(crate) fn reap_leftovers_later(_grace: Duration) {}
}

pub(crate) use imp::{
    become_subreaper_once, kill_leftovers, reap_leftovers, reap_leftovers_later, will_reap,
};

/// Make this process the child subreaper (Linux `PR_SET_CHILD_SUBREAPER`):
/// a process orphaned anywhere below it, a host's `setsid` grandchild whose
/// parent died say, is reparented to it instead of to init, so the client
/// can still find, kill and reap it when the host ends.
///
/// The client does this by itself before it starts the first host; a runner
/// calls it once at startup to learn early whether it worked (a container
/// may forbid it; hosts' leftovers are then still killed, by their token,
/// but init reaps them). Process-wide and idempotent. On other systems it
/// returns an `Unsupported` error and only process groups are killed.
pub fn become_subreaper() -> std::io::Result<()> {
    imp::become_subreaper()
}
