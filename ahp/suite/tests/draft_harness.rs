//! The draft line's harness-role vectors (`vectors/ahp/draft/AHP-DH-*.json`):
//! they load as draft vectors, match their schema and their generator; a
//! malformed one is an error naming the file and the JSON pointer; a
//! 0.1-only harness skips them; and against a small draft harness
//! (tests/harness/draft_adapter.py) the correct mode passes every gating
//! vector that applies while each broken mode fails the vectors that check
//! the draft rule it breaks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ctk_ahp_suite::harness::vector::parse_harness;
use ctk_ahp_suite::harness::{
    load_harness_dir, run_harness_vector, AdapterCommand, HarnessConfig, HarnessVector,
    ScriptedCommand,
};
use ctk_ahp_suite::{Outcome, Verdict};
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn draft_dir() -> PathBuf {
    root().join("vectors/ahp/draft")
}

fn vectors() -> Vec<HarnessVector> {
    load_harness_dir(&draft_dir()).expect("the draft harness vectors load and lint clean")
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The draft's failure matrix is complete (issue 27), with the places the
/// draft ties a class to, each with its reason.
#[test]
fn the_draft_failure_matrix_is_complete() {
    use ctk_ahp_suite::harness::matrix::{failure_matrix, holes, render_markdown, TIED_DRAFT};
    let m = failure_matrix(&vectors());
    let h = holes(&m, TIED_DRAFT);
    assert!(h.is_empty(), "{}\n{}", h.join("\n"), render_markdown(&m));
}

/// The draft's observe half is complete too (issue 27), by the draft's own
/// text: observers never delay the chain or the tool (composition.md), and
/// observe subscriptions are non-blocking (failure.md).
#[test]
fn the_draft_observe_failure_matrix_is_complete() {
    use ctk_ahp_suite::harness::matrix::{
        observe_holes, observe_matrix, render_observe_markdown, OBSERVE_CLASSES, OBSERVE_TIED_DRAFT,
    };
    let m = observe_matrix(&vectors());
    let h = observe_holes(&m, OBSERVE_TIED_DRAFT, OBSERVE_CLASSES);
    assert!(
        h.is_empty(),
        "{}\n{}",
        h.join("\n"),
        render_observe_markdown(&m)
    );
}

#[test]
fn draft_harness_vectors_load_as_draft_vectors_and_cover_both_policies() {
    let vs = vectors();
    assert!(vs.len() >= 40, "{} draft harness vectors", vs.len());
    let mut open = BTreeSet::new();
    let mut closed = BTreeSet::new();
    for v in &vs {
        assert!(v.id.starts_with("AHP-DH-"), "{}", v.id);
        assert!(v.is_draft(), "{}", v.id);
        assert_eq!(v.wire(), "draft");
        if v.expect.load != ctk_ahp_suite::harness::vector::LoadExpect::Refused {
            assert_eq!(v.registration["protocolVersion"], "draft", "{}", v.id);
            for h in v.registration["hooks"].as_array().unwrap() {
                for s in h["subscriptions"].as_array().unwrap() {
                    assert!(s["content"]["default"].is_string(), "{}: {s}", v.id);
                }
            }
        }
        match (v.failure_class.as_deref(), v.failure_policy.as_deref()) {
            (Some(c), Some("fail-open")) => {
                open.insert(c.to_owned());
            }
            (Some(c), Some("fail-closed")) => {
                closed.insert(c.to_owned());
            }
            _ => {}
        }
    }
    let both: BTreeSet<_> = open.intersection(&closed).collect();
    for class in [
        "deadline_exceeded",
        "late_reply",
        "connection_lost",
        "unreachable",
        "abnormal_exit",
        "malformed_json",
        "malformed_utf8",
        "wrong_id",
        "jsonrpc_error",
        "protocol_version_missing",
        "extension_effect",
        "empty_reason",
        "deny_unknown_member",
        "http_500",
        "http_redirect_307",
    ] {
        assert!(
            both.contains(&class.to_owned()),
            "{class} under both policies"
        );
    }
    // Every advisory vector names a recorded decision of the draft (DD-nn)
    // or of 0.1 (D-nn, carried over).
    let draft = std::fs::read_to_string(root().join("spec/ahp/draft/DECISIONS.md")).unwrap();
    let released = std::fs::read_to_string(root().join("spec/ahp/0.1/DECISIONS.md")).unwrap();
    for v in vs.iter().filter(|v| v.is_advisory()) {
        let d = v.advisory.as_deref().unwrap();
        let text = if d.starts_with("DD-") {
            &draft
        } else {
            &released
        };
        assert!(
            text.contains(&format!("### {d}.")),
            "{}: {d} is not recorded",
            v.id
        );
    }
}

#[test]
fn the_draft_harness_generator_reproduces_the_committed_vectors() {
    let out = std::process::Command::new("python3")
        .arg(root().join("vectors/ahp/gen/draft_harness.py"))
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "regenerate with `python3 vectors/ahp/gen/draft_harness.py`: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_draft_harness_vector_matches_the_harness_vector_schema() {
    let dir = root().join("schemas/ahp/adapter");
    let mut reg = jsonschema::Registry::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let v = read(&e.path());
        let id = v["$id"].as_str().unwrap().to_owned();
        reg = reg.add(id, v).unwrap();
    }
    let registry = reg.prepare().unwrap();
    let schema = read(&root().join("schemas/ahp/harness-vector.schema.json"));
    let validator = jsonschema::options()
        .with_registry(&registry)
        .build(&schema)
        .unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(draft_dir()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("AHP-DH-") {
            continue;
        }
        n += 1;
        let doc = read(&e.path());
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
    assert!(n >= 40, "{n}");
    // The draft line's id and revision are the schema's, and nothing else.
    let mut bad = read(&draft_dir().join("AHP-DH-0001.json"));
    bad["ahp"] = json!("draft-2");
    assert!(!validator.is_valid(&bad));
}

/// The error for `doc` written as a vector file.
fn error_of(doc: &Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("AHP-DH-9999.json");
    let text = serde_json::to_string_pretty(doc).unwrap();
    let err = parse_harness(&path, text.as_bytes())
        .expect_err("a malformed vector is refused")
        .to_string();
    assert!(
        err.contains(&path.display().to_string()),
        "the error names the file: {err}"
    );
    err
}

#[test]
fn a_malformed_draft_harness_vector_names_the_file_and_the_json_pointer() {
    let good = read(&draft_dir().join("AHP-DH-0001.json"));
    assert!(parse_harness(Path::new("AHP-DH-0001.json"), good.to_string().as_bytes()).is_ok());
    let cases: [(&str, Value, &str); 5] = [
        (
            "/backends/A/script/intercept/0/0",
            json!({"do": "sleep"}),
            "a sleep without ms",
        ),
        ("/bogus", json!(1), "an unknown member"),
        ("/triggers/0/host_permission", json!("maybe"), "a bad enum"),
        (
            "/backends/B/binding",
            json!("carrier-pigeon"),
            "a bad binding",
        ),
        (
            "/expect/request_assert",
            json!([{"backend": "A", "ptr": 7}]),
            "a bad predicate",
        ),
    ];
    for (pointer, value, what) in cases {
        let mut doc = good.clone();
        match pointer {
            "/bogus" => {
                doc["bogus"] = value;
            }
            "/expect/request_assert" => {
                doc["expect"]["request_assert"] = value;
            }
            p => *doc.pointer_mut(p).unwrap() = value,
        }
        let err = error_of(&doc);
        let want = if pointer == "/expect/request_assert" {
            "/expect/request_assert/0"
        } else if pointer == "/backends/B/binding" {
            "/backends/B"
        } else {
            pointer
        };
        assert!(
            err.contains(&format!("{want:?}")),
            "{what}: the error names {want}: {err}"
        );
    }
    // The id prefix names the line; the registration speaks the vector's line.
    let mut doc = good.clone();
    doc["id"] = json!("AHP-H-0001");
    let err = error_of(&doc);
    assert!(err.contains("AHP-DH-nnnn"), "{err}");
    let mut doc = good.clone();
    doc["registration"]["protocolVersion"] = json!("0.1");
    assert!(error_of(&doc).contains("registration.protocolVersion"));
    // Strict JSON: a repeated member is refused with its pointer.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("AHP-DH-9998.json");
    let err = parse_harness(&path, br#"{"id": "AHP-DH-0001", "id": "AHP-DH-0002"}"#)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&path.display().to_string()) && err.contains("id"),
        "{err}"
    );
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

fn python(script: &str, mode: &str) -> AdapterCommand {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/harness")
        .join(script);
    AdapterCommand::new(
        "python3",
        [script.display().to_string(), "--mode".into(), mode.into()],
    )
}

/// Run the draft vectors `pick` keeps against `adapter`, three at a time.
fn run(adapter: AdapterCommand, pick: impl Fn(&HarnessVector) -> bool) -> Vec<Outcome> {
    let chosen: Vec<HarnessVector> = vectors().into_iter().filter(|v| pick(v)).collect();
    assert!(!chosen.is_empty(), "the filter keeps no vector");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let cfg = Arc::new(config(work.path()));
    let adapter = Arc::new(adapter);
    rt.block_on(async move {
        let permits = Arc::new(tokio::sync::Semaphore::new(3));
        let mut set = tokio::task::JoinSet::new();
        for (i, v) in chosen.into_iter().enumerate() {
            let (cfg, adapter, permits) = (cfg.clone(), adapter.clone(), permits.clone());
            set.spawn(async move {
                let _p = permits.acquire().await.unwrap();
                (i, run_harness_vector(&v, &adapter, &cfg).await)
            });
        }
        let mut out = Vec::new();
        while let Some(r) = set.join_next().await {
            out.push(r.unwrap());
        }
        out.sort_by_key(|(i, _)| *i);
        out.into_iter().map(|(_, o)| o).collect()
    })
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
fn a_harness_of_the_released_line_only_skips_every_draft_vector() {
    let out = run(python("adapter.py", "correct"), |v| {
        v.id == "AHP-DH-0001" || v.id == "AHP-DH-0009"
    });
    for o in &out {
        assert_eq!(o.verdict, Verdict::Skip, "{}", show(o));
        assert!(
            o.reason
                .as_deref()
                .is_some_and(|r| r.contains("protocolVersion draft")),
            "{}",
            show(o)
        );
    }
}

#[test]
fn the_test_draft_harness_passes_every_gating_draft_vector_that_applies() {
    let out = run(python("draft_adapter.py", "correct"), |_| true);
    let gating: Vec<&Outcome> = out.iter().filter(|o| o.advisory.is_none()).collect();
    let bad: Vec<String> = gating
        .iter()
        .filter(|o| !matches!(o.verdict, Verdict::Pass | Verdict::Skip))
        .map(|o| show(o))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let passed = gating.iter().filter(|o| o.verdict == Verdict::Pass).count();
    assert!(passed >= 40, "{passed} gating draft vectors passed");
}

/// Every vector `pick` keeps fails (never errors) against `mode`.
fn each_fails(mode: &str, pick: impl Fn(&HarnessVector) -> bool) {
    let out = run(python("draft_adapter.py", mode), pick);
    for o in &out {
        assert_eq!(o.verdict, Verdict::Fail, "{mode}: {}", show(o));
    }
}

/// A vector the test draft harness runs: stdio persistent backends only,
/// no observer profile.
fn runs_on_stdio_persistent(v: &HarnessVector) -> bool {
    v.profiles
        .iter()
        .all(|p| p != "http" && p != "lifecycle-observation")
        && v.backends.values().all(|b| {
            b.binding == ctk_ahp_suite::harness::vector::BackendBinding::Stdio
                && b.lifecycle == Some(ctk_ahp_suite::harness::vector::StdioLifecycle::Persistent)
        })
}

#[test]
fn a_harness_that_sends_the_released_request_shape_fails_the_draft_shape_vectors() {
    each_fails("released-shape", |v| {
        runs_on_stdio_persistent(v)
            && !v.is_advisory()
            && v.expect.load == ctk_ahp_suite::harness::vector::LoadExpect::Loaded
            && v.backends.values().all(|b| b.launch.is_none())
            && v.failure_class.as_deref() != Some("deadline_exceeded")
            && v.failure_class.as_deref() != Some("late_reply")
            && v.triggers
                .iter()
                .any(|t| t.expect.calls.as_ref().is_some_and(|c| !c.is_empty()))
    });
}

#[test]
fn a_harness_that_keeps_the_released_validity_rules_fails_the_difference_vectors() {
    each_fails("missing-effects", |v| {
        runs_on_stdio_persistent(v) && v.failure_class.as_deref() == Some("effects_missing")
    });
    each_fails("closed-deny", |v| {
        runs_on_stdio_persistent(v) && v.failure_class.as_deref() == Some("deny_unknown_member")
    });
}
