//! The harness-role suite against small Python harnesses behind the
//! adapter contract (tests/harness/adapter.py): the correct one passes
//! every vector; each broken one fails the vectors that check the rule it
//! breaks; nothing is left running.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ctk_ahp_suite::harness::{
    load_harness_dir, run_harness_vector_recorded, AdapterCommand, HarnessConfig, HarnessVector,
    ScriptedCommand,
};
use ctk_ahp_suite::{Outcome, Verdict};

fn vectors() -> Vec<HarnessVector> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/ahp/0.1");
    load_harness_dir(&dir).expect("the harness vectors load and lint clean")
}

fn config(work: &Path) -> HarnessConfig {
    let mut cfg = HarnessConfig::new(ScriptedCommand {
        program: PathBuf::from(env!("CARGO_BIN_EXE_ctk-ahp-scripted")),
        prefix_args: Vec::new(),
    });
    cfg.vector_timeout = Duration::from_secs(90);
    cfg.work_dir = Some(work.to_owned());
    cfg
}

/// Live processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) || name == me {
            continue;
        }
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        if stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        {
            continue;
        }
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) {
            out.push(format!("{name}: {cmd}"));
        }
    }
    out
}

fn python_adapter(mode: &str) -> AdapterCommand {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/harness/adapter.py");
    AdapterCommand::new(
        "python3",
        [script.display().to_string(), "--mode".into(), mode.into()],
    )
}

/// A runtime on the test's own thread, for a test that drives one vector.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Run `vectors` (those `pick` keeps) against `adapter`, three at a time.
fn run(adapter: AdapterCommand, pick: impl Fn(&HarnessVector) -> bool) -> Vec<Outcome> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let chosen: Vec<HarnessVector> = vectors().into_iter().filter(|v| pick(v)).collect();
    assert!(!chosen.is_empty(), "the filter keeps no vector");
    let work = tempfile::tempdir().unwrap();
    let cfg = Arc::new(config(work.path()));
    // The adapter's command line, as /proc shows it (NULs as spaces).
    let needle = std::iter::once(adapter.program.clone())
        .chain(adapter.args.iter().cloned())
        .map(|a| a.to_string_lossy().into_owned() + " ")
        .collect::<String>();
    let mode = adapter
        .args
        .last()
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_else(|| "reference".into());
    let adapter = Arc::new(adapter);
    let out = rt.block_on(async move {
        let permits = Arc::new(tokio::sync::Semaphore::new(3));
        let mut set = tokio::task::JoinSet::new();
        for (i, v) in chosen.into_iter().enumerate() {
            let (cfg, adapter, permits) = (cfg.clone(), adapter.clone(), permits.clone());
            set.spawn(async move {
                let _p = permits.acquire().await.unwrap();
                let (o, rec) = run_harness_vector_recorded(&v, &adapter, &cfg).await;
                if o.verdict != Verdict::Pass && o.verdict != Verdict::Skip {
                    if let Some(r) = rec {
                        eprintln!(
                            "--- {} record: calls {} received {}\n{}",
                            v.id,
                            serde_json::to_string(&r.calls).unwrap(),
                            r.received.len(),
                            r.adapter_stderr
                        );
                    }
                }
                (i, o)
            });
        }
        let mut out = Vec::new();
        while let Some(r) = set.join_next().await {
            out.push(r.unwrap());
        }
        out.sort_by_key(|(i, _)| *i);
        out.into_iter().map(|(_, o)| o).collect::<Vec<_>>()
    });
    let tally = |x: Verdict| out.iter().filter(|o| o.verdict == x).count();
    eprintln!(
        "{mode}: {} vectors: {} pass, {} fail, {} skip, {} error",
        out.len(),
        tally(Verdict::Pass),
        tally(Verdict::Fail),
        tally(Verdict::Skip),
        tally(Verdict::Error)
    );
    for o in out.iter().filter(|o| o.verdict == Verdict::Skip) {
        eprintln!("  skipped {}: {}", o.id, o.reason.as_deref().unwrap_or(""));
    }
    // Nothing the run started is left: no scripted backend of this run's
    // folder, no adapter process.
    std::thread::sleep(Duration::from_millis(300));
    let left = processes_mentioning(&work.path().display().to_string());
    assert!(left.is_empty(), "scripted backends left running: {left:?}");
    let left = processes_mentioning(&needle);
    assert!(left.is_empty(), "adapters left running: {left:?}");
    out
}

