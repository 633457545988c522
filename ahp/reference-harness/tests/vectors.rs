//! The mutation oracle of the reference AHP harness (issue 27): every
//! harness-role vector of both lines (`vectors/ahp/0.1/AHP-H-*`, and the
//! draft's `vectors/ahp/draft/AHP-DH-*` against `--spec draft`), advisory
//! ones included, driven through the adapter contract (`ctk-ahp-adapter/1`)
//! of this crate's own binary. The vectors themselves cover the bindings
//! and lifecycles (stdio persistent, stdio per_event, HTTP) and both
//! failure policies: the kit plays every backend. One libtest-mimic trial
//! per vector, named `binding::id`, its kind the line.
//!
//! The harness is `CARGO_BIN_EXE_ctk-ahp-harness`, which cargo rebuilds
//! from the mutated source before this target runs: the vectors judge the
//! mutant, never the crate's own unit or integration tests.
//!
//! The kit's scripted stdio backend (the program a vector's registration
//! names for each stdio backend) is this test binary itself: run with
//! `--ctk-ahp-scripted --script FILE --log FILE [-- ARGS...]` it serves
//! `ctk_ahp_suite::harness::scripted`, exactly as `ctk ahp-backend script`
//! and the suite's `ctk-ahp-scripted` do. Neither of those is built by
//! this package's tests (cargo builds another package's binaries only for
//! that package's own tests), and building one from here would start a
//! second cargo inside a mutation run; the library function is the same
//! code, and none of it is the harness's, so no mutant reaches it.
//!
//! The same vectors run in CI through `ctk run`, so here the trials are
//! ignored unless asked for (`-- --include-ignored`) or unless
//! `CTK_ORACLE=project` makes this target the oracle of a mutation run
//! (`reports/mutation/run --impl ahp-harness`): then every trial runs, a
//! filter or an empty selection is refused (a run that checked nothing
//! must never look like a mutant that survived), and the first failing
//! trial stops the rest, which fail as not run, in a fixed order that
//! scatters each part's vectors.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ctk_ahp_suite::harness::{
    load_harness_dir, run_harness_vector, AdapterCommand, HarnessConfig, HarnessVector,
    ScriptedCommand,
};
use ctk_ahp_suite::{Outcome, Verdict};
use libtest_mimic::{Arguments, Failed, Trial};

/// The binary under test, rebuilt with the mutant.
const HARNESS: &str = env!("CARGO_BIN_EXE_ctk-ahp-harness");

/// The first argument that makes this binary the scripted backend.
const SCRIPTED: &str = "--ctk-ahp-scripted";

/// A protocol line: its vector folder and the flags that make the harness
/// speak it.
struct Line {
    name: &'static str,
    folder: &'static str,
    flags: &'static [&'static str],
}

static LINES: [Line; 2] = [
    Line {
        name: "0.1",
        folder: "vectors/ahp/0.1",
        flags: &[],
    },
    Line {
        name: "draft",
        folder: "vectors/ahp/draft",
        flags: &["--spec", "draft"],
    },
];

fn folder(line: &Line) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(line.folder)
}

/// The suite's harness-role defaults around the scripted backend (this
/// binary), with run folders under `work`. The vector timeout is
/// `ctk run`'s default.
fn config(work: &Path) -> Result<HarnessConfig, String> {
    let me = std::env::current_exe().map_err(|e| format!("this test binary's path: {e}"))?;
    let mut cfg = HarnessConfig::new(ScriptedCommand {
        program: me,
        prefix_args: vec![SCRIPTED.to_owned()],
    });
    cfg.vector_timeout = Duration::from_secs(120);
    cfg.work_dir = Some(work.to_owned());
    Ok(cfg)
}

fn run(v: &HarnessVector, adapter: &AdapterCommand, cfg: &HarnessConfig) -> Result<(), Failed> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("a tokio runtime: {e}"))?;
    let o: Outcome = runtime.block_on(run_harness_vector(v, adapter, cfg));
    if o.verdict == Verdict::Pass {
        return Ok(());
    }
    // A skip checked nothing (the reference harness offers every binding
    // and lifecycle), so it is a failure too.
    let mut text = format!("{:?}", o.verdict);
    if let Some(reason) = &o.reason {
        text.push_str(&format!(": {reason}"));
    }
    text.push('\n');
    for f in &o.failures {
        text.push_str(&format!("  {}: {}\n", f.key, f.message));
        if let Some(d) = &f.diff {
            text.push_str(d);
        }
    }
    Err(text.into())
}

/// Every trial: one per vector of each line. `stop`, when given, is the
/// oracle's first-failure flag.
fn trials(cfg: &Result<Arc<HarnessConfig>, String>, stop: Option<&Arc<AtomicBool>>) -> Vec<Trial> {
    let mut out = Vec::new();
    for line in &LINES {
        let dir = folder(line);
        let vectors = match load_harness_dir(&dir) {
            Ok(v) => v,
            Err(e) => {
                let e = format!("{}: {e}", dir.display());
                out.push(Trial::test(
                    format!("unreadable::{}", line.folder),
                    move || Err(e.into()),
                ));
                continue;
            }
        };
        let adapter = Arc::new(AdapterCommand::new(
            HARNESS,
            line.flags.iter().map(OsString::from),
        ));
        for v in vectors {
            let name = format!("{}::{}", format!("{:?}", v.binding).to_lowercase(), v.id);
            let (adapter, cfg, stop) = (adapter.clone(), cfg.clone(), stop.cloned());
            out.push(
                Trial::test(name.clone(), move || {
                    if stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                        return Err("not run: an earlier trial failed".into());
                    }
                    let result = cfg.map_err(Failed::from).and_then(|cfg| {
                        confirmed(&name, stop.is_some(), || run(&v, &adapter, &cfg))
                    });
                    if let (Err(_), Some(s)) = (&result, &stop) {
                        s.store(true, Ordering::Relaxed);
                    }
                    result
                })
                .with_kind(line.name),
            );
        }
    }
    out
}

