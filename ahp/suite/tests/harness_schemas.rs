//! The adapter contract's JSON Schemas (schemas/ahp/adapter/*.json) and the
//! harness-vector schema, checked on both ends: every harness vector (and
//! every script in it) matches its schema; in real runs against the Python
//! test harness, every call the kit sends matches `<method>.params` and
//! every result the adapter returns matches `<method>.result`.

use std::path::{Path, PathBuf};

use ctk_ahp_suite::harness::{
    load_harness_dir, run_harness_vector_recorded, AdapterCommand, HarnessConfig, ScriptedCommand,
};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn validator(file: &str) -> jsonschema::Validator {
    let dir = root().join("schemas/ahp/adapter");
    let mut reg = jsonschema::Registry::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let v = read(&e.path());
        let id = v["$id"].as_str().unwrap().to_owned();
        reg = reg.add(id, v).unwrap();
    }
    let registry = reg.prepare().unwrap();
    let schema = read(&root().join("schemas/ahp").join(file));
    jsonschema::options()
        .with_registry(&registry)
        .build(&schema)
        .unwrap()
}

#[test]
fn every_harness_vector_matches_the_harness_vector_schema() {
    let v = validator("harness-vector.schema.json");
    let dir = root().join("vectors/ahp/0.1");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("AHP-H-") {
            continue;
        }
        n += 1;
        let doc = read(&e.path());
        let errors: Vec<String> = v
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
    assert!(n >= 70, "{n} harness vectors");
    // The schema has teeth: a broken script action is refused.
    let mut bad = read(&dir.join("AHP-H-0001.json"));
    bad["backends"]["A"]["script"] = serde_json::json!({"intercept": [[{"do": "sleep"}]]});
    assert!(!v.is_valid(&bad));
}

#[test]
fn the_result_schemas_refuse_what_the_contract_forbids() {
    let tc = validator("adapter/harness-tool_call.result.schema.json");
    assert!(tc.is_valid(
        &serde_json::json!({"outcome": "denied", "synthetic": true, "reason": null, "code": null})
    ));
    assert!(!tc.is_valid(&serde_json::json!({"outcome": "denied"})));
    assert!(!tc.is_valid(&serde_json::json!({"outcome": "executed", "synthetic": false})));
    assert!(!tc.is_valid(&serde_json::json!({"outcome": "ran"})));
    let tcs = validator("adapter/harness-tool_calls.result.schema.json");
    assert!(tcs.is_valid(
        &serde_json::json!({"results": [{"outcome": "executed"}, {"outcome": "prompted"}]})
    ));
    assert!(!tcs.is_valid(
        &serde_json::json!({"results": [{"outcome": "executed"}, {"outcome": "denied"}]})
    ));
    assert!(!tcs.is_valid(&serde_json::json!([{"outcome": "executed"}])));
    let calls = validator("adapter/harness-tool_calls.params.schema.json");
    let one = serde_json::json!({"tool": {"name": "t", "kind": "shell", "input": {}}, "callId": "c1", "hostPermission": "allow"});
    let mut anon = one.clone();
    anon["callId"] = serde_json::Value::Null;
    assert!(calls.is_valid(&serde_json::json!({"calls": [one.clone(), one.clone()]})));
    assert!(!calls.is_valid(&serde_json::json!({"calls": [one.clone(), anon]})));
    assert!(!calls.is_valid(&serde_json::json!({"calls": [one]})));
    let init = validator("adapter/initialize.result.schema.json");
    let mut info = serde_json::json!({"adapter": "ctk-ahp-adapter/1", "name": "h", "version": "1",
        "protocolVersions": ["0.1"], "bindings": [], "lifecycles": [], "profiles": []});
    assert!(init.is_valid(&info));
    info["features"] = serde_json::json!(["parallel-tool-calls", "parallel-tool-calls"]);
    assert!(!init.is_valid(&info));
    let load = validator("adapter/harness-load.result.schema.json");
    assert!(load.is_valid(&serde_json::json!({"loaded": true})));
    assert!(!load.is_valid(&serde_json::json!({"loaded": false})));
}

#[test]
fn kit_calls_and_adapter_results_match_the_contract_schemas() {
    let vectors = load_harness_dir(&root().join("vectors/ahp/0.1")).unwrap();
    // One of each shape: executed, explicit and synthetic denial, prompted,
    // a session event, a refused load.
    let pick = |f: &dyn Fn(&ctk_ahp_suite::harness::HarnessVector) -> bool| {
        vectors
            .iter()
            .find(|v| f(v))
            .cloned()
            .expect("such a vector exists")
    };
    let chosen = vec![
        pick(&|v| v.title.starts_with("No effect over stdio persistent")),
        pick(&|v| v.title.starts_with("A deny over http")),
        pick(&|v| {
            v.failure_class.as_deref() == Some("malformed_json")
                && v.failure_policy.as_deref() == Some("fail-closed")
        }),
        pick(&|v| v.title.contains("prompt")),
        pick(&|v| v.triggers.iter().any(|t| t.session.is_some())),
        pick(&|v| v.expect.load == ctk_ahp_suite::harness::vector::LoadExpect::Refused),
        pick(&|v| v.triggers.iter().any(|t| !t.parallel.is_empty())),
    ];
    let script = root().join("ahp/suite/tests/harness/adapter.py");
    let adapter = AdapterCommand::new(
        "python3",
        [
            script.display().to_string(),
            "--mode".into(),
            "correct".into(),
        ],
    );
    let work = tempfile::tempdir().unwrap();
    let mut cfg = HarnessConfig::new(ScriptedCommand {
        program: PathBuf::from(env!("CARGO_BIN_EXE_ctk-ahp-scripted")),
        prefix_args: Vec::new(),
    });
    cfg.work_dir = Some(work.path().to_owned());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut methods = std::collections::BTreeSet::new();
    for v in &chosen {
        let (o, rec) = rt.block_on(run_harness_vector_recorded(v, &adapter, &cfg));
        assert_eq!(
            o.verdict,
            ctk_ahp_suite::Verdict::Pass,
            "{}: {:?} {:?}",
            v.id,
            o.reason,
            o.failures
        );
        let rec = rec.expect("a record");
        let mut pending: std::collections::BTreeMap<String, String> = Default::default();
        for line in &rec.transcript {
            let m: Value = serde_json::from_str(&line.text).unwrap();
            let id = m["id"].as_str().unwrap_or_default().to_owned();
            if line.from == "kit" {
                let method = m["method"].as_str().unwrap().to_owned();
                let file = format!("adapter/{}.params.schema.json", method.replace('/', "-"));
                let errs: Vec<String> = validator(&file)
                    .iter_errors(&m["params"])
                    .map(|e| e.to_string())
                    .collect();
                assert!(errs.is_empty(), "{}: kit's {method} params: {errs:?}", v.id);
                methods.insert(method.clone());
                pending.insert(id, method);
            } else {
                let method = pending.remove(&id).expect("an answer to a kit call");
                let file = format!("adapter/{}.result.schema.json", method.replace('/', "-"));
                let errs: Vec<String> = validator(&file)
                    .iter_errors(&m["result"])
                    .map(|e| e.to_string())
                    .collect();
                assert!(
                    errs.is_empty(),
                    "{}: adapter's {method} result {}: {errs:?}",
                    v.id,
                    m["result"]
                );
            }
        }
    }
    for m in [
        "initialize",
        "harness/load",
        "harness/tool_call",
        "harness/tool_calls",
        "harness/session",
        "shutdown",
    ] {
        assert!(methods.contains(m), "no {m} call was checked");
    }
}
