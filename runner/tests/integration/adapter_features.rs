//! The adapter contracts' features (issue 29): both catalogs follow their
//! schema, every vector lists only features its contract knows, every
//! feature is named in its contract's changelogs and needed by a vector, and
//! the kit's own hosts and harnesses announce each one.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn json(rel: &str) -> Value {
    serde_json::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Each contract: its catalog file, the crate's parsed catalog, the vector
/// folders (and file prefixes) whose vectors list its features, and the
/// documents whose changelogs must name every feature.
struct Contract {
    catalog: &'static str,
    parsed: &'static ctk_core::features::FeatureCatalog,
    vectors: &'static [(&'static str, &'static str)],
    changelogs: &'static [&'static str],
}

fn contracts() -> [Contract; 2] {
    [
        Contract {
            catalog: "agent-hooks/adapter/features.json",
            parsed: ctk_agent_hooks_adapter::features(),
            vectors: &[("vectors/0.1", "CTK-"), ("vectors/draft", "CTK-")],
            changelogs: &[
                "agent-hooks/adapter/PROTOCOL.md",
                "agent-hooks/adapter/HOSTS.md",
            ],
        },
        Contract {
            catalog: "ahp/adapter/features.json",
            parsed: ctk_ahp_adapter::features(),
            vectors: &[
                ("vectors/ahp/0.1", "AHP-H-"),
                ("vectors/ahp/draft", "AHP-DH-"),
            ],
            changelogs: &["ahp/adapter/ADAPTER.md"],
        },
    ]
}

/// Every vector file of `folder` whose name starts with `prefix`, parsed.
fn vectors(folder: &str, prefix: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root().join(folder)).expect(folder) {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.starts_with(prefix) && name.ends_with(".json") {
            let rel = format!("{folder}/{name}");
            out.push((rel.clone(), json(&rel)));
        }
    }
    assert!(!out.is_empty(), "{folder} holds no {prefix}* vector");
    out
}

#[test]
fn both_catalogs_follow_their_schema_and_parse_as_the_crates_read_them() {
    let schema = json("schemas/adapter-features.schema.json");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    for c in contracts() {
        let doc = json(c.catalog);
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", c.catalog);
        assert_eq!(doc["contract"], c.parsed.contract.as_str());
        assert!(
            !c.parsed.features.is_empty(),
            "{} names no feature",
            c.catalog
        );
    }
    let mut bad = json("agent-hooks/adapter/features.json");
    bad["features"][0]["added_in"] = Value::from("soon");
    assert!(
        !validator.is_valid(&bad),
        "a feature without a version passed"
    );
}

#[test]
fn every_vector_lists_only_features_its_contract_knows_and_every_feature_is_needed() {
    for c in contracts() {
        let mut used = std::collections::BTreeSet::new();
        for (folder, prefix) in c.vectors {
            for (rel, v) in vectors(folder, prefix) {
                let Some(list) = v.get("adapter_features") else {
                    continue;
                };
                let names = list
                    .as_array()
                    .unwrap_or_else(|| panic!("{rel}: adapter_features is not an array"));
                for (i, name) in names.iter().enumerate() {
                    let name = name
                        .as_str()
                        .unwrap_or_else(|| panic!("{rel} at /adapter_features/{i}: not a string"));
                    let feature = c.parsed.get(name).unwrap_or_else(|| {
                        panic!(
                            "{rel} at /adapter_features/{i}: {name:?} is no feature of {}",
                            c.parsed.contract
                        )
                    });
                    assert!(
                        !feature.efficiency_only,
                        "{rel} at /adapter_features/{i}: {name:?} only saves time; no vector needs it"
                    );
                    used.insert(name.to_owned());
                }
            }
        }
        for f in c.parsed.features.iter().filter(|f| !f.efficiency_only) {
            assert!(
                used.contains(&f.name),
                "no vector of {} lists {}: a feature no vector needs checks nothing",
                c.parsed.contract,
                f.name
            );
        }
    }
}

#[test]
fn every_feature_is_named_with_its_version_in_its_contracts_changelogs() {
    for c in contracts() {
        for doc in c.changelogs {
            let text = read(doc);
            for f in &c.parsed.features {
                let row = format!("| `{}` | ctk {} |", f.name, f.added_in);
                assert!(
                    text.contains(&row),
                    "{doc} does not name {} as added in ctk {} (a row `{row}`)",
                    f.name,
                    f.added_in
                );
            }
        }
    }
}

#[test]
fn the_kits_own_subjects_announce_every_feature_of_their_contract() {
    let host: Vec<String> = ctk_agent_hooks_reference_host::host_adapter::FEATURES
        .map(str::to_owned)
        .to_vec();
    assert_eq!(host, ctk_agent_hooks_adapter::features().names());
    let harness: Vec<String> = ctk_ahp_reference_harness::adapter::FEATURES
        .map(str::to_owned)
        .to_vec();
    assert_eq!(harness, ctk_ahp_adapter::features().names());
    // The Python example host states its list in its own words. Its kit
    // does not implement what only saves time (known-answers,
    // recorded-contexts): it is called back, and judged the same.
    let python = read("examples/python-host/host.py");
    let needed = ctk_agent_hooks_adapter::features()
        .features
        .iter()
        .filter(|f| !f.efficiency_only)
        .map(|f| f.name.clone());
    for name in needed {
        assert!(
            python.contains(&format!("\"{name}\"")),
            "examples/python-host/host.py does not announce {name}"
        );
    }
}

#[test]
fn a_host_lacking_a_feature_skips_what_needs_it_and_an_unknown_one_is_warned_about() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report_dir = dir.path().join("report");
    let host = root().join("examples/python-host/host.py");
    let out = crate::support::ctk(&[
        "run",
        "--quiet",
        "--id",
        "CTK-0001",
        "--id",
        "CTK-1392",
        "--report-dir",
        &report_dir.display().to_string(),
        "--",
        "python3",
        &host.display().to_string(),
        "--features",
        "generated-values,telepathy",
    ]);
    let stderr = crate::support::text(&out.stderr);
    // The run goes on: the vector that needs nothing passes, so exit 0.
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: the host announces the adapter feature \"telepathy\""),
        "{stderr}"
    );
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(report_dir.join("report.json")).expect("report.json"),
    )
    .expect("JSON");
    assert_eq!(
        report["host"]["features"],
        serde_json::json!(["generated-values", "telepathy"])
    );
    let entry = |id: &str| {
        report["vectors"]
            .as_array()
            .and_then(|all| all.iter().find(|v| v["id"] == id))
            .cloned()
            .unwrap_or_else(|| panic!("{id} is not in the report"))
    };
    assert_eq!(entry("CTK-0001")["status"], "pass");
    let skipped = entry("CTK-1392");
    assert_eq!(skipped["status"], "skip");
    assert_eq!(skipped["adapter_feature"], "released-output-absent");
    assert_eq!(
        skipped["reason"],
        "adapter does not implement released-output-absent (added in ctk 0.2.0)"
    );
    assert!(
        skipped["clauses"].as_array().is_some_and(|c| !c.is_empty()),
        "{skipped}"
    );
}