/// In the oracle, a failure counts only when the trial fails again at
/// once: a vector that times a backend can fail on a machine busy with
/// other work, and a mutant "caught" by that would hide a gap. A mutant
/// that fails only now and then may pass here; another vector, or the
/// review of the missed mutants, meets it then.
fn confirmed(
    name: &str,
    oracle: bool,
    trial: impl Fn() -> Result<(), Failed>,
) -> Result<(), Failed> {
    match trial() {
        Err(_) if oracle => {
            let again = trial();
            if again.is_ok() {
                eprintln!("{name}: failed once, then passed: counted as a pass");
            }
            again
        }
        result => result,
    }
}

/// A stable, well-mixed sort key of a trial's name: 64-bit FNV-1a, then
/// SplitMix64's finalizer, since names that differ only in their last
/// characters (`AHP-B-0024`, `AHP-B-0025`) leave FNV-1a's high bits, and so
/// the order, nearly the same.
fn scatter(name: &str) -> u64 {
    let mut h = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The oracle's trials at once (`--test-threads` or `CTK_ORACLE_THREADS`
/// overrides): the vectors mostly wait on deadlines and quiet windows, so
/// more trials than cores keep the run short; not so many that a busy
/// machine makes a timed vector fail (`confirmed` guards the rest).
fn threads() -> usize {
    std::env::var("CTK_ORACLE_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .filter(|&t| t > 0)
        .unwrap_or(6)
}

/// Ends the oracle process with a message: a refusal is not a trial, since
/// a filter could hide a trial too.
fn refuse(why: &str) -> ! {
    eprintln!("CTK_ORACLE: {why}");
    std::process::exit(101);
}

/// Whether `CTK_ORACLE` makes this run the mutation oracle.
fn oracle() -> bool {
    match std::env::var("CTK_ORACLE").ok().as_deref() {
        None => false,
        Some("project") => true,
        Some(other) => refuse(&format!(
            "CTK_ORACLE={other:?}: the AHP vectors are the project's; expected `project`"
        )),
    }
}

/// `--ctk-ahp-scripted --script FILE --log FILE [-- ARGS...]`: the kit's
/// scripted stdio backend, as `ctk-ahp-scripted` parses it (arguments after
/// `--` are only logged).
fn scripted(mut args: impl Iterator<Item = OsString>) -> ! {
    let (mut script, mut log) = (None, None);
    while let Some(a) = args.next() {
        match a.to_str() {
            Some("--script") => script = args.next().map(PathBuf::from),
            Some("--log") => log = args.next().map(PathBuf::from),
            Some("--") => break,
            _ => {
                eprintln!("{SCRIPTED}: unexpected argument {a:?}");
                std::process::exit(2);
            }
        }
    }
    let (Some(script), Some(log)) = (script, log) else {
        eprintln!("usage: {SCRIPTED} --script FILE --log FILE [-- ARGS...]");
        std::process::exit(2);
    };
    match ctk_ahp_suite::harness::scripted::serve_process_stdio(&script, &log) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("{SCRIPTED}: {e}");
            std::process::exit(2);
        }
    }
}

fn main() {
    let mut raw = std::env::args_os().skip(1);
    if raw.next().is_some_and(|a| a == SCRIPTED) {
        scripted(raw);
    }
    let mut args = Arguments::from_args();
    let oracle = oracle();
    if oracle && (args.filter.is_some() || !args.skip.is_empty()) {
        refuse("a test filter narrows the oracle's vectors: run them whole");
    }
    if oracle {
        args.include_ignored = true;
        args.test_threads = args.test_threads.or(Some(threads()));
    }
    let work = tempfile::tempdir();
    let cfg = match &work {
        Ok(dir) => config(dir.path()).map(Arc::new),
        Err(e) => Err(format!("a work folder: {e}")),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut all = trials(&cfg, oracle.then_some(&stop));
    if oracle {
        if all.is_empty() {
            refuse("no harness vector was found");
        }
        all.sort_by_key(|t| scatter(t.name()));
    } else {
        all = all.into_iter().map(|t| t.with_ignored_flag(true)).collect();
        // The one trial a plain `cargo test` runs: both lines hold harness
        // vectors, so the oracle can never be empty.
        all.push(Trial::test("self_check::both_lines_hold_vectors", || {
            for line in &LINES {
                let dir = folder(line);
                let n = load_harness_dir(&dir).map_err(|e| e.to_string())?.len();
                if n == 0 {
                    return Err(format!("{}: no harness vector", dir.display()).into());
                }
            }
            Ok(())
        }));
    }
    let conclusion = libtest_mimic::run(&args, all);
    drop(work);
    conclusion.exit();
}
