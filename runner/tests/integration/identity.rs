//! The identity oracle cross-check: the runner's own `jcs-sha256`
//! (`ctk::digest`, serde_jcs + sha2) against the reference host's
//! (`ctk_agent_hooks_reference_host::identity::provider::jcs_sha256`, its own
//! canonicaliser), over generated contexts, and both against the project's
//! golden identities (`spec/0.1/golden-identities.json`, always) and the
//! upstream golden fixtures (when `../shared` is present).
//!
//! G-15 is a known deliberate difference from the golden file
//! (`spec/0.1/DECISIONS.md` D-11): the golden pins serde_json's lossy float
//! parser, this workspace parses with `float_roundtrip`. Both
//! implementations must still agree with each other there.

use ctk::digest;
use ctk_agent_hooks_reference_host::identity::provider::jcs_sha256;
use ctk_agent_hooks_reference_host::SpecVersion;
use ctk_agent_hooks_suite::identity;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

use crate::upstream::{upstream, UPSTREAM_GOLDEN};

const POINTS: [&str; 8] = [
    "agent_startup",
    "input",
    "pre_model_call",
    "post_model_call",
    "pre_tool_call",
    "post_tool_call",
    "output",
    "agent_shutdown",
];

const ROLES: [&str; 3] = ["user", "system", "external"];
const REASONS: [&str; 3] = ["completed", "error", "cancelled"];

/// The reference host's identity, or `None` when it refuses.
fn reference(ctx: &Value) -> Option<String> {
    jcs_sha256(ctx, SpecVersion::V0_1, false).ok()
}

/// The runner's identity, or `None` when it refuses.
fn runner(ctx: &Value) -> Option<String> {
    identity::context_identity(ctx).ok()
}

/// The identity projection canonicalised by the runner (serde_jcs) and by
/// the reference host's own writer.
fn canonical_pair(ctx: &Value) -> Option<(String, String)> {
    let projected = identity::projection(ctx).ok()?;
    let ours = digest::canonical(&projected).ok()?;
    let theirs = ctk_agent_hooks_reference_host::identity::jcs::to_canonical_string(&projected);
    Some((ours, theirs))
}

/// A double that lies exactly halfway between its two shortest 17-digit
/// spellings (161838657819348.625). ECMA-262 Number::toString (and so RFC
/// 8785) breaks the tie to the even digit: `161838657819348.62`, which is
/// what V8 prints and what serde_jcs writes. The proptest below found the
/// reference host writing `161838657819348.63` (Rust's `{:e}` digits); the
/// host now formats doubles with ryu-js (D-50), and this case keeps both
/// honest.
const TIE_CASE: f64 = 161_838_657_819_348.62;

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-9_007_199_254_740_991i64..=9_007_199_254_740_991).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        prop_oneof![
            Just(0.1f64),
            Just(1e21),
            Just(1e-7),
            Just(-0.0),
            Just(5e-324),
            Just(1.7976931348623157e308)
        ]
        .prop_map(|f| json!(f)),
        "\\PC{0,8}".prop_map(Value::from),
        "[\\u{0}-\\u{1f}\"\\\\/\\u{7f}\\u{2028}\\u{fffd}\\u{10000}\\u{e000}]{0,4}"
            .prop_map(Value::from),
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("\\PC{0,6}", any_json(), 0..4).prop_map(|m| m.into_iter().collect())
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{1,10}"
}

/// Every member a context might carry; [`assemble`] keeps what its point needs.
#[derive(Debug, Clone)]
struct Parts {
    point: usize,
    core: (String, u64, String, String, String),
    target: Value,
    payload: (Value, Value, Map<String, Value>, Vec<String>),
    choice: (usize, bool, Vec<Value>),
    extras: (Option<Value>, Option<Value>, Option<String>),
}