fn show(o: &Outcome) -> String {
    format!(
        "{} {:?} {}{}",
        o.id,
        o.verdict,
        o.reason.clone().unwrap_or_default(),
        o.failures
            .iter()
            .map(|f| format!("\n    {}: {}", f.key, f.message))
            .collect::<String>()
    )
}

#[test]
fn probe_adapter_reads_the_declaration_and_leaves_nothing() {
    let work = tempfile::tempdir().unwrap();
    let cfg = config(work.path());
    let adapter = python_adapter("probe");
    let rt = runtime();
    let info = rt
        .block_on(ctk_ahp_suite::harness::probe_adapter(&adapter, &cfg))
        .expect("the python adapter initializes");
    assert_eq!(info.adapter, "ctk-ahp-adapter/1");
    assert_eq!(info.version, "0.1.0-probe");
    assert!(info.bindings.contains(&"http".to_owned()), "{info:?}");
    let left = processes_mentioning("--mode probe");
    assert!(left.is_empty(), "{left:?}");
}

/// The failure matrix is complete (issue 27): every class under both
/// policies in every transport and lifecycle where it can occur.
#[test]
fn the_failure_matrix_is_complete() {
    use ctk_ahp_suite::harness::matrix::{failure_matrix, holes, render_markdown};
    let m = failure_matrix(&vectors());
    assert!(m.len() >= 50, "{} classes", m.len());
    let h = holes(&m, ctk_ahp_suite::harness::matrix::TIED_0_1);
    assert!(h.is_empty(), "{}\n{}", h.join("\n"), render_markdown(&m));
}

/// The observe half is complete too (issue 27): every class an observer
/// can exhibit runs in each transport and lifecycle where it can occur,
/// beside an interceptor that lets the tool run and one that denies it.
#[test]
fn the_observe_failure_matrix_is_complete() {
    use ctk_ahp_suite::harness::matrix::{
        observe_holes, observe_matrix, render_observe_markdown, OBSERVE_CLASSES, OBSERVE_TIED_0_1,
    };
    let m = observe_matrix(&vectors());
    let h = observe_holes(&m, OBSERVE_TIED_0_1, OBSERVE_CLASSES);
    assert!(
        h.is_empty(),
        "{}\n{}",
        h.join("\n"),
        render_observe_markdown(&m)
    );
    assert!(
        m.keys().filter(|c| c.starts_with("http_")).count() >= 20,
        "{m:?}"
    );
}

#[test]
fn there_are_enough_vectors_and_they_cover_every_class_both_ways() {
    let vs = vectors();
    assert!(vs.len() >= 70, "{} vectors", vs.len());
    let classes: std::collections::BTreeSet<(String, String, String)> = vs
        .iter()
        .filter_map(|v| {
            Some((
                v.failure_class.clone()?,
                v.failure_policy.clone()?,
                format!("{:?}", v.binding),
            ))
        })
        .collect();
    for class in [
        "deadline_exceeded",
        "late_reply",
        "malformed_json",
        "wrong_id",
        "unadvertised_allow",
    ] {
        for policy in ["fail-open", "fail-closed"] {
            for binding in ["Stdio", "Http"] {
                assert!(
                    classes.contains(&(class.into(), policy.into(), binding.into())),
                    "{class} {policy} {binding}"
                );
            }
        }
    }
}

/// Every vector `pick` keeps passes against `mode` (and there is one).
fn each_passes(mode: &str, pick: impl Fn(&HarnessVector) -> bool) {
    let outcomes = run(python_adapter(mode), pick);
    assert!(!outcomes.is_empty(), "{mode}: no vector was picked");
    let bad: Vec<String> = outcomes
        .iter()
        .filter(|o| o.verdict != Verdict::Pass)
        .map(show)
        .collect();
    assert!(
        bad.is_empty(),
        "{mode}: {} of {} not passed:\n{}",
        bad.len(),
        outcomes.len(),
        bad.join("\n")
    );
}

