//! Every vector as its own `cargo test` trial (libtest-mimic), run against
//! the in-process reference host with `ctk run`'s own loader and engine.
//!
//! Trials are named `part::id`, their kind is the spec version. Vectors that
//! belong only to the draft are ignored trials (`-- --include-ignored` runs
//! them). An unreadable vector file is a failing trial named after the file.
//! `tests/expected-failures.txt` lists `ID  reason` lines; an expected
//! failure that passes FAILS, and so does an entry naming no vector.
//!
//! Each 0.1 vector that applies to a narrower surface the reference host
//! can run as (`agent-hooks/reference-host/surfaces/`: a floor host, a tool router; and
//! the buffered host, for the vectors only a buffered host runs) is
//! also a trial `surface/<name>::part::id` against
//! `ReferenceHost::with_declaration`, so the loop of a host without a model
//! (`agent-hooks/adapter/HOSTS.md` §4.6) is judged by the vectors too.
//!
//! `CTK_ORACLE=project|upstream|both` makes this target the oracle of the
//! mutation run (`reports/mutation/run`, issue 13): one suite's vectors (or
//! both suites, one after the other), ignored (draft) trials included, no
//! self-check trials, and a refusal when a suite holds no vector or a
//! filter narrows it, so a run that checked nothing can never look like a
//! mutant that survived. A suite stops at its first failing vector: the
//! mutant is caught, and the vectors left are failed as not run rather
//! than run for nothing (a mutation run is hours of this binary).
//! `both` judges one build of a mutant by both suites: the exit status is
//! the project suite's (cargo-mutants' verdict), and each suite's verdict
//! is appended to the ledger file `CTK_ORACLE_LEDGER` names, after a line
//! holding the mutation itself (`git diff -U0` of `agent-hooks/reference-host/src`), so
//! render.py can pair every verdict with cargo-mutants' mutant.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ctk::outcome::Status;
use ctk_agent_hooks_adapter::HostAdapter as _;
use ctk_agent_hooks_reference_host::ReferenceHost;
use ctk_agent_hooks_suite::declaration;
use ctk_agent_hooks_suite::engine::{run_vector, EngineOptions, LoopOptions};
use ctk_agent_hooks_suite::surface::{applicability, Applicability};
use ctk_agent_hooks_suite::vector::generate;
use ctk_agent_hooks_suite::vector::load::{self, LoadedVector, VectorSource};
use ctk_agent_hooks_suite::vector::model::SpecVersion;
use libtest_mimic::{Arguments, Failed, Trial};

// The integration tests' upstream helper; this binary uses only part of it.
#[allow(dead_code)]
#[path = "integration/upstream.rs"]
mod upstream;

const EXPECTED_FAILURES: &str = include_str!("expected-failures.txt");

fn expected_failures() -> BTreeMap<String, String> {
    EXPECTED_FAILURES
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((id, reason)) => (id.to_owned(), reason.trim().to_owned()),
            None => (l.to_owned(), String::new()),
        })
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn options() -> EngineOptions {
    let mut host = ReferenceHost::new();
    let info = runtime()
        .block_on(host.info())
        .expect("the reference host identifies itself");
    let document = info
        .declaration
        .expect("the reference host has a declaration");
    EngineOptions {
        spec: SpecVersion::V0_1,
        surface: declaration::surface(&document),
        vector_timeout: Duration::from_secs(30),
        loop_options: LoopOptions {
            jobs: 1,
            fail_fast: false,
            interrupted: Default::default(),
        },
    }
}

/// The other surfaces the reference host runs as in the surface trials:
/// name, declaration document, and the one capability a vector must need
/// to run there (`None`: every vector that applies). The buffered host
/// runs only what the full, incremental one skips (the vectors needing
/// `buffered_output`): everything else it shares with the full host.
const SURFACES: [(&str, &str, Option<&str>); 3] = [
    (
        "floor",
        include_str!("../../agent-hooks/reference-host/surfaces/floor.json"),
        None,
    ),
    (
        "tool-router",
        include_str!("../../agent-hooks/reference-host/surfaces/tool-router.json"),
        None,
    ),
    (
        "buffered",
        include_str!("../../agent-hooks/reference-host/surfaces/buffered.json"),
        Some("buffered_output"),
    ),
];

