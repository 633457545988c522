//! `ctk_agent_hooks_suite::vector::load::lint` over whole vector sets (upstream's, the
//! project's) and over one fixture per consistency rule
//! (`tests/data/lint/`, see `ctk_agent_hooks_suite::vector::rules`).

use std::path::{Path, PathBuf};

use ctk::catalog::Catalogs;
use ctk::errors::LoadError;
use ctk_agent_hooks_suite::vector::load::{lint, load, load_file, VectorSource};

use crate::upstream::{upstream, UPSTREAM_VECTORS};

#[test]
fn loads_every_upstream_vector_unchanged_and_lints_clean() {
    let Some(dir) = upstream(UPSTREAM_VECTORS) else {
        return;
    };
    let vectors = load(&VectorSource::Dir(dir)).expect("upstream vectors load");
    assert_eq!(vectors.len(), 51);
    assert_eq!(vectors[0].vector.id, "AH-CTK-001");
    let none = Catalogs::default();
    let errors = lint(&vectors, &none);
    assert!(errors.is_empty(), "{errors:?}");
    let big = vectors
        .iter()
        .find(|v| v.vector.id == "AH-CTK-091")
        .expect("091");
    assert!(big.vector.scenario.get().contains("18446744073709551616"));
}

/// `tests/data/lint/<file>`.
fn fixture(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lint")
        .join(file)
}

/// Every finding of one fixture, as `pointer: detail`.
fn findings(file: &str) -> Vec<String> {
    let loaded = load_file(&fixture(file)).unwrap_or_else(|e| panic!("{file} loads: {e}"));
    lint(&[loaded], &Catalogs::default())
        .into_iter()
        .map(|e| match e {
            LoadError::Lint {
                location, detail, ..
            } => format!("{}: {detail}", location.pointer),
            other => panic!("{file}: not a lint finding: {other}"),
        })
        .collect()
}

/// One fixture per consistency rule, each the clean fixture with one thing
/// changed, and the one finding it must draw: its pointer and a fragment of
/// its message.
const RULES: [(&str, &str, &str); 21] = [
    (
        "CTK-9202-host-agent-id.json",
        "/expect/interceptions/0/context/agent.id",
        "pins a value the host chooses",
    ),
    (
        "CTK-9203-host-session-id.json",
        "/expect/records/0/assert/session.id",
        "pins a value the host chooses",
    ),
    (
        "CTK-9204-posture-continue.json",
        "/expect/run_outcome_by_posture/outcomes/continue",
        "must equal run_outcome",
    ),
    (
        "CTK-9205-posture-strict.json",
        "/expect/run_outcome_by_posture",
        "set sequence_strict to false",
    ),
    (
        "CTK-9206-empty-list.json",
        "/expect/tool_not_invoked",
        "an empty tool_not_invoked asserts nothing",
    ),
    (
        "CTK-9207-empty-record.json",
        "/expect/records/0",
        "record entry asserts nothing",
    ),
    (
        "CTK-9208-vacuous.json",
        "/expect",
        "asserts nothing beyond the run outcome",
    ),
    (
        "CTK-9209-unknown-tool.json",
        "/scenario/model_script/0/respond/tool_calls/0/name",
        "which scenario.tools does not define",
    ),
    (
        "CTK-9210-parallel-cap.json",
        "/scenario/model_script/0/respond/parallel",
        "parallel_tool_calls capability",
    ),
    (
        "CTK-9211-parallel-strict.json",
        "/scenario/model_script/0/respond/parallel",
        "set sequence_strict to false",
    ),
    (
        "CTK-9212-parallel-order.json",
        "/expect/tool_invocations",
        "no invocation order to pin",
    ),
    (
        "CTK-9213-stream-cap.json",
        "/scenario/model_script/1/respond/stream",
        "incremental_output capability",
    ),
    (
        "CTK-9214-stream-join.json",
        "/scenario/model_script/1/respond/stream",
        "must concatenate to content",
    ),
    (
        "CTK-9215-turns-cap.json",
        "/scenario/turns",
        "multi_turn capability",
    ),
    (
        "CTK-9216-tool-no-behavior.json",
        "/scenario/tools/0/behavior",
        "no behaviour",
    ),
    (
        "CTK-9217-timeout-fault.json",
        "/interceptor_script/0/fault",
        "without interceptor_timeout_ms",
    ),
    (
        "CTK-9218-declaration-cap.json",
        "/host_declaration",
        "needs the host_declaration capability",
    ),
    (
        "CTK-9219-declaration-composition.json",
        "/composition",
        "configures composition in its document",
    ),
    (
        "CTK-9220-refused-interceptions.json",
        "/expect/interceptions",
        "no interception can be expected",
    ),
    (
        "CTK-9221-int64.json",
        "/scenario/model_script/0/respond/tool_calls/0/args/n",
        "integer 9007199254740993 is beyond +/-(2^53-1) and needs the int64_json capability",
    ),
    (
        "CTK-9222-bigint.json",
        "/scenario/model_script/0/respond/tool_calls/0/args/n",
        "needs the bigint_json capability",
    ),
];

