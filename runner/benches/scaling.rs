//! Scaling: `ctk run --vectors DIR` on 1,000 and on 10,000 copies of one
//! simple vector (`vectors/0.1/CTK-0001`, renumbered `CTK-0000` to
//! `CTK-9999`), each run its own child process, recording its wall time and
//! its peak resident set (the child's own `ru_maxrss`, from `wait4`).
//!
//! Not a criterion bench: one run of each size is the measurement, and
//! the point is the shape (time per vector constant, peak memory flat),
//! printed as a table. `cargo bench -p ctk --bench scaling`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

const CTK: &str = env!("CARGO_BIN_EXE_ctk");
const SIMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../vectors/0.1/CTK-0001-allow-warning-startup.json"
);

/// Write `n` renumbered copies of the simple vector into `dir`.
fn generate(dir: &Path, n: usize) {
    let text = std::fs::read_to_string(SIMPLE).expect("the simple vector is readable");
    let mut vector: Value = serde_json::from_str(&text).expect("the simple vector is JSON");
    for i in 0..n {
        let id = format!("CTK-{i:04}");
        vector["id"] = Value::String(id.clone());
        let body = serde_json::to_vec(&vector).expect("serialises");
        std::fs::write(dir.join(format!("{id}.json")), body).expect("writes");
    }
}

/// Wall time and peak RSS (KiB) of one `ctk run --vectors dir`.
///
/// The one place the workspace allows `unsafe`: `wait4` is the only way to
/// get one child's own peak resident set exactly (sampling its
/// `/proc/<pid>/status` could miss the growth after the last sample), and
/// neither std nor a safe wrapper the workspace already has exposes it.
/// The child is reaped by that `wait4`, not by std, hence the second allow.
#[allow(unsafe_code, clippy::zombie_processes)]
fn measure(dir: &Path) -> (f64, i64) {
    let start = Instant::now();
    let child = Command::new(CTK)
        .args(["run", "--quiet", "--vectors"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("ctk starts");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills; the child is ours and
    // reaped exactly once, here (std's Child is never waited on).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed().as_secs_f64();
    assert_eq!(reaped, pid, "wait4 reaps the ctk child");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "ctk run --vectors {} did not pass (status {status})",
        dir.display()
    );
    (elapsed, usage.ru_maxrss)
}

fn main() {
    // `cargo bench` passes `--bench`; a name filter that names another
    // bench leaves this one out, as criterion benches do.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !filter.is_empty() && !filter.iter().any(|f| "scaling".contains(f.as_str())) {
        return;
    }
    println!("scaling: ctk run --vectors DIR on copies of CTK-0001 ({CTK})");
    println!(
        "{:>8} {:>10} {:>14} {:>14}",
        "vectors", "wall s", "ms per vector", "peak RSS MiB"
    );
    for n in [1_000usize, 10_000] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        generate(dir.path(), n);
        let (secs, rss_kib) = measure(dir.path());
        println!(
            "{n:>8} {secs:>10.2} {:>14.3} {:>14.1}",
            secs * 1000.0 / n as f64,
            rss_kib as f64 / 1024.0
        );
    }
}