#[test]
fn the_correct_python_harness_passes_every_vector() {
    each_passes("correct", |_| true);
}

/// A correct implementation cannot fail (issue 26): the harness taking the
/// choices the text leaves open the other way passes every gating vector.
#[test]
fn the_python_harness_taking_the_other_readings_passes_every_gating_vector() {
    each_passes("other-readings", |v| v.advisory.is_none());
}

/// Every vector `pick` keeps fails against `mode` (and there is one).
fn each_fails(mode: &str, pick: impl Fn(&HarnessVector) -> bool) {
    let outcomes = run(python_adapter(mode), pick);
    let passed: Vec<String> = outcomes
        .iter()
        .filter(|o| o.verdict != Verdict::Fail)
        .map(show)
        .collect();
    assert!(
        passed.is_empty(),
        "{mode}: {} of {} vectors did not fail:\n{}",
        passed.len(),
        outcomes.len(),
        passed.join("\n")
    );
}

fn synthetic_expected(v: &HarnessVector) -> bool {
    v.triggers.iter().any(|t| {
        t.expect.denial == Some(ctk_ahp_suite::harness::vector::Denial::Synthetic)
            && t.expect.outcome == [ctk_ahp_suite::harness::adapter::ToolOutcome::Denied]
    })
}

#[test]
fn a_harness_that_ignores_fail_closed_fails_every_fail_closed_failure_vector() {
    each_fails("ignore-fail-closed", |v| {
        v.failure_policy.as_deref() == Some("fail-closed") && synthetic_expected(v)
    });
}

#[test]
fn a_harness_that_asks_interceptors_in_parallel_fails_the_ordering_vectors() {
    each_fails("parallel", |v| {
        v.title.contains("never overlap")
            || v.title.contains("short-circuits")
            || (v.failure_policy.as_deref() == Some("fail-closed")
                && v.failure_class.as_deref() == Some("malformed_json")
                && v.lifecycle != ctk_ahp_suite::vector::LifecycleSel::PerEvent)
    });
}

/// Parallel tool calls whose replies are matched by arrival instead of by
/// id (17.2): the gating parallel vectors over a persistent backend catch
/// it, and so does the advisory one-outstanding vector (D-17).
#[test]
fn a_harness_that_matches_parallel_replies_by_arrival_fails_the_parallel_vectors() {
    each_fails("fifo-replies", |v| {
        v.triggers.iter().any(|t| !t.parallel.is_empty())
            && v.lifecycle == ctk_ahp_suite::vector::LifecycleSel::Persistent
    });
}