fn parts() -> impl Strategy<Value = Parts> {
    (
        0..POINTS.len(),
        (text(), 0..1_000_000u64, text(), "[a-z0-9_-]{1,10}", text()),
        any_json(),
        (
            any_json(),
            any_json(),
            object(),
            prop::collection::vec(text(), 0..4),
        ),
        (
            0..3usize,
            any::<bool>(),
            prop::collection::vec(object().prop_map(Value::Object), 0..3),
        ),
        (
            proptest::option::of(any_json()),
            proptest::option::of(object().prop_map(Value::Object)),
            proptest::option::of(text()),
        ),
    )
        .prop_map(|(point, core, target, payload, choice, extras)| Parts {
            point,
            core,
            target,
            payload,
            choice,
            extras,
        })
}

fn assemble(p: Parts) -> Value {
    let (timestamp, sequence, agent_id, framework, session_id) = p.core;
    let (value, content, args, tools) = p.payload;
    let (pick, is_error, messages) = p.choice;
    let (trace, extension, agent_name) = p.extras;
    let point = POINTS[p.point];
    let mut agent = json!({"id": agent_id, "framework": framework});
    if let Some(name) = agent_name {
        agent["name"] = json!(name);
    }
    let mut ctx = json!({
        "spec": "agent-hooks/0.1", "interception_point": point, "timestamp": timestamp,
        "sequence": sequence, "agent": agent, "session": {"id": session_id, "note": value.clone()},
        "target": p.target,
    });
    let tool_call = json!({"id": "tc-1", "name": tools.first().cloned().unwrap_or_default(), "args": args, "extra": value.clone()});
    let conditional = match point {
        "agent_startup" => json!({"agent_init": {"tools_registered": tools, "other": value}}),
        "input" => {
            json!({"input": {"content": if pick == 0 { json!(tools.first().cloned().unwrap_or_default()) } else { Value::Object(args) },
            "role": ROLES[pick], "source": value}})
        }
        "pre_model_call" => {
            json!({"model": {"id": "m", "temperature": value}, "messages": messages})
        }
        "post_model_call" => json!({"model": {"id": "m"}, "response": {"content": content,
            "tool_calls": messages, "finish_reason": "stop", "usage": value}}),
        "pre_tool_call" => json!({"tool_call": tool_call}),
        "post_tool_call" => {
            json!({"tool_call": tool_call, "tool_result": {"value": content, "is_error": is_error, "ms": value}})
        }
        "output" => json!({"output": {"content": content, "format": value}}),
        _ => {
            json!({"summary": {"reason": REASONS[pick], "turns": value}})
        }
    };
    let obj = ctx.as_object_mut().expect("an object");
    if let Value::Object(more) = conditional {
        obj.extend(more);
    }
    if let Some(trace) = trace {
        obj.insert("trace".into(), trace);
    }
    if let Some(extension) = extension {
        obj.insert("extensions".into(), json!({"acme": extension}));
    }
    ctx
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn runner_and_reference_host_agree_on_every_identity(p in parts()) {
        let ctx = assemble(p);
        // The reference host validates the envelope first; every generated
        // context is meant to pass it, so a refusal is a domain refusal.
        let (ours, theirs) = (runner(&ctx), reference(&ctx));
        prop_assert_eq!(
            &ours,
            &theirs,
            "context {}\nrunner canonical:    {:?}\nreference canonical: {:?}",
            ctx,
            canonical_pair(&ctx).map(|p| p.0),
            canonical_pair(&ctx).map(|p| p.1)
        );
    }

    #[test]
    fn identities_ignore_members_outside_the_projection(p in parts(), noise in any_json()) {
        let ctx = assemble(p);
        if runner(&ctx).is_none() {
            return Ok(()); // out of the integer domain: nothing to compare
        }
        let mut noisy = ctx.clone();
        noisy["agent"]["name"] = noise.clone();
        noisy["trace"] = noise.clone();
        noisy["budgets"] = noise;
        prop_assert_eq!(runner(&noisy), runner(&ctx));
        prop_assert_eq!(reference(&noisy), reference(&ctx));
    }
}

#[test]
fn both_break_spelling_ties_to_even_as_ecma_262_does() {
    let value = json!([TIE_CASE]);
    assert_eq!(
        digest::canonical(&value).expect("canonical"),
        "[161838657819348.62]"
    );
    assert_eq!(
        ctk_agent_hooks_reference_host::identity::jcs::to_canonical_string(&value),
        "[161838657819348.62]"
    );
    let ctx = assemble(Parts {
        point: 6,
        core: ("t".into(), 1, "a".into(), "f".into(), "s".into()),
        target: json!({}),
        payload: (json!(null), json!(TIE_CASE), Map::new(), vec![]),
        choice: (0, false, vec![]),
        extras: (None, None, None),
    });
    assert!(runner(&ctx).is_some());
    assert_eq!(runner(&ctx), reference(&ctx));
}

