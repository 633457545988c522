//! `ctk coverage` and the vector lint of `ctk validate vector`, on fixture
//! catalogs and vectors under `tests/data/coverage/`.

use std::path::Path;
use std::process::Output;

use crate::support::{ctk_in, text};
use serde_json::Value;

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/coverage")
        .join(rel)
        .display()
        .to_string()
}

fn coverage(catalog: &str, vectors: &str, format: &str) -> Output {
    ctk_in(
        &std::env::temp_dir(),
        &[
            "coverage",
            "--spec",
            "0.1",
            "--clauses",
            &data(catalog),
            "--vectors",
            &data(vectors),
            "--repo",
            &data("repo"),
            "--format",
            format,
        ],
    )
}

#[test]
fn a_reconciled_catalog_passes_and_prints_the_matrix() {
    let out = coverage("clauses-good.json", "good", "markdown");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    assert!(
        md.starts_with("# Clause coverage: agent-hooks/0.1\n"),
        "{md}"
    );
    assert!(
        md.contains("| 3-a | MUST | 3 | CTK-9001 |  | covered |"),
        "{md}"
    );
    assert!(
        md.contains("| 3-b | MUST | 3 |  | `src/pins.rs::pins_3b` | unit_tested |"),
        "{md}"
    );
    assert!(
        md.contains("| 3-c | SHOULD | 3 |  |  | uncovered |"),
        "{md}"
    );
    assert!(
        md.contains("Upstream vectors (no `covers`): AH-CTK-001."),
        "{md}"
    );
    assert!(
        md.contains("2 project vectors, 1 upstream vectors, 1 for another spec"),
        "{md}"
    );
    assert!(!md.contains("## Errors"), "{md}");

    let out = coverage("clauses-good.json", "good", "json");
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["spec"], "agent-hooks/0.1");
    assert_eq!(json["totals"]["covered"], 1);
    assert_eq!(json["totals"]["unit_tested"], 1);
    assert_eq!(json["totals"]["uncovered_must"], 0);
    assert_eq!(
        json["clauses"][0]["vectors"],
        serde_json::json!(["CTK-9001"])
    );
    assert_eq!(json["clauses"][1]["unit_tests"][0]["status"], "found");
    assert_eq!(json["errors"], serde_json::json!([]));
}

#[test]
fn every_coverage_error_is_reported_with_file_and_pointer() {
    let out = coverage("clauses-bad.json", "bad", "json");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let errors: Vec<String> = json["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            format!(
                "{} {} {}",
                Path::new(e["file"].as_str().unwrap_or_default())
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                e["pointer"].as_str().unwrap_or_default(),
                e["message"].as_str().unwrap_or_default()
            )
        })
        .collect();
    let expect = [
        "CTK-9002-unknown-clause.json /covers/1 vector CTK-9002 names clause \"9-z\"",
        "CTK-9003-covers-nothing.json /covers project vector CTK-9003 covers no clause",
        "clauses-bad.json /clauses/1/unit_tests/0 clause 3-b: malformed unit test reference \"ctk::module::tests::name\"",
        "clauses-bad.json /clauses/1 MUST clause 3-b is not covered: it is marked not_vector_testable but none of its unit tests is valid",
        "clauses-bad.json /clauses/2/unit_tests/0 clause 3-c: unit test not found: src/pins.rs defines no `fn missing_fn(`",
        "clauses-bad.json /clauses/2 MUST clause 3-c is not covered",
        "clauses-bad.json /clauses/3 MUST clause 3-d is not covered: no vector covers it and it is not marked not_vector_testable",
        "clauses-bad.json /clauses/4 MUST clause 3-e is not covered: it is marked not_vector_testable but names no unit test",
    ];
    assert_eq!(errors.len(), expect.len(), "{errors:#?}");
    for (got, want) in errors.iter().zip(expect) {
        assert!(
            got.starts_with(want),
            "{got}\n  does not start with\n{want}"
        );
    }
    assert_eq!(json["totals"]["upstream_vectors"], 1);
    let warnings = json["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["pointer"], "/clauses/5/not_vector_testable");

    let out = coverage("clauses-bad.json", "bad", "markdown");
    assert_eq!(out.status.code(), Some(1));
    let md = text(&out.stdout);
    assert!(md.contains("## Errors (8)"), "{md}");
    assert!(
        md.contains("`ctk::module::tests::name` (malformed)"),
        "{md}"
    );
    assert!(md.contains("`src/pins.rs::missing_fn` (missing)"), "{md}");
    let err = text(&out.stderr);
    assert!(err.contains("coverage: 8 error(s)"), "{err}");
}