/// The parallel-call vectors need the adapter feature: without it they are
/// skipped, naming it; an adapter that breaks `harness/tool_calls`, or does
/// not carry the kit's call ids (so the calls cannot be told apart), makes
/// them errors, never verdicts.
#[test]
fn parallel_vectors_need_the_feature_and_a_contract_gap_is_an_error() {
    let rt = runtime();
    let v = vectors()
        .into_iter()
        .find(|v| {
            v.advisory.is_none()
                && v.lifecycle == ctk_ahp_suite::vector::LifecycleSel::Persistent
                && v.triggers.iter().any(|t| !t.parallel.is_empty())
        })
        .expect("a gating parallel vector over a persistent backend");
    let work = tempfile::tempdir().unwrap();
    let mut cfg = config(work.path());
    cfg.setup_limit = Duration::from_secs(10);
    let init = r#"import sys,json
for line in sys.stdin:
    m=json.loads(line)
    if m["method"]=="initialize":
        r={"adapter":"ctk-ahp-adapter/1","name":"x","version":"0","protocolVersions":["0.1"],"bindings":["stdio","http"],"lifecycles":["persistent","per_event"],"profiles":["base","tool-interception","stdio","http"]FEATURES}
    elif m["method"]=="harness/load": r={"loaded":True}
    elif m["method"]=="harness/tool_calls": r={"results":[{"outcome":"executed"}]}
    else: r={}
    print(json.dumps({"jsonrpc":"2.0","id":m["id"],"result":r}),flush=True)
"#;
    let python = |features: &str| {
        AdapterCommand::new("python3", ["-c", &init.replace("FEATURES", features)])
    };
    let cases: Vec<(&str, AdapterCommand, Verdict, &str)> = vec![
        (
            "no features",
            python(""),
            Verdict::Skip,
            "adapter does not implement parallel-tool-calls (added in ctk 0.2.0)",
        ),
        (
            "an unknown feature only",
            python(r#","features":["teleport"]"#),
            Verdict::Skip,
            "parallel-tool-calls",
        ),
        (
            "one result for two calls",
            python(r#","features":["parallel-tool-calls"]"#),
            Verdict::Error,
            "`results` has 1 entries for 2 calls",
        ),
        (
            "the kit's call ids not carried",
            python_adapter("own-call-ids"),
            Verdict::Error,
            "carries none of the call ids the kit gave",
        ),
    ];
    for (what, adapter, want, text) in cases {
        let (o, _) = rt.block_on(run_harness_vector_recorded(&v, &adapter, &cfg));
        let got = format!("{:?} {:?}", o.reason, o.failures);
        assert_eq!(o.verdict, want, "{what}: {got}");
        assert!(got.contains(text), "{what}: {got}");
        // A skip for the feature says so apart from its text, so that the
        // report can refuse the claim for it.
        let feature = (want == Verdict::Skip).then_some("parallel-tool-calls");
        assert_eq!(o.adapter_feature.as_deref(), feature, "{what}");
    }
    // The same adapter passes when it carries the ids: the error above is
    // the gap, not the vector.
    let (o, _) = rt.block_on(run_harness_vector_recorded(
        &v,
        &python_adapter("correct"),
        &cfg,
    ));
    assert_eq!(o.verdict, Verdict::Pass, "{}", show(&o));
}

/// The grammar's rules for a parallel trigger, each named with its place.
#[test]
fn a_malformed_parallel_trigger_is_refused_naming_it() {
    let v = vectors()
        .into_iter()
        .find(|v| v.triggers.iter().any(|t| !t.parallel.is_empty()))
        .unwrap();
    let doc = serde_json::to_value(&v).unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "one call",
            Box::new(|d| {
                d["triggers"][0]["parallel"]
                    .as_array_mut()
                    .unwrap()
                    .truncate(1);
            }),
            "triggers[0].parallel: 1 calls; a parallel trigger makes 2 to 8",
        ),
        (
            "no call id",
            Box::new(|d| {
                d["triggers"][0]["parallel"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("call_id");
            }),
            "triggers[0].parallel[1]: needs a call_id",
        ),
        (
            "a repeated call id",
            Box::new(|d| {
                d["triggers"][0]["parallel"][1]["call_id"] =
                    d["triggers"][0]["parallel"][0]["call_id"].clone();
            }),
            "call_id \"ctk-call-slow\" repeats",
        ),
        (
            "a session inside",
            Box::new(|d| {
                d["triggers"][0]["parallel"][1] = serde_json::json!({"session": "session.start"});
            }),
            "triggers[0].parallel[1]: each entry is one tool_call",
        ),
        (
            "a tool call next to parallel",
            Box::new(|d| {
                d["triggers"][0]["tool_call"] =
                    d["triggers"][0]["parallel"][0]["tool_call"].clone();
            }),
            "exactly one of tool_call, session, parallel",
        ),
        (
            "no adapter_features",
            Box::new(|d| {
                d.as_object_mut().unwrap().remove("adapter_features");
            }),
            "a parallel trigger needs adapter_features [\"parallel-tool-calls\"]",
        ),
        (
            "an unknown feature",
            Box::new(|d| {
                d["adapter_features"] = serde_json::json!(["parallel-tool-calls", "teleport"]);
            }),
            "adapter_features[1]: \"teleport\" is no feature of ctk-ahp-adapter/1",
        ),
        (
            "an unknown backend in a call's expectation",
            Box::new(|d| {
                d["triggers"][0]["parallel"][0]["expect"]["calls"] = serde_json::json!(["Z"]);
            }),
            "unknown backend \"Z\"",
        ),
    ];
    for (what, edit, want) in cases {
        let mut d = doc.clone();
        edit(&mut d);
        let bytes = serde_json::to_vec(&d).unwrap();
        let e = ctk_ahp_suite::harness::vector::parse_harness(Path::new("x.json"), &bytes)
            .expect_err(what)
            .to_string();
        assert!(e.contains(want), "{what}: {e}");
    }
    // A member of the wrong shape inside an entry is located.
    let mut d = doc.clone();
    d["triggers"][0]["parallel"][1]["expect"]["outcome"] = serde_json::json!("executed");
    let bytes = serde_json::to_vec(&d).unwrap();
    let e = ctk_ahp_suite::harness::vector::parse_harness(Path::new("x.json"), &bytes)
        .unwrap_err()
        .to_string();
    assert!(e.contains("/triggers/0/parallel/1/expect"), "{e}");
}

#[test]
fn a_harness_that_follows_redirects_fails_the_redirect_vectors() {
    each_fails("follow-redirects", |v| {
        v.failure_class
            .as_deref()
            .is_some_and(|c| c.starts_with("http_redirect"))
    });
}

#[test]
fn a_harness_that_leaks_the_token_fails_the_bearer_vectors() {
    each_fails("leak-token", |v| {
        v.load_env.contains_key("CTK_AHP_BEARER")
            && v.expect.load != ctk_ahp_suite::harness::vector::LoadExpect::Refused
    });
}

/// The reference harness (crate ahp-harness, binary ctk-ahp-harness), when
/// it is built in this checkout's target folder. `CTK_REQUIRE_REFERENCE_HARNESS=1`
/// turns its absence into a failure; otherwise a visible SKIPPED line.
#[test]
fn the_reference_harness_passes_every_vector() {
    let exe = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/ctk-ahp-harness");
    if !exe.is_file() {
        assert!(
            std::env::var_os("CTK_REQUIRE_REFERENCE_HARNESS").is_none(),
            "{} is not built (cargo build -p ctk-ahp-reference-harness)",
            exe.display()
        );
        eprintln!("SKIPPED (reference harness not built: {})", exe.display());
        return;
    }
    let outcomes = run(AdapterCommand::new(exe, Vec::<String>::new()), |_| true);
    let bad: Vec<String> = outcomes
        .iter()
        .filter(|o| {
            o.verdict != Verdict::Pass && !(o.advisory.is_some() && o.verdict == Verdict::Fail)
        })
        .map(show)
        .collect();
    let advisory: Vec<String> = outcomes
        .iter()
        .filter(|o| o.advisory.is_some() && o.verdict == Verdict::Fail)
        .map(show)
        .collect();
    eprintln!(
        "reference harness: advisory failures (reported, never gating):\n{}",
        advisory.join("\n")
    );
    assert!(
        bad.is_empty(),
        "{} of {} gating vectors not passed:\n{}",
        bad.len(),
        outcomes.len(),
        bad.join("\n")
    );
}

#[test]
fn the_generator_reproduces_the_committed_vectors() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/ahp/gen/harness.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "regenerate with `python3 vectors/ahp/gen/harness.py`: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_vector_cites_catalog_clauses_and_recorded_decisions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let catalog: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("spec/ahp/0.1/clauses.json")).unwrap(),
    )
    .unwrap();
    let clauses: std::collections::BTreeSet<&str> = catalog["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    let decisions = std::fs::read_to_string(root.join("spec/ahp/0.1/DECISIONS.md")).unwrap();
    for v in vectors() {
        for c in &v.covers {
            assert!(clauses.contains(c.as_str()), "{}: unknown clause {c}", v.id);
        }
        if let Some(d) = &v.advisory {
            assert!(
                decisions.contains(&format!("### {d}.")),
                "{}: unrecorded decision {d}",
                v.id
            );
        }
        for r in &v.requirements {
            assert!(r.starts_with("AHP-"), "{}: requirement {r}", v.id);
        }
    }
}

