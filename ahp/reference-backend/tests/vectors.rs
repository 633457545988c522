//! The mutation oracle of the reference AHP backend (issue 27): every
//! backend-role vector of both lines (`vectors/ahp/0.1/AHP-B-*`, and the
//! draft's `vectors/ahp/draft/AHP-DB-*` against `--spec draft`), advisory
//! ones included, run against this crate's own binary in every binding it
//! serves: stdio persistent, stdio per_event and HTTP. One libtest-mimic
//! trial per vector and binding, named `binding::id`, its kind the line.
//! The backend declares the suite's two named policies, as `ctk run
//! --protocol ahp --role backend` declares them for the bundled backend
//! (its built-in policy is exactly those two), so no vector is skipped.
//!
//! The binary is `CARGO_BIN_EXE_ctk-ahp-backend`, which cargo rebuilds
//! from the mutated source before this target runs: the vectors judge the
//! mutant, never the crate's own unit or integration tests.
//!
//! The same vectors run in CI through `ctk run`, so here the trials are
//! ignored unless asked for (`-- --include-ignored`) or unless
//! `CTK_ORACLE=project` makes this target the oracle of a mutation run
//! (`reports/mutation/run --impl ahp-backend`): then every trial runs, a
//! filter or an empty selection is refused (a run that checked nothing
//! must never look like a mutant that survived), and the first failing
//! trial stops the rest, which fail as not run, in a fixed order that
//! scatters each binding's and each part's vectors.

use std::ffi::OsString;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use ctk_ahp_suite::vector::{BindingSel, LifecycleSel};
use ctk_ahp_suite::{
    load_dir, run_vector, Lifecycle, Outcome, StdioCommand, SuiteConfig, Target, Vector, Verdict,
};
use libtest_mimic::{Arguments, Failed, Trial};

/// The binary under test, rebuilt with the mutant.
const BACKEND: &str = env!("CARGO_BIN_EXE_ctk-ahp-backend");

/// A protocol line: its vector folder and the flags that make the backend
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

/// How long the HTTP server may take to print its URL.
const SERVER_START: Duration = Duration::from_secs(30);

fn vectors(line: &Line) -> Result<Vec<Vector>, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(line.folder);
    let loaded = load_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(loaded.into_iter().map(|l| l.vector).collect())
}

/// The suite's configuration: its defaults, and the two named policies the
/// built-in policy implements.
fn config() -> SuiteConfig {
    SuiteConfig {
        policies: ctk_ahp_suite::policy::ALL
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .collect(),
        ..SuiteConfig::default()
    }
}

fn stdio(line: &Line, lifecycle: Lifecycle) -> Target {
    let mut args: Vec<OsString> = line.flags.iter().map(OsString::from).collect();
    args.push("stdio".into());
    if lifecycle == Lifecycle::PerEvent {
        args.push("--per-event".into());
    }
    Target::Stdio(StdioCommand {
        program: BACKEND.into(),
        args,
        lifecycle,
        cwd: None,
        env: Vec::new(),
    })
}

/// The backend's HTTP server for one line, serving every HTTP trial of
/// it. Its stdin is a pipe this process holds: the server stops at EOF on
/// stdin, so it ends with this process even when a mutation run's timeout
/// kills it.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Server {
    /// Starts the server; the URL it prints, or why there is none (a
    /// mutant may break the start: the HTTP trials then fail with this).
    fn start(line: &Line) -> (Option<Server>, Result<String, String>) {
        let spawned = Command::new(BACKEND)
            .args(line.flags)
            .args(["http", "--listen", "127.0.0.1:0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => return (None, Err(format!("the HTTP server does not start: {e}"))),
        };
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut first = String::new();
            let read = stdout.map(|s| BufReader::new(s).read_line(&mut first));
            // The receiver may have given up; nothing to do then.
            let _ = tx.send(read.map(|r| r.map(|_| first)));
        });
        let url = match rx.recv_timeout(SERVER_START) {
            Ok(Some(Ok(line))) if line.trim().starts_with("http://") => Ok(line.trim().to_owned()),
            Ok(Some(Ok(line))) => Err(format!(
                "the HTTP server printed {line:?}, not the URL to register"
            )),
            Ok(Some(Err(e))) => Err(format!("reading the HTTP server's URL: {e}")),
            Ok(None) | Err(_) => Err(format!(
                "the HTTP server printed no URL within {} s",
                SERVER_START.as_secs()
            )),
        };
        (Some(Server { child, stdin }), url)
    }

    fn stop(mut self) {
        drop(self.stdin.take());
        // Already gone is fine: the kill only makes sure.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where an HTTP trial sends its vector, or why it cannot.
type Url = Arc<Result<String, String>>;

/// The bindings a vector runs in.
fn applies(v: &Vector, binding: &str) -> bool {
    match binding {
        "stdio" => v.binding != BindingSel::Http && v.lifecycle != LifecycleSel::PerEvent,
        "per_event" => v.binding != BindingSel::Http && v.lifecycle != LifecycleSel::Persistent,
        _ => v.binding != BindingSel::Stdio,
    }
}

fn run(v: &Vector, target: &Target) -> Result<(), Failed> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("a tokio runtime: {e}"))?;
    let o: Outcome = runtime.block_on(run_vector(v, target, &config()));
    if o.verdict == Verdict::Pass {
        return Ok(());
    }
    // A skip checked nothing: only applicable trials are made, every
    // policy is declared, so it is a failure too.
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

