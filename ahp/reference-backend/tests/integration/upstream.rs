//! The reference backend's replies checked against the upstream 0.1
//! fixtures and schemas, read from the upstream folder at test time.

use std::collections::BTreeSet;
use std::path::Path;

use ctk_ahp_reference_backend::{respond, Backend};
use hyper::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::*;

const FIXTURES: &str = "agent-hooks-protocol/fixtures/0.1.0-draft.1";
const SCHEMAS: &str = "agent-hooks-protocol/schemas/0.1.0-draft.1";

/// The upstream 0.1 schemas, compiled by file name.
struct Schemas {
    validators: Vec<(String, jsonschema::Validator)>,
}

impl Schemas {
    fn load(dir: &Path) -> Schemas {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".schema.json") {
                let v: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                files.push((name, v));
            }
        }
        assert!(
            files.len() >= 10,
            "the 0.1 release has ten schemas, found {}",
            files.len()
        );
        let mut builder = jsonschema::Registry::new();
        for (_, v) in &files {
            let id = v["$id"]
                .as_str()
                .expect("every upstream schema has an $id")
                .to_owned();
            builder = builder.add(id, v.clone()).unwrap();
        }
        let registry = builder
            .prepare()
            .expect("the upstream schemas resolve offline");
        let validators = files
            .iter()
            .map(|(name, v)| {
                let root = json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "$ref": v["$id"],
                });
                let validator = jsonschema::options()
                    .with_registry(&registry)
                    .should_validate_formats(true)
                    .build(&root)
                    .unwrap();
                (name.clone(), validator)
            })
            .collect();
        Schemas { validators }
    }

    fn assert_valid(&self, schema: &str, doc: &Value) {
        let (_, v) = self
            .validators
            .iter()
            .find(|(n, _)| n == schema)
            .unwrap_or_else(|| panic!("no upstream schema {schema}"));
        let errors: Vec<String> = v
            .iter_errors(doc)
            .map(|e| format!("{} at {}", e, e.instance_path().as_str()))
            .collect();
        assert!(
            errors.is_empty(),
            "{doc} is not valid against {schema}: {errors:?}"
        );
    }

    /// A reply must be a JSON-RPC message, and a success one of the two
    /// intercept response shapes.
    fn assert_reply(&self, reply: &Value) {
        self.assert_valid("json-rpc-message.schema.json", reply);
        if let Some(result) = reply.get("result") {
            if result["effects"].as_array().is_some_and(Vec::is_empty) {
                self.assert_valid("intercept-no-effect-response.schema.json", reply);
            } else {
                self.assert_valid("intercept-deny-response.schema.json", reply);
            }
        }
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn every_kind_of_reply_is_valid_against_the_upstream_schemas() {
    let Some(dir) = upstream(SCHEMAS) else { return };
    let schemas = Schemas::load(&dir);
    let mut wrong_version = harmless("evt-3");
    wrong_version["params"]["protocolVersion"] = json!("0.2");
    let mut wrong_event = harmless("evt-4");
    wrong_event["params"]["event"]["type"] = json!("tool.after");
    let mut mismatch = harmless("evt-5");
    mismatch["params"]["event"]["id"] = json!("evt-other");
    let frames: Vec<Vec<u8>> = vec![
        line(&harmless("evt-1")).into_bytes(),
        line(&force_push("evt-2")).into_bytes(),
        line(&wrong_version).into_bytes(),
        line(&wrong_event).into_bytes(),
        line(&mismatch).into_bytes(),
        line(&json!({"jsonrpc": "2.0", "id": "evt-6", "method": "nope"})).into_bytes(),
        b"{".to_vec(),
        b"[]".to_vec(),
    ];
    let backend = Backend::default();
    for f in frames {
        let reply: Value = serde_json::from_str(&respond(&backend, &f).unwrap()).unwrap();
        schemas.assert_reply(&reply);
    }
    // The request builder these tests use is itself a valid 0.1 request.
    schemas.assert_valid("intercept-request.schema.json", &harmless("evt-1"));
}

#[test]
fn the_stdio_request_fixture_is_denied_in_the_shape_of_the_deny_fixture() {
    let (Some(dir), Some(schema_dir)) = (upstream(FIXTURES), upstream(SCHEMAS)) else {
        return;
    };
    let schemas = Schemas::load(&schema_dir);
    let request = std::fs::read(dir.join("stdio/intercept-request.valid.jsonl")).unwrap();
    let expected = read_json(&dir.join("stdio/deny-response.valid.jsonl"));
    let mut b = StdioBackend::start(&["--quiet", "stdio"]);
    b.send_raw(&request);
    let reply = b.recv();
    let (status, rest, _) = b.finish();
    assert!(status.success());
    assert!(rest.is_empty(), "{rest:?}");
    schemas.assert_reply(&reply);
    // Same envelope, same id, same result members, one deny like the
    // fixture's (the policy's wording and code are its own).
    assert_eq!(keys(&reply), keys(&expected));
    assert_eq!(reply["id"], expected["id"]);
    assert_eq!(keys(&reply["result"]), keys(&expected["result"]));
    assert_eq!(
        reply["result"]["protocolVersion"],
        expected["result"]["protocolVersion"]
    );
    let got = &reply["result"]["effects"];
    let want = &expected["result"]["effects"];
    assert_eq!(
        got.as_array().unwrap().len(),
        want.as_array().unwrap().len()
    );
    assert_eq!(keys(&got[0]), keys(&want[0]));
    assert_eq!(got[0]["type"], want[0]["type"]);
}

#[test]
fn the_http_request_fixture_gets_the_no_effect_fixture_reply() {
    let (Some(dir), Some(schema_dir)) = (upstream(FIXTURES), upstream(SCHEMAS)) else {
        return;
    };
    let schemas = Schemas::load(&schema_dir);
    let request = std::fs::read(dir.join("http/intercept-request.valid.json")).unwrap();
    let request_json: Value = serde_json::from_slice(&request).unwrap();
    let mut expected = read_json(&dir.join("http/no-effect-response.valid.json"));
    // The no-effect fixture answers another request; only its id differs.
    expected["id"] = request_json["id"].clone();
    let b = HttpBackend::start(&[], &[]);
    let r = http_request(
        b.addr,
        Method::POST,
        &[("content-type", "application/json")],
        request,
    );
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.content_type(), Some("application/json"));
    let reply = r.json();
    schemas.assert_reply(&reply);
    assert_eq!(reply, expected);
}