/// A reference host on `surface` (its declaration document), or the full one.
fn host(surface: Option<&serde_json::Value>) -> Result<ReferenceHost, Failed> {
    match surface {
        None => Ok(ReferenceHost::new()),
        Some(doc) => ReferenceHost::with_declaration(doc.clone()).map_err(Into::into),
    }
}

fn run(
    loaded: &LoadedVector,
    options: &EngineOptions,
    expected: Option<&String>,
) -> Result<(), Failed> {
    run_on(loaded, options, expected, None)
}

fn run_on(
    loaded: &LoadedVector,
    options: &EngineOptions,
    expected: Option<&String>,
    surface: Option<&serde_json::Value>,
) -> Result<(), Failed> {
    let mut options = options.clone();
    if !loaded.vector.spec_versions().contains(&SpecVersion::V0_1) {
        options.spec = SpecVersion::Draft;
    }
    let mut host = host(surface)?;
    let outcome = runtime().block_on(run_vector(&mut host, loaded, &options));
    let passed = matches!(outcome.status, Status::Pass | Status::Skip);
    match (passed, expected) {
        (true, None) | (false, Some(_)) => Ok(()),
        (true, Some(reason)) => Err(format!(
            "{} is listed in tests/expected-failures.txt ({reason}) but passed: remove the entry",
            loaded.vector.id
        )
        .into()),
        (false, None) => {
            let mut text = format!("{}: {}\n", outcome.status.as_str(), outcome.reason);
            for f in &outcome.failures {
                text.push_str(&format!("  {}: {}\n", f.key, f.message));
                if let Some(d) = &f.diff {
                    text.push_str(d);
                }
            }
            Err(text.into())
        }
    }
}

/// `stop`, when given, is the oracle's first-failure flag: once a trial of
/// the suite fails, the trials after it fail at once as not run.
fn trials_for(
    files: Vec<(PathBuf, Result<LoadedVector, String>)>,
    options: &Arc<EngineOptions>,
    expected: &mut BTreeMap<String, String>,
    stop: Option<&Arc<AtomicBool>>,
) -> Vec<Trial> {
    let mut trials = Vec::new();
    for (path, loaded) in files {
        let loaded = match loaded {
            Ok(l) => l,
            Err(e) => {
                let name = format!(
                    "unreadable::{}",
                    path.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| path.display().to_string())
                );
                trials.push(Trial::test(name, move || Err(e.into())));
                continue;
            }
        };
        let specs = loaded.vector.spec_versions();
        let draft_only = !specs.contains(&SpecVersion::V0_1);
        let kind = if draft_only { "draft" } else { "0.1" };
        let spec = if draft_only {
            SpecVersion::Draft
        } else {
            SpecVersion::V0_1
        };
        let not_applicable = matches!(
            applicability(&loaded.vector, &options.surface, spec),
            Applicability::Skip(_)
        );
        let name = format!("{}::{}", loaded.vector.part(), loaded.vector.id);
        let entry = expected.remove(&loaded.vector.id);
        let options = options.clone();
        let stop = stop.cloned();
        trials.push(
            Trial::test(name, move || {
                if stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                    return Err("not run: an earlier vector of this suite failed".into());
                }
                let result = run(&loaded, &options, entry.as_ref());
                if let (Err(_), Some(s)) = (&result, &stop) {
                    s.store(true, Ordering::Relaxed);
                }
                result
            })
            .with_kind(kind)
            .with_ignored_flag(draft_only || not_applicable),
        );
    }
    trials
}

