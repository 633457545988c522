//! The catalogs of freedoms (`spec/**/freedoms.json`, issue 26) against
//! their schema, and the schema against a catalog it must refuse.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn validator() -> jsonschema::Validator {
    let text =
        std::fs::read_to_string(root().join("schemas/freedoms.schema.json")).expect("the schema");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

#[test]
fn every_catalog_of_freedoms_follows_its_schema() {
    let validator = validator();
    let catalogs = [
        "spec/0.1/freedoms.json",
        "spec/draft/freedoms.json",
        "spec/ahp/0.1/freedoms.json",
        "spec/ahp/draft/freedoms.json",
    ];
    for rel in catalogs {
        let text =
            std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{rel}: {errors:#?}");
        assert!(
            doc["freedoms"].as_array().is_some_and(|f| !f.is_empty()),
            "{rel} lists no freedom"
        );
    }
}

#[test]
fn the_schema_refuses_a_freedom_without_a_grant_or_with_an_unknown_member() {
    let validator = validator();
    let freedom = json!({
        "id": "resolved-by-null", "category": "representation", "summary": "s",
        "reference_choice": "r", "other_choice": "o", "assertions": [], "realised_by": "link", "advisory": [],
        "grants": [{"source": "agent-hooks/spec/AGENT-HOOKS-0.1.md", "section": "10.3", "quote": "q"}]
    });
    let catalog = |f: Value| {
        json!({"format": "ctk-freedoms/1", "spec": "agent-hooks/0.1", "description": "d",
                                    "freedoms": [f], "assertion_kinds": {}})
    };
    assert!(validator.is_valid(&catalog(freedom.clone())));
    let mut no_grant = freedom.clone();
    no_grant["grants"] = json!([]);
    assert!(!validator.is_valid(&catalog(no_grant)));
    let mut unknown = freedom.clone();
    unknown["why"] = json!("x");
    assert!(!validator.is_valid(&catalog(unknown)));
    let mut bad_source = freedom;
    bad_source["grants"][0]["source"] = json!("https://example.invalid/spec.md");
    assert!(!validator.is_valid(&catalog(bad_source)));
}