#[test]
fn in_domain_integers_always_identify() {
    let base = assemble(Parts {
        point: 6,
        core: ("t".into(), 1, "a".into(), "f".into(), "s".into()),
        target: json!({}),
        payload: (
            json!(null),
            json!(9_007_199_254_740_991i64),
            Map::new(),
            vec![],
        ),
        choice: (0, false, vec![]),
        extras: (None, None, None),
    });
    assert!(runner(&base).is_some());
    assert_eq!(runner(&base), reference(&base));
    let mut beyond = base.clone();
    beyond["output"]["content"] = json!(9_007_199_254_740_992i64);
    assert_eq!((runner(&beyond), reference(&beyond)), (None, None));
}

#[test]
fn both_match_the_project_golden_identities() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/0.1/golden-identities.json"
    );
    let text = std::fs::read_to_string(path).expect("spec/0.1/golden-identities.json");
    let golden: Value = serde_json::from_str(&text).expect("golden JSON");
    let cases = golden["cases"].as_array().expect("cases");
    assert!(cases.len() >= 20, "{} cases", cases.len());
    for c in cases {
        let name = c["name"].as_str().expect("name");
        let ctx = &c["context"];
        let (ours, theirs) = (runner(ctx), reference(ctx));
        match c["refused"].as_str() {
            // The runner's identity hashes the projection without the §4
            // envelope check (the assertions do that); the host refuses.
            Some("envelope") => {
                assert!(ours.is_some(), "{name}");
                assert_eq!(theirs, None, "{name}");
            }
            Some(kind) => {
                let err = identity::context_identity(ctx).expect_err(name);
                let want = match kind {
                    "out_of_domain" => identity::IdentityError::OutOfDomain,
                    "unknown_point" => identity::IdentityError::UnknownPoint,
                    other => panic!("{name}: unknown refusal {other}"),
                };
                assert_eq!(err, want, "{name}");
                assert_eq!(theirs, None, "{name}");
            }
            None => {
                let want = c["identity"].as_str().expect("identity");
                let projected = identity::projection(ctx).expect("projects");
                assert_eq!(
                    digest::canonical(&projected).expect("canonical"),
                    c["canonical_projection"].as_str().expect("canonical"),
                    "{name}"
                );
                assert_eq!(ours.as_deref(), Some(want), "{name}");
                assert_eq!(theirs.as_deref(), Some(want), "{name}");
            }
        }
    }
}

#[test]
fn both_match_the_upstream_golden_fixtures() {
    let Some(path) = upstream(UPSTREAM_GOLDEN) else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("upstream golden file");
    let golden: Value = serde_json::from_str(&text).expect("golden JSON");
    let fixtures = golden["fixtures"].as_array().expect("fixtures");
    assert!(fixtures.len() >= 18, "{} fixtures", fixtures.len());
    let mut checked = 0;
    for f in fixtures {
        let id = f["id"].as_str().unwrap_or("?");
        let ctx = &f["ctx"];
        let (ours, theirs) = (runner(ctx), reference(ctx));
        if id == "G-N02-missing-conditional" {
            // The runner's identity does not validate the §4 envelope (the
            // assertions do that separately); the host refuses.
            assert_eq!(theirs, None, "{id}");
            continue;
        }
        assert_eq!(ours, theirs, "{id}: runner and reference host disagree");
        match f["expect"].get("context_identity").and_then(Value::as_str) {
            Some(_) if id == "G-15-rfc8785-numbers" => {
                // D-11: deliberate one-ULP difference from the golden file.
            }
            Some(want) => assert_eq!(ours.as_deref(), Some(want), "{id}"),
            None => assert_eq!(ours, None, "{id} must be refused"),
        }
        checked += 1;
    }
    assert!(checked >= 17, "{checked} fixtures checked");
}