#[test]
fn without_a_checkout_unit_tests_are_only_checked_for_form() {
    // The binary runs in the temp dir, which is no checkout.
    let out = ctk_in(
        &std::env::temp_dir(),
        &[
            "coverage",
            "--clauses",
            &data("clauses-bad.json"),
            "--vectors",
            &data("bad"),
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["repo"], Value::Null);
    assert_eq!(json["clauses"][2]["unit_tests"][0]["status"], "unchecked");
    assert_eq!(json["clauses"][2]["status"], "unit_tested");
    assert_eq!(json["errors"].as_array().map(Vec::len), Some(6));
}

#[test]
fn coverage_input_errors_exit_2() {
    let out = ctk_in(
        &std::env::temp_dir(),
        &["coverage", "--clauses", &data("nope.json")],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = ctk_in(
        &std::env::temp_dir(),
        &[
            "coverage",
            "--spec",
            "draft",
            "--clauses",
            &data("clauses-good.json"),
            "--vectors",
            &data("good"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is for agent-hooks/0.1, not agent-hooks/draft"));
    let out = ctk_in(
        &std::env::temp_dir(),
        &["coverage", "--repo", &data("nope")],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn vector_lint_names_file_and_pointer_for_every_rule() {
    let dir = Path::new(&data("lint")).to_path_buf();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("lint fixtures")
        .map(|e| e.expect("entry").path().display().to_string())
        .collect();
    files.sort();
    let clauses = data("clauses-good.json");
    let draft_clauses = data("clauses-draft.json");
    let mut args = vec![
        "validate",
        "vector",
        "--clauses",
        clauses.as_str(),
        "--clauses",
        draft_clauses.as_str(),
    ];
    args.extend(files.iter().map(String::as_str));
    let out = ctk_in(&std::env::temp_dir(), &args);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    let every = data("lint/CTK-9101-every-lint.json");
    let draft = data("lint/CTK-D003-unknown-draft-clause.json");
    for want in [
        format!("{} at /id: duplicate vector id", data("lint/CTK-9102-duplicate.json")),
        format!("{every} at /title: title is blank"),
        format!("{every} at /part: unknown part \"no/such_part\""),
        format!("{every} at /covers/1: clause \"9-z\" is not in the agent-hooks/0.1 catalog"),
        format!("{every} at /expect/interceptions/0/context/timestamp: \"timestamp\" pins a timestamp"),
        format!("{every} at /expect/records/0/assert/input_identity: \"input_identity\" pins an identity value"),
        format!("{every} at /interceptor_script/0/match/timestamp: \"timestamp\" pins a timestamp"),
        format!("{draft} at /covers/0: clause \"d-9-z\" is not in the agent-hooks/draft catalog nor in the agent-hooks/0.1 catalog it extends"),
    ] {
        assert!(err.contains(&want), "missing {want}\nin\n{err}");
    }
    assert!(
        !err.contains("enforced_identity"),
        "null identities may be pinned: {err}"
    );
    assert!(!err.contains("CTK-9103"), "{err}");
    assert!(
        !err.contains("CTK-D002"),
        "a draft vector may cover 0.1 clauses: {err}"
    );
    assert_eq!(err.lines().count(), 8, "{err}");
    let out = ctk_in(
        &std::env::temp_dir(),
        &[
            "validate",
            "vector",
            "--clauses",
            &data("clauses-good.json"),
            &data("lint/CTK-9103-clean.json"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn draft_coverage_counts_the_0_1_clauses_it_inherits() {
    let out = ctk_in(
        &std::env::temp_dir(),
        &[
            "coverage",
            "--spec",
            "draft",
            "--clauses",
            &data("clauses-draft.json"),
            "--vectors",
            &data("draft"),
            "--repo",
            &data("repo"),
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["spec"], "agent-hooks/draft");
    assert_eq!(
        json["clauses"][0]["vectors"],
        serde_json::json!(["CTK-D001"])
    );
    assert_eq!(json["clauses"][1]["status"], "uncovered");
    assert_eq!(json["totals"]["inherited_clauses_covered"], 2);
    assert_eq!(json["totals"]["project_vectors"], 2);
}

/// `--surface`: a clause binds a minimal surface unless it needs a
/// capability the surface lacks, and it must be covered there by a vector
/// that applies to that surface (issue 27: a floor host or a tool router
/// must be certifiable on every clause that binds it).
#[test]
fn per_surface_coverage_fails_on_a_binding_clause_no_applying_vector_covers() {
    let surfaces = |extra: &[&str]| {
        let mut args = vec!["coverage", "--spec", "0.1", "--clauses"];
        let catalog = data("clauses-surfaces.json");
        let vectors = data("surfaces");
        let repo = data("repo");
        args.push(catalog.as_str());
        args.extend(["--vectors", vectors.as_str(), "--repo", repo.as_str()]);
        args.extend(extra);
        ctk_in(&std::env::temp_dir(), &args)
    };
    // Every clause is covered by some vector: the catalog-wide matrix passes.
    let out = surfaces(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("Minimal surfaces"));
    // 3-a binds the floor, and CTK-9001 (no capability) applies there.
    let out = surfaces(&["--surface", "floor"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("| floor | none | 1 | 1 (1) | none |"),
        "{}",
        text(&out.stdout)
    );
    // 3-e binds a tool router, but its only vector also needs model_calls.
    let out = surfaces(&["--surface", "all", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("/clauses/2: MUST clause 3-e binds a host of the tool-router surface"),
        "{stderr}"
    );
    assert!(!stderr.contains("clause 3-d"), "{stderr}");
    assert!(!stderr.contains("clause 3-a"), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let names: Vec<&str> = json["surfaces"]
        .as_array()
        .expect("surfaces")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["floor", "tool-router", "model"]);
    assert_eq!(json["surfaces"][1]["uncovered"], serde_json::json!(["3-e"]));
    assert_eq!(json["surfaces"][2]["clauses"], 2);
    assert_eq!(json["surfaces"][2]["uncovered"], serde_json::json!([]));
    // AHP has no surfaces.
    let out = ctk_in(
        &std::env::temp_dir(),
        &["coverage", "--protocol", "ahp", "--surface", "floor"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn ahp_coverage_shows_the_failure_matrix_and_fails_on_a_hole() {
    // The released line: every class under both policies wherever it can
    // occur, so the section is there and no hole is reported. (The draft
    // line's clause catalog is not embedded; its matrix is checked by
    // ahp-suite's draft_harness test.)
    let out = ctk_in(
        &std::env::temp_dir(),
        &["coverage", "--protocol", "ahp", "--spec", "0.1"],
    );
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(
        stdout.contains("## Failure matrix of the harness-role vectors"),
        "{stdout}"
    );
    assert!(
        stdout.contains("| `malformed_json` |") && stdout.contains("fail-closed, fail-open"),
        "{stdout}"
    );
    assert!(
        stdout.contains("- `abnormal_exit`: stdio persistent, stdio per_event;"),
        "{stdout}"
    );
    assert!(!stderr.contains("failure matrix:"), "{stderr}");
    // The observe half beside it: an observer's classes, both decisions.
    assert!(stdout.contains("### Observe"), "{stdout}");
    assert!(
        stdout
            .contains("| `unreachable` | denied, executed | denied, executed | denied, executed |"),
        "{stdout}"
    );
    // One harness vector of one class under one policy: every other place
    // that class should run is a hole, named, and the command fails.
    let released = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/ahp/0.1");
    let (name, text_of) = std::fs::read_dir(&released)
        .expect("the AHP vectors")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.to_owned();
            let body = std::fs::read_to_string(&path).ok()?;
            let v: Value = serde_json::from_str(&body).ok()?;
            (name.starts_with("AHP-H-") && v["failure_class"] == "malformed_json")
                .then_some((name, body))
        })
        .min()
        .expect("a malformed_json harness vector");
    let dir = tempfile::tempdir().expect("scratch folder");
    std::fs::write(dir.path().join(&name), text_of).expect("written");
    let out = ctk_in(
        &std::env::temp_dir(),
        &[
            "coverage",
            "--protocol",
            "ahp",
            "--spec",
            "0.1",
            "--vectors",
            &dir.path().display().to_string(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("failure matrix: malformed_json: no vector over"),
        "{stderr}"
    );
    // With no observer vector, each class of the observe half is a hole.
    assert!(
        stderr.contains("failure matrix: observe: stalls: no observer vector"),
        "{stderr}"
    );
}
