//! The whole released suite (the vectors `ctk run` embeds for
//! `agent-hooks/0.1`), end to end through the `ctk` binary, three ways:
//!
//! - `in_process`: `ctk run --jobs 1`, the bundled reference host linked in;
//! - `in_process_default_jobs`: `ctk run`, `--jobs` at its default (the
//!   available parallelism);
//! - `stdio_persistent`: `ctk run --jobs 1 -- ctk-reference-host`, one host
//!   process for the whole run;
//! - `stdio_isolate`: `ctk run --jobs 1 --isolate -- ctk-reference-host`,
//!   one host process per vector.
//!
//! Each sample is one process, so each time includes the runner's start-up
//! (a few milliseconds, the same for all three). The per-vector overhead of
//! a stdio session is (stdio - in process) / vectors.
//!
//! The host binary is `$CTK_REFERENCE_HOST`, else `ctk-reference-host`
//! beside the `ctk` binary under test (`cargo bench --workspace` builds
//! both), else the debug build; the bench refuses to run without one rather
//! than time nothing.
//!
//! `cargo bench -p ctk --bench suite` (add `-- --quick` for a short run).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

const CTK: &str = env!("CARGO_BIN_EXE_ctk");

/// The stdio reference host to drive.
fn reference_host() -> PathBuf {
    if let Some(p) = std::env::var_os("CTK_REFERENCE_HOST") {
        return PathBuf::from(p);
    }
    let beside = PathBuf::from(CTK).with_file_name("ctk-reference-host");
    if beside.exists() {
        return beside;
    }
    let debug = PathBuf::from(CTK)
        .parent()
        .and_then(|d| d.parent())
        .map(|t| t.join("debug/ctk-reference-host"));
    match debug {
        Some(d) if d.exists() => d,
        _ => panic!(
            "no ctk-reference-host beside {CTK}: build it (`cargo build --release -p \
             ctk-agent-hooks-reference-host`) or point CTK_REFERENCE_HOST at one"
        ),
    }
}

/// One `ctk run` with `args`; a run that does not pass is a broken bench.
fn ctk_run(args: &[&str]) {
    let out = Command::new(CTK)
        .arg("run")
        .arg("--quiet")
        .args(args)
        .output()
        .expect("ctk runs");
    assert!(
        out.status.success(),
        "ctk run {args:?} failed ({}; a stale ctk-reference-host? rebuild it): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn suite(c: &mut Criterion) {
    let host = reference_host();
    let host = host.to_str().expect("a UTF-8 path");
    let mut group = c.benchmark_group("released_suite");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    // One vector at a time, so the stdio cost per vector is the link's,
    // not the parallelism's; `in_process_default_jobs` is what a user gets.
    group.bench_function("in_process", |b| b.iter(|| ctk_run(&["--jobs", "1"])));
    group.bench_function("in_process_default_jobs", |b| b.iter(|| ctk_run(&[])));
    group.bench_function("stdio_persistent", |b| {
        b.iter(|| ctk_run(&["--jobs", "1", "--", host]))
    });
    group.bench_function("stdio_isolate", |b| {
        b.iter(|| ctk_run(&["--jobs", "1", "--isolate", "--", host]))
    });
    group.finish();
}

criterion_group!(benches, suite);
criterion_main!(benches);
