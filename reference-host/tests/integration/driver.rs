//! A throwaway in-test driver: feeds an upstream vector's scenario to
//! `ReferenceHost` with a trivially scripted `Callbacks` (facts B3, B4).
//! The runner owns the real script engine and assertions; this only makes
//! the reference host's own tests able to run the vectors.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ctk_harness_protocol::{
    BoxFuture, Callbacks, Composition, Harness, InterceptorBinding, InterceptorReply, Mode,
    RedactorReply, ResolverReply, RunRecord, VectorSetup,
};
use ctk_reference_host::compose::fold::apply_transform;
use ctk_reference_host::identity::provider::jcs_sha256;
use ctk_reference_host::point::Point;
use ctk_reference_host::verdict::gate::gate;
use ctk_reference_host::{ReferenceHost, SpecVersion};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// Root of the upstream checkout beside the project.
pub(crate) fn upstream() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/upstream/agent-hooks"
    ))
}

/// Dotted-path lookup (`a.b[0].c`), as vectors write paths.
pub(crate) fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = v;
    for part in path.split('.') {
        let (name, rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            cur = cur.get(name)?;
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            cur = cur.get(idx.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(cur)
}

/// Scripted interceptors, resolver and redactor.
pub(crate) struct Script {
    /// One rule list per interceptor.
    pub(crate) interceptors: Vec<Vec<Value>>,
    /// Resolver rules.
    pub(crate) approval: Vec<Value>,
    /// Paths the redactor overwrites with "[redacted]".
    pub(crate) redact: Vec<String>,
    /// Contexts interceptor 0 received, copied before evaluation.
    pub(crate) seen: Mutex<Vec<Value>>,
    /// Approval requests the resolver received.
    pub(crate) requests: Mutex<Vec<Value>>,
}

fn matches(rule: &Value, ctx: &Value) -> bool {
    rule.get("match")
        .and_then(Value::as_object)
        .is_none_or(|m| m.iter().all(|(path, want)| lookup(ctx, path) == Some(want)))
}

impl Callbacks for Script {
    fn intercept<'a>(
        &'a self,
        index: usize,
        context: &'a mut Value,
    ) -> BoxFuture<'a, InterceptorReply> {
        Box::pin(async move {
            if index == 0 {
                self.seen.lock().expect("lock").push(context.clone());
            }
            let point = context
                .get("interception_point")
                .cloned()
                .unwrap_or(Value::Null);
            let rules = self.interceptors.get(index).cloned().unwrap_or_default();
            let Some(rule) = rules
                .iter()
                .find(|r| r.get("at") == Some(&point) && matches(r, context))
            else {
                return InterceptorReply::Response(json!({"decision": "allow"}));
            };
            match rule.get("fault").and_then(Value::as_str) {
                Some("raise") => InterceptorReply::Raised {
                    message: "scripted raise".into(),
                },
                Some("hang") => std::future::pending().await,
                Some("malformed_verdict") => {
                    InterceptorReply::Response(json!({"decision": "transform"}))
                }
                Some("mutate") => {
                    context["target"] = json!("TAMPERED");
                    if let Some(tc) = context.get_mut("tool_call") {
                        tc["args"] = json!({"tampered": true});
                    }
                    InterceptorReply::Response(
                        json!({"decision": "allow", "reason": "ctk:mutated"}),
                    )
                }
                _ => InterceptorReply::Response(
                    rule.get("return")
                        .cloned()
                        .unwrap_or(json!({"decision": "allow"})),
                ),
            }
        })
    }

    fn resolve_approval<'a>(&'a self, request: &'a Value) -> BoxFuture<'a, ResolverReply> {
        Box::pin(async move {
            self.requests.lock().expect("lock").push(request.clone());
            let ctx = request.get("context").cloned().unwrap_or(Value::Null);
            let id = request
                .get("context_identity")
                .cloned()
                .unwrap_or(Value::Null);
            let Some(rule) = self.approval.iter().find(|r| matches(r, &ctx)) else {
                return ResolverReply::Resolution(
                    json!({"outcome": "unresolved", "context_identity": id}),
                );
            };
            let resolve = rule.get("resolve").cloned().unwrap_or_default();
            if resolve.get("fault").and_then(Value::as_str) == Some("raise") {
                return ResolverReply::Raised {
                    message: "scripted raise".into(),
                };
            }
            let echoed = if resolve.get("echo_recomputed") == Some(&json!(true)) {
                json!(jcs_sha256(&ctx, SpecVersion::V0_1, false).unwrap_or_default())
            } else if let Some(o) = resolve.get("identity_override") {
                o.clone()
            } else {
                id
            };
            let mut out = json!({"outcome": resolve.get("outcome").cloned().unwrap_or(Value::Null), "context_identity": echoed});
            if let Some(v) = resolve.get("verdict") {
                out["verdict"] = v.clone();
            }
            ResolverReply::Resolution(out)
        })
    }

    fn redact<'a>(&'a self, context: &'a Value) -> BoxFuture<'a, RedactorReply> {
        Box::pin(async move {
            let mut out = context.clone();
            let point = out
                .get("interception_point")
                .and_then(Value::as_str)
                .and_then(Point::parse);
            for path in &self.redact {
                let t = json!({"decision": "transform", "transform": {"path": path, "value": "[redacted]"}});
                if let (Ok(v), Some(p)) = (gate(&t), point) {
                    let _ = apply_transform(&mut out, p, &v);
                }
            }
            RedactorReply::Redacted(out)
        })
    }
}