/// An adapter that breaks the contract gives `error` outcomes (the harness
/// was not judged), within the call bounds, and nothing is left running.
#[test]
fn adapters_that_break_the_contract_are_errors_not_verdicts() {
    let rt = runtime();
    let v = vectors()
        .into_iter()
        .find(|v| v.title.starts_with("No effect over stdio persistent"))
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut cfg = config(work.path());
    cfg.call_limit = Duration::from_secs(2);
    // Generous: a python3 start on a loaded 2-core machine can take seconds,
    // and no case below waits the limit out.
    cfg.setup_limit = Duration::from_secs(10);
    let init = r#"import sys,json,time
for line in sys.stdin:
    m=json.loads(line)
    if m["method"]=="initialize":
        r={"adapter":"ctk-ahp-adapter/1","name":"x","version":"0","protocolVersions":["0.1"],"bindings":["stdio","http"],"lifecycles":["persistent","per_event"],"profiles":["base","tool-interception","stdio","http"]}
    elif m["method"]=="harness/load": r={"loaded":True}
    elif m["method"]=="harness/tool_call": MODE
    else: r={}
    print(json.dumps({"jsonrpc":"2.0","id":m["id"],"result":r}),flush=True)
"#;
    let cases: Vec<(&str, AdapterCommand, &str)> = vec![
        (
            "missing program",
            AdapterCommand::new(work.path().join("no-such-adapter"), Vec::<String>::new()),
            "cannot start adapter",
        ),
        (
            "banner on stdout",
            AdapterCommand::new(
                "python3",
                [
                    "-c",
                    "print('hello, I am an adapter', flush=True)\nimport time; time.sleep(30)",
                ],
            ),
            "not JSON-RPC",
        ),
        (
            "wrong contract",
            AdapterCommand::new(
                "python3",
                [
                    "-c",
                    &init
                        .replace("ctk-ahp-adapter/1", "other/9")
                        .replace("MODE", "r={}"),
                ],
            ),
            "the kit speaks",
        ),
        (
            "hangs on tool_call",
            AdapterCommand::new("python3", ["-c", &init.replace("MODE", "time.sleep(60)")]),
            "did not answer harness/tool_call",
        ),
        (
            "a result outside the contract",
            AdapterCommand::new(
                "python3",
                ["-c", &init.replace("MODE", "r={'outcome':'ran'}")],
            ),
            "breaks the contract",
        ),
    ];
    for (what, adapter, want) in cases {
        let started = std::time::Instant::now();
        let (o, _) = rt.block_on(run_harness_vector_recorded(&v, &adapter, &cfg));
        let text = format!("{:?} {:?}", o.reason, o.failures);
        assert!(
            o.verdict == Verdict::Error,
            "{what}: {:?} {text}",
            o.verdict
        );
        assert!(text.contains(want), "{what}: {text}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{what} took {:?}",
            started.elapsed()
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    let left = processes_mentioning(&work.path().display().to_string());
    assert!(left.is_empty(), "left running: {left:?}");
}

#[test]
fn a_harness_that_waits_past_the_deadline_fails_the_late_reply_vectors() {
    each_fails("wait-late", |v| {
        v.failure_class.as_deref() == Some("late_reply")
    });
}

/// The loop may give a vector's job away only once the vector has nothing
/// left but waiting: the engine says so exactly once (just before its
/// settle window), and the verdict does not depend on it.
#[test]
fn the_engine_says_once_that_only_waiting_is_left() {
    let rt = runtime();
    let v = vectors()
        .into_iter()
        .find(|v| v.advisory.is_none() && !v.has_short_deadline())
        .expect("a gating vector");
    let work = tempfile::tempdir().unwrap();
    let cfg = config(work.path());
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let settling = || {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    };
    let o = rt.block_on(ctk_ahp_suite::harness::run_harness_vector_releasing(
        &v,
        &python_adapter("correct"),
        &cfg,
        &settling,
    ));
    assert_eq!(o.verdict, Verdict::Pass, "{}", show(&o));
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
}