/// The surface trials of the 0.1 vectors in `files`: one per vector that
/// applies to each of [`SURFACES`], run against the reference host on that
/// surface. Vectors listed as expected failures are left to their own trial.
fn surface_trials(
    files: &[(PathBuf, Result<LoadedVector, String>)],
    options: &Arc<EngineOptions>,
    expected: &BTreeMap<String, String>,
    stop: Option<&Arc<AtomicBool>>,
) -> Vec<Trial> {
    let mut trials = Vec::new();
    for (name, text, needing) in SURFACES {
        let document: serde_json::Value =
            serde_json::from_str(text).expect("the surface documents are JSON");
        // The reference host on a surface states that document in
        // `initialize` as its own, as `ctk run` reads it.
        let mut surface = declaration::surface(&document);
        surface.own_buffered_output = Some(surface.buffered_output);
        let options = Arc::new(EngineOptions {
            surface,
            ..(**options).clone()
        });
        let document = Arc::new(document);
        for loaded in files.iter().filter_map(|(_, l)| l.as_ref().ok()) {
            // The buffered host also runs what only a host whose own surface
            // buffers owes (`host_buffers_only`).
            let wanted = |c: &str| {
                loaded.vector.capabilities.iter().any(|v| v == c)
                    || (c == "buffered_output" && loaded.vector.host_buffers_only)
            };
            if expected.contains_key(&loaded.vector.id)
                || needing.is_some_and(|c| !wanted(c))
                || !loaded.vector.spec_versions().contains(&SpecVersion::V0_1)
                || applicability(&loaded.vector, &options.surface, SpecVersion::V0_1)
                    != Applicability::Applies
            {
                continue;
            }
            let trial = format!(
                "surface/{name}::{}::{}",
                loaded.vector.part(),
                loaded.vector.id
            );
            let (loaded, options, document) = (loaded.clone(), options.clone(), document.clone());
            let stop = stop.cloned();
            trials.push(
                Trial::test(trial, move || {
                    if stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                        return Err("not run: an earlier vector of this suite failed".into());
                    }
                    let result = run_on(&loaded, &options, None, Some(&document));
                    if let (Err(_), Some(s)) = (&result, &stop) {
                        s.store(true, Ordering::Relaxed);
                    }
                    result
                })
                .with_kind("0.1"),
            );
        }
    }
    trials
}

/// One entry per file: an unreadable or invalid file (or one reusing an id)
/// becomes its own failing trial and never hides the other vectors.
fn files(source: &VectorSource) -> Vec<(PathBuf, Result<LoadedVector, String>)> {
    match load::load_each(source) {
        Ok(each) => each
            .into_iter()
            .map(|(p, r)| (p, r.map_err(|e| e.to_string())))
            .collect(),
        Err(e) => vec![(PathBuf::from(source.to_string()), Err(e.to_string()))],
    }
}

/// A folder holding a schema-invalid file, a file that is not JSON and a
/// good vector yields three trials: one per bad file, named after it, and the
/// good vector's own.
fn self_check(options: &Arc<EngineOptions>) -> Result<(), Failed> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    for (from, to) in [
        ("bad/AH-CTK-950-corrupt.json", "AH-CTK-950-corrupt.json"),
        (
            "engine/AH-CTK-901-deny-input.json",
            "AH-CTK-901-deny-input.json",
        ),
    ] {
        std::fs::copy(data.join(from), dir.path().join(to)).map_err(|e| e.to_string())?;
    }
    std::fs::write(dir.path().join("zz-broken.json"), "{").map_err(|e| e.to_string())?;
    let trials = trials_for(
        files(&VectorSource::Dir(dir.path().to_path_buf())),
        options,
        &mut BTreeMap::new(),
        None,
    );
    let names: Vec<&str> = trials.iter().map(Trial::name).collect();
    let want = [
        "fail_closed/verdict_gate::AH-CTK-901",
        "unreadable::AH-CTK-950-corrupt.json",
        "unreadable::zz-broken.json",
    ];
    if names == want {
        Ok(())
    } else {
        Err(format!("trials {names:?}, expected {want:?}").into())
    }
}