#[test]
fn the_clean_fixture_draws_no_finding() {
    assert_eq!(findings("CTK-9201-clean.json"), Vec::<String>::new());
}

#[test]
fn each_consistency_rule_names_its_pointer() {
    for (file, pointer, fragment) in RULES {
        let got = findings(file);
        assert_eq!(got.len(), 1, "{file}: {got:#?}");
        assert!(
            got[0].starts_with(&format!("{pointer}: ")) && got[0].contains(fragment),
            "{file}: want {pointer}: …{fragment}…, got {}",
            got[0]
        );
    }
}

/// The stream fixture with `capabilities` replaced, written to a scratch
/// folder, and its findings.
fn stream_findings_with(caps: &[&str]) -> Vec<String> {
    let mut v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("CTK-9213-stream-cap.json")).expect("fixture"),
    )
    .expect("fixture is JSON");
    v["capabilities"] = serde_json::json!(caps);
    let dir = tempfile::tempdir().expect("scratch folder");
    let path = dir.path().join("CTK-9213-stream-cap.json");
    std::fs::write(&path, serde_json::to_string_pretty(&v).expect("JSON")).expect("written");
    let loaded = load_file(&path).expect("loads");
    lint(&[loaded], &Catalogs::default())
        .into_iter()
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn a_stream_reaches_a_buffered_host_that_streams_or_an_incremental_one() {
    // A buffered host that streams model output assembles the chunks (§12.1,
    // HOSTS.md §4.4): `streaming` with `buffered_output` is enough, either
    // alone is not.
    let base = ["model_calls", "tool_calls"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        base.iter().copied().chain(extra.iter().copied()).collect()
    };
    assert_eq!(
        stream_findings_with(&with(&["streaming", "buffered_output"])),
        Vec::<String>::new()
    );
    assert_eq!(
        stream_findings_with(&with(&["incremental_output"])),
        Vec::<String>::new()
    );
    for caps in [with(&["streaming"]), with(&["buffered_output"])] {
        let got = stream_findings_with(&caps);
        assert_eq!(got.len(), 1, "{caps:?}: {got:#?}");
        assert!(
            got[0].contains("a chunked stream reaches only a host that streams"),
            "{got:#?}"
        );
    }
}

#[test]
fn every_lint_fixture_is_in_the_rule_table() {
    let mut files: Vec<String> = std::fs::read_dir(fixture(""))
        .expect("tests/data/lint")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut listed: Vec<String> = RULES.iter().map(|(f, _, _)| (*f).to_owned()).collect();
    listed.push("CTK-9201-clean.json".into());
    listed.sort();
    assert_eq!(files, listed);
}

#[test]
fn validate_vector_reports_each_rule_with_file_and_pointer() {
    let dir = fixture("");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctk"))
        .args(["validate", "vector", &dir.display().to_string()])
        .output()
        .expect("the ctk binary runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for (file, pointer, _) in RULES {
        let want = format!("{} at {pointer}: ", fixture(file).display());
        assert!(err.contains(&want), "missing {want}\nin\n{err}");
    }
    assert!(!err.contains("CTK-9201"), "{err}");
}

/// The project's own vectors, released and draft, lint clean against the
/// embedded clause catalogs (the set CI runs and the binary embeds).
#[test]
fn project_vectors_lint_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let catalogs = Catalogs::load(&[]).expect("embedded catalogs");
    for dir in ["vectors/0.1", "vectors/draft"] {
        let vectors = load(&VectorSource::Dir(root.join(dir))).expect("project vectors load");
        let errors: Vec<String> = lint(&vectors, &catalogs)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(errors.is_empty(), "{dir}:\n{}", errors.join("\n"));
    }
}