#[test]
fn the_id_mismatch_fixture_is_refused_with_invalid_params() {
    let (Some(dir), Some(schema_dir)) = (upstream(FIXTURES), upstream(SCHEMAS)) else {
        return;
    };
    let schemas = Schemas::load(&schema_dir);
    let request =
        std::fs::read(dir.join("http/intercept-request-id-mismatch.invalid.json")).unwrap();
    let outer: Value = serde_json::from_slice(&request).unwrap();
    let reply: Value =
        serde_json::from_str(&respond(&Backend::default(), &request).unwrap()).unwrap();
    schemas.assert_reply(&reply);
    assert_error(&reply, -32602, &outer["id"]);
}

#[test]
fn the_valid_request_fixtures_are_answered_identically_through_library_stdio_and_http() {
    let Some(dir) = upstream(FIXTURES) else {
        return;
    };
    let b = HttpBackend::start(&[], &[]);
    for name in [
        "stdio/intercept-request.valid.jsonl",
        "http/intercept-request.valid.json",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let compact = line(&serde_json::from_slice::<Value>(&bytes).unwrap());
        let lib: Value =
            serde_json::from_str(&respond(&Backend::default(), compact.as_bytes()).unwrap())
                .unwrap();
        let run = run_once(
            &["--quiet", "stdio", "--per-event"],
            format!("{compact}\n").as_bytes(),
        );
        assert!(run.status.success(), "{name}");
        let stdio: Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
        let http = post_json(b.addr, &serde_json::from_str(&compact).unwrap(), &[]).json();
        assert_eq!(lib, stdio, "{name}");
        assert_eq!(lib, http, "{name}");
    }
}

#[test]
fn the_multiline_fixture_gets_a_parse_error_per_line_and_never_a_decision() {
    let Some(dir) = upstream(FIXTURES) else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("stdio/intercept-request-multiline.invalid.jsonl"))
        .unwrap();
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(lines > 1, "the fixture spans several lines");
    let run = run_once(&["--quiet", "stdio"], text.as_bytes());
    assert!(run.status.success());
    let replies: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), lines, "{}", run.stdout);
    for r in &replies {
        assert_error(r, -32700, &Value::Null);
    }
}