/// Which suite (or suites) `CTK_ORACLE` names, if any.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Oracle {
    Project,
    Upstream,
    Both,
}

fn oracle() -> Option<Oracle> {
    match std::env::var("CTK_ORACLE").ok()?.as_str() {
        "project" => Some(Oracle::Project),
        "upstream" => Some(Oracle::Upstream),
        "both" => Some(Oracle::Both),
        other => panic!("CTK_ORACLE={other:?}: expected `project`, `upstream` or `both`"),
    }
}

/// Ends the oracle process with a message: a refusal is not a trial, since
/// a filter could hide a trial too.
fn refuse(oracle: Oracle, why: &str) -> ! {
    eprintln!("CTK_ORACLE={oracle:?}: {why}");
    std::process::exit(101);
}

/// The trials of one suite, every vector of it, failing fast, in a fixed
/// order that scatters each part's vectors (the vectors that catch a mutant
/// are mostly of one part, and in file order they would sit together, often
/// near the end), the few that carry a scenario of a MiB or more, or fill a
/// context to the size bound (a context-sized fill), last: a caught mutant
/// seldom waits for them.
fn suite_trials(suite: Oracle, options: &Arc<EngineOptions>) -> Vec<Trial> {
    // Expected-failure entries of the other suite are not this one's.
    let mut expected = expected_failures();
    let stop = Arc::new(AtomicBool::new(false));
    let sources = match suite {
        Oracle::Project => vec![
            VectorSource::Embedded(SpecVersion::V0_1),
            VectorSource::Embedded(SpecVersion::Draft),
        ],
        Oracle::Upstream => upstream::upstream(upstream::UPSTREAM_VECTORS)
            .map(VectorSource::Dir)
            .into_iter()
            .collect(),
        Oracle::Both => unreachable!("a suite is project or upstream"),
    };
    let mut heavy = std::collections::BTreeSet::new();
    let mut trials = Vec::new();
    for source in sources {
        let each = files(&source);
        for (_, loaded) in &each {
            if let Ok(l) = loaded {
                let fills = l
                    .vector
                    .scripts()
                    .iter()
                    .flatten()
                    .any(|r| r.return_.as_ref().is_some_and(generate::holds_pad));
                if fills || l.vector.scenario.get().len() >= 1 << 20 {
                    heavy.insert(format!("{}::{}", l.vector.part(), l.vector.id));
                }
            }
        }
        if suite == Oracle::Project && source == VectorSource::Embedded(SpecVersion::V0_1) {
            trials.extend(surface_trials(&each, options, &expected, Some(&stop)));
        }
        trials.extend(trials_for(each, options, &mut expected, Some(&stop)));
    }
    trials.sort_by_key(|t| (heavy.contains(t.name()), scatter(t.name())));
    trials
}

/// 64-bit FNV-1a of a trial's name: a stable, well-mixed sort key.
fn scatter(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The `both` oracle's ledger: JSON lines appended to `CTK_ORACLE_LEDGER`.
struct Ledger(std::fs::File);

impl Ledger {
    fn open(oracle: Oracle) -> Self {
        let Some(path) = std::env::var_os("CTK_ORACLE_LEDGER") else {
            refuse(oracle, "CTK_ORACLE_LEDGER names no file for the verdicts");
        };
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            Ok(file) => Self(file),
            Err(e) => refuse(
                oracle,
                &format!("cannot append to {}: {e}", Path::new(&path).display()),
            ),
        }
    }

    /// One line, written whole and flushed at once: a mutant that spins is
    /// killed, and the lines before that must already be on disk.
    fn line(&mut self, value: serde_json::Value) {
        let text = format!("{value}\n");
        if let Err(e) = self
            .0
            .write_all(text.as_bytes())
            .and_then(|()| self.0.sync_data())
        {
            refuse(Oracle::Both, &format!("cannot write the ledger: {e}"));
        }
    }
}