/// Every trial: one per line, vector and binding that applies. `stop`, when
/// given, is the oracle's first-failure flag.
fn trials(urls: &[(&'static str, Url)], stop: Option<&Arc<AtomicBool>>) -> Vec<Trial> {
    let mut out = Vec::new();
    for line in &LINES {
        let vectors = match vectors(line) {
            Ok(v) => v,
            Err(e) => {
                out.push(Trial::test(
                    format!("unreadable::{}", line.folder),
                    move || Err(e.into()),
                ));
                continue;
            }
        };
        let url = urls
            .iter()
            .find(|(name, _)| *name == line.name)
            .map(|(_, u)| u.clone());
        for v in vectors {
            let v = Arc::new(v);
            for binding in ["stdio", "per_event", "http"] {
                if !applies(&v, binding) {
                    continue;
                }
                let target = match binding {
                    "stdio" => Ok(stdio(line, Lifecycle::Persistent)),
                    "per_event" => Ok(stdio(line, Lifecycle::PerEvent)),
                    _ => match url.as_deref() {
                        Some(Ok(url)) => Ok(Target::Http { url: url.clone() }),
                        Some(Err(e)) => Err(e.clone()),
                        None => Err("no HTTP server was started for this line".to_owned()),
                    },
                };
                let (v, stop) = (v.clone(), stop.cloned());
                let name = format!("{binding}::{}", v.id);
                out.push(
                    Trial::test(name.clone(), move || {
                        if stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                            return Err("not run: an earlier trial failed".into());
                        }
                        let result = target.map_err(Failed::from).and_then(|target| {
                            confirmed(&name, stop.is_some(), || run(&v, &target))
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
        .unwrap_or(4)
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

/// The folders the trials read, for the self-check.
fn folders() -> Vec<PathBuf> {
    LINES
        .iter()
        .map(|l| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(l.folder)
        })
        .collect()
}

fn main() {
    let mut args = Arguments::from_args();
    let oracle = oracle();
    if oracle {
        if args.filter.is_some() || !args.skip.is_empty() {
            refuse("a test filter narrows the oracle's vectors: run them whole");
        }
        args.include_ignored = true;
        args.test_threads = args.test_threads.or(Some(threads()));
    }
    // Servers only when the HTTP trials will run.
    let wanted = args.include_ignored || args.ignored;
    let mut servers = Vec::new();
    let mut urls = Vec::new();
    for line in &LINES {
        let url = if wanted {
            let (server, url) = Server::start(line);
            servers.extend(server);
            url
        } else {
            Err("not started: the trials are ignored".to_owned())
        };
        urls.push((line.name, Arc::new(url)));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut all = trials(&urls, oracle.then_some(&stop));
    if oracle {
        if all.is_empty() {
            refuse("no backend vector was found");
        }
        all.sort_by_key(|t| scatter(t.name()));
    } else {
        all = all.into_iter().map(|t| t.with_ignored_flag(true)).collect();
        // The one trial a plain `cargo test` runs: both lines hold backend
        // vectors, so the oracle can never be empty.
        all.push(Trial::test("self_check::both_lines_hold_vectors", || {
            for dir in folders() {
                let n = load_dir(&dir).map_err(|e| e.to_string())?.len();
                if n == 0 {
                    return Err(format!("{}: no backend vector", dir.display()).into());
                }
            }
            Ok(())
        }));
    }
    let conclusion = libtest_mimic::run(&args, all);
    for server in servers {
        server.stop();
    }
    conclusion.exit();
}
