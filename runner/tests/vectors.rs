//! Every vector as its own `cargo test` trial (libtest-mimic), run against
//! the in-process reference host with `ctk run`'s own loader and engine.
//!
//! Trials are named `part::id`, their kind is the spec version. Vectors that
//! belong only to the draft are ignored trials (`-- --include-ignored` runs
//! them). An unreadable vector file is a failing trial named after the file.
//! `tests/expected-failures.txt` lists `ID  reason` lines; an expected
//! failure that passes FAILS, and so does an entry naming no vector.
//!
//! `CTK_ORACLE=project|upstream` makes this target the oracle of the
//! mutation run (`reports/mutation/run`, issue 13): exactly one suite's
//! vectors, ignored (draft) trials included, no self-check trials, and a
//! failing trial when the suite holds no vector or a filter narrows it, so
//! a run that checked nothing can never look like a mutant that survived.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ctk::outcome::Status;
use ctk_agent_hooks_suite::declaration;
use ctk_agent_hooks_suite::engine::{run_vector, EngineOptions};
use ctk_agent_hooks_suite::surface::{applicability, Applicability};
use ctk_agent_hooks_suite::vector::load::{self, LoadedVector, VectorSource};
use ctk_agent_hooks_suite::vector::model::SpecVersion;
use ctk_harness_protocol::Harness as _;
use ctk_reference_host::ReferenceHost;
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
        jobs: 1,
        interrupted: Default::default(),
        fail_fast: false,
    }
}

fn run(
    loaded: &LoadedVector,
    options: &EngineOptions,
    expected: Option<&String>,
) -> Result<(), Failed> {
    let mut options = options.clone();
    if !loaded.vector.spec_versions().contains(&SpecVersion::V0_1) {
        options.spec = SpecVersion::Draft;
    }
    let outcome = runtime().block_on(run_vector(&mut ReferenceHost::new(), loaded, &options));
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

fn trials_for(
    files: Vec<(PathBuf, Result<LoadedVector, String>)>,
    options: &Arc<EngineOptions>,
    expected: &mut BTreeMap<String, String>,
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
        trials.push(
            Trial::test(name, move || run(&loaded, &options, entry.as_ref()))
                .with_kind(kind)
                .with_ignored_flag(draft_only || not_applicable),
        );
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

/// Which suite `CTK_ORACLE` names, if any.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Oracle {
    Project,
    Upstream,
}

fn oracle() -> Option<Oracle> {
    match std::env::var("CTK_ORACLE").ok()?.as_str() {
        "project" => Some(Oracle::Project),
        "upstream" => Some(Oracle::Upstream),
        other => panic!("CTK_ORACLE={other:?}: expected `project` or `upstream`"),
    }
}

/// The mutation oracle: one suite, every vector of it run, and no way for
/// an empty or filtered selection to pass.
fn oracle_main(mut args: Arguments, oracle: Oracle, options: &Arc<EngineOptions>) -> ! {
    let narrowed = args.filter.is_some() || !args.skip.is_empty();
    args.include_ignored = true;
    let mut expected = expected_failures();
    let trials = match oracle {
        Oracle::Project => [SpecVersion::V0_1, SpecVersion::Draft]
            .into_iter()
            .flat_map(|spec| {
                trials_for(files(&VectorSource::Embedded(spec)), options, &mut expected)
            })
            .collect::<Vec<_>>(),
        Oracle::Upstream => match upstream::upstream(upstream::UPSTREAM_VECTORS) {
            Some(dir) => trials_for(files(&VectorSource::Dir(dir)), options, &mut expected),
            None => Vec::new(),
        },
    };
    // Refused outright, not as a trial: a filter could hide a trial too.
    if narrowed || trials.is_empty() {
        eprintln!(
            "CTK_ORACLE={oracle:?}: {}",
            if narrowed {
                "a test filter narrows the oracle's suite: run it whole"
            } else {
                "the oracle's suite holds no vector"
            }
        );
        std::process::exit(101);
    }
    // Expected-failure entries of the other suite are not this oracle's.
    libtest_mimic::run(&args, trials).exit();
}

fn main() {
    let args = Arguments::from_args();
    let options = Arc::new(options());
    if let Some(oracle) = oracle() {
        oracle_main(args, oracle, &options);
    }
    let mut expected = expected_failures();
    let mut trials = Vec::new();
    // Upstream vectors are interop trials: a visible skip without ../shared,
    // a failure under CTK_REQUIRE_UPSTREAM=1.
    if let Some(dir) = upstream::upstream(upstream::UPSTREAM_VECTORS) {
        trials.extend(trials_for(
            files(&VectorSource::Dir(dir)),
            &options,
            &mut expected,
        ));
    }
    // An empty embedded set (the draft line today) simply adds no trial.
    for spec in [SpecVersion::V0_1, SpecVersion::Draft] {
        trials.extend(trials_for(
            files(&VectorSource::Embedded(spec)),
            &options,
            &mut expected,
        ));
    }
    // `CTK_EXTRA_VECTORS=DIR` adds a folder (used to check that bad files
    // become trials of their own).
    if let Some(dir) = std::env::var_os("CTK_EXTRA_VECTORS") {
        trials.extend(trials_for(
            files(&VectorSource::Dir(PathBuf::from(dir))),
            &options,
            &mut expected,
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