#[derive(Deserialize)]
struct RawScenario {
    scenario: Box<RawValue>,
}

/// A loaded vector: the parsed file plus its scenario's raw text.
pub(crate) struct Vector {
    /// The file as a value (for its expectations and configuration).
    pub(crate) doc: Value,
    /// The scenario exactly as written.
    pub(crate) scenario: Box<RawValue>,
}

/// Load an upstream vector by its file-name prefix, e.g. `AH-CTK-001`.
pub(crate) fn load(prefix: &str) -> Vector {
    let dir = upstream().join("conformance/vectors");
    let entry = std::fs::read_dir(&dir)
        .expect("vectors directory")
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .unwrap_or_else(|| panic!("no vector {prefix}"));
    let text = std::fs::read_to_string(entry.path()).expect("readable");
    let raw: RawScenario = serde_json::from_str(&text).expect("scenario");
    Vector {
        doc: serde_json::from_str(&text).expect("json"),
        scenario: raw.scenario,
    }
}

/// Every upstream vector's id prefix.
pub(crate) fn all_ids() -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(upstream().join("conformance/vectors"))
        .expect("vectors directory")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().chars().take(10).collect())
        .collect();
    ids.sort();
    ids
}

/// The setup and script a vector describes.
pub(crate) fn prepare(v: &Vector) -> (VectorSetup, Arc<Script>) {
    let d = &v.doc;
    let scripts: Vec<Vec<Value>> = match (d.get("interceptor_scripts"), d.get("interceptor_script"))
    {
        (Some(Value::Array(list)), _) => list
            .iter()
            .map(|s| s.as_array().cloned().unwrap_or_default())
            .collect(),
        (_, Some(Value::Array(one))) => vec![one.clone()],
        _ => Vec::new(),
    };
    let approval = d
        .get("approval_script")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let redact: Vec<String> = d
        .get("redact_for_approval")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut setup = VectorSetup::new(
        d["id"].as_str().unwrap_or_default(),
        "agent-hooks/0.1",
        v.scenario.clone(),
    );
    setup.interceptors = scripts
        .iter()
        .map(|_| InterceptorBinding::everywhere())
        .collect();
    setup.approval_resolver = !approval.is_empty();
    setup.redactor = !redact.is_empty();
    if d.get("mode") == Some(&json!("evaluate_only")) {
        setup.mode = Mode::EvaluateOnly;
    }
    if let Some(c) = d.get("composition") {
        setup.composition = serde_json::from_value::<Composition>(c.clone()).expect("composition");
    }
    match d.get("identity_provider") {
        None => {}
        Some(Value::Null) => setup.identity_provider = None,
        Some(Value::String(s)) => setup.identity_provider = Some(s.clone()),
        Some(_) => panic!("bad identity_provider"),
    }
    let script = Arc::new(Script {
        interceptors: scripts,
        approval,
        redact,
        seen: Mutex::new(Vec::new()),
        requests: Mutex::new(Vec::new()),
    });
    (setup, script)
}

/// Set up, run and tear down one vector on a fresh `ReferenceHost`.
pub(crate) async fn run(setup: VectorSetup, script: Arc<Script>) -> RunRecord {
    let mut host = ReferenceHost::new();
    host.setup(setup).await.expect("setup");
    let record = host.run(script).await.expect("run");
    host.teardown().await.expect("teardown");
    record
}

/// Run an upstream vector by id prefix.
pub(crate) async fn run_vector(prefix: &str) -> (RunRecord, Arc<Script>, Value) {
    let v = load(prefix);
    let (setup, script) = prepare(&v);
    let record = run(setup, script.clone()).await;
    (record, script, v.doc)
}