/// The mutation this process judges, as `git diff -U0` of the reference
/// host's sources against the checkout's index: render.py checks that it
/// is the mutant cargo-mutants says it ran.
fn mutation() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args([
            "diff",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--",
            "agent-hooks/reference-host/src",
        ])
        .output();
    match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => refuse(
            Oracle::Both,
            &format!("git diff failed: {}", String::from_utf8_lossy(&out.stderr)),
        ),
        Err(e) => refuse(Oracle::Both, &format!("git does not run: {e}")),
    }
}

/// The mutation oracle: every vector of the suite(s) run, and no way for an
/// empty or filtered selection to pass.
fn oracle_main(mut args: Arguments, oracle: Oracle) -> ! {
    if args.filter.is_some() || !args.skip.is_empty() {
        refuse(
            oracle,
            "a test filter narrows the oracle's suite: run it whole",
        );
    }
    args.include_ignored = true;
    // Written before any host code runs, so even a mutant that spins at
    // once leaves its line.
    let mut ledger = (oracle == Oracle::Both).then(|| {
        let mut ledger = Ledger::open(oracle);
        ledger.line(serde_json::json!({"mutation": mutation()}));
        ledger
    });
    let options = Arc::new(options());
    let suites = match oracle {
        // Upstream's suite first: it is the shorter, and a spin in the
        // project's then costs upstream's verdict nothing.
        Oracle::Both => vec![Oracle::Upstream, Oracle::Project],
        one => vec![one],
    };
    let mut caught = false;
    for suite in suites {
        let trials = suite_trials(suite, &options);
        if trials.is_empty() {
            refuse(oracle, &format!("the {suite:?} suite holds no vector"));
        }
        caught = libtest_mimic::run(&args, trials).has_failed();
        if let Some(ledger) = ledger.as_mut() {
            let name = if suite == Oracle::Project {
                "project"
            } else {
                "upstream"
            };
            ledger.line(serde_json::json!({"suite": name, "caught": caught}));
        }
    }
    // The last suite run is the project's (or the only one): its verdict
    // is the exit status cargo-mutants reads.
    std::process::exit(if caught { 101 } else { 0 });
}

fn main() {
    let args = Arguments::from_args();
    if let Some(oracle) = oracle() {
        oracle_main(args, oracle);
    }
    let options = Arc::new(options());
    let mut expected = expected_failures();
    let mut trials = Vec::new();
    // Upstream vectors are interop trials: a visible skip without ../shared,
    // a failure under CTK_REQUIRE_UPSTREAM=1.
    if let Some(dir) = upstream::upstream(upstream::UPSTREAM_VECTORS) {
        trials.extend(trials_for(
            files(&VectorSource::Dir(dir)),
            &options,
            &mut expected,
            None,
        ));
    }
    // An empty embedded set (the draft line today) simply adds no trial.
    for spec in [SpecVersion::V0_1, SpecVersion::Draft] {
        let each = files(&VectorSource::Embedded(spec));
        if spec == SpecVersion::V0_1 {
            trials.extend(surface_trials(&each, &options, &expected, None));
        }
        trials.extend(trials_for(each, &options, &mut expected, None));
    }
    // `CTK_EXTRA_VECTORS=DIR` adds a folder (used to check that bad files
    // become trials of their own).
    if let Some(dir) = std::env::var_os("CTK_EXTRA_VECTORS") {
        trials.extend(trials_for(
            files(&VectorSource::Dir(PathBuf::from(dir))),
            &options,
            &mut expected,
            None,
        ));
    }
    let check_options = options.clone();
    trials.push(Trial::test(
        "self_check::bad_files_become_trials_of_their_own",
        move || self_check(&check_options),
    ));
    for (id, reason) in expected {
        trials.push(Trial::test(
            format!("expected-failures::stale::{id}"),
            move || {
                Err(format!(
                    "tests/expected-failures.txt lists {id} ({reason}), but no vector has that id"
                )
                .into())
            },
        ));
    }
    libtest_mimic::run(&args, trials).exit();
}
